"""The build on a local Dask cluster, per process: wall time, CPU seconds, peak memory, beside the default path.

    python bench/cluster.py [--sizes 87691 1000000] [--workers 1 2] [--worker-memory GB] [--repeats 1]
                            [--default-up-to 100000] [--data-dir ../shared/data] [--scratch DIR]
                            [--task-memory]

Each run is a fresh `python -m lib build LIST --cache <empty> --out <empty> --quiet --timings F`,
with `--workers N` for each N of `--workers` (a LocalCluster of N one-thread processes, each keeping to
`--worker-memory GB` when given), and without it (the default path: a side worker process beside the
build) for sizes up to `--default-up-to`.
Size 87691 is ../shared/data/scale_corpus.json itself; any other size is a synthetic list made by
bench/synthetic_corpus.py (seed 0) into the scratch folder, once. The record limit is raised to the
size (PAPERMAP_LIMIT_LIST_RECORDS).

Every process of the build's tree is sampled from /proc every `SAMPLE_SECONDS`: its peak resident
memory and its CPU seconds (user + system, its own, at its last sample: a process's last fraction of
a second may be missed). "driver" is the build's own process, which runs the Dask scheduler too;
"Dask workers" are the cluster's worker processes; the "parse worker" parses a list of over 64 MB
(`lib.builder.load_apart`), 0 when the driver parsed it. Times are medians over the repeats; peaks the
largest of any repeat. Progress goes to stderr, the Markdown tables to stdout.

With --task-memory the Dask workers also record each task's memory (`lib.builder.task_memory`): a
table per Dask run of the `TASK_ROWS` kinds of task that took their worker furthest above what it
held as they started.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from _proc import RSS, STIME, UTIME, tree_stats
from synthetic_corpus import CORPUS_FILE, DEFAULT_DATA_DIR, write_corpus

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from lib.builder.task_memory import TASK_MEMORY_ENV, TaskMemoryRecord, read_task_memory  # noqa: E402

CORPUS_SIZE = 87_691
SAMPLE_SECONDS = 0.2
DEFAULT = "default"  # the path without --workers
OTHER = "other"  # a process `role_of` cannot name
TICKS = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")
TASK_ROWS = 12  # kinds of task shown per run with --task-memory


@dataclass
class Process:
    """One process of a build's tree as last sampled: what it is, its peak MB and its CPU seconds."""

    role: str
    peak_mb: float = 0.0
    cpu_seconds: float = 0.0


@dataclass
class Run:
    seconds: float
    processes: dict[int, Process]
    stages: dict[str, float]
    peak_sum_mb: float  # the largest sum over the tree at one sample
    status: int = 0  # the build's exit status: a failed run's figures are those until it ended
    tasks: list[TaskMemoryRecord] = field(default_factory=list)  # with --task-memory

    def cpu(self, role: str | None = None) -> float:
        return sum(p.cpu_seconds for p in self.processes.values() if role is None or p.role == role)

    def peak(self, role: str) -> float:
        return max((p.peak_mb for p in self.processes.values() if p.role == role), default=0.0)


@dataclass
class Case:
    n: int
    path: Path
    runs: dict[str, list[Run]] = field(default_factory=dict)


