"""Reading lists: named, ordered lists of papers with a presenter and a note each, kept in SQLite.

One database file is shared by every session of a server, so it is opened in WAL mode with a busy
timeout, and every write is one `BEGIN IMMEDIATE` transaction: concurrent writers queue instead of
failing, and an entry's position is computed inside the transaction that inserts it, so positions
stay 0..n-1 however many sessions add at once. Each entry keeps a snapshot of the paper (title,
authors, abstract, ...) so a list still reads and exports when its papers' data set is not loaded.
Functions take an open connection (`connect(path)`); callers close it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from lib.errors import ReadingListError
from lib.paths import REPO_ROOT

DEFAULT_DB = REPO_ROOT / "data" / "reading_lists.sqlite"
MAX_NAME_LENGTH = 80
BUSY_TIMEOUT_MS = 10_000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS lists (
    list_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE COLLATE NOCASE
);
CREATE TABLE IF NOT EXISTS entries (
    entry_id INTEGER PRIMARY KEY,
    list_id INTEGER NOT NULL REFERENCES lists(list_id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    dataset TEXT NOT NULL,
    paper_id TEXT NOT NULL,
    title TEXT NOT NULL,
    authors TEXT NOT NULL,
    venue TEXT NOT NULL,
    year INTEGER,
    url TEXT NOT NULL,
    abstract TEXT NOT NULL,
    keywords TEXT NOT NULL,
    presenter TEXT NOT NULL DEFAULT '',
    note TEXT NOT NULL DEFAULT '',
    UNIQUE (list_id, dataset, paper_id)
);
CREATE INDEX IF NOT EXISTS entries_by_position ON entries (list_id, position);
"""
_SNAPSHOT_FIELDS = "position, dataset, paper_id, title, authors, venue, year, url, abstract, keywords"
_ENTRY_FIELDS = f"entry_id, {_SNAPSHOT_FIELDS}, presenter, note"


@dataclass(frozen=True)
class Entry:
    """One paper in a reading list: its place, a snapshot of the paper, and who presents it."""

    entry_id: int
    position: int  # 0-based, dense within the list
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


