"""Reading lists end to end: the list page's table (one st.data_editor, drawn on a canvas) driven in
headless Chromium as members use it.

Two sessions voting at the same moment both count; a list deleted in the browser comes back from
"Deleted lists" with its papers in their order; and a move typed into "#" reaches every download,
each read back as its readers read it. The grid's cells are read from the accessibility table
glide-data-grid renders beside its canvas (a <table role="grid"> of the rendered cells' text);
cells are clicked at their place on the canvas, from the column widths the page gives them.

Runs with the other browser tests (marker `browser`); skips without Playwright or /usr/bin/chromium.
"""

from __future__ import annotations

import html
import json
import random
import re
import time
import urllib.parse
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import planted_records
from export_readers import bibtex_entries, csv_rows, latex_text, markdown_html, same_text, unguarded
from test_browser import IDLE_HOLD_MS, IDLE_JS, RENDER_MS, _download, _watched_tab, running_app

from lib.store import reading_lists
from lib.views.reading_list import COLUMN_WIDTHS

pytestmark = pytest.mark.browser
LAPTOP = {"width": 1600, "height": 1000}  # wide enough for the table's columns at the widths the page gives
# The table's geometry at LAPTOP: the row-selection column (border included), then each column at
# its width in lib.ui_state.list_editing.list_table (the grid stretches them in a wider window), under
# a header; rows of ROW_PX.
SELECT_PX, HEADER_PX, ROW_PX = 37, 35, 35

VOTE_LIST, DOOMED_LIST, EXPORT_LIST = "Vote club", "Doomed club", "Export club"

# The list's table (the tallest dataframe: collapsed expanders hold others): its top-left corner, its
# header's column names, and each rendered row as {column: cell text}, from the accessibility table.
TABLE_JS = """() => {
    const editor = Array.from(document.querySelectorAll('[data-testid="stDataFrame"]'))
        .sort((a, b) => b.getBoundingClientRect().height - a.getBoundingClientRect().height)[0];
    if (!editor || !editor.querySelector('table[role="grid"]')) return null;
    const names = {};
    editor.querySelectorAll('thead th').forEach(th => { names[th.getAttribute('aria-colindex')] = th.textContent; });
    const rows = Array.from(editor.querySelectorAll('tbody tr')).map(tr => Object.fromEntries(
        Array.from(tr.querySelectorAll('td')).map(td => [names[td.getAttribute('aria-colindex')], td.textContent])));
    const box = editor.getBoundingClientRect();
    return {x: box.left, y: box.top, columns: Object.values(names), rows: rows};
}"""

CENTRE_JS = """() => Array.from(document.querySelectorAll('[data-testid="stDataFrame"]'))
    .sort((a, b) => b.getBoundingClientRect().height - a.getBoundingClientRect().height)[0]
    .scrollIntoView({block: 'center'})"""


@dataclass(frozen=True)
class ListsApp:
    url: str
    db: Path
    data: Path  # the list the dashboard was started on
    titles: dict[str, list[str]]  # each list's titles, in its order as planted


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("lists_cache")


@pytest.fixture(scope="module")
def lists_app(cache_dir, tmp_path_factory) -> ListsApp:
    """The dashboard on the planted map with a private database of three lists: two of 6 papers in map
    order, and one of 12 in a shuffled order (so a restore that sorted them would show)."""
    from lib.builder.pipeline import build

    folder = tmp_path_factory.mktemp("lists_app")
    data = folder / "planted2025.json"
    data.write_text(json.dumps(planted_records()), encoding="utf-8")
    papers = build(data, cache_dir=cache_dir).papers  # as the app builds it; the app then reads the cache
    shuffled = list(range(len(papers)))
    random.Random(1).shuffle(shuffled)
    db_path = folder / "lists.sqlite"
    titles = {}
    with closing(reading_lists.connect(db_path)) as db:
        for name, rows in (
            (VOTE_LIST, papers.iloc[:6]),
            (DOOMED_LIST, papers.iloc[shuffled[:12]]),
            (EXPORT_LIST, papers.iloc[6:18]),
        ):
            reading_lists.create_list(db, name)
            reading_lists.add_papers(db, name, rows, data.name)
            titles[name] = [entry.title for entry in reading_lists.entries(db, name)]
    with running_app(cache_dir, folder / "streamlit.log", db_path, data=data) as base:
        yield ListsApp(base, db_path, data, titles)


def _idle(tab) -> None:
    tab.evaluate(IDLE_JS, [IDLE_HOLD_MS, RENDER_MS])


def _open_list(tab, app: ListsApp, name: str) -> None:
    """Open list `name` as a reader does: the map, Reading lists in the sidebar, the list chosen (a deep
    link makes Streamlit probe the path, which logs 404s to the console); once the table is drawn."""
    tab.goto(app.url)
    _idle(tab)
    tab.locator('[data-testid="stSidebarNav"]').get_by_role("link", name="Reading lists").click()
    tab.wait_for_url(re.compile(r"/reading-lists"))
    _idle(tab)
    if _shown_list(tab) != name:
        tab.locator('[data-testid="stSelectbox"]', has_text="Reading list").click()
        tab.get_by_role("option", name=name).click()
    tab.wait_for_function(f"() => {{ const t = ({TABLE_JS})(); return t !== null && t.rows.length > 0; }}")
    _idle(tab)
    assert _shown_list(tab) == name


