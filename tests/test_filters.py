import pandas as pd

from lib.views.filters import (
    FINE_MARK,
    Filters,
    choices_from_query,
    facet_counts,
    facet_options,
    filter_papers,
    value_counts,
)

PAPERS = pd.DataFrame(
    {
        "paper_id": ["a", "b", "c", "d"],
        "area": ["Deep Learning", "Deep Learning", "Optimization", "Optimization"],
        "subfield": ["Large Language Models", "Deep Learning", "Convex Optimization", "Convex Optimization"],
        "topic_label": ["Language models", "Language models", "Convex solvers", "Convex solvers"],
        "topic_fine_label": ["Reasoning", "Tokenizers", "Convex solvers", "Step sizes"],
        "keywords": [["reasoning", "LLM"], ["LLM"], ["step size"], []],
        "status": ["Oral", "Poster", "Poster", ""],
        "primary_area": ["", "", "", ""],
        "authors": [["Yoshua Bengio", "Ada Lovelace"], ["Ada Lovelace"], ["Alan Turing"], []],
    }
)


def ids(frame):
    return list(frame["paper_id"])


def test_no_choice_shows_everything_and_choices_within_a_filter_add_up():
    assert filter_papers(PAPERS).equals(PAPERS) and not Filters().active()
    assert ids(filter_papers(PAPERS, Filters(subfield=("Convex Optimization",)))) == ["c", "d"]
    assert ids(filter_papers(PAPERS, Filters(subfield=("Large Language Models", "Convex Optimization")))) == [
        "a",
        "c",
        "d",
    ]


def test_an_area_includes_its_subfields_but_a_subfield_named_like_its_area_is_exact():
    assert ids(filter_papers(PAPERS, Filters(area=("Deep Learning",)))) == ["a", "b"]
    assert ids(filter_papers(PAPERS, Filters(subfield=("Deep Learning",)))) == ["b"]  # what its count promises


def test_facets_narrow_each_other():
    assert ids(
        filter_papers(
            PAPERS, Filters(area=("Deep Learning",), subfield=("Large Language Models", "Convex Optimization"))
        )
    ) == ["a"]
    assert ids(filter_papers(PAPERS, Filters(area=("Optimization",), subfield=("Large Language Models",)))) == []
    assert ids(filter_papers(PAPERS, Filters(keyword=("LLM",), status=("Poster",)))) == ["b"]


def test_keywords_match_any_of_a_papers_phrases_and_topics_match_either_level():
    assert ids(filter_papers(PAPERS, Filters(keyword=("LLM", "step size")))) == ["a", "b", "c"]
    assert ids(filter_papers(PAPERS, Filters(topic=("Language models",)))) == ["a", "b"]
    assert ids(filter_papers(PAPERS, Filters(topic=("Step sizes" + FINE_MARK,)))) == ["d"]
    assert ids(filter_papers(PAPERS, Filters(topic=("Tokenizers" + FINE_MARK, "Convex solvers")))) == ["b", "c", "d"]


def test_authors_match_by_name_fragment_in_any_case():
    assert ids(filter_papers(PAPERS, Filters(author=("bengio",)))) == ["a"]
    assert ids(filter_papers(PAPERS, Filters(author=("LOVELACE", "turing")))) == ["a", "b", "c"]
    assert ids(filter_papers(PAPERS, Filters(author=("  ",)))) == ["a", "b", "c", "d"]  # a blank box does not filter


def test_facet_counts_offer_non_empty_values_most_common_first():
    assert facet_counts(PAPERS, "keyword") == {"LLM": 2, "reasoning": 1, "step size": 1}
    assert facet_counts(PAPERS, "keyword", min_count=2) == {"LLM": 2}
    assert facet_counts(PAPERS, "status") == {"Poster": 2, "Oral": 1}  # the paper without a status is not an option
    assert facet_counts(PAPERS, "primary_area") == {}
    topics = facet_counts(PAPERS, "topic")
    assert list(topics)[:2] == ["Convex solvers", "Language models"] and topics["Reasoning" + FINE_MARK] == 1
    assert sum(n for v, n in topics.items() if not v.endswith(FINE_MARK)) == 4
    assert facet_counts(PAPERS, "author", limit=1) == {"Ada Lovelace": 2}


def test_filters_round_trip_through_url_parameters_and_ignore_the_rest():
    filters = Filters(subfield=("Deep Learning", "Deep Learning"), author=("bengio",))
    assert filters.subfield == ("Deep Learning",)  # repeats collapse
    query = filters.to_query()
    assert query == {"subfield": ["Deep Learning"], "author": ["bengio"]}
    assert Filters.from_query({**query, "color": ["area"]}) == filters
    assert filters.without("subfield") == Filters(author=("bengio",))


def test_counts_are_sorted_by_size_then_name():
    assert value_counts(PAPERS, "subfield") == {
        "Convex Optimization": 2,
        "Deep Learning": 1,
        "Large Language Models": 1,
    }


def test_url_choices_keep_valid_values_in_order_once():
    query = {"subfield": ["Optimization", "Nonsense", "Deep Learning", "Optimization"]}
    assert choices_from_query(query, "subfield", ["Deep Learning", "Optimization"]) == ["Optimization", "Deep Learning"]
    assert choices_from_query({}, "subfield", ["Deep Learning"]) == []


def test_options_count_what_each_value_would_show_given_the_other_facets():
    oral = Filters(status=("Oral",))
    # Every area stays on offer, so a reader can switch; its count is what it would show now.
    assert facet_options(PAPERS, oral, "area") == {"Deep Learning": 1, "Optimization": 0}
    assert facet_options(PAPERS, oral, "status") == {"Poster": 2, "Oral": 1}  # a facet does not narrow itself
    # Subfields are parts of areas: only the chosen areas' are offered, and a chosen one elsewhere is dropped.
    in_optimization = Filters(area=("Optimization",), subfield=("Deep Learning",))
    assert facet_options(PAPERS, in_optimization, "subfield") == {"Convex Optimization": 2}
    # A chosen value beyond the offered few stays, so the widget can show it.
    assert facet_options(PAPERS, Filters(keyword=("step size",)), "keyword", limit=1) == {"LLM": 2, "step size": 1}


def test_every_facet_but_the_edition_takes_the_map_to_its_papers():
    assert not Filters().zooms() and not Filters(edition=("ICML 2025",)).zooms()
    assert Filters(topic=("Agents",)).zooms() and Filters(edition=("ICML 2025",), status=("Oral",)).zooms()
