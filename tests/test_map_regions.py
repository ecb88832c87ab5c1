"""Topic regions (lib.views.map.regions): where each coarse topic's region of the map lies."""

import numpy as np
import pandas as pd
import pytest

from lib.views.map.regions import HELD_SHARE, topic_regions


def planted(n=300, seed=0):
    """Three topics in three separate blobs, plus a few strays of topic A across the map."""
    rng = np.random.default_rng(seed)
    centres = {"A": (-3.0, 0.0), "B": (3.0, 0.0), "C": (0.0, 4.0)}
    rows = [
        (label, cx + rng.normal(scale=0.6), cy + rng.normal(scale=0.6))
        for label, (cx, cy) in centres.items()
        for _ in range(n // 3)
    ]
    rows += [("A", x, y) for x, y in rng.uniform(-5, 5, size=(6, 2))]
    table = pd.DataFrame(rows, columns=["topic_label", "x", "y"])
    return table.assign(paper_id=[f"p{i}" for i in range(len(table))])


def cell_of(region, x, y):
    return np.abs(region.y - y).argmin(), np.abs(region.x - x).argmin()


def inside(region, table):
    """Which of `table`'s papers lie in `region` (their cell's density at or above its level)."""
    return np.array([region.density[cell_of(region, x, y)] >= region.level for x, y in zip(table["x"], table["y"])])


RANGES = ((-6.0, 6.0), (-4.0, 7.0))


def test_each_topic_region_holds_the_bulk_of_its_papers_and_few_of_the_others():
    table = planted()
    regions = {r.label: r for r in topic_regions(table, *RANGES)}
    assert sorted(regions) == ["A", "B", "C"]
    for label, region in regions.items():
        own = table[table["topic_label"] == label]
        assert inside(region, own).mean() >= HELD_SHARE - 0.05
        assert inside(region, table[table["topic_label"] != label]).mean() < 0.05


def test_regions_never_overlap_and_are_the_same_on_every_run():
    table = planted()
    regions = topic_regions(table, *RANGES)
    claimed = sum((r.density >= r.level).astype(int) for r in regions)
    assert claimed.max() == 1  # a cell belongs to one topic's region at most
    again = topic_regions(table.sample(frac=1.0, random_state=3), *RANGES)  # the same papers in another order
    assert all(np.array_equal(a.density, b.density) and a.level == b.level for a, b in zip(regions, again))


def test_small_or_unlabelled_topics_get_no_region_and_bad_grids_are_refused():
    table = planted()
    table.loc[:4, "topic_label"] = "Tiny"
    table.loc[5:9, "topic_label"] = ""
    labels = [r.label for r in topic_regions(table.drop(index=range(1, 5)), *RANGES)]
    assert "Tiny" not in labels and "" not in labels and "B" in labels
    assert topic_regions(table.iloc[:0], *RANGES) == []
    with pytest.raises(ValueError, match="grid"):
        topic_regions(table, *RANGES, grid=0)


def test_densities_travel_as_bytes_on_a_grid_of_square_cells():
    region = topic_regions(planted(), *RANGES)[0]
    assert region.density.dtype == np.uint8 and region.density.shape == (len(region.y), len(region.x))
    assert np.allclose(np.diff(region.x), np.diff(region.y)[0])  # square cells: equal units, as the map
    assert 0 < region.level < 255


def sparse_topics(seed=0):
    """Two topics of seven papers, each spread over a unit square, side by side."""
    rng = np.random.default_rng(seed)
    table = pd.DataFrame({"topic_label": ["A"] * 7 + ["B"] * 7, "x": rng.uniform(0, 1, 14), "y": rng.uniform(0, 1, 14)})
    table.loc[7:, "x"] += 1.5
    return table


def test_a_sparse_topics_region_closes_on_its_grid_past_the_papers_ranges():
    # As on the 19-paper default map: a few papers a topic, smoothed wide, at the map's edge. Cut off
    # at the ranges, its region ended in a straight edge with no outline.
    table = sparse_topics()
    ranges = ((-0.13, 2.58), (-0.03, 1.06))  # the papers' own, padded by 6% as the map's are
    regions = topic_regions(table, *ranges)
    assert [r.label for r in regions] == ["A", "B"]
    for region in regions:
        above = region.density >= region.level
        assert not (above[0].any() or above[-1].any() or above[:, 0].any() or above[:, -1].any())
        x0, x1, y0, y1 = region.extent()
        rows, columns = np.nonzero(above)
        assert x0 < region.x[columns].min() and x1 > region.x[columns].max()
        assert y0 < region.y[rows].min() and y1 > region.y[rows].max()
    assert max(r.extent()[1] for r in regions) > ranges[0][1]  # past the ranges: the view must widen to it
    assert max(r.extent()[3] for r in regions) > ranges[1][1]
