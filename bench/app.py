"""The dashboard in headless Chromium beside the floor app: first render, filter change, box selection, payload.

    python bench/app.py [--runs 5] [--data LIST ...] [--cache DIR] [--sample N]

For each paper list (default: ICML 2025's 3,340 titles and the 87,691-abstract scale corpus) the map is
built once with `python -m lib build` into the folder the dashboard reads (`lib.store.datasets.map_folder`
under `--cache`, kept between runs: the large map takes minutes), then two servers start on 127.0.0.1:
PaperMap (`streamlit run dashboard.py -- --data LIST`, PAPERMAP_CACHE=--cache, a scratch PAPERMAP_DB)
and the floor (`bench/floor_app.py`: one Plotly WebGL scatter of the same points with titles on hover
and a subfield multiselect). After one untimed warm-up visit each (Streamlit's caches filled), each
run opens a fresh browser context and measures, the apps taking turns:

- first render: navigation start -> the chart holds every paper's point and Streamlit's status widget is
  idle (held for `HOLD_MS`, so a run that has not yet shown "Running" does not count as finished);
- filter change: choosing the largest subfield in the sidebar -> the chart holds that subfield's points, idle;
- box selection (PaperMap only, its own context): releasing a box drawn over the middle of the map ->
  the "N selected papers" heading with its table, idle;
- payload: bytes the page received over Streamlit's websocket up to the first full render, and over HTTP
  (the static bundle, the same for both apps in a fresh context).

Times are medians of the runs; ratios are PaperMap over the floor in the same run; the goal is 1.5x.
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

from _browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    HOLD_MS,
    MARK_JS,
    REPO,
    VIEWPORT,
    WAIT_JS,
    ensure_map,
    streamlit,
)  # puts lib on the path

from lib.build.output import PAPERS_FILE

SHARED = REPO.parent / "shared" / "data"
DEFAULT_DATA = [SHARED / "icml2025_papers.json", SHARED / "scale_corpus.json"]
DEFAULT_CACHE = Path(tempfile.gettempdir()) / "papermap_bench_app"
GOAL = 1.5
TIMEOUT_MS = 600_000


@dataclass
class Runs:
    """Measurements of one app on one list, one value per run."""

    render: list[float] = field(default_factory=list)
    filter: list[float] = field(default_factory=list)
    select: list[float] = field(default_factory=list)
    ws_bytes: list[int] = field(default_factory=list)
    http_bytes: list[int] = field(default_factory=list)


def _wait(page, want) -> float:
    return page.evaluate(WAIT_JS, [want, HOLD_MS, TIMEOUT_MS])


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


def measure(browser, url: str, runs: Runs, total: int, subfield: tuple[str, int], selection: bool) -> None:
    """One run of one app: first render and filter change in one fresh context, a box selection in another."""
    context = browser.new_context(viewport=VIEWPORT)
    try:
        seconds, ws, http, page = first_render(context, url, total)
        runs.render.append(seconds)
        runs.ws_bytes.append(ws)
        runs.http_bytes.append(http)
        runs.filter.append(filter_change(page, subfield[0], subfield[1], subfield[1]))
    finally:
        context.close()
    if selection:
        context = browser.new_context(viewport=VIEWPORT)
        try:
            page = first_render(context, url, total)[3]
            runs.select.append(box_selection(page))
        finally:
            context.close()


def bench_list(browser, data: Path, cache: Path, n_runs: int, scratch: Path) -> tuple[int, Runs, Runs]:
    import pandas as pd

    folder = ensure_map(data, cache)
    papers = pd.read_parquet(folder / PAPERS_FILE, columns=["subfield"])
    counts = papers["subfield"].value_counts()
    subfield = (str(counts.index[0]), int(counts.iloc[0]))  # the largest: the heaviest filtered map
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
        for name, url in urls.items():  # warm-up: Streamlit's caches filled, nothing recorded
            measure(browser, url, Runs(), len(papers), subfield, selection=name == "papermap")
        for run in range(n_runs):
            for name, url in urls.items():
                measure(browser, url, apps[name], len(papers), subfield, selection=name == "papermap")
            print(
                f"  {data.name}: run {run + 1} of {n_runs}: "
                + "; ".join(f"{n} {r.render[-1]:.2f} s / {r.filter[-1]:.2f} s" for n, r in apps.items()),
                file=sys.stderr,
                flush=True,
            )
    return len(papers), apps["papermap"], apps["floor"]


def _mb(value: float) -> str:
    return f"{value / 1e6:.2f} MB"


def table(results: list[tuple[int, Runs, Runs]], n_runs: int) -> str:
    lines = [
        f"Medians of {n_runs} runs, warm cache, headless Chromium; ratio = PaperMap / floor in the same run; goal ≤ {GOAL}x.",
        "",
        "| papers | measure | PaperMap | floor | ratio | goal met |",
        "|---:|---|---:|---:|---:|:---:|",
    ]
    for total, ours, floor in results:
        for label, mine, theirs in (
            ("first render (s)", ours.render, floor.render),
            ("filter change (s)", ours.filter, floor.filter),
        ):
            a, b = statistics.median(mine), statistics.median(theirs)
            lines.append(
                f"| {total:,} | {label} | {a:.2f} | {b:.2f} | {a / b:.2f}x | {'yes' if a / b <= GOAL else 'no'} |"
            )
        if ours.select:
            lines.append(
                f"| {total:,} | box selection -> table (s) | {statistics.median(ours.select):.2f} | – | – | – |"
            )
        a, b = statistics.median(ours.ws_bytes), statistics.median(floor.ws_bytes)
        lines.append(f"| {total:,} | first-render websocket payload | {_mb(a)} | {_mb(b)} | {a / b:.2f}x | – |")
        a, b = statistics.median(ours.http_bytes), statistics.median(floor.http_bytes)
        lines.append(f"| {total:,} | first-render HTTP (static files) | {_mb(a)} | {_mb(b)} | {a / b:.2f}x | – |")
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
