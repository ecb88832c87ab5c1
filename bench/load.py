"""Many readers at once: concurrent browser sessions on one dashboard, each with its own filter and selection.

    python bench/load.py [--data LIST] [--sessions 20] [--repeats 1] [--cache DIR] [--timeout 600]

One dashboard server (`streamlit run dashboard.py -- --data LIST`, default the embedded seed) listens on
127.0.0.1 only. Its map is built beforehand (`python -m lib build` into the folder the dashboard reads,
kept in --cache) and one untimed visit fills Streamlit's caches, so the figures measure serving, not
building. Then, per repeat, the same steps run with 1 session alone (the baseline) and with --sessions
sessions at once. Each session is its own Playwright browser context (its own cookies, so its own
Streamlit session) in one headless Chromium (Debian's /usr/bin/chromium), all driven concurrently by
async Playwright:

1. open the map -> interactive: every paper plotted and Streamlit idle (`_browser.WAIT_JS`);
2. choose the session's own filter in the sidebar (a different subfield, topic, area or keyword per
   session) -> interactive with that filter's papers plotted;
3. click the session's own paper on the map -> interactive with its card open and in the URL.

When every session has finished, each page is checked against its own plan: the subheader's and the
sidebar's counts, the options chosen in every sidebar facet, the URL's facets and paper, the open
paper's card, and the set of papers plotted. A difference is an isolation violation (named after the
session whose state it matches, if any). An error is a Streamlit exception or error element, a browser
console error, an uncaught page error, or a step that timed out. The script prints the times
(median, p90, max over sessions and repeats) beside the baseline's median, the errors and violations,
and exits 1 if there was any. A last table splits the CPU time between the server and the browsers:
they share the machine's cores, so the times include the browsers' contention for them, which readers
on their own machines would not have.

Its importable entry is `load_test`; tests/test_many_users.py runs it with 3 sessions on the seed and
checks isolation only (`timed=False`). On a 2-core machine, a repeat of 20 sessions takes about three
minutes on the seed and on ICML 2025's 3,340 titles alike (plus the first build).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from _browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    HOLD_MS,
    MARK_JS,
    POINT_JS,
    REPO,
    VIEWPORT,
    WAIT_JS,
    ensure_map,
    streamlit,
)  # puts lib on the path
from scipy.spatial import cKDTree

from lib.map_folder import PAPERS_FILE, read_papers
from lib.views.filters import FACETS, Filters, facet_counts, filter_mask

SEED = REPO / "data" / "icml2025_seed.txt"
DEFAULT_CACHE = Path(tempfile.gettempdir()) / "papermap_bench_load"
PLAN_FACETS = ("subfield", "topic", "area", "keyword")  # taken in turn, so neighbouring sessions differ in kind too
TIMEOUT_S = 600
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")  # /proc's unit of CPU time
STEPS = ("first", "filter", "select")
STEP_NAMES = {
    "first": "first interactive",
    "filter": "interactive after the filter",
    "select": "interactive after the selection",
}

# What a session's page shows, read in one go for the isolation check.
STATE_JS = """() => {
    const gd = document.querySelector('.js-plotly-plot');
    const plotted = new Set();
    for (const t of (gd && gd._fullData) || [])
        if (t.visible !== false && t.customdata) for (const id of t.customdata) plotted.add(String(id));
    const facets = {};
    for (const m of document.querySelectorAll('[data-testid="stSidebar"] [data-testid="stMultiSelect"]'))
        facets[m.querySelector('[data-testid="stWidgetLabel"]').innerText.trim()] =
            m.querySelector('[data-testid="stMultiSelectTagsContainer"]').innerText.split('\\n').map(s => s.trim()).filter(Boolean);
    const heading = Array.from(document.querySelectorAll('[data-testid="stHeading"]')).find(h => h.innerText.includes('Topic map'));
    const link = document.querySelector('[data-testid="stPageLink"]');
    return {heading: heading ? heading.innerText.trim() : '',
            summary: document.querySelector('[data-testid="stSidebar"] [data-testid="stMarkdown"]').innerText.trim(),
            facets, query: location.search, card: link ? link.closest('[data-testid="stVerticalBlock"]').innerText : '',
            plotted: Array.from(plotted)};
}"""


@dataclass(frozen=True)
class Plan:
    """What one session does: choose `value` in facet `facet`'s sidebar widget, then click paper `paper_id`."""

    facet: str
    value: str
    shown: frozenset[str]  # the papers the filter leaves on the map
    paper_id: str
    title: str

    @property
    def option(self) -> str:
        """The option as the multiselect writes it."""
        return f"{self.value} ({len(self.shown)})"

    def __str__(self) -> str:
        return f"{self.facet}={self.value!r}, paper {self.paper_id}"


