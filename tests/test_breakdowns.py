"""Per-topic and per-subfield breakdowns on built maps of the planted topics and of the shipped seed."""

import pandas as pd
import pytest
from conftest import SEED_SAMPLE, HashingEmbedder

from lib.builder.pipeline import build
from lib.errors import ParameterError
from lib.views.breakdown_text import (
    keyword_table,
    label_reason,
    mix_line,
    neighbour_line,
    percent,
    topic_choices,
    topic_facts,
)
from lib.views.breakdowns import (
    BREAKDOWN_COLUMNS,
    NOT_GIVEN,
    cross_table,
    has_values,
    level_columns,
    mix,
    neighbouring_topics,
    papers_by_id,
    subfield_counts,
    topic_breakdown,
    topic_papers,
    topic_row,
    topic_sizes,
)
from lib.views.filters import FINE_MARK, Filters, filter_papers
from lib.views.map.links import cell_of_selection, clicked_value, map_filters


@pytest.fixture(scope="module")
def planted(planted_module_data):
    return build(planted_module_data, cache_dir=planted_module_data.parent / "cache", embedder=HashingEmbedder()).papers


@pytest.fixture(scope="module")
def seed(tmp_path_factory):
    return build(SEED_SAMPLE, cache_dir=tmp_path_factory.mktemp("seed") / "cache").papers


@pytest.mark.parametrize("level", ["coarse", "fine"])
def test_breakdown_has_one_row_per_topic_with_mixes_that_sum_to_one(planted, seed, level):
    for papers in (planted, seed):
        id_column, label_column = level_columns(level)
        table = topic_breakdown(papers, level)
        assert list(table.columns) == list(BREAKDOWN_COLUMNS)
        assert sorted(table["topic"]) == sorted(papers[id_column].unique()) and table["papers"].sum() == len(papers)
        assert list(table["papers"]) == sorted(table["papers"], reverse=True)
        assert dict(zip(table["topic"], table["label"])) == dict(zip(papers[id_column], papers[label_column]))
        for column in ("subfield_mix", "status_mix"):
            assert all(abs(sum(share for _, share in shares) - 1) < 1e-9 for shares in table[column])
        for row in table.itertuples():
            members = set(papers.loc[papers[id_column] == row.topic, "paper_id"])
            assert row.representatives and set(row.representatives) <= members
            assert row.label not in row.neighbours and len(set(row.neighbours)) == len(row.neighbours)
            assert all(0 <= s <= 1 for s in row.neighbour_shares) and list(row.neighbour_shares) == sorted(
                row.neighbour_shares, reverse=True
            )
            assert all(
                s >= o for s, o in zip(row.keyword_shares, row.keyword_overall_shares)
            )  # distinctive: used more inside


def test_planted_topics_are_explained_by_their_own_vocabulary(planted):
    table = topic_breakdown(planted, "coarse")
    for row in table.itertuples():
        area = planted.loc[planted["topic"] == row.topic, "primary_area"].mode()[0]
        own = {
            "privacy": ("privacy", "private", "membership"),
            "diffusion": ("diffusion", "denoising", "generat", "noise", "score"),
            "bandits": ("bandit", "regret", "bound", "arms", "confidence", "exploration", "decision"),
        }[area]
        assert any(word in row.keywords[0].lower() for word in own), (area, row.keywords)
        phrase, share, overall = row.label_evidence[0]
        assert phrase.lower() in row.label.lower() and share > overall  # why the label: far commoner in the topic
        assert row.subfield_mix[0][1] >= 0.9  # a planted topic is one subfield
        assert row.status_mix == [("Poster", 1.0)]
    privacy = table[table["label"].str.lower().str.contains("privacy")]
    assert len(privacy) >= 1 and any("privacy" in k.lower() for k in privacy.iloc[0]["keywords"])


