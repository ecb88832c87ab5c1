"""lib.views.map.stacks: which papers coincide at the map's default view, the hover line saying so,
and the marker size suggested by the map's density."""

import numpy as np
import pandas as pd
import pytest
from conftest import bench_module
from scipy.optimize import brentq

from lib.ui_state.map_view import MAP_HEIGHT_HINT, MAP_WIDTH_HINT
from lib.views.map.hover import hover_labels, stack_line, topic_text
from lib.views.map.stacks import (
    DEFAULT_PLOT_PX,
    HALF_COVER_RADII,
    MIN_MARKER_PX,
    marker_size,
    nearest_neighbour_px,
    stack_counts,
    stack_radius,
    stacked_with,
    suggested_marker_size,
    view_scale,
)


def points(xy, **columns):
    xy = np.asarray(xy, dtype=float)
    n = len(xy)
    table = {
        "paper_id": [f"p{i}" for i in range(n)],
        "title": [f"Paper {i}" for i in range(n)],
        "authors": [["Ada Lovelace"]] * n,
        "subfield": ["Kernels"] * n,
        "subfield_confident": [True] * n,
        "subfield_runner_up": [""] * n,
        "topic_label": ["Optimization"] * n,
        "topic_fine_label": ["Step sizes"] * n,
        "topic_assigned_nearest": [False] * n,
        "keywords": [["kernels"]] * n,
        "x": xy[:, 0],
        "y": xy[:, 1],
    }
    return pd.DataFrame({**table, **columns})


def test_the_default_view_is_the_map_pages_smallest_plot_area():
    assert DEFAULT_PLOT_PX == (MAP_WIDTH_HINT, MAP_HEIGHT_HINT)


def test_half_cover_radii_is_where_two_discs_overlap_by_half_a_disc():
    lens = lambda t: 2 * np.arccos(t / 2) - (t / 2) * np.sqrt(4 - t * t) - np.pi / 2  # noqa: E731 (unit discs)
    assert HALF_COVER_RADII == pytest.approx(brentq(lens, 0, 2), abs=1e-4)


def test_the_view_fits_the_padded_map_with_equal_units_into_the_tighter_side():
    x, y = np.array([0.0, 2.0]), np.array([0.0, 1.0])
    assert view_scale(x, y, (448, 448)) == pytest.approx(448 / (1.12 * 2))  # x is the tighter side
    assert view_scale(x, y, (1000, 112)) == pytest.approx(112 / 1.12)
    assert view_scale(np.array([1.0]), np.array([1.0])) == 1.0