@dataclass
class Session:
    """One session's plan, its step times in seconds (a step not reached has none), errors and isolation violations."""

    plan: Plan
    times: dict[str, float] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    seen: dict | None = None  # what its page showed when every session had finished (`STATE_JS`)


@dataclass
class LoadResult:
    """What `load_test` saw on paper list `data` of `papers` papers."""

    data: str
    papers: int
    sessions: int
    baseline: list[Session] = field(default_factory=list)  # one per repeat: 1 session alone
    runs: list[list[Session]] = field(default_factory=list)  # one list of `sessions` sessions per repeat
    # Per run: wall seconds, the server's CPU seconds, and the CPU seconds of the browser, Playwright and this script.
    cpu_alone: list[tuple[float, float, float]] = field(default_factory=list)
    cpu: list[tuple[float, float, float]] = field(default_factory=list)

    def errors(self) -> list[str]:
        return [f"{label}: {e}" for label, s in self._labelled() for e in s.errors]

    def violations(self) -> list[str]:
        return [f"{label}: {v}" for label, s in self._labelled() for v in s.violations]

    def _labelled(self):
        for r, session in enumerate(self.baseline):
            yield f"repeat {r + 1}, alone", session
        for r, run in enumerate(self.runs):
            for i, session in enumerate(run):
                yield f"repeat {r + 1}, session {i + 1}", session


def make_plans(papers, n: int) -> list[Plan]:
    """`n` plans with different filters, each leaving a different set of papers when the list has that
    many, and each clicking a paper of its filter that no other plan clicks when one is left.

    Papers go to the narrowest filters first; among a filter's papers, the one farthest from its nearest
    neighbour on the map, so the click cannot land on another point."""
    filters = _different_filters(papers, n)
    # Distance from each paper to the nearest other point on the map (filtered-out papers stay drawn in grey).
    xy = papers[["x", "y"]].to_numpy()
    loneliness = cKDTree(xy).query(xy, k=2)[0][:, 1]
    clicked, used = {}, set()
    for i in sorted(range(len(filters)), key=lambda i: filters[i][2].sum()):
        rows = np.flatnonzero(filters[i][2])
        fresh = ~papers["paper_id"].iloc[rows].isin(used).to_numpy()
        clicked[i] = rows[np.argmax(np.where(fresh, loneliness[rows], -1.0))]
        used.add(papers["paper_id"].iat[clicked[i]])
    return [
        Plan(
            name,
            value,
            frozenset(papers["paper_id"][mask]),
            str(papers["paper_id"].iat[clicked[i]]),
            str(papers["title"].iat[clicked[i]]),
        )
        for i, (name, value, mask) in enumerate(filters)
    ]


