"""The map figure's traces: its points by colouring, their legend entries, the backdrop of papers
filtered out, the highlighted papers and the topics' regions, as Plotly trace dicts for
`lib.views.map.figure`. Pure; no Streamlit."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from lib.stages.subfields import UNASSIGNED
from lib.views.map.colours import NEUTRAL, NONE, OTHER, PARENTS, category_values
from lib.views.map.hover import HOVER_TEMPLATE, hover_labels
from lib.views.map.points import COLOUR_RUNS, MASK, ROWS, row_mask
from lib.views.map.regions import Region
from lib.views.map.stacks import suggested_marker_size
from lib.views.markup import html_literal

CONTEXT_COLOUR = "#E3E3E3"  # papers outside the current filters, kept as the map's backdrop
HIGHLIGHT_COLOURS = ["#FFD700", "#FF2D95"]  # gold, then magenta for a second layer: both stand out from the palette
SVG_MAX_POINTS = 5_000  # maps up to a conference's size draw as SVG, larger ones in WebGL (`point_trace_type`)
# The legend's height in px: a line per entry, and per area (topic) its title and the space above it.
LEGEND_LINE_PX = 21
LEGEND_GROUP_PX = 38
LEGEND_CHARS = 30  # a legend entry's name, at most: the legend keeps to about a third of a 1280-pixel map row
REGION_GREY = "#8C8C8C"
REGION_FILL_ALPHA = 0.13  # light enough to read points over, dark enough to see on a projector
REGION_STRENGTH = (0.15, 3.0)  # a region's fill between nearly gone and three times as dark (`region_traces`)


class TraceStyle(NamedTuple):
    """How a map's points are drawn: the Plotly trace type, and their size and opacity."""

    kind: str
    size: float
    opacity: float


class DrawingUnit(NamedTuple):
    """One points trace: a value of the colouring, or all of an area's subfields (a coarse topic's
    fine topics), `group` then naming the area; `name` is its legend name, `rows` its papers (row
    positions of the papers shown), `runs` its values with their papers' counts, in row order."""

    group: str
    name: str
    rows: np.ndarray
    runs: list[tuple[str, int]]


@dataclass(frozen=True)
class PointSource:
    """What a points trace says of its papers: their rows of the whole map (`by_row`, for the map
    page's chart, which holds the points already, `lib.views.map.points`), or their coordinates,
    ids and hover texts."""

    by_row: bool
    columns: Mapping[str, np.ndarray]

    @classmethod
    def of(cls, papers: pd.DataFrame, context: pd.DataFrame, hover: pd.DataFrame | None, by_row: bool) -> PointSource:
        """The points of `papers`, rows of the whole map `context`; `hover` is `hover_labels` of
        them or more, computed beforehand, by default here."""
        if by_row:
            positions = context.index.get_indexer(papers.index)
            if (positions < 0).any():
                raise ValueError("by_row needs papers to be rows of context (the same index)")
            return cls(True, {ROWS: positions})
        # Hover texts are built for these papers only (unless given): a search may mark a few of thousands.
        if hover is not None and papers.index.isin(hover.index).all():
            labels = hover.loc[papers.index]
        else:
            labels = hover_labels(papers)
        columns = {
            "x": _coords(papers["x"]),
            "y": _coords(papers["y"]),
            "customdata": papers["paper_id"].to_numpy(dtype=object),
            "text": labels["title"].to_numpy(dtype=object),
            "hovertext": labels["details"].to_numpy(dtype=object),
        }
        return cls(False, columns)

    def data(self, rows: np.ndarray | None = None) -> dict[str, Any]:
        """A trace's properties for the papers at `rows` (positions among the papers), by default all."""
        if self.by_row:
            chosen = self.columns[ROWS] if rows is None else self.columns[ROWS][rows]
            return {"meta": {ROWS: chosen.tolist()}}
        return {key: values if rows is None else values[rows] for key, values in self.columns.items()}


def backdrop_traces(papers: pd.DataFrame, context: pd.DataFrame, kind: str, by_row: bool) -> list[dict]:
    """The papers of `context` outside the filters (none or one trace), light grey and smaller."""
    outside = ~in_ids(context["paper_id"], papers["paper_id"])
    if not outside.any():
        return []
    points = (
        {"meta": {MASK: row_mask(outside)}}
        if by_row
        else {"x": _coords(context["x"][outside]), "y": _coords(context["y"][outside])}
    )
    marker = {"size": suggested_marker_size(context) * 0.8, "color": CONTEXT_COLOUR}
    return [
        _points(kind, **points, mode="markers", name="filtered out", marker=marker, hoverinfo="skip", showlegend=False)
    ]


