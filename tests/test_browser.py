"""End to end: the running dashboard in headless Chromium, driven by Playwright.

Starts `streamlit run dashboard.py` on the shipped seed (19 ICML 2025 papers) with its cache in a
temporary folder, opens it in Debian's Chromium (`apt-get install chromium`, see .ci/run; the
browser Playwright would download cannot be fetched here) and checks what a person sees: the
map's points, the subheader's counts, a filter taken from the URL, the topics page, and a click on
the subfields page's cross-table opening the filtered map, with no Streamlit exception and no
browser console error; and a list full of payloads (script, HTML, Markdown, LaTeX, BibTeX,
formulas, templates) shown on every page and in every download as inert text. Screenshots go to
pytest's tmp folder and to /tmp/papermap_<page>.png.

The whole module skips when Playwright or /usr/bin/chromium is missing.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

import icalendar
import pandas as pd
import pytest
from conference_server import conference_server
from conftest import bench_module, planted_records
from export_readers import (
    FORMULA_STARTS,
    bibtex_entries,
    csv_rows,
    html_elements,
    latex_text,
    markdown_html,
    same_text,
    unguarded,
)

from lib.store.sources import fetch_conference

_browser = bench_module("_browser")
CHROMIUM, CHROMIUM_ARGS, POINT_JS = _browser.CHROMIUM, _browser.CHROMIUM_ARGS, _browser.POINT_JS

pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -r requirements-dev.txt)")
if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium chromium-driver)", allow_module_level=True)

pytestmark = pytest.mark.browser
REPO = Path(__file__).resolve().parents[1]
SEED = REPO / "data" / "icml2025_seed.txt"
SEED_PAPERS = 19

STARTUP_SECONDS = 180  # the first build JIT-compiles UMAP; later starts read the cache
RENDER_MS = 180_000  # the first page load waits for that build
PROJECTOR = {"width": 1920, "height": 1080}

# Papers plotted by the first Plotly chart: the sum over its paper traces of x's length. `_fullData` is
# what plotly.js drew (binary-encoded arrays from plotly.py decoded); `data` is the fallback.
POINTS_JS = """() => {
    const gd = document.querySelector('.js-plotly-plot');
    if (!gd) return null;
    const traces = gd._fullData || gd.data;
    if (!traces) return null;
    // Papers in view carry their ids in customdata; the grey filtered-out backdrop does not.
    return traces.reduce((n, t) => n + (t.visible === false || !t.x || !t.customdata ? 0 : t.x.length), 0);
}"""


def _is_local(url: str) -> bool:
    parsed = urllib.parse.urlparse(url)
    return parsed.scheme in ("data", "blob", "about") or parsed.hostname in ("127.0.0.1", "localhost")


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory) -> Path:
    """The one cache the app and the tests share, so the repo's data/cache is never written."""
    return tmp_path_factory.mktemp("papermap_cache")


@pytest.fixture(scope="module")
def seed_map(cache_dir):
    """The seed's built map, as the app builds it (same input, taxonomy and cache)."""
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    from lib.builder.pipeline import build

    return build(SEED, cache_dir=cache_dir).papers


def running_app(cache_dir: Path, log_path: Path, db_path: Path, data: Path = SEED):
    """`streamlit run dashboard.py -- --data <data>` on a free local port, a context manager yielding its base URL."""
    env = {"PAPERMAP_CACHE": str(cache_dir), "PAPERMAP_DB": str(db_path)}
    return _browser.streamlit("dashboard.py", ["--data", str(data)], env, log_path, startup_seconds=STARTUP_SECONDS)


@pytest.fixture(scope="module")
def app_url(cache_dir, tmp_path_factory):
    """Base URL of the dashboard on the seed, with its own cache and reading-lists database."""
    folder = tmp_path_factory.mktemp("streamlit")
    with running_app(cache_dir, folder / "streamlit.log", folder / "lists.sqlite") as base:
        yield base


@pytest.fixture
def page(browser):
    """A fresh projector-sized tab.

    `page.errors` collects console errors and uncaught exceptions; `page.outside` every request
    to a host other than the app's.
    """
    context = browser.new_context(viewport=PROJECTOR)
    tab = context.new_page()
    tab.set_default_timeout(RENDER_MS)
    errors: list[str] = []

    def on_console(message) -> None:
        if message.type == "error":
            errors.append(f"console.error: {message.text} ({message.location.get('url', '')})")

    tab.on("console", on_console)
    tab.on("pageerror", lambda error: errors.append(f"pageerror: {error}"))
    tab.errors = errors
    outside: list[str] = []
    tab.on("request", lambda request: outside.append(request.url) if not _is_local(request.url) else None)
    tab.outside = outside
    yield tab
    context.close()


