"""Reading lists in SQLite: named lists, ordered entries, and no lost update between sessions."""

import sqlite3
import threading
from contextlib import closing

import pandas as pd
import pytest

from lib.errors import ReadingListError
from lib.store import reading_lists as rl


def papers(n, prefix="p"):
    return pd.DataFrame(
        {
            "paper_id": [f"{prefix}{i}" for i in range(n)],
            "title": [f"Title {prefix}{i}" for i in range(n)],
            "authors": [["Ada Lovelace", "Alan Turing"]] * n,
            "venue": ["ICML"] * n,
            "year": pd.array([2025] * n, dtype="Int64"),
            "url": [f"https://example.org/{i}" for i in range(n)],
            "abstract": ["An abstract."] * n,
            "keywords": [["privacy", "noise"]] * n,
        }
    )


@pytest.fixture
def db(tmp_path):
    with closing(rl.connect(tmp_path / "lists.sqlite")) as connection:
        yield connection


def ids(db, name):
    return [e.paper_id for e in rl.entries(db, name)]


def test_lists_are_created_renamed_and_deleted(db):
    assert rl.list_names(db) == []
    assert rl.create_list(db, "  Journal   club ") == "Journal club"
    rl.create_list(db, "alpha")
    assert rl.list_names(db) == ["alpha", "Journal club"]
    assert rl.rename_list(db, "Journal club", "Theory group") == "Theory group"
    assert rl.list_names(db) == ["alpha", "Theory group"]
    rl.rename_list(db, "alpha", "Alpha")  # a change of case alone is a rename, not a clash
    rl.add_papers(db, "Alpha", papers(2), "seed.txt")
    rl.delete_list(db, "Alpha")
    assert rl.list_names(db) == ["Theory group"]
    rl.create_list(db, "alpha")  # a deleted list's name is free again
    assert rl.list_names(db) == ["alpha", "Theory group"]


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda db: rl.create_list(db, "   "), "needs a name"),
        (lambda db: rl.create_list(db, "x" * 81), "at most 80"),
        (lambda db: rl.create_list(db, "JOURNAL CLUB"), "already exists"),
        (lambda db: rl.rename_list(db, "Other", "Journal club"), "already exists"),
        (lambda db: rl.rename_list(db, "Nope", "New"), "no reading list named 'Nope'"),
        (lambda db: rl.entries(db, "Nope"), "no reading list"),
        (lambda db: rl.add_papers(db, "Nope", papers(1), "seed.txt"), "no reading list"),
        (lambda db: rl.remove_entry(db, "Journal club", 999), "no longer in the reading list"),
    ],
)
def test_bad_requests_are_one_sentence_errors(db, call, message):
    rl.create_list(db, "Journal club")
    rl.create_list(db, "Other")
    with pytest.raises(ReadingListError, match=message) as caught:
        call(db)
    text = str(caught.value)
    assert text.endswith(".") and "\n" not in text


def test_papers_are_appended_once_with_a_snapshot(db):
    rl.create_list(db, "club")
    assert rl.add_papers(db, "club", papers(3), "seed.txt") == 3
    assert rl.add_papers(db, "club", papers(4), "seed.txt") == 1  # three were already there
    assert rl.add_papers(db, "club", papers(1), "other.json") == 1  # same id, another data set: another paper
    entries = rl.entries(db, "club")
    assert [e.position for e in entries] == [0, 1, 2, 3, 4]
    assert ids(db, "club") == ["p0", "p1", "p2", "p3", "p0"]
    first = entries[0]
    assert first.title == "Title p0" and first.authors == ("Ada Lovelace", "Alan Turing") and first.year == 2025
    assert (
        first.keywords == ("privacy", "noise") and first.dataset == "seed.txt" and first.presenter == first.note == ""
    )
    missing_year = papers(1, "q").assign(year=pd.array([None], dtype="Int64"))
    rl.add_papers(db, "club", missing_year, "seed.txt")
    assert rl.entries(db, "club")[-1].year is None


def test_entries_move_remove_and_keep_presenter_and_note(db):
    rl.create_list(db, "club")
    rl.add_papers(db, "club", papers(4), "seed.txt")
    entry = {e.paper_id: e.entry_id for e in rl.entries(db, "club")}
    rl.move_entry(db, "club", entry["p3"], 0)
    assert ids(db, "club") == ["p3", "p0", "p1", "p2"]
    rl.move_entry(db, "club", entry["p3"], 2)
    assert ids(db, "club") == ["p0", "p1", "p3", "p2"]
    rl.move_entry(db, "club", entry["p0"], 99)  # clamped to the end
    rl.move_entry(db, "club", entry["p1"], -1)  # clamped to the start
    assert ids(db, "club") == ["p1", "p3", "p2", "p0"]
    rl.update_entry(db, "club", entry["p2"], presenter=" Grace ", note="Read section 3 first.")
    rl.update_entry(db, "club", entry["p2"], note="Skip the appendix.")  # presenter untouched
    rl.remove_entry(db, "club", entry["p3"])
    entries = rl.entries(db, "club")
    assert [e.paper_id for e in entries] == ["p1", "p2", "p0"] and [e.position for e in entries] == [0, 1, 2]
    assert (entries[1].presenter, entries[1].note) == ("Grace", "Skip the appendix.")
    other = rl.create_list(db, "other")
    with pytest.raises(ReadingListError):  # an entry is only reachable through its own list
        rl.remove_entry(db, other, entry["p1"])