def _different_filters(papers, n: int) -> list[tuple[str, str, np.ndarray]]:
    """`n` (facet, value, mask) of one value each, taking `PLAN_FACETS` in turn, most common values first;
    filters that leave a set of papers no earlier one leaves come first."""
    offered = {
        name: [v for v, count in facet_counts(papers, name).items() if count < len(papers)] for name in PLAN_FACETS
    }
    candidates = [
        (name, values[i])
        for i in range(max(map(len, offered.values())))
        for name, values in offered.items()
        if i < len(values)
    ]
    chosen, sets = [], set()
    for allow_same_papers in (False, True):
        for name, value in candidates:
            if len(chosen) == n:
                return chosen
            mask = filter_mask(papers, Filters(**{name: (value,)}))
            shown = frozenset(papers["paper_id"][mask])
            if any((f, v) == (name, value) for f, v, _ in chosen) or (shown in sets and not allow_same_papers):
                continue
            sets.add(shown)
            chosen.append((name, value, mask))
    raise ValueError(f"the list offers {len(chosen)} different filters, fewer than the {n} sessions asked for")


async def _wait(page, want, timeout_ms: int) -> float:
    """performance.now() when the page became interactive showing `want` (see `_browser.WAIT_JS`)."""
    return await page.evaluate(WAIT_JS, [want, HOLD_MS, timeout_ms])


async def _choose(page, plan: Plan, timeout_ms: int) -> float:
    """Choose the plan's option in its sidebar facet; seconds from pressing it to the filtered map, idle."""
    widget = page.locator('[data-testid="stSidebar"] [data-testid="stMultiSelect"]', has_text=FACETS[plan.facet]).first
    await widget.locator("input").click()
    await widget.locator("input").fill(plan.value)
    option = page.get_by_role("option", name=plan.option, exact=True)
    await option.wait_for()
    await page.evaluate(MARK_JS, "mousedown")
    await option.click()
    end = await _wait(page, len(plan.shown), timeout_ms)
    return (end - await page.evaluate("() => window.__benchMark")) / 1000


async def _click_paper(page, plan: Plan, timeout_ms: int) -> float:
    """Click the plan's paper on the map; seconds from releasing the button to its card, idle."""
    x, y, _ = await page.evaluate(POINT_JS, plan.paper_id)
    await page.mouse.move(x, y)
    await page.evaluate(MARK_JS, "mouseup")
    await page.mouse.down()
    await page.mouse.up()
    end = await _wait(page, {"paper": plan.paper_id}, timeout_ms)
    return (end - await page.evaluate("() => window.__benchMark")) / 1000


async def _page_errors(page) -> list[str]:
    found = []
    for test_id, what in (("stException", "Streamlit exception"), ("stAlertContentError", "st.error")):
        elements = page.locator(f'[data-testid="{test_id}"]')
        if await elements.count():
            found.append(f"{what} on the page: {(await elements.first.inner_text())[:300]}")
    return found


async def _act(browser, base: str, plan: Plan, papers: int, timeout_ms: int) -> tuple[Session, object]:
    """One session's steps, timed, stopping at the first that fails; returns it with its still-open context."""
    session = Session(plan)
    context = await browser.new_context(viewport=VIEWPORT)
    page = await context.new_page()
    page.set_default_timeout(timeout_ms)
    page.on(
        "console",
        lambda message: (
            session.errors.append(f"console error: {message.text[:300]}") if message.type == "error" else None
        ),
    )
    page.on("pageerror", lambda error: session.errors.append(f"page error: {str(error)[:300]}"))
    step = "first"
    try:
        await page.goto(base, wait_until="commit")
        session.times["first"] = (
            await _wait(page, papers, timeout_ms) / 1000
        )  # performance.now() counts from navigation start
        step = "filter"
        session.times["filter"] = await _choose(page, plan, timeout_ms)
        step = "select"
        session.times["select"] = await _click_paper(page, plan, timeout_ms)
    except Exception as error:  # a timeout, or a page that is not what the steps expect: the session failed
        session.errors.append(f"{STEP_NAMES[step]}: {type(error).__name__}: {str(error).splitlines()[0][:300]}")
    session.errors.extend(await _page_errors(page))
    return session, context


