"""The dashboard in headless Chromium beside the floor app: first render, every map action, every page, payload.

    python bench/app.py [--runs 5] [--data LIST ...] [--cache DIR] [--json FILE]

For each paper list (default: ICML 2025's 3,340 titles and the 87,691-abstract scale corpus) the map is
built once with `python -m lib build` into the folder the dashboard reads (`lib.store.datasets.dashboard_map_dir`
under `--cache`, kept between runs: the large map takes minutes), then two servers start on 127.0.0.1:
PaperMap (`streamlit run dashboard.py -- --data LIST`, PAPERMAP_CACHE=--cache, a scratch PAPERMAP_DB)
and the floor (`bench/floor_app.py`: one Plotly WebGL scatter of the same points with titles on hover
and a subfield multiselect). After one untimed warm-up visit each (Streamlit's caches filled), each
run opens a fresh browser context and measures, the apps taking turns:

- first render: navigation start -> the chart holds every point it draws (every paper's, or of a map
  of more than `lib.views.map.detail.LARGE_MAP` papers PaperMap's sample) and Streamlit's status widget
  is idle (held for `HOLD_MS`, so a run that has not yet shown "Running" does not count as finished);
- filter change: choosing the largest subfield in the sidebar -> the chart holds that subfield's points, idle;
- box selection (PaperMap only, its own context): releasing a box drawn over the middle of the map ->
  the "N selected papers" heading with its table, idle;
- the other map actions and the pages (PaperMap only, a third context, in this order): choosing
  "Topic" in "Colour by" -> the legend titled Topic over every paper's point; "Fine topics" in
  "Labels" -> every label annotation of the fine level; a click on a point (the one farthest from
  any other and clear of the labels, at its screen position from the axes' l2p) -> that paper in the
  URL and its title in the card under the map; then each page from the sidebar's navigation, from
  the page before it (Topics, Subfields, Paper with the clicked paper open, Papers for me, Reading
  lists on an empty lists database, Data sets, back to the Map, and Present, last since it hides the
  sidebar) -> the page's last part shown (`PAGES`), idle. Each from the user's input event (the mouse
  press on the option, point or link) to the first `HOLD_MS` stretch of the settled result;
- payload: bytes the page received over Streamlit's websocket up to the first full render, and over HTTP
  (the static bundle, the same for both apps in a fresh context).

Times are medians of the runs. The goals (issue 17): first render within 1.5x the floor's; every map
action (filter, colour, labels, click, box) within `ACTION_GOAL_S` at the median and within 1.5x the
floor's rerun (its filter change, the one rerun the floor has); every page within `PAGE_GOAL_S`.
Browser: Debian's /usr/bin/chromium with the flags tests/test_browser.py uses.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from _browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    HOLD_MS,
    MARK_JS,
    REPO,
    VIEWPORT,
    WAIT_JS,
    ensure_map,
    held_js,
    streamlit,
)  # puts lib on the path

from lib.map_folder import PAPERS_FILE
from lib.views.map.detail import draw_ranks, drawn_rows, is_large

SHARED = REPO.parent / "shared" / "data"
DEFAULT_DATA = [SHARED / "icml2025_papers.json", SHARED / "scale_corpus.json"]
DEFAULT_CACHE = Path(tempfile.gettempdir()) / "papermap_bench_app"
GOAL = 1.5
ACTION_GOAL_S = 1.0
PAGE_GOAL_S = 2.0
TIMEOUT_MS = 600_000
ACTION_MS = 120_000  # a map action or a page that has not settled by then has failed
COLOUR, LABELS = ("Colour by", "Topic"), ("Labels", "Fine topics")
LABEL_LEVEL = "fine"  # the annotations' name at that label level (lib.views.map.figure.ZOOM_LEVELS)
# Each page as the sidebar names it, its URL path, and what shows once it is drawn: text of its
# last part (in a heading, markdown, an alert, a button or an expander's summary) and at least
# `plots` Plotly charts drawn. Reading lists and Present see an empty lists database. In this
# order, each from the one before (the map's card open on the Paper page); Present last, since it
# hides the sidebar.
PAGES = {
    "Topics": ("topic-breakdown", "Representative papers", 1),
    "Subfields": ("subfield-breakdown", "Subfield x topic", 2),
    "Paper": ("paper-details", "most similar papers", 0),
    "Papers for me": ("papers-for-me", "Paste or upload your papers, then press", 0),
    "Reading lists": ("reading-lists", "No reading lists yet. Create one above", 0),
    "Data sets": ("data-sets", "Open its map", 0),
    "Map": ("topic-map", None, 1),  # back: every paper's point (FIGURE_JS)
    "Present": ("presentation", "No reading lists yet: create one", 0),
}
MAP_ACTIONS = ("filter change", "colour change", "label change", "click -> card", "box selection -> table")


@dataclass
class Runs:
    """Measurements of one app on one list, one value per run."""

    render: list[float] = field(default_factory=list)
    filter: list[float] = field(default_factory=list)
    select: list[float] = field(default_factory=list)
    actions: dict[str, list[float]] = field(default_factory=dict)  # colour, labels, click, each page
    ws_bytes: list[int] = field(default_factory=list)
    http_bytes: list[int] = field(default_factory=list)


def _wait(page, want) -> float:
    return page.evaluate(WAIT_JS, [want, HOLD_MS, TIMEOUT_MS])


# The map page's figure settled: every paper's point drawn (its distinct ids: the open paper's ring
# repeats one), the legend
# titled `legend` and/or every label annotation of level `level` (when given), Streamlit idle.
FIGURE_JS = held_js(
    "want, ",
    """    const gd = () => document.querySelector('.st-key-map-frame .js-plotly-plot');
    const points = () => new Set((gd()._fullData || []).flatMap(t =>
        t.visible === false || !t.customdata || t.name === 'filtered out' ? [] : Array.from(t.customdata))).size;
    const legend = () => ((gd()._fullLayout.legend || {}).title || {}).text;
    const notes = () => (gd().layout.annotations || []);
    const ready = () => idle() && !!gd() && !!gd()._fullLayout && points() === want.total
        && (want.legend === null || (legend() || '').trim() === want.legend)
        && (want.level === null || (notes().length > 0 && notes().every(a => a.name === want.level)));""",
    "'timed out waiting for ' + JSON.stringify(want) + ', legend ' + (gd() && gd()._fullLayout && legend())",
)
# The clicked paper open: its id in the URL, its title (the start of it, squeezed) in the card's
# bold line, Streamlit idle.
CARD_JS = held_js(
    "id, title, ",
    """    const squeeze = (s) => s.replace(/\\s+/g, ' ').trim();
    const card = () => Array.from(document.querySelectorAll('[data-testid="stMarkdownContainer"] strong'))
        .some(b => squeeze(b.textContent).startsWith(title));
    const ready = () => idle() && new URL(location.href).searchParams.get('paper') === id && card();""",
    "'timed out waiting for the card of ' + id",
)
# A page drawn: its URL path, its last part's text, `plots` Plotly charts laid out, Streamlit idle.
PAGE_JS = held_js(
    "path, text, plots, ",
    """    const texts = '[data-testid="stMarkdownContainer"], [data-testid="stHeading"], [data-testid="stAlert"], button, summary';
    const shows = () => Array.from(document.querySelectorAll(texts)).some(e => e.textContent.includes(text));
    const drawn = () => Array.from(document.querySelectorAll('.js-plotly-plot')).filter(p => p._fullLayout).length;
    const ready = () => idle() && location.pathname.endsWith('/' + path) && shows() && drawn() >= plots;""",
    "'timed out waiting for ' + path + ' to show ' + JSON.stringify(text) + ', plots ' + drawn()",
)
# The point to click: of the map's paper points inside the plot area (clear of its edges, the mode
# bar and every label shown), the one farthest from any other point on the screen, so the click
# lands on it alone; [x, y, its paper id].
ISOLATED_POINT_JS = """() => {
    const gd = document.querySelector('.st-key-map-frame .js-plotly-plot');
    const area = gd.querySelector('.nsewdrag').getBoundingClientRect();
    const pad = 6, edge = 40;
    const boxes = [...gd.querySelectorAll('g.annotation, .modebar')].map(g => g.getBoundingClientRect())
        .filter(b => b.width > 0);
    const points = [];
    for (const t of gd._fullData) {
        if (!t.customdata || t.visible === false || t.name === 'filtered out') continue;
        for (let i = 0; i < t.x.length; i++) {
            if (t.x[i] === null) continue;
            points.push([area.left + gd._fullLayout.xaxis.l2p(t.x[i]), area.top + gd._fullLayout.yaxis.l2p(t.y[i]),
                         t.customdata[i]]);
        }
    }
    const clear = ([x, y]) => x > area.left + edge && x < area.right - edge && y > area.top + edge
        && y < area.bottom - edge
        && !boxes.some(b => x > b.left - pad && x < b.right + pad && y > b.top - pad && y < b.bottom + pad);
    let best = null, far = -1;
    for (const p of points) {
        if (!clear(p)) continue;
        let near = Infinity;
        for (const q of points) {
            if (q === p) continue;
            const d = (p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2;
            if (d < near) { near = d; if (near <= far) break; }
        }
        if (near > far) { far = near; best = p; }
    }
    return best;
}"""


def first_render(context, url: str, total: int) -> tuple[float, int, int, object]:
    """Open `url` in a new tab of `context`: (seconds to the full render, websocket bytes, HTTP bytes, the tab)."""
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    received = {"ws": 0, "http": 0}

    def on_socket(socket) -> None:
        socket.on("framereceived", lambda payload: received.__setitem__("ws", received["ws"] + len(payload)))

    page.on("websocket", on_socket)
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.on(
        "Network.loadingFinished",
        lambda event: received.__setitem__("http", received["http"] + int(event.get("encodedDataLength", 0))),
    )
    page.goto(url, wait_until="commit")
    seconds = _wait(page, total) / 1000  # performance.now() counts from navigation start
    page.wait_for_timeout(300)  # frames already on the wire reach the counters
    return seconds, received["ws"], received["http"], page


def filter_change(page, name: str, count: int, expected: int) -> float:
    """Choose subfield `name` in the sidebar's Subfield multiselect; seconds until `expected` points show."""
    widget = page.locator('[data-testid="stSidebar"] [data-testid="stMultiSelect"]', has_text="Subfield").first
    widget.locator("input").click()
    widget.locator("input").fill(name)
    option = page.get_by_role("option", name=f"{name} ({count})", exact=True)
    option.wait_for()
    page.evaluate(MARK_JS, "mousedown")
    option.click()
    end = _wait(page, expected)
    return (end - page.evaluate("() => window.__benchMark")) / 1000


def box_selection(page) -> float:
    """Draw a box over the middle ninth of the map; seconds from releasing it to the filled selection table."""
    page.locator('.modebar-btn[data-val="select"]').first.click()
    left, top, width, height = page.evaluate(
        "() => { const r = document.querySelector('.js-plotly-plot .nsewdrag').getBoundingClientRect();"
        " return [r.left, r.top, r.width, r.height]; }"
    )
    page.mouse.move(left + width / 3, top + height / 3)
    page.mouse.down()
    page.mouse.move(left + width / 2, top + height / 2, steps=5)
    page.mouse.move(left + 2 * width / 3, top + 2 * height / 3, steps=5)
    page.evaluate(MARK_JS, "mouseup")
    page.mouse.up()
    end = _wait(page, "selection")
    return (end - page.evaluate("() => window.__benchMark")) / 1000


def _since_mark(page, end: float) -> float:
    return (end - page.evaluate("() => window.__benchMark")) / 1000


def choose(page, label: str, option: str) -> None:
    """Open the map page's select box `label` and press `option` (the mark is the mouse press)."""
    page.locator('[data-testid="stSelectbox"]', has_text=label).first.click()
    item = page.get_by_role("option", name=option, exact=True)
    item.wait_for()
    page.evaluate(MARK_JS, "mousedown")
    item.click()


def colour_change(page, total: int) -> float:
    """Choose Topic in "Colour by"; seconds until the legend says so over every point."""
    choose(page, *COLOUR)
    end = page.evaluate(FIGURE_JS, [{"total": total, "legend": COLOUR[1], "level": None}, HOLD_MS, ACTION_MS])
    return _since_mark(page, end)


def label_change(page, total: int) -> float:
    """Choose Fine topics in "Labels"; seconds until every label on the map is a fine topic's."""
    choose(page, *LABELS)
    end = page.evaluate(FIGURE_JS, [{"total": total, "legend": None, "level": LABEL_LEVEL}, HOLD_MS, ACTION_MS])
    return _since_mark(page, end)


def click_to_card(page, titles: dict[str, str]) -> float:
    """Click the most isolated point of the map; seconds from the press to its card under the map."""
    x, y, paper_id = page.evaluate(ISOLATED_POINT_JS)
    page.mouse.move(x, y)  # as a reader's pointer arrives: the hover is drawn before the press
    page.wait_for_timeout(200)
    page.evaluate(MARK_JS, "mousedown")
    page.mouse.click(x, y)
    title = " ".join(titles[paper_id].split())[:40]
    return _since_mark(page, page.evaluate(CARD_JS, [paper_id, title, HOLD_MS, ACTION_MS]))


def open_page(page, name: str, total: int) -> float:
    """Press page `name` in the sidebar's navigation; seconds until it is drawn (`PAGES`; "Map": every point)."""
    link = page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=name, exact=True)
    page.evaluate(MARK_JS, "mousedown")
    link.click()
    path, text, plots = PAGES[name]
    if text is None:  # the map
        end = page.evaluate(FIGURE_JS, [{"total": total, "legend": None, "level": None}, HOLD_MS, ACTION_MS])
    else:
        end = page.evaluate(PAGE_JS, [path, text, plots, HOLD_MS, ACTION_MS])
    return _since_mark(page, end)


