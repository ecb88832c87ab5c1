"""UMAP's layout optimisation in vectorised NumPy: the curve's a and b (`find_ab_params`) and the
negative-sampling SGD (`optimize_layout`) that `lib.stages.umap_np` fits and places points with.

Unlike umap-learn, which moves one edge at a time, each epoch moves all sampled edges at once from
the positions at the start of the epoch; the per-point step is clipped like umap-learn's per-edge
step so hubs cannot overshoot. Shapes: layouts (n, 2) float32; edges as `head`, `tail` index arrays
with one weight each.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from lib import exact

CLIP = 4.0


def find_ab_params(spread: float = 1.0, min_dist: float = 0.1) -> tuple[float, float]:
    """a, b of the curve 1 / (1 + a d^2b) fitted to the offset exponential min_dist gives (umap-learn's find_ab_params).

    Least squares by Levenberg-Marquardt in NumPy: the same fit as umap-learn's scipy curve_fit (to 1e-6)
    without importing scipy.optimize, slow to load in a fresh process.
    """
    x = np.linspace(0, spread * 3, 300)
    y = np.where(x < min_dist, 1.0, exact.exp(-(x - min_dist) / spread))
    log_x = exact.log(np.where(x > 0, x, 1.0))
    params, damping = np.array([1.0, 1.0]), 1e-3

    def residual(p):
        return 1.0 / (1.0 + p[0] * exact.power(x, 2 * p[1])) - y

    for _ in range(200):
        a, b = params
        xb = exact.power(x, 2 * b)
        f2 = (1.0 / (1.0 + a * xb)) ** 2
        jacobian = np.column_stack([-xb * f2, -2 * a * xb * log_x * f2])
        r = residual(params)
        step = _solve_damped(jacobian, r, damping)
        if (residual(params + step) ** 2).sum() < (r**2).sum():
            params, damping = params + step, damping * 0.3
        else:
            damping *= 10
        if np.abs(step).max() < 1e-10:
            break
    return float(params[0]), float(params[1])


def _solve_damped(jacobian: np.ndarray, residual: np.ndarray, damping: float) -> np.ndarray:
    """The Levenberg-Marquardt step for two parameters, by Cramer's rule over sums in a fixed order."""
    j0, j1 = jacobian[:, 0], jacobian[:, 1]
    n00, n01, n11 = (j0 * j0).sum(), (j0 * j1).sum(), (j1 * j1).sum()
    g0, g1 = -(j0 * residual).sum(), -(j1 * residual).sum()
    n00, n11 = n00 * (1 + damping), n11 * (1 + damping)
    determinant = n00 * n11 - n01 * n01
    return np.array([(g0 * n11 - n01 * g1) / determinant, (n00 * g1 - n01 * g0) / determinant])


def _power(x: np.ndarray, exponent: np.float32, out: np.ndarray) -> np.ndarray:
    """x ** exponent for positive float32 `x`, as e^(exponent ln x), into `out`: NumPy's float32 power is SVML's
    on AVX-512 and the C library's elsewhere, but its float32 exp and log give the same bits on
    AVX2 and AVX-512 (not on CPUs with neither). `lib.exact.power` is the same everywhere but far
    slower, and the SGD takes powers for every sampled edge and negative sample of every epoch
    (docs/reproducibility.md)."""
    np.log(x, out=out)
    out *= exponent
    return np.exp(out, out=out)


def epochs_per_sample(weights: np.ndarray) -> np.ndarray:
    """Every how many epochs an edge is sampled: the strongest edge every epoch, the others in proportion."""
    return weights.max() / weights


# Edges and negative samples go through an epoch this many at a time, in work arrays made once: a chunk's
# arrays stay in the core's cache, where arrays of a whole epoch (megabytes, each faulted in afresh) did not.
CHUNK = 32_768


def optimize_layout(
    head_layout: np.ndarray,
    tail_layout: np.ndarray,
    head: np.ndarray,
    tail: np.ndarray,
    weights: np.ndarray,
    n_epochs: int,
    a: float,
    b: float,
    rng: np.random.Generator,
    move_other: bool = True,
    negative_sample_rate: int = 5,
    gamma: float = 1.0,
    initial_alpha: float = 1.0,
    node_clip: float = CLIP,
) -> np.ndarray:
    """UMAP's SGD: attraction along edges sampled in proportion to weight, repulsion from `negative_sample_rate`
    random points per sampled edge, steps clipped at 4 and a learning rate decaying linearly to 0.

    With `move_other` (fitting) the tails are the heads' own layout and both ends move; without it
    (placing new points) only `head_layout` moves and the tails and negative samples come from the fixed `tail_layout`.
    `node_clip` bounds each point's summed step per epoch, as umap-learn's clip bounds one edge's step.

    Points are complex64 x + iy: one gather fetches both coordinates and one `np.add.at` sums both
    components of the steps, each by the same float32 operations, in the same order, as on its own.
    """
    layout = _as_complex(head_layout)
    other = layout if move_other else _as_complex(tail_layout)
    head, tail = np.asarray(head, dtype=np.intp), np.asarray(tail, dtype=np.intp)  # indexing converts others each time
    per_sample = epochs_per_sample(weights).astype(np.float64)
    next_sample = per_sample.copy()
    a32, b32 = np.float32(a), np.float32(b)
    curve = _Curve(np.float32(2.0 * a32 * b32), np.float32(2.0 * gamma * b32), a32, b32)
    work = _Work(max(CHUNK, negative_sample_rate), negative_sample_rate)
    attract = np.empty(len(head), dtype=np.complex64)
    for epoch in range(n_epochs):
        alpha = np.float32(initial_alpha * (1.0 - epoch / n_epochs))
        due = np.flatnonzero(next_sample <= epoch)
        if len(due) == 0:
            continue
        next_sample[due] += per_sample[due]
        h, t = head[due], tail[due]
        here = layout[h]
        for start in range(0, len(h), CHUNK):
            stop = min(len(h), start + CHUNK)
            delta = work.delta(here[start:stop], other, t[start:stop])
            _attraction(delta, curve, work, out=attract[start:stop])
        neg_t = rng.integers(0, len(other), size=len(h) * negative_sample_rate, dtype=np.int32)
        step = np.zeros(len(layout), dtype=np.complex64)
        np.add.at(step, h, attract[: len(h)])
        for start in range(0, len(h) if negative_sample_rate else 0, work.edges):
            stop = min(len(h), start + work.edges)
            samples = neg_t[start * negative_sample_rate : stop * negative_sample_rate]
            repel, close = _repulsion(work.delta(here[start:stop], other, samples, repeat=True), curve, work)
            points = work.repeated(h[start:stop])  # each sample's point
            if move_other:  # a point drawn as its own negative sample is skipped, as umap-learn does
                repel[close[points[close] == samples[close]]] = 0
            np.add.at(step, points, repel)
        if move_other:
            np.subtract.at(step, t, attract[: len(h)])
        for part, moved in ((step.real, layout.real), (step.imag, layout.imag)):
            moved += alpha * np.clip(part, -node_clip, node_clip)
    return np.column_stack([layout.real, layout.imag])


class _Curve(NamedTuple):
    two_ab: np.float32  # 2ab, of the attraction
    two_gb: np.float32  # 2 gamma b, of the repulsion
    a: np.float32
    b: np.float32


class _Work:
    """Work arrays for `size` samples, reused by every chunk; `edges` edges' negative samples fill them."""

    def __init__(self, size: int, negative_sample_rate: int):
        self.rate = negative_sample_rate
        self.edges = max(1, size // max(negative_sample_rate, 1))
        self.repeat_index = np.repeat(np.arange(self.edges), negative_sample_rate)  # edge of each sample
        self.differences = np.empty(size, dtype=np.complex64)
        self.gathered = np.empty(size, dtype=np.complex64)
        self.steps = np.empty(size, dtype=np.complex64)
        self.squares = np.empty(2 * size, dtype=np.float32)
        self.d2 = np.empty(size, dtype=np.float32)
        self.coef = np.empty(size, dtype=np.float32)
        self.index = np.empty(size, dtype=np.intp)
        self.points = np.empty(size, dtype=np.intp)
        self.flags = np.empty(size, dtype=bool)

    def delta(self, here: np.ndarray, other: np.ndarray, index: np.ndarray, repeat: bool = False) -> np.ndarray:
        """`here` (each `rate` times with `repeat`) less `other`[`index`], complex64, in the work arrays."""
        n = len(index)
        np.copyto(self.index[:n], index)  # as intp, once: `take` would convert it itself
        gathered = np.take(other, self.index[:n], out=self.gathered[:n], mode="clip")  # in range: clip is a no-op
        if repeat:
            here = np.take(here, self.repeat_index[:n], out=self.differences[:n], mode="clip")
        return np.subtract(here, gathered, out=self.differences[:n])

    def coincident(self, d2: np.ndarray) -> np.ndarray:
        """Positions where squared distances `d2` are not positive (0, or nan from a broken layout)."""
        if d2.min() > 0:  # most chunks: only a point drawn as its own sample, or a copy of it, makes a 0
            return np.zeros(0, dtype=np.intp)
        flags = np.greater(d2, 0, out=self.flags[: len(d2)])
        return np.flatnonzero(np.logical_not(flags, out=flags))

    def repeated(self, values: np.ndarray) -> np.ndarray:
        """intp `values`, each `rate` times, in the work arrays."""
        n = len(values) * self.rate
        return np.take(values, self.repeat_index[:n], out=self.points[:n], mode="clip")


def _as_complex(layout: np.ndarray) -> np.ndarray:
    """A new complex64 (n,) array x + iy of an (n, 2) layout."""
    return np.ascontiguousarray(layout, dtype=np.float32).view(np.complex64).ravel().copy()


def _attraction(delta: np.ndarray, curve: _Curve, work: _Work, out: np.ndarray) -> None:
    """Into `out`, each sampled edge's attracting step (complex64, clipped at `CLIP` in each axis) from
    `delta`, its head less its tail."""
    d2 = _squared_lengths(delta, work)
    np.maximum(d2, np.float32(1e-12), out=d2)  # coincident points: no attraction (dx = dy = 0)
    # -2ab d^(2b) / (d^2 (a d^(2b) + 1)), in place: each product as it would be in one expression
    coef = _power(d2, curve.b, out=work.coef[: len(d2)])
    denominator = np.multiply(curve.a, coef, out=work.squares[: len(d2)])
    denominator += 1
    denominator *= d2
    coef *= -curve.two_ab
    coef /= denominator
    _clipped_times(coef, delta, out)


def _repulsion(delta: np.ndarray, curve: _Curve, work: _Work) -> tuple[np.ndarray, np.ndarray]:
    """Each negative sample's repelling step (complex64 in the work arrays, clipped at `CLIP` in each
    axis) from `delta`, its point less the sample, and the positions of the samples that coincide with
    their point, pushed by the full clip in each axis as umap-learn pushes coincident distinct points."""
    d2 = _squared_lengths(delta, work)
    close = work.coincident(d2)
    np.maximum(d2, np.float32(1e-12), out=d2)
    # 2 gamma b / ((0.001 + d^2) (a d^(2b) + 1)), in place: each product as it would be in one expression
    coef = _power(d2, curve.b, out=work.coef[: len(d2)])
    coef *= curve.a
    coef += 1
    d2 += np.float32(0.001)
    coef *= d2
    np.divide(curve.two_gb, coef, out=coef)
    steps = work.steps[: len(d2)]
    _clipped_times(coef, delta, steps)
    steps[close] = complex(CLIP, CLIP)
    return steps, close


def _squared_lengths(delta: np.ndarray, work: _Work) -> np.ndarray:
    """dx dx + dy dy (float32, in the work arrays) of complex64 dx + i dy."""
    parts = delta.view(np.float32)
    squares = np.multiply(parts, parts, out=work.squares[: len(parts)])  # dx^2, dy^2 alternating
    return np.add(squares[0::2], squares[1::2], out=work.d2[: len(delta)])


def _clipped_times(coef: np.ndarray, delta: np.ndarray, out: np.ndarray) -> None:
    """Into complex64 `out`, `coef` dx + i `coef` dy of complex64 `delta` dx + i dy, each part clipped at `CLIP`."""
    # On the parts side by side, as float32: contiguous operations, each product as `coef * dx` alone.
    parts = out.view(np.float32)
    parts[0::2] = coef
    parts[1::2] = coef
    parts *= delta.view(np.float32)
    np.clip(parts, -CLIP, CLIP, out=parts)