def _whose(plans: list[Plan], mine: Plan, matches) -> str:
    others = [i + 1 for i, p in enumerate(plans) if p is not mine and matches(p)]
    return f" (session {', '.join(map(str, others))}'s)" if others else ""


def isolation_violations(state: dict, plan: Plan, plans: list[Plan], papers: int) -> list[str]:
    """Where a page's `state` (read by `STATE_JS`) differs from what `plan` should show, each naming the
    sessions of `plans` whose state it matches instead, if any; `papers` is the map's size."""
    found = []
    counts = f"{len(plan.shown):,} of {papers:,} papers"
    seen_count = state["heading"].removeprefix("Topic map: ")
    if seen_count != counts:
        found.append(
            f"the subheader says {seen_count!r}, its filter shows {counts!r}"
            + _whose(plans, plan, lambda p: seen_count == f"{len(p.shown):,} of {papers:,} papers")
        )
    if not state["summary"].startswith(counts):
        found.append(f"the sidebar says {state['summary']!r}, its filter shows {counts!r}")
    chosen = {label: options for label, options in state["facets"].items() if options}
    if chosen != {FACETS[plan.facet]: [plan.option]}:
        found.append(
            f"the sidebar's choices are {chosen}, its own is {FACETS[plan.facet]}: {plan.option!r}"
            + _whose(plans, plan, lambda p: chosen == {FACETS[p.facet]: [p.option]})
        )
    query = urllib.parse.parse_qs(state["query"].lstrip("?"))
    if {name: values for name, values in query.items() if name in FACETS} != {plan.facet: [plan.value]} or query.get(
        "paper"
    ) != [plan.paper_id]:
        found.append(
            f"the URL is {state['query']!r}, its own is {plan}"
            + _whose(plans, plan, lambda p: query.get("paper") == [p.paper_id])
        )
    if plan.title not in state["card"]:
        found.append(
            f"the open paper's card reads {state['card'][:120]!r}, its own paper is {plan.title[:80]!r}"
            + _whose(plans, plan, lambda p: p.title in state["card"])
        )
    plotted = frozenset(state["plotted"])
    if plotted != plan.shown:
        found.append(
            f"the map plots {len(plotted)} papers, {len(plotted - plan.shown)} of them outside its filter, "
            f"{len(plan.shown - plotted)} of its filter's missing" + _whose(plans, plan, lambda p: plotted == p.shown)
        )
    return found


async def run_sessions(
    browser, base: str, plans: list[Plan], papers: int, timeout_s: float = TIMEOUT_S
) -> list[Session]:
    """One session per plan at once on the dashboard at `base`; when all have acted, each page is checked."""
    timeout_ms = int(timeout_s * 1000)
    acted = await asyncio.gather(*(_act(browser, base, plan, papers, timeout_ms) for plan in plans))
    try:
        for session, context in acted:
            if not session.errors:
                session.seen = await context.pages[0].evaluate(STATE_JS)
                session.violations = isolation_violations(session.seen, session.plan, plans, papers)
            session.errors.extend(
                e for e in await _page_errors(context.pages[0]) if e not in session.errors
            )  # one that came up meanwhile
    finally:
        await asyncio.gather(*(context.close() for _, context in acted))
    return [session for session, _ in acted]


def _cpu_by_process() -> dict[int, tuple[int, float]]:
    """pid -> (parent pid, CPU seconds used by it and its exited children), from Linux's /proc."""
    found = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
        except OSError:
            continue  # it exited meanwhile
        found[int(stat.parent.name)] = (
            int(fields[1]),
            sum(map(int, fields[11:15])) / CLOCK_TICKS,
        )  # utime stime cutime cstime
    return found


def _cpu_seconds(root: int, processes: dict[int, tuple[int, float]]) -> float:
    """CPU seconds used so far by `root` and every process below it."""
    children: dict[int, list[int]] = {}
    for pid, (parent, _) in processes.items():
        children.setdefault(parent, []).append(pid)
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        total += processes.get(pid, (0, 0.0))[1]
        todo += children.get(pid, [])
    return total


