"""The projection stage alone, each method in a fresh process: PaperMap's NumPy UMAP beside umap-learn.

    python bench/projection.py ../shared/data/scale_corpus.json --sizes 3340,10000,30000 [--methods numpy,umap-learn] [--seed 0]

Embeddings (TF-IDF + SVD-128, as the pipeline makes them) are computed once per size in this
process and saved to a temporary file; each method then runs in a new Python process that imports
lib.stages.project, loads the vectors and projects them, so umap-learn pays its import and numba
compilation as it does in every fresh `python -m lib build`. Prints wall time (import included),
CPU time, peak memory (max RSS) and the growth exponent between consecutive sizes.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from _data import REPO, load

from lib.stages.embed import TfidfSvdEmbedder

CHILD = """
import json, re, sys, time
start = time.perf_counter()
sys.path.insert(0, {repo!r})
import numpy as np
from lib.stages.project import project
vectors = np.load({path!r})
cpu = time.process_time()
project(vectors, method={method!r})
print(json.dumps({{"wall": time.perf_counter() - start, "cpu": time.process_time(),
                  # VmHWM, not ru_maxrss: Linux carries the forking parent's peak into ru_maxrss across exec
                  "rss_mb": int(re.search(r"VmHWM:\\s+(\\d+)", open("/proc/self/status").read()).group(1)) / 1024}}))
"""


def run(method: str, path: Path) -> dict:
    code = CHILD.format(repo=str(REPO), path=str(path), method=method)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--sizes", default="3340,10000,30000")
    parser.add_argument("--methods", default="numpy,umap-learn")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    methods = args.methods.split(",")
    print("| papers | method | wall s (fresh process) | CPU s | peak MB | growth exponent (wall) |")
    print("|---:|---|---:|---:|---:|---:|")
    previous: dict[str, tuple[int, float]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for size in (int(s) for s in args.sizes.split(",")):
            _, texts, _ = load(args.data, size, args.seed)
            path = Path(scratch) / f"vectors_{size}.npy"
            np.save(path, TfidfSvdEmbedder().embed(texts))
            for method in methods:
                result = run(method, path)
                growth = "-"
                if method in previous:
                    n0, t0 = previous[method]
                    growth = f"{math.log(result['wall'] / t0) / math.log(len(texts) / n0):.2f}"
                previous[method] = (len(texts), result["wall"])
                print(
                    f"| {len(texts):,} | {method} | {result['wall']:.1f} | {result['cpu']:.1f} | {result['rss_mb']:.0f} | {growth} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
