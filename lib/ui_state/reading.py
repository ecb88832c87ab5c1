"""Reading groups: the shared reading-lists database, the chosen list, "add to a list"."""

from __future__ import annotations

import inspect
import os
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from datetime import date
from pathlib import Path
from typing import TypeVar

import pandas as pd
import streamlit as st

from lib.errors import ReadingListError
from lib.store import list_db, reading_lists
from lib.views.markup import markdown_literal

from .members import may_edit, member_name, refusal
from .url_widgets import arrived, write_url
from .view import current_view

NEW_LIST = ""  # the "New list…" choice: a list's name is never empty
LIST_KEY = "list"  # the chosen reading list, in the URL as ?list=
_LIST_ERROR = "reading_list_error"
T = TypeVar("T")


def reading_lists_path() -> Path:
    """The reading-lists database: PAPERMAP_DB, else `data/reading_lists.sqlite`."""
    return Path(os.environ.get("PAPERMAP_DB") or reading_lists.DEFAULT_DB)


@contextmanager
def reading_lists_db() -> Iterator[sqlite3.Connection]:
    """A connection to the reading-lists database for one run (or callback), closed afterwards. A
    storage failure inside (a damaged file, a full disk) is a `ReadingListError` of one sentence."""
    try:
        with closing(reading_lists.connect(reading_lists_path())) as db:
            yield db
    except sqlite3.Error as error:
        raise list_db.storage_error(error, reading_lists_path()) from None


def read_lists(action: Callable[..., T], *args: object) -> T:
    """`action(db, *args)` on the reading-lists database; a ReadingListError stops the page with one sentence."""
    try:
        with reading_lists_db() as db:
            return action(db, *args)
    except ReadingListError as error:
        st.error(markdown_literal(str(error)))
        st.stop()


def change_lists(action: Callable[..., T], *args: object, **kwargs: object) -> T | None:
    """`action(db, *args, **kwargs)` as a widget callback; returns its result, or None after an error.

    It runs only if this session may edit (`may_edit`), and an action that logs its changes is told
    the member's name. A refusal's or error's sentence is kept for `show_list_error`, which the page
    calls when it next runs.
    """
    if not may_edit():
        keep_list_error(refusal())
        return None
    if "member" in inspect.signature(action).parameters:
        kwargs.setdefault("member", member_name())
    try:
        with reading_lists_db() as db:
            return action(db, *args, **kwargs)
    except ReadingListError as error:
        keep_list_error(str(error))
        return None


def take_list_error() -> str | None:
    """The error or refusal a reading-list callback ran into that is not shown yet, taken (None when none)."""
    return st.session_state.pop(_LIST_ERROR, None)


def keep_list_error(message: str) -> None:
    """Keep `message` for `show_list_error` to show on the next run."""
    st.session_state[_LIST_ERROR] = message


def show_list_error() -> None:
    """Show (once) the error a reading-list callback ran into."""
    if message := take_list_error():
        st.error(markdown_literal(message))  # it may quote a list name a user typed


def list_choice(names: list[str], on_change: Callable[[], None] | None = None) -> str | None:
    """A select box of the reading lists `names`, its choice in the URL as ?list=; None when there are none.

    The URL chooses on arriving at the page (a first visit, or a link such as "Open <list>" from
    another page, `arrived`); a callback that creates or renames a list selects it by setting
    `st.session_state[LIST_KEY]`; a choice that no longer exists falls back to the first list.
    `on_change` runs when the user picks another list.
    """
    if not names:
        write_url(LIST_KEY, "", "")
        return None
    wanted = st.query_params.get(LIST_KEY)
    if st.session_state.get(LIST_KEY) not in names or (arrived() and wanted in names):
        st.session_state[LIST_KEY] = wanted if wanted in names else names[0]
    name = st.selectbox("Reading list", names, key=LIST_KEY, on_change=on_change, persist_state="session")
    st.query_params[LIST_KEY] = name
    return name


