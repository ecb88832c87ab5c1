"""Reading lists: create and choose lists; order, schedule, vote on and present their papers; the rota, the
history and restoring what was deleted; exports; and what the list misses."""

import streamlit as st

from lib import ui_state
from lib.store import list_history, reading_lists
from lib.views import breakdowns, exports, list_coverage, reading_list
from lib.views.markup import markdown_literal
from lib.views.reading_list import when

st.subheader("Reading lists")
ui_state.show_list_error()


names = ui_state.read_lists(reading_lists.list_names)
choose, person, create = st.columns([3, 2, 3], vertical_alignment="bottom")
with choose:
    name = ui_state.list_choice(names)
with person:
    ui_state.member_name_box()
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
ui_state.member_access()

if name is None:
    st.info("No reading lists yet. Create one above, then add papers from the map's selection or a paper's page.")
    ui_state.deleted_lists_expander()
    st.stop()

entries = ui_state.read_lists(reading_lists.entries, name)
if entries:
    stem = exports.file_stem(name)
    with st.container(horizontal=True, vertical_alignment="center"):
        st.page_link(
            "app_pages/present.py", label="▶ Present this list", query_params={ui_state.LIST_KEY: name, "step": "1"}
        )
        st.download_button(
            "Download Markdown agenda",
            exports.markdown_agenda(name, entries),
            f"{stem}.md",
            "text/markdown",
            on_click="ignore",
        )
        st.download_button(
            "Download BibTeX", exports.bibtex(entries), f"{stem}.bib", "application/x-bibtex", on_click="ignore"
        )
        st.download_button("Download CSV", exports.csv_text(entries), f"{stem}.csv", "text/csv", on_click="ignore")
    with st.container(horizontal=True, vertical_alignment="center"):
        st.caption(
            f"{len(entries)} paper{'' if len(entries) == 1 else 's'}, in reading order. Edit a cell to save it: type a "
            "place in # to move a paper there, pick a status and a date, tick My vote; select rows and delete them "
            "to remove papers (they can be restored)."
        )
        ui_state.sort_control(name)
    ui_state.list_table(name, entries)
    rota = reading_list.rota(entries)
    st.markdown("#### Rota")
    if rota.empty:
        st.caption("Nothing scheduled or presented yet: give a paper a date or a status in the table above.")
    else:
        st.dataframe(rota, hide_index=True)
else:
    st.info(
        "This list is empty. Add papers from the map's selection table, a paper's page, or What this list misses below."
    )

# Growing the list from this map: the topics it has no paper in, and the papers nearest it.
view = ui_state.current_view()
if view.map_dir:  # a view without a built map (a page tested on its own) has nothing to grow from
    list_ids = [entry.paper_id for entry in entries]
    st.markdown("#### What this list misses")
    gaps = list_coverage.missing_topics(ui_state.topic_summaries(view.map_dir, "coarse"), view.papers, list_ids)
    if not gaps:
        st.caption(f"Every topic of the map of {markdown_literal(view.source.name)} has a paper on this list.")
    else:
        st.caption(
            f"Topics of the map of {markdown_literal(view.source.name)} without a paper on this list, largest "
            "first, each with its most representative paper."
        )
    for gap in gaps:
        ui_state.action_row(
            f"**{markdown_literal(gap.label)}** ({gap.papers} papers): {markdown_literal(gap.title)}",
            "Add",
            key=f"gap-{gap.topic}",
            on_click=ui_state.add_to_this_list,
            args=(name, breakdowns.papers_by_id(view.papers, [gap.paper_id])),
        )
    st.markdown("#### More like this list")
    nearest = ui_state.more_like_list(view.map_dir, list_ids) if entries else None
    if nearest is None:
        st.caption("Add a paper first: its neighbours on the map are offered here.")
    elif nearest.empty:
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

# Keeping the list: what was removed, what changed, renaming and deleting, and lists deleted before.
removed = ui_state.read_lists(list_history.removed_entries, name)
if removed:
    with st.expander(f"Removed from this list ({len(removed)})"):
        for entry in removed:
            ui_state.action_row(
                f"{markdown_literal(entry.title)} (removed {markdown_literal(when(entry.removed_at))})",
                "Restore",
                key=f"restore-entry-{entry.entry_id}",
                on_click=ui_state.change_lists,
                args=(list_history.restore_entry, name, entry.entry_id),
            )
with st.expander("History of this list"):
    st.dataframe(reading_list.history_table(ui_state.read_lists(list_history.history, name)), hide_index=True)
with st.expander("Rename or delete this list"):
    rename, delete = st.columns(2, vertical_alignment="bottom")
    rename.text_input("New name", value=name, key=ui_state.rename_key(name), max_chars=reading_lists.MAX_NAME_LENGTH)
    rename.button("Rename", on_click=ui_state.rename_to_typed, args=(name,))
    sure = delete.checkbox(
        f"Yes, delete this list and its {len(entries)} papers", key=f"confirm_delete-{name}"
    )  # per list: a tick must not carry over to the next
    delete.button(
        "Delete list",
        disabled=not sure,
        on_click=ui_state.change_lists,
        args=(reading_lists.delete_list, name),
        help="It can be restored from Deleted lists",
    )
ui_state.deleted_lists_expander()
