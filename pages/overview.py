"""Overview: what the map holds, in counts, and what each topic is about."""
import streamlit as st

from lib import figures, ui_state
from lib.tables import corpus_caption, topic_table

view = ui_state.current_view()
papers, shown = view.papers, view.shown

st.subheader("Overview")
st.caption(corpus_caption(papers, view.source.data.name))
columns = st.columns(4)
columns[0].metric("Papers shown", f"{len(shown):,}", help=f"{len(papers):,} in the data set")
columns[1].metric("Topics", f"{shown['topic'].nunique()} ({shown['topic_fine'].nunique()} fine)")
columns[2].metric("Subfields", shown["subfield"].nunique())
columns[3].metric("Records skipped", len(view.report.skipped))

if shown.empty:
    st.info("No paper matches the filters.")
    st.stop()

left, right = st.columns(2)
left.plotly_chart(figures.count_bar(shown, "area", "Papers per area"), key="areas", theme=None)
right.plotly_chart(figures.count_bar(shown, "subfield", "Papers per subfield"), key="subfields", theme=None)

st.markdown("#### Topics")
level = st.radio("Level", ["coarse", "fine"], format_func=str.title, horizontal=True, key="topic_level", persist_state="session")
topics = topic_table(ui_state.topic_summaries(view.map_dir, level), papers, shown, level)
st.caption("Keyphrases: the share of the topic's papers using each. Representative papers: nearest the topic's centre.")
st.dataframe(topics, hide_index=True, column_config=ui_state.TOPIC_COLUMN_CONFIG, height=ui_state.table_height(len(topics)))

if view.report.skipped or view.report.warnings:
    with st.expander(f"Load report: {view.report.summary()}"):
        st.text("\n".join(view.report.lines()))
