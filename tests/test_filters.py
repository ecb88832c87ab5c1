import pandas as pd

from lib.filters import choices_from_query, filter_papers, value_counts

PAPERS = pd.DataFrame({
    "paper_id": ["a", "b", "c", "d"],
    "area": ["Deep Learning", "Deep Learning", "Optimization", "Optimization"],
    "subfield": ["Large Language Models", "Deep Learning", "Convex Optimization", "Convex Optimization"],
})


def ids(frame):
    return list(frame["paper_id"])


def test_no_choice_shows_everything_and_choices_within_a_filter_add_up():
    assert filter_papers(PAPERS).equals(PAPERS)
    assert ids(filter_papers(PAPERS, subfields=["Convex Optimization"])) == ["c", "d"]
    assert ids(filter_papers(PAPERS, subfields=["Large Language Models", "Convex Optimization"])) == ["a", "c", "d"]


def test_an_area_includes_its_subfields_but_a_subfield_named_like_its_area_is_exact():
    assert ids(filter_papers(PAPERS, areas=["Deep Learning"])) == ["a", "b"]
    assert ids(filter_papers(PAPERS, subfields=["Deep Learning"])) == ["b"]  # what its count promises


def test_area_and_subfield_filters_combine():
    assert ids(filter_papers(PAPERS, areas=["Deep Learning"], subfields=["Large Language Models", "Convex Optimization"])) == ["a"]
    assert ids(filter_papers(PAPERS, areas=["Optimization"], subfields=["Large Language Models"])) == []


def test_counts_are_sorted_by_size_then_name():
    assert value_counts(PAPERS, "subfield") == {"Convex Optimization": 2, "Deep Learning": 1, "Large Language Models": 1}


def test_url_choices_keep_valid_values_in_order_once():
    query = {"subfield": ["Optimization", "Nonsense", "Deep Learning", "Optimization"]}
    assert choices_from_query(query, "subfield", ["Deep Learning", "Optimization"]) == ["Optimization", "Deep Learning"]
    assert choices_from_query({}, "subfield", ["Deep Learning"]) == []
