"""The papers the map page's chart draws: the whole map, or for a large one the part its view calls
for (`lib.views.map.detail`), with their points for the chart."""

from __future__ import annotations

import hashlib
from collections.abc import Collection
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from lib.views.map.detail import Area, draw_ranks, drawn_rows, is_large
from lib.views.map.hover import hover_labels
from lib.views.map.points import map_points
from lib.views.map.stacks import stack_counts
from lib.views.map.traces import in_ids

from .map_view import cached_map_points
from .source import read_map


@dataclass(frozen=True)
class MapDrawing:
    """What the chart draws: `context`, the map's papers drawn (the whole map, or part of it);
    `shown`, those of them the filters show; `points`, their `lib.views.map.points` bytes in parts
    (the rows of `context` run through each in turn: the part the same at every view is sent to a
    browser once, and a zoom sends only the papers it adds); `whole`, every shown paper when the
    map is drawn in part (else None: `shown` is); whether the view's shown papers are all drawn;
    and for such a map, what a box or lasso holds for (`selection_key`, the shown papers': a zoom
    redraws the points but keeps the selection, a filter ends it), else "" (the figure's)."""

    context: pd.DataFrame
    shown: pd.DataFrame
    points: tuple[bytes, ...]
    whole: pd.DataFrame | None = None
    view_complete: bool = True
    selection_key: str = ""

    @property
    def density(self) -> pd.DataFrame | None:
        """The papers whose density goes under the points: every shown one, when the points drawn
        leave some of the view's out; else None."""
        return None if self.view_complete else self.whole


def map_drawing(
    map_dir: str, papers: pd.DataFrame, shown: pd.DataFrame, view: Area | None, marked: Collection[str]
) -> MapDrawing:
    """The drawing of the map `papers` (`read_map(map_dir)`) with `shown` (rows of it) shown, in the
    reader's `view` (None: the whole map), with the `marked` paper ids (a search's matches, the open
    paper) drawn whatever their rank."""
    if not is_large(papers):
        return MapDrawing(papers, shown, (cached_map_points(map_dir),))
    shown_rows = papers.index.isin(shown.index)
    marked_rows = in_ids(papers["paper_id"], marked) if marked else np.zeros(len(papers), dtype=bool)
    drawn = drawn_rows(papers, shown_rows, _draw_ranks(map_dir), view, marked_rows)
    context = papers.iloc[drawn.rows]
    points, among = [], np.empty(0, dtype=np.int64)
    for part in (drawn.sample, drawn.shown, drawn.view):  # each counts its stacks among the parts so far
        among = np.union1d(among, part)
        if len(part):
            points.append(_drawn_points(map_dir, _digest(part), _digest(among), part, among))
    shown_key = _digest(np.packbits(shown_rows))
    return MapDrawing(context, context[shown_rows[drawn.rows]], tuple(points), shown, drawn.view_complete, shown_key)


def _digest(rows: np.ndarray) -> str:
    return hashlib.blake2b(rows.tobytes(), digest_size=16).hexdigest()


@st.cache_resource(show_spinner=False, max_entries=4)
def _draw_ranks(map_dir: str) -> np.ndarray:
    return draw_ranks(len(read_map(map_dir)[0]))


# Keyed by the rows' digests: hashing the rows themselves on every rerun would cost as much as a lookup saves.
@st.cache_data(show_spinner=False, max_entries=16)
def _drawn_points(map_dir: str, rows_key: str, among_key: str, _rows: np.ndarray, _among: np.ndarray) -> bytes:
    """The points of the map's rows `_rows` (named by `rows_key`), each hover saying how many of the
    drawn rows `_among` (`among_key`; they hold `_rows`) its paper is drawn over."""
    papers = read_map(map_dir)[0]
    drawn = papers.iloc[_among]
    part = papers.iloc[_rows]
    return map_points(part, hover_labels(part, stack_counts(drawn)))
