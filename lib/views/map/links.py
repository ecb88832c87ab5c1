"""From a click on a breakdown chart to the map showing it: Plotly's selection read, the map's URL filters made."""

from __future__ import annotations

from collections.abc import Mapping

from lib.errors import ParameterError
from lib.views.filters import FACETS, FINE_MARK

# Papers table column -> the sidebar facet (`lib.views.filters.FACETS`, also its URL key) that filters on it;
# a topic or a cross-table cell becomes these filters. Fine topics carry `FINE_MARK` in the facet.
FILTER_KEYS = {
    "subfield": "subfield",
    "area": "area",
    "primary_area": "primary_area",
    "status": "status",
    "topic_label": "topic",
    "topic_fine_label": "topic",
    "first_session": "session",  # lib.views.schedule's columns: a session or day of the schedule
    "first_day": "day",
}


def map_filters(selection: Mapping[str, str], current: Mapping[str, list[str]] | None = None) -> dict[str, list[str]]:
    """URL query parameters of a map view filtered to `selection` (papers-table column -> value).

    `current` is the page's URL (key -> values): its other filters are kept, so the map shows the
    same slice narrowed to the selection; the filters the selection sets replace their old values.
    """
    unknown = [c for c in selection if c not in FILTER_KEYS]
    if unknown:
        raise ParameterError(f"no map filter for {', '.join(unknown)}; filterable: {', '.join(FILTER_KEYS)}")
    params = {key: list(values) for key, values in (current or {}).items() if key in FACETS}
    for column, value in selection.items():
        params[FILTER_KEYS[column]] = [f"{value}{FINE_MARK}" if column == "topic_fine_label" else str(value)]
    return params


def cell_of_selection(selection: Mapping | None) -> tuple[str, str] | None:
    """The (row value, column value) of the cross-table cell clicked, from `st.plotly_chart`'s selection.

    The heatmap's clickable layer carries `[row, column, count]` as each point's `customdata`
    (`lib.views.charts.cross_table_heatmap`). None when nothing was clicked, something else was (a bar
    carries one value), or the cell is empty: a map of no papers helps nobody.
    """
    points = (selection or {}).get("selection", {}).get("points", [])
    for point in points:
        data = point.get("customdata")
        if isinstance(data, (list, tuple)) and len(data) == 3 and data[2]:
            return str(data[0]), str(data[1])
    return None


def clicked_value(selection: Mapping | None) -> str | None:
    """The value a clicked bar carries as its `customdata` (a topic label, a subfield), or None."""
    points = (selection or {}).get("selection", {}).get("points", [])
    values = [point.get("customdata") for point in points if isinstance(point.get("customdata"), str)]
    return values[0] if values else None