# Resolves once Streamlit has been idle for `hold` ms: no script run (the app's own state: 1.67's
# status widget shows only after 500 ms of a run, and never says "Running"), connected, and no
# element still loading its code or stale.
IDLE_JS = """async ([hold, timeout]) => {
    const idle = () => { const app = document.querySelector('[data-testid="stApp"]');
                         return !!app && app.dataset.testScriptState === 'notRunning'
                             && app.dataset.testConnectionState === 'CONNECTED'
                             && !document.querySelector('[data-testid="stSkeleton"], [data-stale="true"]'); };
    const start = performance.now();
    return await new Promise((resolve, reject) => {
        let since = null;
        const tick = () => {
            const now = performance.now();
            if (idle()) { if (since === null) since = now; if (now - since >= hold) return resolve(true); }
            else since = null;
            if (now - start > timeout) return reject(new Error('Streamlit never idle'));
            requestAnimationFrame(tick);
        };
        tick();
    });
}"""
IDLE_HOLD_MS = 500


def _wait_until_idle(page) -> None:
    """Wait for the script run to finish and the page to have settled (IDLE_JS)."""
    page.wait_for_selector('[data-testid="stApp"]')
    page.evaluate(IDLE_JS, [IDLE_HOLD_MS, RENDER_MS])


def _map_rendered(page) -> tuple[int, int, int]:
    """Wait for the map and return (shown, total, plotted points) once they have settled."""
    page.wait_for_selector(".js-plotly-plot", state="visible")
    page.wait_for_function(f"() => ({POINTS_JS})() > 0")
    _wait_until_idle(page)
    heading = page.locator('[data-testid="stHeading"]', has_text="Topic map").first
    text = heading.inner_text()
    match = re.search(r"(\d[\d,]*) of (\d[\d,]*) papers", text)
    assert match, f"subheader is {text!r}"
    shown, total = (int(group.replace(",", "")) for group in match.groups())
    return shown, total, page.evaluate(POINTS_JS)


def _assert_clean(page) -> None:
    exceptions = page.locator('[data-testid="stException"]')
    assert exceptions.count() == 0, f"Streamlit exception on the page: {exceptions.first.inner_text()}"
    assert page.locator('[data-testid="stAlertContentError"]').count() == 0, "st.error shown on the page"
    assert page.errors == [], "browser errors:\n" + "\n".join(page.errors)


def _screenshot(page, tmp_path: Path, name: str) -> Path:
    """Full-page PNG in pytest's tmp folder and a copy in /tmp for people to look at."""
    # Streamlit scrolls inside its main container, so a full-page shot alone stops at the viewport:
    # grow the viewport to the content's height first.
    height = page.evaluate(
        "() => Math.max(document.body.scrollHeight,"
        ' ...Array.from(document.querySelectorAll(\'[data-testid="stMain"], section.main, [data-testid="stAppViewContainer"]\'))'
        "  .map(e => e.scrollHeight))"
    )
    page.set_viewport_size({"width": PROJECTOR["width"], "height": max(PROJECTOR["height"], min(int(height), 6000))})
    page.wait_for_timeout(800)  # let Plotly re-layout to the new size
    path = tmp_path / f"papermap_{name}.png"
    page.screenshot(path=str(path), full_page=True)
    shutil.copyfile(path, Path("/tmp") / path.name)
    page.set_viewport_size(PROJECTOR)
    return path


def _open_table(page) -> int:
    """Open the table of the papers shown under the map, as a reader does; its number of rows once filled."""
    page.get_by_text("The papers shown, as a table").click()
    grid = '[data-testid="stDataFrame"] [role="grid"]'
    page.wait_for_function(f"() => Number(document.querySelector('{grid}')?.getAttribute('aria-rowcount')) > 1")
    _wait_until_idle(page)
    return int(page.locator(grid).first.get_attribute("aria-rowcount")) - 1  # less the header


