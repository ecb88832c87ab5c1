"""Vectors -> a 2D map: UMAP with a fixed seed, PCA where a corpus is too small for UMAP.

UMAP runs as vectorised NumPy/SciPy (lib.stages.umap_np), so a fresh process pays no numba import or JIT;
umap-learn stays available as `method="umap-learn"`, the reference the benches compare against.
Past `sample_threshold` papers the map is fitted on a seeded sample and the others are placed by
their nearest fitted neighbours, which keeps time and memory linear; `place_new` does the same for
papers added to an existing map, without moving the papers already on it. The placed papers go in
blocks of `PLACE_BLOCK`, each block with its own seeded generator, so the blocks may be placed
anywhere in any order (`lib.builder.project_partitions`, on a cluster) and give the same map.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from lib.errors import ParameterError
from lib.neighbours import normalize_rows
from lib.stages import umap_np

# Below this many papers UMAP's neighbour graph is too thin to mean anything; PCA is exact and stable.
MIN_UMAP_POINTS = 10
# Past this many papers the layout is fitted on a seeded sample of this size and the rest placed.
SAMPLE_THRESHOLD = 20_000
# The papers placed on a sampled map go this many at a time (see `place_block`).
PLACE_BLOCK = 16_384
METHODS = ("numpy", "umap-learn")


def project(
    vectors: np.ndarray,
    n_neighbors: int = 12,
    min_dist: float = 0.2,
    metric: str = "cosine",
    random_state: int = 42,
    method: str = "numpy",
    sample_threshold: int = SAMPLE_THRESHOLD,
    n_epochs: int | None = None,
    spread: float = 2.0,
) -> np.ndarray:
    """An (n, 2) float64 array of map coordinates for (n, d) `vectors`, centred and scaled to unit spread.

    The defaults keep local neighbourhoods and let papers be told apart (bench/map_quality.py): a
    dozen neighbours kept neighbourhoods better than n_neighbors=15, and min_dist=0.2 with spread=2.0
    leaves far fewer markers more than half covered by another at the default view, at a small cost
    in trustworthiness@10 and none in primary-area agreement; wider settings cost more.

    method: "numpy" (lib.stages.umap_np, cosine only) or "umap-learn" (the reference; slow to start).
    sample_threshold: with "numpy", more papers than this are mapped by fitting a seeded sample of
    this many and placing the others (`place_new`). n_epochs: SGD epochs, umap-learn's default when None.
    min_dist and spread: umap-learn's; spread must exceed min_dist.

    Small inputs are handled: 0 points give an empty map, 1 point sits at the origin, fewer than
    `MIN_UMAP_POINTS` are laid out by PCA, and `n_neighbors` shrinks to fit the corpus.
    """
    check_settings(n_neighbors, min_dist, spread, sample_threshold, method, metric)
    vectors = np.asarray(vectors, dtype=np.float32)
    n = len(vectors)
    if n < MIN_UMAP_POINTS:
        coords = _pca_2d(vectors)
    elif method == "umap-learn":
        coords = _umap_learn(vectors, n_neighbors, min_dist, metric, random_state, spread)
    else:
        coords = _numpy_umap(vectors, n_neighbors, min_dist, random_state, sample_threshold, n_epochs, spread)
    return standardize(coords)


def check_settings(
    n_neighbors: int,
    min_dist: float,
    spread: float,
    sample_threshold: int,
    method: str = "numpy",
    metric: str = "cosine",
) -> None:
    """A `ParameterError` naming the first of `project`'s settings out of its range, if any."""
    if n_neighbors < 2:
        raise ParameterError(f"n_neighbors must be at least 2; got {n_neighbors}")
    if not 0 <= min_dist <= 1:
        raise ParameterError(f"min_dist must be in [0, 1]; got {min_dist}")
    if not spread > min_dist:
        raise ParameterError(f"spread must exceed min_dist ({min_dist}); got {spread}")
    if method not in METHODS:
        raise ParameterError(f"method must be one of {', '.join(METHODS)}; got {method!r}")
    if method == "numpy" and metric != "cosine":
        raise ParameterError(f"metric must be cosine with method='numpy'; got {metric!r}")
    if sample_threshold < MIN_UMAP_POINTS:
        raise ParameterError(f"sample_threshold must be at least {MIN_UMAP_POINTS}; got {sample_threshold}")


def place_new(
    new_vectors: np.ndarray,
    map_vectors: np.ndarray,
    map_coords: np.ndarray,
    n_neighbors: int = 12,
) -> np.ndarray:
    """(m, 2) float64 coordinates for m new papers on an existing map, leaving the map as it is.

    new_vectors (m, d) and map_vectors (n, d): embeddings in the same space (the map's saved
    embeddings.npy); map_coords (n, 2): the map's x, y. Each new paper goes to the weighted mean of
    its `n_neighbors` nearest mapped papers' coordinates (by cosine), weighted as UMAP weighs
    neighbours, so a near-duplicate of a mapped paper lands beside it.
    """
    if n_neighbors < 1:
        raise ParameterError(f"n_neighbors must be at least 1; got {n_neighbors}")
    map_coords = np.asarray(map_coords, dtype=np.float64)
    if len(map_vectors) != len(map_coords) or map_coords.ndim != 2 or map_coords.shape[1] != 2:
        raise ParameterError(
            f"map_coords must be ({len(map_vectors)}, 2), one row per map vector; got {map_coords.shape}"
        )
    new = normalize_rows(np.atleast_2d(new_vectors))
    if len(map_vectors) == 0:
        return np.zeros((len(new), 2))
    if len(new) == 0:
        return np.zeros((0, 2))
    return umap_np.place(new, normalize_rows(map_vectors), map_coords, n_neighbors)


