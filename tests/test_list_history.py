"""A reading list's change log, and restoring deleted lists and removed papers."""

from contextlib import closing

import pytest
from test_reading_lists import ids, papers

from lib.errors import ReadingListError
from lib.store import list_history
from lib.store import reading_lists as rl


@pytest.fixture
def db(tmp_path):
    with closing(rl.connect(tmp_path / "lists.sqlite")) as connection:
        yield connection


def test_a_deleted_list_comes_back_with_its_papers_their_order_votes_and_notes(db):
    rl.create_list(db, "club")
    rl.add_papers(db, "club", papers(3), "seed.txt")
    first = rl.entries(db, "club")[0]
    rl.move_entry(db, "club", first.entry_id, 2)
    rl.update_entry(db, "club", first.entry_id, presenter="Ada", note="bring the proof")
    rl.set_vote(db, "club", first.entry_id, "Alan")
    before = rl.entries(db, "club")
    rl.delete_list(db, "club", member="Bo")
    assert rl.list_names(db) == []
    (deleted,) = list_history.deleted_lists(db)
    assert (deleted.name, deleted.papers) == ("club", 3)
    assert list_history.restore_list(db, deleted.list_id, member="Cy") == "club"
    assert rl.entries(db, "club") == before
    assert list_history.deleted_lists(db) == []
    with pytest.raises(ReadingListError, match="not among the deleted ones"):
        list_history.restore_list(db, deleted.list_id)


def test_a_list_restored_under_a_taken_name_gets_a_new_one_and_both_are_kept(db):
    rl.create_list(db, "club")
    rl.add_papers(db, "club", papers(2, "old"), "seed.txt")
    rl.delete_list(db, "club")
    rl.create_list(db, "CLUB")
    rl.add_papers(db, "CLUB", papers(1, "new"), "seed.txt")
    (deleted,) = list_history.deleted_lists(db)
    assert list_history.restore_list(db, deleted.list_id) == "club (restored)"
    assert ids(db, "CLUB") == ["new0"] and ids(db, "club (restored)") == ["old0", "old1"]


def test_a_removed_paper_is_restored_to_its_place_or_comes_back_when_added_again(db):
    rl.create_list(db, "club")
    rl.add_papers(db, "club", papers(4), "seed.txt")
    second = rl.entries(db, "club")[1]
    rl.update_entry(db, "club", second.entry_id, note="key paper")
    rl.remove_entry(db, "club", second.entry_id)
    assert ids(db, "club") == ["p0", "p2", "p3"]
    (removed,) = list_history.removed_entries(db, "club")
    assert (removed.paper_id, removed.note) == ("p1", "key paper") and removed.removed_at
    list_history.restore_entry(db, "club", removed.entry_id)
    assert ids(db, "club") == ["p0", "p1", "p2", "p3"]
    assert [e.position for e in rl.entries(db, "club")] == [0, 1, 2, 3]
    assert list_history.removed_entries(db, "club") == []
    with pytest.raises(ReadingListError, match="no longer among the papers removed from"):
        list_history.restore_entry(db, "club", removed.entry_id)
    rl.remove_entry(db, "club", removed.entry_id)
    assert rl.add_papers(db, "club", papers(2), "seed.txt") == 1  # p1 comes back (at the end), p0 is there
    assert ids(db, "club") == ["p0", "p2", "p3", "p1"] and rl.entries(db, "club")[-1].note == "key paper"


def test_every_change_is_logged_with_the_member_who_made_it(db):
    rl.create_list(db, "club", member="Ada")
    rl.add_papers(db, "club", papers(4), "seed.txt", member="Ada")
    entry = rl.entries(db, "club")[3]
    rl.move_entry(db, "club", entry.entry_id, 0, member="Bo")
    rl.move_entry(db, "club", entry.entry_id, 0, member="Bo")  # no move: not logged
    rl.update_entry(db, "club", entry.entry_id, presenter="Cy", note="", member="Bo")  # the note was already empty
    rl.set_status(db, "club", entry.entry_id, "scheduled", meeting_date="2026-12-08")
    rl.set_vote(db, "club", entry.entry_id, "Dee")
    rl.remove_entry(db, "club", entry.entry_id, member="Bo")
    list_history.restore_entry(db, "club", entry.entry_id, member="Ada")
    rl.sort_entries(db, "club", "title", member="Ada")
    rl.rename_list(db, "club", "Theory club", member="Ada")
    rl.delete_list(db, "Theory club", member="Bo")
    list_history.restore_list(db, list_history.deleted_lists(db)[0].list_id, member="Ada")
    log = [(c.member, c.summary) for c in reversed(list_history.history(db, "Theory club"))]
    assert log == [
        ("Ada", "created the list “club”"),
        ("Ada", "added 4 papers: “Title p0”, “Title p1”, “Title p2” and 1 more"),
        ("Bo", "moved “Title p3” from 4 to 1"),
        ("Bo", "set the presenter of “Title p3” to “Cy”"),
        ("", "marked “Title p3” scheduled (2026-12-08)"),
        ("Dee", "voted for “Title p3”"),
        ("Bo", "removed “Title p3”"),
        ("Ada", "restored “Title p3”"),
        ("Ada", "sorted the list by title"),
        ("Ada", "renamed the list from “club” to “Theory club”"),
        ("Bo", "deleted the list"),
        ("Ada", "restored the list"),
    ]
    assert all(c.at.endswith("+00:00") for c in list_history.history(db, "Theory club"))


def test_a_refused_change_logs_nothing(db):
    rl.create_list(db, "club")
    rl.create_list(db, "other")
    with pytest.raises(ReadingListError):
        rl.rename_list(db, "club", "Other")
    with pytest.raises(ReadingListError):
        rl.set_status(db, "club", 12345, "presented")
    assert [c.action for c in list_history.history(db, "club")] == ["created"]