def test_map_page_renders_every_seed_paper(app_url, page, tmp_path):
    page.goto(app_url)
    shown, total, points = _map_rendered(page)

    assert (shown, total) == (SEED_PAPERS, SEED_PAPERS)
    assert points == SEED_PAPERS
    sidebar = page.locator('[data-testid="stSidebar"]')
    assert f"{SEED_PAPERS} papers" in sidebar.inner_text()
    assert page.locator('[data-testid="stDataFrame"]').count() == 1  # closed: an empty table, unseen
    assert page.locator('[data-testid="stDataFrame"]').first.is_hidden()
    assert _open_table(page) == SEED_PAPERS
    _assert_clean(page)
    path = _screenshot(page, tmp_path, "map")
    assert path.stat().st_size > 10_000


def test_subfield_from_url_filters_the_map(app_url, page, seed_map):
    counts = seed_map["subfield"].value_counts()
    # A subfield that is a strict subset, preferring a name with a comma, then spaces (the URL must
    # be encoded and the multiselect must not split the value), then the largest.
    candidates = [name for name, n in counts.items() if n < SEED_PAPERS]
    name = min(candidates, key=lambda s: ("," not in s, " " not in s, -counts[s], s))
    expected = int(counts[name])

    page.goto(f"{app_url}/?subfield={urllib.parse.quote(name)}")
    shown, total, points = _map_rendered(page)

    assert total == SEED_PAPERS
    # Streamlit drops a bound query value that matches no option's *displayed* label and clears it
    # from the URL, so an ignored filter shows here as the whole map and a bare URL.
    assert shown < SEED_PAPERS, f"?subfield={name!r} was ignored: all {shown} papers shown, URL now {page.url}"
    assert shown == expected, f"?subfield={name!r} shows {shown} papers, the map has {expected}"
    assert points == shown
    subfield_filter = page.locator('[data-testid="stSidebar"] [data-testid="stMultiSelect"]', has_text="Subfield")
    assert name in subfield_filter.inner_text()
    _assert_clean(page)


def _open_page(page, app_url: str, title: str, url_path: str) -> None:
    """Open a page from the sidebar's navigation, as a reader does (a deep link makes Streamlit probe
    the path for its health endpoint, which logs 404s to the console)."""
    page.goto(app_url)
    _map_rendered(page)
    page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=title, exact=True).click()
    page.wait_for_url(re.compile(rf"/{url_path}"))


def test_topics_page_renders_sizes_and_a_topic_in_detail(app_url, page, seed_map, tmp_path):
    _open_page(page, app_url, "Topics", "topic-breakdown")
    page.get_by_text("Why this label.").first.wait_for()
    _wait_until_idle(page)
    assert page.locator(".js-plotly-plot").count() == 1  # topic sizes
    assert page.get_by_text("Show on map").count() == 1
    _assert_clean(page)
    _screenshot(page, tmp_path, "topics")


# Page position of the clickable layer's fullest cell in the cross-table heatmap (the second chart).
FULLEST_CELL_JS = """() => {
    const gd = document.querySelectorAll('.js-plotly-plot')[1];
    const cells = gd._fullData.find(t => t.type === 'scatter');
    let best = 0;
    cells.customdata.forEach((c, i) => { if (c[2] > cells.customdata[best][2]) best = i; });
    const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis, box = gd.getBoundingClientRect();
    return {x: box.left + xa._offset + xa.d2p(cells.x[best]), y: box.top + ya._offset + ya.d2p(cells.y[best]),
            row: cells.customdata[best][0], column: cells.customdata[best][1], count: cells.customdata[best][2]};
}"""


def test_clicking_a_cross_table_cell_opens_the_map_filtered_to_it(app_url, page, tmp_path):
    _open_page(page, app_url, "Subfields", "subfield-breakdown")
    page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot').length >= 2")
    _wait_until_idle(page)
    _assert_clean(page)
    _screenshot(page, tmp_path, "subfields")
    cell = page.evaluate(FULLEST_CELL_JS)
    page.mouse.move(cell["x"], cell["y"])
    page.wait_for_timeout(300)
    page.mouse.click(cell["x"], cell["y"])
    page.wait_for_url(
        lambda url: "subfield-breakdown" not in url and "topic=" in url, timeout=30_000
    )  # the map is the root page
    shown, total, points = _map_rendered(page)
    assert (shown, points) == (cell["count"], cell["count"]) and total == SEED_PAPERS
    query = urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)
    assert query["subfield"] == [cell["row"]] and query["topic"] == [cell["column"]]
    _assert_clean(page)


