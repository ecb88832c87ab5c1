"""How faithful the 2D map is: trustworthiness@10 against the embedding space, and how often map neighbours share a primary_area.

    python bench/map_quality.py DATA.json [DATA.json ...] [--sample 3000] [--seed 0] [--embedders tfidf-svd,sentence-transformers]

For each list and each embedder (sentence-transformers only where it is installed), the 2D map
from PaperMap's projection (lib.stages.project's defaults: UMAP in NumPy, lib.stages.umap_np) is compared, in the
same run, with baselines on the same vectors: umap-learn with the same settings (the reference the
NumPy UMAP must match), umap-learn with the settings PaperMap shipped before (n_neighbors=15,
min_dist=0.1) and a PCA projection (the floor). "map s" is in-process time; umap-learn's first
call also pays its numba compilation, as it does in every fresh process. Trustworthiness@10 is sklearn's, with the
embedding's metric (cosine). "area@10" is, over the papers with a `primary_area`, the share of
each one's 10 nearest labelled map neighbours filed under the same area; the same share among its
10 nearest neighbours in the embedding space is the ceiling a map could keep, and "chance" what
random neighbours would give. Lists larger than --sample are sampled with a fixed seed.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from _data import area_labels, load

from lib.stages.embed import EMBEDDERS, EmbedderUnavailable, make_embedder
from lib.stages.project import _pca_2d, _standardize, project

SEED = 42
BEFORE = {"n_neighbors": 15, "min_dist": 0.1}  # the defaults PaperMap shipped before this bench


def trust(vectors: np.ndarray, coords: np.ndarray) -> float:
    from sklearn.manifold import trustworthiness

    return float(trustworthiness(vectors, coords, n_neighbors=10, metric="cosine"))


def area_share(points: np.ndarray, areas: pd.Series | None, metric: str) -> float | None:
    """Share of each labelled paper's 10 nearest labelled neighbours (in `points`) that share its area."""
    if areas is None:
        return None
    from sklearn.neighbors import NearestNeighbors

    labelled = (areas != "").to_numpy()
    names = areas.to_numpy()[labelled]
    neighbours = NearestNeighbors(n_neighbors=11, metric=metric).fit(points[labelled]).kneighbors(return_distance=False)
    return float((names[neighbours[:, :10]] == names[:, None]).mean())


def chance(areas: pd.Series | None) -> float | None:
    if areas is None:
        return None
    shares = areas[areas != ""].value_counts(normalize=True)
    return float((shares**2).sum())


def fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, nargs="+")
    parser.add_argument(
        "--sample", type=int, default=None, help="sample lists larger than this many papers (fixed seed)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--embedders", default=",".join(EMBEDDERS), help=f"comma-separated, from {', '.join(EMBEDDERS)}"
    )
    args = parser.parse_args()
    warnings.filterwarnings("ignore", message=".*n_jobs value 1 overridden.*")

    embedders = []
    for name in args.embedders.split(","):
        try:
            embedders.append(make_embedder(name, random_state=SEED))
        except EmbedderUnavailable as error:
            print(f"{name}: left out ({error})\n")

    print(
        "| list | papers | embedder | map | trustworthiness@10 | area@10 on the map "
        "| area@10 in the embedding (ceiling) | chance | embed s | map s |"
    )
    print("|---|---:|---|---|---:|---:|---:|---:|---:|---:|")
    for path in args.data:
        papers, texts, name = load(path, args.sample, args.seed)
        areas = area_labels(papers)
        for embedder in embedders:
            start = time.perf_counter()
            vectors = embedder.embed(texts)
            embed_seconds = time.perf_counter() - start
            ceiling = area_share(vectors, areas, "cosine")
            maps = {
                "PCA (floor)": lambda v: _standardize(_pca_2d(v)),
                "umap-learn before (n_neighbors=15, min_dist=0.1)": lambda v: project(
                    v, random_state=SEED, method="umap-learn", **BEFORE
                ),
                "umap-learn, PaperMap's settings (reference)": lambda v: project(
                    v, random_state=SEED, method="umap-learn"
                ),
                "PaperMap: NumPy UMAP (lib.stages.project defaults)": lambda v: project(v, random_state=SEED),
            }
            for label, make in maps.items():
                start = time.perf_counter()
                coords = make(vectors)
                map_seconds = time.perf_counter() - start
                print(
                    f"| {name} | {len(papers):,} | {embedder.name} | {label} | {trust(vectors, coords):.4f} "
                    f"| {fmt(area_share(coords, areas, 'euclidean'))} | {fmt(ceiling)} | {fmt(chance(areas))} "
                    f"| {embed_seconds:.1f} | {map_seconds:.1f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