def test_a_list_survives_reopening_the_database(tmp_path):
    path = tmp_path / "nested" / "lists.sqlite"  # the folder is created on first use
    with closing(rl.connect(path)) as db:
        rl.create_list(db, "club")
        rl.add_papers(db, "club", papers(2), "seed.txt")
        rl.update_entry(db, "club", rl.entries(db, "club")[1].entry_id, presenter="Grace")
    with closing(rl.connect(path)) as db:
        assert rl.list_names(db) == ["club"]
        assert [(e.paper_id, e.presenter) for e in rl.entries(db, "club")] == [("p0", ""), ("p1", "Grace")]


def test_two_connections_interleaving_writes_lose_no_update(tmp_path):
    path = tmp_path / "lists.sqlite"
    with closing(rl.connect(path)) as first, closing(rl.connect(path)) as second:
        rl.create_list(first, "club")
        for i in range(10):
            rl.add_papers(first, "club", papers(1, f"a{i}-"), "seed.txt")
            rl.add_papers(second, "club", papers(1, f"b{i}-"), "seed.txt")
        entry = rl.entries(second, "club")[0]
        rl.update_entry(first, "club", entry.entry_id, presenter="Ada")
        rl.update_entry(second, "club", entry.entry_id, note="Bring questions.")
        for db in (first, second):
            entries = rl.entries(db, "club")
            assert len(entries) == 20 and [e.position for e in entries] == list(range(20))
            assert (entries[0].presenter, entries[0].note) == ("Ada", "Bring questions.")


