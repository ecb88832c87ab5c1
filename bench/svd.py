"""The embed stage's SVD beside scikit-learn's, on the same TF-IDF: seconds, memory on top of the matrix, quality.

    python bench/svd.py [--sizes 10000 87691] [--repeats 3] [--data-dir ../shared/data] [--seed 0]

For each size (N abstracts: the first N of bench/build.py's seeded shuffle of scale_corpus.json) the
TF-IDF is made once, with the embedder's settings, and saved; then each contender reduces it to 128
dimensions and embeds the rows (`tfidf @ componentsᵀ`, normalised), as the embed stage did and does, in a
fresh process:
- baseline: scikit-learn's randomized `TruncatedSVD(128, random_state=42).fit` (the embed stage up
  to stage version 2, and bench/floor_build.py's);
- PaperMap: `lib.stages.sparse_svd.truncated_svd` (a block of terms at a time).
Seconds and the peak resident memory above the loaded matrix are medians over the repeats (the
contenders alternate); "kept" is the share of the matrix's squared norm that the 128 directions
keep (higher is better; the exact SVD keeps the most any 128 directions can).
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
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO))

BASELINE, PAPERMAP = "scikit-learn TruncatedSVD", "PaperMap truncated_svd"


def _memory_gb(field: str) -> float:
    """This process's `field` of /proc/self/status in GB: VmRSS now, VmHWM the peak."""
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith(field)) / 1e6


def contender(kind: str, matrix_path: str) -> None:
    """In the fresh process: load the matrix, reset the peak, reduce and embed; print one JSON line."""
    import numpy as np
    from scipy import sparse
    from sklearn.preprocessing import normalize

    tfidf = sparse.load_npz(matrix_path).tocsr()
    Path("/proc/self/clear_refs").write_text("5")  # the peak (VmHWM) counts from here
    loaded = _memory_gb("VmRSS")
    start = time.perf_counter()
    if kind == BASELINE:
        from sklearn.decomposition import TruncatedSVD

        components = TruncatedSVD(n_components=128, algorithm="randomized", random_state=42).fit(tfidf).components_
        projected = np.asarray(tfidf @ components.astype(np.float32).T)
    else:
        from lib.stages.sparse_svd import truncated_svd

        projected = truncated_svd(tfidf.tocsc(), 128, 42).rows
    normalize(projected).astype(np.float32)
    seconds, extra_gb = time.perf_counter() - start, _memory_gb("VmHWM") - loaded
    kept = float(np.sum(projected.astype(np.float64) ** 2) / tfidf.multiply(tfidf).sum())
    print(json.dumps({"seconds": seconds, "extra_gb": extra_gb, "kept": kept}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", type=int, default=[10_000, 87_691])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--data-dir", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    from build import sample_records
    from scipy import sparse
    from sklearn.feature_extraction.text import TfidfVectorizer

    from lib.schema import analysis_texts
    from lib.stages.embed import _TFIDF_SETTINGS
    from lib.stages.load import load_papers

    records = json.loads((args.data_dir / "scale_corpus.json").read_text(encoding="utf-8"))
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for size in args.sizes:
            sample = Path(scratch) / f"sample-{size}.json"
            sample.write_text(json.dumps(sample_records(records, size, args.seed)), encoding="utf-8")
            texts = analysis_texts(load_papers(sample).papers)
            tfidf = TfidfVectorizer(**_TFIDF_SETTINGS, min_df=2, max_df=0.5).fit_transform(texts)
            matrix_path = Path(scratch) / f"tfidf-{size}.npz"
            sparse.save_npz(matrix_path, tfidf, compressed=False)
            print(f"{len(texts):,} texts: {tfidf.shape[1]:,} terms, {tfidf.nnz:,} entries", file=sys.stderr)
            runs: dict[str, list[dict]] = {BASELINE: [], PAPERMAP: []}
            for repeat in range(args.repeats):
                for kind in runs:
                    done = subprocess.run(
                        [sys.executable, __file__, "--contender", kind, str(matrix_path)],
                        capture_output=True,
                        text=True,
                        check=True,
                    )
                    runs[kind].append(json.loads(done.stdout.strip().splitlines()[-1]))
                    print(f"  {kind} run {repeat + 1}: {runs[kind][-1]}", file=sys.stderr)
            medians = {
                kind: {field: statistics.median(r[field] for r in results) for field in ("seconds", "extra_gb", "kept")}
                for kind, results in runs.items()
            }
            rows.append((len(texts), tfidf.shape[1], medians))
            del tfidf, texts
    print(f"\nMedians of {args.repeats}, contenders alternating, each in a fresh process:\n")
    print(
        "| abstracts | terms | contender | seconds | memory above the matrix | kept | time / baseline | memory / baseline |"
    )
    print("|---:|---:|---|---:|---:|---:|---:|---:|")
    for n, terms, medians in rows:
        base = medians[BASELINE]
        for kind, m in medians.items():
            print(
                f"| {n:,} | {terms:,} | {kind} | {m['seconds']:.1f} s | {m['extra_gb']:.2f} GB | {m['kept']:.4f} "
                f"| {m['seconds'] / base['seconds']:.2f}x | {m['extra_gb'] / max(base['extra_gb'], 1e-9):.2f}x |"
            )


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--contender":
        contender(sys.argv[2], sys.argv[3])
    else:
        main()
