"""A list opened cold in the dashboard beside the CLI's cold build of the same list.

    python bench/cold_open.py [--data LIST] [--runs 3]

Each run, with an empty cache of its own: `python -m lib build LIST` timed wall to wall (the
baseline), then `streamlit run dashboard.py -- --data LIST` opened in headless Chromium and timed
from navigation to the map holding every paper's point with Streamlit idle (the first build runs in
the dashboard, keywords and subfields in its worker process). Prints medians and their ratio, and
fails when the server log shows the app running outside Streamlit (the hang of issue 11).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _browser import CHROMIUM, CHROMIUM_ARGS, HOLD_MS, REPO, VIEWPORT, WAIT_JS, streamlit  # puts lib on the path

from lib.map_folder import read_papers

DEFAULT_DATA = REPO.parent / "shared" / "data" / "icml2025_papers.json"
OPEN_SECONDS = 600


def cli_build(data: Path, folder: Path) -> float:
    start = time.monotonic()
    command = [sys.executable, "-m", "lib", "build", str(data), "--cache", str(folder), "--out", str(folder / "out")]
    subprocess.run([*command, "--quiet"], cwd=REPO, check=True, stdout=subprocess.DEVNULL)
    return time.monotonic() - start


def dashboard_open(data: Path, folder: Path, papers: int) -> float:
    from playwright.sync_api import sync_playwright

    env = {"PAPERMAP_CACHE": str(folder / "cache"), "PAPERMAP_DB": str(folder / "lists.sqlite")}
    log = folder / "streamlit.log"
    with streamlit("dashboard.py", ["--data", str(data)], env, log) as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport=VIEWPORT)
            page.set_default_timeout(OPEN_SECONDS * 1000)
            page.goto(base, wait_until="commit")
            # performance.now() counts from navigation start
            seconds = page.evaluate(WAIT_JS, [papers, HOLD_MS, OPEN_SECONDS * 1000]) / 1000
        finally:
            browser.close()
    if "ScriptRunContext" in log.read_text(errors="replace"):
        raise SystemExit(f"the app ran outside Streamlit while building (see {log})")
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    cli, dashboard = [], []
    for run in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="cold-cli-") as cli_folder:
            cli.append(cli_build(args.data, Path(cli_folder)))
            papers = len(read_papers(Path(cli_folder) / "out" / "papers.parquet"))
        with tempfile.TemporaryDirectory(prefix="cold-dashboard-") as dashboard_folder:
            dashboard.append(dashboard_open(args.data, Path(dashboard_folder), papers))
        print(f"run {run + 1}: CLI {cli[-1]:.1f} s, dashboard {dashboard[-1]:.1f} s", file=sys.stderr, flush=True)
    cli_median, dashboard_median = statistics.median(cli), statistics.median(dashboard)
    print(f"\n{args.data.name} ({papers:,} papers), empty caches, medians of {args.runs} runs:\n")
    print("| baseline: `python -m lib build` cold (s) | dashboard cold open to the rendered map (s) | ratio |")
    print("|---:|---:|---:|")
    print(f"| {cli_median:.1f} | {dashboard_median:.1f} | {dashboard_median / cli_median:.2f}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
