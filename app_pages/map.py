"""The topic map: every paper as a point over its topic's region, coloured by a choice of facet, labelled by
topic (zoom in and the fine topics' labels take over).

Search rings the papers that match; click a point to see its paper; draw a box or lasso to list
the papers inside it.
"""

import plotly.graph_objects as go
import streamlit as st

from lib import ui_state
from lib.errors import PaperMapError
from lib.views import exports
from lib.views.edition_changes import topic_lift
from lib.views.map.figure import REGION_CHOICES, map_figure
from lib.views.map.page import (
    action_line,
    drawn_line,
    export_notes,
    highlighted_ids,
    listed_papers,
    map_focus,
    map_highlight,
    paper_spot,
    selection_line,
)
from lib.views.markup import markdown_literal
from lib.views.tables import corpus_caption, selection_summary

SIMILAR = 20

view = ui_state.current_view()
papers, shown = view.papers, view.shown


@st.fragment
def topic_map() -> None:
    # A fragment: a colouring, a search, a click or a lasso reruns the map page, not the sidebar.
    title, colour_box, labels_box, regions_box = st.columns([4, 1.3, 1.3, 1], vertical_alignment="bottom")
    with colour_box:
        color_by = ui_state.url_select("Colour by", ui_state.colour_choices(papers), key="color", default="subfield")
    with labels_box:
        labels = ui_state.url_select("Labels", ui_state.LABEL_CHOICES, key="labels", default="topic_label")
    with regions_box:
        regions = ui_state.url_select("Regions", REGION_CHOICES, key="regions", default="shown")
    with title, st.container(key=ui_state.MAP_TITLE_KEY):
        st.subheader(f"Topic map: {len(shown):,} of {len(papers):,} papers")
        st.caption(markdown_literal(corpus_caption(papers, view.source.name)))
    ui_state.load_report(view.report)  # what the data set's file held that is not on the map, and why

    search_box, similar_box = st.columns(2)
    with search_box:
        example = ui_state.search_example(view.map_dir)
        # Labels shown only to screen readers, the placeholders saying what they would: the map gets their line.
        query = ui_state.url_text(
            "Search titles, abstracts, authors and keywords",
            key="q",
            placeholder=f"Search titles, abstracts, authors, keywords: e.g. {example}"
            if example
            else 'Search: words or "a phrase" from titles, abstracts, authors',
            show_label=False,
        )
    with similar_box:
        like = ui_state.url_text(
            "Similar to this text",
            key="like",
            placeholder="Similar to this text: paste an abstract or describe an idea",
            show_label=False,
        )

    if shown.empty:
        st.info("No paper matches the filters. Clear the filters in the sidebar to see the whole map.")
        return

    found = ui_state.search_in_view(view, query) if query else None
    similar = None
    if like:
        try:
            similar = ui_state.similar_in_view(view, like, SIMILAR)
        except PaperMapError as error:
            st.error(markdown_literal(str(error)))
    ui_state.map_page_style(status_lines=int(found is not None))
    if found is not None:
        st.markdown(action_line(len(shown), found, query))

    paper_id = ui_state.url_paper(papers)

    # A large map draws part of its papers (lib.views.map.detail): those of the reader's view, and the marked ones.
    marked = highlighted_ids(map_highlight(query, found, similar, paper_id))
    drawing = ui_state.map_drawing(
        view.map_dir, papers, shown, ui_state.chart_view(st.session_state.get("map")), marked
    )

    def drawn(ringed: str | None, clickable: bool = True, webgl: bool | None = None, by_row: bool = False) -> go.Figure:
        return map_figure(
            drawing.shown,
            color_by,
            ui_state.label_column(labels),
            context=drawing.context,
            height=ui_state.MAP_HEIGHT_HINT,
            width_hint=ui_state.MAP_WIDTH_HINT,
            highlight=map_highlight(query, found, similar, ringed),
            hover=None
            if by_row or drawing.whole is not None
            else ui_state.cached_map_hover(view.map_dir, clickable),  # the chart's papers carry theirs
            regions=regions == "shown",
            region_shapes=ui_state.cached_map_regions(view.map_dir),  # the labels sit on them, drawn or not
            colours=ui_state.cached_map_colours(view.map_dir, color_by),
            webgl=webgl,
            by_row=by_row,
            # A filter, a search or a breakdown's link shows its papers, not the whole map; stepping
            # through the editions keeps the map still.
            zoom=view.filters.zooms() or map_focus(found, similar) is not None,
            focus=map_focus(found, similar),
            label_marks=ui_state.cached_label_marks(view.map_dir, ui_state.label_column(labels)),
            # An edition's step keeps the map's labels; its topics' regions light up or fade by its share of them.
            labelled=None if view.filters.zooms() else papers,
            region_strength=None if view.filters.zooms() or not view.filters.active() else topic_lift(shown, papers),
            density=drawing.density,
            counted=drawing.whole,
        )

    # The open paper's ring is drawn over the chart by its script, so a click leaves the figure as
    # it was and the browser keeps its drawing; the download rings it in the figure.
    with st.container(key=ui_state.MAP_FRAME_KEY):
        selected = ui_state.map_chart(
            drawn(None, webgl=True, by_row=True),  # updated in place: WebGL redraws faster than SVG at any size
            drawing.points,
            key="map",
            frame=f".st-key-{ui_state.MAP_FRAME_KEY}",
            on_click=ui_state.open_paper,
            ring=paper_spot(papers, paper_id),
            config={"scrollZoom": False, "displaylogo": False},  # the wheel scrolls the page, as a presenter expects
            selectable=drawing.whole,  # a box or lasso on a map drawn in part lists every paper inside it
            selection_key=drawing.selection_key,
        )
        note = selection_line(len(selected)) or drawn_line(len(drawing.shown), len(shown), drawing.view_complete)
        if note:
            with st.container(key=ui_state.MAP_NOTE_KEY):  # over the chart's top edge, out of the layout's flow
                st.markdown(note)
    st.download_button(
        "Download this view as an interactive HTML file",
        data=lambda: exports.map_html(
            drawn(paper_id, clickable=False),  # a click in the file lists nothing
            f"{corpus_caption(papers, view.source.name)}: topic map",
            export_notes(
                papers,
                shown,
                view.filters.to_query(),
                ui_state.colour_choices(papers)[color_by],
                ui_state.LABEL_CHOICES[labels],
            ),
        ),
        file_name=f"{exports.file_stem(view.source.name)}-map.html",
        mime="text/html",
        on_click="ignore",
        help="One file that opens in any browser, offline: the map as you see it, with hover and zoom.",
    )
    if paper_id:
        ui_state.paper_card(papers, paper_id)
    listed, heading = listed_papers(shown, selected, similar, found, query)
    if listed is not None:
        st.markdown(f"#### {len(listed):,} {heading}")
        for name, line in selection_summary(listed).items():
            st.markdown(f"**{name}:** {markdown_literal(line)}")
        ui_state.paper_list(listed, key="listed_table")
        ui_state.add_to_list_control(listed, key="map-listed")
    else:
        st.caption(
            "Click a point to see its paper; draw a box or lasso (toolbar above the map) to list the papers inside."
        )
        ui_state.paper_list_on_demand(shown, key="shown_table", what="papers shown")


topic_map()
