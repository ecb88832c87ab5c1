"""UMAP's layout optimisation in vectorised NumPy: the curve's a and b (`find_ab_params`) and the
negative-sampling SGD (`optimize_layout`) that `lib.stages.umap_np` fits and places points with.

Unlike umap-learn, which moves one edge at a time, each epoch moves all sampled edges at once from
the positions at the start of the epoch; the per-point step is clipped like umap-learn's per-edge
step so hubs cannot overshoot. Shapes: layouts (n, 2) float32; edges as `head`, `tail` index arrays
with one weight each.
"""

from __future__ import annotations

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


def _power(x: np.ndarray, exponent: np.float32) -> np.ndarray:
    """x ** exponent for positive float32 `x`, as e^(exponent ln x): NumPy's float32 power is SVML's
    on AVX-512 and the C library's elsewhere, but its float32 exp and log give the same bits on
    AVX2 and AVX-512 (not on CPUs with neither). `lib.exact.power` is the same everywhere but far
    slower, and the SGD takes powers for every sampled edge and negative sample of every epoch
    (docs/reproducibility.md)."""
    return np.exp(exponent * np.log(x))


def epochs_per_sample(weights: np.ndarray) -> np.ndarray:
    """Every how many epochs an edge is sampled: the strongest edge every epoch, the others in proportion."""
    return weights.max() / weights


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
    """
    # x and y as separate contiguous arrays: gathering from 1-D arrays is faster than from rows of (n, 2).
    x, y = np.ascontiguousarray(head_layout[:, 0]), np.ascontiguousarray(head_layout[:, 1])
    ox, oy = (
        (x, y) if move_other else (np.ascontiguousarray(tail_layout[:, 0]), np.ascontiguousarray(tail_layout[:, 1]))
    )
    n_head, n_tail = len(x), len(ox)
    per_sample = epochs_per_sample(weights).astype(np.float64)
    next_sample = per_sample.copy()
    a32, b32 = np.float32(a), np.float32(b)
    two_ab, two_gb = np.float32(2.0 * a32 * b32), np.float32(2.0 * gamma * b32)
    for epoch in range(n_epochs):
        alpha = np.float32(initial_alpha * (1.0 - epoch / n_epochs))
        due = np.flatnonzero(next_sample <= epoch)
        if len(due) == 0:
            continue
        next_sample[due] += per_sample[due]
        h, t = head[due], tail[due]
        dx, dy = x[h] - ox[t], y[h] - oy[t]
        d2 = dx * dx + dy * dy
        d2 = np.maximum(d2, np.float32(1e-12))  # coincident points: no attraction (dx = dy = 0)
        pow_b = _power(d2, b32)
        coef = -two_ab * pow_b / (d2 * (a32 * pow_b + 1))
        ax, ay = np.clip(coef * dx, -CLIP, CLIP), np.clip(coef * dy, -CLIP, CLIP)

        neg_h = np.repeat(h, negative_sample_rate)
        neg_t = rng.integers(0, n_tail, size=len(neg_h), dtype=np.int32)
        nx, ny = x[neg_h] - ox[neg_t], y[neg_h] - oy[neg_t]
        nd2 = nx * nx + ny * ny
        apart = nd2 > 0
        nd2 = np.maximum(nd2, np.float32(1e-12))
        ncoef = two_gb / ((np.float32(0.001) + nd2) * (a32 * _power(nd2, b32) + 1))
        # umap-learn pushes coincident distinct points by the full clip in each axis, and skips a point drawn as its own sample.
        rx = np.where(apart, np.clip(ncoef * nx, -CLIP, CLIP), CLIP)
        ry = np.where(apart, np.clip(ncoef * ny, -CLIP, CLIP), CLIP)
        if move_other:
            self_drawn = neg_h == neg_t
            rx[self_drawn] = 0
            ry[self_drawn] = 0

        for coord, attract, repel in ((x, ax, rx), (y, ay, ry)):
            step = np.zeros(n_head, dtype=np.float32)
            np.add.at(step, h, attract)
            np.add.at(step, neg_h, repel)
            if move_other:
                np.subtract.at(step, t, attract)
            coord += alpha * np.clip(step, -node_clip, node_clip)
    return np.column_stack([x, y])
