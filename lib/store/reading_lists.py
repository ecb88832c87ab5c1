"""Reading lists: named, ordered lists of papers, each with a status, a meeting date, a presenter, a note and votes.

The database (`lib.store.list_db`) is shared by every session of a server; every function here
that changes a list does it in one write transaction that also logs the change, with the member's
name where one was given. An entry's position is computed inside the transaction that inserts or
moves it, so positions stay 0..n-1 however many sessions edit at once. Each entry keeps a snapshot
of the paper (title, authors, abstract, ...) so a list still reads and exports when its papers'
data set is not loaded. Deleted lists and removed entries are kept and can be restored.
Functions take an open connection (`connect(path)`); callers close it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import pandas as pd

from lib.errors import ReadingListError

from .list_db import DEFAULT_DB as DEFAULT_DB  # re-exported: callers open lists through this module
from .list_db import connect as connect
from .list_db import entry_title, live_entry_ids, live_list_id, name_taken, now, record_change, renumber, write

MAX_NAME_LENGTH = 80
MAX_VOTER_LENGTH = 60
STATUSES = ("to read", "scheduled", "presented", "discussed")  # the order a paper goes through
# Where a meeting moves a paper on: presenting it, then discussing it.
AFTER_MEETING = {"to read": "presented", "scheduled": "presented", "presented": "discussed"}
# How a list can be sorted, by its entries' fields; ties keep the list's order.
SORT_KEYS = ("votes", "title", "status", "meeting date", "presenter")

# The columns `entry_from_row` reads, in its order.
_SNAPSHOT_FIELDS = "position, dataset, paper_id, title, authors, venue, year, url, abstract, keywords"
ENTRY_FIELDS = f"entry_id, {_SNAPSHOT_FIELDS}, presenter, note, status, meeting_date, removed_at"


@dataclass(frozen=True)
class Entry:
    """One paper in a reading list: its place, a snapshot of the paper, its status and who presents it."""

    entry_id: int
    position: int  # 0-based, dense within the list's entries (a removed entry keeps its last one)
    dataset: str  # file name of the data set the paper was added from
    paper_id: str
    title: str
    authors: tuple[str, ...]
    venue: str
    year: int | None
    url: str
    abstract: str
    keywords: tuple[str, ...]
    presenter: str
    note: str
    status: str = "to read"  # one of STATUSES
    meeting_date: str = ""  # ISO date it is scheduled for or was presented on, or ""
    votes: tuple[str, ...] = field(default=())  # the names that voted for it, in voting order
    removed_at: str | None = None  # when it was removed from the list (removed entries only)


def _clean_name(
    name: str,
    *,
    limit: int = MAX_NAME_LENGTH,
    missing: str = "A reading list needs a name.",
    whose: str = "A reading list's",
) -> str:
    # Whitespace-normalised, not empty, not too long: a list's name, or (with its own limit and words) a voter's.
    name = " ".join(str(name).split())
    if not name:
        raise ReadingListError(missing)
    if len(name) > limit:
        raise ReadingListError(f"{whose} name can have at most {limit} characters.")
    return name


def _quoted(titles: Sequence[str], at_most: int = 3) -> str:
    shown = ", ".join(f"“{title}”" for title in titles[:at_most])
    return shown if len(titles) <= at_most else f"{shown} and {len(titles) - at_most} more"


def list_names(db: sqlite3.Connection) -> list[str]:
    """Names of every reading list (not deleted), alphabetically (case-insensitive)."""
    return [
        name for (name,) in db.execute("SELECT name FROM lists WHERE deleted_at IS NULL ORDER BY name COLLATE NOCASE")
    ]


def create_list(db: sqlite3.Connection, name: str, *, member: str = "") -> str:
    """Create an empty list and return its name, whitespace-normalised; names are unique ignoring case."""
    name = _clean_name(name)
    with write(db):
        if name_taken(db, name):
            raise ReadingListError(f"A reading list named {name!r} already exists.")
        list_id = db.execute("INSERT INTO lists (name) VALUES (?)", (name,)).lastrowid
        assert list_id is not None  # set by the INSERT
        record_change(db, list_id, "created", f"created the list “{name}”", member)
    return name


def rename_list(db: sqlite3.Connection, name: str, new_name: str, *, member: str = "") -> str:
    """Rename list `name` to `new_name` (a change of case alone is allowed) and return the new name."""
    new_name = _clean_name(new_name)
    with write(db):
        list_id = live_list_id(db, name)
        old_name = db.execute("SELECT name FROM lists WHERE list_id = ?", (list_id,)).fetchone()[0]
        if new_name.casefold() != old_name.casefold() and name_taken(db, new_name):
            raise ReadingListError(f"A reading list named {new_name!r} already exists.")
        db.execute("UPDATE lists SET name = ? WHERE list_id = ?", (new_name, list_id))
        record_change(db, list_id, "renamed", f"renamed the list from “{old_name}” to “{new_name}”", member)
    return new_name


def delete_list(db: sqlite3.Connection, name: str, *, member: str = "") -> None:
    """Delete list `name`: it leaves `list_names`, keeps its entries and log, and `list_history.restore_list` brings it back."""
    with write(db):
        list_id = live_list_id(db, name)
        db.execute("UPDATE lists SET deleted_at = ? WHERE list_id = ?", (now(), list_id))
        record_change(db, list_id, "deleted", "deleted the list", member)


def add_papers(db: sqlite3.Connection, name: str, papers: pd.DataFrame, dataset: str, *, member: str = "") -> int:
    """Append `papers` (rows of the papers table) to list `name` in their order; return how many were new.

    A paper already in the list (same `dataset` and `paper_id`) keeps its place, status, presenter
    and note; one removed from it earlier comes back, at the end, with them.
    """
    added: list[str] = []
    with write(db):
        list_id = live_list_id(db, name)
        (position,) = db.execute(
            "SELECT COUNT(*) FROM entries WHERE list_id = ? AND removed_at IS NULL", (list_id,)
        ).fetchone()
        for paper in papers.to_dict("records"):
            year = paper.get("year")
            cursor = db.execute(
                f"INSERT INTO entries (list_id, {_SNAPSHOT_FIELDS}) VALUES ({', '.join('?' * 11)})"
                " ON CONFLICT (list_id, dataset, paper_id) DO UPDATE SET removed_at = NULL, position = excluded.position"
                " WHERE entries.removed_at IS NOT NULL",
                (
                    list_id,
                    position,
                    dataset,
                    str(paper["paper_id"]),
                    str(paper["title"]),
                    json.dumps(list(paper.get("authors", []))),
                    str(paper.get("venue", "")),
                    None if pd.isna(year) else int(year),
                    str(paper.get("url", "")),
                    str(paper.get("abstract", "")),
                    json.dumps(list(paper.get("keywords", []))),
                ),
            )
            if cursor.rowcount:
                position += 1
                added.append(str(paper["title"]))
        if added:
            count = f"{len(added)} paper{'' if len(added) == 1 else 's'}"
            record_change(db, list_id, "added", f"added {count}: {_quoted(added)}", member)
    return len(added)


def entry_from_row(row: Sequence[Any], votes: tuple[str, ...] = ()) -> Entry:
    """The Entry of a row of `SELECT {ENTRY_FIELDS} FROM entries`, with the names that voted for it."""
    return Entry(
        entry_id=row[0],
        position=row[1],
        dataset=row[2],
        paper_id=row[3],
        title=row[4],
        authors=tuple(json.loads(row[5])),
        venue=row[6],
        year=row[7],
        url=row[8],
        abstract=row[9],
        keywords=tuple(json.loads(row[10])),
        presenter=row[11],
        note=row[12],
        status=row[13],
        meeting_date=row[14],
        removed_at=row[15],
        votes=votes,
    )


def latest_change(db: sqlite3.Connection, name: str) -> int:
    """The id of the last change logged for list `name` (0 when none): a change by anyone since shows as a larger id."""
    row = db.execute("SELECT MAX(change_id) FROM changes WHERE list_id = ?", (live_list_id(db, name),)).fetchone()
    return int(row[0] or 0)


def entries(db: sqlite3.Connection, name: str) -> list[Entry]:
    """The entries of list `name`, in order, each with the names that voted for it."""
    list_id = live_list_id(db, name)
    votes: dict[int, list[str]] = {}
    for entry_id, voter in db.execute(
        "SELECT v.entry_id, v.voter FROM votes v JOIN entries e USING (entry_id) WHERE e.list_id = ?"
        " ORDER BY v.voted_at, v.rowid",
        (list_id,),
    ):
        votes.setdefault(entry_id, []).append(voter)
    rows = db.execute(
        f"SELECT {ENTRY_FIELDS} FROM entries WHERE list_id = ? AND removed_at IS NULL ORDER BY position", (list_id,)
    )
    return [entry_from_row(row, tuple(votes.get(row[0], ()))) for row in rows]


def move_entry(db: sqlite3.Connection, name: str, entry_id: int, position: int, *, member: str = "") -> None:
    """Move an entry of list `name` to 0-based `position` (clamped to the list), shifting the others."""
    with write(db):
        list_id = live_list_id(db, name)
        title = entry_title(db, list_id, entry_id, name)
        ids = live_entry_ids(db, list_id)
        old = ids.index(entry_id)
        ids.remove(entry_id)
        new = max(0, min(position, len(ids)))
        ids.insert(new, entry_id)
        if new != old:
            renumber(db, ids)
            record_change(db, list_id, "moved", f"moved “{title}” from {old + 1} to {new + 1}", member, entry_id)


def remove_entry(db: sqlite3.Connection, name: str, entry_id: int, *, member: str = "") -> None:
    """Remove an entry from list `name` (the entries after it move up one place); `list_history.restore_entry` undoes it."""
    with write(db):
        list_id = live_list_id(db, name)
        title = entry_title(db, list_id, entry_id, name)
        db.execute("UPDATE entries SET removed_at = ? WHERE entry_id = ?", (now(), entry_id))
        renumber(db, live_entry_ids(db, list_id))
        record_change(db, list_id, "removed", f"removed “{title}”", member, entry_id)


def update_entry(
    db: sqlite3.Connection,
    name: str,
    entry_id: int,
    *,
    presenter: str | None = None,
    note: str | None = None,
    member: str = "",
) -> None:
    """Set the presenter and/or the note of an entry of list `name` (None leaves a field as it is)."""
    with write(db):
        list_id = live_list_id(db, name)
        title = entry_title(db, list_id, entry_id, name)
        for column, value in (("presenter", presenter), ("note", note)):
            if value is None:
                continue
            value = value.strip()
            (old,) = db.execute(f"SELECT {column} FROM entries WHERE entry_id = ?", (entry_id,)).fetchone()
            if value != old:
                db.execute(f"UPDATE entries SET {column} = ? WHERE entry_id = ?", (value, entry_id))
                said = f"set the {column} of “{title}” to “{value}”" if value else f"cleared the {column} of “{title}”"
                record_change(db, list_id, column, said, member, entry_id)


def _iso_date(value: str) -> str:
    try:
        return date.fromisoformat(value).isoformat() if value else ""
    except ValueError:
        raise ReadingListError(f"{value!r} is not a date (write it as YYYY-MM-DD).") from None


def set_status(
    db: sqlite3.Connection,
    name: str,
    entry_id: int,
    status: str,
    *,
    meeting_date: str | None = None,
    member: str = "",
) -> None:
    """Set an entry's status (one of STATUSES) and, if given, its meeting date (ISO `YYYY-MM-DD`, or "" for none).

    The meeting date is when a scheduled paper will be presented, or when a presented one was.
    """
    if status not in STATUSES:
        raise ReadingListError(f"{status!r} is not a status; the statuses are {', '.join(STATUSES)}.")
    day = None if meeting_date is None else _iso_date(meeting_date)
    with write(db):
        list_id = live_list_id(db, name)
        title = entry_title(db, list_id, entry_id, name)
        old_status, old_day = db.execute(
            "SELECT status, meeting_date FROM entries WHERE entry_id = ?", (entry_id,)
        ).fetchone()
        day = old_day if day is None else day
        if (status, day) == (old_status, old_day):
            return
        db.execute("UPDATE entries SET status = ?, meeting_date = ? WHERE entry_id = ?", (status, day, entry_id))
        on = f" ({day})" if day else ""
        record_change(db, list_id, "status", f"marked “{title}” {status}{on}", member, entry_id)


def set_vote(db: sqlite3.Connection, name: str, entry_id: int, voter: str, voted: bool = True) -> None:
    """Give (or, with `voted=False`, withdraw) `voter`'s vote for an entry of list `name`.

    A name has one vote per paper, matched ignoring case and spacing: voting twice changes nothing.
    """
    voter = _clean_name(
        voter, limit=MAX_VOTER_LENGTH, missing="Votes are by name: type your name first.", whose="A voter's"
    )
    with write(db):
        list_id = live_list_id(db, name)
        title = entry_title(db, list_id, entry_id, name)
        if voted:
            changed = db.execute(
                "INSERT INTO votes (entry_id, voter, voted_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                (entry_id, voter, now()),
            ).rowcount
        else:
            changed = db.execute("DELETE FROM votes WHERE entry_id = ? AND voter = ?", (entry_id, voter)).rowcount
        if changed:
            said = f"voted for “{title}”" if voted else f"withdrew a vote for “{title}”"
            record_change(db, list_id, "vote", said, voter, entry_id)


def _sort_key(by: str) -> Callable[[Entry], Any]:
    if by == "votes":
        return lambda entry: -len(entry.votes)
    if by == "title":
        return lambda entry: entry.title.casefold()
    if by == "status":
        return lambda entry: STATUSES.index(entry.status) if entry.status in STATUSES else len(STATUSES)
    if by == "meeting date":
        return lambda entry: (not entry.meeting_date, entry.meeting_date)  # undated last
    if by == "presenter":
        return lambda entry: (not entry.presenter, entry.presenter.casefold())  # unassigned last
    raise ReadingListError(f"A list cannot be sorted by {by!r}; it can be by {', '.join(SORT_KEYS)}.")


def sort_entries(db: sqlite3.Connection, name: str, by: str, *, member: str = "") -> None:
    """Reorder list `name` by one of SORT_KEYS (most votes first; ties keep their order) and keep that order."""
    key = _sort_key(by)
    with write(db):
        list_id = live_list_id(db, name)
        current = entries(db, name)
        ordered = sorted(current, key=key)  # stable: ties keep the list's order
        if ordered != current:
            renumber(db, [entry.entry_id for entry in ordered])
            record_change(db, list_id, "sorted", f"sorted the list by {by}", member)


def on_map(entries: Sequence[Entry], papers: pd.DataFrame) -> list[bool]:
    """For each entry, whether its paper is on the map `papers` (matched by `paper_id`)."""
    ids = set(papers["paper_id"])
    return [entry.paper_id in ids for entry in entries]
