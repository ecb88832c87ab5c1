import numpy as np
import pandas as pd
import pytest

from lib.figures import OTHER, PALETTE, count_bar, map_figure, marker_size, short_authors, topic_positions
from lib.tables import paper_table


def papers(n=40, groups=5):
    rng = np.random.default_rng(0)
    return pd.DataFrame({
        "paper_id": [f"p{i}" for i in range(n)],
        "title": [f"Paper {i}" for i in range(n)],
        "authors": [["Ada Lovelace", "Alan Turing", "Grace Hopper", "Edsger Dijkstra"]] * n,
        "subfield": [f"Subfield {i % groups}" for i in range(n)],
        "area": ["Area"] * n,
        "status": [""] * n,
        "venue": ["ICML"] * n,
        "keywords": [["kernels", "graphs"]] * n,
        "topic": [i % 3 for i in range(n)],
        "topic_label": [f"Topic {i % 3}" for i in range(n)],
        "url": [""] * n,
        "x": rng.normal(size=n),
        "y": rng.normal(size=n),
    })


def plotted_ids(figure):
    return [pid for trace in figure.data for pid in trace.customdata]


def test_every_paper_is_one_point_carrying_its_id():
    table = papers()
    figure = map_figure(table)
    assert sorted(plotted_ids(figure)) == sorted(table["paper_id"])
    assert {trace.type for trace in figure.data} == {"scattergl"}
    assert len(figure.data) == 5 and len(figure.layout.annotations) == 3


def test_many_groups_fold_into_one_grey_other():
    table = papers(n=120, groups=len(PALETTE) + 6)
    figure = map_figure(table)
    assert len(figure.data) == len(PALETTE) + 1
    assert figure.data[-1].name.startswith(OTHER)
    assert len({trace.marker.color for trace in figure.data}) == len(figure.data)
    assert sorted(plotted_ids(figure)) == sorted(table["paper_id"])


def test_colours_stay_with_their_group_when_the_map_is_filtered():
    table = papers()
    order = list(table["subfield"].value_counts().index)
    whole = {t.name.rsplit(" (", 1)[0]: t.marker.color for t in map_figure(table, categories=order).data}
    part = {t.name.rsplit(" (", 1)[0]: t.marker.color for t in map_figure(table[table["subfield"] == "Subfield 3"], categories=order).data}
    assert part == {"Subfield 3": whole["Subfield 3"]}


def test_untrusted_text_is_escaped_in_hover_legend_and_labels():
    table = papers(n=6, groups=1)
    table["title"] = "<script>alert(1)</script>"
    table["subfield"] = "<img src=x onerror=alert(1)>"
    table["topic_label"] = "<b onmouseover=alert(1)>x</b>"
    figure = map_figure(table)
    rendered = " ".join([*figure.data[0].hovertext, figure.data[0].name, *(a.text for a in figure.layout.annotations)])
    assert "<script>" not in rendered and "<img" not in rendered and "<b onmouseover" not in rendered
    assert "&lt;script&gt;" in rendered


def test_labels_can_be_hidden_and_colour_choices_are_checked():
    assert len(map_figure(papers(), show_labels=False).layout.annotations) == 0
    with pytest.raises(ValueError, match="color_by"):
        map_figure(papers(), color_by="abstract")


def test_empty_selection_gives_an_empty_figure():
    figure = map_figure(papers().iloc[:0])
    assert len(figure.data) == 0 and len(topic_positions(papers().iloc[:0])) == 0


def test_small_helpers():
    assert short_authors(["A", "B"]) == "A, B"
    assert short_authors(["A", "B", "C", "D"]) == "A, B, C et al."
    assert marker_size(19) > marker_size(3340) > marker_size(87691) >= 3
    bars = count_bar(papers(), "subfield")
    assert list(bars.data[0].x) == sorted(bars.data[0].x)  # largest on top
    assert sum(bars.data[0].x) == 40


def test_paper_table_drops_columns_nobody_has():
    table = paper_table(papers(n=3))
    assert list(table.columns) == ["title", "authors", "subfield", "topic", "keywords"]
    assert table["authors"][0] == "Ada Lovelace, Alan Turing, Grace Hopper et al."