def _shown_list(tab) -> str | None:
    """The list the page shows, as its URL names it."""
    return urllib.parse.parse_qs(urllib.parse.urlparse(tab.url).query).get("list", [None])[0]


def _table(tab) -> dict:
    return tab.evaluate(TABLE_JS)


def _titles(tab) -> list[str]:
    return [row["Title"] for row in _table(tab)["rows"]]


def _cell(tab, row: int, column: str) -> tuple[float, float]:
    """The centre of the table's cell at 0-based `row` in `column`, on the screen (the table scrolled into view)."""
    tab.evaluate(CENTRE_JS)
    table = _table(tab)
    before = table["columns"][: table["columns"].index(column)]
    x = table["x"] + SELECT_PX + sum(COLUMN_WIDTHS[name] for name in before) + COLUMN_WIDTHS[column] / 2
    return x, table["y"] + HEADER_PX + ROW_PX * row + ROW_PX / 2


def _member_tab(browser, app: ListsApp, name: str, **context_options):
    """A tab of its own browser context (its own session) on the vote list, with "Your name" given."""
    tab = _watched_tab(browser.new_context(viewport=LAPTOP, **context_options))
    _open_list(tab, app, VOTE_LIST)
    tab.get_by_role("textbox", name="Your name").fill(name)
    tab.keyboard.press("Enter")
    _idle(tab)
    return tab


def test_two_members_voting_at_the_same_moment_both_count(lists_app, browser):
    tabs = {name: _member_tab(browser, lists_app, name) for name in ("Ada", "Alan")}
    cells = {name: [_cell(tab, row, "My vote") for row in (0, 1)] for name, tab in tabs.items()}
    started = time.monotonic()
    for row in (0, 1):  # Ada's vote for the first paper, Alan's, then both for the second
        for name, tab in tabs.items():
            tab.mouse.click(*cells[name][row])
    assert time.monotonic() - started < 0.5  # the four clicks land together (~100 ms here), before any rerun ends
    for tab in tabs.values():
        _idle(tab)

    first, second = lists_app.titles[VOTE_LIST][:2]
    with closing(reading_lists.connect(lists_app.db)) as db:
        stored = {entry.title: set(entry.votes) for entry in reading_lists.entries(db, VOTE_LIST)}
    assert stored == {title: {"Ada", "Alan"} if title in (first, second) else set() for title in stored}
    for name, tab in tabs.items():  # a new session of each member: the page as stored
        _open_list(tab, lists_app, VOTE_LIST)
        tab.get_by_role("textbox", name="Your name").fill(name)
        tab.keyboard.press("Enter")
        _idle(tab)
        shown = {row["Title"]: row for row in _table(tab)["rows"]}
        for title in (first, second):
            assert (shown[title]["Votes"], set(shown[title]["Voted by"].split(", ")), shown[title]["My vote"]) == (
                "2",
                {"Ada", "Alan"},
                "true",
            ), f"{name} sees {shown[title]}"
        assert {row["Votes"] for title, row in shown.items() if title not in (first, second)} == {"0"}
        assert tab.dialogs == [] and tab.errors == []
        tab.context.close()


def test_a_list_deleted_in_the_browser_is_restored_with_its_papers_in_order(lists_app, browser):
    tab = _watched_tab(browser.new_context(viewport=LAPTOP))
    _open_list(tab, lists_app, DOOMED_LIST)
    planted = lists_app.titles[DOOMED_LIST]
    assert _titles(tab) == planted

    tab.get_by_text("Rename or delete this list").click()
    tab.get_by_text(f"Yes, delete this list and its {len(planted)} papers").click()
    _idle(tab)
    tab.get_by_role("button", name="Delete list").click()
    _idle(tab)
    with closing(reading_lists.connect(lists_app.db)) as db:
        assert DOOMED_LIST not in reading_lists.list_names(db)
    assert _shown_list(tab) != DOOMED_LIST
    deleted = tab.locator('[data-testid="stExpander"]', has_text="Deleted lists (1)")
    deleted.get_by_text("Deleted lists (1)").click()
    assert f"{DOOMED_LIST}, {len(planted)} papers" in deleted.inner_text()
    deleted.get_by_role("button", name="Restore").click()
    _idle(tab)

    assert _shown_list(tab) == DOOMED_LIST  # the restored list is the one shown
    assert _titles(tab) == planted
    assert tab.get_by_text("Deleted lists").count() == 0
    with closing(reading_lists.connect(lists_app.db)) as db:
        assert [entry.title for entry in reading_lists.entries(db, DOOMED_LIST)] == planted
    assert tab.dialogs == [] and tab.errors == []
    tab.context.close()


