"""UMAP's algorithm in vectorised NumPy/SciPy, for cosine vectors: no numba, so no JIT in a fresh process.

The steps follow umap-learn 0.5 (McInnes, Healy & Melville 2018): exact k nearest neighbours by
cosine (`lib.neighbours`), the fuzzy simplicial set (smooth kNN distances, fuzzy union), a spectral initialisation
and the negative-sampling SGD layout. Two changes make it fast without a compiler, both traded
knowingly: the neighbours are exact, found by blocked matrix products, and each SGD epoch moves
all sampled edges at once from the positions at the start of the epoch (umap-learn moves one edge
at a time); the per-point step is clipped like umap-learn's per-edge step so hubs cannot overshoot.

The same vectors give the same layout, to the bit, on any BLAS and (past the SGD's powers, see
`lib.stages.umap_sgd.optimize_layout`) any CPU: neighbours are ranked on exact similarities, the
exponentials are `lib.exact`'s, and the initial layout comes from sparse products and sums in a fixed
order (`spectral_init`, `pca_2d`) instead of LAPACK's eigensolvers, whose last bits vary with the kernel.

Shapes: vectors (n, d) float32 with L2-normalised rows (zero rows allowed); knn indices (n, k)
int64 and distances (n, k) float32, sorted nearest first, the point itself first for a self-query;
graphs are symmetric scipy.sparse CSR (n, n); layouts (n, 2) float32.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from lib import exact
from lib.neighbours import knn_cosine
from lib.stages.umap_sgd import find_ab_params, optimize_layout

SMOOTH_K_TOLERANCE = 1e-5
MIN_K_DIST_SCALE = 1e-3


def smooth_knn_dist(
    distances: np.ndarray, k: float, local_connectivity: float = 1.0, n_iter: int = 64
) -> tuple[np.ndarray, np.ndarray]:
    """Per-point (sigma, rho) so that sum_j exp(-(d_ij - rho_i) / sigma_i) = log2(k), by vectorised bisection.

    As umap-learn's smooth_knn_dist with bandwidth 1: the first column (the point itself) is left out of the sum.
    """
    d = distances.astype(np.float64)
    n = len(d)
    target = np.log2(k)
    rho = np.zeros(n)
    if local_connectivity > 0:
        nonzero = d > 0
        has = nonzero.any(axis=1)
        # local_connectivity 1: rho is the nearest non-zero distance
        first = np.argmax(nonzero, axis=1)
        rho = np.where(has, d[np.arange(n), first], 0.0)
    shifted = np.maximum(d[:, 1:] - rho[:, None], 0.0)
    lo, hi, mid = np.zeros(n), np.full(n, np.inf), np.ones(n)
    active = np.ones(n, dtype=bool)
    for _ in range(n_iter):
        psum = _exp_row_sums(-shifted[active] / mid[active, None])
        done = np.abs(psum - target) < SMOOTH_K_TOLERANCE
        idx = np.flatnonzero(active)
        over = psum > target
        hi[idx[over]] = mid[idx[over]]
        lo[idx[~over]] = mid[idx[~over]]
        new_mid = np.where(np.isinf(hi[idx]), mid[idx] * 2, (lo[idx] + hi[idx]) / 2)
        keep = ~done
        mid[idx[keep]] = new_mid[keep]
        active[idx[done]] = False
        if not active.any():
            break
    mean_all = d.mean()
    floor = np.where(rho > 0, MIN_K_DIST_SCALE * d.mean(axis=1), MIN_K_DIST_SCALE * mean_all)
    return np.maximum(mid, floor), rho


# `_exp_row_sums` takes this many rows at a time: `lib.exact.exp`'s dozens of work arrays then stay in cache.
EXP_ROWS = 2048


def _exp_row_sums(values: np.ndarray) -> np.ndarray:
    """`lib.exact.exp(values).sum(axis=1)`, the same bits: exp works entry by entry and each row is summed alone."""
    return np.concatenate(
        [exact.exp(values[start : start + EXP_ROWS]).sum(axis=1) for start in range(0, max(len(values), 1), EXP_ROWS)]
    )


def membership_weights(
    indices: np.ndarray, distances: np.ndarray, sigma: np.ndarray, rho: np.ndarray, self_query: bool
) -> np.ndarray:
    """exp(-(d - rho) / sigma), 1 within rho; 0 for a point and itself."""
    shifted = distances.astype(np.float64) - rho[:, None]
    weights = np.where(shifted <= 0, 1.0, exact.exp(-np.maximum(shifted, 0) / sigma[:, None]))
    if self_query:
        weights[indices == np.arange(len(indices))[:, None]] = 0.0
    return weights


def fuzzy_graph(indices: np.ndarray, distances: np.ndarray, k: int) -> sp.csr_matrix:
    """UMAP's fuzzy simplicial set: directed memberships made symmetric by fuzzy union (A + A' - A * A')."""
    n = len(indices)
    sigma, rho = smooth_knn_dist(distances, k)
    weights = membership_weights(indices, distances, sigma, rho, self_query=True)
    rows = np.repeat(np.arange(n), indices.shape[1])
    graph = sp.csr_matrix((weights.ravel(), (rows, indices.ravel())), shape=(n, n))
    graph.eliminate_zeros()
    transpose = graph.T.tocsr()
    graph = graph + transpose - graph.multiply(transpose)
    graph.eliminate_zeros()
    return graph.tocsr()


