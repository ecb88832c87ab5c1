"""k-means of map points in exact arithmetic: the same regions from the same points on any machine.

scikit-learn's KMeans measures distances with BLAS, whose fused multiply-adds and summation order
vary with the CPU's kernel, so a point nearly equidistant from two centres can change region from
one machine to the next. Here distances are (dx^2 + dy^2) element by element and centres are sums
in input order (`np.bincount`), operations IEEE 754 rounds exactly, so the same points and seed give
the same regions to the bit. The algorithm is scikit-learn's: greedy k-means++ seeding, Lloyd's
iterations, the best of `n_init` runs by inertia.

Speed without changing a bit, by proving work unneeded rather than doing it differently:
- Lloyd's iterations skip the points that provably keep their region (Hamerly 2010): each point
  carries an upper bound on its distance to its own centre and a lower bound on its distance to
  every other one, moved by how far the centres move and rounded outwards, and a point is skipped
  only when the margin between them exceeds any rounding of the computed squares;
- a point that is measured is measured only against the centres near its own (Elkan 2003);
- seeding compares its candidates by fast pairwise sums, and by sums in input order (the ones that
  decide) only when two are within the rounding of each other.
Distances are computed over contiguous rows or in cache-sized blocks, never as a whole (n, k) array.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lib.errors import ParameterError

_BLOCK = 2048  # points per block: a block's (points, centres) temporaries stay in the CPU cache
# Bounds are widened by this relative slack (far above float64's 2^-53 rounding, far below any
# distance that matters) and by _TINY absolutely (past the rounding of squares near underflow).
_SLACK = 2.0**-40
_TINY = 1e-300
_TINY_DISTANCE = 1e-150  # sqrt(_TINY): a lower bound must exceed it to prove anything
# Coordinates at most this large cannot overflow a squared distance, which the bounds assume.
_SANE = 1e150


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


def _squares_into(
    x: np.ndarray, y: np.ndarray, cx: np.ndarray | float, cy: np.ndarray | float, out: np.ndarray, spare: np.ndarray
) -> np.ndarray:
    """(x - cx)^2 + (y - cy)^2 into `out`, element by element (no BLAS), with `spare` as scratch of
    its shape (either may be `cx` or `cy` itself); the centres broadcast against the points. Every
    squared distance of this module is made here, so the bounds compare numbers computed alike."""
    np.subtract(x, cx, out=out)
    np.multiply(out, out, out=out)
    np.subtract(y, cy, out=spare)
    np.multiply(spare, spare, out=spare)
    return np.add(out, spare, out=out)


def _distances_into(x: np.ndarray, y: np.ndarray, centres: np.ndarray, out: np.ndarray, spare: np.ndarray) -> None:
    """(m, k) squared distances of the points (`x`, `y`) to `centres` into `out`, `spare` as scratch."""
    _squares_into(x[:, None], y[:, None], centres[:, 0], centres[:, 1], out, spare)


def _paired_distances(x: np.ndarray, y: np.ndarray, cx: np.ndarray | float, cy: np.ndarray | float) -> np.ndarray:
    """Squared distance of each point (`x`, `y`) to its own centre (`cx`, `cy`)."""
    return _squares_into(x, y, cx, cy, np.empty(len(x)), np.empty(len(x)))


def _seed_centres(points: np.ndarray, weight: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """Greedy k-means++ (Arthur and Vassilvitskii 2007, as scikit-learn does it): each new centre is
    the best of 2 + ln k candidates drawn in proportion to their weighted squared distance."""
    trials = 2 + int(math.log(k))
    first = int(np.searchsorted(np.cumsum(weight), rng.uniform() * weight.sum(), side="right"))
    centres = [min(first, len(points) - 1)]
    x, y = np.ascontiguousarray(points[:, 0]), np.ascontiguousarray(points[:, 1])
    closest = _paired_distances(x, y, x[centres[0]], y[centres[0]])
    for _ in range(1, k):
        weighted = closest * weight
        potential = weighted.sum()
        if potential == 0:  # every point is a centre already: take the next unused ones in order
            unused = np.setdiff1d(np.arange(len(points)), centres)
            centres.append(int(unused[0]))
            continue
        draws = rng.uniform(size=trials) * potential
        candidates = np.searchsorted(np.cumsum(weighted), draws, side="right").clip(max=len(points) - 1)
        # A candidate drawn twice ties with itself and the first draw wins: measure each once.
        _, first_draws = np.unique(candidates, return_index=True)
        distinct = candidates[np.sort(first_draws)]
        nearer = _nearer(x, y, closest, distinct)
        chosen = _least_potential(nearer, weight)
        centres.append(int(distinct[chosen]))
        closest = nearer[chosen]
    return points[centres].copy()


def _nearer(x: np.ndarray, y: np.ndarray, closest: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """(t, n): each point's squared distance to the nearer of its `closest` centre and each of the
    points `indices`, one 1D row per index (contiguous rows run at full vector speed; a broadcast
    (n, t) array does not)."""
    rows = np.empty((len(indices), len(x)))
    spare = np.empty(len(x))
    for row, index in zip(rows, indices):
        np.minimum(closest, _squares_into(x, y, x[index], y[index], row, spare), out=row)
    return rows


def _least_potential(nearer: np.ndarray, weight: np.ndarray) -> int:
    """The row of `nearer` (t, n) whose weighted sum in input order is least, the first on a tie.

    Sums in input order are slow in NumPy (a C-ordered (n, t) array summed over its rows), and only
    their order matters: for terms >= 0 any order of summing is within (n - 1) 2^-53 of the exact
    sum relatively, so the fast pairwise sums decide unless two are that close, and then the sums
    in input order do."""
    if len(nearer) == 1:
        return 0
    spare = np.empty(len(weight))
    rough = np.array([np.multiply(row, weight, out=spare).sum() for row in nearer])
    best = int(np.argmin(rough))
    margin = (len(weight) + 2) * 2.0**-50  # over four times the bound, so rounding here cannot matter
    others = np.delete(rough, best)
    if (rough < 1e300).all() and (others * (1 - margin) > rough[best] * (1 + margin)).all():
        return best
    weighted = np.empty((len(weight), len(nearer)))  # C-ordered (n, t), as the sums in input order need
    np.multiply(nearer.T, weight[:, None], out=weighted)
    return int(np.argmin(weighted.sum(axis=0)))


def _lloyd(points: np.ndarray, weight: np.ndarray, centres: np.ndarray, max_iter: int) -> Clustering:
    """Lloyd's iterations until no point changes region; an emptied region restarts at the point
    farthest from its own centre."""
    k = len(centres)
    x, y = np.ascontiguousarray(points[:, 0]), np.ascontiguousarray(points[:, 1])
    labels = np.full(len(points), -1)
    # Hamerly's bounds, in distances (not squared): unknown at first, so every point is measured.
    upper, lower = np.full(len(points), np.inf), np.full(len(points), -np.inf)
    sane_points = bool((np.abs(points) <= _SANE).all())
    weighted = [weight * points[:, axis] for axis in (0, 1)]
    for _ in range(max_iter):
        new_labels = _assign(x, y, centres, labels, upper, lower, sane_points)
        if np.array_equal(new_labels, labels):
            break
        labels = new_labels
        mass = np.bincount(labels, weights=weight, minlength=k)
        for empty in np.flatnonzero(mass == 0):
            shared = np.bincount(labels, minlength=k)[labels] > 1  # a point whose region keeps another
            farthest = int(np.argmax(_own_distances(x, y, centres, labels) * shared))
            labels[farthest] = empty
            upper[farthest], lower[farthest] = np.inf, -np.inf  # its bounds were for its old region
            mass = np.bincount(labels, weights=weight, minlength=k)
        moved = np.column_stack([np.bincount(labels, weights=sums, minlength=k) / mass for sums in weighted])
        shift = _above(_paired_distances(moved[:, 0], moved[:, 1], centres[:, 0], centres[:, 1]))
        _move_bounds(labels, shift, upper, lower)
        centres = moved
    inertia = float((_own_distances(x, y, centres, labels) * weight).sum())
    return Clustering(labels, centres, inertia)


def _own_distances(x: np.ndarray, y: np.ndarray, centres: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Squared distance of each point (`x`, `y`) to its centre `centres[labels]`."""
    return _paired_distances(x, y, centres[:, 0].take(labels), centres[:, 1].take(labels))


