"""Presentation mode: a reading list one paper at a time, in large type, with its place on the map."""

import streamlit as st

from lib import ui_state
from lib.store import reading_lists
from lib.views import map_figure
from lib.views.exports import venue_year
from lib.views.markup import markdown_literal
from lib.views.text import byline

ui_state.presentation_style()
view = ui_state.current_view()
names = ui_state.read_lists(reading_lists.list_names)

bar = st.columns([3, 1.6, 1.3, 1.3, 1.3], vertical_alignment="bottom")
with bar[0]:
    name = ui_state.list_choice(names, on_change=ui_state.go_to_step)  # another list starts at its first paper
if name is None:
    st.info("No reading lists yet: create one on the Reading lists page, then present it here.")
    st.page_link("pages/reading_lists.py", label="Go to reading lists")
    st.stop()
entries = ui_state.read_lists(reading_lists.entries, name)
bar[4].page_link("pages/reading_lists.py", label="Back to the list", query_params={ui_state.LIST_KEY: name})
if not entries:
    st.info("This list has no papers yet: add some from the map or a paper's page.")
    st.stop()

step = ui_state.url_step(len(entries))
entry = entries[step - 1]
bar[1].markdown(f"Paper **{step}** of **{len(entries)}**")
bar[2].button(
    "Previous", disabled=step == 1, on_click=ui_state.go_to_step, args=(step - 1,), shortcut="Left", width="stretch"
)
bar[3].button(
    "Next",
    disabled=step == len(entries),
    on_click=ui_state.go_to_step,
    args=(step + 1,),
    shortcut="Right",
    width="stretch",
)

st.title(markdown_literal(entry.title), anchor=False)
st.caption(markdown_literal(byline(", ".join(entry.authors), venue_year(entry))))
if entry.presenter:
    st.markdown(f"Presented by **{markdown_literal(entry.presenter)}**")
if entry.note:
    st.markdown(f"_{markdown_literal(entry.note)}_")

text, place = st.columns([1, 1])
with text:
    if entry.keywords:
        st.markdown(f"**Keywords:** {markdown_literal(', '.join(entry.keywords))}")
    st.markdown(markdown_literal(entry.abstract) if entry.abstract else "_No abstract in the data._")
with place:
    if reading_lists.on_map([entry], view.papers)[0]:
        st.plotly_chart(
            map_figure.map_figure(
                view.papers,
                "subfield",
                "topic_label",
                context=view.papers,
                height=560,
                width_hint=620,
                highlight={"this paper": [entry.paper_id]},
                legend=False,
            ),
            key="presented-map",
            theme=None,
            config={"scrollZoom": False, "displaylogo": False},
        )
    else:
        st.info(
            markdown_literal(
                f"Not on this map: the paper was added from {entry.dataset}, and the map shows {view.source.data.name}."
            )
        )
