"""Topic labels (lib.views.map.labels): on their regions, apart from each other, off the papers to keep clear of."""

import itertools

import numpy as np
import pandas as pd
import pytest

from lib.views.map.figure import AVOID_META, map_figure, map_regions
from lib.views.map.labels import (
    AVOID_CELL_PIXELS,
    AVOID_PIXELS,
    FINE_ZOOM,
    LABEL_FONT,
    LABEL_MIN_SHOWN,
    ZOOM_LEVELS,
    ZOOM_REVEALED,
    _ClearOf,
    box_size,
    place_labels,
    region_spots,
    topic_positions,
    topic_spots,
)

HEIGHT, WIDTH = 544, 527  # the map page's smallest plot (lib.ui_state.map_view's hints)


def clumps(centres: dict[str, list[tuple[float, float]]], per_clump: int = 40, spread: float = 0.08, seed: int = 0):
    """A map of papers in round clumps: topic label -> the centres of its clumps."""
    rng = np.random.default_rng(seed)
    rows = [
        (label, x + dx, y + dy)
        for label, spots in centres.items()
        for x, y in spots
        for dx, dy in rng.normal(scale=spread, size=(per_clump, 2))
    ]
    table = pd.DataFrame(rows, columns=["topic_label", "x", "y"])
    table["paper_id"] = [f"p{i}" for i in range(len(table))]
    table["title"] = table["paper_id"]
    table["authors"] = [[] for _ in range(len(table))]
    table["keywords"] = [[] for _ in range(len(table))]
    table["subfield_confident"], table["subfield_runner_up"], table["topic_assigned_nearest"] = True, "", False
    table["subfield"] = table["topic_label"]
    table["area"] = "Area"
    table["topic_fine_label"] = table["topic_label"] + " fine " + (table.index % 2).astype(str)
    return table


def coarse_labels(figure):
    return [a for a in figure.layout.annotations if a.name == ZOOM_LEVELS["topic_label"]]


def unit_of(figure) -> float:
    (x0, x1), (y0, y1) = figure.layout.xaxis.range, figure.layout.yaxis.range
    return min(WIDTH / (x1 - x0), (HEIGHT - 40) / (y1 - y0))


def label_boxes(figure) -> list[tuple[float, float, float, float]]:
    """Each shown label's box: centre x, centre y, half width, half height, in map units."""
    unit, boxes = unit_of(figure), []
    for note in coarse_labels(figure):
        width, height = box_size(note.text.removeprefix("<b>").removesuffix("</b>"), note.font.size)
        centre = (note.ax, note.ay) if note.showarrow else (note.x, note.y)
        boxes.append((*centre, width / unit / 2, height / unit / 2))
    return boxes


def in_region(region, x: float, y: float) -> bool:
    """Whether map point x, y lies in `region`'s cell at or above its outline's level."""
    column, row = np.abs(region.x - x).argmin(), np.abs(region.y - y).argmin()
    return bool(region.density[row, column] >= region.level)


def test_a_label_sits_on_its_region_even_when_its_papers_middle_is_another_topics():
    # Topic "Split" lies in two clumps either side of "Middle": its papers' median is in Middle's region.
    table = clumps({"Split": [(-1.0, 0.0), (1.0, 0.0)], "Middle": [(0.0, 0.0)], "Top": [(0.0, 1.0)]})
    figure = map_figure(table, labels="topic_label", width_hint=WIDTH, height=HEIGHT)
    regions = {region.label: region for region in map_regions(table)}
    notes = {note.text: note for note in coarse_labels(figure)}
    assert set(notes) == {"<b>Split</b>", "<b>Middle</b>", "<b>Top</b>"}
    for label, note in notes.items():
        spot = (note.x, note.y)  # the box's centre, or the leader line's end on the region
        assert in_region(regions[label[3:-4]], *spot), label
    split = notes["<b>Split</b>"]
    assert abs(split.x if not split.showarrow else split.ax) > 0.5  # on a clump of its own, not over Middle