def _server_pid() -> int:
    """The dashboard server: the child of this process that runs streamlit."""
    for pid, (parent, _) in _cpu_by_process().items():
        if parent == os.getpid() and b"streamlit" in Path(f"/proc/{pid}/cmdline").read_bytes():
            return pid
    raise RuntimeError("no streamlit server among this process's children")


async def _measured(server: int, run):
    """`run`'s result, and (wall seconds, the server's CPU seconds, every other CPU second of this process's tree) it took."""
    before, started = _cpu_by_process(), time.monotonic()
    result = await run
    after = _cpu_by_process()
    server_cpu = _cpu_seconds(server, after) - _cpu_seconds(server, before)
    return result, (
        time.monotonic() - started,
        server_cpu,
        _cpu_seconds(os.getpid(), after) - _cpu_seconds(os.getpid(), before) - server_cpu,
    )


async def _load_test(result: LoadResult, base: str, papers, repeats: int, timeout_s: float, timed: bool, log) -> None:
    from playwright.async_api import async_playwright

    # The baseline gets a plan of its own, so its filter is as new to the server's caches as the sessions' are.
    plans = make_plans(papers, result.sessions + 1)
    baseline_plan = plans.pop()
    server = _server_pid()
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            if timed:  # warm-up: Streamlit's caches filled, nothing recorded
                context = await browser.new_context(viewport=VIEWPORT)
                await (await context.new_page()).goto(base, wait_until="commit")
                await _wait(context.pages[0], len(papers), int(timeout_s * 1000))
                await context.close()
            for repeat in range(repeats):
                if timed:
                    alone, cpu = await _measured(
                        server, run_sessions(browser, base, [baseline_plan], len(papers), timeout_s)
                    )
                    result.baseline += alone
                    result.cpu_alone.append(cpu)
                sessions, cpu = await _measured(server, run_sessions(browser, base, plans, len(papers), timeout_s))
                result.runs.append(sessions)
                result.cpu.append(cpu)
                held = sum(not s.errors for s in sessions)
                log(
                    f"  repeat {repeat + 1} of {repeats}: "
                    + (f"alone {_times(result.baseline[-1])}; " if timed else "")
                    + f"{held} of {result.sessions} sessions held, median first interactive "
                    + _median_text([s.times.get("first") for s in sessions])
                )
        finally:
            await browser.close()


def load_test(
    data: Path = SEED,
    sessions: int = 20,
    repeats: int = 1,
    cache: Path = DEFAULT_CACHE,
    timeout_s: float = TIMEOUT_S,
    timed: bool = True,
    log=print,
) -> LoadResult:
    """Build `data`'s map into `cache` if needed, start one dashboard on 127.0.0.1 and run the load test.

    `timed=False` leaves out the warm-up visit and the 1-session baseline: for checking isolation alone."""
    folder = ensure_map(data.resolve(), cache.resolve())
    papers = read_papers(folder / PAPERS_FILE)
    result = LoadResult(data.name, len(papers), sessions)
    with tempfile.TemporaryDirectory(prefix="papermap_bench_load_") as scratch:
        env = {"PAPERMAP_CACHE": str(cache.resolve()), "PAPERMAP_DB": f"{scratch}/lists.sqlite"}
        with streamlit("dashboard.py", ["--data", str(data.resolve())], env, Path(scratch) / "streamlit.log") as base:
            asyncio.run(_load_test(result, base, papers, repeats, timeout_s, timed, log))
    return result


def _median_text(values) -> str:
    values = [v for v in values if v is not None]
    return f"{statistics.median(values):.2f} s" if values else "–"


def _times(session: Session) -> str:
    return (
        ", ".join(f"{step} {session.times[step]:.2f} s" for step in STEPS if step in session.times)
        or "no step finished"
    )