def connect(path: str | Path = DEFAULT_DB) -> sqlite3.Connection:
    """Open (creating if needed) the reading-lists database at `path`, ready for concurrent use."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: no implicit transactions; writes open their own BEGIN IMMEDIATE.
        db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA foreign_keys = ON")
        db.executescript(_SCHEMA)
    except (OSError, sqlite3.Error) as error:
        raise ReadingListError(f"The reading-lists database {path} cannot be opened ({error}).") from None
    return db


@contextmanager
def _write(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    # IMMEDIATE takes the write lock up front, so a read-then-write (next position) cannot race.
    try:
        db.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError:
        raise ReadingListError("The reading-lists database is busy; try again in a moment.") from None
    try:
        yield db
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _clean_name(name: str) -> str:
    name = " ".join(str(name).split())
    if not name:
        raise ReadingListError("A reading list needs a name.")
    if len(name) > MAX_NAME_LENGTH:
        raise ReadingListError(f"A reading list's name can have at most {MAX_NAME_LENGTH} characters.")
    return name


def _list_id(db: sqlite3.Connection, name: str) -> int:
    row = db.execute("SELECT list_id FROM lists WHERE name = ?", (" ".join(str(name).split()),)).fetchone()
    if row is None:
        raise ReadingListError(f"There is no reading list named {name!r}.")
    return row[0]


def list_names(db: sqlite3.Connection) -> list[str]:
    """Names of every reading list, alphabetically (case-insensitive)."""
    return [name for (name,) in db.execute("SELECT name FROM lists ORDER BY name COLLATE NOCASE")]


def create_list(db: sqlite3.Connection, name: str) -> str:
    """Create an empty list and return its name, whitespace-normalised; names are unique ignoring case."""
    name = _clean_name(name)
    with _write(db):
        try:
            db.execute("INSERT INTO lists (name) VALUES (?)", (name,))
        except sqlite3.IntegrityError:
            raise ReadingListError(f"A reading list named {name!r} already exists.") from None
    return name


def rename_list(db: sqlite3.Connection, name: str, new_name: str) -> str:
    """Rename list `name` to `new_name` (a change of case alone is allowed) and return the new name."""
    new_name = _clean_name(new_name)
    with _write(db):
        list_id = _list_id(db, name)
        try:
            db.execute("UPDATE lists SET name = ? WHERE list_id = ?", (new_name, list_id))
        except sqlite3.IntegrityError:
            raise ReadingListError(f"A reading list named {new_name!r} already exists.") from None
    return new_name


def delete_list(db: sqlite3.Connection, name: str) -> None:
    """Delete list `name` and its entries."""
    with _write(db):
        db.execute("DELETE FROM lists WHERE list_id = ?", (_list_id(db, name),))


def add_papers(db: sqlite3.Connection, name: str, papers: pd.DataFrame, dataset: str) -> int:
    """Append `papers` (rows of the papers table) to list `name` in their order; return how many were new.

    A paper already in the list (same `dataset` and `paper_id`) keeps its place, presenter and note.
    """
    added = 0
    with _write(db):
        list_id = _list_id(db, name)
        (position,) = db.execute("SELECT COUNT(*) FROM entries WHERE list_id = ?", (list_id,)).fetchone()
        for paper in papers.to_dict("records"):
            year = paper.get("year")
            cursor = db.execute(
                f"INSERT INTO entries (list_id, {_SNAPSHOT_FIELDS}) VALUES ({', '.join('?' * 11)})"
                " ON CONFLICT (list_id, dataset, paper_id) DO NOTHING",
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
            position += cursor.rowcount
            added += cursor.rowcount
    return added


def entries(db: sqlite3.Connection, name: str) -> list[Entry]:
    """The entries of list `name`, in order."""
    rows = db.execute(f"SELECT {_ENTRY_FIELDS} FROM entries WHERE list_id = ? ORDER BY position", (_list_id(db, name),))
    return [
        Entry(
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
        )
        for row in rows
    ]


def _entry_ids(db: sqlite3.Connection, list_id: int, entry_id: int, list_name: str) -> list[int]:
    ids = [i for (i,) in db.execute("SELECT entry_id FROM entries WHERE list_id = ? ORDER BY position", (list_id,))]
    if entry_id not in ids:
        raise ReadingListError(f"That paper is no longer in the reading list {list_name!r}.")
    return ids


def _renumber(db: sqlite3.Connection, ordered_ids: Sequence[int]) -> None:
    db.executemany("UPDATE entries SET position = ? WHERE entry_id = ?", [(p, i) for p, i in enumerate(ordered_ids)])


def move_entry(db: sqlite3.Connection, name: str, entry_id: int, position: int) -> None:
    """Move an entry of list `name` to 0-based `position` (clamped to the list), shifting the others."""
    with _write(db):
        ids = _entry_ids(db, _list_id(db, name), entry_id, name)
        ids.remove(entry_id)
        ids.insert(max(0, min(position, len(ids))), entry_id)
        _renumber(db, ids)


def remove_entry(db: sqlite3.Connection, name: str, entry_id: int) -> None:
    """Remove an entry from list `name`; the entries after it move up one place."""
    with _write(db):
        ids = _entry_ids(db, _list_id(db, name), entry_id, name)
        db.execute("DELETE FROM entries WHERE entry_id = ?", (entry_id,))
        ids.remove(entry_id)
        _renumber(db, ids)


def update_entry(
    db: sqlite3.Connection, name: str, entry_id: int, *, presenter: str | None = None, note: str | None = None
) -> None:
    """Set the presenter and/or the note of an entry of list `name` (None leaves a field as it is)."""
    with _write(db):
        _entry_ids(db, _list_id(db, name), entry_id, name)
        for field, value in (("presenter", presenter), ("note", note)):
            if value is not None:
                db.execute(f"UPDATE entries SET {field} = ? WHERE entry_id = ?", (value.strip(), entry_id))


def on_map(entries: Sequence[Entry], papers: pd.DataFrame) -> list[bool]:
    """For each entry, whether its paper is on the map `papers` (matched by `paper_id`)."""
    ids = set(papers["paper_id"])
    return [entry.paper_id in ids for entry in entries]
