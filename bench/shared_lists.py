"""Build time and row counts of `python -m lib build` on every real paper list, beside a floor.

    python bench/shared_lists.py [--repeats 3] [--data ../shared/data]

Each build runs as a fresh process, like a user's command: "cold" with an empty --cache folder,
"warm" with the cache the cold run left. The floor, in the same run, is a fresh process that only
imports the loader and reads the list. Times are medians over the repeats; ratios are to the floor.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO.parent / "shared" / "data"
SKIP = {"scale_corpus.json"}  # 87,691 papers: for the scale benchmarks


def timed(command: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=True)
    return time.perf_counter() - start, done.stdout


def measure(path: Path, repeats: int) -> dict:
    floor, cold, warm = [], [], []
    rows = ""
    for _ in range(repeats):
        seconds, _ = timed(
            [sys.executable, "-c", f"from lib.stages.load import load_papers; load_papers({str(path)!r})"]
        )
        floor.append(seconds)
        with tempfile.TemporaryDirectory() as scratch:
            build = [
                sys.executable,
                "-m",
                "lib",
                "build",
                str(path),
                "--cache",
                f"{scratch}/cache",
                "--out",
                f"{scratch}/out",
                "--quiet",
            ]
            seconds, _ = timed(build)
            cold.append(seconds)
            seconds, _ = timed(build)
            warm.append(seconds)
            rows = json.loads(Path(f"{scratch}/out/papers.json").read_text())
    return {
        "file": path.name,
        "papers": rows["rows"],
        "skipped": len(rows["load_report"]["skipped"]),
        "floor": statistics.median(floor),
        "cold": statistics.median(cold),
        "warm": statistics.median(warm),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()
    files = [REPO / "data" / "icml2025_seed.txt"]
    if args.data.is_dir():
        files += sorted(p for p in args.data.glob("*.json") if p.name not in SKIP)
    print(
        "| list | papers | skipped | floor: load only (s) | cold build (s) | warm build (s) | cold / floor | warm / floor |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for path in files:
        r = measure(path, args.repeats)
        print(
            f"| {r['file']} | {r['papers']:,} | {r['skipped']} | {r['floor']:.2f} | {r['cold']:.2f} | {r['warm']:.2f} "
            f"| {r['cold'] / r['floor']:.1f}x | {r['warm'] / r['floor']:.1f}x |",
            flush=True,
        )
    print(f"\nmedians of {args.repeats} runs; each a fresh process")


if __name__ == "__main__":
    main()