def _assign(
    x: np.ndarray,
    y: np.ndarray,
    centres: np.ndarray,
    labels: np.ndarray,
    upper: np.ndarray,
    lower: np.ndarray,
    sane_points: bool,
) -> np.ndarray:
    """The nearest centre of each point (ties to the lower centre), measuring only the points whose
    bounds do not prove their region unchanged; refreshes the bounds of the points measured."""
    sane = sane_points and bool((np.abs(centres) <= _SANE).all())  # else the bounds' arithmetic could overflow
    if not sane or labels[0] < 0:  # or no region yet (the first iteration): measure every point
        new_labels, nearest, second = _nearest(x, y, centres)
        upper[:], lower[:] = (_above(nearest), _below(second)) if sane else (np.inf, -np.inf)
        return new_labels
    new_labels = labels.copy()
    measure = np.flatnonzero(~_proven(upper, lower))
    if len(measure):  # first tighten the upper bound to the exact distance to the own centre
        upper[measure] = _above(_own_distances(x[measure], y[measure], centres, labels[measure]))
        measure = measure[~_proven(upper[measure], lower[measure])]
    if len(measure):
        new_labels[measure], upper[measure], lower[measure] = _nearest_of_neighbours(
            x[measure], y[measure], centres, labels[measure], upper[measure]
        )
    return new_labels