def _open_first_paper(page, base: str) -> str:
    """Open the map at `base`, click its first paper's point, wait for the card; the paper's id."""
    page.goto(base)
    _map_rendered(page)
    x, y, paper_id = page.evaluate(POINT_JS, None)
    page.mouse.click(x, y)
    page.wait_for_url(re.compile(rf"paper={paper_id}"))
    _wait_until_idle(page)
    return paper_id


def test_clicking_a_point_opens_its_paper_and_a_box_lists_the_papers_inside(app_url, page, seed_map):
    paper_id = _open_first_paper(page, app_url)
    title = seed_map.set_index("paper_id").loc[paper_id, "title"]
    assert page.get_by_text(title[:40]).count() >= 1  # its card, under the map
    # A box over the whole plot, drawn with the mouse as a reader would after picking "Box select".
    page.locator('.modebar-btn[data-val="select"]').first.click()
    left, top, width, height = page.evaluate(
        "() => { const r = document.querySelector('.js-plotly-plot .nsewdrag')"
        ".getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; }"
    )
    page.mouse.move(left + 3, top + 3)
    page.mouse.down()
    page.mouse.move(left + width / 2, top + height / 2, steps=5)
    page.mouse.move(left + width - 3, top + height - 3, steps=5)
    page.mouse.up()
    page.get_by_text(f"{SEED_PAPERS} selected papers").wait_for()
    _wait_until_idle(page)
    rows = page.locator('[data-testid="stDataFrame"] [role="grid"]').first.get_attribute("aria-rowcount")
    assert int(rows) == SEED_PAPERS + 1  # the header, then one row per selected paper
    assert page.get_by_text("Subfields:").count() == 1
    _assert_clean(page)


def test_page_fetches_nothing_from_outside(app_url, page):
    """PaperMap runs offline: opening the map asks nothing of any host but the app."""
    page.goto(app_url)
    _map_rendered(page)
    page.wait_for_timeout(1000)
    assert page.outside == []


def test_a_reading_list_made_on_the_map_survives_a_server_restart(cache_dir, browser, seed_map, tmp_path):
    db_path = tmp_path / "lists.sqlite"
    with running_app(cache_dir, tmp_path / "first.log", db_path) as base:
        tab = browser.new_page(viewport=PROJECTOR)
        tab.set_default_timeout(RENDER_MS)
        paper_id = _open_first_paper(tab, base)
        tab.get_by_label("New list's name").first.fill("Restart club")
        tab.keyboard.press("Tab")
        _wait_until_idle(tab)
        tab.get_by_role("button", name="Add 1 paper").first.click()
        tab.get_by_text("Open Restart club").wait_for()
        tab.close()
    with running_app(cache_dir, tmp_path / "second.log", db_path) as base:
        tab = browser.new_page(viewport=PROJECTOR)
        tab.set_default_timeout(RENDER_MS)
        tab.goto(base)
        _map_rendered(tab)
        tab.locator('[data-testid="stSidebarNav"]').get_by_role("link", name="Reading lists").click()
        tab.wait_for_url(re.compile(r"/reading-lists"))
        _wait_until_idle(tab)
        title = seed_map.set_index("paper_id").loc[paper_id, "title"]
        assert "list=Restart+club" in tab.url  # the only list, chosen
        # In the list's table: a canvas, whose cells' text is in its accessibility table.
        tab.locator('td[role="gridcell"]', has_text=title[:40]).first.wait_for(state="attached")
        tab.close()


