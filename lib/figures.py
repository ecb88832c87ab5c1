"""Figure builders: a papers DataFrame in, a `go.Figure` out. Pure; no Streamlit.

Text from paper lists is untrusted, so every string that reaches hover or labels is HTML-escaped
(Plotly renders a subset of HTML in those).
"""
from __future__ import annotations

import html
import math
import textwrap
from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.colors import qualitative

from .filters import value_counts

# Saturated, distinct colours that survive a projector (pale ones vanish on white). Past the
# palette's size the smallest groups share one grey "Other", so no two legend entries look alike.
PALETTE = [c for c in qualitative.D3 if c != "#7F7F7F"] + [
    "#222A2A", "#FB0D0D", "#511CFB", "#B68100", "#00A08B", "#620042", "#6C7C32", "#0D2A63", "#FC0080",
]
OTHER = "Other"
OTHER_COLOUR = "#9E9E9E"
COLOR_CHOICES = {"subfield": "Subfield", "area": "Area", "topic_label": "Topic", "status": "Status", "venue": "Venue"}
NONE = "(none)"
FONT_SIZE = 16  # readable on a projector from the back of a room


def short_authors(authors: list[str], limit: int = 3) -> str:
    """`A, B, C et al.` style author line."""
    if len(authors) <= limit:
        return ", ".join(authors)
    return ", ".join(authors[:limit]) + " et al."


def _hover_text(papers: pd.DataFrame) -> list[str]:
    rows = []
    for title, authors, subfield, keywords in zip(papers["title"], papers["authors"], papers["subfield"], papers["keywords"]):
        lines = [f"<b>{html.escape(line)}</b>" for line in textwrap.wrap(title, 60)[:3]]
        if authors:
            lines.append(html.escape(short_authors(list(authors))))
        lines.append(f"<i>{html.escape(subfield)}</i>")
        if len(keywords):
            lines.append(html.escape(", ".join(list(keywords)[:5])))
        rows.append("<br>".join(lines))
    return rows


def marker_size(n_points: int) -> float:
    """Big dots for a small conference, small ones for a corpus: about 12 px at 20 papers, 7 px at 3,000."""
    return float(np.clip(15 - 2.3 * math.log10(max(n_points, 1)), 3, 12))


def map_figure(
    papers: pd.DataFrame,
    color_by: str = "subfield",
    show_labels: bool = True,
    categories: Sequence[str] | None = None,
    height: int = 720,
) -> go.Figure:
    """Scatter of every paper on the map, one WebGL trace per value of `color_by`.

    `categories` fixes the colour of each value (pass the whole corpus's order so that filtering
    does not repaint); by default values are ordered by count. Values past the palette's size are
    drawn as one grey `Other` trace. `customdata` holds `paper_id`, so a
    selection maps back to papers. Topic labels are drawn at the median position of each topic's
    papers when `show_labels` is true.
    """
    if color_by not in COLOR_CHOICES:
        raise ValueError(f"color_by must be one of {', '.join(COLOR_CHOICES)}; got {color_by!r}")
    figure = go.Figure()
    hover = np.array(_hover_text(papers), dtype=object)
    size = marker_size(len(papers))
    groups = papers[color_by].astype(str).replace("", NONE)
    present = value_counts(groups.to_frame("group"), "group")
    order = [v for v in (categories if categories is not None else present) if v in present]
    order += [v for v in present if v not in order]
    colours = dict(zip(list(categories or present)[: len(PALETTE)], PALETTE))
    lumped = [v for v in order if v not in colours]
    if lumped:
        groups = groups.where(~groups.isin(lumped), OTHER)
        order = [v for v in order if v in colours] + [OTHER]
        colours[OTHER] = OTHER_COLOUR
    for value in order:
        mask = (groups == value).to_numpy()
        colour = colours[value]
        figure.add_trace(
            go.Scattergl(
                x=papers["x"].to_numpy()[mask],
                y=papers["y"].to_numpy()[mask],
                mode="markers",
                name=f"{html.escape(value)} ({int(mask.sum())})",
                marker={"size": size, "color": colour, "opacity": 0.9, "line": {"width": 0.5, "color": "white"}},
                customdata=papers["paper_id"].to_numpy()[mask],
                hovertext=hover[mask],
                hovertemplate="%{hovertext}<extra></extra>",
            )
        )
    if show_labels:
        for label, position in topic_positions(papers).iterrows():
            figure.add_annotation(
                x=position["x"], y=position["y"], text=f"<b>{html.escape(str(label))}</b>", showarrow=False,
                font={"size": FONT_SIZE + 2, "color": "#111"}, bgcolor="rgba(255,255,255,0.9)",
                bordercolor="#888", borderwidth=1, borderpad=4,
            )
    figure.update_layout(
        height=height,
        margin={"l": 0, "r": 0, "t": 10, "b": 0},
        font={"size": FONT_SIZE, "color": "#111"},
        legend={"title": {"text": COLOR_CHOICES[color_by]}, "itemsizing": "constant", "font": {"size": FONT_SIZE - 1}},
        plot_bgcolor="white",
        dragmode="pan",
        hoverlabel={"font": {"size": FONT_SIZE, "color": "#111"}, "bgcolor": "white", "bordercolor": "#666", "align": "left"},
    )
    # The map's axes mean nothing, so they are hidden, and the map stretches to fill the screen.
    figure.update_xaxes(visible=False)
    figure.update_yaxes(visible=False)
    return figure


def topic_positions(papers: pd.DataFrame) -> pd.DataFrame:
    """Median map position of each topic's papers, indexed by topic label."""
    if papers.empty:
        return pd.DataFrame(columns=["x", "y"])
    return papers.groupby("topic_label", sort=True)[["x", "y"]].median()


def count_bar(papers: pd.DataFrame, column: str = "subfield", title: str = "Papers per subfield", height: int | None = None) -> go.Figure:
    """Horizontal bars of papers per value of `column`, largest on top; `height` defaults to fit the bars."""
    counts = value_counts(papers, column)
    names = [html.escape(name) for name in counts][::-1]
    figure = go.Figure(go.Bar(x=list(counts.values())[::-1], y=names, orientation="h", marker_color="#3A6EA5"))
    figure.update_layout(
        title={"text": title},
        height=height or max(260, 26 * len(counts) + 80),
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        font={"size": FONT_SIZE - 2, "color": "#111"},
        yaxis={"automargin": True},
        # Whole papers only: small counts would otherwise get ticks at 0.5.
        xaxis={"title": {"text": "papers"}, "rangemode": "tozero", "dtick": 1 if max(counts.values(), default=0) <= 10 else None},
    )
    return figure