def role_of(pid: int, root: int) -> str:
    """What a process of the build's tree is, by its command line."""
    if pid == root:
        return "driver"
    try:
        command = (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return OTHER
    if "spawn_main" in command:
        return "Dask worker"
    if "lib.builder.parallel" in command:
        return "parse worker" if "--purpose=parse" in command else "side worker"
    return OTHER


def sample_tree(root: int, seen: dict[int, Process]) -> float:
    """Update `seen` with each process of `root`'s tree now; returns the tree's summed resident MB."""
    total = 0.0
    for pid, fields in tree_stats(root).items():
        resident = int(fields[RSS]) * PAGE / 1e6
        if pid not in seen:  # its command line is read once, not at every sample
            seen[pid] = Process(role_of(pid, root))
        elif seen[pid].role == OTHER:  # met while it started, it showed its parent's command line, or none
            seen[pid].role = role_of(pid, root)
        process = seen[pid]
        process.peak_mb = max(process.peak_mb, resident)
        process.cpu_seconds = (int(fields[UTIME]) + int(fields[STIME])) / TICKS
        total += resident
    return total


def run_build(
    path: Path,
    n: int,
    workers: int | None,
    scratch: Path,
    worker_memory: float | None = None,
    task_memory: bool = False,
) -> Run:
    """One cold build of `path` in a fresh process; a failed one (its error on stderr) has its status
    and the figures until it ended (killed for lack of memory, a build's peaks say where it stood).
    `task_memory`: the workers record each task's memory into `scratch`/task-memory."""
    timings = scratch / "timings.json"
    command = [sys.executable, "-m", "lib", "build", str(path), "--cache", str(scratch / "cache")]
    command += ["--out", str(scratch / "out"), "--quiet", "--timings", str(timings)]
    command += ["--workers", str(workers)] if workers else []
    command += ["--worker-memory", str(worker_memory)] if workers and worker_memory else []
    limit = max(n, 250_000)
    env = os.environ | {"PAPERMAP_LIMIT_LIST_RECORDS": str(limit), "HF_HUB_OFFLINE": "1"}
    tasks_folder = scratch / "task-memory"
    if task_memory:
        env[TASK_MEMORY_ENV] = str(tasks_folder)
    seen: dict[int, Process] = {}
    peak_sum = [0.0]
    with open(scratch / "build.err", "w") as errors:
        start = time.perf_counter()
        process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=errors, env=env)
        done = threading.Event()

        def sample() -> None:
            while not done.wait(SAMPLE_SECONDS):
                peak_sum[0] = max(peak_sum[0], sample_tree(process.pid, seen))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        status = process.wait()
        seconds = time.perf_counter() - start
        done.set()
        sampler.join()
    if status != 0:
        tail = (scratch / "build.err").read_text().strip().splitlines()[-5:]
        print(f"  build failed (exit {status}):\n    " + "\n    ".join(tail), file=sys.stderr)
        return Run(seconds, seen, {}, peak_sum[0], status, read_task_memory(tasks_folder))
    stages = {s["name"]: s["seconds"] for s in json.loads(timings.read_text())["stages"]}
    return Run(seconds, seen, stages, peak_sum[0], tasks=read_task_memory(tasks_folder))


def contenders(n: int, workers: Sequence[int], default_up_to: int) -> list[str]:
    return ([DEFAULT] if n <= default_up_to else []) + [f"Dask x{w}" for w in workers]


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def summary_rows(case: Case) -> list[str]:
    """Markdown rows: each contender's medians and peaks at this size, and its wall time over the first's."""
    rows = []
    first = None
    for who, runs in case.runs.items():
        failed = [r.status for r in runs if r.status]
        if failed:  # its figures are those until the first failure ended it
            who, runs = f"{who}: failed (exit {failed[0]}) after", [r for r in runs if r.status][:1]
        wall = median([r.seconds for r in runs])
        first = first or wall
        cpu, driver = median([r.cpu() for r in runs]), median([r.cpu("driver") for r in runs])
        rows.append(
            f"| {case.n:,} | {who} | {wall:.1f} | {wall / first:.2f}x | {cpu:.1f} | {driver:.1f} ({driver / cpu:.0%}) "
            f"| {max(r.peak('driver') for r in runs):,.0f} "
            f"| {max(max(r.peak('Dask worker'), r.peak('side worker')) for r in runs):,.0f} "
            f"| {max(r.peak('parse worker') for r in runs):,.0f} "
            f"| {max(r.peak_sum_mb for r in runs):,.0f} |"
        )
    return rows


