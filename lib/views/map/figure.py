"""The topic map figure: a papers DataFrame in, a `go.Figure` out, with its colours, hover and labels. Pure; no Streamlit.

Text from paper lists is untrusted, so every string that reaches hover or labels is HTML-escaped
(`lib.views.markup.html_literal`: Plotly renders a subset of HTML in those).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

import pandas as pd
import plotly.graph_objects as go

from lib.views.map.colours import PARENTS, category_colours
from lib.views.map.detail import density_trace
from lib.views.map.labels import FEW_SHOWN, LABEL_LEVELS, label_annotations
from lib.views.map.ranges import map_ranges, map_regions, view_ranges
from lib.views.map.regions import Region
from lib.views.map.stacks import marker_opacity, suggested_marker_size
from lib.views.map.traces import (
    HIGHLIGHT_COLOURS,
    DrawingUnit,
    PointSource,
    TraceStyle,
    backdrop_traces,
    category_traces,
    drawing_units,
    highlight_traces,
    in_ids,
    legend_fits,
    point_trace_type,
    region_traces,
)

COLOR_CHOICES = {
    "subfield": "Subfield",
    "area": "Area",
    "topic_label": "Topic",
    "topic_fine_label": "Fine topic",
    "status": "Status",
    "first_session": "Session",  # a paper's first session and day (lib.views.schedule)
    "first_day": "Day",
    "primary_area": "Primary area",
    "venue": "Venue",
    "edition": "Edition",
}
REGION_CHOICES = {"shown": "Shown", "hidden": "Hidden"}  # the coarse topics' regions under the points
FONT_SIZE = 16  # readable on a projector from the back of a room
PLOT_TOP_PX = 12  # over the plot area: the mode bar floats over its top right corner
MODE_BAR_PX = 18  # the legend starts below the mode bar, which shows over its top while the pointer is on the map
FULL_RANGE_META = "papermap_full_range"  # layout.meta key: the whole map's [x0, x1, y0, y1]
AVOID_META = "papermap_avoid"  # layout.meta key: the [x, y] of the papers labels keep clear of (`_kept_clear`)


def colourable(papers: pd.DataFrame) -> list[str]:
    """The `COLOR_CHOICES` that tell papers apart here: status, session, day, primary area, venue and
    edition only when the data has several values."""
    return [
        c
        for c in COLOR_CHOICES
        if c in ("subfield", "area", "topic_label", "topic_fine_label") or (c in papers and papers[c].nunique() > 1)
    ]


def map_figure(
    papers: pd.DataFrame,
    color_by: str = "subfield",
    labels: str | None = "topic_label",
    *,
    context: pd.DataFrame | None = None,
    height: int = 620,
    width_hint: int = 900,
    highlight: Mapping[str, Collection[str]] | None = None,
    legend: bool = True,
    hover: pd.DataFrame | None = None,
    regions: bool = False,
    colours: Mapping[str, str] | None = None,
    webgl: bool | None = None,
    by_row: bool = False,
    region_shapes: Sequence[Region] | None = None,
    zoom: bool = False,
    focus: Collection[str] | None = None,
    label_marks: Mapping[str, str] | None = None,
    labelled: pd.DataFrame | None = None,
    region_strength: Mapping[str, float] | None = None,
    density: pd.DataFrame | None = None,
    counted: pd.DataFrame | None = None,
) -> go.Figure:
    """Scatter of `papers` on the map, one trace per value of `color_by` (per area for subfields);
    WebGL when `webgl`, SVG when False, by default by the map's size (`point_trace_type`).

    - `context`: the whole map when `papers` is part of it; its other papers are a faint backdrop,
      and it fixes axes and colours, so filtering neither moves nor repaints anything. With `zoom`
      the axes show that part, or the papers of `focus` (ids: a search's matches), instead
      (`view_ranges`).
    - `labels` (coarse or fine topics, or None) sit on their topic's region or papers, apart, at
      `width_hint` px wide (`lib.views.map.labels`); under coarse ones the fine ones go hidden, for
      `lib.views.map.script` to show zoomed in. They keep clear of `highlight`ed papers and of a
      filter's few papers (`_kept_clear`), end with their `label_marks` (" (new)"), and name the
      topics of `labelled` (default `papers`; the whole map's keep still through its editions).
    - The legend sits beside the map (`legend=False`: none); when the subfields under their areas'
      titles would be taller than the plot, it lists the areas.
    - `highlight`: legend name -> paper ids (a search's matches, the open paper), drawn again on
      top, larger and ringed, one layer per name (the last on top), even when filtered out.
    - `regions` draws the coarse topics' regions under the points, grey or in the topic's shade when
      colouring by topic, each as strong as its `region_strength` (`region_traces`). `region_shapes` (`map_regions(context)`), `hover`
      (`hover_labels(context)`) and `colours` (`category_colours(context, color_by)`) may come
      computed beforehand, once per map; by default they are computed here.
    - `density`: papers whose density is drawn in grey under the points (`density_trace`): every
      shown paper, when `context` is the part of a large map that is drawn (`lib.views.map.detail`).
      `counted`: the papers the legend counts, default `papers` (every shown paper, for such a map).

    Sized for the wire: coordinates as float32, each point its id and hover text only
    (`HOVER_TEMPLATE`). With `by_row` the points traces name their papers by row of `context` and
    give their colours as runs, in their `meta` (`lib.views.map.points`), for the map page's chart.
    """
    _check_choices(color_by, labels)
    context = papers if context is None else context
    colours = category_colours(context, color_by) if colours is None else colours
    # By the whole map's size, so a filter never changes the renderer.
    kind = point_trace_type(len(context)) if webgl is None else "scattergl" if webgl else "scatter"
    units = drawing_units(papers, context, color_by, colours, counted)
    by_parent = not legend_fits(units, height - PLOT_TOP_PX - MODE_BAR_PX)
    traces = _point_traces(papers, context, units, colours, by_parent, kind, hover, by_row, highlight)
    focused = papers if focus is None else context[in_ids(context["paper_id"], focus)]
    all_shapes = map_regions(context) if region_shapes is None else region_shapes
    whole = map_ranges(context, all_shapes)  # holds them, drawn or not: showing them never moves the map
    x_range, y_range, revision = view_ranges(focused, context, zoom, plot_aspect(width_hint, height), whole)
    shapes: Sequence[Region] = all_shapes if regions or labels == "topic_label" else ()  # labels sit on them
    if density is not None:
        traces = [density_trace(density, *whole)] + traces
    if regions:
        # Under everything: the eye finds the regions first, and they never hide a point.
        traces = region_traces(shapes, colours if color_by == "topic_label" else None, region_strength) + traces
    avoid = _kept_clear(papers, context, highlight)
    shown = papers if labelled is None else labelled
    plot_size = (width_hint, height)
    annotations = _label_notes(shown, context, labels, (x_range, y_range), plot_size, shapes, avoid, label_marks, whole)
    layout = _layout(
        annotations, height, legend, _legend_title(color_by, by_parent), (x_range, y_range), revision, whole, avoid
    )
    # Unvalidated: every trace and layout key here is fixed by this module and its tests, and
    # validating some 90 traces and the layout is most of the build, on every rerun.
    return go.Figure(data=traces, layout=layout, _validate=False)


def _point_traces(
    papers: pd.DataFrame,
    context: pd.DataFrame,
    units: list[DrawingUnit],
    colours: Mapping[str, str],
    by_parent: bool,
    kind: str,
    hover: pd.DataFrame | None,
    by_row: bool,
    highlight: Mapping[str, Collection[str]] | None,
) -> list[dict]:
    """`map_figure`'s points: the backdrop of `context`, `papers` by their drawing `units`, then the
    `highlight` layers on top, as Plotly traces of `kind`."""
    # The papers shown set the points' size and opacity (a filter to a few makes them big and solid);
    # the whole map sets the backdrop's, so it stays put.
    size, opacity = suggested_marker_size(papers, context), marker_opacity(len(papers))
    traces = backdrop_traces(papers, context, kind, by_row)
    source = PointSource.of(papers, context, hover, by_row)
    traces += category_traces(units, colours, by_parent, TraceStyle(kind, size, opacity), source)
    for (name, marked_ids), colour in zip((highlight or {}).items(), HIGHLIGHT_COLOURS * len(highlight or {})):
        traces += highlight_traces(context, marked_ids, name, colour, TraceStyle(kind, size, 1.0), hover, by_row)
    return traces


def _check_choices(color_by: str, labels: str | None) -> None:
    if color_by not in COLOR_CHOICES:
        raise ValueError(f"color_by must be one of {', '.join(COLOR_CHOICES)}; got {color_by!r}")
    if labels is not None and labels not in LABEL_LEVELS:
        raise ValueError(f"labels must be one of {', '.join(LABEL_LEVELS)} or None; got {labels!r}")


def plot_aspect(width_hint: int, height: int) -> float:
    """The plot area's width over its height, for a figure `width_hint` by `height` px."""
    return width_hint / (height - PLOT_TOP_PX)


def _label_notes(
    papers: pd.DataFrame,
    context: pd.DataFrame,
    labels: str | None,
    ranges: tuple[list[float], list[float]],
    size: tuple[int, int],
    shapes: Sequence[Region],
    avoid: Sequence[tuple[float, float]],
    marks: Mapping[str, str] | None,
    whole: tuple[list[float], list[float]],
) -> list[dict]:
    """The `labels` level's labels as annotations (`label_annotations`), placed for a plot of `size`
    (width, height) px showing `ranges` of the map's `whole` ranges: equal units on both axes, at
    the scale the tighter side allows; none when `labels` is None."""
    if labels is None:
        return []
    (x_range, y_range), (width, height) = ranges, size
    unit = min(width / (x_range[1] - x_range[0]), (height - 40) / (y_range[1] - y_range[0]))
    return label_annotations(papers, context, labels, x_range, y_range, unit, shapes, avoid, marks, whole)


def _legend_title(color_by: str, by_parent: bool) -> str:
    """ "Subfield", or "Subfield by area" when the legend names the areas only."""
    parent = PARENTS.get(color_by)
    return COLOR_CHOICES[color_by] + (f" by {COLOR_CHOICES[parent].lower()}" if by_parent and parent else "")


def _layout(
    annotations: list[dict],
    height: int,
    legend: bool,
    legend_title: str,
    ranges: tuple[list[float], list[float]],
    revision: str,
    whole: tuple[list[float], list[float]],
    avoid: Sequence[tuple[float, float]],
) -> dict:
    """The figure's layout: the view's `ranges` (x, y) under `revision`, the legend beside the map,
    and in its meta the `whole` map's ranges and the papers labels keep clear of, for the map's script."""
    x_range, y_range = ranges
    return {
        "annotations": annotations,
        "height": height,
        "margin": {"l": 0, "r": 0, "t": PLOT_TOP_PX, "b": 0},
        "font": {"size": FONT_SIZE, "color": "#111"},
        "showlegend": legend,
        "legend": {
            # Beside the map, in the room a map of equal units leaves on a wide screen; a long legend
            # scrolls in its own box instead of taking the map's height.
            "title": {"text": legend_title + " "},
            "orientation": "v",
            "x": 1.0,
            "xanchor": "left",
            "y": 1.0 - MODE_BAR_PX / (height - PLOT_TOP_PX),
            "yanchor": "top",
            "itemsizing": "constant",
            "font": {"size": FONT_SIZE - 2},
            "groupclick": "togglegroup",
        },
        "plot_bgcolor": "white",
        "dragmode": "pan",
        # A rerun (a click, a colouring) keeps the reader's zoom, a new view (`view_ranges`) sets it;
        # the full range goes with the figure for the labels' zoom levels (lib.views.map.script).
        "uirevision": revision,
        "meta": {
            FULL_RANGE_META: [*whole[0], *whole[1]],
            AVOID_META: [[float(x), float(y)] for x, y in avoid],
        },
        "hoverlabel": {
            "font": {"size": FONT_SIZE, "color": "#111"},
            "bgcolor": "white",
            "bordercolor": "#666",
            "align": "left",
        },
        # The axes mean nothing and are hidden; their ranges are the view's. Equal units on both
        # axes, so the layout is not smeared to the screen's shape: Plotly narrows the plot area on
        # one side ("domain"; widening a range instead would write that range into the layout, where
        # `uirevision` would keep it as if the reader had zoomed).
        "xaxis": {"visible": False, "range": list(x_range), "constrain": "domain"},
        "yaxis": {"visible": False, "range": list(y_range), "scaleanchor": "x", "scaleratio": 1, "constrain": "domain"},
    }


def _kept_clear(
    papers: pd.DataFrame, context: pd.DataFrame, highlight: Mapping[str, Collection[str]] | None
) -> list[tuple[float, float]]:
    """The papers labels keep clear of: every highlighted one (a search's matches, the open paper)
    and, when a filter shows `FEW_SHOWN` of the map's papers or fewer, those."""
    marked = {paper_id for ids in (highlight or {}).values() for paper_id in ids}
    kept = context[in_ids(context["paper_id"], marked)] if marked else context.iloc[:0]
    if len(papers) < len(context) and len(papers) <= FEW_SHOWN:
        kept = pd.concat([kept, papers[~in_ids(papers["paper_id"], marked)]])
    return list(zip(kept["x"].astype(float), kept["y"].astype(float)))
