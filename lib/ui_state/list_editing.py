"""The reading-lists page's edits: creating and renaming lists, the editable table of a list's papers, sorting and restoring."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import cast

import pandas as pd
import streamlit as st

from lib.store import list_history, reading_lists
from lib.views import reading_list
from lib.views.markup import markdown_literal

from .members import may_edit, member_name
from .reading import LIST_KEY, change_lists, keep_list_error, read_lists, take_list_error

NEW_LIST_NAME_KEY = "new_list_name"  # the "New list" text box
SORT_KEY = "sort_list_by"
# Rows shown before the table scrolls: a long list stays one screen, its header in view.
TABLE_ROWS = 16
_ROW_PX, _HEADER_PX = 35, 38


def rename_key(name: str) -> str:
    """The key of list `name`'s "New name" text box."""
    return f"rename-{name}"


def create_typed_list() -> None:
    """Create the list named in the "New list" box, choose it and empty the box (a callback)."""
    name = change_lists(reading_lists.create_list, st.session_state[NEW_LIST_NAME_KEY])
    if name:
        st.session_state[LIST_KEY] = name
        st.session_state[NEW_LIST_NAME_KEY] = ""


def rename_to_typed(name: str) -> None:
    """Rename list `name` to its "New name" box's text and keep it chosen (a callback)."""
    new_name = change_lists(reading_lists.rename_list, name, st.session_state[rename_key(name)])
    if new_name:
        st.session_state[LIST_KEY] = new_name


def action_row(text: str, label: str, *, key: str, on_click: Callable[..., object], args: tuple = ()) -> None:
    """One line of Markdown `text` (already escaped) with a button `label` at its end."""
    what, action = st.columns([5, 1], vertical_alignment="center")
    what.markdown(text)
    # A page passes `change_lists`, whose value Streamlit discards; its stub asks for a callback returning None.
    action.button(label, key=key, on_click=cast("Callable[..., None]", on_click), args=args)


def _restore_deleted_list(list_id: int) -> None:
    name = change_lists(list_history.restore_list, list_id)
    if name:
        st.session_state[LIST_KEY] = name


def deleted_lists_expander() -> None:
    """ "Deleted lists (N)", each with a Restore button that brings it back and chooses it; nothing when none are."""
    deleted = read_lists(list_history.deleted_lists)
    if not deleted:
        return
    with st.expander(f"Deleted lists ({len(deleted)})"):
        for gone in deleted:
            action_row(
                f"**{markdown_literal(gone.name)}**, {gone.papers} paper{'' if gone.papers == 1 else 's'}, "
                f"deleted {markdown_literal(reading_list.when(gone.deleted_at))}",
                "Restore",
                key=f"restore-list-{gone.list_id}",
                on_click=_restore_deleted_list,
                args=(gone.list_id,),
            )


@dataclass
class _Editor:
    """One drawing of a list's table: the table as drawn (the editor's edits are relative to it), the
    last change of the list it knows of, whose votes it shows, and the edits saved from it so far.

    The editor is drawn from the same table until the list changes in a way it cannot show (a move,
    a removal, a vote, a failed save, or a change by someone else), so its identity holds while a member
    types: a new table, or a new key, for each saved edit dropped the edits typed into the old
    editor before the page redrew it. A drawing is never changed into the next one: a tick sent from
    the old editor before the browser shows the new one is read against the table it was made on.
    """

    version: int
    table: pd.DataFrame
    seen: int
    member: str
    saved: dict[tuple[int, reading_list.EditKind], Mapping[str, object]] = field(default_factory=dict)
    stale: bool = False  # the list changed in a way this table does not show: the next run draws afresh

    def key(self, name: str) -> str:
        return f"entries-{name}-{self.version}"


def _editor_key(name: str) -> str:
    return f"list-editor-{name}"


_STORE_CHANGES: dict[str, Callable[..., object]] = {
    "status": reading_lists.set_status,
    "text": reading_lists.update_entry,
    "remove": reading_lists.remove_entry,
    "move": reading_lists.move_entry,
}
# Edits after which the table is drawn afresh: a move or removal reorders the rows the editor's edits
# refer to, and a vote changes the count and voters beside it.
_REDRAWN_AFTER = ("move", "remove", "vote")


