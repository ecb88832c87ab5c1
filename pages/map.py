"""The topic map: every paper as a point, coloured by subfield, labelled by topic."""
import streamlit as st

from lib import figures, ui_state
from lib.filters import value_counts
from lib.tables import paper_table

view = ui_state.current_view()
papers, shown = view.papers, view.shown

left, right = st.columns([3, 1])
with right:
    color_by = st.selectbox("Colour by", list(figures.COLOR_CHOICES), format_func=figures.COLOR_CHOICES.get, key="color")
    show_labels = st.toggle("Topic labels", value=True)
with left:
    st.subheader(f"Topic map: {len(shown):,} of {len(papers):,} papers")

if shown.empty:
    st.info("No paper matches the filters. Clear the subfield filter in the sidebar to see the whole map.")
    st.stop()

categories = list(value_counts(papers, color_by))
st.plotly_chart(figures.map_figure(shown, color_by, show_labels, categories), key="map", config={"scrollZoom": True}, theme=None)

st.dataframe(
    paper_table(shown),
    hide_index=True,
    column_config={"link": st.column_config.LinkColumn("link", display_text="open")},
)
