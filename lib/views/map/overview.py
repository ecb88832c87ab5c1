"""A large map's first look, drawn while its whole table is still being read: the density of every
paper and the map's fixed sample of points (`lib.views.map.detail`), from the few columns of
`papers.parquet` they need. Pure; no Streamlit.

On a new server the map page of a million papers waits most of a minute for the whole table and its
facet tallies (docs/cluster.md). The overview reads where every paper lies, its colour and its
topics' labels, and the titles of the sample's papers only: their hover names the paper and says
that the rest comes with the whole table.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go

from lib.schema import OUTPUT_COLUMNS, conform
from lib.views.map.colours import category_colours
from lib.views.map.detail import draw_ranks, map_sample
from lib.views.map.figure import map_figure
from lib.views.map.hover import HOVER_TEMPLATE, hover_title

# The map page's own defaults: papers coloured by subfield, the coarse topics' labels on their regions.
OVERVIEW_COLOUR = "subfield"
OVERVIEW_LABELS = "topic_label"
# Read for every paper: where it lies, its colour and its area, its topics' labels.
EVERY_PAPER_COLUMNS = ("x", "y", "subfield", "area", "topic_label", "topic_fine_label")
SAMPLE_COLUMNS = ("paper_id", "title")  # read for the sample's papers only, besides those
PENDING_DETAILS = "Its details, search and filters come once every paper is read."
# Each point's hover: the map's, its details line the same for all, sent once per trace instead of per point.
PENDING_TEMPLATE = HOVER_TEMPLATE.replace("%{hovertext}", PENDING_DETAILS)


@dataclass(frozen=True)
class MapOverview:
    """`whole`: every paper's `EVERY_PAPER_COLUMNS`; `sample`: the papers `map_sample` draws, with
    their `SAMPLE_COLUMNS` too. Both are indexed by row of the map, as `read_papers` numbers them."""

    whole: pd.DataFrame
    sample: pd.DataFrame


def read_overview(papers_path: Path) -> MapOverview:
    """The overview of the map whose table is `papers_path` (a `papers.parquet`), with the values and
    dtypes `lib.map_folder.read_papers` gives those columns."""
    import pyarrow.parquet as pq

    table = pq.read_table(papers_path, columns=[*EVERY_PAPER_COLUMNS, *SAMPLE_COLUMNS])
    whole = _conformed(table.select(list(EVERY_PAPER_COLUMNS)).to_pandas())
    rows = map_sample(whole, draw_ranks(len(whole)))
    sample = _conformed(table.take(rows).to_pandas()).set_axis(pd.Index(rows))
    return MapOverview(whole, sample)


def _conformed(frame: pd.DataFrame) -> pd.DataFrame:
    return conform(frame, tuple(column for column in OUTPUT_COLUMNS if column.name in frame.columns))


def overview_figure(overview: MapOverview, *, height: int, width_hint: int) -> go.Figure:
    """The whole map as the map page first draws a large one, from `overview`: the sample's points
    over every paper's density, coloured by subfield as every paper colours it, the coarse topics'
    labels placed by every paper, the legend counting every paper; as on a large map's slide
    (`lib.views.slide_map`), the regions under them are the sample's. Each point's hover is its
    title and `PENDING_DETAILS`; the points carry nothing else (no ids: the overview takes no
    clicks), for the figure's bytes are most of the first look's wait. `height` and `width_hint` as
    `map_figure`'s."""
    whole, sample = overview.whole, overview.sample
    hover = pd.DataFrame(
        {"title": [hover_title(title) for title in sample["title"]], "details": ""},
        index=sample.index,
        dtype=object,
    )
    figure = map_figure(
        sample,
        OVERVIEW_COLOUR,
        OVERVIEW_LABELS,
        height=height,
        width_hint=width_hint,
        hover=hover,
        webgl=True,
        regions=True,
        colours=category_colours(whole, OVERVIEW_COLOUR),
        labelled=whole,
        density=whole,
        counted=whole,
    )
    return figure.update_traces(
        hovertext=None, customdata=None, hovertemplate=PENDING_TEMPLATE, selector={"hovertemplate": HOVER_TEMPLATE}
    )
