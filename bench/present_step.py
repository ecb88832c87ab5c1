"""One step of the Present page on a 113-paper reading list of the 3,340 ICML 2025 titles, beside a floor.

    python bench/present_step.py [--data LIST] [--runs 9] [--old REV] [--keep DIR]

The map is built first (`ensure_map`, untimed) into an empty cache, and a reading-lists database
gets one list, "Reading group": the map's longest-titled paper, then 112 others drawn with seed 0,
written through `lib.store.reading_lists` as the dashboard writes them. Then, in headless Chromium
at 1280x720, each app is opened on the list's first paper and:

- step: Right is pressed; the time runs from the keydown to the next paper's title showing with
  Streamlit idle (held for `HOLD_MS`, so a run not yet marked "Running" does not count as finished);
  median of `--runs` steps;
- fast presses: Right pressed five times with no wait between; once the app has been idle for
  `SETTLE_MS`, how many steps the title moved (five is right); median and each of `--runs` tries.

The apps, each in its own Streamlit server: the floor (`bench/present_floor_app.py`: the list's
title, authors and Next/Previous buttons with the same shortcuts, no dashboard, no map: what a step
costs Streamlit itself); PaperMap's Present page; and with `--old REV` the same page as it was at
git revision REV (its files from `git archive`; or the checkout in folder REV), in the same run.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tarfile
import tempfile
from contextlib import closing
from pathlib import Path

import pandas as pd
from _browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    HOLD_MS,
    MARK_JS,
    REPO,
    ensure_map,
    held_js,
    streamlit,
)  # puts lib on the path

from lib.map_folder import PAPERS_FILE, read_papers
from lib.store import reading_lists

DEFAULT_DATA = REPO.parent / "shared" / "data" / "icml2025_papers.json"
LIST_NAME = "Reading group"
LIST_SIZE = 113
PRESSES = 5
SETTLE_MS = 2500  # idle this long after fast presses: every queued rerun has had its turn
VIEWPORT = {"width": 1280, "height": 720}  # a laptop driving a projector
PAGE_MS = 300_000  # a first visit may build the map (the old revision's own cache folder)

# Resolves with performance.now() at the start of the first `hold`-long stretch in which the app is
# idle, the first h1 reads `title` and (unless `paper` is null) `paper` is ringed on the map: a chart's
# "this paper" trace holds it (the page before 8d4e6d2), or the ring over the map is on its point.
STEP_JS = held_js(
    "title, paper, ",
    """    const squeeze = (s) => s.replace(/\\s+/g, ' ').trim();
    const shown = () => { const h = document.querySelector('h1'); return h ? squeeze(h.innerText) : null; };
    const charts = () => Array.from(document.querySelectorAll('.js-plotly-plot'));
    const traced = () => charts().some(gd => (gd._fullData || []).some(t =>
        (t.name || '').startsWith('this paper') && Array.from(t.customdata || []).includes(paper)));
    const ringed = () => {
        const ring = document.querySelector('.slide-ring'), gd = charts()[0];
        const t = ring && gd && (gd._fullData || []).find(t => t.customdata && Array.from(t.customdata).includes(paper));
        if (!t) return false;
        const i = Array.from(t.customdata).indexOf(paper), box = gd.getBoundingClientRect(), r = ring.getBoundingClientRect();
        const x = box.left + gd._fullLayout.xaxis._offset + gd._fullLayout.xaxis.l2p(t.x[i]);
        const y = box.top + gd._fullLayout.yaxis._offset + gd._fullLayout.yaxis.l2p(t.y[i]);
        return Math.abs((r.left + r.right) / 2 - x) < 2 && Math.abs((r.top + r.bottom) / 2 - y) < 2;
    };
    const marked = () => paper === null || traced() || ringed();
    const ready = () => idle() && shown() === squeeze(title) && marked();""",
    "'timed out waiting for ' + title + ', shown ' + shown()",
)
# The first h1's text once the app has been idle for `settle` ms.
SETTLED_JS = held_js("", "    const ready = idle;", "'never settled'", result="document.querySelector('h1').innerText")


def make_list(papers, db_path: Path, dataset: str, size: int = LIST_SIZE, seed: int = 0) -> list[str]:
    """Write list `LIST_NAME` of `size` papers of the map `papers` into `db_path`; return its titles in order.

    The longest title comes first (the slide that must still fit), then `size - 1` papers drawn with `seed`."""
    longest = papers["title"].str.len().idxmax()
    chosen = pd.concat([papers.loc[[longest]], papers.drop(index=longest).sample(n=size - 1, random_state=seed)])
    with closing(reading_lists.connect(db_path)) as db:
        reading_lists.create_list(db, LIST_NAME)
        reading_lists.add_papers(db, LIST_NAME, chosen, dataset)
        return [entry.title for entry in reading_lists.entries(db, LIST_NAME)]


def old_checkout(rev: str, into: Path) -> Path:
    """The repository's files at `rev`, unpacked under `into` (no worktree, so the repository is untouched)."""
    archive = into / "old.tar"
    subprocess.run(["git", "archive", "--format=tar", "-o", str(archive), rev], cwd=REPO, check=True)
    folder = into / f"old-{rev}"
    with tarfile.open(archive) as tar:
        tar.extractall(folder, filter="data")
    return folder


