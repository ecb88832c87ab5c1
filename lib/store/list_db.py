"""The reading-lists database: its schema, its upgrades, one write transaction, and the change log it keeps.

One SQLite file is shared by every session of a server, so it is opened in WAL mode with a busy
timeout and every write is one `BEGIN IMMEDIATE` transaction: concurrent writers queue instead of
failing. Each change to a list is recorded in `changes` inside the transaction that makes it, so
the log and the lists can never disagree, even when the process is killed mid-write. Lists and
entries are never erased: deleting or removing marks them (`deleted_at`, `removed_at`), so they
can be restored, and the name of a deleted list is free for a new one.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from lib.errors import ReadingListError
from lib.paths import REPO_ROOT

logger = logging.getLogger(__name__)

DEFAULT_DB = REPO_ROOT / "data" / "reading_lists.sqlite"
BUSY_TIMEOUT_MS = 10_000
SCHEMA_VERSION = 1  # PRAGMA user_version; 0 is the first schema (no statuses, votes, log or restore)

_TABLES = """
CREATE TABLE IF NOT EXISTS lists (
    list_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL COLLATE NOCASE,
    deleted_at TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS live_list_names ON lists (name COLLATE NOCASE) WHERE deleted_at IS NULL;
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
    status TEXT NOT NULL DEFAULT 'to read',
    meeting_date TEXT NOT NULL DEFAULT '',
    removed_at TEXT,
    UNIQUE (list_id, dataset, paper_id)
);
CREATE INDEX IF NOT EXISTS entries_by_position ON entries (list_id, position);
CREATE TABLE IF NOT EXISTS votes (
    entry_id INTEGER NOT NULL REFERENCES entries(entry_id) ON DELETE CASCADE,
    voter TEXT NOT NULL COLLATE NOCASE,
    voted_at TEXT NOT NULL,
    PRIMARY KEY (entry_id, voter)
);
CREATE TABLE IF NOT EXISTS changes (
    change_id INTEGER PRIMARY KEY,
    list_id INTEGER NOT NULL REFERENCES lists(list_id) ON DELETE CASCADE,
    at TEXT NOT NULL,
    member TEXT NOT NULL,
    action TEXT NOT NULL,
    entry_id INTEGER,
    summary TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS changes_by_list ON changes (list_id, change_id);
"""

# Version 0 declared `name ... UNIQUE`, which a deleted list would keep holding: the lists table is
# rebuilt without it (foreign keys off meanwhile, or dropping it would cascade to the entries).
_FROM_VERSION_0 = """
CREATE TABLE lists_v1 (list_id INTEGER PRIMARY KEY, name TEXT NOT NULL COLLATE NOCASE, deleted_at TEXT);
INSERT INTO lists_v1 (list_id, name) SELECT list_id, name FROM lists;
DROP TABLE lists;
ALTER TABLE lists_v1 RENAME TO lists;
ALTER TABLE entries ADD COLUMN status TEXT NOT NULL DEFAULT 'to read';
ALTER TABLE entries ADD COLUMN meeting_date TEXT NOT NULL DEFAULT '';
ALTER TABLE entries ADD COLUMN removed_at TEXT;
"""


def connect(path: str | Path = DEFAULT_DB) -> sqlite3.Connection:
    """Open (creating or upgrading if needed) the reading-lists database at `path`, ready for concurrent use."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: no implicit transactions; writes open their own BEGIN IMMEDIATE.
        db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        db.execute("PRAGMA journal_mode = WAL")
        if db.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
            _upgrade(db)
        db.execute("PRAGMA foreign_keys = ON")
    except (OSError, sqlite3.Error) as error:
        raise storage_error(error, path) from None
    return db


def storage_error(error: OSError | sqlite3.Error, path: str | Path = "") -> ReadingListError:
    """One sentence for a visitor about a failure to read or write the database: what happened and
    that nothing was changed, without the server's paths or SQLite's words (the log has both)."""
    logger.error("reading-lists database %s: %s", path, error)
    text = str(error).lower()
    if "full" in text or getattr(error, "errno", None) == 28:  # ENOSPC
        problem = "the disk that holds the reading lists is full"
    elif "malformed" in text or "not a database" in text or "corrupt" in text:
        problem = "the reading-lists database is damaged (its owner can restore it from a backup)"
    elif "locked" in text or "busy" in text:
        problem = "the reading-lists database is busy; try again in a moment"
    else:
        problem = "the reading-lists database cannot be read or written"
    return ReadingListError(f"Nothing was changed: {problem}.")


def _upgrade(db: sqlite3.Connection) -> None:
    # One transaction, the version checked again inside it: of two servers opening an old file at
    # once, the second finds it upgraded. A kill mid-upgrade rolls back to the old file.
    db.execute("PRAGMA foreign_keys = OFF")
    db.execute("BEGIN IMMEDIATE")
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        has_lists = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'lists'").fetchone()
        if version == 0 and has_lists:
            for statement in _FROM_VERSION_0.split(";\n"):
                if statement.strip():
                    db.execute(statement)
        if version < SCHEMA_VERSION:
            for statement in _TABLES.split(";\n"):
                if statement.strip():
                    db.execute(statement)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


@contextmanager
def write(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction; IMMEDIATE takes the write lock up front, so a read-then-write cannot race."""
    try:
        db.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError:
        raise ReadingListError("The reading-lists database is busy; try again in a moment.") from None
    try:
        yield db
    except BaseException:
        if db.in_transaction:  # SQLite has already rolled back after some errors (a full disk)
            db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def now() -> str:
    """The current time as stored: ISO 8601 in UTC, to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def live_list_id(db: sqlite3.Connection, name: str) -> int:
    """The id of the (not deleted) list `name`; a ReadingListError when there is none."""
    row = db.execute(
        "SELECT list_id FROM lists WHERE name = ? AND deleted_at IS NULL", (" ".join(str(name).split()),)
    ).fetchone()
    if row is None:
        raise ReadingListError(f"There is no reading list named {name!r}.")
    return row[0]


def record_change(
    db: sqlite3.Connection, list_id: int, action: str, summary: str, member: str = "", entry_id: int | None = None
) -> None:
    """Log one change to list `list_id`; call it inside the `write` transaction that makes the change."""
    db.execute(
        "INSERT INTO changes (list_id, at, member, action, entry_id, summary) VALUES (?, ?, ?, ?, ?, ?)",
        (list_id, now(), " ".join(member.split()), action, entry_id, summary),
    )


def name_taken(db: sqlite3.Connection, name: str) -> bool:
    """Whether a list (not deleted) is named `name`, ignoring case."""
    return db.execute("SELECT 1 FROM lists WHERE name = ? AND deleted_at IS NULL", (name,)).fetchone() is not None


def live_entry_ids(db: sqlite3.Connection, list_id: int) -> list[int]:
    """The ids of list `list_id`'s entries (not removed), in order."""
    rows = db.execute(
        "SELECT entry_id FROM entries WHERE list_id = ? AND removed_at IS NULL ORDER BY position", (list_id,)
    )
    return [entry_id for (entry_id,) in rows]


def entry_title(db: sqlite3.Connection, list_id: int, entry_id: int, list_name: str, *, removed: bool = False) -> str:
    """The title of entry `entry_id` of list `list_id`, which must be in it (or, with `removed`, removed from it)."""
    row = db.execute(
        f"SELECT title FROM entries WHERE entry_id = ? AND list_id = ? AND removed_at IS {'NOT ' if removed else ''}NULL",
        (entry_id, list_id),
    ).fetchone()
    if row is None:
        where = "among the papers removed from" if removed else "in"
        raise ReadingListError(f"That paper is no longer {where} the reading list {list_name!r}.")
    return row[0]


def renumber(db: sqlite3.Connection, ordered_ids: Sequence[int]) -> None:
    """Give the entries `ordered_ids` the positions 0, 1, 2, ... in that order."""
    db.executemany("UPDATE entries SET position = ? WHERE entry_id = ?", [(p, i) for p, i in enumerate(ordered_ids)])
