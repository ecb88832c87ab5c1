"""Readers beside a hostile visitor: do the others keep their speed while one sends inputs built to make
the server work without bound?

    python bench/hostile_load.py [--data LIST] [--sessions 7] [--repeats 3] [--cache DIR]

One dashboard on 127.0.0.1 (bench/load.py's set-up: the map built beforehand, one untimed visit to
fill the caches). Each repeat runs bench/load.py's steps (open the map, choose a filter, click a
paper) in --sessions concurrent browser sessions twice, alternating which goes first, each time
beside one more session that goes through the same pages until they finish: in the baseline it
sends ordinary inputs (a pasted title, an upload of a 50-paper list); in the other run the inputs
issue 34 found unbounded, each through the page a visitor would use:

- Papers for me: 1 kB of BibTeX whose 40 `@string` macros each double the one before (16 TB expanded);
- Papers for me and Data sets: an upload of a JSON list of 1,000,000 tiny records (about 15 MB).

It prints each step's median over the sessions and repeats for both runs and their ratio (the goal:
at most 1.2x), and what the extra session was answered: one sentence for each hostile input.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
from pathlib import Path

import load
from _browser import CHROMIUM, CHROMIUM_ARGS, HOLD_MS, VIEWPORT, ensure_map, held_js, streamlit  # puts lib on the path

from lib.map_folder import PAPERS_FILE, read_papers

IDLE_HELD_JS = held_js("", "    const ready = idle;", "'timed out waiting for the page to settle'")


def bibtex_bomb(levels: int = 40) -> str:
    lines = ['@string{a0 = "xxxxxxxxxxxxxxxx"}'] + [f"@string{{a{i} = a{i - 1} # a{i - 1}}}" for i in range(1, levels)]
    return "\n".join([*lines, f"@article{{k, title = a{levels - 1}}}"])


async def _settled(page) -> None:
    """Once the run the last action started has ended."""
    await page.wait_for_timeout(500)  # the run starts
    await page.evaluate(IDLE_HELD_JS, [HOLD_MS, load.TIMEOUT_S * 1000])


async def _answer(page) -> str:
    """The page's first error, as shown, once the run the action started has ended."""
    await _settled(page)
    errors = page.locator('[data-testid="stAlertContentError"]')
    return (await errors.first.inner_text()).strip() if await errors.count() else "(no error shown)"


async def extra_session(browser, base: str, inputs: dict, done: asyncio.Event, answers: dict[str, str]) -> int:
    """Send `inputs` ("pasted": text, "upload": a file's path) through Papers for me and Data sets in
    turn until `done`; returns how many were sent."""
    context = await browser.new_context(viewport=VIEWPORT)
    page = await context.new_page()
    page.set_default_timeout(load.TIMEOUT_S * 1000)
    sent = 0
    uploader = '[data-testid="stFileUploader"] input[type="file"]'
    try:
        while not done.is_set():
            await page.goto(f"{base}/papers-for-me")
            await page.get_by_label("Your papers").fill(inputs["pasted"])
            await page.get_by_role("button", name="Rank papers").click()
            answers["pasted into Papers for me"] = await _answer(page)
            await page.get_by_label("Your papers").fill("")
            await page.get_by_label("Your papers").blur()
            await page.locator(uploader).set_input_files(str(inputs["upload"]))
            await page.wait_for_load_state("networkidle")  # the file is the server's before the click
            await _settled(page)
            await page.get_by_role("button", name="Rank papers").click()
            answers["uploaded to Papers for me"] = await _answer(page)
            await page.goto(f"{base}/data-sets")
            await page.locator(uploader).set_input_files(str(inputs["upload"]))
            answers["uploaded to Data sets"] = await _answer(page)
            sent += 3
    finally:
        await context.close()
    return sent


async def _beside(browser, base, plans, papers, timeout_s, inputs, answers) -> tuple[list, int]:
    done = asyncio.Event()
    extra = asyncio.create_task(extra_session(browser, base, inputs, done, answers))
    await asyncio.sleep(2)  # its first input is in flight before the readers start
    sessions = await load.run_sessions(browser, base, plans, papers, timeout_s)
    done.set()
    return sessions, await extra


