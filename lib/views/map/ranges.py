"""The map's axes: the whole map's ranges, padded and holding its topics' regions, or the part a
filter's papers lie in. Pure; no Streamlit."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from lib.views.map.regions import Region, topic_regions
from lib.views.map.stacks import RANGE_PAD

MIN_ZOOM_SHARE = 0.2  # a zoom to a filter's papers keeps at least this share of the whole map's width and height
MAX_ZOOM_AREA = 0.5  # a filter's papers spread over more than this share of the map's area are shown on the whole map


def map_regions(context: pd.DataFrame) -> list[Region]:
    """The coarse topics' regions of the whole map `context` over its papers' padded ranges
    (`topic_regions`); none on a map without topics."""
    if "topic_label" not in context:
        return []
    x_range, y_range = padded_range(context["x"]), padded_range(context["y"])
    return topic_regions(context, (x_range[0], x_range[1]), (y_range[0], y_range[1]))


def map_ranges(context: pd.DataFrame, regions: Sequence[Region] | None = None) -> tuple[list[float], list[float]]:
    """The whole map's x and y ranges: its papers' (`padded_range`), widened to hold every one of its
    topics' regions whole (`regions`: `map_regions(context)`, when made beforehand), so none is cut
    at the map's edge, whether drawn or not."""
    ranges = padded_range(context["x"]), padded_range(context["y"])
    for region in map_regions(context) if regions is None else regions:
        x0, x1, y0, y1 = region.extent()
        ranges = [min(ranges[0][0], x0), max(ranges[0][1], x1)], [min(ranges[1][0], y0), max(ranges[1][1], y1)]
    return ranges


def view_ranges(
    papers: pd.DataFrame,
    context: pd.DataFrame,
    zoom: bool,
    aspect: float | None = None,
    whole: tuple[list[float], list[float]] | None = None,
) -> tuple[list[float], list[float], str]:
    """The axes' x and y ranges and the figure's `uirevision` for `papers` shown over the map `context`.

    The whole map's (`whole`; default `map_ranges(context)`), under one revision, unless `zoom` and
    `papers` are a part of it: then that part's, padded, each axis at least `MIN_ZOOM_SHARE` of the
    whole map's (a few papers do not fill the screen), widened on one axis to the plot's `aspect` (width over height) when given, so the
    part fills the plot instead of a strip of it, unless that view still takes more than
    `MAX_ZOOM_AREA` of the map (the whole map shows such papers best). A zoomed view has a
    revision of its own, so a new filter moves the reader's view to its papers once and a rerun of
    the same view (a colouring, a click) keeps the reader's own zoom."""
    full_x, full_y = map_ranges(context) if whole is None else whole
    if not zoom or len(papers) in (0, len(context)):
        return full_x, full_y, "map"
    ranges = [
        _widened(padded_range(papers[axis]), MIN_ZOOM_SHARE * (full[1] - full[0]))
        for axis, full in (("x", full_x), ("y", full_y))
    ]
    if aspect:
        (x_low, x_high), (y_low, y_high) = ranges
        ranges = [
            _inside(_widened(ranges[0], aspect * (y_high - y_low)), full_x),
            _inside(_widened(ranges[1], (x_high - x_low) / aspect), full_y),
        ]
    spans = [min((high - low) / (full[1] - full[0]), 1.0) for (low, high), full in zip(ranges, (full_x, full_y))]
    if spans[0] * spans[1] > MAX_ZOOM_AREA:  # papers all over the map: the whole map shows them best
        return full_x, full_y, "map"
    return ranges[0], ranges[1], "map " + " ".join(f"{value:.6g}" for value in ranges[0] + ranges[1])


def _widened(span: list[float], at_least: float) -> list[float]:
    missing = max(at_least - (span[1] - span[0]), 0.0) / 2
    return [span[0] - missing, span[1] + missing]


def _inside(span: list[float], full: list[float]) -> list[float]:
    """`span` moved, not resized, to lie within `full` as far as it can: a view widened to the plot's
    shape shows more of the map rather than the blank beyond its edge."""
    shift = max(full[0] - span[0], 0.0) - max(span[1] - full[1], 0.0)
    if span[1] - span[0] >= full[1] - full[0]:
        shift = (full[0] + full[1] - span[0] - span[1]) / 2
    return [span[0] + shift, span[1] + shift]


def padded_range(values: pd.Series) -> list[float]:
    """The range of `values` (a map axis) padded by `RANGE_PAD` of its extent on both sides; (-1, 1) padded when empty."""
    low, high = (float(values.min()), float(values.max())) if len(values) else (-1.0, 1.0)
    pad = RANGE_PAD * (high - low or 1.0)
    return [low - pad, high + pad]
