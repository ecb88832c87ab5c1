"""The Reading lists page on a 113-paper list of the 3,340 ICML 2025 titles: opening it and one reorder, beside an old revision.

    python bench/list_page.py [--data LIST] [--runs 5] [--old REV] [--viewport 1280x720] [--cache DIR] [--keep DIR]

The map is built first (`ensure_map`, untimed; `--cache`, else $PAPERMAP_CACHE, else a temporary
folder) and a reading-lists database gets the list "Reading group" of `present_step.make_list`
(the longest title, then 112 others drawn with seed 0). Each app gets its own copy of it and its
own Streamlit server, in the same run: this code's page, whose list is one editable table, and the
page at git revision `--old` (default 475ff79), one row of widgets per paper with ↑ ↓ ✕ buttons.
In headless Chromium:

- open: a new tab goes to /reading-lists?list=Reading+group; the time runs from the navigation's
  start to the first `HOLD_MS` stretch with Streamlit idle and "More like this list" (the page's
  last part) shown; median of `--runs` new tabs, after one untimed open;
- one reorder, in the last tab: this code's page types the last place (113) into "#" of the
  table's first row, timed from the Enter key; the old page clicks the first row's "↓", timed from
  the mouse press. Either ends at the first `HOLD_MS` stretch with Streamlit idle and the page's
  first row showing the paper that was second (the page redrawn from the stored list), and the
  stored order is then checked in the database; median of `--runs`, after one untimed reorder.

Putting the 113th paper first is also one edit on the new page (type 1 into its "#"); on the old
one it is 112 clicks of "↑", each a full rerun: the table shows 112 x the old reorder's median as
an estimate (not timed click by click).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
from contextlib import closing
from pathlib import Path

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
from present_step import DEFAULT_DATA, LIST_NAME, LIST_SIZE, make_list, old_checkout

from lib.map_folder import PAPERS_FILE, read_papers

DEFAULT_OLD = "475ff79"
PAGE_MS = 300_000  # a first open may build caches (the map's topics, the nearest papers)
URL_PATH = f"reading-lists?list={LIST_NAME.replace(' ', '+')}"
# The editable table's geometry (glide-data-grid draws it on a canvas): the row-selection column,
# then "#" (its width in lib.ui_state.list_editing), under a header; rows of ROW_PX.
SELECT_PX, POSITION_PX, HEADER_PX, ROW_PX = 32, 45, 35, 35

# Resolves with performance.now() at the start of the first `hold`-long stretch in which Streamlit
# is idle (no run, no element loading or stale), "More like this list" is on the page and, when
# `first` is given, the list's first row shows that title: in the table's accessibility grid (this
# code) or as "1. title" (the old page).
SETTLED_JS = held_js(
    "first, ",
    """    const squeeze = (s) => s.replace(/\\s+/g, ' ').trim();
    const whole = () => Array.from(document.querySelectorAll('h4')).some(h => h.innerText.includes('More like this list'));
    const firstRow = () => {
        const editor = Array.from(document.querySelectorAll('[data-testid="stDataFrame"]'))
            .sort((a, b) => b.getBoundingClientRect().height - a.getBoundingClientRect().height)[0];
        const cell = editor && editor.querySelector('[data-testid="glide-cell-2-0"]');  // column 2 is Title
        if (cell) return squeeze(cell.textContent);
        const strong = Array.from(document.querySelectorAll('[data-testid="stMarkdownContainer"] strong'))
            .map(s => squeeze(s.textContent)).find(t => t.startsWith('1. '));
        return strong ? strong.slice(3) : null;
    };
    const ready = () => idle() && whole() && (first === null || firstRow() === squeeze(first));""",
    "'not settled; first row ' + firstRow()",
)
# The list's editable table (of the page's dataframes the tallest: collapsed expanders hold others),
# scrolled so that its first row is in view below Streamlit's header; its top-left corner.
EDITOR_JS = """(rowPx) => {
    const editor = Array.from(document.querySelectorAll('[data-testid="stDataFrame"]'))
        .sort((a, b) => b.getBoundingClientRect().height - a.getBoundingClientRect().height)[0];
    const row = editor.getBoundingClientRect().top + 2 * rowPx;
    if (row < 120 || row > innerHeight - 20) {
        let box = editor.parentElement;
        while (box && box.scrollHeight <= box.clientHeight) box = box.parentElement;
        (box || document.scrollingElement).scrollBy(0, row - innerHeight / 2);
    }
    const corner = editor.getBoundingClientRect();
    return {x: corner.left, y: corner.top};
}"""


def stored_titles(db_path: Path) -> list[str]:
    """The list's titles in their stored order, read straight from the database (any schema version)."""
    with closing(sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)) as db:
        columns = {row[1] for row in db.execute("PRAGMA table_info(entries)")}
        live = " AND e.removed_at IS NULL" if "removed_at" in columns else ""
        rows = db.execute(
            f"SELECT e.title FROM entries e JOIN lists l USING (list_id) WHERE l.name = ?{live} ORDER BY e.position",
            (LIST_NAME,),
        )
        return [title for (title,) in rows]


def open_page(browser, base: str, viewport: dict) -> tuple:
    """A new tab on the list's page; (tab, seconds from navigation start to settled)."""
    tab = browser.new_page(viewport=viewport)
    tab.set_default_timeout(PAGE_MS)
    tab.goto(f"{base}/{URL_PATH}")
    settled = tab.evaluate(SETTLED_JS, [None, HOLD_MS, PAGE_MS])
    tab.keyboard.press("Escape")  # a deep link may raise Streamlit's "Page not found" dialog over the page
    return tab, settled / 1000