def test_papers_on_one_spot_are_counted_and_listed_alike_nearest_first():
    # A map 10 units wide at 448 px: 40 px a unit; 19 papers' 12 px markers stack under 0.12 units.
    spot = [(5.0, 5.0), (5.1, 5.0), (5.0, 5.05), (5.3, 5.0)]  # p3 is 0.2-0.3 away: beside them, not on them
    rest = [(x, y) for x in (0, 10) for y in (0, 10)] + [(2.0 + i % 5 * 1.5, 1.0 + i // 5 * 3) for i in range(11)]
    table = points(spot + rest)
    assert len(table) == 19 and stack_radius(table, (448, 448)) == pytest.approx(HALF_COVER_RADII * 6 / 40)
    counts = stack_counts(table, (448, 448))
    assert counts.tolist()[:4] == [2, 2, 2, 0] and counts.iloc[4:].eq(0).all()
    assert stacked_with(table, "p0", (448, 448))["paper_id"].tolist() == ["p2", "p1"]
    assert stacked_with(table, "p3", (448, 448)).empty and stacked_with(table, "missing").empty
    assert stack_counts(table.head(1)).tolist() == [0] and stack_counts(table.iloc[:0]).empty


def test_the_count_and_the_list_agree_on_a_clumpy_map():
    rng = np.random.default_rng(0)
    centres = rng.uniform(-1, 1, size=(30, 2))
    table = points(centres[rng.integers(0, 30, 600)] + rng.normal(scale=0.01, size=(600, 2)))
    counts = stack_counts(table)
    assert counts.gt(0).mean() > 0.5
    for paper_id, count in zip(table["paper_id"][::37], counts[::37]):
        assert len(stacked_with(table, paper_id)) == count


def test_a_stacked_papers_hover_says_how_many_share_its_spot_and_the_topic_names_both_levels():
    table = points([(0, 0), (0, 0), (0, 0), (1, 1)], topic_label=["Optimization"] * 3 + ["Step sizes"])
    hover = hover_labels(table, stack_counts(table))["details"]
    assert hover[0].endswith("<br>2 more papers here: click to list")
    assert "more paper" not in hover[3] and "Topic: Optimization › Step sizes<br>" in hover[0]
    assert "Topic: Step sizes<br>" in hover[3]  # a fine topic named as its coarse one says it once
    assert "click" not in hover_labels(table, stack_counts(table), clickable=False)["details"][0]
    assert "more paper" not in hover_labels(table)["details"][0]  # no counts given: no line
    assert stack_line(1) == "1 more paper here: click to list" and stack_line(0) == ""
    assert topic_text("A", "") == "A" and topic_text("", "B") == "B"


def test_the_topic_line_is_escaped():
    table = points([(0, 0), (0, 0)], topic_label=["<b>x</b>"] * 2, topic_fine_label=["<img src=x>"] * 2)
    details = hover_labels(table, stack_counts(table))["details"][0]
    assert "<b>x" not in details and "<img" not in details and "&lt;img src=x&gt;" in details


def test_the_suggested_size_is_the_counts_on_a_sparse_map_and_shrinks_where_it_is_dense():
    grid = points([(i % 20, i // 20) for i in range(400)])  # 20 px apart at the default view
    assert suggested_marker_size(grid) == pytest.approx(marker_size(400))
    rng = np.random.default_rng(0)
    dense = points(rng.uniform(size=(3000, 2)))  # some 5 px apart
    size = suggested_marker_size(dense)
    assert MIN_MARKER_PX <= size < marker_size(3000)
    # At that size, about a quarter of the papers (`covered`) are more than half covered, no more.
    covered = (nearest_neighbour_px(dense) < HALF_COVER_RADII * size / 2).mean()
    assert covered == pytest.approx(0.25, abs=0.01)
    assert suggested_marker_size(dense, covered=0.1) < size < suggested_marker_size(dense, covered=0.5)
    assert suggested_marker_size(points(rng.normal(size=(3000, 2)))) == MIN_MARKER_PX  # a dense core
    assert suggested_marker_size(points(np.zeros((50, 2)))) == MIN_MARKER_PX  # one clump: never a speck
    assert suggested_marker_size(points([(0, 0)])) == marker_size(1)
    with pytest.raises(ValueError, match="covered"):
        suggested_marker_size(dense, covered=1.5)


def test_a_filtered_few_are_measured_at_the_whole_maps_scale():
    rng = np.random.default_rng(1)
    whole = points(rng.normal(size=(2000, 2)))
    few = whole.head(40)
    alone, in_context = nearest_neighbour_px(few), nearest_neighbour_px(few, whole)
    assert np.allclose(alone * view_scale(whole["x"], whole["y"]) / view_scale(few["x"], few["y"]), in_context)
    assert suggested_marker_size(few, whole) <= marker_size(40)


def test_the_benchs_stacked_share_is_what_the_hover_and_the_card_count():
    bench = bench_module("map_quality")
    rng = np.random.default_rng(2)
    table = points(rng.normal(size=(800, 2)))
    coords = table[["x", "y"]].to_numpy()
    size = marker_size(len(table))
    assert bench.covered_share(coords, size) == pytest.approx(stack_counts(table, diameter=size).gt(0).mean())
    assert bench.hidden_share(coords, size) >= bench.covered_share(coords, size)  # the union covers more
    pair = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 1.0]])
    assert bench.hidden_share(pair, 10) == pytest.approx(2 / 3) and bench.covered_share(pair, 10) == pytest.approx(
        2 / 3
    )


def test_stacks_are_counted_at_the_size_the_map_draws():
    table = points(np.random.default_rng(4).normal(size=(600, 2)))
    drawn = suggested_marker_size(table)
    assert drawn < marker_size(len(table))  # a dense map draws smaller dots than its count alone gives
    assert stack_radius(table) == pytest.approx(stack_radius(table, diameter=drawn))
