"""lib.views.map.detail: a large map drawn in part, its view's papers whole, its density under them."""

import math

import numpy as np
import pandas as pd
import pytest

from lib.views.map import detail
from lib.views.map.detail import Area, density_trace, draw_ranks, drawn_rows, in_lasso
from lib.views.map.ranges import padded_range


def scattered(n=5_000, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"paper_id": [f"p{i}" for i in range(n)], "x": rng.normal(size=n), "y": rng.normal(size=n) * 2})


@pytest.fixture
def small_limits(monkeypatch):
    monkeypatch.setattr(detail, "SAMPLE", 300)
    monkeypatch.setattr(detail, "VIEW_PAPERS", 200)


def test_ranks_are_a_fixed_shuffle_of_the_rows():
    ranks = draw_ranks(1_000)
    assert sorted(ranks) == list(range(1_000)) and np.array_equal(ranks, draw_ranks(1_000))
    assert not np.array_equal(ranks, np.arange(1_000))  # not the map's order: that would draw one corner first


def test_the_sample_spans_the_whole_map_and_the_shown_papers(small_limits):
    papers = scattered()
    shown = papers["x"].to_numpy() > 0.5
    rows = drawn_rows(papers, shown, draw_ranks(len(papers)), None, np.zeros(len(papers), bool))
    drawn = papers.iloc[rows.rows]
    assert len(drawn) <= 2 * detail.SAMPLE + 8 and not rows.view_complete  # more shown papers than it draws
    assert len(set(rows.rows)) == len(rows.rows)  # no row in two parts
    for axis in ("x", "y"):  # so the axes span what every paper drawn would
        assert padded_range(drawn[axis]) == padded_range(papers[axis])
        assert padded_range(drawn[axis][shown[drawn.index]]) == padded_range(papers[axis][shown])
    assert shown[rows.rows].sum() >= detail.SAMPLE  # a sample of the papers shown, beside the backdrop's
    # The whole map's part is the same under any filter: a browser is sent it once.
    unfiltered = drawn_rows(
        papers, np.ones(len(papers), bool), draw_ranks(len(papers)), None, np.zeros(len(papers), bool)
    )
    assert np.array_equal(rows.sample, unfiltered.sample) and len(unfiltered.shown) == 0


def test_a_view_of_few_papers_draws_every_one_and_zooming_in_keeps_what_was_drawn(small_limits):
    papers = scattered()
    shown, ranks, none = np.ones(len(papers), bool), draw_ranks(len(papers)), np.zeros(len(papers), bool)
    wide, narrow = Area((-1.0, 1.0), (-2.0, 2.0)), Area((-0.1, 0.2), (-0.3, 0.1))
    rows = {}
    for name, view in (("wide", wide), ("narrow", narrow)):
        drawn = drawn_rows(papers, shown, ranks, view, none)
        rows[name], complete = set(drawn.rows), drawn.view_complete
        assert len(drawn.view) > 0 and not set(drawn.view) & set(drawn.sample) and len(drawn.shown) == 0
        in_view = set(np.flatnonzero(view.holds(papers)))
        assert complete == (len(in_view) <= detail.VIEW_PAPERS)
    assert len(np.flatnonzero(narrow.holds(papers))) <= detail.VIEW_PAPERS
    assert set(np.flatnonzero(narrow.holds(papers))) <= rows["narrow"]  # every paper of the view
    narrow_rows = set(np.flatnonzero(narrow.holds(papers)))
    assert rows["wide"] & narrow_rows <= rows["narrow"]  # a point drawn stays drawn as the reader zooms in


def test_marked_papers_are_drawn_and_the_rows_are_the_same_each_time(small_limits):
    papers = scattered()
    shown = np.ones(len(papers), bool)
    marked = np.zeros(len(papers), bool)
    marked[[7, 4_321]] = True
    ranks = draw_ranks(len(papers))
    first = drawn_rows(papers, shown, ranks, Area((0.0, 0.5), (0.0, 0.5)), marked)
    assert {7, 4_321} <= set(first.rows)
    again = drawn_rows(papers, shown, draw_ranks(len(papers)), Area((0.0, 0.5), (0.0, 0.5)), marked)
    assert all(np.array_equal(a, b) for a, b in zip(first[:3], again[:3]))


@pytest.mark.parametrize(
    "sent",
    [
        None,
        "x",
        {"x": [0, 1]},
        {"x": [0, 1], "y": [0]},
        {"x": [0, 1], "y": "ab"},
        {"x": [0, math.nan], "y": [0, 1]},
        {"x": [0, math.inf], "y": [0, 1]},
        {"x": [True, 1], "y": [0, 1]},
        {"x": ["0", 1], "y": [0, 1]},
    ],
)
def test_an_area_a_browser_sends_is_checked(sent):
    assert Area.of(sent) is None