def test_a_list_of_over_1000_papers_opened_cold_renders_its_map(browser, tmp_path):
    # The dashboard builds it itself, from an empty cache, with the keywords/subfields worker running
    # beside it: the build that once stayed at step 5 for as long as one waited.
    from lib.builder.pipeline import SIDE_STAGES_FROM

    records = planted_records(per_topic=SIDE_STAGES_FROM // 3 + 1)
    data = tmp_path / "large2025.json"
    data.write_text(json.dumps(records), encoding="utf-8")
    log = tmp_path / "streamlit.log"
    with running_app(tmp_path / "empty_cache", log, tmp_path / "lists.sqlite", data=data) as base:
        tab = browser.new_page(viewport=PROJECTOR)
        tab.set_default_timeout(RENDER_MS)
        tab.goto(base)
        shown, total, points = _map_rendered(tab)
        tab.close()
    assert (shown, total, points) == (len(records),) * 3
    assert "ScriptRunContext" not in log.read_text(errors="replace"), "the app ran outside Streamlit (in a worker?)"


# Text that would run script, or become markup, if any page, hover or export treated data as HTML,
# Markdown, LaTeX, BibTeX, a template or a spreadsheet formula. Script payloads call alert (a dialog)
# or set window.__pwned (no dialog), so both kinds of execution show.
PAYLOADS = [
    "<img src=x onerror=alert(1)>",
    "<script>alert(2)</script>",
    "**bold** [click me](javascript:alert(3))",
    "$x$ :red[red] `code` <b>tag</b>",
    '<svg onload="window.__pwned=5">',
    "</textarea></script><script>window.__pwned=6</script>",
    r"$\href{javascript:alert(7)}{x}$",
    "[x](javascript:alert(8))",
    '=HYPERLINK("http://x.invalid","y")',
    "@SUM(1)",
    "-2+3 +cmd",
    '} @misc(evil, title = "injected") @misc{evil2,',
    r"\input{/etc/passwd} \write18{id} % \end{document}",
    "{{7*7}} ${7*7} #{7*7}",
]
# Links a data file may hold: none may become a link anywhere (only plain http(s) links are).
HOSTILE_SITES = [
    "javascript:alert(4)",
    " JavaScript:alert(4)",
    "data:text/html,<script>alert(4)</script>",
    "vbscript:msgbox(4)",
]
HOSTILE_LIST_NAME = "<img src=x onerror=alert(9)> =club {{7*7}}"  # list names are text people type
PAGES = [
    "Topics",
    "Subfields",
    "Paper",
    "Papers for me",
    "Reading lists",
    "Data sets",
    "Present",
]  # Present hides the sidebar: last
# Elements or effects a payload would create if it were taken as HTML or Markdown: 0 on a safe page.
INJECTED_JS = """() => document.querySelectorAll(
    'img[src="x"], b, svg[onload], [onerror], a[href^="javascript" i], a[href^="data" i], a[href^="vbscript" i]'
).length + Array.from(document.scripts).filter(s => /^(alert|window[.]__pwned)/.test(s.text.trim())).length
  + (window.__pwned === undefined ? 0 : 1000)"""


@pytest.fixture(scope="module")
def hostile_list(tmp_path_factory) -> Path:
    """The planted list with payloads in titles, authors, keywords, venues, statuses, areas and links."""
    from conftest import planted_records

    records = planted_records()
    for i, record in enumerate(records):
        payload = PAYLOADS[i % len(PAYLOADS)]
        record.update(
            title=f"{payload} {record['title']}",
            author=f"{payload}, Ada Lovelace",
            keywords=f"{payload};privacy",
            venue=payload,
            status=["Poster", "<b>Oral</b>"][i % 2],
            primary_area=f"{record['primary_area']} {payload}",
            site=HOSTILE_SITES[i % len(HOSTILE_SITES)],
        )
    path = tmp_path_factory.mktemp("hostile") / "hostile2025.json"
    path.write_text(json.dumps(records))
    return path


@dataclass(frozen=True)
class HostileApp:
    url: str  # the dashboard on `hostile_list`
    papers: pd.DataFrame  # its map, as built
    entries: list  # its one reading list, `HOSTILE_LIST_NAME`: every paper, with payloads as presenters and notes


@pytest.fixture(scope="module")
def hostile_app(cache_dir, hostile_list, tmp_path_factory) -> HostileApp:
    from lib.builder.pipeline import build
    from lib.store import reading_lists

    papers = build(hostile_list, cache_dir=cache_dir).papers  # as the app builds it; the app then reads the cache
    folder = tmp_path_factory.mktemp("hostile_app")
    db = reading_lists.connect(folder / "lists.sqlite")
    try:
        reading_lists.create_list(db, HOSTILE_LIST_NAME)
        reading_lists.add_papers(db, HOSTILE_LIST_NAME, papers, hostile_list.name)
        for entry, payload in zip(reading_lists.entries(db, HOSTILE_LIST_NAME), reversed(PAYLOADS * 3)):
            reading_lists.update_entry(db, HOSTILE_LIST_NAME, entry.entry_id, presenter=payload, note=payload)
        entries = reading_lists.entries(db, HOSTILE_LIST_NAME)
    finally:
        db.close()
    with running_app(cache_dir, folder / "hostile.log", folder / "lists.sqlite", data=hostile_list) as base:
        yield HostileApp(base, papers, entries)


def _watched_tab(context):
    """A tab of `context` that records dialogs (dismissed) and script errors in `tab.dialogs` and `tab.errors`."""
    tab = context.new_page()
    tab.set_default_timeout(RENDER_MS)
    tab.dialogs, tab.errors = [], []
    tab.on("dialog", lambda dialog: (tab.dialogs.append(dialog.message), dialog.dismiss()))
    tab.on("pageerror", lambda error: tab.errors.append(str(error)))
    tab.on("console", lambda message: tab.errors.append(message.text) if message.type == "error" else None)
    return tab


def test_every_page_renders_hostile_text_as_text_with_no_error(hostile_app, browser):
    context = browser.new_context(viewport=PROJECTOR)
    tab = _watched_tab(context)
    tab.goto(f"{hostile_app.url}/?paper=privacy-0&color=status&q=privacy")
    _map_rendered(tab)
    x, y, _ = tab.evaluate(POINT_JS, None)
    tab.mouse.move(x, y)  # the hover label
    tab.wait_for_selector(".hoverlayer .hovertext")
    hover = tab.locator(".hoverlayer").text_content()
    assert any(payload[:10] in hover for payload in PAYLOADS), hover  # shown as the literal text it is
    tab.get_by_role("button", name="Add 1 paper").first.click()  # to the seeded list, which holds it already
    tab.get_by_text(f"Open {HOSTILE_LIST_NAME}").wait_for()  # the list's name, as the text it is
    visited = {"Map": tab.evaluate(INJECTED_JS)}
    for title in PAGES:
        tab.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=title, exact=True).click()
        tab.wait_for_timeout(500)
        _wait_until_idle(tab)
        assert tab.locator('[data-testid="stException"]').count() == 0, (
            f"{title}: {tab.locator('[data-testid=stException]').first.inner_text()}"
        )
        visited[title] = tab.evaluate(INJECTED_JS)
    context.close()
    assert tab.dialogs == [] and tab.errors == []
    assert visited == dict.fromkeys(["Map", *PAGES], 0)  # every page visited, no element made from data