def test_a_move_typed_in_the_table_reaches_every_download(lists_app, browser, tmp_path):
    tab = _watched_tab(browser.new_context(viewport=LAPTOP, accept_downloads=True))
    _open_list(tab, lists_app, EXPORT_LIST)
    planted = lists_app.titles[EXPORT_LIST]
    tab.mouse.click(*_cell(tab, len(planted) - 1, "#"))  # the last paper, to the top
    tab.wait_for_timeout(300)
    tab.keyboard.type("1", delay=150)  # typed fast, the cell editor loses the first keys
    tab.keyboard.press("Enter")
    tab.wait_for_function(
        f"() => ({TABLE_JS})()?.rows[0]?.Title === {json.dumps(planted[-1])}"
    )  # redrawn from the store
    _idle(tab)
    moved = [planted[-1], *planted[:-1]]
    assert _titles(tab) == moved
    written = [same_text(title) for title in moved]  # as the exports write titles

    agenda, bib, csv_text = (
        _download(tab, f"Download {kind}", tmp_path) for kind in ("Markdown agenda", "BibTeX", "CSV")
    )
    rendered = markdown_html(agenda)
    assert rendered.count("<ol>") == 1  # one numbered list, every paper an item of it
    assert [html.unescape(title) for title in re.findall(r"<li><strong>(.*?)</strong>", rendered)] == written
    assert [latex_text(entry.fields["title"]) for entry in bibtex_entries(bib).values()] == written
    assert [unguarded(row["title"]) for row in csv_rows(csv_text)] == moved
    assert tab.dialogs == [] and tab.errors == []
    tab.context.close()


def test_your_name_is_remembered_across_a_reload_and_a_hostile_name_stays_text(lists_app, browser):
    """'Your name' was forgotten on reload, so a member typed it before every vote (issue 34)."""
    context = browser.new_context(viewport=LAPTOP)
    tab = _watched_tab(context)
    _open_list(tab, lists_app, VOTE_LIST)
    hostile = "Ada </script><img src=x onerror=alert(1)>"
    tab.get_by_role("textbox", name="Your name").fill(hostile)
    tab.keyboard.press("Enter")
    _idle(tab)
    tab.reload()
    _idle(tab)
    assert tab.get_by_role("textbox", name="Your name").input_value() == hostile
    # No script ran (no alert); a reload of a page's path makes Streamlit probe it (404s in the console).
    assert tab.dialogs == [] and [error for error in tab.errors if "404 (Not Found)" not in error] == []
    other = _watched_tab(browser.new_context(viewport=LAPTOP))  # another browser knows no name
    _open_list(other, lists_app, VOTE_LIST)
    assert other.get_by_role("textbox", name="Your name").input_value() == ""
    other.context.close()
    context.close()


def test_a_deep_link_as_a_servers_first_request_opens_its_page_cleanly(lists_app, cache_dir, browser, tmp_path):
    """A link to a list, opened first thing after the server starts, showed Streamlit's "Page not
    found" dialog over the right page (issue 34): a pages/ folder beside dashboard.py did it."""
    with running_app(cache_dir, tmp_path / "streamlit.log", lists_app.db, data=lists_app.data) as base:
        tab = _watched_tab(browser.new_context(viewport=LAPTOP))
        tab.goto(f"{base}/reading-lists?list={urllib.parse.quote_plus(EXPORT_LIST)}")
        tab.wait_for_function(f"() => {{ const t = ({TABLE_JS})(); return t !== null && t.rows.length > 0; }}")
        _idle(tab)
        assert tab.get_by_role("heading", name="Reading lists").count() == 1
        with closing(reading_lists.connect(lists_app.db)) as db:  # as stored now: other tests move its rows
            stored = [entry.title for entry in reading_lists.entries(db, EXPORT_LIST)]
        assert _titles(tab)[:3] == stored[:3]
        assert tab.get_by_text("Page not found").count() == 0
        assert tab.get_by_text("You have requested page").count() == 0
        tab.context.close()


def test_a_burst_of_edits_in_the_table_is_saved_whole(lists_app, browser):
    """Four presenters typed 0.3 s apart (type, Enter, next row): the last was silently lost (issue 34)."""
    tab = _watched_tab(browser.new_context(viewport=LAPTOP))
    _open_list(tab, lists_app, DOOMED_LIST)
    names = ["Ada", "Grace", "Alan", "Edsger"]
    cells = [_cell(tab, row, "Presenter") for row in range(len(names))]
    for name, cell in zip(names, cells):
        tab.mouse.click(*cell)
        tab.wait_for_timeout(300)  # typed at once, the cell's editor loses the first keys
        tab.keyboard.type(name, delay=100)  # as a person types
        tab.keyboard.press("Enter")
    _idle(tab)
    with closing(reading_lists.connect(lists_app.db)) as db:
        stored = [entry.presenter for entry in reading_lists.entries(db, DOOMED_LIST)][: len(names)]
    assert stored == names
    tab.reload()
    _idle(tab)
    tab.wait_for_function(f"() => ({TABLE_JS})()?.rows?.length > 0")
    assert [row["Presenter"] for row in _table(tab)["rows"][: len(names)]] == names
    tab.context.close()