def test_an_area_holds_its_edges_in_either_order():
    area = Area.of({"x": [1, -1], "y": [0, 2]})
    assert area == Area((-1.0, 1.0), (0.0, 2.0))
    points = pd.DataFrame({"x": [-1.0, 1.0, 1.01, 0.0], "y": [0.0, 2.0, 1.0, -0.01]})
    assert area.holds(points).tolist() == [True, True, False, False]


def test_a_lasso_holds_what_a_point_in_polygon_test_says():
    papers = scattered(2_000)
    triangle_x, triangle_y = [-1.0, 1.5, 0.0], [-2.0, -1.0, 3.0]
    inside = in_lasso(papers, triangle_x, triangle_y)

    def in_triangle(x, y):  # on which side of each edge, all the same sign inside
        sides = [
            (x1 - x0) * (y - y0) - (y1 - y0) * (x - x0)
            for x0, y0, x1, y1 in zip(
                triangle_x, triangle_y, triangle_x[1:] + triangle_x[:1], triangle_y[1:] + triangle_y[:1]
            )
        ]
        return all(s > 0 for s in sides) or all(s < 0 for s in sides)

    expected = [in_triangle(x, y) for x, y in zip(papers["x"], papers["y"])]
    assert inside.tolist() == expected and 0 < inside.sum() < len(papers)
    assert not in_lasso(papers, [0.0, 1.0], [0.0, 1.0]).any()  # two points enclose nothing


def test_a_lasso_past_the_limit_is_refused_before_any_work():
    papers = scattered(10)
    with pytest.raises(ValueError, match="at most 2,000 vertices"):
        in_lasso(papers, [0.0] * 2_001, [0.0] * 2_001)
    with pytest.raises(ValueError, match="as many x as y"):
        in_lasso(papers, [0.0, 1.0, 2.0], [0.0, 1.0])