# Each paper's hover label, drawn by plotly.js as a mouse resting on its point draws it: {paper id: text}.
# plotly.js draws at most one hover per 50 ms (HOVERMINTIME), hence the pause before each read.
HOVER_TEXTS_JS = """async () => {
    const gd = document.querySelector('.js-plotly-plot');
    const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis, texts = {};
    for (const trace of gd._fullData.filter(t => t.customdata)) {
        for (let i = 0; i < trace.customdata.length; i++) {
            Plotly.Fx.hover(gd, {xpx: xa.l2p(trace.x[i]), ypx: ya.l2p(trace.y[i])}, 'xy');
            await new Promise(resolve => setTimeout(resolve, 80));
            texts[trace.customdata[i]] = gd.querySelector('.hoverlayer').textContent;
        }
    }
    return texts;
}"""


def _download(tab, button: str, folder: Path) -> str:
    """Click the download button named `button` and return the file it delivers, as text."""
    with tab.expect_download() as download:
        tab.get_by_role("button", name=button).click()
    path = folder / download.value.suggested_filename
    download.value.save_as(path)
    return path.read_text(encoding="utf-8")


def _squeezed(text: str) -> str:
    return "".join(text.split())  # hover labels wrap long lines; the words stay in order


def _missing_payloads(texts) -> list[str]:
    """The payloads that no text in `texts` shows whole (ignoring whitespace)."""
    shown = [_squeezed(text) for text in texts]
    return [payload for payload in PAYLOADS if not any(_squeezed(payload) in text for text in shown)]


