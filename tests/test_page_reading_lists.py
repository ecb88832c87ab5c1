"""The reading-lists page and the "add to a reading list" control under AppTest, with a private database."""

import json
import re
from contextlib import closing

import pandas as pd
import pytest
from conftest import DASHBOARD, REPO, plain
from streamlit.testing.v1 import AppTest

from lib.store import reading_lists as rl
from lib.store.members import hash_passphrase
from lib.ui_state import NEW_LIST

IMG = "<img src=x onerror=alert(1)>"
LINK = "**b** [x](javascript:alert(1))"


def rows(titles, prefix="privacy"):
    n = len(titles)
    return pd.DataFrame(
        {
            "paper_id": [f"{prefix}-{i}" for i in range(n)],
            "title": titles,
            "authors": [["Ada Lovelace", "Alan Turing"]] * n,
            "venue": ["ICML"] * n,
            "year": pd.array([2025] * n, dtype="Int64"),
            "url": ["https://example.org/1"] * n,
            "abstract": [f"Abstract with {LINK}."] * n,
            "keywords": [["privacy budget", "noise"]] * n,
        }
    )


def make_list(path, name, titles, dataset="planted2025.json", prefix="privacy"):
    with closing(rl.connect(path)) as db:
        rl.create_list(db, name)
        rl.add_papers(db, name, rows(titles, prefix), dataset)


def stored(path, name):
    with closing(rl.connect(path)) as db:
        return rl.entries(db, name)


def open_page(**query):
    app = AppTest.from_file(DASHBOARD, default_timeout=300)
    for key, value in query.items():
        app.query_params[key] = value
    app.run()
    app.switch_page("app_pages/reading_lists.py")
    for key, value in query.items():  # a page switch clears the URL, as a link to the page would not
        app.query_params[key] = value
    app.run()
    assert not app.exception, app.exception
    return app


def markdown_texts(app):
    return [m.value for m in app.main.markdown]


def test_no_lists_yet_then_create_one(lists_db):
    app = open_page()
    assert "No reading lists yet" in app.info[0].value
    app.text_input(key="new_list_name").input("Theory club")
    app.button[0].click().run()  # the form's submit button
    assert not app.exception and not app.error
    assert app.selectbox(key="list").value == "Theory club"
    assert app.query_params["list"] in ("Theory club", ["Theory club"])
    assert "This list is empty" in app.info[0].value
    starters = [b for b in app.button if str(b.key).startswith("gap-")]
    assert starters  # an empty list misses every topic: each offers its paper to start the list with
    starters[0].click().run()
    assert len(stored(lists_db, "Theory club")) == 1
    app.text_input(key="new_list_name").input("theory CLUB")
    app.button[0].click().run()
    assert "already exists" in app.error[0].value  # one sentence, no traceback
    assert rl.connect(lists_db).execute("SELECT COUNT(*) FROM lists").fetchone()[0] == 1


def edit_table(app, edited_rows=None, deleted_rows=()):
    """What a user's edit of the list's table sends: its editing state, as the browser would (AppTest
    can read a data editor but not type into one)."""
    (editor,) = app.data_editor
    states = app._tree.get_widget_states()
    state = states.widgets.add()
    state.id = editor.proto.id
    rows = {str(row): changes for row, changes in (edited_rows or {}).items()}
    state.string_value = json.dumps({"edited_rows": rows, "added_rows": [], "deleted_rows": list(deleted_rows)})
    app._run(states)
    assert not app.exception, app.exception
    return app


def table_with(app, column):
    """The page's one read-only table with `column` (the rota has "Paper", the history "Who")."""
    (frame,) = [f.value for f in app.dataframe if column in f.value.columns and f not in app.data_editor]
    return frame