def _nearest_of_neighbours(
    x: np.ndarray, y: np.ndarray, centres: np.ndarray, labels: np.ndarray, upper: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`_nearest` of the points (`x`, `y`) within `upper` of their centres `labels`, measured only
    against the centres near their own; returns their nearest centres and bounds (upper, lower).

    A centre more than 2u (with margin) from a point's own centre is more than u from the point
    (triangle inequality), so it is farther than the own centre even in computed squares (Elkan 2003)."""
    k = len(centres)
    reach = np.zeros(k)
    np.maximum.at(reach, labels, upper)  # per region, the farthest of its points measured
    squared, spare = np.empty((k, k)), np.empty((k, k))
    _distances_into(centres[:, 0], centres[:, 1], centres, squared, spare)
    gap = _below(squared)  # lower bounds on the distances between centres
    near = gap <= reach[:, None] * (2 + 4 * _SLACK) + 2 * _TINY_DISTANCE
    width = int(near.sum(axis=1).max())
    if 2 * width > k:  # too many neighbours to gain from gathering them
        new_labels, nearest, second = _nearest(x, y, centres)
        return new_labels, _above(nearest), _below(second)
    # Each region's neighbours in increasing order, padded with centre k at infinity; one row per
    # rank of neighbour and one column per point, so each step below runs over contiguous rows.
    order = np.argsort(~near, axis=1, kind="stable")[:, :width]
    table = np.where(np.take_along_axis(near, order, axis=1), order, k)
    candidates = np.take(np.ascontiguousarray(table.T), labels, axis=1)  # C-ordered, unlike table.T[:, labels]
    across, along = np.append(centres[:, 0], np.inf)[candidates], np.append(centres[:, 1], np.inf)[candidates]
    nearest, second = np.full(len(x), np.inf), np.full(len(x), np.inf)
    rank = np.zeros(len(x), dtype=np.int64)
    for step, (dx, dy) in enumerate(zip(across, along)):
        _squares_into(x, y, dx, dy, dx, dy)  # the candidates' coordinates become the squares
        np.putmask(rank, dx < nearest, step)  # only a strictly nearer one: ties to the lower centre
        np.minimum(second, np.maximum(nearest, dx, out=dy), out=second)  # the two least, with repeats
        np.minimum(nearest, dx, out=nearest)
    # A centre left out is at least (its gap to the own centre) - u from the point.
    beyond = np.where(near, np.inf, gap).min(axis=1).take(labels) * (1 - _SLACK) - upper
    chosen = candidates[rank, np.arange(len(x))]
    return chosen, _above(nearest), np.minimum(_below(second), beyond)


def _nearest(x: np.ndarray, y: np.ndarray, centres: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each point (`x`, `y`): its nearest centre (the first on a tie, as `np.argmin`), the
    squared distance to it and the squared distance to the next nearest (inf with one centre)."""
    labels, nearest, second = np.empty(len(x), dtype=np.int64), np.empty(len(x)), np.empty(len(x))
    block = np.empty((min(len(x), _BLOCK), len(centres)))
    spare = np.empty_like(block)
    for start in range(0, len(x), _BLOCK):
        stop = min(start + _BLOCK, len(x))
        rows, scratch = block[: stop - start], spare[: stop - start]
        _distances_into(x[start:stop], y[start:stop], centres, rows, scratch)
        every = np.arange(stop - start)
        closest = rows.argmin(axis=1)
        labels[start:stop], nearest[start:stop] = closest, rows[every, closest]
        rows[every, closest] = np.inf
        second[start:stop] = rows[every, rows.argmin(axis=1)]  # argmin runs faster than min on rows
    return labels, nearest, second


def _proven(upper: np.ndarray, lower: np.ndarray) -> np.ndarray:
    """Whether a point's bounds prove its own centre strictly nearest in computed squared distances:
    the margin covers the few ulps by which a computed square can differ from the true one."""
    return upper * (1 + _SLACK) + _TINY_DISTANCE < lower


def _above(squared: np.ndarray) -> np.ndarray:
    """An upper bound on the true distance whose computed squared distance is `squared`."""
    return np.sqrt(squared * (1 + _SLACK) + _TINY) * (1 + _SLACK)


def _below(squared: np.ndarray) -> np.ndarray:
    """A lower bound on the true distance whose computed squared distance is `squared`."""
    return np.sqrt(np.maximum(squared * (1 - _SLACK) - _TINY, 0.0)) * (1 - _SLACK)


def _move_bounds(labels: np.ndarray, shift: np.ndarray, upper: np.ndarray, lower: np.ndarray) -> None:
    """Keep the bounds true after each centre moves at most `shift` (triangle inequality): the own
    centre may be its shift farther, any other its shift nearer. The slack factors round outwards
    (each rounding is within 2^-53 of the exact value), and a lower bound at or below 0 stays there,
    proving nothing."""
    upper += shift.take(labels)
    upper *= 1 + _SLACK
    farthest = int(np.argmax(shift))
    shrink = np.full(len(shift), shift[farthest])
    shrink[farthest] = np.delete(shift, farthest).max(initial=0.0)  # the farthest mover's others
    lower *= 1 - _SLACK
    lower -= shrink.take(labels)
