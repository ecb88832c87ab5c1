"""A paper's page: what it is about, where the map files it, and the papers most like it."""

import streamlit as st

from lib import ui_state
from lib.errors import PaperMapError
from lib.views.markup import markdown_literal
from lib.views.search import find_paper
from lib.views.tables import paper_facts, paper_links

SIMILAR = 10

view = ui_state.current_view()
paper_id = ui_state.url_paper_choice(view.papers, view.map_dir)


if paper_id is None:
    st.info("Choose a paper above, or click one on the map, to see its details and the papers most like it.")
    st.stop()
found_paper = find_paper(view.papers, paper_id)
if found_paper is None:
    st.warning(f"This map has no paper with the id {markdown_literal(paper_id)}; choose one above.")
    st.stop()
paper = found_paper.paper
ui_state.scroll_to_top_on_new_paper(paper_id)

st.subheader(markdown_literal(paper["title"]), anchor=False)
if paper["authors"]:
    st.markdown(markdown_literal(", ".join(paper["authors"])))
for column, (label, link) in zip(st.columns(3), paper_links(paper)):
    column.link_button(label, link)
ui_state.add_to_list_control(found_paper.rows, key="paper")
st.markdown("\n".join(f"- **{label}:** {markdown_literal(text)}" for label, text in paper_facts(paper)))
ui_state.other_edition_buttons(view.papers, paper["same_as"], key="same-paper")
if paper["abstract"]:
    st.markdown("#### Abstract")
    st.markdown(markdown_literal(paper["abstract"]))

st.markdown(f"#### The {SIMILAR} most similar papers")
ui_state.paper_buttons(ui_state.similar_papers(view.map_dir, paper_id, SIMILAR), key="similar")

with st.expander("Find papers similar to a text"):
    text = st.text_area("Paste an abstract or describe an idea", key="similar_text").strip()
    if text:
        try:
            found = ui_state.similar_to_text(view.map_dir, text, SIMILAR)
        except PaperMapError as error:
            st.error(markdown_literal(str(error)))
        else:
            if found.empty:
                st.info("No paper is similar to this text.")
            ui_state.paper_buttons(found, key="text")
