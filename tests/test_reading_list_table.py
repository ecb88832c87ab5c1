"""The reading-list page's table: its rows, the edits read back from the editor, the rota."""

from lib.store.reading_lists import Entry
from lib.views import reading_list as rlt


def entry(n, **fields):
    base = dict(
        entry_id=10 + n, position=n, dataset="d", paper_id=f"p{n}", title=f"T{n}", authors=("Ada",), venue="ICML"
    )
    base |= dict(year=2025, url="", abstract="", keywords=(), presenter="", note="")
    return Entry(**(base | fields))


ENTRIES = [
    entry(0, votes=("Ada", "Bo")),
    entry(1, status="presented", meeting_date="2026-11-24", presenter="Cy"),
    entry(2),
]


def test_rows_follow_the_list_and_my_vote_is_the_voters_own():
    table = rlt.entry_table(ENTRIES, " ada ")
    assert list(table["#"]) == [1, 2, 3] and list(table["Votes"]) == [2, 0, 0]
    assert list(table["My vote"]) == [True, False, False]
    assert list(rlt.entry_table(ENTRIES, "")["My vote"]) == [False, False, False]  # no name, no vote of one's own


def test_edits_are_read_back_in_the_order_to_apply_them():
    table = rlt.entry_table(ENTRIES, "Ada")
    edits = rlt.table_edits(
        table,
        {
            "2": {"#": 1, "Date": "2026-12-08T00:00:00", "Presenter": "Dee"},  # a date given to a paper to read
            0: {"#": 2, "My vote": False, "Note": ""},  # the note was empty already: no edit
            1: {"Status": "presented", "Presenter": "Cy"},  # unchanged values: no edit
        },
        deleted_rows=[1],
    )
    assert [(e.kind, e.entry_id, dict(e.fields)) for e in edits] == [
        ("status", 12, {"status": "scheduled", "meeting_date": "2026-12-08"}),
        ("text", 12, {"presenter": "Dee"}),
        ("vote", 10, {"voted": False}),
        ("remove", 11, {}),
        ("move", 12, {"position": 0}),  # smallest typed place first, so both land where typed
        ("move", 10, {"position": 1}),
    ]
    assert rlt.table_edits(table, {1: {"Date": None}}) == [
        rlt.ListEdit("status", 11, {"status": "presented", "meeting_date": ""})
    ]


def test_the_rota_is_who_presents_what_and_when():
    entries = [
        *ENTRIES,
        entry(3, status="scheduled", meeting_date="2026-12-08", presenter="Dee"),
        entry(4, status="discussed"),
    ]
    rota = rlt.rota(entries)
    assert list(rota["Paper"]) == ["T1", "T3", "T4"] and list(rota["Presenter"]) == ["Cy", "Dee", ""]