def test_every_download_keeps_hostile_text_inert(hostile_app, browser, tmp_path):
    """Each file the dashboard offers, opened the way people open it: the HTML map in the browser,
    the Markdown agenda rendered, the BibTeX parsed as BibTeX, the CSVs read as a spreadsheet imports them."""
    context = browser.new_context(viewport=PROJECTOR, accept_downloads=True)
    tab = _watched_tab(context)
    tab.goto(f"{hostile_app.url}/?color=primary_area")  # a legend of payloads too
    _map_rendered(tab)
    _open_table(tab)
    tab.locator('[data-testid="stDataFrame"]').first.hover()
    tab.get_by_role("button", name="Search").first.wait_for()  # the table's toolbar is shown...
    assert tab.get_by_role("button", name="Download as CSV").count() == 0  # ...without Streamlit's unguarded CSV
    papers = len(hostile_app.papers)
    map_page = _download(tab, "Download this view as an interactive HTML file", tmp_path)
    map_csv = _download(tab, f"Download all {papers} as CSV", tmp_path)
    tab.locator('[data-testid="stSidebarNav"]').get_by_role("link", name="Reading lists").click()
    tab.get_by_text(f"{len(hostile_app.entries)} papers, in reading order").wait_for()  # the seeded list, the only one
    agenda, bib, list_csv = (
        _download(tab, f"Download {kind}", tmp_path) for kind in ("Markdown agenda", "BibTeX", "CSV")
    )
    assert tab.dialogs == [] and tab.errors == []

    # The HTML map, opened from disk: every point's hover drawn, nothing run, fetched or made from data.
    (tmp_path / "map.html").write_text(map_page, encoding="utf-8")
    viewer = _watched_tab(context)
    outside = []
    viewer.on(
        "request",
        lambda request: (
            outside.append(request.url) if not request.url.startswith(("file:", "data:", "blob:")) else None
        ),
    )
    viewer.goto((tmp_path / "map.html").as_uri())
    viewer.wait_for_function(f"() => ({POINTS_JS})() === {papers}")
    hovers = viewer.evaluate(HOVER_TEXTS_JS)
    x, y, _ = viewer.evaluate(POINT_JS, None)
    viewer.mouse.move(x, y)  # and one hover by the mouse
    viewer.wait_for_selector(".hoverlayer .hovertext")
    viewer.wait_for_timeout(500)
    assert viewer.evaluate(INJECTED_JS) == 0 and viewer.dialogs == [] and viewer.errors == [] and outside == []
    titles = hostile_app.papers.set_index("paper_id")["title"]
    assert sorted(hovers) == sorted(titles.index)  # every paper's hover drawn, each showing its title as text
    assert [(titles[i], text) for i, text in hovers.items() if _squeezed(titles[i]) not in _squeezed(text)] == []
    assert _missing_payloads(hovers.values()) == []
    context.close()

    # The table under the map as CSV: no formula, and read back it is the papers' text.
    rows = csv_rows(map_csv)
    assert not [cell for row in rows for cell in row.values() if cell.startswith(FORMULA_STARTS)]
    assert sorted(unguarded(row["title"]) for row in rows) == sorted(titles)
    assert _missing_payloads(unguarded(cell) for row in rows for cell in row.values()) == []

    # The Markdown agenda, rendered: only the agenda's own elements; the list's text shows as written.
    entries = hostile_app.entries
    tags, text = html_elements(markdown_html(agenda))
    assert {tag for tag, _ in tags} == {"h1", "ol", "li", "strong", "ul"}  # no link: every paper's link is hostile
    assert [tag for tag, _ in tags].count("strong") == len(entries)
    # One numbered list, each paper an item of it with its title in bold, in the list's order.
    assert [tag for tag, _ in tags].count("ol") == 1
    bold = re.findall(r"<li><strong>(.*?)</strong>", markdown_html(agenda), re.S)
    assert [html_elements(title)[1] for title in bold] == [same_text(entry.title) for entry in entries]
    assert text.startswith(f"Reading list: {HOSTILE_LIST_NAME}\n")
    for entry in entries:
        for value in (entry.title, ", ".join(entry.authors), entry.venue, entry.presenter, entry.note):
            assert same_text(value) in text
    assert _missing_payloads([text]) == []

    # BibTeX, parsed as BibTeX parses it: one entry per paper, each field printing its text.
    parsed = list(bibtex_entries(bib).values())
    assert [entry.type for entry in parsed] == ["inproceedings"] * len(entries)
    for written, entry in zip(parsed, entries):
        assert latex_text(written.fields["title"]) == same_text(entry.title)
        assert latex_text(written.fields["author"]) == " and ".join(same_text(a) for a in entry.authors)
        assert latex_text(written.fields["booktitle"]) == same_text(entry.venue)
        assert "url" not in written.fields  # no hostile link survives
    assert _missing_payloads(latex_text(value) for written in parsed for value in written.fields.values()) == []

    # The list as CSV: no formula, and read back it is the list's text.
    rows = csv_rows(list_csv)
    assert not [cell for row in rows for cell in row.values() if cell.startswith(FORMULA_STARTS)]
    assert [
        {column: unguarded(row[column]) for column in ("title", "authors", "presenter", "note", "venue", "url")}
        for row in rows
    ] == [
        {
            "title": e.title,
            "authors": "; ".join(e.authors),
            "presenter": e.presenter,
            "note": e.note,
            "venue": e.venue,
            "url": e.url,
        }
        for e in entries
    ]
    assert _missing_payloads(unguarded(cell) for row in rows for cell in row.values()) == []


