"""The Present page's map in two layers: the whole map once, and the presented paper on a clear figure over it.

A step changes only the top layer, a few hundred bytes, so the browser never redraws 3,000 WebGL
points to move one ring: Streamlit remounts a chart whose figure changed, and the map's own figure
stays the same from step to step. Pure; no Streamlit.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from lib.views.map_figure import HIGHLIGHT_COLOURS, map_figure, marker_size

MARKER_NAME = "this paper"  # the top layer's trace
MARKER_SIZE = 30  # pixels: a ring that finds the eye from the back of a room
POINTS_SCALE = 1.3  # the map's points, larger than on the Map page: a slide is seen from further away
CLEAR = "rgba(0,0,0,0)"


def slide_backdrop(papers: pd.DataFrame, height: int, width_hint: int, hover: pd.DataFrame | None = None) -> go.Figure:
    """The whole map `papers` coloured by subfield with its topics labelled, no legend, for a slide.

    `height` and `width_hint` are the size labels are spaced for (the smallest the slide draws it);
    `hover` is `hover_labels(papers)` when already made.
    """
    figure = map_figure(
        papers,
        "subfield",
        "topic_label",
        context=papers,
        height=height,
        width_hint=width_hint,
        legend=False,
        hover=hover,
    )
    figure.update_traces(marker_size=marker_size(len(papers)) * POINTS_SCALE)
    # Fixed: a map dragged or zoomed would leave the ring drawn over it behind.
    figure.update_xaxes(fixedrange=True)
    figure.update_yaxes(fixedrange=True)
    return figure.update_layout(dragmode=False)


def slide_marker(backdrop: go.Figure, papers: pd.DataFrame, paper_id: str) -> go.Figure:
    """Paper `paper_id` of `papers` alone, ringed, on a clear figure with `backdrop`'s axes, height and margins.

    Drawn exactly over `backdrop` (same width) it rings the paper on the map, above the topic labels,
    and lets the pointer through to the map's hover. It is SVG, not WebGL: one point, and no graphics
    context to set up at each step. Without the paper on the map the figure is empty.
    """
    paper = papers[papers["paper_id"] == paper_id].head(1)
    marker = go.Scatter(
        x=paper["x"].to_numpy(dtype=float),
        y=paper["y"].to_numpy(dtype=float),
        mode="markers",
        name=MARKER_NAME,
        marker={
            "size": MARKER_SIZE,
            "color": HIGHLIGHT_COLOURS[0],
            "line": {"width": 4, "color": "#111"},
        },
        customdata=paper["paper_id"].to_numpy(dtype=object),
        hoverinfo="skip",  # the layer lets the pointer through to the map's own hover
        showlegend=False,
    )
    layout = backdrop.layout
    return go.Figure(
        marker,
        layout={
            "height": layout.height,
            "margin": layout.margin,
            "xaxis": {"visible": False, "range": layout.xaxis.range, "fixedrange": True},
            "yaxis": {"visible": False, "range": layout.yaxis.range, "fixedrange": True},
            "showlegend": False,
            "paper_bgcolor": CLEAR,
            "plot_bgcolor": CLEAR,
        },
    )
