"""The topic map: every paper as a point, coloured by a choice of facet, labelled by topic.

Click a point to see the paper; draw a box or lasso to list the papers inside it.
"""
import streamlit as st

from lib import figures, ui_state
from lib.markup import markdown_literal
from lib.tables import corpus_caption, paper_table, selection_summary

view = ui_state.current_view()
papers, shown = view.papers, view.shown

title, colour_box, labels_box = st.columns([4, 1.3, 1.7], vertical_alignment="bottom")
with colour_box:
    color_by = ui_state.url_select("Colour by", ui_state.colour_choices(papers), key="color", default="subfield")
with labels_box:
    labels = ui_state.url_select("Labels", ui_state.LABEL_CHOICES, key="labels", default="topic_label", horizontal=True)
with title:
    st.subheader(f"Topic map: {len(shown):,} of {len(papers):,} papers")
    st.caption(markdown_literal(corpus_caption(papers, view.source.data.name)))

if shown.empty:
    st.info("No paper matches the filters. Clear the filters in the sidebar to see the whole map.")
    st.stop()


@st.fragment
def map_and_selection() -> None:
    # A fragment: a click or a lasso reruns the map and its tables, not the sidebar.
    paper_id = ui_state.url_paper(papers)
    figure = figures.map_figure(shown, color_by, ui_state.label_column(labels), context=papers, highlight=[paper_id] if paper_id else [])
    event = st.plotly_chart(
        figure, key="map", theme=None, on_select="rerun", selection_mode=("points", "box", "lasso"),
        config={"scrollZoom": False, "displaylogo": False},  # the wheel scrolls the page, as a presenter expects
    )
    selection = ui_state.map_selection(event)
    if selection.clicked and selection.clicked != paper_id:
        ui_state.open_paper(selection.clicked)
        st.rerun(scope="fragment")
    if paper_id:
        ui_state.paper_card(papers, paper_id)
    if selection.drawn:
        chosen = shown[shown["paper_id"].isin(selection.drawn)]
        st.markdown(f"#### {len(chosen):,} selected papers")
        for name, line in selection_summary(chosen).items():
            st.markdown(f"**{name}:** {markdown_literal(line)}")
        st.dataframe(paper_table(chosen), hide_index=True, column_config=ui_state.PAPER_COLUMN_CONFIG, key="selected_table")
    else:
        st.caption("Click a point to see its paper; draw a box or lasso (toolbar above the map) to list the papers inside.")
        st.dataframe(paper_table(shown), hide_index=True, column_config=ui_state.PAPER_COLUMN_CONFIG, key="shown_table")


map_and_selection()
