"""How big the map's markers are, and where papers coincide at its default view: marker size and
opacity from the number of papers shown and the map's density. Pure; no Streamlit.

The default view is the whole map drawn with equal units on both axes, its ranges padded as
`map_figure` pads them, into a plot area of `DEFAULT_PLOT_PX`: the smallest the map page draws it
(a 1280x720 window, `lib.ui_state.map_view.MAP_WIDTH_HINT` x `MAP_HEIGHT_HINT`; measured in
Chromium; a larger window draws the map at a larger scale). Papers stacked at the smallest view
may come apart in a larger window or a zoom; listing them there too is the safe side.

Two markers of one diameter "stack" when their centres are closer than `HALF_COVER_RADII` radii:
then each covers more than half of the other.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

DEFAULT_PLOT_PX = (527, 544)  # width, height: MAP_WIDTH_HINT, MAP_HEIGHT_HINT (a test keeps them equal)
RANGE_PAD = 0.06  # each axis's range is padded by this share of its extent on both sides, as map_figure does
# Two equal discs whose centres are closer than this many radii overlap by more than half a disc:
# the root of 2 acos(t/2) - (t/2) sqrt(4 - t^2) = pi/2 (the lens area of unit discs t apart).
HALF_COVER_RADII = 0.8079
MIN_MARKER_PX = 4.0  # smaller dots vanish on a projector; hover reaches them anyway (Plotly's 20 px)


def marker_size(n_points: int) -> float:
    """Big dots for a small conference, small ones for a corpus: about 12 px at 20 papers, 7 px at 3,000."""
    return float(np.clip(15 - 2.3 * math.log10(max(n_points, 1)), 3, 12))


def marker_opacity(n_points: int) -> float:
    """Opaque dots when few are shown, see-through ones for many, so where markers pile up the
    clump reads darker, as density: about 0.86 at 20 papers, 0.52 at 3,340, never under 0.35."""
    return float(np.clip(1.05 - 0.15 * math.log10(max(n_points, 1)), 0.35, 0.9))


def view_scale(x: np.ndarray, y: np.ndarray, plot_px: tuple[float, float] = DEFAULT_PLOT_PX) -> float:
    """Pixels per map unit at the default view: the padded ranges of `x` and `y` fitted with equal units
    into `plot_px` (width, height); 1.0 for a map of one point."""
    scales = [
        side / ((1 + 2 * RANGE_PAD) * extent)
        for side, extent in zip(plot_px, (np.ptp(x) if len(x) else 0.0, np.ptp(y) if len(y) else 0.0))
        if extent > 0
    ]
    return float(min(scales)) if scales else 1.0


def _xy(papers: pd.DataFrame) -> np.ndarray:
    return papers[["x", "y"]].to_numpy(dtype=np.float64)


def stack_radius(
    papers: pd.DataFrame, plot_px: tuple[float, float] = DEFAULT_PLOT_PX, diameter: float | None = None
) -> float:
    """The distance, in map units, under which two of `papers`' markers stack at the default view;
    `diameter` in px defaults to the size the map draws them (`suggested_marker_size`)."""
    diameter = suggested_marker_size(papers, plot_px=plot_px) if diameter is None else diameter
    return HALF_COVER_RADII * diameter / 2 / view_scale(papers["x"].to_numpy(), papers["y"].to_numpy(), plot_px)


def stack_counts(
    papers: pd.DataFrame, plot_px: tuple[float, float] = DEFAULT_PLOT_PX, diameter: float | None = None
) -> pd.Series:
    """For each paper (a DataFrame with `x`, `y`), how many others stack with it at the default view
    (see `stack_radius`); an int Series indexed like `papers`, 0 for a paper that stands alone."""
    from scipy.spatial import cKDTree

    if len(papers) < 2:
        return pd.Series(0, index=papers.index, dtype="int64")
    points = _xy(papers)
    counts = cKDTree(points).query_ball_point(points, stack_radius(papers, plot_px, diameter), return_length=True)
    return pd.Series(np.asarray(counts, dtype="int64") - 1, index=papers.index)


def stacked_with(
    papers: pd.DataFrame, paper_id: str, plot_px: tuple[float, float] = DEFAULT_PLOT_PX, diameter: float | None = None
) -> pd.DataFrame:
    """The other papers whose markers stack with `paper_id`'s at the default view, nearest first
    (rows of `papers`); empty when it stands alone or is not on the map. Agrees with `stack_counts`."""
    rows = np.flatnonzero(papers["paper_id"].to_numpy(dtype=object) == paper_id)
    if not len(rows):
        return papers.iloc[:0]
    points = _xy(papers)
    distance = np.hypot(*(points - points[rows[0]]).T)
    near = np.flatnonzero(distance <= stack_radius(papers, plot_px, diameter))
    near = near[near != rows[0]]
    return papers.iloc[near[np.argsort(distance[near], kind="stable")]]


def nearest_neighbour_px(
    papers: pd.DataFrame, context: pd.DataFrame | None = None, plot_px: tuple[float, float] = DEFAULT_PLOT_PX
) -> np.ndarray:
    """Each of `papers`' distance in px to its nearest other paper of `papers`, at the default view of
    `context` (the whole map, which fixes the axes; by default `papers`)."""
    from scipy.spatial import cKDTree

    if len(papers) < 2:
        return np.full(len(papers), np.inf)
    context = papers if context is None else context
    pixels = _xy(papers) * view_scale(context["x"].to_numpy(), context["y"].to_numpy(), plot_px)
    return cKDTree(pixels).query(pixels, k=2)[0][:, 1]


def suggested_marker_size(
    papers: pd.DataFrame,
    context: pd.DataFrame | None = None,
    plot_px: tuple[float, float] = DEFAULT_PLOT_PX,
    covered: float = 0.25,
) -> float:
    """A marker diameter in px for `papers` shown on the map of `context` (default: `papers`), from
    their number and their density at the default view.

    The largest diameter at which at most the share `covered` of the papers is more than half
    covered by a neighbour (the `covered` quantile of the nearest-neighbour distances, over
    `HALF_COVER_RADII` radii), clipped to [`MIN_MARKER_PX`, `marker_size(len(papers))`]:
    never larger than the count alone gives, smaller where the map is dense, never a speck (on a
    map of clumps no size keeps them apart; the card lists what stays stacked). A quarter by
    default: at the default view on the dev lists it shrinks the denser lists' markers, keeps the
    sparser ones at `marker_size` and gives the clumped ICML 2025 titles the floor; half would
    shrink none of the four lists with abstracts.
    """
    if not 0 < covered < 1:
        raise ValueError(f"covered must be between 0 and 1 (exclusive); got {covered!r}")
    ceiling = marker_size(len(papers))
    if len(papers) < 2 or ceiling <= MIN_MARKER_PX:
        return ceiling  # nothing to shrink: a corpus map's dots are already at the floor
    spacing = float(np.quantile(nearest_neighbour_px(papers, context, plot_px), covered))
    return float(np.clip(2 * spacing / HALF_COVER_RADII, min(MIN_MARKER_PX, ceiling), ceiling))
