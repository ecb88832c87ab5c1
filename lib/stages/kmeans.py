"""k-means of map points in exact arithmetic: the same regions from the same points on any machine.

scikit-learn's KMeans measures distances with BLAS, whose fused multiply-adds and summation order
vary with the CPU's kernel, so a point nearly equidistant from two centres can change region from
one machine to the next. Here distances are (dx^2 + dy^2) element by element and centres are sums
in input order (`np.bincount`), operations IEEE 754 rounds exactly, so the same points and seed give
the same regions to the bit. The algorithm is scikit-learn's: greedy k-means++ seeding, Lloyd's
iterations, the best of `n_init` runs by inertia.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lib.errors import ParameterError


@dataclass(frozen=True)
class Clustering:
    """labels: (n,) int64 region of each point; centres: (k, 2) float64; inertia: weighted sum of
    squared distances to the points' centres."""

    labels: np.ndarray
    centres: np.ndarray
    inertia: float


def kmeans(
    points: np.ndarray,
    n_clusters: int,
    random_state: int = 42,
    n_init: int = 10,
    sample_weight: np.ndarray | None = None,
    max_iter: int = 300,
) -> Clustering:
    """k-means of (n, 2) `points` into `n_clusters` (at most as many as distinct points), weighted
    by `sample_weight` (default 1); the lowest-inertia of `n_init` seeded runs, the first on a tie."""
    points = np.asarray(points, dtype=np.float64)
    if points.ndim != 2 or points.shape[1] != 2:
        raise ParameterError(f"points must be (n, 2); got {points.shape}")
    if not 1 <= n_clusters <= len(points):
        raise ParameterError(f"n_clusters must be between 1 and {len(points)}; got {n_clusters}")
    if n_init < 1:
        raise ParameterError(f"n_init must be at least 1; got {n_init}")
    weight = np.ones(len(points)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    if weight.shape != (len(points),) or not (weight > 0).all():
        raise ParameterError(f"sample_weight must be one positive weight per point; got shape {weight.shape}")
    rng = np.random.default_rng(random_state)
    best: Clustering | None = None
    for _ in range(n_init):
        found = _lloyd(points, weight, _seed_centres(points, weight, n_clusters, rng), max_iter)
        if best is None or found.inertia < best.inertia:
            best = found
    assert best is not None  # n_init >= 1 runs
    return best


def _squared_distances(points: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """(n, k) squared distances, element by element (no BLAS)."""
    dx = points[:, 0, None] - centres[None, :, 0]
    dy = points[:, 1, None] - centres[None, :, 1]
    return dx * dx + dy * dy


def _seed_centres(points: np.ndarray, weight: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """Greedy k-means++ (Arthur and Vassilvitskii 2007, as scikit-learn does it): each new centre is
    the best of 2 + ln k candidates drawn in proportion to their weighted squared distance."""
    trials = 2 + int(math.log(k))
    first = int(np.searchsorted(np.cumsum(weight), rng.uniform() * weight.sum(), side="right"))
    centres = [min(first, len(points) - 1)]
    closest = _squared_distances(points, points[centres])[:, 0]
    for _ in range(1, k):
        potential = (closest * weight).sum()
        if potential == 0:  # every point is a centre already: take the next unused ones in order
            unused = np.setdiff1d(np.arange(len(points)), centres)
            centres.append(int(unused[0]))
            continue
        draws = rng.uniform(size=trials) * potential
        candidates = np.searchsorted(np.cumsum(closest * weight), draws, side="right").clip(max=len(points) - 1)
        with_each = np.minimum(closest[:, None], _squared_distances(points, points[candidates]))
        chosen = int(np.argmin((with_each * weight[:, None]).sum(axis=0)))
        centres.append(int(candidates[chosen]))
        closest = with_each[:, chosen]
    return points[centres].copy()


def _lloyd(points: np.ndarray, weight: np.ndarray, centres: np.ndarray, max_iter: int) -> Clustering:
    """Lloyd's iterations until no point changes region; an emptied region restarts at the point
    farthest from its own centre."""
    k = len(centres)
    labels = np.full(len(points), -1)
    for _ in range(max_iter):
        distances = _squared_distances(points, centres)
        new_labels = np.argmin(distances, axis=1)  # ties to the lower centre
        if np.array_equal(new_labels, labels):
            break
        labels = new_labels
        mass = np.bincount(labels, weights=weight, minlength=k)
        for empty in np.flatnonzero(mass == 0):
            shared = np.bincount(labels, minlength=k)[labels] > 1  # a point whose region keeps another
            farthest = int(np.argmax(distances[np.arange(len(points)), labels] * shared))
            labels[farthest] = empty
            mass = np.bincount(labels, weights=weight, minlength=k)
        centres = np.column_stack(
            [np.bincount(labels, weights=weight * points[:, axis], minlength=k) / mass for axis in (0, 1)]
        )
    inertia = float((_squared_distances(points, centres)[np.arange(len(points)), labels] * weight).sum())
    return Clustering(labels, centres, inertia)
