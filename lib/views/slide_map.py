"""The Present page's map in two layers: the whole map, the same figure at every step, and a ring
over it at the presented paper's place, as a share of the map's width and height.

A step moves only the ring, a few bytes of CSS: Streamlit remounts a chart whose figure changed, and
the browser would draw 3,000 points again to move one highlighted point. Pure; no Streamlit.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import pandas as pd
import plotly.graph_objects as go

from lib.views.map.detail import is_large, sample_papers
from lib.views.map.figure import map_figure
from lib.views.map.stacks import marker_size

POINTS_SCALE = 1.3  # the map's points, larger than on the Map page: a slide is seen from further away


@dataclass(frozen=True)
class RingPlace:
    """Where a paper sits on a drawn map: shares of its plotting area, which the figure's margins
    (pixels) surround."""

    across: float  # 0 at the plotting area's left edge, 1 at its right
    down: float  # 0 at its top, 1 at its bottom
    margin: tuple[int, int, int, int]  # left, right, top, bottom

    def css(self) -> str:
        """`left` and `top` placing the ring's centre in a box the size of the chart."""
        left, right, top, bottom = self.margin
        return (
            f"left: calc({left}px + {self.across:.5f} * (100% - {left + right}px)); "
            f"top: calc({top}px + {self.down:.5f} * (100% - {top + bottom}px))"
        )


def slide_backdrop(papers: pd.DataFrame, height: int, width_hint: int, hover: pd.DataFrame | None = None) -> go.Figure:
    """The whole map `papers` coloured by subfield with its topics labelled, no legend, for a slide;
    a large map (`lib.views.map.detail`) as its sample over the density of all its papers.

    `height` and `width_hint` are the size labels are spaced for (the smallest the slide draws it);
    `hover` is `hover_labels(papers)` when already made. It cannot be dragged or zoomed (the ring
    over it would be left behind) and fills whatever box it is drawn in: its axes' ranges are fixed
    and nothing keeps its aspect, so `ring_place` can say where a paper is in that box.
    """
    drawn, density = papers, None
    if is_large(papers):
        drawn = sample_papers(papers)
        density = papers
    figure = map_figure(
        drawn,
        "subfield",
        "topic_label",
        context=drawn,
        height=height,
        width_hint=width_hint,
        legend=False,
        hover=hover,
        labelled=papers,
        density=density,
    )
    size = marker_size(len(drawn)) * POINTS_SCALE
    figure.update_traces(marker_size=size, selector=lambda trace: trace.type.startswith("scatter"))
    figure.update_xaxes(fixedrange=True)
    # No equal units here (the map page has them): Plotly would widen a range to keep them, and the
    # ring, placed by the declared ranges, would land off its paper.
    figure.update_yaxes(fixedrange=True, scaleanchor=None, scaleratio=None)
    # Streamlit hands the browser the figure afresh at every step; an unchanged datarevision tells
    # Plotly its points are the same ones, so it does not compute them all again.
    revision = hashlib.sha1("\n".join(drawn["paper_id"].astype(str)).encode()).hexdigest()
    return figure.update_layout(dragmode=False, datarevision=revision)


def ring_place(backdrop: go.Figure, papers: pd.DataFrame, paper_id: str) -> RingPlace | None:
    """Where paper `paper_id` of `papers` sits on `backdrop` (a `slide_backdrop`); None when not on it."""
    paper = papers[papers["paper_id"] == paper_id].head(1)
    if paper.empty:
        return None
    layout = backdrop.layout
    (x0, x1), (y0, y1) = layout.xaxis.range, layout.yaxis.range
    margin = layout.margin
    return RingPlace(
        across=(float(paper["x"].iloc[0]) - x0) / (x1 - x0),
        down=(y1 - float(paper["y"].iloc[0])) / (y1 - y0),
        margin=(int(margin.l or 0), int(margin.r or 0), int(margin.t or 0), int(margin.b or 0)),
    )