def test_entries_show_in_order_as_data_and_are_edited_in_the_table(lists_db):
    make_list(lists_db, "Club", [IMG, LINK, "Third paper"])
    app = open_page(list="Club")
    (editor,) = app.data_editor
    assert list(editor.value["Title"]) == [IMG, LINK, "Third paper"]  # cells of a grid: text, never markup
    assert list(editor.value["#"]) == [1, 2, 3] and editor.editing_mode == "delete"
    first, second, third = (e.entry_id for e in stored(lists_db, "Club"))
    edit_table(app, {2: {"#": 1}})  # the third paper typed into first place: one edit, not two clicks
    assert [e.entry_id for e in stored(lists_db, "Club")] == [third, first, second]
    typed = {1: {"Presenter": "Grace", "Note": "Bring =questions", "Date": "2026-12-08"}}
    edit_table(app, typed)
    entry = stored(lists_db, "Club")[1]
    assert (entry.entry_id, entry.presenter, entry.note) == (first, "Grace", "Bring =questions")
    assert (entry.status, entry.meeting_date) == ("scheduled", "2026-12-08")  # a date schedules a paper to read
    assert list(open_page(list="Club").data_editor[0].value["Presenter"]) == ["", "Grace", ""]  # as stored
    edit_table(app, typed, deleted_rows=[0])  # the editor's edits so far come along, as the browser sends them
    assert [e.entry_id for e in stored(lists_db, "Club")] == [first, second]
    labels = [b.proto.label for b in app.get("download_button")]
    assert labels == ["Download Markdown agenda", "Download BibTeX", "Download CSV"]
    rota = table_with(app, "Paper")
    assert list(rota["Presenter"]) == ["Grace"] and list(rota["Date"]) == ["2026-12-08"]


def test_votes_are_by_name_and_the_list_sorts_by_them(lists_db):
    make_list(lists_db, "Club", ["First", "Second", "Third"])
    app = open_page(list="Club")
    edit_table(app, {2: {"My vote": True}})
    assert "Votes are by name: type your name first." in plain(app.error[0].value)
    assert all(not e.votes for e in stored(lists_db, "Club"))
    app.text_input(key="papermap_member_name").input("Ada").run()
    edit_table(app, {2: {"My vote": True}, 1: {"My vote": True}})
    app.text_input(key="papermap_member_name").input("Alan").run()
    assert list(app.data_editor[0].value["My vote"]) == [False, False, False]  # Alan's own votes
    edit_table(app, {2: {"My vote": True}})
    assert [e.votes for e in stored(lists_db, "Club")] == [(), ("Ada",), ("Ada", "Alan")]
    app.selectbox(key="sort_list_by").select("votes").run()
    next(b for b in app.button if b.proto.label == "Sort").click().run()
    assert [e.title for e in stored(lists_db, "Club")] == ["Third", "Second", "First"]
    assert list(app.data_editor[0].value["Votes"]) == [2, 1, 0]


def _replayed_tick():
    """What Streamlit does when a tick reaches the table a vote's redraw replaced, while the run that
    drew the new one is stopped for the rerun the tick asks for (a stopped run keeps the old table's
    callback): the old table's state is the browser's, and its callback is called."""
    import streamlit as st

    from lib.ui_state import list_editing

    drawn = st.session_state["drawn"]
    st.session_state[drawn.key("Club")] = st.session_state["sent"]
    list_editing._apply_table_edits("Club", drawn)


def test_a_tick_on_the_table_a_vote_replaced_still_counts(lists_db):
    make_list(lists_db, "Club", ["First", "Second", "Third"])
    app = open_page(list="Club")
    app.text_input(key="papermap_member_name").input("Ada").run()
    drawn = app.session_state["list-editor-Club"]  # the table the browser shows
    edit_table(app, {0: {"My vote": True}})  # saved; the page draws the table afresh
    assert app.session_state["list-editor-Club"].version > drawn.version
    # Ada ticks the second paper on the table her browser still shows: it sends both ticks.
    replay = AppTest.from_function(_replayed_tick, default_timeout=60)
    replay.session_state["papermap_member_name"] = "Ada"
    replay.session_state["drawn"] = drawn
    both = {"0": {"My vote": True}, "1": {"My vote": True}}
    replay.session_state["sent"] = {"edited_rows": both, "added_rows": [], "deleted_rows": []}
    assert not replay.run().exception
    assert [e.votes for e in stored(lists_db, "Club")] == [("Ada",), ("Ada",), ()]  # each vote once
    assert list(app.run().data_editor[0].value["My vote"]) == [True, True, False]