def test_the_density_counts_every_paper_in_square_cells_and_leaves_empty_ones_clear():
    papers = scattered(3_000)
    x_range, y_range = padded_range(papers["x"]), padded_range(papers["y"])
    trace = density_trace(papers, x_range, y_range)
    z = np.array([[np.nan if v is None else v for v in row] for row in trace["z"]])
    assert max(z.shape) in (detail.DENSITY_CELLS, detail.DENSITY_CELLS + 1) and trace["dx"] == trace["dy"]
    assert np.nanmax(z) == 1.0 and np.isnan(z).any() and (np.nan_to_num(z) >= 0).all()
    # The cell of each paper is shaded, and a cell holding no paper is clear.
    columns = ((papers["x"] - trace["x0"] + trace["dx"] / 2) // trace["dx"]).astype(int)
    rows = ((papers["y"] - trace["y0"] + trace["dy"] / 2) // trace["dy"]).astype(int)
    assert not np.isnan(z[rows, columns]).any()
    occupied = np.zeros(z.shape, bool)
    occupied[rows, columns] = True
    assert np.isnan(z[~occupied]).all()
    assert trace["hoverinfo"] == "skip" and trace["showlegend"] is False


@pytest.fixture
def large_map(planted_file, tmp_path, monkeypatch):
    """The planted 36-paper list's map drawn as a large map is: at most 10 sampled papers, 6 more in a view."""
    monkeypatch.setenv("PAPERMAP_DATA", str(planted_file))
    monkeypatch.setenv("PAPERMAP_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(detail, "LARGE_MAP", 20)
    monkeypatch.setattr(detail, "SAMPLE", 10)
    monkeypatch.setattr(detail, "VIEW_PAPERS", 6)
    return tmp_path / "cache"


def drawn_points(figure):
    """paper id -> (x, y) of every paper point the chart draws (not the backdrop or highlight layers)."""
    traces = [t for t in figure["data"] if t.get("hovertemplate") and t.get("type", "").startswith("scatter")]
    return {i: (x, y) for t in traces for i, x, y in zip(t["customdata"], t["x"], t["y"])}


def legend_total(figure):
    return sum(
        int(t["name"].rsplit("(", 1)[1].rstrip(")"))
        for t in figure["data"]
        if t.get("showlegend") is not False and "(" in t.get("name", "")
    )


def test_a_large_map_draws_a_sample_over_its_density_and_every_paper_of_a_close_view(large_map):
    from conftest import map_chart_data, plain, started

    from lib.map_folder import read_papers
    from lib.views.search import search_example, text_matches

    app = started(color="topic_label")
    data = map_chart_data(app)
    first = drawn_points(data["figure"])
    assert data["reportsView"] and 10 <= len(first) < 36
    assert any(t["type"] == "heatmap" for t in data["figure"]["data"])
    assert legend_total(data["figure"]) == 36  # the legend counts every paper, not the points drawn
    assert any(plain(m.value).startswith(f"{len(first)} of 36 papers drawn over the density") for m in app.markdown)
    # The search box's example comes from the sample's keyphrases, and finds papers drawn at first.
    [folder] = large_map.glob("maps/*/papers.parquet")
    papers = read_papers(folder)
    example = app.text_input(key="q").placeholder.split("e.g. ", 1)[1]
    assert example == search_example(papers[papers["paper_id"].isin(list(first))])
    assert set(papers["paper_id"][text_matches(papers, example)]) & set(first)
    # Zoomed in around a paper the sample left out, the next run draws every paper of the view.
    papers = papers.set_index("paper_id")
    left_out = papers.drop(list(first))
    x, y = left_out[["x", "y"]].iloc[0]
    apart = np.maximum((papers["x"] - x).abs(), (papers["y"] - y).abs()).sort_values()
    half = (apart.iloc[3] + apart.iloc[4]) / 2  # a view of the paper and its three nearest
    near = apart[apart < half].index
    assert 1 <= len(near) <= 6
    app.session_state["map"] = {"view": {"x": [x - half, x + half], "y": [y - half, y + half]}}
    app.run()
    data = map_chart_data(app)
    zoomed = drawn_points(data["figure"])
    assert set(near) <= set(zoomed) and set(first) <= set(zoomed)
    assert not any(t["type"] == "heatmap" for t in data["figure"]["data"]) and legend_total(data["figure"]) == 36
    assert any(plain(m.value).endswith("papers drawn: every paper in this view.") for m in app.markdown)


def test_a_box_on_a_large_map_lists_every_paper_inside_not_only_those_drawn(large_map):
    from conftest import map_chart_data, started

    app = started()
    data = map_chart_data(app)
    assert len(drawn_points(data["figure"])) < 36
    assert data["selectionKey"]  # a box holds for the shown papers, not for the points drawn
    box = {"revision": data["selectionKey"], "kind": "box", "ids": [], "range": {"x": [-1e3, 1e3], "y": [-1e3, 1e3]}}
    app.session_state["map"] = {"selection": box}
    app.run()
    assert "#### 36 selected papers" in [m.value for m in app.markdown]
    # A zoom draws other points but keeps the box's papers listed.
    app.session_state["map"] = {"selection": box, "view": {"x": [-0.1, 0.1], "y": [-0.1, 0.1]}}
    app.run()
    assert map_chart_data(app)["revision"] != data["revision"]
    assert "#### 36 selected papers" in [m.value for m in app.markdown]
    lasso = {**box, "kind": "lasso", "range": None, "lasso": {"x": [-1e3, 1e3, 0.0], "y": [-1e3, -1e3, 1e3]}}
    app.session_state["map"] = {"selection": lasso}
    app.run()
    listed = [m.value for m in app.markdown if m.value.endswith(" selected papers")]
    assert listed and 0 < int(listed[0].split()[1]) <= 36
    refused = {**lasso, "lasso": {"x": [0.0] * 3_000, "y": [0.0] * 3_000}}
    app.session_state["map"] = {"selection": refused}
    app.run()
    assert not app.exception and not any(m.value.endswith(" selected papers") for m in app.markdown)
    # A filter ends the selection: the box was drawn over other papers.
    app.session_state["map"] = {"selection": box}
    filtered = app.multiselect(key="subfield")
    filtered.select(filtered.options[0].rsplit(" (", 1)[0]).run()
    assert not any(m.value.endswith(" selected papers") for m in app.markdown)


def test_a_large_maps_slide_draws_its_sample_over_the_density_and_rings_any_paper(monkeypatch):
    from test_figures import papers as planted

    from lib.views.slide_map import ring_place, slide_backdrop

    table = planted(600, groups=6)
    whole = slide_backdrop(table, 400, 600)
    monkeypatch.setattr(detail, "LARGE_MAP", 500)
    monkeypatch.setattr(detail, "SAMPLE", 100)
    sampled = slide_backdrop(table, 400, 600)
    points = [t for t in sampled.data if t.type.startswith("scatter") and t.customdata is not None]
    assert 100 <= sum(len(t.customdata) for t in points) < 600
    assert [t.type for t in sampled.data].count("heatmap") == 1 and "heatmap" not in [t.type for t in whole.data]
    # The axes are the whole map's, so the ring finds a paper whether its point is drawn or not.
    assert sampled.layout.xaxis.range == whole.layout.xaxis.range
    drawn = {i for t in points for i in t.customdata}
    left_out = next(i for i in table["paper_id"] if i not in drawn)
    assert ring_place(sampled, table, left_out) == ring_place(whole, table, left_out)