def test_declared_area_by_discovered_topic_is_nearly_diagonal(planted):
    assert has_values(planted, "primary_area")
    table = cross_table(planted, "primary_area", "topic_label")
    assert set(table.index) == {"privacy", "diffusion", "bandits"} and table.to_numpy().sum() == len(planted)
    # Each discovered topic is (almost) all one declared area; a planted area may span two topics.
    assert (table.max(axis=0) >= 0.9 * table.sum(axis=0)).all()
    assert table.max(axis=0).sum() >= 0.95 * len(planted)


def test_cross_table_orders_largest_first_and_drops_empty_values(seed):
    table = cross_table(seed, "subfield", "topic_label")
    assert table.to_numpy().sum() == len(seed)
    assert list(table.sum(axis=1)) == sorted(table.sum(axis=1), reverse=True)
    assert list(table.sum(axis=0)) == sorted(table.sum(axis=0), reverse=True)
    assert (
        not has_values(seed, "primary_area")
        and not has_values(seed, "status")
        and cross_table(seed, "primary_area", "topic_label").empty
    )
    with pytest.raises(ParameterError):
        cross_table(seed, "nonsense", "topic_label")


def test_subfield_counts_group_subfields_within_their_area(seed):
    counts = subfield_counts(seed)
    assert counts["papers"].sum() == len(seed) and not counts.duplicated(["area", "subfield"]).any()
    assert all(abs(s - 1) < 1e-9 for s in counts.groupby("area")["share_of_area"].sum())
    areas = list(dict.fromkeys(counts["area"]))
    assert list(counts["area"]) == [
        a for a in areas for _ in range((counts["area"] == a).sum())
    ]  # each area in one block
    sizes = [counts.loc[counts["area"] == a, "papers"].sum() for a in areas]
    assert sizes == sorted(sizes, reverse=True)


def test_topic_sizes_count_the_whole_map_and_what_is_in_view(seed):
    shown = seed[seed["subfield"] == seed["subfield"].mode()[0]]
    sizes = topic_sizes(seed, shown, "fine")
    assert sizes["papers"].sum() == len(seed) and sizes["in_view"].sum() == len(shown)
    assert (sizes["in_view"] <= sizes["papers"]).all() and list(sizes["papers"]) == sorted(
        sizes["papers"], reverse=True
    )
    breakdown = topic_breakdown(seed, "fine")
    choices = topic_choices(breakdown, sizes)
    assert [int(t) for t in choices] == [
        t for t in breakdown["topic"] if t in set(shown["topic_fine"])
    ]  # only topics in view, largest first
    assert all(text.endswith(" in view)") for text in choices.values())
    assert list(topic_choices(breakdown, topic_sizes(seed, seed, "fine")).values())[0].endswith(" papers)")
    first = int(next(iter(choices)))
    assert topic_row(breakdown, first)["topic"] == first


def test_mix_names_the_commonest_values_then_other():
    values = pd.Series(["a"] * 5 + ["b"] * 3 + ["c", "d", ""])
    assert mix(values, top=2) == [("a", 5 / 11), ("b", 3 / 11), ("Other", 3 / 11)]
    assert mix(values, top=3)[2:] == [("c", 1 / 11), ("Other", 2 / 11)] and mix(values, top=4)[-1] == (
        NOT_GIVEN,
        1 / 11,
    )  # no "Other" of one
    assert mix(pd.Series(["x", ""]), top=1) == [("x", 0.5), (NOT_GIVEN, 0.5)]
    assert mix(pd.Series([], dtype=str)) == []
    with pytest.raises(ParameterError):
        mix(values, top=0)


def test_neighbours_share_a_border_on_the_map():
    # Topic 0 sits between 1 and 2 on a line; 2 is far from 1.
    x = [0, 1, 2, *range(3, 20), 50, 51, 52]
    papers = pd.DataFrame({"x": x, "y": [0.0] * len(x), "topic": [1] * 3 + [0] * 17 + [2] * 3})
    near = neighbouring_topics(papers, "coarse", n_neighbours=2)
    assert [t for t, _ in near[1]] == [0, 2] and near[1][0][1] > 0 and near[1][1][1] == 0
    assert [t for t, _ in near[0]][0] == 1 and all(t != 0 for t, _ in near[0])
    assert neighbouring_topics(papers.assign(topic=0), "coarse") == {0: []}
    with pytest.raises(ParameterError):
        neighbouring_topics(papers, "medium")


