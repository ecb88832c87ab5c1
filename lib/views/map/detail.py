"""A map too large to draw whole: a fixed sample of its papers, every paper of a zoomed-in view, and
the density of them all underneath. Pure; no Streamlit.

Every point of a map goes to the browser: at 200,000 papers that is 20 MB and over six seconds before
the map shows, so a million would take half a minute. A map of more than `LARGE_MAP` papers is
drawn in part (`drawn_rows`):

- each paper has a fixed rank (`draw_ranks`, a seeded shuffle of the map's rows), and the `SAMPLE`
  papers of lowest rank are drawn, and under a filter the `SAMPLE` shown papers of lowest rank too
  (the sample's others are the filter's faint backdrop);
- zoomed in, the chart reports its view (`Area`), and the shown papers inside it are drawn too,
  lowest rank first, up to `VIEW_PAPERS`: a view holding fewer shows every one of its papers, and as
  the ranks are fixed, a point once drawn stays drawn as the reader zooms further in;
- marked papers (a search's matches, the open paper) are drawn, lowest rank first, up to `SAMPLE`,
  and so are the papers at the map's and the shown papers' edges, so the axes span what they would
  with every paper drawn;
- the density of every shown paper lies under the points in grey (`density_trace`), so the papers
  not drawn still show where they are.

Filters, search and a box or lasso (`Area.holds`, `in_lasso`) work on the whole list, not on the
points drawn.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd

LARGE_MAP = 100_000  # maps of more papers are drawn in part; every paper list of ../shared/data is drawn whole
SAMPLE = 50_000  # the map's papers drawn at any zoom; as many more shown ones under a filter, and marked ones
VIEW_PAPERS = 50_000  # more papers drawn inside the reader's view
DENSITY_CELLS = 200  # the density's cells along the map's longer side
DENSITY_COLOURS = [[0.0, "rgba(120,120,120,0.10)"], [1.0, "rgba(40,40,40,0.55)"]]
MAX_LASSO_VERTICES = 2_000  # a lasso a browser sends with more is refused, not tested point by point
_RANK_SEED = 20_251_205


@dataclass(frozen=True)
class Area:
    """A rectangle of the map: the reader's view, or a box drawn on it. `x` and `y` are (low, high)."""

    x: tuple[float, float]
    y: tuple[float, float]

    @classmethod
    def of(cls, value: object) -> Area | None:
        """The area a browser sent as {"x": [a, b], "y": [c, d]} (any order of each pair), or None
        when `value` is anything else: the chart's state is what a visitor's browser says."""
        if not isinstance(value, Mapping):
            return None
        pairs = [value.get(axis) for axis in ("x", "y")]
        if not all(isinstance(pair, Sequence) and not isinstance(pair, str) and len(pair) == 2 for pair in pairs):
            return None
        numbers = [number for pair in pairs for number in pair]  # type: ignore[union-attr]
        if not all(isinstance(n, (int, float)) and not isinstance(n, bool) and math.isfinite(n) for n in numbers):
            return None
        x0, x1, y0, y1 = (float(n) for n in numbers)
        return cls((min(x0, x1), max(x0, x1)), (min(y0, y1), max(y0, y1)))

    def holds(self, papers: pd.DataFrame) -> np.ndarray:
        """Which of `papers` lie inside (edges included), one bool per row."""
        x, y = papers["x"].to_numpy(), papers["y"].to_numpy()
        return (x >= self.x[0]) & (x <= self.x[1]) & (y >= self.y[0]) & (y <= self.y[1])


def is_large(papers: pd.DataFrame) -> bool:
    """Whether the map `papers` is drawn in part (`drawn_rows`)."""
    return len(papers) > LARGE_MAP


def draw_ranks(count: int) -> np.ndarray:
    """Each of a map's `count` rows' rank in the order papers are drawn (0 first): a shuffle seeded
    by this module, so the same map draws the same papers on every machine and run."""
    ranks = np.empty(count, dtype=np.int64)
    ranks[np.random.default_rng(_RANK_SEED).permutation(count)] = np.arange(count)
    return ranks


class Drawn(NamedTuple):
    """The rows of a large map to draw, in three parts of ascending positions, none in two: `sample`,
    the whole map's (the same under any filter and view), `shown`, what the shown and marked papers
    add to it, and `view`, what the reader's view adds; and whether they hold every shown paper of
    the view (its density then adds nothing to the points). Each part reaches a browser on its own,
    so a zoom sends only the view's papers and a filter only its own."""

    sample: np.ndarray
    shown: np.ndarray
    view: np.ndarray
    view_complete: bool

    @property
    def rows(self) -> np.ndarray:
        """Every row drawn: the parts in turn."""
        return np.concatenate([self.sample, self.shown, self.view])


def map_sample(papers: pd.DataFrame, ranks: np.ndarray) -> np.ndarray:
    """The rows of the map `papers` drawn under any filter and view, ascending: its `SAMPLE` papers of
    lowest `ranks` and those at its edges."""
    everything = np.ones(len(papers), dtype=bool)
    return np.union1d(_lowest(everything, ranks, SAMPLE), _edges(papers, everything))


