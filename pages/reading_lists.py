"""Reading lists: create and choose lists, order their papers, assign presenters and notes, export."""

import streamlit as st

from lib import ui_state
from lib.store import reading_lists
from lib.views import breakdowns, exports, list_coverage
from lib.views.markup import markdown_literal
from lib.views.text import byline, short_authors

st.subheader("Reading lists")
ui_state.show_list_error()


names = ui_state.read_lists(reading_lists.list_names)
choose, create = st.columns([3, 2], vertical_alignment="bottom")
with choose:
    name = ui_state.list_choice(names)
with (
    create.form("create_list", border=False, enter_to_submit=True),
    st.container(horizontal=True, vertical_alignment="bottom"),
):
    st.text_input(
        "New list",
        key=ui_state.NEW_LIST_NAME_KEY,
        placeholder="Name, e.g. Theory reading group",
        max_chars=reading_lists.MAX_NAME_LENGTH,
    )
    st.form_submit_button("Create list", on_click=ui_state.create_typed_list)

if name is None:
    st.info("No reading lists yet. Create one above, then add papers from the map's selection or a paper's page.")
    st.stop()

entries = ui_state.read_lists(reading_lists.entries, name)
with st.expander("Rename or delete this list"):
    rename, delete = st.columns(2, vertical_alignment="bottom")
    rename.text_input("New name", value=name, key=ui_state.rename_key(name), max_chars=reading_lists.MAX_NAME_LENGTH)
    rename.button("Rename", on_click=ui_state.rename_to_typed, args=(name,))
    sure = delete.checkbox(
        f"Yes, delete this list and its {len(entries)} papers", key=f"confirm_delete-{name}"
    )  # per list: a tick must not carry over to the next
    delete.button(
        "Delete list", disabled=not sure, on_click=ui_state.change_lists, args=(reading_lists.delete_list, name)
    )

if not entries:
    st.info("This list is empty. Add papers from the map's selection table or from a paper's page.")
    st.stop()

stem = exports.file_stem(name)
actions = st.container(horizontal=True, vertical_alignment="center")
actions.page_link("pages/present.py", label="Present this list", query_params={ui_state.LIST_KEY: name, "step": "1"})
actions.download_button(
    "Download Markdown agenda", exports.markdown_agenda(name, entries), f"{stem}.md", "text/markdown", on_click="ignore"
)
actions.download_button(
    "Download BibTeX", exports.bibtex(entries), f"{stem}.bib", "application/x-bibtex", on_click="ignore"
)
actions.download_button("Download CSV", exports.csv_text(entries), f"{stem}.csv", "text/csv", on_click="ignore")

st.caption(
    f"{len(entries)} paper{'' if len(entries) == 1 else 's'}, in reading order. Presenter and note are saved as you type (press Enter)."
)
for entry in entries:
    ui_state.show_stored_fields(entry)
    with st.container(border=True):
        paper, presenter, note, moves = st.columns([4, 1.8, 2.6, 2.4], vertical_alignment="center")
        with paper:
            st.markdown(f"**{entry.position + 1}. {markdown_literal(entry.title)}**")
            st.caption(markdown_literal(byline(short_authors(list(entry.authors)), entry.dataset)))
        presenter.text_input(
            "Presenter",
            key=ui_state.entry_key("presenter", entry.entry_id),
            on_change=ui_state.save_typed_field,
            args=(name, entry.entry_id, "presenter"),
            max_chars=100,
        )
        note.text_input(
            "Note",
            key=ui_state.entry_key("note", entry.entry_id),
            on_change=ui_state.save_typed_field,
            args=(name, entry.entry_id, "note"),
            max_chars=500,
        )
        buttons = moves.container(horizontal=True, gap="small")
        last = len(entries) - 1
        buttons.button(
            "↑",
            key=f"up-{entry.entry_id}",
            help="Move up",
            disabled=entry.position == 0,
            on_click=ui_state.change_lists,
            args=(reading_lists.move_entry, name, entry.entry_id, entry.position - 1),
        )
        buttons.button(
            "↓",
            key=f"down-{entry.entry_id}",
            help="Move down",
            disabled=entry.position == last,
            on_click=ui_state.change_lists,
            args=(reading_lists.move_entry, name, entry.entry_id, entry.position + 1),
        )
        buttons.button(
            "✕",
            key=f"remove-{entry.entry_id}",
            help="Remove from the list",
            on_click=ui_state.change_lists,
            args=(reading_lists.remove_entry, name, entry.entry_id),
        )

# Growing the list from this map: the topics it has no paper in, and the papers nearest it.
view = ui_state.current_view()
if not view.map_dir:  # a view without a built map (a page tested on its own): nothing to grow from
    st.stop()
list_ids = [entry.paper_id for entry in entries]
st.markdown("#### What this list misses")
gaps = list_coverage.missing_topics(ui_state.topic_summaries(view.map_dir, "coarse"), view.papers, list_ids)
if not gaps:
    st.caption(f"Every topic of the map of {markdown_literal(view.source.data.name)} has a paper on this list.")
else:
    st.caption(
        f"Topics of the map of {markdown_literal(view.source.data.name)} without a paper on this list, largest "
        "first, each with its most representative paper."
    )
for gap in gaps:
    topic, add = st.columns([5, 1], vertical_alignment="center")
    topic.markdown(f"**{markdown_literal(gap.label)}** ({gap.papers} papers): {markdown_literal(gap.title)}")
    add.button(
        "Add",
        key=f"gap-{gap.topic}",
        on_click=ui_state.add_to_this_list,
        args=(name, breakdowns.papers_by_id(view.papers, [gap.paper_id])),
    )
st.markdown("#### More like this list")
nearest = ui_state.more_like_list(view.map_dir, list_ids)
if nearest.empty:
    st.caption("None of this list's papers is on the open map.")
else:
    st.caption("The papers nearest the list as a whole (its papers' mean embedding), not on it yet.")
    ui_state.paper_buttons(nearest, key="more-like")
    st.button(
        f"Add these {len(nearest)} papers",
        key="add-more-like",
        on_click=ui_state.add_to_this_list,
        args=(name, nearest),
    )
