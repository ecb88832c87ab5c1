"""Build time, per stage and in total, with peak memory: PaperMap beside the floor and BERTopic, same run.

    python bench/build.py [--sizes titles 3340 10000 30000 87691] [--repeats 3] [--big-repeats 1]
                          [--skip-peer] [--data-dir ../shared/data] [--seed 0] [--no-warmup] [--workers 1 2]

Every run is a whole fresh process on the same list, as a user would start it:
- PaperMap cold: `python -m lib build LIST --cache <empty folder> --out <folder>` (a new list on a
  machine that has run PaperMap before); warm: the same command again, a cache hit. Stage times come
  from the CLI's `--timings` file; "start-up, imports, other" is the wall time the stages leave.
- plain floor: bench/floor_build.py --ngram-max 1, which only reads the list and computes TF-IDF
  over words + SVD-128 with scikit-learn; floor: the same with PaperMap's own terms (words and word
  pairs while the embedder uses both; run once when they are the same). Each stage's seconds are
  also shown in plain floors.
- UMAP floor: bench/floor_umap.py, the floor then plain `umap.UMAP().fit_transform` (the projection's floor).
- peer: bench/peer_bertopic.py, BERTopic `fit_transform` + `visualize_documents` on the floor's vectors.
Sizes: `titles` is the 3,340 ICML 2025 titles (icml2025_papers.json); a number N is N abstracts,
the first N of a seeded shuffle of scale_corpus.json (so smaller samples nest in larger ones),
written to a temporary folder; N at or above the corpus's size is the whole corpus file.
With `--workers N ...` (needs requirements-dask.txt), each repeat also builds cold with `--workers N`
(a local Dask cluster of N processes) for each N, and a table per size gives each stage's seconds per
N and the speed-up of each N over the first.
Before timing, each contender runs once, untimed, on 300 abstracts (numba's, Python's bytecode and
the OS's caches warm, as on a machine that has run it before). Times are medians over the repeats; peak memory
is the largest of any repeat, summed over the contender's process and the processes it starts
(sampled every 0.2 s). Progress goes to stderr, the Markdown tables to stdout.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from _proc import RSS, tree_stats

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "bench"
DEFAULT_DATA_DIR = REPO.parent / "shared" / "data"
TITLES_FILE = "icml2025_papers.json"
CORPUS_FILE = "scale_corpus.json"
DEFAULT_SIZES = ("titles", "3340", "10000", "30000", "87691")
FULL_SIZE = 87_691  # scale_corpus.json's papers: the goals' corpus scale
BIG_SIZE = 30_000  # from here on --big-repeats applies
WARMUP_SIZE = 300
# Offline: BERTopic is given its embeddings, and nothing may fetch a model.
OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
# Unset for every contender: a machine that has run them before has their bytecode cached (pip
# compiles installed packages; a checkout's `lib` is compiled on its first run). With it set, as on
# some sandboxes, every PaperMap start compiled its own modules again (docs/performance.md).
NO_BYTECODE_ENV = ("PYTHONDONTWRITEBYTECODE",)

COLD, WARM, FLOOR, UMAP_FLOOR, PEER = "PaperMap cold", "PaperMap warm", "floor", "UMAP floor", "peer (BERTopic)"
PLAIN_FLOOR = "plain floor"
BASELINE = "baseline cold"  # `--baseline DIR`: another checkout's cold build, beside this one's
GROWN = 100  # papers added to a finished map by `python -m lib extend`, beside adding one
GROW_ONE, GROW_MANY = "grow by 1", f"grow by {GROWN}"
CONTENDERS = (PLAIN_FLOOR, FLOOR, BASELINE, COLD, WARM, UMAP_FLOOR, PEER)  # the order they run in within a repeat
REST = "start-up, imports, other"


# ---- pure helpers (tests/test_bench_build.py) ----


def median(values: Sequence[float]) -> float | None:
    """The median, or None for no values."""
    return statistics.median(values) if values else None


def growth_exponent(n1: int, t1: float | None, n2: int, t2: float | None) -> float | None:
    """k in t ~ n^k between two sizes: log(t2 / t1) / log(n2 / n1); None when a time is missing."""
    if t1 is None or t2 is None or t1 <= 0 or t2 <= 0 or n1 == n2:
        return None
    return math.log(t2 / t1) / math.log(n2 / n1)


def ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None or b <= 0 else a / b


def mark(value: float | None, limit: float) -> str:
    """'met' when value <= limit, 'not met' above it, 'not measured' without a value."""
    if value is None:
        return "not measured"
    return "met" if value <= limit else "not met"


def sample_records(records: list, n: int, seed: int = 0) -> list:
    """The first n of a seeded shuffle of `records`: the same seed gives the same sample, and a
    smaller sample is the start of a larger one. All records, in their order, when n >= len(records)."""
    if n >= len(records):
        return list(records)
    order = list(range(len(records)))
    random.Random(seed).shuffle(order)
    return [records[i] for i in order[:n]]


def exponent_pairs(sizes: Sequence[int]) -> list[tuple[int, int]]:
    """Consecutive pairs of the sorted sizes, plus 10,000 -> 87,691 when both are there."""
    sizes = sorted(set(sizes))
    pairs = list(zip(sizes, sizes[1:]))
    if 10_000 in sizes and FULL_SIZE in sizes and (10_000, FULL_SIZE) not in pairs:
        pairs.append((10_000, FULL_SIZE))
    return pairs


@dataclass
class Run:
    seconds: float
    peak_mb: float
    stages: dict[str, float]
    cpu_seconds: float = 0.0  # user + system, over the process and the processes it waited for


@dataclass
class Case:
    label: str
    kind: str  # "titles" or "abstracts"
    n: int
    path: Path
    runs: dict[str, list[Run]] = field(default_factory=dict)

    def median(self, who: str) -> float | None:
        return median([r.seconds for r in self.runs.get(who, [])])

    def cpu(self, who: str) -> float | None:
        return median([r.cpu_seconds for r in self.runs.get(who, [])])

    def peak(self, who: str) -> float | None:
        peaks = [r.peak_mb for r in self.runs.get(who, [])]
        return max(peaks) if peaks else None

    def stage_medians(self, who: str) -> dict[str, float]:
        runs = self.runs.get(who, [])
        names = list(dict.fromkeys(name for r in runs for name in r.stages))
        return {name: statistics.median([r.stages.get(name, 0.0) for r in runs]) for name in names}


def goal_rows(cases: Sequence[Case]) -> list[tuple[str, str, str]]:
    """(goal, measured, met / not met / not measured) for each of issue 40's build goals, against the
    plain floor (TF-IDF over words + SVD-128)."""

    def find(n: int) -> Case | None:
        return next((c for c in cases if c.kind == "abstracts" and c.n == n), None)

    def show(value: float | None, unit: str = "x") -> str:
        return "-" if value is None else f"{value:.2f}{unit}" if unit == "x" else f"{value:,.0f} {unit}"

    rows = []
    small, big, ten = find(3340), find(FULL_SIZE), find(10_000)
    for case, floor_goal, peer_goal in ((small, 3, 0.15), (big, 3, 0.6)):
        size = f"{case.n:,}" if case else "-"
        value = ratio(case.median(COLD), case.median(PLAIN_FLOOR)) if case else None
        rows.append(
            (f"{size} abstracts, cold: PaperMap / plain floor <= {floor_goal}", show(value), mark(value, floor_goal))
        )
        value = ratio(case.median(COLD), case.median(PEER)) if case else None
        rows.append(
            (f"{size} abstracts, cold: PaperMap / BERTopic <= {peer_goal}", show(value), mark(value, peer_goal))
        )
    value = ratio(small.median(WARM), small.median(PLAIN_FLOOR)) if small else None
    rows.append(("3,340 abstracts, cache hit: warm / plain floor <= 0.1", show(value), mark(value, 0.1)))
    value = max(filter(None, (big.peak(COLD), big.peak(WARM))), default=None) if big else None
    rows.append(
        (
            "87,691 abstracts: PaperMap peak memory, summed over its processes, <= 3,000 MB",
            show(value, "MB"),
            mark(value, 3000),
        )
    )
    mine = growth_exponent(10_000, ten.median(COLD), FULL_SIZE, big.median(COLD)) if ten and big else None
    floors = (
        growth_exponent(10_000, ten.median(PLAIN_FLOOR), FULL_SIZE, big.median(PLAIN_FLOOR)) if ten and big else None
    )
    rows.append(
        (
            "growth exponent 10,000 -> 87,691: PaperMap cold <= the plain floor's",
            "-" if mine is None or floors is None else f"{mine:.2f} (floor {floors:.2f})",
            "not measured" if floors is None else mark(mine, floors),
        )
    )
    return rows


# ---- running ----


def tree_rss_mb(pid: int) -> float:
    """Resident MB summed over process `pid` and all its descendants now (Linux /proc; 0 elsewhere)."""
    page = os.sysconf("SC_PAGE_SIZE")
    return sum(int(fields[RSS]) * page for fields in tree_stats(pid).values()) / 1e6


def run_process(command: list[str], log: Path) -> tuple[float, float, int, str, float]:
    """(wall seconds, peak resident MB, exit status, stdout, CPU seconds) of one fresh process.

    The peak is summed over the process and the processes it starts (a build's side worker, a Dask
    cluster), sampled every 0.2 s, or its own peak from wait4 when that is larger (not
    RUSAGE_CHILDREN, which keeps the largest child so far)."""
    env = {name: value for name, value in os.environ.items() if name not in NO_BYTECODE_ENV} | OFFLINE_ENV
    with open(log, "w") as out, open(log.with_suffix(".err"), "w") as err:
        start = time.perf_counter()
        process = subprocess.Popen(command, cwd=REPO, stdout=out, stderr=err, env=env)
        summed, done = [0.0], threading.Event()

        def sample() -> None:
            while not done.wait(0.2):
                summed[0] = max(summed[0], tree_rss_mb(process.pid))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        done.set()
        sampler.join()
    process.returncode = os.waitstatus_to_exitcode(status)
    peak = max(summed[0], usage.ru_maxrss * 1024 / 1e6)
    return seconds, peak, process.returncode, log.read_text(), usage.ru_utime + usage.ru_stime


def dask_name(workers: int) -> str:
    return f"Dask x{workers}"


def commands(
    path: Path, scratch: Path, workers: Sequence[int] = (), baseline: Path | None = None
) -> dict[str, tuple[list[str], Path | None]]:
    """Each contender's command line, and the file its stage times land in (PaperMap's); with
    `workers`, a cold build on a local Dask cluster of each size, each with its own empty cache;
    with `baseline`, a cold build run in that checkout's folder, so by its `lib` (its worker too)."""
    python = sys.executable
    build = [
        python,
        "-m",
        "lib",
        "build",
        str(path),
        "--cache",
        str(scratch / "cache"),
        "--out",
        str(scratch / "out"),
        "--quiet",
        "--timings",
        str(scratch / "timings.json"),
    ]
    return {
        PLAIN_FLOOR: ([python, str(BENCH / "floor_build.py"), str(path), "--ngram-max", "1"], None),
        FLOOR: ([python, str(BENCH / "floor_build.py"), str(path)], None),
        COLD: (build, scratch / "timings.json"),
        WARM: (build, scratch / "timings.json"),
        UMAP_FLOOR: ([python, str(BENCH / "floor_umap.py"), str(path)], None),
        PEER: ([python, str(BENCH / "peer_bertopic.py"), str(path)], None),
        **(
            {
                BASELINE: (
                    ["env", "-C", str(baseline), *build[:4], str(path.resolve())]
                    + ["--cache", str(scratch / "cache-baseline"), "--out", str(scratch / "out-baseline"), "--quiet"]
                    + ["--timings", str(scratch / "timings-baseline.json")],
                    scratch / "timings-baseline.json",
                )
            }
            if baseline
            else {}
        ),
        **{
            dask_name(n): (
                [*build[:5], "--cache", str(scratch / f"cache-x{n}"), "--out", str(scratch / f"out-x{n}"), "--quiet"]
                + ["--timings", str(scratch / "timings.json"), "--workers", str(n)],
                scratch / "timings.json",
            )
            for n in workers
        },
    }


