"""Figures of the topics and subfields pages: counts drawn right, cells clickable, data text escaped."""

import json

import pandas as pd

from lib.views.breakdowns import cross_table, subfield_counts, topic_sizes
from lib.views.charts import cross_table_heatmap, subfield_bar, topic_size_bar
from lib.views.map.figure import FONT_SIZE
from lib.views.map.links import cell_of_selection
from lib.views.map.traces import CONTEXT_COLOUR

HOSTILE = "<img src=x onerror=alert(1)>"


def papers():
    return pd.DataFrame(
        {
            "area": ["Theory"] * 5 + ["Applications"] * 3,
            "subfield": ["Bandits", "Bandits", "Bandits", "Theory", HOSTILE, "Health", "Health", "Climate"],
            "topic": [0, 0, 0, 1, 1, 1, 2, 2],
            "topic_label": ["Regret bounds"] * 3 + [HOSTILE] * 3 + ["Clinical data"] * 2,
            "primary_area": ["theory"] * 5 + ["", "applications", "applications"],
        }
    )


def everything_said(figure):
    """Every string a viewer can see or hover: the figure's JSON without the click data (`customdata`)."""
    spec = json.loads(figure.to_json())
    for trace in spec["data"]:
        trace.pop("customdata", None)
    return json.dumps(spec)


def test_topic_size_bar_draws_whole_topics_and_splits_them_when_filtered():
    table = papers()
    whole = topic_size_bar(topic_sizes(table, table))
    assert len(whole.data) == 1 and list(whole.data[0].x) == [2, 3, 3] and not whole.layout.showlegend
    assert list(whole.data[0].customdata)[::-1][:1] == ["Regret bounds"]  # largest on top, label for a click
    filtered = topic_size_bar(topic_sizes(table, table[table["area"] == "Theory"]))
    in_view, out = filtered.data
    assert list(in_view.x + out.x) == [2, 3, 3] and list(in_view.x) == [0, 2, 3] and out.marker.color == CONTEXT_COLOUR
    assert filtered.layout.font.size >= FONT_SIZE - 2


def test_subfield_bar_groups_by_area_in_the_map_s_colours():
    figure = subfield_bar(subfield_counts(papers()), {"Bandits": "#123456"})
    bars = figure.data[0]
    assert list(bars.customdata)[::-1][0] == "Bandits" and list(bars.x)[::-1][0] == 3
    assert list(bars.marker.color)[::-1][0] == "#123456"
    assert sum(bars.x) == len(papers())


def test_heatmap_cells_hold_counts_and_carry_their_row_and_column_for_a_click():
    table = cross_table(papers(), "subfield", "topic_label")
    figure = cross_table_heatmap(table, "Subfield", "Topic")
    heatmap, cells = figure.data
    assert heatmap.type == "heatmap" and cells.type == "scatter" and cells.marker.color == "rgba(0,0,0,0)"
    counts = {(r, c): n for r, c, n in cells.customdata}
    assert counts[("Bandits", "Regret bounds")] == 3 and counts[("Bandits", "Clinical data")] == 0
    assert len(counts) == table.size and sum(counts.values()) == len(papers())
    # A click reaches the page as Streamlit's selection of the clicked marker.
    clicked = {"selection": {"points": [{"customdata": list(next(c for c in cells.customdata if c[2]))}]}}
    assert cell_of_selection(clicked) == ("Bandits", "Regret bounds")
    row_sums = [sum(row) for row in heatmap.z]
    assert all(abs(s - 1) < 1e-9 for s in row_sums)  # colour is the share of the row
    assert figure.layout.hoverdistance == -1


def test_heatmap_of_declared_areas_leaves_papers_without_one_out():
    table = cross_table(papers(), "primary_area", "topic_label")
    figure = cross_table_heatmap(table, "Primary area", "Topic")
    assert sum(n for _, _, n in figure.data[1].customdata) == 7


def test_data_text_is_escaped_in_every_figure():
    table = papers()
    figures = [
        topic_size_bar(topic_sizes(table, table)),
        subfield_bar(subfield_counts(table), {}),
        cross_table_heatmap(cross_table(table, "subfield", "topic_label"), "Subfield", "Topic"),
    ]
    for figure in figures:
        said = everything_said(figure)
        assert "&lt;img src=x onerror=alert(1)&gt;" in said
        assert HOSTILE not in said
    # The raw value travels only as click data, to become a URL filter value.
    assert HOSTILE in [c for _, c, _ in figures[2].data[1].customdata]
