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

A second table sweeps the layout's (min_dist, spread) with PaperMap's NumPy UMAP, medians over
--seeds seeds: "covered" is the share of papers whose marker is more than half covered by another
marker at the default view (discs of the figure's marker_size diameter, the map fitted with equal
units into a PLOT_PX plot area, as at 1600x1000), beside trustworthiness@10 and area@10.
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
from lib.views.map_figure import marker_size

SEED = 42
BEFORE = {"n_neighbors": 15, "min_dist": 0.1}  # the defaults PaperMap shipped before this bench
PLOT_PX = (1200, 800)  # the map's plot area at a 1600x1000 window, about
# Two equal discs whose centres are closer than this many radii overlap by more than half a disc.
HALF_COVER_RADII = 0.8079
# (min_dist, spread): the default before issue 17 first; (0.2, 2.0) is the default since.
SWEEP = ((0.02, 1.0), (0.1, 1.0), (0.25, 1.0), (0.1, 2.0), (0.2, 2.0), (0.25, 2.0), (0.25, 3.0))


def covered_share(coords: np.ndarray, diameter_px: float, plot_px: tuple[int, int] = PLOT_PX) -> float:
    """Share of points whose disc of `diameter_px` is more than half covered by one other disc, with
    `coords` fitted at equal units on both axes into a `plot_px` plot area."""
    from scipy.spatial import cKDTree

    if len(coords) < 2:
        return 0.0
    extent = np.ptp(coords, axis=0)
    scale = min(
        plot_px[0] / extent[0] if extent[0] > 0 else np.inf, plot_px[1] / extent[1] if extent[1] > 0 else np.inf
    )
    pixels = coords * (scale if np.isfinite(scale) else 1.0)
    distances, _ = cKDTree(pixels).query(pixels, k=2)
    return float((distances[:, 1] < HALF_COVER_RADII * diameter_px / 2).mean())


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
    parser.add_argument("--seeds", type=int, default=3, help="layout seeds for the (min_dist, spread) sweep")
    parser.add_argument("--sweep-only", action="store_true", help="print only the (min_dist, spread) sweep")
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

    if not args.sweep_only:
        faithfulness(args, embedders)
    sweep(args, embedders)


def sweep(args: argparse.Namespace, embedders: list) -> None:
    """The (min_dist, spread) table: medians over `args.seeds` layout seeds."""
    print(
        "\n| list | papers | embedder | marker px | min_dist | spread | covered (more than half) "
        "| trustworthiness@10 | area@10 on the map |"
    )
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
    for path in args.data:
        papers, texts, name = load(path, args.sample, args.seed)
        areas = area_labels(papers)
        diameter = marker_size(len(papers))
        for embedder in embedders:
            vectors = embedder.embed(texts)
            for min_dist, spread in SWEEP:
                runs = []
                for seed in range(SEED, SEED + args.seeds):
                    coords = project(vectors, min_dist=min_dist, spread=spread, random_state=seed)
                    area = area_share(coords, areas, "euclidean")
                    runs.append(
                        (covered_share(coords, diameter), trust(vectors, coords), np.nan if area is None else area)
                    )
                covered, trusted, area = np.median(np.array(runs), axis=0)
                print(
                    f"| {name} | {len(papers):,} | {embedder.name} | {diameter:.1f} | {min_dist} | {spread} | {covered:.3f} "
                    f"| {trusted:.4f} | {fmt(None if np.isnan(area) else float(area))} |",
                    flush=True,
                )


def faithfulness(args: argparse.Namespace, embedders: list) -> None:
    """The first table: PaperMap's map against umap-learn's and PCA's on the same vectors."""
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
