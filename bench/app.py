"""The dashboard in headless Chromium beside the floor app: first render, filter change, box selection, payload.

    python bench/app.py [--runs 5] [--data LIST ...] [--cache DIR] [--sample N]

For each paper list (default: ICML 2025's 3,340 titles and the 87,691-abstract scale corpus) the map is
built once with `python -m lib build` into the folder the dashboard reads (`lib.datasets.map_folder`
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
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from lib.datasets import map_folder  # noqa: E402
from lib.pipeline import DEFAULT_TAXONOMY, PAPERS_FILE, is_built  # noqa: E402

SHARED = REPO.parent / "shared" / "data"
DEFAULT_DATA = [SHARED / "icml2025_papers.json", SHARED / "scale_corpus.json"]
DEFAULT_CACHE = Path(tempfile.gettempdir()) / "papermap_bench_app"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [  # as tests/test_browser.py: no reaching for Google services on a closed network
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
VIEWPORT = {"width": 1920, "height": 1080}
GOAL = 1.5
HOLD_MS = 400  # the finished state must hold this long; its start is the time reported
TIMEOUT_MS = 600_000
STARTUP_SECONDS = 300

# Resolves with performance.now() at the start of the first HOLD_MS-long stretch in which `ready`
# holds. `want` is a point count (papers plotted: traces with customdata, or the floor's one trace)
# or "selection" (the dashboard's "N selected papers" heading and a table under it).
WAIT_JS = """async ([want, hold, timeout]) => {
    const running = () => { const w = document.querySelector('[data-testid="stStatusWidget"]');
                            return !!w && w.innerText.includes('Running'); };
    const points = () => {
        const gd = document.querySelector('.js-plotly-plot');
        const traces = gd && (gd._fullData || gd.data);
        if (!traces) return -1;
        return traces.reduce((n, t) => n + (t.visible === false || !t.x || !(t.customdata || t.name === 'papers') ? 0 : t.x.length), 0);
    };
    const selected = () => Array.from(document.querySelectorAll('[data-testid="stHeading"], h4'))
        .some(h => /selected papers/.test(h.innerText)) && !!document.querySelector('[data-testid="stDataFrame"]');
    const ready = () => !running() && (want === 'selection' ? selected() : points() === want);
    const start = performance.now();
    return await new Promise((resolve, reject) => {
        let since = null;
        const tick = () => {
            const now = performance.now();
            if (ready()) { if (since === null) since = now; if (now - since >= hold) return resolve(since); }
            else since = null;
            if (now - start > timeout) return reject(new Error('timed out waiting for ' + want + ', points ' + points()));
            requestAnimationFrame(tick);
        };
        tick();
    });
}"""
# Page time of the first event of `type` from now on (the user's action, not Playwright's bookkeeping).
MARK_JS = """(type) => { window.__benchMark = null;
    document.addEventListener(type, () => { if (window.__benchMark === null) window.__benchMark = performance.now(); },
                              {capture: true, once: true}); }"""


@dataclass
class Runs:
    """Measurements of one app on one list, one value per run."""

    render: list[float] = field(default_factory=list)
    filter: list[float] = field(default_factory=list)
    select: list[float] = field(default_factory=list)
    ws_bytes: list[int] = field(default_factory=list)
    http_bytes: list[int] = field(default_factory=list)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


@contextmanager
def streamlit(script: str, args: list[str], env: dict[str, str], log: Path):
    """`streamlit run script -- args` on a free 127.0.0.1 port; yields its base URL, stops it after."""
    port = _free_port()
    command = [
        sys.executable, "-m", "streamlit", "run", script, "--server.port", str(port), "--server.address", "127.0.0.1",
        "--server.headless", "true", "--server.fileWatcherType", "none", "--browser.gatherUsageStats", "false", "--", *args,
    ]
    with open(log, "wb") as out:
        process = subprocess.Popen(command, cwd=REPO, env={**os.environ, **env, "PYTHONUNBUFFERED": "1"}, stdin=subprocess.DEVNULL,
                                   stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while not _healthy(f"{base}/_stcore/health"):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{script} did not start:\n{log.read_text(errors='replace')[-2000:]}")
            time.sleep(0.3)
        yield base
    finally:
        for sig, wait in ((signal.SIGTERM, 15), (signal.SIGKILL, 10)):
            try:
                os.killpg(process.pid, sig)
                process.wait(timeout=wait)
                break
            except ProcessLookupError:
                break
            except subprocess.TimeoutExpired:
                continue


def ensure_map(data: Path, cache: Path) -> Path:
    """The dashboard's map folder of `data` under `cache`, built now (untimed) if it is not yet."""
    folder = map_folder(data, DEFAULT_TAXONOMY, cache)
    if not is_built(folder):
        print(f"building the map of {data.name} into {folder} (once; untimed)…", file=sys.stderr, flush=True)
        started = time.monotonic()
        subprocess.run([sys.executable, "-m", "lib", "build", str(data), "--cache", str(cache), "--out", str(folder), "--quiet"],
                       cwd=REPO, check=True)
        print(f"  built in {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
    return folder


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
    cdp.on("Network.loadingFinished", lambda event: received.__setitem__("http", received["http"] + int(event.get("encodedDataLength", 0))))
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
        "() => { const r = document.querySelector('.js-plotly-plot .nsewdrag').getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; }")
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
            "papermap": stack.enter_context(streamlit("dashboard.py", ["--data", str(data)], env, scratch / "papermap.log")),
            "floor": stack.enter_context(streamlit("bench/floor_app.py", ["--papers", str(folder / PAPERS_FILE)], {}, scratch / "floor.log")),
        }
        for name, url in urls.items():  # warm-up: Streamlit's caches filled, nothing recorded
            measure(browser, url, Runs(), len(papers), subfield, selection=name == "papermap")
        for run in range(n_runs):
            for name, url in urls.items():
                measure(browser, url, apps[name], len(papers), subfield, selection=name == "papermap")
            print(f"  {data.name}: run {run + 1} of {n_runs}: "
                  + "; ".join(f"{n} {r.render[-1]:.2f} s / {r.filter[-1]:.2f} s" for n, r in apps.items()), file=sys.stderr, flush=True)
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
        for label, mine, theirs in (("first render (s)", ours.render, floor.render), ("filter change (s)", ours.filter, floor.filter)):
            a, b = statistics.median(mine), statistics.median(theirs)
            lines.append(f"| {total:,} | {label} | {a:.2f} | {b:.2f} | {a / b:.2f}x | {'yes' if a / b <= GOAL else 'no'} |")
        if ours.select:
            lines.append(f"| {total:,} | box selection -> table (s) | {statistics.median(ours.select):.2f} | – | – | – |")
        a, b = statistics.median(ours.ws_bytes), statistics.median(floor.ws_bytes)
        lines.append(f"| {total:,} | first-render websocket payload | {_mb(a)} | {_mb(b)} | {a / b:.2f}x | – |")
        a, b = statistics.median(ours.http_bytes), statistics.median(floor.http_bytes)
        lines.append(f"| {total:,} | first-render HTTP (static files) | {_mb(a)} | {_mb(b)} | {a / b:.2f}x | – |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, action="append", help="paper list (repeatable; default: ICML 2025 titles and the scale corpus)")
    parser.add_argument("--runs", type=int, default=5, help="timed runs per app and list (default 5)")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help=f"PAPERMAP_CACHE, kept between runs (default {DEFAULT_CACHE})")
    parser.add_argument("--json", type=Path, default=None, help="also write every run's numbers here")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    results = []
    with sync_playwright() as playwright, tempfile.TemporaryDirectory(prefix="papermap_bench_app_") as scratch:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            for data in args.data or DEFAULT_DATA:
                results.append(bench_list(browser, data.resolve(), args.cache.resolve(), args.runs, Path(scratch)))
        finally:
            browser.close()
    if args.json:
        args.json.write_text(json.dumps([{"papers": t, "papermap": vars(a), "floor": vars(b)} for t, a, b in results], indent=1))
    print(table(results, args.runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