def test_labels_never_overlap_and_stay_in_view_on_crowded_maps():
    seen_leaders = 0
    for seed in range(6):
        rng = np.random.default_rng(seed)
        names = [f"Topic with a long name {k}" for k in range(14)]
        table = clumps({name: [tuple(rng.uniform(-1, 1, size=2))] for name in names}, per_clump=25, seed=seed)
        figure = map_figure(table, labels="topic_label", width_hint=WIDTH, height=HEIGHT)
        boxes = label_boxes(figure)
        assert len(boxes) >= 5
        for (ax, ay, aw, ah), (bx, by, bw, bh) in itertools.combinations(boxes, 2):
            assert abs(ax - bx) >= aw + bw - 1e-9 or abs(ay - by) >= ah + bh - 1e-9
        (x0, x1), (y0, y1) = figure.layout.xaxis.range, figure.layout.yaxis.range
        assert all(x0 <= x - w and x + w <= x1 and y0 <= y - h and y + h <= y1 for x, y, w, h in boxes)
        regions = {region.label: region for region in map_regions(table)}
        for note in coarse_labels(figure):  # every label, in its box or by its leader line, on its region
            label = note.text[3:-4]
            assert label not in regions or in_region(regions[label], note.x, note.y)
        leaders = [(k, note) for k, note in enumerate(coarse_labels(figure)) if note.showarrow]
        seen_leaders += len(leaders)
        # A leader line crosses no other and passes through no other label's box (sampled densely
        # here), but one over its own end on the region, when every spot there is covered.
        for (_, a), (_, b) in itertools.combinations(leaders, 2):
            assert not crossing((a.x, a.y), (a.ax, a.ay), (b.x, b.y), (b.ax, b.ay))
        for k, note in leaders:
            line = np.linspace((note.x, note.y), (note.ax, note.ay), 400)
            for j, (x, y, w, h) in enumerate(boxes):
                over_tip = abs(note.x - x) < w and abs(note.y - y) < h
                assert j == k or over_tip or not ((np.abs(line[:, 0] - x) < w) & (np.abs(line[:, 1] - y) < h)).any()
    assert seen_leaders >= 5  # the maps were crowded enough to need leader lines


def crossing(p1, p2, q1, q2) -> bool:
    def side(a, b, c):
        return np.sign((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))

    return side(p1, p2, q1) * side(p1, p2, q2) < 0 and side(q1, q2, p1) * side(q1, q2, p2) < 0


def test_a_label_with_no_room_on_its_region_is_joined_to_it_by_a_leader_line():
    # A small topic hard by a big one whose label takes the only room around it.
    table = clumps({"A very large topic indeed": [(0.0, 0.0)], "Small": [(0.12, 0.0)]}, per_clump=40, spread=0.03)
    table = pd.concat([table, clumps({"Far": [(2.0, 2.0)]})], ignore_index=True)
    table["paper_id"] = [f"p{i}" for i in range(len(table))]
    figure = map_figure(table, labels="topic_label", width_hint=WIDTH, height=HEIGHT)
    notes = {note.text: note for note in coarse_labels(figure)}
    small = notes["<b>Small</b>"]
    regions = {region.label: region for region in map_regions(table)}
    assert small.showarrow and small.axref == "x" and small.ayref == "y"  # the box keeps its map place as one zooms
    assert in_region(regions["Small"], small.x, small.y)  # the line ends on the region
    boxes = label_boxes(figure)
    for (ax, ay, aw, ah), (bx, by, bw, bh) in itertools.combinations(boxes, 2):
        assert abs(ax - bx) >= aw + bw or abs(ay - by) >= ah + bh


def test_labels_keep_clear_of_highlighted_papers_and_of_a_filters_few_papers():
    table = clumps({"Alpha": [(0.0, 0.0)], "Beta": [(1.5, 0.0)]}, spread=0.2)
    plain = {n.text: (n.x, n.y) for n in coarse_labels(map_figure(table, width_hint=WIDTH, height=HEIGHT))}
    # The paper nearest where Alpha's label sat is highlighted: the label moves off it.
    alpha_x, alpha_y = plain["<b>Alpha</b>"]
    nearest = table.iloc[np.argmin(np.hypot(table["x"] - alpha_x, table["y"] - alpha_y))]
    table.loc[nearest.name, ["x", "y"]] = [alpha_x, alpha_y]
    marked = map_figure(table, width_hint=WIDTH, height=HEIGHT, highlight={"open paper": [nearest["paper_id"]]})
    unit = unit_of(marked)
    assert marked.layout.meta[AVOID_META] == [[pytest.approx(alpha_x), pytest.approx(alpha_y)]]
    for x, y, w, h in label_boxes(marked):
        assert abs(x - alpha_x) >= w + AVOID_PIXELS / unit or abs(y - alpha_y) >= h + AVOID_PIXELS / unit
    # A filter to a few papers: no label covers any of them.
    few = table[table["topic_label"] == "Alpha"].iloc[:25]
    shown = map_figure(few, context=table, width_hint=WIDTH, height=HEIGHT, zoom=True)
    assert len(shown.layout.meta[AVOID_META]) == 25 and coarse_labels(shown)
    unit = unit_of(shown)
    for x, y, w, h in label_boxes(shown):
        assert all(
            abs(x - px) >= w + AVOID_PIXELS / unit or abs(y - py) >= h + AVOID_PIXELS / unit
            for px, py in zip(few["x"], few["y"])
        )