def actions(browser, url: str, runs: Runs, total: int, titles: dict[str, str]) -> None:
    """PaperMap's colour, label and click actions, then every page and back to the map, in one fresh context."""
    context = browser.new_context(viewport=VIEWPORT)
    try:
        page = first_render(context, url, total)[3]
        page.set_default_timeout(ACTION_MS)
        timed = {
            "colour change": lambda: colour_change(page, total),
            "label change": lambda: label_change(page, total),
            "click -> card": lambda: click_to_card(page, titles),
            **{f"page: {name}": (lambda name=name: open_page(page, name, total)) for name in PAGES},
        }
        for name, step in timed.items():
            runs.actions.setdefault(name, []).append(step())
    finally:
        context.close()


def measure(
    browser, url: str, runs: Runs, total: int, subfield: tuple[str, int, int], titles: dict[str, str] | None
) -> None:
    """One run of one app: first render and filter change in one fresh context; for PaperMap (`titles`
    given) a box selection in another and the other actions and pages in a third."""
    context = browser.new_context(viewport=VIEWPORT)
    try:
        seconds, ws, http, page = first_render(context, url, total)
        runs.render.append(seconds)
        runs.ws_bytes.append(ws)
        runs.http_bytes.append(http)
        runs.filter.append(filter_change(page, *subfield))
    finally:
        context.close()
    if titles is not None:
        context = browser.new_context(viewport=VIEWPORT)
        try:
            page = first_render(context, url, total)[3]
            runs.select.append(box_selection(page))
        finally:
            context.close()
        actions(browser, url, runs, total, titles)


