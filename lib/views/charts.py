"""The charts of the topics and subfields pages: breakdown tables (`lib.views.breakdowns`) in, a `go.Figure` out. Pure; no Streamlit.

Drawn in the map's colours and type (`lib.views.map.figure`); data text is HTML-escaped
(`lib.views.markup.html_literal`), and each bar or cell carries what a click on it selects as `customdata`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from lib.views.map.colours import NEUTRAL
from lib.views.map.figure import FONT_SIZE
from lib.views.map.traces import CONTEXT_COLOUR
from lib.views.markup import html_literal

IN_VIEW_COLOUR = "#3A6EA5"


def topic_size_bar(sizes: pd.DataFrame, title: str = "Papers per topic") -> go.Figure:
    """Horizontal bars of papers per topic, largest on top, from `lib.views.breakdowns.topic_sizes`.

    Bars are the whole map's topics; when filters hide some papers, each bar splits into the papers
    in view (blue) and those filtered out (grey), so sizes stay comparable while filtering.
    `customdata` holds each topic's label.
    """
    rows = sizes.iloc[::-1]
    names, labels = [html_literal(label) for label in rows["label"]], rows["label"].astype(str).to_numpy()
    filtered = bool((rows["in_view"] < rows["papers"]).any())
    figure = go.Figure()
    figure.add_trace(
        go.Bar(
            x=rows["in_view"].to_numpy() if filtered else rows["papers"].to_numpy(),
            y=names,
            orientation="h",
            name="in view",
            marker_color=IN_VIEW_COLOUR,
            customdata=labels,
            text=rows["papers"].to_numpy() if not filtered else None,
            hovertemplate="%{y}: %{x} papers" + (" in view" if filtered else "") + "<extra></extra>",
        )
    )
    if filtered:
        figure.add_trace(
            go.Bar(
                x=(rows["papers"] - rows["in_view"]).to_numpy(),
                y=names,
                orientation="h",
                name="filtered out",
                marker_color=CONTEXT_COLOUR,
                customdata=labels,
                text=rows["papers"].to_numpy(),
                textposition="outside",
                hovertemplate="%{y}: %{x} papers filtered out<extra></extra>",
            )
        )
    figure.update_layout(
        title={"text": html_literal(title)},
        barmode="stack",
        height=max(260, 30 * len(rows) + 120),
        margin={"l": 10, "r": 40, "t": 50, "b": 60},
        font={"size": FONT_SIZE - 2, "color": "#111"},
        showlegend=filtered,
        legend={"orientation": "h", "x": 0, "y": -0.12, "yanchor": "top"},
        yaxis={"automargin": True, "type": "category"},
        xaxis=_count_axis(int(rows["papers"].max()) if len(rows) else 0),
        plot_bgcolor="white",
    )
    return figure


def _count_axis(most: int) -> dict:
    # Whole papers only: small counts would otherwise get ticks at 0.5.
    return {"title": {"text": "papers"}, "rangemode": "tozero", "dtick": 1 if most <= 10 else None}


def subfield_bar(counts: pd.DataFrame, colours: dict[str, str], title: str = "Papers per subfield") -> go.Figure:
    """Bars of papers per subfield, area by area, from `lib.views.breakdowns.subfield_counts`.

    Each bar takes its subfield's colour on the map (`category_colours(papers, "subfield")`), so
    areas read as blocks of one hue; hover names the area and the subfield's share of it, and
    `customdata` holds the subfield, so a click can filter the map.
    """
    rows = counts.iloc[::-1]
    names = [html_literal(s) for s in rows["subfield"]]
    hover = [
        f"<b>{html_literal(s)}</b><br>{html_literal(a)}<br>{n} papers, {share:.0%} of the area"
        for s, a, n, share in zip(rows["subfield"], rows["area"], rows["papers"], rows["share_of_area"])
    ]
    figure = go.Figure(
        go.Bar(
            x=rows["papers"].to_numpy(),
            y=names,
            orientation="h",
            text=rows["papers"].to_numpy(),
            textposition="outside",
            marker_color=[colours.get(s, NEUTRAL) for s in rows["subfield"]],
            customdata=rows["subfield"].astype(str).to_numpy(),
            hovertext=hover,
            hovertemplate="%{hovertext}<extra></extra>",
        )
    )
    figure.update_layout(
        title={"text": html_literal(title)},
        height=max(260, 28 * len(rows) + 110),
        margin={"l": 10, "r": 40, "t": 50, "b": 60},
        font={"size": FONT_SIZE - 2, "color": "#111"},
        yaxis={"automargin": True, "type": "category"},
        xaxis=_count_axis(int(rows["papers"].max()) if len(rows) else 0),
        plot_bgcolor="white",
        hoverlabel={"font": {"size": FONT_SIZE, "color": "#111"}, "bgcolor": "white", "align": "left"},
    )
    return figure


def cross_table_heatmap(table: pd.DataFrame, row_title: str, column_title: str, title: str = "") -> go.Figure:
    """Heatmap of a count table (`lib.views.breakdowns.cross_table`): paper counts in the cells, colour by share of the row.

    Colouring by the row's share lets a small row show where its papers go as clearly as a large one.
    Plotly reports no click on a heatmap cell (its heatmap trace cannot be selected), so a layer of
    invisible markers sits on the cell centres and carries `customdata` [row value, column value,
    count]; with hover distance unlimited, the marker under the pointer is always its cell's.
    """
    values = table.to_numpy(dtype=np.int64)
    totals = np.maximum(values.sum(axis=1, keepdims=True), 1)
    shares = values / totals
    rows, columns = [html_literal(r) for r in table.index], [html_literal(c) for c in table.columns]
    figure = go.Figure(_share_heatmap(values, shares, rows, columns))
    figure.add_trace(_cell_markers(table, values, shares, rows, columns, row_title, column_title))
    figure.update_layout(
        title={"text": html_literal(title)} if title else None,
        height=max(300, 30 * len(rows) + 200),
        margin={"l": 10, "r": 10, "t": 50 if title else 20, "b": 10},
        font={"size": FONT_SIZE - 2, "color": "#111"},
        # Ranges end at the outer cells: the marker layer would otherwise pad the axes with empty bands.
        # Rows need no axis title: their names say what they are, and a title collides with long ones.
        xaxis={
            "title": {"text": html_literal(column_title)},
            "type": "category",
            "side": "top",
            "tickangle": -35,
            "automargin": True,
            "range": [-0.5, len(columns) - 0.5],
        },
        yaxis={"type": "category", "range": [len(rows) - 0.5, -0.5], "automargin": True},
        hovermode="closest",
        hoverdistance=-1,
        plot_bgcolor="white",
        hoverlabel={"font": {"size": FONT_SIZE, "color": "#111"}, "bgcolor": "white", "align": "left"},
    )
    return figure


def _share_heatmap(values: np.ndarray, shares: np.ndarray, rows: list[str], columns: list[str]) -> go.Heatmap:
    """The heatmap itself: cells coloured by `shares`, labelled with their counts `values` (none for 0)."""
    return go.Heatmap(
        z=shares,
        x=columns,
        y=rows,
        text=np.where(values > 0, values.astype(str), ""),
        texttemplate="%{text}",
        textfont={"size": FONT_SIZE - 2},
        colorscale="Blues",
        zmin=0,
        zmax=1,
        hoverinfo="skip",
        xgap=1,
        ygap=1,
        # A short bar at the top: on a tall table a full-height bar puts its scale off screen.
        colorbar={
            "title": {"text": "share of row"},
            "tickformat": ".0%",
            "thickness": 14,
            "lenmode": "pixels",
            "len": 220,
            "y": 1,
            "yanchor": "top",
        },
    )


def _cell_markers(
    table: pd.DataFrame,
    values: np.ndarray,
    shares: np.ndarray,
    rows: list[str],
    columns: list[str],
    row_title: str,
    column_title: str,
) -> go.Scatter:
    """Invisible markers on the cell centres, each with its cell's hover text and `customdata`
    [row value, column value, count]: what a click on a heatmap cell selects."""
    row_index, column_index = np.indices(values.shape)
    row_name, column_name = html_literal(row_title), html_literal(column_title)
    hover = [
        f"{row_name}: <b>{rows[r]}</b><br>{column_name}: {columns[c]}<br>{values[r, c]} papers ({shares[r, c]:.0%} of the row)"
        for r, c in zip(row_index.ravel(), column_index.ravel())
    ]
    return go.Scatter(
        x=[columns[c] for c in column_index.ravel()],
        y=[rows[r] for r in row_index.ravel()],
        mode="markers",
        marker={"size": 20, "color": "rgba(0,0,0,0)"},
        showlegend=False,
        customdata=[
            [str(table.index[r]), str(table.columns[c]), int(values[r, c])]
            for r, c in zip(row_index.ravel(), column_index.ravel())
        ],
        hovertext=hover,
        hovertemplate="%{hovertext}<extra></extra>",
    )