def drawing_units(
    papers: pd.DataFrame,
    context: pd.DataFrame,
    color_by: str,
    colours: Mapping[str, str],
    counted: pd.DataFrame | None = None,
) -> list[DrawingUnit]:
    """The traces of `papers` coloured by `color_by`: one per value, except that a subfield's points
    join its area's one trace (a fine topic's its coarse topic's), each point in its own shade.
    The legend names give the counts of `counted` (default `papers`: a large map draws a part of
    the papers it counts).

    Some 90 traces become about ten, which the browser draws markedly faster; the hover still names
    the subfield. Values past the palette fold into Other; Unassigned and (none) keep their names,
    in grey; grey units come first, so coloured points are drawn over them, then the legend's order.
    """
    values = category_values(papers, color_by)
    kept = {v for v in values.unique() if _keeps_name(v, colours)}
    lumped = values.where(values.isin(kept), OTHER).to_numpy()
    rows_of = pd.Series(np.arange(len(papers))).groupby(lumped, sort=False).indices  # value -> rows, in one pass
    counts = (values if counted is None else category_values(counted, color_by)).value_counts()
    counts = counts.groupby([v if _keeps_name(v, colours) else OTHER for v in counts.index]).sum()
    grey = [OTHER, NONE, UNASSIGNED]
    order = grey + [v for v in colours if v not in grey]
    parent = PARENTS.get(color_by)
    parent_of: dict[str, str] = {}
    in_parent = pd.Series(dtype=int)
    if parent:
        pairs = pd.DataFrame(
            {"child": category_values(context, color_by), "parent": category_values(context, parent)}
        ).drop_duplicates()
        parent_of = {c: p for c, p in zip(pairs["child"], pairs["parent"]) if p not in (NONE, UNASSIGNED)}
        in_parent = category_values(papers if counted is None else counted, parent).value_counts()
    units: list[DrawingUnit] = []
    for value in order:
        rows = rows_of.get(value)
        if rows is None:
            continue
        group = parent_of.get(value, "")
        if not group:
            units.append(DrawingUnit("", legend_name(value, int(counts.get(value, 0))), rows, [(value, len(rows))]))
        elif units and units[-1].group == group:
            last = units[-1]
            units[-1] = last._replace(rows=np.concatenate([last.rows, rows]), runs=[*last.runs, (value, len(rows))])
        else:
            title = legend_name(group, int(in_parent.get(group, 0)))
            units.append(DrawingUnit(group, title, rows, [(value, len(rows))]))
    return units


def _keeps_name(value: str, colours: Mapping[str, str]) -> bool:
    """Whether the points of `value` keep its name in the legend, rather than fold into Other."""
    return colours.get(value, NEUTRAL) != NEUTRAL or value in (NONE, UNASSIGNED)


def legend_fits(units: Sequence[DrawingUnit], plot_height: float) -> bool:
    """Whether a legend naming every subfield (fine topic) under its area's (topic's) title is no
    taller than the plot area; when not, it names the areas (topics) only, and filtering to an area
    brings its subfields back."""
    lines = sum(len(unit.runs) if unit.group else 1 for unit in units)
    titles = sum(1 for unit in units if unit.group)
    return lines * LEGEND_LINE_PX + titles * LEGEND_GROUP_PX <= plot_height


def category_traces(
    units: Sequence[DrawingUnit], colours: Mapping[str, str], by_parent: bool, style: TraceStyle, source: PointSource
) -> list[dict]:
    """Each unit's legend entries (traces without points) and its points trace."""
    traces = []
    for unit in units:
        traces += _legend_entries(unit, colours, by_parent, style)
        marker: dict[str, Any] = {"size": style.size, "line": {"width": 0.5, "color": "white"}}
        shades: list[list[Any]] = [[colours.get(value, NEUTRAL), count] for value, count in unit.runs]
        if not unit.group:  # one colour
            marker["color"] = shades[0][0]
        elif not source.by_row:
            marker["color"] = [colour for colour, count in shades for _ in range(count)]
        grey_unit = not unit.group and marker["color"] == NEUTRAL
        marker["opacity"] = style.opacity * (0.6 if grey_unit else 1.0)
        points = source.data(unit.rows)
        if source.by_row and unit.group:
            points["meta"][COLOUR_RUNS] = shades
        traces.append(
            _points(
                style.kind,
                **points,
                mode="markers",
                name=unit.name,
                legendgroup=unit.group or None,
                showlegend=not unit.group,
                marker=marker,
                hovertemplate=HOVER_TEMPLATE,
            )
        )
    return traces


