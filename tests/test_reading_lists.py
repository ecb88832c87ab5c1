"""Reading lists in SQLite: named lists, ordered entries, and no lost update between sessions."""

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
    assert db.execute("SELECT COUNT(*) FROM entries").fetchone()[0] == 0  # entries went with their list


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