# Power iterations for the initial layouts. They need not converge: UMAP only starts from the
# layout, and 300 steps of the graph's diffusion already give its broad shape (bench/map_quality.py).
SPECTRAL_ITERATIONS = 300
PCA_ITERATIONS = 300


def spectral_init(graph: sp.csr_matrix, vectors: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The graph's Laplacian eigenmap (its 2 leading non-trivial eigenvectors, by subspace
    iteration), or PCA of `vectors` where the graph is disconnected; scaled to 10 units with a
    little seeded noise."""
    from scipy.sparse.csgraph import connected_components

    if connected_components(graph, directed=False)[0] == 1:
        degree = np.asarray(graph.sum(axis=1), dtype=np.float64).ravel()
        scale = 1.0 / np.sqrt(degree)
        trivial = _unit(np.sqrt(degree))  # D^1/2 1: the eigenvector of eigenvalue 1, left out

        def diffuse(columns: np.ndarray) -> np.ndarray:
            # (I + D^-1/2 A D^-1/2) / 2: the eigenvectors of the normalised Laplacian's smallest
            # eigenvalues, as the largest of an operator with no negative eigenvalue.
            moved = (columns + scale[:, None] * (graph @ (scale[:, None] * columns))) / 2
            return moved - trivial[:, None] * _dots(trivial, moved)

        layout = _leading_pair(diffuse, rng.standard_normal((len(degree), 2)), SPECTRAL_ITERATIONS)
    else:
        layout = pca_2d(vectors)
    layout = fix_signs(layout)
    peak = np.abs(layout).max()
    layout = layout * (10.0 / peak) if peak > 0 else layout
    return (layout + rng.normal(scale=1e-4, size=layout.shape)).astype(np.float32)


def _dots(vector: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """`vector` . each column, as sums in NumPy's fixed pairwise order (BLAS's order varies)."""
    return np.array([(vector * column).sum() for column in columns.T])


def _unit(vector: np.ndarray) -> np.ndarray:
    length = np.sqrt((vector * vector).sum())
    return vector / length if length > 0 else vector


def _leading_pair(apply, start: np.ndarray, iterations: int) -> np.ndarray:
    """Two columns spanning the leading eigenvectors of the symmetric operator `apply`, by
    `iterations` steps of subspace iteration from `start` (n, 2), kept orthonormal by Gram-Schmidt."""
    columns = start
    for _ in range(iterations):
        columns = apply(columns)
        first = _unit(columns[:, 0])
        second = _unit(columns[:, 1] - first * _dots(first, columns[:, 1:])[0])
        columns = np.column_stack([first, second])
    return columns


def fix_signs(coords: np.ndarray) -> np.ndarray:
    """`coords` with each column's sign chosen so its largest entry in magnitude is positive.

    Eigenvectors and PCA axes have arbitrary signs; fixing them keeps a picture from flipping.
    """
    if len(coords) == 0:
        return coords
    signs = np.sign(coords[np.argmax(np.abs(coords), axis=0), range(coords.shape[1])])
    return coords * np.where(signs == 0, 1, signs)


def pca_2d(vectors: np.ndarray) -> np.ndarray:
    """The first two principal axes (zeros where there is no spread: identical points stay put).

    The covariance is exact (`lib.exact.products` of the vectors on their grid, less the mean's
    outer product) and its axes are found by subspace iteration, so every machine gets the same bits.
    """
    coords = np.zeros((len(vectors), 2))
    if len(vectors) < 2 or vectors.shape[1] == 0 or np.ptp(vectors, axis=0).max() == 0:
        return coords
    points = exact.snap(vectors)
    totals = points.sum(axis=0)  # exact: grid points
    covariance = exact.products(points.T, points.T) - np.outer(totals, totals) / len(points)
    start = np.random.default_rng(0).standard_normal((points.shape[1], 2))

    def times_covariance(columns: np.ndarray) -> np.ndarray:
        return np.column_stack([(covariance * column).sum(axis=1) for column in columns.T])

    axes = _leading_pair(times_covariance, start, PCA_ITERATIONS)
    centred = points - totals / len(points)
    k = min(2, points.shape[1])
    coords[:, :k] = np.column_stack([(centred * axis).sum(axis=1) for axis in axes.T[:k]])
    return coords


# Batch SGD tuned against umap-learn on real lists (bench/map_quality.py): moving every sampled edge at
# once from the epoch's start positions overshoots with umap-learn's learning rate 1 and needs more
# epochs than umap-learn's to match it; half the rate and twice the negative samples per edge match
# or beat umap-learn's trustworthiness@10 in `N_EPOCHS`, for a fraction of the work.
N_EPOCHS = 200
NEGATIVE_SAMPLE_RATE = 10
LEARNING_RATE = 0.5


def fit_layout(
    vectors: np.ndarray,
    n_neighbors: int,
    min_dist: float,
    rng: np.random.Generator,
    n_epochs: int | None = None,
    spread: float = 1.0,
) -> np.ndarray:
    """UMAP layout (n, 2) float32 of L2-normalised `vectors` (n >= 3); `spread` and `min_dist` as umap-learn's."""
    n = len(vectors)
    k = min(n_neighbors, n - 1)
    indices, distances = knn_cosine(vectors, vectors, k, self_query=True)
    graph = fuzzy_graph(indices, distances, k)
    n_epochs = N_EPOCHS if n_epochs is None else n_epochs
    coo = graph.tocoo()
    # As umap-learn: edges too weak to be sampled once in the whole run are dropped.
    strong = coo.data >= coo.data.max() / n_epochs
    head, tail, weights = coo.row[strong], coo.col[strong], coo.data[strong]
    layout = spectral_init(graph, vectors, rng)
    span = layout.max(axis=0) - layout.min(axis=0)
    layout = (10.0 * (layout - layout.min(axis=0)) / np.where(span > 0, span, 1)).astype(np.float32)
    a, b = find_ab_params(spread, min_dist)
    return optimize_layout(
        layout,
        layout,
        head,
        tail,
        weights,
        n_epochs,
        a,
        b,
        rng,
        negative_sample_rate=NEGATIVE_SAMPLE_RATE,
        initial_alpha=LEARNING_RATE,
    )


