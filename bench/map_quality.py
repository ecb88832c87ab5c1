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
marker at the default view (discs of the figure's marker_size diameter, the map's padded ranges
fitted with equal units into lib.views.map.stacks.DEFAULT_PLOT_PX, the page's smallest plot area,
at 1280x720), beside trustworthiness@10 and area@10. It is the "stacked" share of the third table.

A third table (--compare) sets the settings before issue 17 beside the new ones, medians over
--seeds seeds: before, min_dist 0.02 and spread 1.0, the marker_size formula (unchanged since; it
then followed the whole map, as it does on the unfiltered view) and the plot area of then,
OLD_PLOT_PX, without equal units (each axis stretched to its side); now, min_dist 0.2 and spread
2.0 at the default view and at FILLED_PLOT_PX (the plot area at 1600x1000), each with marker_size
and with lib.views.map.stacks.suggested_marker_size (the density-aware size). "stacked" is the
share of papers with at least one other marker more than half covering theirs (what the hover and
the card report, lib.views.map.stacks.stack_counts);
"hidden" the share whose disc is more than half under the union of the other discs (sampled at
HIDDEN_SAMPLES points; draw order left aside), which counts a paper buried under several
neighbours none of which alone covers half of it.
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
from lib.stages.project import _pca_2d, project, standardize
from lib.views.map.stacks import (
    DEFAULT_PLOT_PX,
    HALF_COVER_RADII,
    RANGE_PAD,
    marker_size,
    suggested_marker_size,
    view_scale,
)

SEED = 42
BEFORE = {"n_neighbors": 15, "min_dist": 0.1}  # the defaults PaperMap shipped before this bench
PLOT_PX = DEFAULT_PLOT_PX  # the default view: the page's smallest plot area, the scale it shows at 1600x1000 too
# Plot areas measured in headless Chromium on the 3,340 ICML 2025 titles at 1600x1000 (.nsewdrag):
# before the map filled the window (commit fe72d7e's parent) a 1140x423 strip, each axis stretched
# to its side; now 702x706 at equal units (398x400 at 1280x720, about PLOT_PX).
OLD_PLOT_PX = (1140, 423)
FILLED_PLOT_PX = (702, 706)
OLD_LAYOUT = {"min_dist": 0.02, "spread": 1.0}
NEW_LAYOUT = {"min_dist": 0.2, "spread": 2.0}
HIDDEN_SAMPLES = 61  # points of a sunflower pattern filling each disc
# (min_dist, spread): the default before issue 17 first; (0.2, 2.0) is the default since.
SWEEP = ((0.02, 1.0), (0.1, 1.0), (0.25, 1.0), (0.1, 2.0), (0.2, 2.0), (0.25, 2.0), (0.25, 3.0))


def pixels(coords: np.ndarray, plot_px: tuple[int, int] = PLOT_PX, equal: bool = True) -> np.ndarray:
    """`coords` in screen pixels with the map's padded ranges fitted into a `plot_px` plot area: at
    equal units on both axes (as the page draws it now), or each axis stretched to its side (before)."""
    if equal:
        return coords * view_scale(coords[:, 0], coords[:, 1], plot_px)
    extent = np.ptp(coords, axis=0) * (1 + 2 * RANGE_PAD)
    return coords * np.array([side / e if e > 0 else 1.0 for side, e in zip(plot_px, extent)])


def covered_share(
    coords: np.ndarray, diameter_px: float, plot_px: tuple[int, int] = PLOT_PX, equal: bool = True
) -> float:
    """Share of points whose disc of `diameter_px` is more than half covered by one other disc (the
    stacked share), with `coords` fitted into a `plot_px` plot area (see `pixels`)."""
    from scipy.spatial import cKDTree

    if len(coords) < 2:
        return 0.0
    points = pixels(coords, plot_px, equal)
    distances, _ = cKDTree(points).query(points, k=2)
    return float((distances[:, 1] < HALF_COVER_RADII * diameter_px / 2).mean())