def test_labels_keep_clear_of_a_searchs_many_matches_by_going_beside_them():
    table = clumps({"Alpha": [(0.0, 0.0)], "Beta": [(1.5, 0.0)], "Gamma": [(0.75, 1.2)]}, per_clump=150, spread=0.2)
    plain = coarse_labels(map_figure(table, width_hint=WIDTH, height=HEIGHT))
    # Every other paper matches: far more than a filter's few, all over each region.
    matches = table.iloc[::2]
    marked = map_figure(table, width_hint=WIDTH, height=HEIGHT, highlight={"matches": list(matches["paper_id"])})
    assert len(marked.layout.meta[AVOID_META]) == len(matches) == 225
    unit = unit_of(marked)
    boxes = label_boxes(marked)
    assert len(boxes) == len(plain) == 3  # none given up: each found room beside its region
    assert any(note.showarrow for note in coarse_labels(marked))
    for x, y, w, h in boxes:
        near = (np.abs(matches["x"] - x) < w + AVOID_PIXELS / unit) & (
            np.abs(matches["y"] - y) < h + AVOID_PIXELS / unit
        )
        assert not near.any()


def test_a_view_zoomed_to_a_searchs_matches_places_its_fine_labels_off_them():
    table = clumps({"Alpha": [(0.0, 0.0)], "Beta": [(3.0, 0.0)], "Gamma": [(1.5, 2.5)]}, per_clump=60, spread=0.2)
    matches = table[table["topic_label"] == "Alpha"].iloc[::2]
    figure = map_figure(
        table,
        width_hint=WIDTH,
        height=HEIGHT,
        zoom=True,
        focus=list(matches["paper_id"]),
        highlight={"matches": list(matches["paper_id"])},
    )
    (x_low, x_high), (y_low, y_high) = figure.layout.xaxis.range, figure.layout.yaxis.range
    full = figure.layout.meta["papermap_full_range"]
    assert (full[1] - full[0]) / (x_high - x_low) >= FINE_ZOOM  # the script shows the fine labels from the start
    unit, shown = unit_of(figure), 0
    for note in (n for n in figure.layout.annotations if n.name == ZOOM_REVEALED):
        width, height = box_size(note.text.removeprefix("<b>").removesuffix("</b>"), note.font.size)
        x, y = (note.ax, note.ay) if note.showarrow else (note.x, note.y)
        w, h = width / unit / 2, height / unit / 2
        if x_low <= x - w and x + w <= x_high and y_low <= y - h and y + h <= y_high:
            shown += 1
            near = (np.abs(matches["x"] - x) < w + AVOID_PIXELS / unit) & (
                np.abs(matches["y"] - y) < h + AVOID_PIXELS / unit
            )
            assert not near.any(), note.text
    assert shown == 2  # both of Alpha's fine topics, beside its papers


@pytest.mark.parametrize("seed", range(5))
def test_the_grid_of_papers_to_keep_clear_of_errs_away_from_them_by_under_a_cell(seed):
    rng = np.random.default_rng(seed)
    unit = float(rng.uniform(50, 500))  # px per map unit
    points = rng.uniform(-1, 1, size=(int(rng.integers(0, 300)), 2))
    low, high = np.array([-1.0, -1.0]), np.array([1.0, 1.0])
    clear = _ClearOf.points(points, low, high, unit)
    centres = rng.uniform(-1, 1, size=(500, 2))
    half = rng.uniform(0.01, 0.2, size=2)
    near = clear.near(centres, half)
    gap = np.abs(points[None, :, :] - centres[:, None, :]) - half - AVOID_PIXELS / unit  # (boxes, points, axes)
    within = (gap < 0).all(axis=2).any(axis=1)
    within_a_cell = (gap < 2 * AVOID_CELL_PIXELS / unit).all(axis=2).any(axis=1)
    assert (near >= within).all()  # never misses a paper it must keep clear of
    assert (near <= within_a_cell).all()  # and keeps away from no farther than its grid's cell


def test_a_marked_label_says_so_and_its_box_holds_the_mark():
    table = clumps({"Alpha": [(0.0, 0.0)], "Beta": [(1.5, 0.0)]}, spread=0.2)
    figure = map_figure(table, width_hint=WIDTH, height=HEIGHT, label_marks={"Alpha": " (new)"})
    texts = {note.text for note in coarse_labels(figure)}
    assert texts == {"<b>Alpha (new)</b>", "<b>Beta</b>"}
    positions = pd.DataFrame({"x": [0.0], "y": [0.0], "papers": [10]}, index=["Alpha"])
    spots = {"Alpha": np.array([[0.0, 0.0]])}
    plain = place_labels(positions, spots, unit=100.0, x_range=[-0.5, 0.5], y_range=[-1, 1], font_size=18)
    marked = place_labels(
        positions, spots, unit=100.0, x_range=[-0.5, 0.5], y_range=[-1, 1], font_size=18, marks={"Alpha": " (growing)"}
    )
    assert [label.text for label in plain] == ["Alpha"] and marked == []  # 1.8 units wide with its mark: no room


