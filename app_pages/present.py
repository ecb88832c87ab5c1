"""Presentation mode: a reading list one paper at a time, in large type, with its place on the map."""

import streamlit as st

from lib import ui_state
from lib.store import reading_lists
from lib.views.exports import venue_year
from lib.views.markup import markdown_literal
from lib.views.slide_map import ring_place
from lib.views.text import byline, short_authors

AUTHORS_SHOWN = 8  # then "et al.": two lines at most in large type

ui_state.presentation_style()
view = ui_state.current_view()


@st.fragment
def slide() -> None:
    # A fragment: a step reruns the slide, not the dashboard's data and filters.
    names = ui_state.read_lists(reading_lists.list_names)
    choice, position, status, previous, following, back = st.columns(
        [3, 1.5, 1.7, 1.1, 1.1, 1.4], vertical_alignment="bottom"
    )
    with choice:
        name = ui_state.list_choice(names, on_change=ui_state.go_to_step)  # another list starts at its first paper
    if name is None:
        st.info("No reading lists yet: create one on the Reading lists page, then present it here.")
        st.page_link("app_pages/reading_lists.py", label="Go to reading lists")
        return
    back.page_link("app_pages/reading_lists.py", label="Back to the list", query_params={ui_state.LIST_KEY: name})
    entries = ui_state.read_lists(reading_lists.entries, name)
    if not entries:
        st.info("This list has no papers yet: add some from the map or a paper's page.")
        return
    with position:
        step = ui_state.presented_step(name, len(entries), ui_state.step_keys())
        st.markdown(f"Paper **{step}** of **{len(entries)}**")
    entry = entries[step - 1]
    if entry.status in reading_lists.AFTER_MEETING:
        after = reading_lists.AFTER_MEETING[entry.status]
        status.button(
            f"Mark {after}",
            on_click=ui_state.move_on,
            args=(name, entry),
            disabled=not ui_state.may_edit(),
            help=f"This paper is {entry.status}; it goes in the rota as {after}"
            + (" today" if after == "presented" else ""),
            width="stretch",
        )
    else:
        status.markdown(f"_{entry.status}_")
    previous.button(
        "Previous",
        disabled=step == 1,
        on_click=ui_state.move_step,
        args=(-1,),
        help="Or the left arrow key (Page Up)",
        width="stretch",
    )
    following.button(
        "Next",
        disabled=step == len(entries),
        on_click=ui_state.move_step,
        args=(1,),
        help="Or the right arrow key (Page Down)",
        width="stretch",
    )

    st.title(markdown_literal(entry.title), anchor=False)
    with st.container(key="slide-authors"):
        st.markdown(markdown_literal(byline(short_authors(list(entry.authors), AUTHORS_SHOWN), venue_year(entry))))
    with st.container(key="slide-body"):
        text, place = st.columns([2, 3], gap="medium")
    with text, st.container(key="slide-text"):
        if entry.presenter:
            st.markdown(f"Presented by **{markdown_literal(entry.presenter)}**")
        if entry.note:
            st.markdown(f"_{markdown_literal(entry.note)}_")
        if entry.keywords:
            st.markdown(f"**Keywords:** {markdown_literal(', '.join(entry.keywords))}")
        st.markdown(markdown_literal(entry.abstract) if entry.abstract else "_No abstract in the data._")
    with place:
        if not reading_lists.on_map([entry], view.papers)[0]:
            st.info(
                markdown_literal(
                    f"Not on this map: the paper was added from {entry.dataset}, and the map shows {view.source.name}."
                )
            )
            return
        backdrop = ui_state.slide_map(view.map_dir)
        with st.container(key=ui_state.SLIDE_MAP_KEY):
            # The same figure at every step, so the browser keeps it drawn; only the ring over it moves.
            st.plotly_chart(
                backdrop,
                key="slide-backdrop",
                theme=None,
                height="stretch",
                config={"scrollZoom": False, "displaylogo": False, "displayModeBar": False},
            )
            ui_state.slide_ring(ring_place(backdrop, view.papers, entry.paper_id))


slide()