def measure(who: str, command: list[str], timings: Path | None, scratch: Path) -> Run | None:
    """One timed run; None (with its error on stderr) when the process failed."""
    if timings is not None:
        timings.unlink(missing_ok=True)
    log = scratch / f"{who.split()[0]}-{who.split()[-1].strip('()')}.log"
    seconds, peak, status, stdout, cpu_seconds = run_process(command, log)
    if status != 0:
        tail = log.with_suffix(".err").read_text().strip().splitlines()[-5:]
        print(f"  {who} failed (exit {status}):\n    " + "\n    ".join(tail), file=sys.stderr)
        return None
    if timings is not None:
        stages = (
            {s["name"]: s["seconds"] for s in json.loads(timings.read_text())["stages"]} if timings.exists() else {}
        )
    else:
        lines = [line for line in stdout.splitlines() if line.startswith("{")]
        stages = json.loads(lines[-1])["stages"] if lines else {}
    stages[REST] = max(0.0, seconds - sum(stages.values()))
    return Run(seconds, peak, stages, cpu_seconds)


def speedup_table(case: Case, workers: Sequence[int]) -> list[str]:
    """Markdown rows: each stage's median seconds on each number of `workers`, and the speed-up of
    each over the first (its seconds divided by theirs; above 1 is faster)."""
    runs = {n: case.runs.get(dask_name(n), []) for n in workers}
    stages = list(dict.fromkeys(stage for n in workers for run in runs[n] for stage in run.stages))
    first = workers[0]
    head = [f"{n} workers" for n in workers] + [f"speed-up {n} over {first}" for n in workers[1:]]
    rows = ["| stage | " + " | ".join(head) + " |", "|---" * (len(head) + 1) + "|"]
    for stage in [*stages, "total"]:
        seconds = {
            n: median([run.seconds if stage == "total" else run.stages.get(stage, 0.0) for run in runs[n]])
            for n in workers
        }
        cells = ["-" if seconds[n] is None else f"{seconds[n]:.1f}" for n in workers]
        for n in workers[1:]:
            base, other = seconds[first], seconds[n]
            cells.append(f"{base / other:.2f}x" if base is not None and other else "-")
        rows.append(f"| {stage} | " + " | ".join(cells) + " |")
    return rows