def hidden_share(
    coords: np.ndarray, diameter_px: float, plot_px: tuple[int, int] = PLOT_PX, equal: bool = True
) -> float:
    """Share of points whose disc of `diameter_px` is more than half under the union of the other
    discs, from `HIDDEN_SAMPLES` points spread over each disc (see `pixels` for the fit)."""
    from scipy.spatial import cKDTree

    if len(coords) < 2:
        return 0.0
    points, radius = pixels(coords, plot_px, equal), diameter_px / 2
    k = np.arange(HIDDEN_SAMPLES) + 0.5
    angle = k * np.pi * (3 - np.sqrt(5))  # the golden angle: an even, deterministic spread
    pattern = radius * np.sqrt(k / HIDDEN_SAMPLES)[:, None] * np.column_stack([np.cos(angle), np.sin(angle)])
    samples = (points[:, None, :] + pattern[None, :, :]).reshape(-1, 2)
    owner = np.repeat(np.arange(len(points)), HIDDEN_SAMPLES)
    # The two centres nearest each sample: the disc's own one is always within its radius.
    distances, nearest = cKDTree(points).query(samples, k=2)
    other = np.where(nearest[:, 0] == owner, distances[:, 1], distances[:, 0])
    under = (other < radius).reshape(len(points), HIDDEN_SAMPLES)
    return float((under.mean(axis=1) > 0.5).mean())


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
        "--compare", action="store_true", help="print only the before/now table (settings, marker sizes, plot areas)"
    )
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

    if args.compare:
        compare(args, embedders)
        return
    if not args.sweep_only:
        faithfulness(args, embedders)
    sweep(args, embedders)


def compare(args: argparse.Namespace, embedders: list) -> None:
    """The before/now table: layouts, marker sizes and plot areas side by side, medians over `args.seeds`."""
    print(
        "| list | papers | embedder | setting | marker px | stacked | hidden | trustworthiness@10 | area@10 on the map |"
    )
    print("|---|---:|---|---|---:|---:|---:|---:|---:|")
    for path in args.data:
        papers, texts, name = load(path, args.sample, args.seed)
        areas = area_labels(papers)
        count_size = marker_size(len(papers))
        for embedder in embedders:
            vectors = embedder.embed(texts)
            rows: dict[str, list[tuple[float, ...]]] = {}
            for seed in range(SEED, SEED + args.seeds):
                for layout_name, layout in (("before", OLD_LAYOUT), ("now", NEW_LAYOUT)):
                    coords = project(vectors, random_state=seed, **layout)
                    area = area_share(coords, areas, "euclidean")
                    faithful = (trust(vectors, coords), np.nan if area is None else area)
                    frame = pd.DataFrame({"x": coords[:, 0], "y": coords[:, 1]})
                    views = _compare_views(layout_name, layout, frame, count_size)
                    for label, size, plot, equal in views:
                        rows.setdefault(label, []).append(
                            (
                                size,
                                covered_share(coords, size, plot, equal),
                                hidden_share(coords, size, plot, equal),
                                *faithful,
                            )
                        )
            for label, runs in rows.items():
                size, stacked, hidden, trusted, area = np.median(np.array(runs), axis=0)
                print(
                    f"| {name} | {len(papers):,} | {embedder.name} | {label} | {size:.1f} | {stacked:.3f} | {hidden:.3f} "
                    f"| {trusted:.4f} | {fmt(None if np.isnan(area) else float(area))} |",
                    flush=True,
                )


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


def _px(plot: tuple[int, int]) -> str:
    return f"{plot[0]}x{plot[1]}"


def _compare_views(
    when: str, layout: dict, frame: pd.DataFrame, count_size: float
) -> list[tuple[str, float, tuple[int, int], bool]]:
    """The compare table's rows for one layout: (setting, marker px, plot area, equal units)."""
    settings = f"{when}: {layout['min_dist']}, {layout['spread']}"
    if when == "before":
        return [(f"{settings}, marker_size, {_px(OLD_PLOT_PX)} stretched (1600x1000)", count_size, OLD_PLOT_PX, False)]
    return [
        (f"{settings}, {size_name}, {_px(plot)} {note}", size, plot, True)
        for plot, note in ((PLOT_PX, "(1280x720, default view)"), (FILLED_PLOT_PX, "(1600x1000)"))
        for size_name, size in (
            ("marker_size", count_size),
            ("density size", suggested_marker_size(frame, plot_px=plot)),
        )
    ]


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
                "PCA (floor)": lambda v: standardize(_pca_2d(v)),
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
