"""Where each coarse topic's region of the map lies: a smoothed density per topic on a grid, kept
only where that topic is the densest, for `lib.views.map.figure` to draw as light outlined areas
under the points. Pure; no Streamlit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.ndimage import gaussian_filter
from scipy.spatial import cKDTree

GRID = 72  # cells across the longer side; a region's edge is drawn to about a hundredth of the map
SMOOTHING_CELLS = 1.6  # the density's least Gaussian width, in cells: enough to join a clump, not its neighbours
HELD_SHARE = 0.8  # a region is drawn around the densest part holding this share of its topic's papers
LEVELS = 255  # densities go out as bytes: a fifth of float32's size on the wire, and an edge moves by under a cell
# The grid reaches this many of the widest smoothing past the ranges, where a density has all but
# vanished: cut off at the ranges, a sparse topic's region ended in a straight edge.
REACH_WIDTHS = 3.0


@dataclass(frozen=True)
class Region:
    """One topic's region: `density` (rows along y, columns along x, 0-255) over the grid whose
    cell centres are `x` and `y`; its outline is the contour at `level`."""

    label: str
    x: np.ndarray
    y: np.ndarray
    density: np.ndarray
    level: float

    def extent(self) -> tuple[float, float, float, float]:
        """(x0, x1, y0, y1): the box the region's outline lies in. The outline crosses between the
        centre of a cell at or above its level and the next cell's centre: a cell past the last."""
        rows, columns = np.nonzero(self.density >= self.level)
        cell = self.x[1] - self.x[0] if len(self.x) > 1 else 0.0
        return (
            float(self.x[columns.min()] - cell),
            float(self.x[columns.max()] + cell),
            float(self.y[rows.min()] - cell),
            float(self.y[rows.max()] + cell),
        )


def topic_regions(
    papers: pd.DataFrame,
    x_range: tuple[float, float],
    y_range: tuple[float, float],
    label_column: str = "topic_label",
    grid: int = GRID,
    min_papers: int = 5,
) -> list[Region]:
    """The regions of the topics in `label_column` with at least `min_papers` papers, largest first.

    Each topic's papers are binned on a grid of square cells over the ranges (`grid` cells along the
    longer side) and smoothed by a Gaussian as wide as the typical distance between a paper and the
    topic's nearest other paper (at least `SMOOTHING_CELLS`), so a sparse topic on a small map
    still forms one area and a dense one keeps its gaps; a cell belongs to the topic with the highest density there, so regions
    never overlap. A region's outline is the density level above which `HELD_SHARE` of its papers
    lie (the level is taken at the papers' own cells), so a region follows the bulk of its topic and
    leaves out its strays. Topics with fewer papers, or no label, have no region. The grid reaches
    past the ranges as far as the smoothing does, so an outline may too (`Region.extent`).
    """
    if not 0 < grid <= 512:
        raise ValueError(f"grid must be between 1 and 512 cells; got {grid}")
    span = max(x_range[1] - x_range[0], y_range[1] - y_range[0]) or 1.0
    cell = span / grid
    labels = papers[label_column].astype(str)
    sizes = labels[labels != ""].value_counts()
    topics = [t for t, n in sizes.items() if n >= min_papers]
    if not topics:
        return []
    xs, ys = papers["x"].to_numpy(dtype=float), papers["y"].to_numpy(dtype=float)
    masks = [labels.eq(t).to_numpy() for t in topics]
    widths = [max(SMOOTHING_CELLS, _typical_spacing(xs[mask], ys[mask]) / cell) for mask in masks]
    margin = np.ceil(REACH_WIDTHS * max(widths)) * cell
    x_edges = np.arange(x_range[0] - margin, x_range[1] + margin + cell, cell)
    y_edges = np.arange(y_range[0] - margin, y_range[1] + margin + cell, cell)
    densities = np.stack(
        [
            gaussian_filter(np.histogram2d(ys[mask], xs[mask], bins=(y_edges, x_edges))[0], width, mode="constant")
            for mask, width in zip(masks, widths)
        ]
    )
    densest = densities.argmax(axis=0)
    columns = np.clip(np.searchsorted(x_edges, xs, side="right") - 1, 0, len(x_edges) - 2)
    rows = np.clip(np.searchsorted(y_edges, ys, side="right") - 1, 0, len(y_edges) - 2)
    x_centres, y_centres = (x_edges[:-1] + x_edges[1:]) / 2, (y_edges[:-1] + y_edges[1:]) / 2
    regions = []
    for k, topic in enumerate(topics):
        own = np.where(densest == k, densities[k], 0.0)
        at_papers = own[rows[masks[k]], columns[masks[k]]]
        level = float(np.quantile(at_papers, 1 - HELD_SHARE))
        peak = float(own.max())
        if level <= 0 or peak <= 0:
            continue  # the topic is nowhere the densest over most of its papers: no region of its own
        regions.append(
            Region(topic, x_centres, y_centres, np.round(own / peak * LEVELS).astype(np.uint8), level / peak * LEVELS)
        )
    return regions


def _typical_spacing(xs: np.ndarray, ys: np.ndarray) -> float:
    """The median distance from a paper to its nearest other paper among `xs`, `ys`."""
    points = np.column_stack([xs, ys])
    distances, _ = cKDTree(points).query(points, k=2)
    return float(np.median(distances[:, 1]))
