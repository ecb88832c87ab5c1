"""The topic map: every paper as a point, coloured by subfield, labelled by topic."""
import streamlit as st

from lib import figures, ui_state
from lib.tables import corpus_caption, paper_table

view = ui_state.current_view()
papers, shown = view.papers, view.shown

left, right = st.columns([3, 1])
with right:
    # persist_state: the choices survive a visit to another page.
    color_by = st.selectbox(
        "Colour by", list(figures.COLOR_CHOICES), format_func=figures.COLOR_CHOICES.get, key="color", persist_state="session"
    )
    labels = st.radio(
        "Labels", [*figures.LABEL_LEVELS, None], format_func=lambda v: figures.LABEL_LEVELS.get(v, "None"),
        key="labels", horizontal=True, persist_state="session",
    )
with left:
    st.subheader(f"Topic map: {len(shown):,} of {len(papers):,} papers")
    st.caption(corpus_caption(papers, view.source.data.name))

if shown.empty:
    st.info("No paper matches the filters. Clear the filters in the sidebar to see the whole map.")
    st.stop()

st.plotly_chart(
    figures.map_figure(shown, color_by, labels, context=papers),
    key="map",
    theme=None,
    config={"scrollZoom": False, "displaylogo": False},  # the wheel scrolls the page, as a presenter expects
)
st.dataframe(paper_table(shown), hide_index=True, column_config=ui_state.PAPER_COLUMN_CONFIG)