def bench_list(browser, data: Path, cache: Path, n_runs: int, scratch: Path) -> tuple[int, Runs, Runs]:
    import pandas as pd

    folder = ensure_map(data, cache)
    papers = pd.read_parquet(folder / PAPERS_FILE, columns=["paper_id", "title", "subfield", "x", "y"])
    titles = dict(zip(papers["paper_id"], papers["title"]))
    counts = papers["subfield"].value_counts()
    name, count = str(counts.index[0]), int(counts.iloc[0])  # the largest subfield: the heaviest filtered map
    # The points each app draws, whole and filtered: the floor every paper, PaperMap a large map's sample.
    everything, chosen = np.ones(len(papers), dtype=bool), (papers["subfield"] == name).to_numpy()
    totals = {"papermap": (drawn_total(papers, everything), drawn_total(papers, chosen)), "floor": (len(papers), count)}
    env = {"PAPERMAP_CACHE": str(cache), "PAPERMAP_DB": str(scratch / "lists.sqlite")}
    apps = {"papermap": Runs(), "floor": Runs()}
    with ExitStack() as stack:
        urls = {
            "papermap": stack.enter_context(
                streamlit("dashboard.py", ["--data", str(data)], env, scratch / "papermap.log")
            ),
            "floor": stack.enter_context(
                streamlit("bench/floor_app.py", ["--papers", str(folder / PAPERS_FILE)], {}, scratch / "floor.log")
            ),
        }
        for app, url in urls.items():  # warm-up: Streamlit's caches filled, nothing recorded
            total, filtered = totals[app]
            measure(browser, url, Runs(), total, (name, count, filtered), titles if app == "papermap" else None)
        for run in range(n_runs):
            for app, url in urls.items():
                total, filtered = totals[app]
                measure(browser, url, apps[app], total, (name, count, filtered), titles if app == "papermap" else None)
            print(
                f"  {data.name}: run {run + 1} of {n_runs}: "
                + "; ".join(f"{n} {r.render[-1]:.2f} s / {r.filter[-1]:.2f} s" for n, r in apps.items()),
                file=sys.stderr,
                flush=True,
            )
    return len(papers), apps["papermap"], apps["floor"]