def table(result: LoadResult) -> str:
    n, repeats = result.sessions, len(result.runs)
    held = sum(not s.errors for run in result.runs for s in run)
    lines = [
        f"Load test: {n} concurrent sessions on {result.data} ({result.papers:,} papers), {repeats} repeat(s); one dashboard on 127.0.0.1.",
        "Warm cache: the map was built and visited once before timing, so this measures serving, not building.",
        "Each session is its own browser context in one headless Chromium: open the map, choose its own sidebar filter,",
        "click its own paper; then every page is checked for its own filter and paper. Baseline: the same steps, 1 session alone.",
        "",
        f"| seconds until interactive | 1 session alone (median) | {n} sessions: median | p90 | max | ratio of medians |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for step in STEPS:
        alone = [s.times[step] for s in result.baseline if step in s.times]
        many = [s.times[step] for run in result.runs for s in run if step in s.times]
        if not many:
            lines.append(f"| {STEP_NAMES[step]} | {_median_text(alone)} | – | – | – | – |")
            continue
        a, m = (statistics.median(alone) if alone else None), statistics.median(many)
        lines.append(
            f"| {STEP_NAMES[step]} | {f'{a:.2f}' if a else '–'} | {m:.2f} | {np.percentile(many, 90):.2f} | {max(many):.2f} | "
            f"{f'{m / a:.1f}x' if a else '–'} |"
        )
    errors, violations = result.errors(), result.violations()
    distinct = len({s.plan.paper_id for s in result.runs[0]}) if result.runs else 0
    lines += [
        "",
        f"Sessions held: {held} of {n * repeats} ({distinct} different papers clicked, {n} different filters per repeat); "
        f"errors: {len(errors)}; isolation violations: {len(violations)}.",
        *(f"  error: {e}" for e in errors),
        *(f"  isolation violation: {v}" for v in violations),
        *_cpu_lines(result),
    ]
    return "\n".join(lines)


def _cpu_lines(result: LoadResult) -> list[str]:
    """Wall and CPU seconds of each kind of run: whether the server or the browsers kept the sessions waiting."""
    if not result.cpu:
        return []
    lines = [
        "",
        f"Where the time went: the browsers share this machine's {os.cpu_count()} cores with the server "
        "(CPU seconds, medians of the repeats).",
        "",
        "| run | wall (s) | server CPU (s) | server CPU per session (s) | browser, Playwright and this script CPU (s) |",
        "|---|---:|---:|---:|---:|",
    ]
    for label, runs, n in (
        ("1 session alone", result.cpu_alone, 1),
        (f"{result.sessions} sessions", result.cpu, result.sessions),
    ):
        if runs:
            wall, server, client = (statistics.median(c[i] for c in runs) for i in range(3))
            lines.append(f"| {label} | {wall:.1f} | {server:.1f} | {server / n:.2f} | {client:.1f} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=SEED, help="paper list (default: the embedded seed)")
    parser.add_argument("--sessions", type=int, default=20, help="concurrent browser sessions (default 20)")
    parser.add_argument("--repeats", type=int, default=1, help="times the baseline and the sessions run (default 1)")
    parser.add_argument(
        "--cache", type=Path, default=DEFAULT_CACHE, help=f"PAPERMAP_CACHE, kept between runs (default {DEFAULT_CACHE})"
    )
    parser.add_argument(
        "--timeout", type=float, default=TIMEOUT_S, help=f"seconds each step may take (default {TIMEOUT_S})"
    )
    args = parser.parse_args(argv)
    if args.sessions < 1 or args.repeats < 1:
        parser.error("--sessions and --repeats must be at least 1")
    result = load_test(
        args.data,
        args.sessions,
        args.repeats,
        args.cache,
        args.timeout,
        log=lambda line: print(line, file=sys.stderr, flush=True),
    )
    print(table(result))
    return 1 if result.errors() or result.violations() else 0


if __name__ == "__main__":
    sys.exit(main())
