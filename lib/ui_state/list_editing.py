"""The reading-lists page's edits: the callbacks of its name, presenter and note boxes, and the stored values they show."""

from __future__ import annotations

import streamlit as st

from lib.store import reading_lists

from .reading import LIST_KEY, change_lists

NEW_LIST_NAME_KEY = "new_list_name"  # the "New list" text box


def rename_key(name: str) -> str:
    """The key of list `name`'s "New name" text box."""
    return f"rename-{name}"


def entry_key(field: str, entry_id: int) -> str:
    """The key of an entry's `field` ("presenter" or "note") text box."""
    return f"{field}-{entry_id}"


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


def save_typed_field(name: str, entry_id: int, field: str) -> None:
    """Save an entry's `field` box of list `name` (a callback)."""
    change_lists(reading_lists.update_entry, name, entry_id, **{field: st.session_state[entry_key(field, entry_id)]})


def show_stored_fields(entry: reading_lists.Entry) -> None:
    """Put an entry's stored presenter and note in its boxes, fresh on each run: another session may have edited them."""
    st.session_state[entry_key("presenter", entry.entry_id)] = entry.presenter
    st.session_state[entry_key("note", entry.entry_id)] = entry.note