def add_to_list_control(papers: pd.DataFrame, key: str) -> None:
    """A compact row that adds `papers` to a reading list: list choice, new-list name, "Add N papers".

    `papers` are rows of the papers table (`view.papers` / `view.shown` columns), added in their
    order after the list's last paper; papers already in the list are left where they are. The
    select box offers the existing lists (starting at the one chosen on the reading-lists page) and
    "New list…", which enables a name box. After a click, a confirmation links to the list. `key`
    must be unique on the page (e.g. "map-selection", "paper"): it prefixes the widgets' keys.
    The button is disabled while `papers` is empty. Call it in the page body or in a fragment.
    """
    try:
        with reading_lists_db() as db:
            names = reading_lists.list_names(db)
    except ReadingListError as error:
        st.error(markdown_literal(str(error)))
        return
    choice_key, name_key, done_key = f"{key}-list", f"{key}-new-name", f"{key}-added"
    if st.session_state.get(choice_key) not in [*names, NEW_LIST]:
        chosen = st.session_state.get(LIST_KEY)
        st.session_state[choice_key] = chosen if chosen in names else names[0] if names else NEW_LIST
    choice, name, button = st.columns([2, 2, 1], vertical_alignment="bottom")
    target = choice.selectbox(
        "Add to reading list",
        [*names, NEW_LIST],
        format_func=lambda v: "New list…" if v == NEW_LIST else v,
        key=choice_key,
    )
    name.text_input(
        "New list's name", key=name_key, disabled=target != NEW_LIST, placeholder="e.g. Theory reading group"
    )
    count = len(papers)
    button.button(
        f"Add {count} paper{'' if count == 1 else 's'}",
        key=f"{key}-add",
        disabled=count == 0,
        type="primary",
        width="stretch",
        on_click=_add_papers_to_list,
        args=(papers, key),
    )
    show_list_error()
    if done := st.session_state.pop(done_key, None):
        list_name, message = done
        st.success(message)
        st.page_link(
            "app_pages/reading_lists.py",
            label=f"Open {markdown_literal(list_name)}",
            query_params={LIST_KEY: list_name},
        )


def _add_papers_to_list(papers: pd.DataFrame, key: str) -> None:
    target, new_name = st.session_state.get(f"{key}-list"), st.session_state.get(f"{key}-new-name", "")
    assert target is not None  # the select box drawn beside this button always holds a choice
    dataset = current_view().source.name

    def add(db: sqlite3.Connection, member: str) -> tuple[str, int]:
        name = target if target != NEW_LIST else reading_lists.create_list(db, new_name, member=member)
        return name, reading_lists.add_papers(db, name, papers, dataset, member=member)

    result = change_lists(add)
    if result is None:
        return
    name, added = result
    st.session_state[f"{key}-list"] = name
    st.session_state[f"{key}-new-name"] = ""
    skipped = len(papers) - added
    already = f" ({skipped} already there)" if skipped else ""
    st.session_state[f"{key}-added"] = (
        name,
        f"Added {added} paper{'' if added == 1 else 's'} to {markdown_literal(name)}{already}.",
    )


def plan_paper_ids(name: str | None) -> list[str]:
    """The paper ids of reading list `name` (a plan), in list order; none without a list."""
    if name is None:
        return []
    return [entry.paper_id for entry in read_lists(reading_lists.entries, name)]


def add_to_this_list(name: str, papers: pd.DataFrame) -> None:
    """Add `papers` (rows of the papers table) to list `name` at once (a button's callback)."""
    change_lists(reading_lists.add_papers, name, papers, current_view().source.name)


def move_on(name: str, entry: reading_lists.Entry, today: date | None = None) -> None:
    """Move a presented paper on (a button's callback): to read or scheduled -> presented on `today`,
    presented -> discussed (its date kept)."""
    status = reading_lists.AFTER_MEETING[entry.status]
    day = (today or date.today()).isoformat() if status == "presented" else None
    change_lists(reading_lists.set_status, name, entry.entry_id, status, meeting_date=day)
