import pandas as pd

from lib.filters import choices_from_query, filter_papers, value_counts

PAPERS = pd.DataFrame({
    "paper_id": ["a", "b", "c", "d"],
    "area": ["Deep Learning", "Deep Learning", "Optimization", "Optimization"],
    "subfield": ["Large Language Models", "Deep Learning", "Convex Optimization", "Convex Optimization"],
})


def test_no_choice_shows_everything_and_choices_combine():
    assert filter_papers(PAPERS).equals(PAPERS)
    assert list(filter_papers(PAPERS, ["Convex Optimization"])["paper_id"]) == ["c", "d"]
    assert list(filter_papers(PAPERS, ["Large Language Models", "Convex Optimization"])["paper_id"]) == ["a", "c", "d"]


def test_choosing_an_area_includes_its_subfields():
    assert list(filter_papers(PAPERS, ["Deep Learning"])["paper_id"]) == ["a", "b"]


def test_counts_are_sorted_by_size_then_name():
    assert value_counts(PAPERS, "subfield") == {"Convex Optimization": 2, "Deep Learning": 1, "Large Language Models": 1}


def test_url_choices_keep_valid_values_in_order_once():
    query = {"subfield": ["Optimization", "Nonsense", "Deep Learning", "Optimization"]}
    assert choices_from_query(query, "subfield", ["Deep Learning", "Optimization"]) == ["Optimization", "Deep Learning"]
    assert choices_from_query({}, "subfield", ["Deep Learning"]) == []
