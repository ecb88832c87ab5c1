"""The Present page in headless Chromium: fast arrow presses all count, the map stays drawn while the
ring moves onto the presented paper, and the slide fits a 1280x720 window in readable type.

The seed's 19 papers (with abstracts) as a 12-paper list made by bench/present_step.py's make_list
(its longest title first). Screenshots at 1280x720 and 1600x1000 go to /tmp/papermap_present_*.png.
Runs with the other browser tests (marker `browser`); skips without Playwright or /usr/bin/chromium.
"""

from __future__ import annotations

import pytest
from conftest import REPO, bench_module

from lib.map_folder import PAPERS_FILE, read_papers

_browser = bench_module("_browser")
present_step = bench_module("present_step")
try:
    from playwright.sync_api import sync_playwright
except ImportError:
    pytest.skip("playwright is not installed (pip install -r requirements-dev.txt)", allow_module_level=True)
if not _browser.CHROMIUM.exists():
    pytest.skip(f"{_browser.CHROMIUM} is missing (apt-get install chromium)", allow_module_level=True)

pytestmark = pytest.mark.browser
SEED = REPO / "data" / "icml2025_seed.txt"
PAGE_MS = 180_000  # the first visit waits for UMAP's first compilation
STEP_MS = 20_000  # a step (0.3 s on a loaded 2-core machine) that has not shown by then never will
HOLD_MS = 300

# The ring's centre and paper `id`'s point on the slide's map (its first chart), on the screen, and
# the map's top and bottom.
RING_JS = """(id) => {
    const map = document.querySelector('.st-key-presented-map .js-plotly-plot');
    const trace = map._fullData.find(t => t.customdata && Array.from(t.customdata).includes(id));
    const i = Array.from(trace.customdata).indexOf(id), box = map.getBoundingClientRect();
    const ring = document.querySelector('.slide-ring').getBoundingClientRect();
    return {map: [box.left + map._fullLayout.xaxis._offset + map._fullLayout.xaxis.l2p(trace.x[i]),
                  box.top + map._fullLayout.yaxis._offset + map._fullLayout.yaxis.l2p(trace.y[i])],
            ring: [(ring.left + ring.right) / 2, (ring.top + ring.bottom) / 2], top: box.top, bottom: box.bottom};
}"""
# Size and colour of the h1 and the authors' line, and the page's text colour.
TYPE_JS = """() => { const style = (s) => getComputedStyle(document.querySelector(s));
    const [title, authors, body] = [style('h1'), style('.st-key-slide-authors p'), style('.st-key-slide-text p')];
    return {title: parseFloat(title.fontSize), authors: parseFloat(authors.fontSize),
            authorsColour: authors.color, textColour: body.color}; }"""


@pytest.fixture(scope="module")
def present_app(tmp_path_factory):
    """The dashboard on the seed with one 12-paper list; yields (base URL, titles, paper ids)."""
    folder = tmp_path_factory.mktemp("present")
    papers = read_papers(_browser.ensure_map(SEED, folder / "cache") / PAPERS_FILE)
    titles = present_step.make_list(papers, folder / "lists.sqlite", SEED.name, size=12)
    ids = present_step.list_ids(folder / "lists.sqlite")
    env = {"PAPERMAP_CACHE": str(folder / "cache"), "PAPERMAP_DB": str(folder / "lists.sqlite")}
    with _browser.streamlit("dashboard.py", ["--data", str(SEED)], env, folder / "streamlit.log") as base:
        yield base, titles, ids


def open_slide(browser, base: str, viewport: dict, titles: list[str], ids: list[str]):
    tab = browser.new_page(viewport=viewport)
    tab.set_default_timeout(PAGE_MS)
    tab.errors = []
    tab.on("pageerror", lambda error: tab.errors.append(str(error)))
    tab.goto(base)  # the app's first run registers its pages; a deep link before it finds none
    tab.wait_for_selector('[data-testid="stSidebarNav"]')
    tab.goto(f"{base}/presentation?list={present_step.LIST_NAME.replace(' ', '+')}&step=1")
    tab.evaluate(present_step.STEP_JS, [titles[0], ids[0], HOLD_MS, PAGE_MS])
    return tab


def test_fast_presses_all_count_and_the_map_stays_drawn_as_the_ring_moves(present_app):
    base, titles, ids = present_app
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(_browser.CHROMIUM), headless=True, args=_browser.CHROMIUM_ARGS
        )
        tab = open_slide(browser, base, {"width": 1280, "height": 720}, titles, ids)
        tab.evaluate("() => { document.querySelector('.st-key-presented-map .js-plotly-plot').__first = true; }")
        for _ in range(5):
            tab.keyboard.press("ArrowRight")  # no wait between: the old page moved one step for five
        tab.evaluate(present_step.STEP_JS, [titles[5], ids[5], HOLD_MS, STEP_MS])
        for key in ("ArrowLeft", "PageUp", "PageDown"):
            tab.keyboard.press(key)
        tab.evaluate(present_step.STEP_JS, [titles[4], ids[4], HOLD_MS, STEP_MS])
        assert "step=5" in tab.url
        assert tab.evaluate("() => !!document.querySelector('.st-key-presented-map .js-plotly-plot').__first")
        ring = tab.evaluate(RING_JS, ids[4])
        assert ring["map"] == pytest.approx(ring["ring"], abs=1)  # the ring sits on the paper's own point
        assert tab.errors == []
        browser.close()


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 720}, {"width": 1600, "height": 1000}])
def test_the_slide_fits_the_window_in_type_a_room_can_read(present_app, viewport):
    base, titles, ids = present_app  # the longest title first
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(_browser.CHROMIUM), headless=True, args=_browser.CHROMIUM_ARGS
        )
        tab = open_slide(browser, base, viewport, titles, ids)
        ring = tab.evaluate(RING_JS, ids[0])
        assert ring["top"] < viewport["height"] / 2 and ring["bottom"] <= viewport["height"]  # above the fold
        assert ring["map"] == pytest.approx(ring["ring"], abs=1)
        kind = tab.evaluate(TYPE_JS)
        assert kind["title"] >= 32 and kind["authors"] >= 21  # the old page: 18 px authors
        assert kind["authorsColour"] == kind["textColour"]  # not the caption's light grey
        tab.screenshot(path=f"/tmp/papermap_present_{viewport['width']}x{viewport['height']}.png")
        browser.close()