@dataclass(frozen=True)
class LayoutSettings:
    """The UMAP settings of a sampled map's fit and placement (`project`'s, same names)."""

    n_neighbors: int
    min_dist: float
    spread: float
    random_state: int
    n_epochs: int | None = None


@dataclass(frozen=True)
class SampledMap:
    """A map fitted on a sample of the papers: the sample's unit vectors and their layout (UMAP units)."""

    vectors: np.ndarray
    layout: np.ndarray


@dataclass(frozen=True)
class SamplePlan:
    """Which rows a sampled map fits (sorted), the other rows in placement blocks, and the seeded
    generator the fit goes on with."""

    fitted: np.ndarray
    blocks: list[np.ndarray]
    rng: np.random.Generator


def sample_plan(n: int, sample_threshold: int, random_state: int) -> SamplePlan:
    """The plan of a map of `n` papers fitted on a seeded sample of `sample_threshold` (< n)."""
    rng = np.random.default_rng(random_state)
    fitted = np.sort(rng.choice(n, size=sample_threshold, replace=False))
    rest = np.setdiff1d(np.arange(n), fitted)
    return SamplePlan(fitted, [rest[a : a + PLACE_BLOCK] for a in range(0, len(rest), PLACE_BLOCK)], rng)


def fit_sampled_map(vectors: np.ndarray, settings: LayoutSettings, rng: np.random.Generator) -> SampledMap:
    """UMAP fitted on the sample's `vectors` (rows in the plan's order), drawing from the plan's `rng`."""
    unit = normalize_rows(vectors)
    layout = umap_np.fit_layout(unit, settings.n_neighbors, settings.min_dist, rng, settings.n_epochs, settings.spread)
    return SampledMap(unit, layout)


def place_block(vectors: np.ndarray, fitted: SampledMap, block: int, settings: LayoutSettings) -> np.ndarray:
    """(m, 2) layout coordinates of placement block number `block`'s `vectors` on the `fitted` map.

    As umap-learn's transform: the weighted mean of the nearest fitted papers, refined by a third of
    the fit's epochs moving only these papers. The block's generator is seeded by the settings' seed
    and its number alone, so where and when it is placed changes nothing.
    """
    epochs = (settings.n_epochs or umap_np.N_EPOCHS) // 3
    rng = np.random.default_rng([settings.random_state, block])
    return umap_np.place(
        normalize_rows(vectors),
        fitted.vectors,
        fitted.layout,
        settings.n_neighbors,
        epochs,
        settings.min_dist,
        rng,
        settings.spread,
    )


def _numpy_umap(vectors, n_neighbors, min_dist, random_state, sample_threshold, n_epochs, spread):
    settings = LayoutSettings(n_neighbors, min_dist, spread, random_state, n_epochs)
    n = len(vectors)
    if n <= sample_threshold:
        rng = np.random.default_rng(random_state)
        return umap_np.fit_layout(normalize_rows(vectors), n_neighbors, min_dist, rng, n_epochs, spread)
    plan = sample_plan(n, sample_threshold, random_state)
    fitted = fit_sampled_map(vectors[plan.fitted], settings, plan.rng)
    coords = np.empty((n, 2), dtype=np.float64)
    coords[plan.fitted] = fitted.layout
    for number, rows in enumerate(plan.blocks):
        coords[rows] = place_block(vectors[rows], fitted, number, settings)
    return coords


def _umap_learn(vectors, n_neighbors, min_dist, metric, random_state, spread):
    import umap  # costly import (numba); only the reference path pays it

    n = len(vectors)
    reducer = umap.UMAP(
        n_neighbors=min(n_neighbors, n - 1),
        min_dist=min_dist,
        spread=spread,
        metric=metric,
        random_state=random_state,
        # Spectral init needs a connected graph of a decent size; random init is safe when small.
        init="spectral" if n > 50 else "random",
    )
    with warnings.catch_warnings():
        # A seed makes UMAP single-threaded and it says so each call; that trade is intended.
        warnings.filterwarnings("ignore", message=".*n_jobs value 1 overridden.*")
        return reducer.fit_transform(vectors)


def _pca_2d(vectors: np.ndarray) -> np.ndarray:
    """The first two principal axes, signs fixed so the same input always gives the same picture."""
    return umap_np.fix_signs(umap_np.pca_2d(vectors))


def standardize(coords: np.ndarray) -> np.ndarray:
    """float64 `coords` centred on their mean and scaled so the farthest coordinate is 1."""
    coords = np.asarray(coords, dtype=np.float64)
    if len(coords) == 0:
        return coords.reshape(0, 2)
    centred = coords - coords.mean(axis=0)
    spread = np.abs(centred).max()
    return centred / spread if spread > 0 else centred