def sample_papers(papers: pd.DataFrame) -> pd.DataFrame:
    """The papers of the map `papers` that its `map_sample` draws (by its `draw_ranks`), in map order:
    what a view of the whole map shows of a large map without a filter."""
    return papers.iloc[map_sample(papers, draw_ranks(len(papers)))]


def drawn_rows(
    papers: pd.DataFrame, shown: np.ndarray, ranks: np.ndarray, view: Area | None, marked: np.ndarray
) -> Drawn:
    """The rows of the map `papers` to draw (see the module's doc): `shown` and `marked` are masks
    over its rows, `ranks` its `draw_ranks`, `view` the reader's view or None (the whole map)."""
    sample = map_sample(papers, ranks)
    chosen = np.concatenate([_lowest(shown, ranks, SAMPLE), _lowest(marked, ranks, SAMPLE), _edges(papers, shown)])
    added = np.setdiff1d(chosen, sample)
    in_view = shown if view is None else shown & view.holds(papers)
    viewed = np.setdiff1d(_lowest(in_view, ranks, VIEW_PAPERS), np.union1d(sample, added), assume_unique=True)
    return Drawn(sample, added, viewed, int(in_view.sum()) <= VIEW_PAPERS)


def _lowest(mask: np.ndarray, ranks: np.ndarray, most: int) -> np.ndarray:
    """The positions of the `most` rows of `mask` with the lowest `ranks`."""
    rows = np.flatnonzero(mask)
    if len(rows) <= most:
        return rows
    return rows[np.argpartition(ranks[rows], most - 1)[:most]]


def _edges(papers: pd.DataFrame, mask: np.ndarray) -> np.ndarray:
    """The positions of the rows of `mask` with the least and greatest x and y (none for an empty mask)."""
    rows = np.flatnonzero(mask)
    if not len(rows):
        return rows
    x, y = papers["x"].to_numpy()[rows], papers["y"].to_numpy()[rows]
    return rows[[x.argmin(), x.argmax(), y.argmin(), y.argmax()]]


def density_trace(papers: pd.DataFrame, x_range: Sequence[float], y_range: Sequence[float]) -> dict:
    """A grey heatmap of where `papers` lie over the map's `x_range` and `y_range`, in square cells
    (`DENSITY_CELLS` along the longer side), darker by the root of the count, empty cells clear; a
    Plotly trace dict that takes no hover and no legend entry."""
    cell = max(x_range[1] - x_range[0], y_range[1] - y_range[0]) / DENSITY_CELLS
    x_edges = np.arange(x_range[0], x_range[1] + cell, cell)
    y_edges = np.arange(y_range[0], y_range[1] + cell, cell)
    counts, _, _ = np.histogram2d(papers["y"].to_numpy(), papers["x"].to_numpy(), bins=(y_edges, x_edges))
    shade = np.sqrt(counts)
    z = np.where(counts > 0, shade / max(float(shade.max()), 1.0), np.nan).round(3)
    return {
        "type": "heatmap",
        "name": "density",
        "x0": float(x_edges[0] + cell / 2),
        "dx": cell,
        "y0": float(y_edges[0] + cell / 2),
        "dy": cell,
        "z": [[None if math.isnan(v) else float(v) for v in row] for row in z],
        "colorscale": DENSITY_COLOURS,
        "zmin": 0.0,
        "zmax": 1.0,
        "zsmooth": "best",  # shades, not squares, at any zoom
        "showscale": False,
        "hoverinfo": "skip",
        "showlegend": False,
    }


def in_lasso(papers: pd.DataFrame, xs: Sequence[float], ys: Sequence[float]) -> np.ndarray:
    """Which of `papers` lie inside the closed polygon through (`xs`, `ys`) (even-odd rule), one bool
    per row; a ValueError for more than `MAX_LASSO_VERTICES` vertices or unequal lists."""
    if len(xs) != len(ys) or len(xs) > MAX_LASSO_VERTICES:
        raise ValueError(
            f"a lasso has at most {MAX_LASSO_VERTICES:,} vertices, as many x as y; got {len(xs)}, {len(ys)}"
        )
    px, py = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
    inside = np.zeros(len(papers), dtype=bool)
    if len(px) < 3:
        return inside
    candidates = np.flatnonzero(Area((px.min(), px.max()), (py.min(), py.max())).holds(papers))
    x, y = papers["x"].to_numpy()[candidates], papers["y"].to_numpy()[candidates]
    crossings = np.zeros(len(candidates), dtype=bool)
    for x0, y0, x1, y1 in zip(px, py, np.roll(px, -1), np.roll(py, -1)):
        spans = (y0 > y) != (y1 > y)
        with np.errstate(divide="ignore", invalid="ignore"):
            crossing_x = x0 + (y - y0) * (x1 - x0) / (y1 - y0)
        crossings ^= spans & (x < crossing_x)
    inside[candidates[crossings]] = True
    return inside
