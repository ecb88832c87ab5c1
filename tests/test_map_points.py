"""The map page's chart gets every paper once (`map_points`) and figures that name papers by row
(`map_figure(by_row=True)`): drawn, they must be the very figure `map_figure` makes with its points in it."""

import base64
import json

import numpy as np
import pytest
from test_figures import papers

from lib.views.map.figure import map_figure
from lib.views.map.hover import hover_labels
from lib.views.map.points import KEY_CHARS, map_points, points_key, read_points, with_points


def plain(value):
    """A figure's JSON with plotly's base64 typed arrays written out as lists, floats at float32's precision."""
    if isinstance(value, dict) and "bdata" in value:
        value = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"]).tolist()
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    return float(np.float32(value)) if isinstance(value, float) else value


def table_with_untrusted_title():
    table = papers(n=60, groups=6)
    table["area"] = [f"Area {i % 2}" for i in range(60)]  # subfields under two areas: one trace each, shaded per point
    table.loc[4, "title"] = "<script>alert(1)</script> & more"
    return table


@pytest.mark.parametrize(
    "shown, color_by, highlight",
    [
        ("all", "subfield", None),
        ("part", "subfield", {"matches": ["p0", "p3", "p7"], "open paper": ["p8"]}),  # p0 is filtered out
        ("part", "topic_label", None),
        ("part", "status", {"open paper": ["p1"]}),
    ],
)
def test_a_figure_by_row_draws_exactly_what_the_full_figure_draws(shown, color_by, highlight):
    table = table_with_untrusted_title()
    part = table if shown == "all" else table[table["subfield"].isin(["Subfield 1", "Subfield 4"])]
    points = map_points(table, hover_labels(table))
    options = {"context": table, "highlight": highlight, "regions": True, "webgl": True}
    by_row = map_figure(part, color_by, by_row=True, **options).to_json()
    full = json.loads(map_figure(part, color_by, **options).to_json())
    named_by_row = [trace for trace in json.loads(by_row)["data"] if "meta" in trace]
    assert named_by_row and "Paper 1" not in by_row  # no title travels with the figure
    assert not any({"x", "y", "customdata", "text", "hovertext"} & set(trace) for trace in named_by_row)
    assert plain(with_points(json.loads(by_row), points)) == plain(full)


def test_the_papers_go_once_and_a_filter_sends_only_its_rows():
    table = papers(n=400, groups=8)
    hover = hover_labels(table)
    points = map_points(table, hover)
    whole = map_figure(table, context=table, by_row=True).to_json()
    part = table[table["subfield"] == "Subfield 2"]
    filtered, filtered_full = (map_figure(part, context=table, by_row=by_row).to_json() for by_row in (True, False))
    assert len(filtered) < len(filtered_full) / 2 and len(filtered) < len(whole)
    assert len(points) + len(whole) < len(map_figure(table, context=table).to_json())


def test_the_papers_read_back_in_order_and_their_key_follows_their_content():
    table = table_with_untrusted_title()
    hover = hover_labels(table)
    points = map_points(table, hover)
    read = read_points(points)
    assert read["n"] == len(table) and read["ids"] == list(table["paper_id"])
    assert np.array_equal(read["x"], table["x"].to_numpy(np.float32)) and np.array_equal(
        read["y"], table["y"].to_numpy(np.float32)
    )
    assert read["titles"] == list(hover["title"]) and read["details"] == list(hover["details"])
    assert "<script>" not in read["titles"][4] and "&lt;script&gt;" in read["titles"][4]  # escaped by the hover
    assert map_points(table, hover) == points and len(points_key(points)) == KEY_CHARS  # the same bytes each time
    shuffled = table.iloc[::-1]
    assert read_points(map_points(shuffled, hover))["ids"] == list(shuffled["paper_id"])  # the table's order
    table.loc[0, "title"] = "Another title"
    assert points_key(map_points(table, hover_labels(table))) != points_key(points)


def test_by_row_needs_the_papers_to_be_rows_of_the_context():
    table = papers()
    with pytest.raises(ValueError, match="rows of context"):
        map_figure(table.reset_index(drop=True).set_axis(range(100, 140)), context=table, by_row=True)