def drawn_total(papers, shown) -> int:
    """How many of the `shown` papers (a mask) the map page draws at its first view: all of them, or
    of a large map its sample (`lib.views.map.detail`)."""
    if not is_large(papers):
        return int(shown.sum())
    drawn = drawn_rows(papers, shown, draw_ranks(len(papers)), None, np.zeros(len(papers), dtype=bool))
    return int(shown[drawn.rows].sum())


def _mb(value: float) -> str:
    return f"{value / 1e6:.2f} MB"


def _row(total: int, label: str, mine: list[float], floor: float | None, goal: str, met: bool | None) -> str:
    a = statistics.median(mine)
    theirs = f"{floor:.2f}" if floor else "–"
    ratio = f"{a / floor:.2f}x" if floor else "–"
    return f"| {total:,} | {label} | {a:.2f} | {theirs} | {ratio} | {goal} | {'–' if met is None else 'yes' if met else 'no'} |"


def table(results: list[tuple[int, Runs, Runs]], n_runs: int) -> str:
    lines = [
        f"Medians of {n_runs} runs, warm cache, headless Chromium; seconds from the input event to the settled "
        "result; floor = the floor app in the same run (for the map actions, its filter-change rerun); "
        "ratio = PaperMap / floor.",
        "",
        "| papers | measure | PaperMap | floor | ratio | goal | met |",
        "|---:|---|---:|---:|---:|---|:---:|",
    ]
    for total, ours, floor in results:
        rerun = statistics.median(floor.filter)
        a, b = statistics.median(ours.render), statistics.median(floor.render)
        lines.append(_row(total, "first render (s)", ours.render, b, f"≤ {GOAL}x", a / b <= GOAL))
        measured = {"filter change": ours.filter, "box selection -> table": ours.select, **ours.actions}
        for name in MAP_ACTIONS:
            if measured.get(name):
                a = statistics.median(measured[name])
                met = a <= ACTION_GOAL_S and a / rerun <= GOAL
                lines.append(
                    _row(total, f"{name} (s)", measured[name], rerun, f"≤ {ACTION_GOAL_S:g} s, ≤ {GOAL}x", met)
                )
        for name, times in ours.actions.items():
            if name.startswith("page: "):
                met = statistics.median(times) <= PAGE_GOAL_S
                lines.append(_row(total, f"{name} (s)", times, None, f"≤ {PAGE_GOAL_S:g} s", met))
        a, b = statistics.median(ours.ws_bytes), statistics.median(floor.ws_bytes)
        lines.append(f"| {total:,} | first-render websocket payload | {_mb(a)} | {_mb(b)} | {a / b:.2f}x | – | – |")
        a, b = statistics.median(ours.http_bytes), statistics.median(floor.http_bytes)
        lines.append(f"| {total:,} | first-render HTTP (static files) | {_mb(a)} | {_mb(b)} | {a / b:.2f}x | – | – |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data",
        type=Path,
        action="append",
        help="paper list (repeatable; default: ICML 2025 titles and the scale corpus)",
    )
    parser.add_argument("--runs", type=int, default=5, help="timed runs per app and list (default 5)")
    parser.add_argument(
        "--cache", type=Path, default=DEFAULT_CACHE, help=f"PAPERMAP_CACHE, kept between runs (default {DEFAULT_CACHE})"
    )
    parser.add_argument("--json", type=Path, default=None, help="also write every run's numbers here")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    results = []
    with sync_playwright() as playwright, tempfile.TemporaryDirectory(prefix="papermap_bench_app_") as scratch:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            for data in args.data or DEFAULT_DATA:
                results.append(bench_list(browser, data.resolve(), args.cache.resolve(), args.runs, Path(scratch)))
        finally:
            browser.close()
    if args.json:
        args.json.write_text(
            json.dumps([{"papers": t, "papermap": vars(a), "floor": vars(b)} for t, a, b in results], indent=1)
        )
    print(table(results, args.runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