def test_a_deleted_list_and_a_removed_paper_are_restored_and_the_history_says_who(lists_db):
    make_list(lists_db, "Club", ["First", "Second"])
    app = open_page(list="Club")
    app.text_input(key="papermap_member_name").input("Grace").run()
    edit_table(app, deleted_rows=[0])
    assert [e.title for e in stored(lists_db, "Club")] == ["Second"]
    restore = next(b for b in app.button if str(b.key).startswith("restore-entry-"))
    restore.click().run()
    assert [e.title for e in stored(lists_db, "Club")] == ["First", "Second"]
    app.checkbox(key="confirm_delete-Club").check().run()
    next(b for b in app.button if b.proto.label == "Delete list").click().run()
    assert "No reading lists yet" in app.info[0].value
    next(b for b in app.button if str(b.key).startswith("restore-list-")).click().run()
    assert not app.exception and app.selectbox(key="list").value == "Club"
    assert [e.title for e in stored(lists_db, "Club")] == ["First", "Second"]
    history = table_with(app, "Who")
    assert list(history["Who"])[:4] == ["Grace"] * 4
    assert list(history["What"])[:4] == ["restored the list", "deleted the list", "restored “First”", "removed “First”"]


def test_list_in_the_url_is_chosen_renamed_and_deleted(lists_db):
    make_list(lists_db, "Alpha", ["A paper"])
    make_list(lists_db, "Beta", ["B paper", "Another"])
    app = open_page(list="Beta")
    assert app.selectbox(key="list").value == "Beta"
    assert app.caption[0].value.startswith("2 papers")
    app.text_input(key="rename-Beta").input("Gamma")
    next(b for b in app.button if b.proto.label == "Rename").click().run()
    assert not app.exception and not app.error
    assert app.selectbox(key="list").value == "Gamma" and app.query_params["list"] in ("Gamma", ["Gamma"])
    assert [e.title for e in stored(lists_db, "Gamma")] == ["B paper", "Another"]
    delete = next(b for b in app.button if b.proto.label == "Delete list")
    assert delete.disabled  # until the deletion is confirmed
    app.checkbox(key="confirm_delete-Gamma").check().run()
    next(b for b in app.button if b.proto.label == "Delete list").click().run()
    assert not app.exception
    assert app.selectbox(key="list").options == ["Alpha"] and app.selectbox(key="list").value == "Alpha"
    with closing(rl.connect(lists_db)) as db:
        assert rl.list_names(db) == ["Alpha"]


def test_unknown_list_in_the_url_falls_back_to_the_first(lists_db):
    make_list(lists_db, "Alpha", ["A paper"])
    app = open_page(list="Nope")
    assert app.selectbox(key="list").value == "Alpha" and not app.error


# A page with only the add-to-list control, over three papers, beside the real reading-lists page.
CONTROL_SCRIPT = """
import sys
from pathlib import Path

import pandas as pd
import streamlit as st

sys.path.insert(0, {repo!r})
from lib import ui_state
from lib.views.filters import Filters
from lib.stages.load import LoadReport


def add_page():
    papers = pd.DataFrame({{
        "paper_id": ["a", "b", "c"], "title": ["<img src=x onerror=alert(1)>", "Second", "Third"],
        "authors": [["Ada"], ["Alan"], []], "venue": ["ICML"] * 3, "year": pd.array([2025, 2025, None], dtype="Int64"),
        "url": [""] * 3, "abstract": [""] * 3, "keywords": [["k"], [], []],
    }})
    source = ui_state.DataSource(data=Path("planted2025.json"), taxonomy=Path("t.yaml"), cache=Path("cache"))
    ui_state.set_view(ui_state.View(source, papers, papers, Filters(), LoadReport("planted2025.json", "json"), ""))
    count = st.number_input("How many", value=2, key="how_many")
    ui_state.add_to_list_control(papers.head(int(count)), key="test")


st.navigation([
    st.Page(add_page, title="Add", url_path="add", default=True),
    st.Page("app_pages/reading_lists.py", title="Reading lists", url_path="reading-lists"),
    st.Page("app_pages/present.py", title="Present", url_path="presentation"),
]).run()
"""


@pytest.fixture
def control_app(lists_db, tmp_path):
    (tmp_path / "app_pages").mkdir()
    for page in ("reading_lists.py", "present.py"):
        (tmp_path / "app_pages" / page).symlink_to(REPO / "app_pages" / page)
    script = tmp_path / "app.py"
    script.write_text(CONTROL_SCRIPT.format(repo=str(REPO)))
    return AppTest.from_file(str(script), default_timeout=60)