def test_concurrent_sessions_adding_at_once_keep_positions_consistent(tmp_path):
    path = tmp_path / "lists.sqlite"
    with closing(rl.connect(path)) as db:
        rl.create_list(db, "club")
    errors = []

    def session(worker):
        try:
            with closing(rl.connect(path)) as db:
                for i in range(15):
                    rl.add_papers(db, "club", papers(2, f"w{worker}-{i}-"), "seed.txt")
        except Exception as error:
            errors.append(error)

    threads = [threading.Thread(target=session, args=(w,)) for w in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with closing(rl.connect(path)) as db:
        entries = rl.entries(db, "club")
    assert len(entries) == 4 * 15 * 2 and [e.position for e in entries] == list(range(120))
    # Each add is one transaction: a batch's two papers stay next to each other.
    for first, second in zip(entries[::2], entries[1::2]):
        assert first.paper_id.rsplit("-", 1)[0] == second.paper_id.rsplit("-", 1)[0]


def test_papers_found_on_the_map(db):
    rl.create_list(db, "club")
    rl.add_papers(db, "club", papers(3), "seed.txt")
    assert rl.on_map(rl.entries(db, "club"), papers(2)) == [True, True, False]


def test_the_database_uses_wal_so_readers_do_not_block_writers(db):
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_an_entry_moves_through_the_statuses_with_its_meeting_date(db):
    rl.create_list(db, "club")
    rl.add_papers(db, "club", papers(2), "seed.txt")
    first, second = rl.entries(db, "club")
    assert (first.status, first.meeting_date) == ("to read", "")
    rl.set_status(db, "club", first.entry_id, "scheduled", meeting_date="2026-12-08")
    rl.set_status(db, "club", first.entry_id, "presented")  # no date given: the scheduled one stays
    assert [(e.status, e.meeting_date) for e in rl.entries(db, "club")] == [
        ("presented", "2026-12-08"),
        ("to read", ""),
    ]
    rl.set_status(db, "club", first.entry_id, "discussed", meeting_date="")
    assert rl.entries(db, "club")[0].meeting_date == ""
    with pytest.raises(ReadingListError, match="'read' is not a status; the statuses are to read, scheduled"):
        rl.set_status(db, "club", second.entry_id, "read")
    with pytest.raises(ReadingListError, match="'next week' is not a date"):
        rl.set_status(db, "club", second.entry_id, "scheduled", meeting_date="next week")
    assert rl.entries(db, "club")[1].status == "to read"  # a refused change changes nothing


def test_each_name_has_one_vote_per_paper(db):
    rl.create_list(db, "club")
    rl.add_papers(db, "club", papers(2), "seed.txt")
    first, second = rl.entries(db, "club")
    rl.set_vote(db, "club", first.entry_id, "Ada")
    rl.set_vote(db, "club", first.entry_id, "  ada ")  # the same name, typed again
    rl.set_vote(db, "club", first.entry_id, "Alan")
    rl.set_vote(db, "club", second.entry_id, "Ada")
    assert [e.votes for e in rl.entries(db, "club")] == [("Ada", "Alan"), ("Ada",)]
    rl.set_vote(db, "club", first.entry_id, "ADA", voted=False)
    assert [e.votes for e in rl.entries(db, "club")] == [("Alan",), ("Ada",)]
    with pytest.raises(ReadingListError, match="Votes are by name"):
        rl.set_vote(db, "club", first.entry_id, "   ")


def test_votes_from_sessions_at_once_are_all_counted(tmp_path):
    path = tmp_path / "lists.sqlite"
    with closing(rl.connect(path)) as db:
        rl.create_list(db, "club")
        rl.add_papers(db, "club", papers(5), "seed.txt")
        entry_ids = [e.entry_id for e in rl.entries(db, "club")]
    start = threading.Barrier(6)

    def vote(voter):
        with closing(rl.connect(path)) as own:
            start.wait()
            for entry_id in entry_ids:
                rl.set_vote(own, "club", entry_id, voter)

    threads = [threading.Thread(target=vote, args=(f"member {n}",)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with closing(rl.connect(path)) as db:
        assert [sorted(e.votes) for e in rl.entries(db, "club")] == [sorted(f"member {n}" for n in range(6))] * 5


def test_a_list_is_sorted_by_a_column_and_keeps_that_order(db):
    rl.create_list(db, "club")
    rl.add_papers(db, "club", papers(4), "seed.txt")
    e0, e1, e2, e3 = rl.entries(db, "club")
    for voter in ("a", "b"):
        rl.set_vote(db, "club", e2.entry_id, voter)
    rl.set_vote(db, "club", e3.entry_id, "a")
    rl.set_vote(db, "club", e1.entry_id, "b")
    rl.sort_entries(db, "club", "votes")  # e1 and e3 tie: they keep their order
    assert ids(db, "club") == ["p2", "p1", "p3", "p0"]
    rl.update_entry(db, "club", e0.entry_id, presenter="Zoe")
    rl.update_entry(db, "club", e3.entry_id, presenter="ada")
    rl.sort_entries(db, "club", "presenter")  # alphabetically, ignoring case; unassigned last
    assert ids(db, "club") == ["p3", "p0", "p2", "p1"]
    rl.set_status(db, "club", e1.entry_id, "scheduled", meeting_date="2026-12-15")
    rl.set_status(db, "club", e2.entry_id, "scheduled", meeting_date="2026-12-08")
    rl.sort_entries(db, "club", "meeting date")
    assert ids(db, "club") == ["p2", "p1", "p3", "p0"]
    rl.sort_entries(db, "club", "title")
    assert ids(db, "club") == ["p0", "p1", "p2", "p3"]
    assert [e.position for e in rl.entries(db, "club")] == [0, 1, 2, 3]
    with pytest.raises(ReadingListError, match="cannot be sorted by 'size'"):
        rl.sort_entries(db, "club", "size")


def test_a_database_of_the_first_schema_is_upgraded_keeping_its_lists(tmp_path):
    path = tmp_path / "lists.sqlite"
    first_schema = """
    CREATE TABLE lists (list_id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE COLLATE NOCASE);
    CREATE TABLE entries (
        entry_id INTEGER PRIMARY KEY,
        list_id INTEGER NOT NULL REFERENCES lists(list_id) ON DELETE CASCADE,
        position INTEGER NOT NULL, dataset TEXT NOT NULL, paper_id TEXT NOT NULL, title TEXT NOT NULL,
        authors TEXT NOT NULL, venue TEXT NOT NULL, year INTEGER, url TEXT NOT NULL, abstract TEXT NOT NULL,
        keywords TEXT NOT NULL, presenter TEXT NOT NULL DEFAULT '', note TEXT NOT NULL DEFAULT '',
        UNIQUE (list_id, dataset, paper_id));
    INSERT INTO lists VALUES (1, 'Theory club');
    INSERT INTO entries VALUES (1, 1, 0, 'seed.txt', 'p0', 'Title p0', '["Ada"]', 'ICML', 2025, '', '', '[]', 'Bo', 'n');
    INSERT INTO entries VALUES (2, 1, 1, 'seed.txt', 'p1', 'Title p1', '[]', 'ICML', 2025, '', '', '[]', '', '');
    """
    with closing(sqlite3.connect(path)) as old:
        old.executescript(first_schema)
    with closing(rl.connect(path)) as db:
        (first, second) = rl.entries(db, "Theory club")
        assert (first.title, first.presenter, first.status, second.paper_id) == ("Title p0", "Bo", "to read", "p1")
        rl.delete_list(db, "Theory club")
        rl.create_list(db, "Theory club")  # the old UNIQUE on names is gone with the upgrade
        assert db.execute("PRAGMA foreign_key_check").fetchall() == []
    with closing(rl.connect(path)) as db:  # opening it again leaves it as it is
        assert rl.list_names(db) == ["Theory club"]
        assert db.execute("PRAGMA user_version").fetchone()[0] == 1
