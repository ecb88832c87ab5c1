"""The Schedule page's render time on all 3,340 ICML 2025 papers with sessions, beside the Topics page.

    python bench/schedule_page.py [--data LIST] [--runs 5]

The shared ICML 2025 list has titles only, so each paper is given a programme first, the shape of
ICML week's (synthetic, deterministic): six poster sessions over three days (11:00 and 16:30,
Vancouver time), one per paper with a poster position, and for every twelfth paper an oral in one
of twelve oral sessions too. The map is built before timing (`ensure_map`). Then, in headless
Chromium, each run opens the map, clicks Schedule in the sidebar and waits for its first session's
poster session's heading with Streamlit idle; the baseline is the same click on Topics. Prints each page's median and
their ratio.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from _browser import CHROMIUM, CHROMIUM_ARGS, IDLE_JS, REPO, VIEWPORT, ensure_map, streamlit  # puts lib on the path

DEFAULT_DATA = REPO.parent / "shared" / "data" / "icml2025_papers.json"
DAYS = ("2025-07-15", "2025-07-16", "2025-07-17")
PAGE_SECONDS = 300
SCHEDULE_READY = "text=· Poster Session 1 ·"  # the first day's poster session heading: on no other page


def with_programme(records: list[dict]) -> list[dict]:
    """The papers of `records` each with a poster session and, one in twelve, an oral before it."""
    posters = [(day, start, end) for day in DAYS for start, end in (("11:00", "13:30"), ("16:30", "19:00"))]
    programme = []
    for n, record in enumerate(records):
        day, start, end = posters[n % len(posters)]
        sessions = [
            {
                "kind": "poster",
                "name": f"Poster Session {n % len(posters) + 1}",
                "room": "East Exhibition Hall A-B" if n % 2 else "West Exhibition Hall B2-B3",
                "start": f"{day}T{start}:00-07:00",
                "end": f"{day}T{end}:00-07:00",
                "poster_position": f"{'E' if n % 2 else 'W'}-{1000 + n // len(posters)}",
            }
        ]
        if n % 12 == 0:
            oral = (n // 12) % 12
            sessions.append(
                {
                    "kind": "oral",
                    "name": f"Oral {oral // 4 + 1}{'ABCD'[oral % 4]}",
                    "room": f"West Ballroom {'ABCD'[oral % 4]}",
                    "start": f"{DAYS[oral // 4]}T10:00:00-07:00",
                    "end": f"{DAYS[oral // 4]}T11:00:00-07:00",
                    "poster_position": "",
                }
            )
        programme.append({**record, "sessions": sessions})
    return programme


def click_time(page, base: str, title: str, ready: str) -> float:
    """Seconds from a click on `title` in the sidebar to `ready` visible with Streamlit idle."""
    page.goto(base)
    page.wait_for_selector(".js-plotly-plot")
    page.wait_for_function(IDLE_JS)
    started = time.monotonic()
    page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=title).click()
    page.wait_for_selector(ready)
    page.wait_for_timeout(100)
    page.wait_for_function(IDLE_JS)
    return time.monotonic() - started


def main(argv: list[str] | None = None) -> int:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="papermap_schedule_") as tmp:
        folder = Path(tmp)
        data = folder / "icml2025_programme.json"
        records = json.loads(args.data.read_text(encoding="utf-8"))
        data.write_text(json.dumps(with_programme(records)), encoding="utf-8")
        ensure_map(data, folder / "cache")
        env = {"PAPERMAP_CACHE": str(folder / "cache"), "PAPERMAP_DB": str(folder / "lists.sqlite")}
        times: dict[str, list[float]] = {"Topics": [], "Schedule": []}
        with streamlit("dashboard.py", ["--data", str(data)], env, folder / "streamlit.log") as base:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
                page = browser.new_page(viewport=VIEWPORT)
                page.set_default_timeout(PAGE_SECONDS * 1000)
                click_time(page, base, "Schedule", SCHEDULE_READY)  # the Schedule link shows after a first run
                for _ in range(args.runs):
                    times["Topics"].append(click_time(page, base, "Topics", "text=Why this label."))
                    times["Schedule"].append(click_time(page, base, "Schedule", SCHEDULE_READY))
                browser.close()
    medians = {name: statistics.median(values) for name, values in times.items()}
    print(f"{len(records):,} papers with sessions, {args.runs} runs each, medians (seconds):")
    print(f"{'page':<10} {'median':>8}   runs")
    for name, values in times.items():
        print(f"{name:<10} {medians[name]:>8.2f}   {', '.join(f'{v:.2f}' for v in values)}")
    print(f"Schedule / Topics (baseline): {medians['Schedule'] / medians['Topics']:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