def _apply_table_edits(name: str, editor: _Editor) -> None:
    """Save the edits of list `name`'s `editor` (the drawing they were made in) not saved yet, each
    its own change (and log line); one refused (say, a vote without a name) leaves the others, and
    the table is redrawn from the store to show it."""
    state = st.session_state[editor.key(name)]
    redraw = False
    errors = [message] if (message := take_list_error()) else []
    edits = reading_list.table_edits(editor.table, state.get("edited_rows", {}), state.get("deleted_rows", []))
    for edit in _with_taken_back(edits, editor):
        if editor.saved.get((edit.entry_id, edit.kind)) == edit.fields:
            continue  # saved on an earlier change of this editor
        if edit.kind == "vote":
            change_lists(reading_lists.set_vote, name, edit.entry_id, member_name(), **edit.fields)
        else:
            change_lists(_STORE_CHANGES[edit.kind], name, edit.entry_id, **edit.fields)
        if message := take_list_error():
            errors.append(message)
        else:
            editor.saved[(edit.entry_id, edit.kind)] = edit.fields
        redraw = redraw or bool(message) or edit.kind in _REDRAWN_AFTER
    if errors:
        keep_list_error(" ".join(dict.fromkeys(errors)))  # each sentence once
    editor.seen = read_lists(reading_lists.latest_change, name)  # this session's own changes, now shown
    editor.stale = editor.stale or redraw


def _with_taken_back(edits: list[reading_list.ListEdit], editor: _Editor) -> list[reading_list.ListEdit]:
    """`edits`, with each field saved from this editor but typed back to its drawn value since (so no
    longer among the editor's edits) set back to that value."""
    found = {(edit.entry_id, edit.kind): edit for edit in edits}
    for (entry_id, kind), saved in editor.saved.items():
        if kind not in ("status", "text"):
            continue
        drawn = reading_list.restoring_edit(editor.table, entry_id, kind).fields
        now = found[(entry_id, kind)].fields if (entry_id, kind) in found else {}
        back = {field: drawn[field] for field in saved if saved[field] is not None and now.get(field) is None}
        if back:
            found[(entry_id, kind)] = reading_list.ListEdit(kind, entry_id, {**drawn, **now, **back})
    return list(found.values())


def list_table(name: str, entries: list[reading_lists.Entry]) -> None:
    """The list's papers as one editable table: type a place in "#", pick a status, a date, a presenter,
    a note, tick "My vote", or delete rows to remove them; each edit is saved at once."""
    editor = _current_editor(name, entries)
    editable = may_edit()
    kinds = {
        reading_list.POSITION: st.column_config.NumberColumn(
            min_value=1, max_value=len(entries), step=1, help="Type a place to move the paper there"
        ),
        reading_list.TITLE: st.column_config.TextColumn(),
        reading_list.STATUS: st.column_config.SelectboxColumn(options=reading_lists.STATUSES, required=True),
        reading_list.DATE: st.column_config.DateColumn(
            format="YYYY-MM-DD", help="When it is scheduled, or was presented"
        ),
        reading_list.PRESENTER: st.column_config.TextColumn(max_chars=100),
        reading_list.VOTES: st.column_config.NumberColumn(),
        reading_list.MY_VOTE: st.column_config.CheckboxColumn(
            help="Your vote for this paper (type your name above first)"
        ),
        reading_list.NOTE: st.column_config.TextColumn(max_chars=500),
    }
    st.data_editor(
        editor.table,
        key=editor.key(name),
        hide_index=True,
        placeholder="",  # an empty date or note reads as empty, not "None"
        num_rows="delete" if editable else "fixed",
        disabled=not editable or [c for c in editor.table.columns if c not in reading_list.EDITABLE],
        column_order=list(reading_list.COLUMN_WIDTHS),
        column_config={
            column: {**kinds.get(column, {}), "width": px} for column, px in reading_list.COLUMN_WIDTHS.items()
        },
        height=_HEADER_PX + _ROW_PX * min(len(entries), TABLE_ROWS) + 2,
        on_change=_apply_table_edits,
        args=(name, editor),
    )


def _current_editor(name: str, entries: list[reading_lists.Entry]) -> _Editor:
    """The editor of list `name` to draw: the one drawn before, unless the list changed in a way it
    does not show (a change this session did not make, another member name, a redraw asked for)."""
    latest = read_lists(reading_lists.latest_change, name)
    member = member_name()
    editor: _Editor | None = st.session_state.get(_editor_key(name))
    if editor is None or editor.stale or editor.seen != latest or editor.member != member:
        version = 0 if editor is None else editor.version + 1
        editor = _Editor(version, reading_list.entry_table(entries, member), latest, member)
        st.session_state[_editor_key(name)] = editor
    return editor


def _sort_list(name: str) -> None:
    change_lists(reading_lists.sort_entries, name, st.session_state[SORT_KEY])


def sort_control(name: str) -> None:
    """A "Sort by" choice and its "Sort" button, which reorders the stored list; call it in a horizontal container."""
    if SORT_KEY not in st.session_state:
        st.session_state[SORT_KEY] = reading_lists.SORT_KEYS[0]
    st.selectbox("Sort by", reading_lists.SORT_KEYS, key=SORT_KEY, width=140, label_visibility="collapsed")
    st.button(
        "Sort",
        on_click=_sort_list,
        args=(name,),
        disabled=not may_edit(),
        help="Reorder the list for everyone by the field chosen beside; ties keep their order",
    )