def stage_rows(case: Case) -> list[str]:
    """Markdown rows: each stage's median seconds per contender at this size."""
    names = list(dict.fromkeys(stage for runs in case.runs.values() for run in runs for stage in run.stages))
    head = "| stage | " + " | ".join(case.runs) + " |"
    rows = [head, "|---" * (len(case.runs) + 1) + "|"]
    for stage in names:
        cells = [f"{median([run.stages.get(stage, 0.0) for run in runs]):.1f}" for runs in case.runs.values()]
        rows.append(f"| {stage} | " + " | ".join(cells) + " |")
    return rows


def task_rows(records: Sequence[TaskMemoryRecord], top: int = TASK_ROWS) -> list[str]:
    """Markdown rows: per kind of task (its name), the `top` whose largest rise above what their
    worker held at their start is largest: how many ran, their seconds, that rise, the largest peak."""
    by_name: dict[str, list[TaskMemoryRecord]] = {}
    for record in records:
        by_name.setdefault(record.name, []).append(record)
    rises = {name: max(r.rise_mb for r in group) for name, group in by_name.items()}
    rows = ["| task | tasks | seconds, all | largest rise MB | largest peak MB |", "|---|---|---|---|---|"]
    for name in sorted(by_name, key=lambda name: (-rises[name], name))[:top]:
        group = by_name[name]
        rows.append(
            f"| {name} | {len(group)} | {sum(r.seconds for r in group):.1f} | {rises[name]:,.0f} "
            f"| {max(r.peak_mb for r in group):,.0f} |"
        )
    return rows


def corpus_path(n: int, data_dir: Path, scratch: Path) -> Path:
    """The list of `n` papers: the scale corpus itself, or a synthetic one made once into `scratch`."""
    if n == CORPUS_SIZE:
        return data_dir / CORPUS_FILE
    path = scratch / f"synthetic_{n}.json"
    if not path.exists():
        print(f"  writing {path} ...", file=sys.stderr, flush=True)
        write_corpus(path, n, seed=0, data_dir=data_dir)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[CORPUS_SIZE, 1_000_000])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--worker-memory", type=float, default=None, metavar="GB")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--default-up-to", type=int, default=100_000)
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    parser.add_argument(
        "--scratch", type=Path, default=None, help="where synthetic lists are kept (default: a temporary folder)"
    )
    parser.add_argument("--task-memory", action="store_true", help="the Dask workers' memory per kind of task")
    args = parser.parse_args()
    scratch = args.scratch or Path(tempfile.mkdtemp(prefix="papermap-cluster-"))
    scratch.mkdir(parents=True, exist_ok=True)
    cases = [Case(n, corpus_path(n, args.data_dir, scratch)) for n in args.sizes]
    for case in cases:
        for repeat in range(args.repeats):
            for who in contenders(case.n, args.workers, args.default_up_to):
                folder = Path(tempfile.mkdtemp(prefix=f"{case.n}-{who.replace(' ', '')}-", dir=scratch))
                workers = None if who == DEFAULT else int(who.split("x")[1])
                run = run_build(case.path, case.n, workers, folder, args.worker_memory, args.task_memory)
                shown = f"{run.seconds:.1f} s, driver {run.peak('driver'):,.0f} MB" + (
                    f", failed (exit {run.status})" if run.status else ""
                )
                print(f"  {case.n:,} [{repeat + 1}/{args.repeats}] {who}: {shown}", file=sys.stderr, flush=True)
                case.runs.setdefault(who, []).append(run)
    print(
        "| papers | path | wall s | vs first | CPU s, all processes | driver CPU s (share) "
        "| driver peak MB | largest worker peak MB | parse worker peak MB | summed peak MB |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for case in cases:
        print("\n".join(summary_rows(case)))
    for case in cases:
        print(f"\nStage seconds at {case.n:,} papers (from --timings):\n")
        print("\n".join(stage_rows(case)))
    for case in cases:
        for who, runs in case.runs.items():
            for number, run in enumerate(runs, 1):
                if run.tasks:
                    print(f"\nTasks' memory at {case.n:,} papers, {who}, run {number} (worker's resident MB):\n")
                    print("\n".join(task_rows(run.tasks)))


if __name__ == "__main__":
    main()
