"""The topic map figure: a papers DataFrame in, a `go.Figure` out, with its colours, hover and labels. Pure; no Streamlit.

Text from paper lists is untrusted, so every string that reaches hover or labels is HTML-escaped
(`lib.views.markup.html_literal`: Plotly renders a subset of HTML in those).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from lib.stages.subfields import UNASSIGNED
from lib.views.map_colours import NEUTRAL, NONE, OTHER, PARENTS, category_colours, category_values
from lib.views.map_hover import HOVER_TEMPLATE, hover_labels
from lib.views.map_labels import LABEL_LEVELS, MAX_AVOIDED, label_annotations
from lib.views.map_points import COLOUR_RUNS, MASK, ROWS, row_mask
from lib.views.map_regions import Region, topic_regions
from lib.views.map_stacks import RANGE_PAD, marker_opacity, suggested_marker_size
from lib.views.markup import html_literal

CONTEXT_COLOUR = "#E3E3E3"  # papers outside the current filters, kept as the map's backdrop
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
}
REGION_CHOICES = {"shown": "Shown", "hidden": "Hidden"}  # the coarse topics' regions under the points
HIGHLIGHT_COLOURS = ["#FFD700", "#FF2D95"]  # gold, then magenta for a second layer: both stand out from the palette
FONT_SIZE = 16  # readable on a projector from the back of a room
PLOT_TOP_PX = 12  # over the plot area: the mode bar floats over its top right corner
SVG_MAX_POINTS = 5_000  # maps up to a conference's size draw as SVG, larger ones in WebGL (`point_trace_type`)
MIN_ZOOM_SHARE = 0.2  # a zoom to a filter's papers keeps at least this share of the whole map's width and height
MAX_ZOOM_AREA = 0.5  # a filter's papers spread over more than this share of the map's area are shown on the whole map
# The legend's height in px: a line per entry, and per area (topic) its title and the space above it.
LEGEND_LINE_PX = 21
LEGEND_GROUP_PX = 38
LEGEND_CHARS = 30  # a legend entry's name, at most: the legend keeps to about a third of a 1280-pixel map row
FULL_RANGE_META = "papermap_full_range"  # layout.meta key: the whole map's [x0, x1, y0, y1]
AVOID_META = "papermap_avoid"  # layout.meta key: the [x, y] of the papers labels keep clear of (`MAX_AVOIDED`)
REGION_GREY = "#8C8C8C"
REGION_FILL_ALPHA = 0.13  # light enough to read points over, dark enough to see on a projector


def colourable(papers: pd.DataFrame) -> list[str]:
    """The `COLOR_CHOICES` that tell papers apart here: status, session, day, primary area and venue
    only when the data has several values."""
    return [
        c
        for c in COLOR_CHOICES
        if c in ("subfield", "area", "topic_label", "topic_fine_label") or (c in papers and papers[c].nunique() > 1)
    ]


def map_figure(
    papers: pd.DataFrame,
    color_by: str = "subfield",
    labels: str | None = "topic_label",
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
) -> go.Figure:
    """Scatter of `papers` on the map, one trace per value of `color_by` (per area for subfields), in
    WebGL when `webgl` (a chart updated in place redraws faster so), SVG when False, by default by the
    map's size (`point_trace_type`: a chart drawn afresh each time).

    `context` is the whole map when `papers` is a filtered part of it: its other papers are drawn
    as a faint backdrop, it fixes the axes and the colours, so filtering neither moves nor repaints
    anything; with `zoom` the axes show that part instead (`view_ranges`). `customdata` holds
    `paper_id`, so a selection maps back to papers. Labels of the `labels` column (coarse or fine
    topics; None for none) sit on their topic's region or papers, apart from each other at
    `width_hint` pixels wide (`lib.views.map_labels`). The axes keep equal units. The legend sits
    beside the map; when the subfields (fine topics) under their areas' (topics') titles would be
    taller than the plot area it lists the areas (topics), and the hover names the subfield.
    `highlight` maps a legend name to paper ids (a search's matches, the open paper): those are
    drawn again on top, larger and ringed, one layer per name in order (the last on top), even when
    filtered out; labels keep clear of them, and of a filter's papers, when they are few
    (`_kept_clear`). `legend=False` leaves the legend out (a small map). `regions` draws each coarse
    topic's region (`lib.views.map_regions`) under the points: light grey outlined areas, in the
    topic's own shade when colouring by topic; `region_shapes` is `map_regions(context)` computed
    beforehand (once per map: a tenth of a second on a corpus), by default here; coarse labels use
    them whether drawn or not. With coarse `labels`, the fine topics' labels go too, hidden, for
    `lib.views.map_script` to show in place of the coarse ones when the reader zooms in. `hover` is
    `hover_labels(context)` computed beforehand (it is the slow part on a corpus map); by default it
    is computed here for the papers drawn. `colours` is `category_colours(context, color_by)`
    computed beforehand (once per map and colouring), by default here.

    The figure is sized for the wire: coordinates go as float32, and each point carries its id and
    its hover text only (see `HOVER_TEMPLATE`). With `by_row`, the points traces carry none of those
    but name their papers by row of `context` and give their colours as runs, in their `meta`
    (`lib.views.map_points`): for the map page's chart, which holds `map_points(context, hover)`
    already.
    """
    if color_by not in COLOR_CHOICES:
        raise ValueError(f"color_by must be one of {', '.join(COLOR_CHOICES)}; got {color_by!r}")
    if labels is not None and labels not in LABEL_LEVELS:
        raise ValueError(f"labels must be one of {', '.join(LABEL_LEVELS)} or None; got {labels!r}")
    context = papers if context is None else context
    colours = category_colours(context, color_by) if colours is None else colours
    # By the whole map's size, so a filter never changes the renderer.
    kind = point_trace_type(len(context)) if webgl is None else "scattergl" if webgl else "scatter"
    traces = []
    # The papers shown set the points' size and opacity (a filter to a few makes them big and solid);
    # the whole map sets the backdrop's, so it stays put.
    size, opacity = suggested_marker_size(papers, context), marker_opacity(len(papers))
    outside = ~_isin(context["paper_id"], papers["paper_id"])
    if outside.any():
        traces.append(
            _points(
                kind,
                **(
                    {"meta": {MASK: row_mask(outside)}}
                    if by_row
                    else {"x": _coords(context["x"][outside]), "y": _coords(context["y"][outside])}
                ),
                mode="markers",
                name="filtered out",
                marker={"size": suggested_marker_size(context) * 0.8, "color": CONTEXT_COLOUR},
                hoverinfo="skip",
                showlegend=False,
            )
        )
    if by_row:
        positions = context.index.get_indexer(papers.index)
        if (positions < 0).any():
            raise ValueError("by_row needs papers to be rows of context (the same index)")

        def point_data(rows: np.ndarray) -> dict[str, Any]:
            return {"meta": {ROWS: positions[rows].tolist()}}
    else:
        hover = hover_labels(papers) if hover is None else hover.loc[papers.index]
        titles, details = hover["title"].to_numpy(dtype=object), hover["details"].to_numpy(dtype=object)
        xs, ys, ids = _coords(papers["x"]), _coords(papers["y"]), papers["paper_id"].to_numpy(dtype=object)

        def point_data(rows: np.ndarray) -> dict[str, Any]:
            return {
                "x": xs[rows],
                "y": ys[rows],
                "customdata": ids[rows],
                "text": titles[rows],
                "hovertext": details[rows],
            }

    groups = category_values(papers, color_by)
    # Values past the palette fold into Other; Unassigned and (none) keep their names, in grey.
    kept = {v for v in groups.unique() if colours.get(v, NEUTRAL) != NEUTRAL or v in (NONE, UNASSIGNED)}
    lumped = groups.where(groups.isin(kept), OTHER).to_numpy()
    rows_of = (
        pd.Series(np.arange(len(papers))).groupby(lumped, sort=False).indices
    )  # value -> row positions, in one pass
    # Grey groups first, so coloured points are drawn over them; then the legend's order.
    grey = [OTHER, NONE, UNASSIGNED]
    order = grey + [v for v in colours if v not in grey]
    parent = PARENTS.get(color_by)
    pairs = (
        pd.DataFrame(
            {"child": category_values(context, color_by), "parent": category_values(context, parent)}
        ).drop_duplicates()
        if parent
        else pd.DataFrame({"child": [], "parent": []})
    )
    parent_of = {c: p for c, p in zip(pairs["child"], pairs["parent"]) if p not in (NONE, UNASSIGNED)}
    in_parent = category_values(papers, parent).value_counts() if parent else None
    # Drawing units: one per value, except that a subfield's points join its area's one trace (a
    # fine topic's its coarse topic's), each point in its own shade. Some 90 traces become
    # about ten, which the browser draws markedly faster; the hover still names the subfield. The
    # legend names every subfield shown, in its shade, under its area's title.
    # group, name, rows, and the unit's values with their counts in row order (one entry, unnamed, for an
    # ungrouped value)
    units: list[tuple[str, str, np.ndarray, list[tuple[str, int]]]] = []
    for value in order:
        rows = rows_of.get(value)
        if rows is None:
            continue
        group = parent_of.get(value, "")
        if not group:
            units.append(("", legend_name(value, len(rows)), rows, [(value, len(rows))]))
        elif units and units[-1][0] == group:
            _, name, before, entries = units[-1]
            units[-1] = (group, name, np.concatenate([before, rows]), [*entries, (value, len(rows))])
        else:
            title = legend_name(group, int(in_parent.get(group, 0)))
            units.append((group, title, rows, [(value, len(rows))]))
    # When the subfields (fine topics) under their areas' (topics') titles would be taller than the plot
    # area, the legend names the areas (topics) only, so it fits beside the map; filtering to an area
    # brings its subfields back. The hover names each paper's.
    lines = sum(len(runs) if group else 1 for group, _, _, runs in units)
    legend_titles = sum(1 for group, _, _, _ in units if group)
    by_parent = lines * LEGEND_LINE_PX + legend_titles * LEGEND_GROUP_PX > height - PLOT_TOP_PX
    for group, name, rows, runs in units:
        if group and by_parent:
            entries = [(group, colours.get(group, colours.get(runs[0][0], NEUTRAL)), name, None)]
        else:
            # Each subfield shown, in its shade; the first carries the area's title.
            entries = [
                (group, colours.get(value, NEUTRAL), legend_name(value, count), {"text": name} if place == 0 else None)
                for place, (value, count) in enumerate(runs if group else [])
            ]
        for legend_group, colour, entry, group_title in entries:  # legend-only traces
            traces.append(
                _points(
                    kind,
                    x=[None],
                    y=[None],
                    mode="markers",
                    name=entry,
                    legendgroup=legend_group,
                    legendgrouptitle=group_title,
                    marker={"size": size, "color": colour},
                    hoverinfo="skip",
                )
            )
        marker = {"size": size, "line": {"width": 0.5, "color": "white"}}
        shades = [[colours.get(value, NEUTRAL), count] for value, count in runs]
        if not group:  # one colour
            marker["color"] = shades[0][0]
        elif not by_row:
            marker["color"] = [colour for colour, count in shades for _ in range(count)]
        grey_unit = not group and marker["color"] == NEUTRAL
        marker["opacity"] = opacity * (0.6 if grey_unit else 1.0)
        points = point_data(rows)
        if by_row and group:
            points["meta"][COLOUR_RUNS] = shades
        traces.append(
            _points(
                kind,
                **points,
                mode="markers",
                name=name,
                legendgroup=group or None,
                showlegend=not group,
                marker=marker,
                hovertemplate=HOVER_TEMPLATE,
            )
        )
    for (name, marked_ids), colour in zip((highlight or {}).items(), HIGHLIGHT_COLOURS * len(highlight or {})):
        traces += _highlight_trace(context, marked_ids, name, colour, size, hover, kind, by_row)
    x_range, y_range, revision = view_ranges(papers, context, zoom)
    shapes: Sequence[Region] = ()
    if regions or labels == "topic_label":  # labels sit on the regions, drawn or not
        shapes = map_regions(context) if region_shapes is None else region_shapes
    if regions:
        # Under everything: the eye finds the regions first, and they never hide a point.
        traces = _region_traces(shapes, colours if color_by == "topic_label" else None) + traces
    avoid = _kept_clear(papers, context, highlight)
    annotations = []
    if labels:
        # Equal units on both axes: the scale is the one the tighter side allows (pixels per unit).
        unit = min(width_hint / (x_range[1] - x_range[0]), (height - 40) / (y_range[1] - y_range[0]))
        annotations = label_annotations(papers, context, labels, x_range, y_range, unit, shapes, avoid)
    layout = {
        "annotations": annotations,
        "height": height,
        "margin": {"l": 0, "r": 0, "t": PLOT_TOP_PX, "b": 0},
        "font": {"size": FONT_SIZE, "color": "#111"},
        "showlegend": legend,
        "legend": {
            # Beside the map, in the room a map of equal units leaves on a wide screen; a long legend
            # scrolls in its own box instead of taking the map's height.
            "title": {
                "text": COLOR_CHOICES[color_by] + (f" by {COLOR_CHOICES[parent].lower()}" if by_parent else "") + " "
            },
            "orientation": "v",
            "x": 1.0,
            "xanchor": "left",
            "y": 1.0,
            "yanchor": "top",
            "itemsizing": "constant",
            "font": {"size": FONT_SIZE - 2},
            "groupclick": "togglegroup",
        },
        "plot_bgcolor": "white",
        "dragmode": "pan",
        # A rerun (a click, a colouring) keeps the reader's zoom, a new view (`view_ranges`) sets it;
        # the full range goes with the figure for the labels' zoom levels (lib.views.map_script).
        "uirevision": revision,
        "meta": {
            FULL_RANGE_META: [*_padded_range(context["x"]), *_padded_range(context["y"])],
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
    # Unvalidated: every trace and layout key here is fixed by this module and its tests, and
    # validating some 90 traces and the layout is most of the build (0.15-0.3 s a rerun on the ICML titles).
    figure = go.Figure(data=traces, layout=layout, _validate=False)
    return figure


def _kept_clear(
    papers: pd.DataFrame, context: pd.DataFrame, highlight: Mapping[str, Collection[str]] | None
) -> list[tuple[float, float]]:
    """The papers labels keep clear of: the highlighted ones and, when a filter shows a few of the
    map's papers, those; at most `MAX_AVOIDED` (past it labels would all vanish), highlighted first."""
    marked = {paper_id for ids in (highlight or {}).values() for paper_id in ids}
    kept = context[_isin(context["paper_id"], marked)] if marked else context.iloc[:0]
    if len(kept) > MAX_AVOIDED:
        return []
    if len(papers) < len(context) and len(kept) + len(papers) <= MAX_AVOIDED:
        kept = pd.concat([kept, papers[~_isin(papers["paper_id"], marked)]])
    return list(zip(kept["x"].astype(float), kept["y"].astype(float)))


def map_regions(context: pd.DataFrame) -> list[Region]:
    """The coarse topics' regions of the whole map `context` over the map's axes (`topic_regions`)."""
    x_range, y_range = _padded_range(context["x"]), _padded_range(context["y"])
    return topic_regions(context, (x_range[0], x_range[1]), (y_range[0], y_range[1]))


def _region_traces(shapes: Sequence[Region], colours: Mapping[str, str] | None) -> list[dict]:
    traces = []
    for region in shapes:
        colour = colours.get(region.label, REGION_GREY) if colours else REGION_GREY
        red, green, blue = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
        traces.append(
            {
                "type": "contour",
                "x": region.x.astype(np.float32),
                "y": region.y.astype(np.float32),
                "z": region.density,
                "name": f"region: {html_literal(region.label)}",
                # One level: inside it the topic's light shade, outside nothing.
                "contours": {"start": region.level, "end": region.level, "size": 1, "coloring": "fill"},
                "colorscale": [[0, "rgba(0,0,0,0)"], [1, f"rgba({red},{green},{blue},{REGION_FILL_ALPHA})"]],
                "zmin": 0,
                "zmax": 255,
                "showscale": False,
                "line": {"color": colour, "width": 1, "smoothing": 1.0},
                "hoverinfo": "skip",
                "showlegend": False,
            }
        )
    return traces


def legend_name(value: str, count: int) -> str:
    """A legend entry: `value`, cut to `LEGEND_CHARS` with an ellipsis, and its count, escaped.

    Long subfield names would otherwise make the legend as wide as the map in a 1280-pixel window;
    the hover and the card name the subfield in full."""
    short = value if len(value) <= LEGEND_CHARS else value[: LEGEND_CHARS - 1].rstrip(" ,;:-") + "…"
    return f"{html_literal(short)} ({count})"


def point_trace_type(n_points: int) -> str:
    """The Plotly trace type for a map of `n_points` papers drawn afresh (`st.plotly_chart`, a
    downloaded file): SVG ("scatter") up to `SVG_MAX_POINTS`, WebGL ("scattergl") past it.

    A fresh WebGL plot of the 3,340 ICML titles took 0.65-0.7 s in Chromium's software renderer
    against 0.29 s as SVG; past some thousands of points SVG's per-point elements cost more than
    WebGL's start. Updated in place, WebGL is the faster at every size (`map_figure(webgl=True)`)."""
    return "scatter" if n_points <= SVG_MAX_POINTS else "scattergl"


def _points(kind: str, **props: object) -> dict:
    # Traces go in as dicts: plotly deep-copies trace objects element by element, seconds at 87k papers.
    return {"type": kind, **props}


def _isin(values: pd.Series, wanted: Collection[str] | pd.Series) -> np.ndarray:
    # On object arrays: pandas' Arrow-backed strings test membership in a long list a hundred times slower.
    wanted = wanted.to_numpy(dtype=object) if isinstance(wanted, pd.Series) else np.asarray(list(wanted), dtype=object)
    return pd.Series(values.to_numpy(dtype=object), dtype=object).isin(wanted).to_numpy()


def _coords(values: pd.Series) -> np.ndarray:
    # float32 halves the coordinates on the wire; a map drawn a thousand pixels wide needs no more.
    return values.to_numpy(dtype=np.float32)


def _highlight_trace(
    context: pd.DataFrame,
    ids: Collection[str],
    name: str,
    colour: str,
    size: float,
    hover: pd.DataFrame | None,
    kind: str,
    by_row: bool,
) -> list[dict]:
    chosen = _isin(context["paper_id"], list(ids))
    marked = context[chosen]
    if marked.empty:
        return []
    if by_row:
        point_data = {"meta": {ROWS: np.flatnonzero(chosen).tolist()}}
    else:
        # Hover texts are built for the marked papers only (unless given): a search may mark a few of thousands.
        labels = (
            hover_labels(marked)
            if hover is None or not marked.index.isin(hover.index).all()
            else hover.loc[marked.index]
        )
        point_data = {
            "x": _coords(marked["x"]),
            "y": _coords(marked["y"]),
            "customdata": marked["paper_id"].to_numpy(dtype=object),
            "text": labels["title"].to_numpy(dtype=object),
            "hovertext": labels["details"].to_numpy(dtype=object),
        }
    return [
        _points(
            kind,
            **point_data,
            mode="markers",
            name=f"{html_literal(name)} ({len(marked)})",
            marker={"size": max(size * 1.8, 12), "color": colour, "line": {"width": 2.5, "color": "#111"}},
            hovertemplate=HOVER_TEMPLATE,
        )
    ]


def view_ranges(papers: pd.DataFrame, context: pd.DataFrame, zoom: bool) -> tuple[list[float], list[float], str]:
    """The axes' x and y ranges and the figure's `uirevision` for `papers` shown over the map `context`.

    The whole map's, under one revision, unless `zoom` and `papers` are a part of it lying within
    `MAX_ZOOM_AREA` of the map: then that part's, padded, each axis at least `MIN_ZOOM_SHARE` of the
    whole map's (a few papers do not fill the screen), under a revision of their own, so a new
    filter moves the reader's view to its papers once and a rerun of the same view (a colouring, a
    click) keeps the reader's own zoom."""
    full_x, full_y = _padded_range(context["x"]), _padded_range(context["y"])
    if not zoom or len(papers) in (0, len(context)):
        return full_x, full_y, "map"
    ranges = [
        _widened(_padded_range(papers[axis]), MIN_ZOOM_SHARE * (full[1] - full[0]))
        for axis, full in (("x", full_x), ("y", full_y))
    ]
    spans = [(high - low) / (full[1] - full[0]) for (low, high), full in zip(ranges, (full_x, full_y))]
    if spans[0] * spans[1] > MAX_ZOOM_AREA:  # papers all over the map: the whole map shows them best
        return full_x, full_y, "map"
    return ranges[0], ranges[1], "map " + " ".join(f"{value:.6g}" for value in ranges[0] + ranges[1])


def _widened(span: list[float], at_least: float) -> list[float]:
    missing = max(at_least - (span[1] - span[0]), 0.0) / 2
    return [span[0] - missing, span[1] + missing]


def _padded_range(values: pd.Series) -> list[float]:
    low, high = (float(values.min()), float(values.max())) if len(values) else (-1.0, 1.0)
    pad = RANGE_PAD * (high - low or 1.0)
    return [low - pad, high + pad]
