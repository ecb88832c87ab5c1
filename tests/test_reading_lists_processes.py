"""Reading lists written from separate processes: a writer killed mid-write loses nothing it
committed, breaks nothing and leaves the change log agreeing with the list; sessions editing one
list at once lose no update.

(tests/test_reading_lists.py covers threads and connections within one process.)
"""

from __future__ import annotations

import json
import random
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pandas as pd
import pytest

from lib.store import list_history
from lib.store import reading_lists as rl

WRITER = Path(__file__).with_name("reading_list_writer.py")
LIST = "club"
BATCH = 20  # papers per transaction: a kill often lands inside one
KILL_DELAYS = [round(random.Random(6).uniform(0.0, 0.4), 2) for _ in range(4)]


@pytest.fixture
def db_path(tmp_path) -> Path:
    path = tmp_path / "lists.sqlite"
    with closing(rl.connect(path)) as db:
        rl.create_list(db, LIST)
    return path


@pytest.fixture
def writer(db_path):
    """Starts `tests/reading_list_writer.py` on the list in `db_path`; any writer still running when
    the test ends (a failed assertion) is killed, not left waiting on its stdin."""
    started: list[subprocess.Popen] = []

    def start(*args: object, stdin=None) -> subprocess.Popen:
        process = subprocess.Popen(
            [sys.executable, str(WRITER), str(db_path), LIST, *map(str, args)],
            stdin=stdin,
            stdout=subprocess.PIPE,
            text=True,
        )
        started.append(process)
        return process

    yield start
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait()


def assert_sound(db: sqlite3.Connection) -> list[rl.Entry]:
    """The database passes SQLite's own check and the list's positions are 0..n-1; its entries."""
    assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    entries = rl.entries(db, LIST)
    assert [e.position for e in entries] == list(range(len(entries)))
    assert len({e.paper_id for e in entries}) == len(entries)
    return entries


@pytest.mark.kill
def test_a_writer_killed_mid_write_keeps_every_committed_batch_and_no_part_of_another(db_path, writer):
    reported: list[str] = []
    for run, delay in enumerate(KILL_DELAYS):
        process = writer("append", f"run{run}-", BATCH)
        first = process.stdout.readline()  # the loop runs: kill it a little later, wherever it is
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        rest, _ = process.communicate()
        assert first and process.returncode == -signal.SIGKILL
        reported += [first.strip(), *rest.split()]
        with closing(rl.connect(db_path)) as db:  # opening it recovers from the kill: the next run writes again
            entries = assert_sound(db)
        batches = [e.paper_id.rsplit("-", 1)[0] for e in entries]
        in_list = list(dict.fromkeys(batches))
        assert [b for b in in_list if b in set(reported)] == reported, (
            "a batch reported committed is gone or out of order"
        )
        runs = [b for i, b in enumerate(batches) if i == 0 or batches[i - 1] != b]
        assert runs == in_list and all(batches.count(b) == BATCH for b in in_list), "part of a batch was kept"
        with closing(rl.connect(db_path)) as db:  # the log and the list agree: one "added" per batch kept
            added = [c for c in list_history.history(db, LIST) if c.action == "added"]
        assert len(added) == len(in_list), "the change log lost or invented a write"
    with closing(rl.connect(db_path)) as db:
        rl.add_papers(db, LIST, pd.DataFrame({"paper_id": ["after"], "title": ["After the kills"]}), "planted2025.json")
        assert assert_sound(db)[-1].paper_id == "after"


@pytest.mark.many_users
def test_sessions_in_separate_processes_editing_one_list_lose_no_update(db_path, writer):
    sessions = {f"s{n}-": writer("edit", f"s{n}-", n, 60, stdin=subprocess.PIPE) for n in range(3)}
    for process in sessions.values():
        assert process.stdout.readline().strip() == "ready"
    for process in sessions.values():  # go at once
        process.stdin.write("go\n")
        process.stdin.flush()
    done = {}
    for prefix, process in sessions.items():
        out, _ = process.communicate(timeout=120)
        assert process.returncode == 0
        done[prefix] = json.loads(out)
    assert max(d["started"] for d in done.values()) < min(d["ended"] for d in done.values()), (
        "the sessions did not overlap"
    )
    with closing(rl.connect(db_path)) as db:
        entries = assert_sound(db)
    assert sorted(e.paper_id for e in entries) == sorted(p for d in done.values() for p in d["order"])
    for prefix, session in done.items():
        own = [e for e in entries if e.paper_id.startswith(prefix)]
        assert [e.paper_id for e in own] == session["order"], f"{prefix}: a move or an add was lost"
        assert {e.paper_id: e.note for e in own if e.note} == session["notes"], f"{prefix}: a note was lost"
        assert all(e.presenter == (prefix if e.note else "") for e in own)
        assert all(session["done"].values()), session["done"]  # each kind of edit was made