def test_add_to_list_control_creates_a_list_and_adds_papers(lists_db, control_app):
    app = control_app.run()
    assert not app.exception, app.exception
    choice = app.selectbox(key="test-list")
    assert choice.value == NEW_LIST and choice.options == ["New list…"]  # no lists yet: the one choice, shown
    add = app.button(key="test-add")
    assert add.proto.label == "Add 2 papers"
    app.text_input(key="test-new-name").input("Reading group")
    app.button(key="test-add").click().run()
    assert not app.exception and not app.error
    assert app.success[0].value == "Added 2 papers to Reading group."
    assert app.selectbox(key="test-list").value == "Reading group"  # the new list is now the target
    assert [(e.paper_id, e.dataset) for e in stored(lists_db, "Reading group")] == [
        ("a", "planted2025.json"),
        ("b", "planted2025.json"),
    ]
    app.number_input(key="how_many").set_value(3).run()
    app.button(key="test-add").click().run()
    assert app.success[0].value == "Added 1 paper to Reading group (2 already there)."
    assert [e.paper_id for e in stored(lists_db, "Reading group")] == ["a", "b", "c"]
    app.number_input(key="how_many").set_value(0).run()
    assert app.button(key="test-add").disabled and app.button(key="test-add").proto.label == "Add 0 papers"
    app.switch_page("app_pages/reading_lists.py").run()
    assert not app.exception and app.selectbox(key="list").value == "Reading group"


def test_add_to_list_control_new_list_without_name_is_one_sentence(lists_db, control_app):
    app = control_app.run()
    app.button(key="test-add").click().run()
    assert not app.exception and plain(app.error[0].value) == "A reading list needs a name."


def test_the_maps_open_paper_goes_into_a_new_list(lists_db):
    app = AppTest.from_file(DASHBOARD, default_timeout=300)
    app.query_params["paper"] = "bandits-2"
    app.run()
    assert not app.exception
    assert app.get("download_button")  # the view as an HTML file
    app.text_input(key="map-open-paper-new-name").input("Bandit club").run()
    app.button(key="map-open-paper-add").click().run()
    assert not app.exception and not app.error
    assert [e.paper_id for e in stored(lists_db, "Bandit club")] == ["bandits-2"]


def test_the_list_page_offers_the_topics_it_misses_and_papers_like_it(lists_db):
    make_list(lists_db, "Club", ["A privacy paper", "Another"])  # privacy-0 and privacy-1 of the planted map
    app = open_page(list="Club")
    missing = [t for t in markdown_texts(app) if re.match(r"\*\*[^*]+\*\* \(\d+ papers\): ", t)]
    assert len(missing) >= 1 and all("privacy" not in t.split("**")[1].lower() for t in missing)
    app.button(key=next(b.key for b in app.button if str(b.key).startswith("gap-"))).click().run()
    assert not app.exception and len(stored(lists_db, "Club")) == 3  # the topic's representative paper
    nearest = [b for b in app.button if str(b.key).startswith("more-like-")]
    assert len(nearest) == 10 and all(
        b.key.removeprefix("more-like-") not in ("privacy-0", "privacy-1") for b in nearest
    )
    assert all(b.key.startswith("more-like-privacy-") for b in nearest[:5])  # nearest first: the list's own topic
    app.button(key="add-more-like").click().run()
    assert not app.exception and len(stored(lists_db, "Club")) == 13


def test_with_a_passphrase_set_only_members_edit_and_everyone_views(lists_db, monkeypatch):
    make_list(lists_db, "Club", ["First", "Second"])
    monkeypatch.setenv("PAPERMAP_EDITOR_PASSPHRASE", hash_passphrase("reading group 2026"))
    app = open_page(list="Club")
    assert list(app.data_editor[0].value["Title"]) == ["First", "Second"]  # viewing is open
    assert app.data_editor[0].editing_mode == "fixed"  # no row deletion for a viewer
    edit_table(app, {1: {"#": 1}})  # an edit sent anyway (say, by a stale page) changes nothing
    assert [e.title for e in stored(lists_db, "Club")] == ["First", "Second"]
    app.text_input(key="new_list_name").input("Mine")
    next(b for b in app.button if b.proto.label == "Create list").click().run()
    assert "Only members can change this; give the group's passphrase" in plain(app.error[0].value)
    with closing(rl.connect(lists_db)) as db:
        assert rl.list_names(db) == ["Club"]
    app.text_input(key="papermap_passphrase").input("wrong passphrase")
    next(b for b in app.button if b.proto.label == "Unlock editing").click().run()
    assert plain(app.error[0].value) == "That is not the group's passphrase."
    app.text_input(key="papermap_passphrase").input("reading group 2026")
    next(b for b in app.button if b.proto.label == "Unlock editing").click().run()
    assert not app.error and not [t for t in app.text_input if t.key == "papermap_passphrase"]
    assert app.session_state["papermap_passphrase"] == ""  # the passphrase is not kept in the session
    edit_table(app, {1: {"#": 1}})
    assert [e.title for e in stored(lists_db, "Club")] == ["Second", "First"]