@pytest.fixture(scope="module")
def conference_app(cache_dir, tmp_path_factory):
    """The dashboard on the fixture conference (tests/fixtures/icml2025: orals and their posters,
    an oral during a poster session, one session written in UTC), fetched from its local servers."""
    folder = tmp_path_factory.mktemp("conference")
    with conference_server() as server:
        fetched = fetch_conference("icml2025", folder / "data", addresses=server.addresses, timeout=5)
    with running_app(cache_dir, folder / "conference.log", folder / "lists.sqlite", data=fetched.path) as base:
        yield base


def test_a_plan_built_on_the_schedule_downloads_as_a_calendar(conference_app, browser, tmp_path):
    context = browser.new_context(viewport={"width": 1600, "height": 1000}, accept_downloads=True)
    tab = _watched_tab(context)
    tab.goto(conference_app)
    _map_rendered(tab)
    tab.locator('[data-testid="stSidebarNav"]').get_by_role("link", name="Schedule").click()
    tab.wait_for_url(re.compile(r"/conference-schedule"))
    tab.get_by_text("10:00–10:15 · Oral 1A Generative Models · West Ballroom A").wait_for()
    chooser = tab.locator('[data-testid="stMultiSelect"]', has_text="Papers to add to a plan")
    for words in ("Flow Matching", "Provable In-Context", "Amortized Variational"):
        chooser.locator("input").fill(words)
        tab.keyboard.press("Enter")
        _wait_until_idle(tab)
    name = tab.get_by_label("New list's name")
    name.fill("ICML week")
    name.press("Enter")
    _wait_until_idle(tab)
    tab.get_by_role("button", name="Add 3 papers").click()
    tab.get_by_text("Added 3 papers to ICML week.").wait_for()
    _wait_until_idle(tab)  # a tab clicked while the page still reruns is drawn again unselected (CI, a busy machine)
    tab.get_by_role("tab", name="My plan: ICML week").click()
    tab.get_by_text("3 presentations of this plan overlap").wait_for()
    _screenshot(tab, tmp_path, "schedule_plan")
    calendar = icalendar.Calendar.from_ical(_download(tab, "Download calendar (.ics)", tmp_path))
    events = sorted(calendar.walk("VEVENT"), key=lambda e: e.decoded("DTSTART"))
    assert [(str(e["SUMMARY"]).split(":")[0], e.decoded("DTSTART").isoformat()) for e in events] == [
        ("Oral", "2025-07-15T17:00:00+00:00"),  # 10:00 in Vancouver
        ("Poster E-1001", "2025-07-15T18:00:00+00:00"),
        ("Poster E-1102", "2025-07-15T18:00:00+00:00"),
        ("Poster E-1201", "2025-07-15T18:00:00+00:00"),
        ("Oral", "2025-07-15T18:30:00+00:00"),
    ]
    assert str(events[-1]["LOCATION"]) == "West Ballroom C" and "Mei Chen, Rahul Iyer" in str(events[-1]["DESCRIPTION"])
    agenda = _download(tab, "Download printable agenda", tmp_path)
    assert agenda.count("Overlaps:") == 3 and "<script" not in agenda
    # Wednesday's session, written in UTC by its source, shows at the conference's 11:00.
    tab.get_by_role("tab", name="Schedule").click()
    tab.get_by_text("Wed 16 Jul").click()
    tab.get_by_text("11:00–13:30 · Poster Session 3 East · East Exhibition Hall A-B").wait_for()
    _wait_until_idle(tab)
    _screenshot(tab, tmp_path, "schedule_wednesday")
    assert tab.locator('[data-testid="stException"]').count() == 0
    context.close()
    assert tab.dialogs == [] and tab.errors == []