def write_samples(corpus_path: Path, sizes: Sequence[int], seed: int, out_dir: Path) -> dict[str, list]:
    """Write each size's sample of the corpus (and the warm-up's) into out_dir: {size: [path, papers]}.
    A size at or above the corpus's is the corpus file itself."""
    corpus = json.loads(Path(corpus_path).read_text(encoding="utf-8"))
    written = {}
    for n in sizes:
        if n >= len(corpus):
            written[str(n)] = [str(corpus_path), len(corpus)]
            continue
        path = Path(out_dir) / f"abstracts_{n}.json"
        sample = sample_records(corpus, n + GROWN, seed)  # the papers after the first n come later
        path.write_text(json.dumps(sample[:n]), encoding="utf-8")
        for count in (1, GROWN):
            (Path(out_dir) / f"later_{n}_{count}.json").write_text(json.dumps(sample[n : n + count]), encoding="utf-8")
        written[str(n)] = [str(path), n]
    path = Path(out_dir) / "warmup.json"
    path.write_text(json.dumps(sample_records(corpus, WARMUP_SIZE, seed + 1)), encoding="utf-8")
    written["warmup"] = [str(path), WARMUP_SIZE]
    return written


def make_cases(sizes: Sequence[str], data_dir: Path, seed: int, scratch: Path) -> tuple[list[Case], Path]:
    """The cases to run, in the order given, and the warm-up list.

    The corpus is sampled in a child process: a fork inherits this process's peak memory, and the
    parsed 87,691-paper corpus (about 1 GB) would otherwise show up in every contender's peak."""
    numbers = [int(size) for size in sizes if size != "titles"]
    code = (
        f"import json, sys; sys.path.insert(0, {str(BENCH)!r}); from build import write_samples; "
        f"print(json.dumps(write_samples({str(data_dir / CORPUS_FILE)!r}, {numbers!r}, {seed}, {str(scratch)!r})))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    written = json.loads(done.stdout)
    cases = []
    for size in sizes:
        if size == "titles":
            path = data_dir / TITLES_FILE
            cases.append(Case("ICML 2025 titles", "titles", len(json.loads(path.read_text(encoding="utf-8"))), path))
            continue
        path, n = written[str(int(size))]
        whole = Path(path).name == CORPUS_FILE
        cases.append(Case(f"abstracts {n:,}" + (" (all)" if whole else ""), "abstracts", n, Path(path)))
    return cases, Path(written["warmup"][0])


def warm_up(who_list: Sequence[str], path: Path, scratch: Path, baseline: Path | None = None) -> None:
    folder = scratch / "warmup"
    folder.mkdir()
    for who, (command, timings) in commands(path, folder, baseline=baseline).items():
        if who in who_list and who != WARM:
            start = time.perf_counter()
            measure(who, command, timings, folder)
            print(f"  warm-up {who}: {time.perf_counter() - start:.1f} s", file=sys.stderr, flush=True)


def run_case(
    case: Case,
    who_list: Sequence[str],
    repeats: int,
    scratch: Path,
    workers: Sequence[int] = (),
    baseline: Path | None = None,
) -> None:
    for repeat in range(repeats):
        folder = scratch / f"{case.kind}-{case.n}-{repeat}"
        folder.mkdir()  # a new, empty --cache for this repeat's cold run; the warm run reuses it
        for who, (command, timings) in commands(case.path, folder, workers, baseline).items():
            if who not in who_list:
                continue
            run = measure(who, command, timings, folder)
            if run is not None:
                case.runs.setdefault(who, []).append(run)
            shown = "failed" if run is None else f"{run.seconds:.1f} s, {run.peak_mb:,.0f} MB"
            print(f"  {case.label} [{repeat + 1}/{repeats}] {who}: {shown}", file=sys.stderr, flush=True)
        later = {count: case.path.with_name(f"later_{case.n}_{count}.json") for count in (1, GROWN)}
        if COLD in who_list and (folder / "out").is_dir() and all(path.is_file() for path in later.values()):
            for who, count in ((GROW_ONE, 1), (GROW_MANY, GROWN)):  # a later list placed on the finished map
                command = [
                    sys.executable,
                    "-m",
                    "lib",
                    "extend",
                    str(folder / "out"),
                    str(later[count]),
                    "--out",
                    str(folder / f"grown{count}"),
                ]
                run = measure(who, command, None, folder)
                if run is not None:
                    case.runs.setdefault(who, []).append(run)


# ---- tables ----


def fmt(value: float | None, pattern: str = "{:.2f}") -> str:
    return "-" if value is None else pattern.format(value)


def print_tables(cases: Sequence[Case], who_list: Sequence[str]) -> None:
    shown = [w for w in (COLD, WARM, BASELINE, PLAIN_FLOOR, FLOOR, PEER, UMAP_FLOOR) if w in who_list]
    print_time_tables(cases, shown)
    print_stage_tables(cases, who_list, shown)


def print_time_tables(cases: Sequence[Case], shown: Sequence[str]) -> None:
    """Wall seconds and CPU seconds of each contender in `shown`, with the ratios between them."""
    print("## Build time (median seconds, each a fresh process) and ratios\n")
    ratios = {
        "cold / baseline": (COLD, BASELINE),
        "cold / peer": (COLD, PEER),
        "cold / plain floor": (COLD, PLAIN_FLOOR),
        "cold / floor": (COLD, FLOOR),
        "warm / plain floor": (WARM, PLAIN_FLOOR),
    }
    ratios = {name: pair for name, pair in ratios.items() if all(w in shown for w in pair)}
    print("| list | papers | " + " | ".join(f"{w} (s)" for w in shown) + " | " + " | ".join(ratios) + " | repeats |")
    print("|---|---:|" + "---:|" * (len(shown) + len(ratios) + 1))
    for c in cases:
        repeats = max((len(r) for r in c.runs.values()), default=0)
        cells = [fmt(c.median(w)) for w in shown]
        cells += [fmt(ratio(c.median(a), c.median(b)), "{:.2f}x") for a, b in ratios.values()]
        print(f"| {c.label} | {c.n:,} | " + " | ".join(cells) + f" | {repeats} |")

    # CPU seconds do not wait for a core another program holds: the ratios to trust on a busy machine.
    print("\n## CPU seconds (median, user + system, summed over each contender's processes)\n")
    cpu_ratios = {name: pair for name, pair in ratios.items() if WARM not in pair}
    print("| list | " + " | ".join(shown) + " | " + " | ".join(cpu_ratios) + " |")
    print("|---|" + "---:|" * (len(shown) + len(cpu_ratios)))
    for c in cases:
        cells = [fmt(c.cpu(w)) for w in shown] + [
            fmt(ratio(c.cpu(a), c.cpu(b)), "{:.2f}x") for a, b in cpu_ratios.values()
        ]
        print(f"| {c.label} | " + " | ".join(cells) + " |")


def print_stage_tables(cases: Sequence[Case], who_list: Sequence[str], shown: Sequence[str]) -> None:
    """Peak memory, each contender's stages, growth exponents, growing a map and the goals."""
    print("\n## Peak memory (MB, summed over each contender's processes, largest of any repeat)\n")
    print("| list | " + " | ".join(shown) + " |")
    print("|---|" + "---:|" * len(shown))
    for c in cases:
        print(f"| {c.label} | " + " | ".join(fmt(c.peak(w), "{:,.0f}") for w in shown) + " |")

    for who in shown:
        stage_medians = [c.stage_medians(who) for c in cases]
        names = list(dict.fromkeys(n for s in stage_medians for n in s if n != REST)) + [REST]
        if not any(stage_medians):
            continue
        # Each stage in plain floors too: what it costs against the least any map of the list costs.
        in_floors = who in (COLD, WARM, BASELINE) and PLAIN_FLOOR in who_list
        print(f"\n## {who}: median seconds per stage" + (" (in plain floors)" if in_floors else "") + "\n")
        print("| stage | " + " | ".join(c.label for c in cases) + " |")
        print("|---|" + "---:|" * len(cases))
        for name in names:
            cells = []
            for c, medians in zip(cases, stage_medians):
                cell = fmt(medians.get(name))
                floors = ratio(medians.get(name), c.median(PLAIN_FLOOR)) if in_floors else None
                cells.append(cell if floors is None else f"{cell} ({floors:.2f})")
            print(f"| {name} | " + " | ".join(cells) + " |")

    abstracts = {c.n: c for c in cases if c.kind == "abstracts"}
    pairs = exponent_pairs(list(abstracts))
    if pairs:
        print("\n## Growth exponent log(t2 / t1) / log(n2 / n1) between abstract sizes\n")
        print("| contender | " + " | ".join(f"{a:,} -> {b:,}" for a, b in pairs) + " |")
        print("|---|" + "---:|" * len(pairs))
        for who in shown:
            values = [growth_exponent(a, abstracts[a].median(who), b, abstracts[b].median(who)) for a, b in pairs]
            print(f"| {who} | " + " | ".join(fmt(v) for v in values) + " |")

    grown = [c for c in cases if c.median(GROW_ONE) is not None and c.median(GROW_MANY) is not None]
    if grown:
        print("\n## Growing a map: `python -m lib extend` adds later papers without refitting (median seconds)\n")
        print(f"| list | map papers | cold build | {GROW_ONE} | {GROW_MANY} | per added paper (ms) |")
        print("|---|---:|---:|---:|---:|---:|")
        for c in grown:
            per_paper = (c.median(GROW_MANY) - c.median(GROW_ONE)) / (GROWN - 1) * 1000
            print(
                f"| {c.label} | {c.n:,} | {fmt(c.median(COLD))} | {fmt(c.median(GROW_ONE))} "
                f"| {fmt(c.median(GROW_MANY))} | {per_paper:.1f} |"
            )

    print("\n## Issue 40's build goals\n")
    print("| goal | measured | status |")
    print("|---|---:|---|")
    for goal, measured, status in goal_rows(cases):
        print(f"| {goal} | {measured} | {status} |")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes",
        nargs="+",
        default=list(DEFAULT_SIZES),
        help="'titles' (the 3,340 ICML 2025 titles) and/or numbers of abstracts (default: %(default)s)",
    )
    parser.add_argument("--repeats", type=int, default=3, help="runs per contender and size; medians are shown")
    parser.add_argument(
        "--big-repeats", type=int, default=None, help=f"runs at {BIG_SIZE:,} abstracts and more (default: --repeats)"
    )
    parser.add_argument("--skip-peer", action="store_true", help="leave BERTopic out (it is slow at large sizes)")
    parser.add_argument(
        "--baseline",
        type=Path,
        default=None,
        help="a checkout of another commit (git worktree add DIR REV): its cold build runs beside this one's",
    )
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR, help="folder with the paper lists")
    parser.add_argument("--seed", type=int, default=0, help="the abstracts' sampling seed")
    parser.add_argument("--no-warmup", action="store_true", help="skip the untimed first run of each contender")
    parser.add_argument(
        "--workers", nargs="+", type=int, default=[], help="also build cold on local Dask clusters of these sizes"
    )
    args = parser.parse_args(argv)
    if any(n < 1 for n in args.workers):
        parser.error("--workers takes numbers of workers of at least 1")
    for size in args.sizes:
        if size != "titles" and not (size.isdigit() and int(size) >= 50):
            parser.error(f"--sizes takes 'titles' or numbers of abstracts of at least 50; got {size!r}")
    if args.repeats < 1 or (args.big_repeats is not None and args.big_repeats < 1):
        parser.error("--repeats and --big-repeats must be at least 1")
    from floor_build import NGRAM_MAX  # this folder is on sys.path when run as a script

    # The floor with PaperMap's terms is the plain floor when PaperMap uses words alone.
    same_floor = NGRAM_MAX == 1
    left_out = {PEER} if args.skip_peer else set()
    left_out |= {FLOOR} if same_floor else set()
    left_out |= set() if args.baseline else {BASELINE}
    who_list = [w for w in CONTENDERS if w not in left_out]
    dask_list = [dask_name(n) for n in args.workers]
    if PEER in who_list and subprocess.run([sys.executable, "-c", "import bertopic"], capture_output=True).returncode:
        print(
            "BERTopic is not installed (pip install torch==2.13.0 && pip install -r requirements-bench.txt): "
            "the peer is left out.",
            file=sys.stderr,
        )
        who_list.remove(PEER)

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="papermap-bench-build-") as tmp:
        scratch = Path(tmp)
        cases, warmup_list = make_cases(args.sizes, args.data_dir, args.seed, scratch)
        if not args.no_warmup:
            warm_up(who_list, warmup_list, scratch, args.baseline)
        try:
            for case in cases:
                big = case.kind == "abstracts" and case.n >= BIG_SIZE
                repeats = args.big_repeats if big and args.big_repeats else args.repeats
                run_case(case, who_list + dask_list, repeats, scratch, args.workers, args.baseline)
        except KeyboardInterrupt:  # a long run stopped by hand still shows what it measured
            print("interrupted: the tables show the runs that finished", file=sys.stderr)
    print_tables(cases, who_list)
    for case in cases:
        if dask_list:
            print(f"\n{case.label}: cold build on a local Dask cluster, median seconds per stage\n")
            print("\n".join(speedup_table(case, args.workers)))
    print(
        f"\n{sys.executable.rsplit('/', 1)[-1]} on {os.cpu_count()} cores; sampling seed {args.seed}; "
        f"bench took {time.perf_counter() - started:.0f} s."
    )


if __name__ == "__main__":
    main()