def place(
    new_vectors: np.ndarray,
    map_vectors: np.ndarray,
    map_layout: np.ndarray,
    n_neighbors: int,
    refine_epochs: int = 0,
    min_dist: float = 0.02,
    rng: np.random.Generator | None = None,
    spread: float = 1.0,
) -> np.ndarray:
    """Coordinates for new points: the membership-weighted mean of their k nearest mapped points' coordinates
    (umap-learn's transform initialisation), then, with `refine_epochs`, umap-learn's transform SGD that
    moves only the new points (attracted to their mapped neighbours, repelled by random mapped points).
    Rows L2-normalised; `map_layout` is never changed. Refining needs the layout's own scale (UMAP units).
    """
    k = min(n_neighbors, len(map_vectors))
    indices, distances = knn_cosine(new_vectors, map_vectors, k)
    # umap-learn's transform: local connectivity lowered by one, so a new point's nearest neighbour
    # does not get weight 1 by construction; an exact duplicate (distance 0) still does.
    sigma, _ = smooth_knn_dist(
        np.hstack([np.zeros((len(distances), 1), np.float32), distances]), k, local_connectivity=0.0
    )
    weights = exact.exp(-distances.astype(np.float64) / sigma[:, None])
    mean_weights = weights / weights.sum(axis=1, keepdims=True)
    neighbour_coords = np.asarray(map_layout, dtype=np.float64)[indices]  # (m, k, 2)
    coords = np.zeros((len(indices), 2))
    for j in range(k):  # in a fixed order: einsum's depends on the CPU's SIMD width
        coords += mean_weights[:, j, None] * neighbour_coords[:, j]
    if refine_epochs <= 0:
        return coords
    rng = np.random.default_rng(0) if rng is None else rng
    a, b = find_ab_params(spread, min_dist)
    head = np.repeat(np.arange(len(coords)), k)
    refined = optimize_layout(
        coords.astype(np.float32),
        np.asarray(map_layout, dtype=np.float32),
        head,
        indices.ravel(),
        weights.ravel(),
        refine_epochs,
        a,
        b,
        rng,
        move_other=False,
        negative_sample_rate=NEGATIVE_SAMPLE_RATE,
        initial_alpha=LEARNING_RATE,
    )
    return refined.astype(np.float64)