async def _run(base, papers, sessions: int, repeats: int, timeout_s: float, inputs: dict, log):
    from playwright.async_api import async_playwright

    plans = load.make_plans(papers, sessions)
    runs: dict[str, list] = {"ordinary": [], "hostile": []}
    answers: dict[str, dict[str, str]] = {"ordinary": {}, "hostile": {}}
    sent = dict.fromkeys(runs, 0)
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            warm = await browser.new_context(viewport=VIEWPORT)
            await (await warm.new_page()).goto(base)
            await load._wait(warm.pages[0], len(papers), int(timeout_s * 1000))
            await warm.close()
            for repeat in range(repeats):
                for kind in ("ordinary", "hostile") if repeat % 2 == 0 else ("hostile", "ordinary"):
                    found, count = await _beside(
                        browser, base, plans, len(papers), timeout_s, inputs[kind], answers[kind]
                    )
                    runs[kind] += found
                    sent[kind] += count
                log(f"  repeat {repeat + 1} of {repeats} done ({sent['hostile']} hostile inputs sent so far)")
        finally:
            await browser.close()
    return runs, answers, sent


def _median(sessions, step: str) -> float | None:
    values = [s.times[step] for s in sessions if step in s.times]
    return statistics.median(values) if values else None


def table(runs, answers, sent, sessions: int, repeats: int) -> str:
    lines = [
        f"{sessions} reader sessions beside one more session, {repeats} repeats; it sent "
        f"{sent['ordinary']} ordinary and {sent['hostile']} hostile inputs",
        "",
        "| step (median seconds) | beside ordinary inputs (baseline) | beside hostile inputs | ratio |",
        "|---|---:|---:|---:|",
    ]
    for step in load.STEPS:
        a, b = _median(runs["ordinary"], step), _median(runs["hostile"], step)
        ratio = f"{b / a:.2f}x" if a and b else "-"
        lines.append(
            f"| {load.STEP_NAMES[step]} | {a if a is None else f'{a:.2f}'} | {b if b is None else f'{b:.2f}'} | {ratio} |"
        )
    errors = [e for kind in runs.values() for s in kind for e in s.errors]
    lines += ["", f"reader errors: {len(errors)}" + (f" (first: {errors[0]})" if errors else ""), ""]
    lines += ["| input | kind | what the page answered |", "|---|---|---|"]
    for kind, answered in answers.items():
        lines += [f"| {what} | {kind} | {text.replace('|', '/')} |" for what, text in answered.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=load.SEED)
    parser.add_argument("--sessions", type=int, default=7, help="reader sessions beside the hostile one (default 7)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cache", type=Path, default=load.DEFAULT_CACHE)
    parser.add_argument("--timeout", type=float, default=load.TIMEOUT_S)
    args = parser.parse_args(argv)
    folder = ensure_map(args.data.resolve(), args.cache.resolve())
    papers = read_papers(folder / PAPERS_FILE)
    with tempfile.TemporaryDirectory(prefix="papermap_bench_hostile_") as scratch:
        million, ordinary = Path(scratch) / "million.json", Path(scratch) / "fifty.json"
        million.write_text(json.dumps([{"title": "t"}] * 1_000_000))
        titles = papers["title"].tolist()
        ordinary.write_text(json.dumps([{"title": title} for title in (titles * 50)[:50]]))
        inputs = {
            "ordinary": {"pasted": titles[0], "upload": ordinary},
            "hostile": {"pasted": bibtex_bomb(), "upload": million},
        }
        env = {
            "PAPERMAP_CACHE": str(args.cache.resolve()),
            "PAPERMAP_DB": f"{scratch}/lists.sqlite",
            "PAPERMAP_DATA_DIR": f"{scratch}/data",
        }
        with streamlit(
            "dashboard.py", ["--data", str(args.data.resolve())], env, Path(scratch) / "streamlit.log"
        ) as base:
            runs, answers, sent = asyncio.run(
                _run(
                    base,
                    papers,
                    args.sessions,
                    args.repeats,
                    args.timeout,
                    inputs,
                    lambda line: print(line, file=sys.stderr),
                )
            )
    print(table(runs, answers, sent, args.sessions, args.repeats))
    return 0


if __name__ == "__main__":
    sys.exit(main())
