"""A reading list as the tables its page shows: the editable list, the edits a user made in it, and the rota."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import pandas as pd

from lib.store.list_history import Change
from lib.store.reading_lists import Entry
from lib.views.text import short_authors

# The editable table's columns, as its header shows them; ENTRY_ID is kept but not shown.
POSITION, TITLE, AUTHORS, STATUS, DATE, PRESENTER, NOTE, VOTES, VOTERS, MY_VOTE = (
    "#",
    "Title",
    "Authors",
    "Status",
    "Date",
    "Presenter",
    "Note",
    "Votes",
    "Voted by",
    "My vote",
)
ENTRY_ID = "entry_id"
# The columns shown, in the order a chair edits them (the last ones may scroll), and their widths in
# pixels: the first seven fit beside the sidebar at 1280 pixels.
COLUMN_WIDTHS = {
    POSITION: 45,
    TITLE: 300,
    STATUS: 95,
    DATE: 100,
    PRESENTER: 100,
    VOTES: 55,
    MY_VOTE: 85,
    NOTE: 160,
    VOTERS: 120,
    AUTHORS: 160,
}
EDITABLE = (POSITION, STATUS, DATE, PRESENTER, NOTE, MY_VOTE)

EditKind = Literal["status", "text", "vote", "remove", "move"]


@dataclass(frozen=True)
class ListEdit:
    """One change a user made in the table to one entry, as the keyword arguments of its store function.

    "status": `status` and `meeting_date` (None: unchanged) for `set_status`; "text": `presenter`
    and/or `note` for `update_entry`; "vote": `voted` for `set_vote`; "move": the 0-based
    `position` for `move_entry`; "remove": nothing, for `remove_entry`.
    """

    kind: EditKind
    entry_id: int
    fields: Mapping[str, object]


def entry_table(entries: Sequence[Entry], voter: str) -> pd.DataFrame:
    """One row per entry, in list order, with the columns above; "My vote" is whether `voter` voted for it."""
    voter_key = " ".join(voter.split()).casefold()
    return pd.DataFrame(
        {
            POSITION: [entry.position + 1 for entry in entries],
            TITLE: [entry.title for entry in entries],
            AUTHORS: [short_authors(list(entry.authors)) for entry in entries],
            STATUS: [entry.status for entry in entries],
            DATE: pd.to_datetime([entry.meeting_date or None for entry in entries]),  # NaT shows as an empty cell
            PRESENTER: [entry.presenter for entry in entries],
            NOTE: [entry.note for entry in entries],
            VOTES: [len(entry.votes) for entry in entries],
            VOTERS: [", ".join(entry.votes) for entry in entries],
            MY_VOTE: [bool(voter_key) and voter_key in {v.casefold() for v in entry.votes} for entry in entries],
            ENTRY_ID: [entry.entry_id for entry in entries],
        }
    )


def _iso(value: object) -> str:
    # A cell's date (a Timestamp, NaT, or the ISO text an edit sends) as the store's ISO day, or "".
    if value is None or value == "" or (not isinstance(value, str) and pd.isna(value)):
        return ""
    return pd.Timestamp(value).date().isoformat()


def restoring_edit(table: pd.DataFrame, entry_id: int, kind: EditKind) -> ListEdit:
    """The "status" or "text" edit that gives entry `entry_id` back the values `table` shows: what a
    cell typed back to its drawn value asks for, once another value typed there was saved."""
    row = table[table[ENTRY_ID] == entry_id].iloc[0]
    if kind == "status":
        return ListEdit("status", entry_id, {"status": row[STATUS], "meeting_date": _iso(row[DATE])})
    return ListEdit("text", entry_id, {"presenter": row[PRESENTER] or "", "note": row[NOTE] or ""})


def table_edits(
    table: pd.DataFrame, edited_rows: Mapping[int | str, Mapping[str, Any]], deleted_rows: Sequence[int] = ()
) -> list[ListEdit]:
    """The changes of a `st.data_editor` of `table` (its `edited_rows` and `deleted_rows`), in the order to apply them.

    Field changes and votes first, then removals, then moves by the new positions typed in "#"
    (1-based, smallest first, so several typed at once land where typed). Giving a date to a paper
    still "to read" schedules it. Unchanged values are dropped.
    """
    edits: list[ListEdit] = []
    votes: list[ListEdit] = []
    moves: list[tuple[int, ListEdit]] = []
    for row_key, changes in edited_rows.items():
        row = table.iloc[int(row_key)]
        entry_id = int(row[ENTRY_ID])
        status = changes.get(STATUS) or row[STATUS]
        day = _iso(changes[DATE]) if DATE in changes and _iso(changes[DATE]) != _iso(row[DATE]) else None
        if day and status == "to read":
            status = "scheduled"
        if status != row[STATUS] or day is not None:
            edits.append(ListEdit("status", entry_id, {"status": status, "meeting_date": day}))
        text = {
            field: changes[column] or ""
            for column, field in ((PRESENTER, "presenter"), (NOTE, "note"))
            if column in changes and (changes[column] or "") != row[column]
        }
        if text:
            edits.append(ListEdit("text", entry_id, text))
        if MY_VOTE in changes and bool(changes[MY_VOTE]) != bool(row[MY_VOTE]):
            votes.append(ListEdit("vote", entry_id, {"voted": bool(changes[MY_VOTE])}))
        position = changes.get(POSITION)
        if position is not None and not pd.isna(position) and int(position) != int(row[POSITION]):
            moves.append((int(position), ListEdit("move", entry_id, {"position": int(position) - 1})))
    removals = [ListEdit("remove", int(table.iloc[int(row)][ENTRY_ID]), {}) for row in deleted_rows]
    return [*edits, *votes, *removals, *(edit for _, edit in sorted(moves, key=lambda move: move[0]))]


def rota(entries: Sequence[Entry]) -> pd.DataFrame:
    """Who presents what, and when: the scheduled, presented and discussed papers by date (undated last)."""
    shown = [entry for entry in entries if entry.status != "to read"]
    shown.sort(key=lambda entry: (not entry.meeting_date, entry.meeting_date, entry.position))
    return pd.DataFrame(
        {
            "Date": [entry.meeting_date for entry in shown],
            "Presenter": [entry.presenter for entry in shown],
            "Paper": [entry.title for entry in shown],
            "Status": [entry.status for entry in shown],
        }
    )


def history_table(changes: Sequence[Change]) -> pd.DataFrame:
    """A list's change log as a table, the latest first: when (UTC), who, what."""
    return pd.DataFrame(
        {
            "When": [when(change.at) for change in changes],
            "Who": [change.member for change in changes],
            "What": [change.summary for change in changes],
        }
    )


def when(at: str | None) -> str:
    """A stored UTC time as shown to people: `2026-12-01 11:49 UTC`."""
    return f"{at[:16].replace('T', ' ')} UTC" if at else ""