def list_ids(db_path: Path) -> list[str]:
    """The paper ids of list `LIST_NAME` in `db_path`, in order."""
    with closing(reading_lists.connect(db_path)) as db:
        return [entry.paper_id for entry in reading_lists.entries(db, LIST_NAME)]


def step_times(page, titles: list[str], ids: list[str | None], runs: int) -> list[float]:
    """Seconds from each Right press to the next title shown (and ringed on the map, where `ids` has
    its id) with the app idle, for steps 1→2 … runs→runs+1."""
    times = []
    for step in range(1, runs + 1):
        page.evaluate(MARK_JS, "keydown")
        page.keyboard.press("ArrowRight")
        shown_at = page.evaluate(STEP_JS, [titles[step], ids[step], HOLD_MS, PAGE_MS])
        times.append((shown_at - page.evaluate("() => window.__benchMark")) / 1000)
    return times


def fast_presses(page, titles: list[str], start: int) -> int:
    """From step `start` (shown, idle), press Right `PRESSES` times with no wait; the steps it moved."""
    for _ in range(PRESSES):
        page.keyboard.press("ArrowRight")
    shown = " ".join(page.evaluate(SETTLED_JS, [SETTLE_MS, PAGE_MS]).split())
    squeezed = [" ".join(t.split()) for t in titles]
    return squeezed.index(shown) + 1 - start


def measure(browser, base: str, url_path: str, titles: list[str], ids: list[str | None], runs: int) -> dict:
    page = browser.new_page(viewport=VIEWPORT)
    page.set_default_timeout(PAGE_MS)
    page.goto(f"{base}/{url_path}?list={LIST_NAME.replace(' ', '+')}&step=1")
    page.evaluate(STEP_JS, [titles[0], ids[0], HOLD_MS, PAGE_MS])
    step_times(page, titles, ids, 1)  # warm-up: Streamlit's caches filled, the chart drawn once
    times = step_times(page, titles[1:], ids[1:], runs)
    moved, at = [], runs + 2
    for _ in range(runs):
        moved.append(fast_presses(page, titles, at))
        at += moved[-1]
        if at + PRESSES > len(titles):
            break
    page.close()
    return {"times": times, "moved": moved}


def main(argv: list[str] | None = None) -> int:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument(
        "--old", metavar="REV", help="also time the Present page as it was at git revision REV (or in folder REV)"
    )
    parser.add_argument("--keep", type=Path, help="keep the cache and lists database in DIR (else a temporary one)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="papermap_present_") as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        cache, db = folder / "cache", folder / "lists.sqlite"
        papers = read_papers(ensure_map(args.data, cache) / PAPERS_FILE)
        db.unlink(missing_ok=True)
        titles = make_list(papers, db, args.data.name)
        env = {"PAPERMAP_CACHE": str(cache), "PAPERMAP_DB": str(db)}
        ids = list_ids(db)
        apps = [("floor: title, authors, buttons", REPO / "bench" / "present_floor_app.py", ["--db", str(db)], "")]
        if args.old:
            old = Path(args.old) if Path(args.old).is_dir() else old_checkout(args.old, Path(tmp))
            apps.append(
                (f"Present page at {args.old}", old / "dashboard.py", ["--data", str(args.data)], "presentation")
            )
        apps.append(("Present page (this code)", REPO / "dashboard.py", ["--data", str(args.data)], "presentation"))
        results = {}
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
            for name, script, script_args, url_path in apps:
                with streamlit(str(script), script_args, env, folder / f"streamlit-{len(results)}.log") as base:
                    marks = [None] * len(ids) if not url_path else ids  # the floor has no map
                    results[name] = measure(browser, base, url_path, titles, marks, args.runs)
                print(f"measured {name}", file=sys.stderr, flush=True)
            browser.close()
    floor = statistics.median(next(iter(results.values()))["times"])
    print(f"\n{len(papers):,} papers on the map, a list of {len(titles)}; {VIEWPORT['width']}x{VIEWPORT['height']}")
    print(f"| app | step, median of {args.runs} (s) | / floor | steps moved by {PRESSES} fast presses | each try |")
    print("|---|---:|---:|---:|---|")
    for name, r in results.items():
        median = statistics.median(r["times"])
        print(
            f"| {name} | {median:.3f} | {median / floor:.1f}x | {statistics.median(r['moved']):g} "
            f"| {', '.join(map(str, r['moved']))} |"
        )
    print(
        "\nstep times (s): "
        + "; ".join(f"{n}: {', '.join(f'{t:.2f}' for t in r['times'])}" for n, r in results.items())
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