def damage_middle(path):
    """Overwrite the file past its first page (its header), as a failing disk or a torn copy would."""
    data = bytearray(path.read_bytes())
    data[4096:] = b"\xa5" * (len(data) - 4096)
    path.write_bytes(bytes(data))


def test_a_damaged_database_is_one_sentence_without_a_traceback_or_server_paths(lists_db):
    make_list(lists_db, "Theory club", [f"Paper {n}" for n in range(40)])
    with closing(rl.connect(lists_db)) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    damage_middle(lists_db)
    app = open_page()
    assert not app.exception
    shown = " ".join(plain(e.value) for e in app.error)
    assert "Nothing was changed: the reading-lists database is damaged" in shown
    assert str(lists_db.parent) not in shown and "sqlite" not in shown.lower()


def test_a_full_disk_loses_no_list_and_says_so(lists_db, monkeypatch):
    make_list(lists_db, "Theory club", ["Paper one", "Paper two"])
    connect = rl.connect

    def full_disk(path):  # the file may not grow: SQLite says the disk is full, as on a full disk
        db = connect(path)
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count = {pages}")
        return db

    app = open_page()
    monkeypatch.setattr(rl, "connect", full_disk)
    for n in range(30):  # until the file would have to grow
        app.text_input(key="new_list_name").input(f"Club {n} " + "y" * 60)
        app.button[0].click().run()
        assert not app.exception
        if app.error:
            break
    assert "Nothing was changed: the disk that holds the reading lists is full" in plain(app.error[0].value)
    monkeypatch.setattr(rl, "connect", connect)
    assert [e.title for e in stored(lists_db, "Theory club")] == ["Paper one", "Paper two"]


def test_a_link_to_another_list_opens_that_list_not_the_one_chosen_before(lists_db):
    """On the Schedule page with list A chosen, "Open B" (a link with ?list=B) opened A (issue 34)."""
    make_list(lists_db, "Alpha club", ["Paper one"])
    make_list(lists_db, "Beta club", ["Paper two"])
    app = open_page(list="Alpha club")
    assert app.selectbox(key="list").value == "Alpha club"
    app.switch_page("app_pages/schedule.py").run()  # another page, the list still chosen in the session
    app.switch_page("app_pages/reading_lists.py")
    app.query_params["list"] = "Beta club"  # as "Open Beta club" links
    app.run()
    assert not app.exception and app.selectbox(key="list").value == "Beta club"
    app.selectbox(key="list").select("Alpha club").run()  # and choosing on the page still works
    assert app.selectbox(key="list").value == "Alpha club"
    app.text_input(key="new_list_name").input("Gamma club")
    app.button[0].click().run()  # a new list is chosen, whatever the URL said before
    assert app.selectbox(key="list").value == "Gamma club"


def test_a_cell_typed_back_to_its_first_value_is_saved_too(lists_db):
    """The table keeps its drawing while a member types; a value typed and then taken back is saved back."""
    make_list(lists_db, "Club", ["First", "Second"])
    app = open_page(list="Club")
    edit_table(app, {1: {"Presenter": "Grace", "Note": "Section 3"}})
    assert (stored(lists_db, "Club")[1].presenter, stored(lists_db, "Club")[1].note) == ("Grace", "Section 3")
    edit_table(app, {1: {"Note": "Section 3"}})  # the presenter typed back to empty: no longer an edit
    assert (stored(lists_db, "Club")[1].presenter, stored(lists_db, "Club")[1].note) == ("", "Section 3")
    edit_table(app, {0: {"Date": "2026-12-08"}, 1: {"Note": "Section 3"}})
    assert (stored(lists_db, "Club")[0].status, stored(lists_db, "Club")[0].meeting_date) == ("scheduled", "2026-12-08")
    edit_table(app, {1: {"Note": "Section 3"}})  # and the date taken back
    assert (stored(lists_db, "Club")[0].status, stored(lists_db, "Club")[0].meeting_date) == ("to read", "")
    assert stored(lists_db, "Club")[1].note == "Section 3"
