"""What happened to the reading lists: each list's change log, and bringing back deleted lists and removed papers.

Every change made through `lib.store.reading_lists` is logged in the same transaction as the
change itself (`lib.store.list_db.record_change`); nothing there is ever erased, so whatever a
session deletes or removes, another can restore.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from lib.errors import ReadingListError

from .list_db import entry_title, live_entry_ids, live_list_id, name_taken, record_change, renumber, write
from .reading_lists import ENTRY_FIELDS, MAX_NAME_LENGTH, Entry, entry_from_row


@dataclass(frozen=True)
class Change:
    """One logged change to a list: when (ISO, UTC), by whom (a name, or "" when none was given), and what."""

    at: str
    member: str
    action: str
    summary: str


@dataclass(frozen=True)
class DeletedList:
    """A deleted reading list, which `restore_list` brings back."""

    list_id: int
    name: str
    deleted_at: str
    papers: int


def deleted_lists(db: sqlite3.Connection) -> list[DeletedList]:
    """The deleted lists, the latest deleted first, with how many papers each held."""
    rows = db.execute(
        "SELECT list_id, name, deleted_at, (SELECT COUNT(*) FROM entries e WHERE e.list_id = l.list_id"
        " AND e.removed_at IS NULL) FROM lists l WHERE deleted_at IS NOT NULL ORDER BY deleted_at DESC, list_id DESC"
    )
    return [DeletedList(*row) for row in rows]


def restore_list(db: sqlite3.Connection, list_id: int, *, member: str = "") -> str:
    """Bring back deleted list `list_id` with its entries and return its name.

    If a list of that name was created meanwhile, the restored one is named "NAME (restored)"
    (or "(restored 2)", ...), so neither list is lost.
    """
    with write(db):
        row = db.execute("SELECT name FROM lists WHERE list_id = ? AND deleted_at IS NOT NULL", (list_id,)).fetchone()
        if row is None:
            raise ReadingListError("That reading list is not among the deleted ones (it may have been restored).")
        name = base = row[0]
        number = 1
        while name_taken(db, name):
            suffix = " (restored)" if number == 1 else f" (restored {number})"
            name = base[: MAX_NAME_LENGTH - len(suffix)] + suffix
            number += 1
        db.execute("UPDATE lists SET name = ?, deleted_at = NULL WHERE list_id = ?", (name, list_id))
        as_name = f" as “{name}”" if name != base else ""
        record_change(db, list_id, "restored", f"restored the list{as_name}", member)
    return name


def removed_entries(db: sqlite3.Connection, name: str) -> list[Entry]:
    """The entries removed from list `name` (and not added back), the latest removed first."""
    rows = db.execute(
        f"SELECT {ENTRY_FIELDS} FROM entries WHERE list_id = ? AND removed_at IS NOT NULL"
        " ORDER BY removed_at DESC, entry_id DESC",
        (live_list_id(db, name),),
    )
    return [entry_from_row(row) for row in rows]


def restore_entry(db: sqlite3.Connection, name: str, entry_id: int, *, member: str = "") -> None:
    """Put a removed entry back into list `name` at the place it had (or the end, if the list is shorter now)."""
    with write(db):
        list_id = live_list_id(db, name)
        title = entry_title(db, list_id, entry_id, name, removed=True)
        (position,) = db.execute("SELECT position FROM entries WHERE entry_id = ?", (entry_id,)).fetchone()
        ids = live_entry_ids(db, list_id)
        ids.insert(min(position, len(ids)), entry_id)
        db.execute("UPDATE entries SET removed_at = NULL WHERE entry_id = ?", (entry_id,))
        renumber(db, ids)
        record_change(db, list_id, "restored", f"restored “{title}”", member, entry_id)


def history(db: sqlite3.Connection, name: str) -> list[Change]:
    """The logged changes to list `name`, the latest first (renames and restores included)."""
    rows = db.execute(
        "SELECT at, member, action, summary FROM changes WHERE list_id = ? ORDER BY change_id DESC",
        (live_list_id(db, name),),
    )
    return [Change(*row) for row in rows]