def test_place_labels_is_deterministic_and_drops_what_cannot_fit():
    positions = pd.DataFrame({"x": [0.0, 0.0], "y": [0.0, 0.0], "papers": [10, 5]}, index=["Wide label", "Other"])
    spots = {"Wide label": np.array([[0.0, 0.0]]), "Other": np.array([[0.0, 0.0]])}
    # A view so small only one box fits in it, and none around the spot for a leader line.
    tight = place_labels(positions, spots, unit=100.0, x_range=[-0.7, 0.7], y_range=[-0.2, 0.2], font_size=18)
    assert [label.text for label in tight] == ["Wide label"] and tight[0].tip is None
    roomy = place_labels(positions, spots, unit=100.0, x_range=[-5, 5], y_range=[-5, 5], font_size=18)
    assert [label.text for label in roomy] == ["Wide label", "Other"] and roomy[1].tip == (0.0, 0.0)
    assert roomy == place_labels(positions, spots, unit=100.0, x_range=[-5, 5], y_range=[-5, 5], font_size=18)
    assert place_labels(positions, {}, 100.0, [-5, 5], [-5, 5]) == []  # no spot of its own in view: no label


def test_spots_lie_inside_the_region_and_fall_back_to_the_papers():
    table = clumps({"Alpha": [(0.0, 0.0)], "Beta": [(1.5, 0.0)]})
    regions = map_regions(table)
    for region in regions:
        spots = region_spots(region)
        assert len(spots) and all(in_region(region, x, y) for x, y in spots)
    table.loc[:2, "topic_label"] = "Tiny"  # too few papers for a region
    spots, on_region = topic_spots(table, "topic_label", regions)
    assert np.array_equal(spots["Tiny"], table.loc[:2, ["x", "y"]].to_numpy())
    assert on_region == {"Alpha", "Beta"}  # Tiny's label will point to its papers, not cover one
    tiny = pd.DataFrame({"x": [0.0], "y": [0.0], "papers": [3]}, index=["Tiny"])
    (placed,) = place_labels(tiny, spots, 300.0, [-3, 3], [-3, 3], on_spot=on_region)
    assert placed.tip is not None and placed.tip in set(zip(table.loc[:2, "x"], table.loc[:2, "y"]))


def test_fine_labels_wait_hidden_on_one_of_their_papers():
    table = clumps({"Alpha": [(0.0, 0.0), (0.6, 0.0)], "Beta": [(1.5, 0.0)]})
    figure = map_figure(table, width_hint=WIDTH, height=HEIGHT)
    hidden = [a for a in figure.layout.annotations if a.name == ZOOM_REVEALED]
    assert {a.text for a in hidden} == {f"<b>{t} fine {k}</b>" for t in ("Alpha", "Beta") for k in (0, 1)}
    assert all(a.opacity == 0 and a.font.size == LABEL_FONT["topic_fine_label"] for a in hidden)
    points = set(zip(table["x"], table["y"]))
    assert all((a.x, a.y) in points for a in hidden)  # on a paper of the topic, not between two clumps
    assert not [a for a in map_figure(table, labels="topic_fine_label").layout.annotations if a.name == ZOOM_REVEALED]


def test_a_label_follows_its_papers_in_view_and_thin_topics_lose_theirs():
    table = clumps({"Alpha": [(0.0, 0.0), (1.0, 0.0)], "Beta": [(0.5, 1.0), (1.5, 1.0)]})
    far_end = table[(table["topic_label"] != "Alpha") | (table["x"] > 0.5)]
    kept = far_end[far_end["topic_label"] == "Alpha"]
    assert len(kept) >= LABEL_MIN_SHOWN * (table["topic_label"] == "Alpha").sum()
    assert topic_positions(far_end, context=table).loc["Alpha", "x"] == pytest.approx(kept["x"].median())
    note = next(n for n in coarse_labels(map_figure(far_end, context=table)) if n.text == "<b>Alpha</b>")
    assert note.x > 0.5  # on the part of its region where its papers in view are
    thin = table[(table["topic_label"] != "Alpha") | (table.index == 0)]  # one of Alpha's among 80 of Beta's
    assert "Alpha" not in topic_positions(thin, context=table).index


def test_a_filter_to_a_few_papers_names_each_ones_topic():
    table = clumps({f"Topic {k}": [(k % 3, k // 3)] for k in range(6)}, per_clump=40)
    few = table.groupby("topic_label").head(1).iloc[:5]  # one paper of each of five topics
    figure = map_figure(few, context=table, width_hint=WIDTH, height=HEIGHT, zoom=True)
    assert {note.text for note in coarse_labels(figure)} == {f"<b>{label}</b>" for label in few["topic_label"]}