def test_map_filters_keep_other_filters_and_replace_the_cell_s():
    current = {"area": ["Theory"], "subfield": ["Old"], "author": ["bengio"], "color": ["status"]}
    params = map_filters({"subfield": "Bandits", "topic_label": "Regret bounds"}, current)
    assert params == {
        "area": ["Theory"],
        "subfield": ["Bandits"],
        "author": ["bengio"],
        "topic": ["Regret bounds"],
    }  # not a colour
    fine = map_filters({"primary_area": "privacy", "topic_fine_label": "DP-SGD"})
    assert fine == {
        "primary_area": ["privacy"],
        "topic": [f"DP-SGD{FINE_MARK}"],
    }  # as the topic facet offers a fine topic
    with pytest.raises(ParameterError):
        map_filters({"abstract": "x"})


def test_clicks_read_back_the_cell_or_bar_clicked():
    clicked = {
        "selection": {"points": [{"curve_number": 1, "customdata": ["Privacy", "<b>DP</b>", 4]}], "point_indices": [3]}
    }
    assert cell_of_selection(clicked) == ("Privacy", "<b>DP</b>")
    assert cell_of_selection({"selection": {"points": [{"customdata": ["Privacy", "DP", 0]}]}}) is None  # an empty cell
    assert (
        cell_of_selection({"selection": {"points": [], "point_indices": []}}) is None
        and cell_of_selection(None) is None
    )
    bar = {"selection": {"points": [{"customdata": "Bandits"}]}}
    assert cell_of_selection(bar) is None and clicked_value(bar) == "Bandits" and clicked_value(clicked) is None


def test_a_topic_s_map_filters_select_exactly_its_papers(planted):
    for level in ("coarse", "fine"):
        id_column, label_column = level_columns(level)
        for topic, label in planted[[id_column, label_column]].drop_duplicates().itertuples(index=False):
            shown = filter_papers(planted, Filters.from_query(map_filters({label_column: label})))
            assert set(shown[id_column]) == {topic} and len(shown) == len(topic_papers(planted, level, topic))


def test_sentences_and_tables_explain_a_topic(planted):
    row = topic_breakdown(planted, "coarse").iloc[0]
    reason = label_reason(row, len(planted))
    phrase, share, overall = row["label_evidence"][0]
    assert (
        f'"{phrase}"' in reason
        and f"{share:.0%}" in reason
        and f"all {len(planted)}" in reason
        and "x as common" in reason
    )
    assert "numbered" in label_reason({**row, "label_evidence": []}, len(planted))
    table = keyword_table(row)
    assert list(table["keyphrase"]) == list(row["keywords"]) and (table["lift"] >= 1).all()
    assert mix_line([("A", 0.6), ("Other", 0.4)]) == "A 60% · Other 40%"
    assert (
        percent(0.004) == "0.4%" and percent(0.0) == "0%" and percent(0.126) == "13%"
    )  # a rare phrase never reads as 0%
    assert neighbour_line({"neighbours": ["X", "Y"], "neighbour_shares": [0.12, 0.0]}) == "X (12% of nearby papers) · Y"
    ordered = papers_by_id(planted, list(row["representatives"])[::-1] + ["missing"])
    assert list(ordered["paper_id"]) == list(row["representatives"])[::-1]


def test_topic_facts_line():
    row = {"topic": 3, "papers": 1200, "share": 0.04, "parent_label": "Bandits"}
    sizes = pd.DataFrame({"topic": [3], "in_view": [30]})
    assert topic_facts(row, "coarse", sizes, False) == "1,200 papers, 4% of the map"
    assert topic_facts(row, "fine", sizes, True) == "1,200 papers, 4% of the map · within Bandits · 30 pass the filters"