def reorder_new(tab, db_path: Path) -> float:
    """Type the last place into the first row's "#"; seconds from Enter to the page redrawn from the stored move."""
    before = stored_titles(db_path)
    corner = tab.evaluate(EDITOR_JS, ROW_PX)
    tab.mouse.click(corner["x"] + SELECT_PX + POSITION_PX / 2, corner["y"] + HEADER_PX + ROW_PX / 2)
    tab.wait_for_timeout(300)
    tab.keyboard.type(str(len(before)), delay=150)  # typed fast, the cell editor loses the first keys
    tab.evaluate(MARK_JS, "keydown")
    tab.keyboard.press("Enter")
    settled = tab.evaluate(SETTLED_JS, [before[1], HOLD_MS, PAGE_MS])
    after = stored_titles(db_path)
    assert after == [*before[1:], before[0]], "the typed place did not move the first paper to the end"
    return (settled - tab.evaluate("() => window.__benchMark")) / 1000


def reorder_old(tab, db_path: Path) -> float:
    """Click the first row's "↓"; seconds from the press to the page redrawn from the stored move."""
    before = stored_titles(db_path)
    button = tab.locator('[class*="st-key-down-"] button').first
    button.scroll_into_view_if_needed()
    tab.evaluate(MARK_JS, "mousedown")
    button.click()
    settled = tab.evaluate(SETTLED_JS, [before[1], HOLD_MS, PAGE_MS])
    after = stored_titles(db_path)
    assert after == [before[1], before[0], *before[2:]], "the ↓ click did not swap the first two papers"
    return (settled - tab.evaluate("() => window.__benchMark")) / 1000


def measure(browser, base: str, db_path: Path, reorder, runs: int, viewport: dict) -> dict:
    tab, _ = open_page(browser, base, viewport)  # warm-up: the map's caches filled
    tab.close()
    opens = []
    for _ in range(runs):
        tab, seconds = open_page(browser, base, viewport)
        opens.append(seconds)
        if len(opens) < runs:
            tab.close()
    reorder(tab, db_path)  # warm-up
    moves = [reorder(tab, db_path) for _ in range(runs)]
    tab.close()
    return {"open": opens, "reorder": moves}


def main(argv: list[str] | None = None) -> int:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--old", metavar="REV", default=DEFAULT_OLD, help="git revision (or folder) to compare with")
    parser.add_argument("--viewport", default="1280x720", help="WIDTHxHEIGHT, e.g. 1600x1000")
    parser.add_argument("--cache", type=Path, default=os.environ.get("PAPERMAP_CACHE"), help="the map cache")
    parser.add_argument("--keep", type=Path, help="keep the databases and logs in DIR (else a temporary one)")
    args = parser.parse_args(argv)
    width, height = (int(n) for n in args.viewport.lower().split("x"))
    viewport = {"width": width, "height": height}
    with tempfile.TemporaryDirectory(prefix="papermap_list_page_") as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        cache = args.cache or folder / "cache"
        papers = read_papers(ensure_map(args.data, cache) / PAPERS_FILE)
        made = folder / "list.sqlite"
        made.unlink(missing_ok=True)
        make_list(papers, made, args.data.name)
        old = Path(args.old) if Path(args.old).is_dir() else old_checkout(args.old, Path(tmp))
        apps = [
            ("this code: one editable table", REPO / "dashboard.py", reorder_new),
            (f"{args.old}: widgets per paper", old / "dashboard.py", reorder_old),
        ]
        results = {}
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
            for n, (name, script, reorder) in enumerate(apps):
                db = folder / f"lists-{n}.sqlite"
                shutil.copyfile(made, db)
                env = {"PAPERMAP_CACHE": str(cache), "PAPERMAP_DB": str(db)}
                with streamlit(str(script), ["--data", str(args.data)], env, folder / f"streamlit-{n}.log") as base:
                    results[name] = measure(browser, base, db, reorder, args.runs, viewport)
                print(f"measured {name}", file=sys.stderr, flush=True)
            browser.close()
    (new_name, new), (old_name, old_r) = results.items()
    medians = {name: {k: statistics.median(v) for k, v in r.items()} for name, r in results.items()}
    new_m, old_m = medians[new_name], medians[old_name]
    print(f"\n{len(papers):,} papers on the map, a list of {LIST_SIZE}; {width}x{height}; medians of {args.runs}")
    print("| page | open (s) | one reorder (s) | 113th paper to first |")
    print("|---|---:|---:|---|")
    print(f"| {new_name} | {new_m['open']:.2f} | {new_m['reorder']:.2f} | 1 edit: {new_m['reorder']:.1f} s |")
    print(
        f"| {old_name} | {old_m['open']:.2f} | {old_m['reorder']:.2f} "
        f"| {LIST_SIZE - 1} clicks: ~{(LIST_SIZE - 1) * old_m['reorder']:.0f} s (estimate) |"
    )
    print(
        f"| new / old | {new_m['open'] / old_m['open']:.2f}x | {new_m['reorder'] / old_m['reorder']:.2f}x "
        f"| {new_m['reorder'] / ((LIST_SIZE - 1) * old_m['reorder']):.3f}x |"
    )
    for name, r in results.items():
        print(f"\n{name}: open " + ", ".join(f"{t:.2f}" for t in r["open"]), end="")
        print("; reorder " + ", ".join(f"{t:.2f}" for t in r["reorder"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