def _legend_entries(unit: DrawingUnit, colours: Mapping[str, str], by_parent: bool, style: TraceStyle) -> list[dict]:
    """Legend-only traces of a grouped unit: its area's, or each subfield shown, in its shade, the
    first carrying the area's title. An ungrouped unit's points trace is its own legend entry."""
    if not unit.group:
        return []
    entries: list[tuple[str, str, dict[str, str] | None]]
    if by_parent:
        entries = [(colours.get(unit.group, colours.get(unit.runs[0][0], NEUTRAL)), unit.name, None)]
    else:
        entries = [
            (colours.get(value, NEUTRAL), legend_name(value, count), {"text": unit.name} if place == 0 else None)
            for place, (value, count) in enumerate(unit.runs)
        ]
    return [
        _points(
            style.kind,
            x=[None],
            y=[None],
            mode="markers",
            name=entry,
            legendgroup=unit.group,
            legendgrouptitle=group_title,
            marker={"size": style.size, "color": colour},
            hoverinfo="skip",
        )
        for colour, entry, group_title in entries
    ]


def region_traces(
    shapes: Sequence[Region], colours: Mapping[str, str] | None, strength: Mapping[str, float] | None = None
) -> list[dict]:
    """The coarse topics' regions as filled one-level contours, in grey or each topic's `colours`; a
    topic's `strength` (default 1) scales its fill, between `REGION_STRENGTH` apart (faded to lit)."""
    traces = []
    for region in shapes:
        colour = colours.get(region.label, REGION_GREY) if colours else REGION_GREY
        red, green, blue = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
        weight = float(np.clip((strength or {}).get(region.label, 1.0), *REGION_STRENGTH))
        alpha = round(REGION_FILL_ALPHA * weight, 3)
        traces.append(
            {
                "type": "contour",
                "x": region.x.astype(np.float32),
                "y": region.y.astype(np.float32),
                "z": region.density,
                "name": f"region: {html_literal(region.label)}",
                # One level: inside it the topic's light shade, outside nothing.
                "contours": {"start": region.level, "end": region.level, "size": 1, "coloring": "fill"},
                "colorscale": [[0, "rgba(0,0,0,0)"], [1, f"rgba({red},{green},{blue},{alpha})"]],
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

    A fresh WebGL plot of a conference's titles took longer in Chromium's software renderer than
    SVG; past some thousands of points SVG's per-point elements cost more than WebGL's start.
    Updated in place, WebGL is the faster at every size (`map_figure(webgl=True)`)."""
    return "scatter" if n_points <= SVG_MAX_POINTS else "scattergl"


def _points(kind: str, **props: object) -> dict:
    # Traces go in as dicts: plotly deep-copies trace objects element by element, slow on a corpus.
    return {"type": kind, **props}


def in_ids(values: pd.Series, wanted: Collection[str] | pd.Series) -> np.ndarray:
    # On object arrays: pandas' Arrow-backed strings test membership in a long list far more slowly.
    wanted = wanted.to_numpy(dtype=object) if isinstance(wanted, pd.Series) else np.asarray(list(wanted), dtype=object)
    return pd.Series(values.to_numpy(dtype=object), dtype=object).isin(wanted).to_numpy()


def _coords(values: pd.Series) -> np.ndarray:
    # float32 halves the coordinates on the wire; a map drawn a thousand pixels wide needs no more.
    return values.to_numpy(dtype=np.float32)


def highlight_traces(
    context: pd.DataFrame,
    ids: Collection[str],
    name: str,
    colour: str,
    style: TraceStyle,
    hover: pd.DataFrame | None,
    by_row: bool,
) -> list[dict]:
    """The papers of `context` among `ids`, drawn again on top, larger and ringed (none: no trace)."""
    marked = context[in_ids(context["paper_id"], list(ids))]
    if marked.empty:
        return []
    return [
        _points(
            style.kind,
            **PointSource.of(marked, context, hover, by_row).data(),
            mode="markers",
            name=f"{html_literal(name)} ({len(marked)})",
            marker={"size": max(style.size * 1.8, 12), "color": colour, "line": {"width": 2.5, "color": "#111"}},
            hovertemplate=HOVER_TEMPLATE,
        )
    ]
