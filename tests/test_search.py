"""Text search and similarity search on a built planted-topic map."""

import numpy as np
import pandas as pd
import pytest
from conftest import PLANTED_TOPICS, HashingEmbedder

from lib.builder.pipeline import build
from lib.errors import InputError, PaperMapError
from lib.map_folder import load_map_embeddings, read_papers
from lib.schema import analysis_texts
from lib.stages.embed import EmbedderUnavailable, TfidfSvdEmbedder, fit_embed, query_embedder
from lib.stages.load import load_papers
from lib.views.search import (
    TERM_WEIGHT,
    TermIndex,
    query_terms,
    ranked_papers,
    search_example,
    similar_papers,
    similar_to_text,
    similarity_reasons,
    text_matches,
)


@pytest.fixture(scope="module")
def planted_map(planted_module_data):
    """A planted map built with the default TF-IDF + SVD embedder: its folder and its papers."""
    folder = planted_module_data.parent
    build(planted_module_data, out_dir=folder / "map", cache_dir=folder / "cache")
    return folder / "map", read_papers(folder / "map" / "papers.parquet")


def topics_of(papers, ranking):
    return list(papers["primary_area"].iloc[ranking["row"]])


def test_query_terms_keep_quoted_phrases_whole():
    assert query_terms('  Privacy "membership   inference" "') == ["privacy", "membership inference"]
    assert query_terms('"unclosed phrase') == ["unclosed", "phrase"]
    assert query_terms("") == []


def test_text_search_needs_every_word_in_any_field_ignoring_case():
    papers = pd.DataFrame(
        {
            "title": ["Regret of Multi-Armed Bandits", "Private C++ kernels", "Diffusion"],
            "abstract": ["We bound regret from the start.", "", "Score matching (for images)."],
            "authors": [["Ada Lovelace"], ["Alan Turing"], []],
            "keywords": [["online learning"], [], ["generative models"]],
            "author_keywords": [[], ["privacy"], []],
        }
    )
    assert text_matches(papers, "BANDIT regret").tolist() == [True, False, False]  # word starts, any case
    assert text_matches(papers, "bandits privacy").tolist() == [False, False, False]  # all words must match
    assert text_matches(papers, "lovelace").tolist() == [True, False, False]  # authors
    assert text_matches(papers, "generative").tolist() == [False, False, True]  # extracted keywords
    assert text_matches(papers, "privacy").tolist() == [False, True, False]  # author keywords
    assert text_matches(papers, "art").tolist() == [False, False, False]  # a word must start with it: not "start"
    assert text_matches(papers, '"score matching"').tolist() == [False, False, True]
    assert text_matches(papers, '"matching score"').tolist() == [False, False, False]
    assert text_matches(papers, "c++ (for").tolist() == [False, False, False]  # symbols are literal, not regex
    assert text_matches(papers, "c++").tolist() == [False, True, False]
    assert text_matches(papers, "  ").all()


def test_a_phrase_does_not_span_two_fields():
    papers = pd.DataFrame(
        {"title": ["Bandits"], "abstract": ["Regret"], "authors": [[]], "keywords": [[]], "author_keywords": [[]]}
    )
    assert not text_matches(papers, '"bandits regret"').any()


def test_build_writes_embeddings_aligned_with_the_papers(planted_map):
    folder, papers = planted_map
    embeddings = load_map_embeddings(folder)
    assert embeddings.vectors.shape[0] == len(papers) and embeddings.vectors.dtype == np.float32
    # Row i is paper i: re-embedding each paper's own text with the query model finds the same row.
    again = query_embedder(embeddings.query_model).embed(analysis_texts(papers))
    assert np.allclose(again, embeddings.vectors, atol=1e-5)


@pytest.mark.parametrize("topic", list(PLANTED_TOPICS))
def test_a_query_from_a_planted_topic_ranks_that_topics_papers_first(planted_map, topic):
    folder, papers = planted_map
    embeddings = load_map_embeddings(folder)
    query = " ".join(PLANTED_TOPICS[topic][:6])
    ranking = similar_to_text(embeddings.vectors, query_embedder(embeddings.query_model).embed([query])[0], k=12)
    assert topics_of(papers, ranking) == [topic] * 12
    assert ranking["similarity"].is_monotonic_decreasing and ranking["similarity"].between(0, 1 + 1e-6).all()


def test_a_papers_own_text_finds_it_first_with_similarity_one(planted_map):
    folder, papers = planted_map
    embeddings = load_map_embeddings(folder)
    vector = query_embedder(embeddings.query_model).embed([analysis_texts(papers)[20]])[0]
    ranking = similar_to_text(embeddings.vectors, vector, k=3)
    assert ranking["row"].iloc[0] == 20 and ranking["similarity"].iloc[0] == pytest.approx(1, abs=1e-5)


def test_a_text_with_no_word_the_papers_use_ranks_nothing(planted_map):
    folder, _ = planted_map
    embeddings = load_map_embeddings(folder)
    vector = query_embedder(embeddings.query_model).embed(["zyxxy quorble"])[0]
    assert similar_to_text(embeddings.vectors, vector, k=5).empty


def test_similar_papers_of_a_privacy_paper_are_privacy_papers(planted_map):
    folder, papers = planted_map
    vectors = load_map_embeddings(folder).vectors
    index = int(np.flatnonzero(papers["primary_area"] == "privacy")[0])
    ranking = similar_papers(vectors, index, k=10)
    assert len(ranking) == 10 and index not in set(ranking["row"])
    assert topics_of(papers, ranking) == ["privacy"] * 10
    assert ranking["similarity"].is_monotonic_decreasing
    assert ranking.equals(similar_papers(vectors, index, k=10))  # deterministic


def test_rankings_reject_bad_arguments():
    vectors = np.eye(3, dtype=np.float32)
    with pytest.raises(ValueError, match="k must be at least 1"):
        similar_papers(vectors, 0, k=0)
    with pytest.raises(IndexError, match="outside the 3 rows"):
        similar_papers(vectors, 3)


def test_ties_and_zero_vectors_rank_deterministically():
    vectors = np.array([[1, 0], [1, 0], [0, 0], [0, 1]], dtype=np.float32)
    assert similar_to_text(vectors, np.array([1, 0], dtype=np.float32), k=4)["row"].tolist() == [0, 1]
    assert similar_papers(vectors, 2).empty  # a paper with no usable word is similar to none


def test_an_embedder_without_a_query_model_is_one_clear_sentence():
    _, query_model = fit_embed(HashingEmbedder(), ["a paper", "another paper"])
    with pytest.raises(EmbedderUnavailable, match="cannot embed a text") as error:
        query_embedder(query_model)
    assert isinstance(error.value, PaperMapError)


def test_a_folder_without_embeddings_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="build the map again"):
        load_map_embeddings(tmp_path)


def test_each_similar_paper_says_what_it_shares_and_what_its_cosine_rests_on(planted_map):
    folder, papers = planted_map
    embeddings = load_map_embeddings(folder)
    ranked = ranked_papers(papers, similar_papers(embeddings.vectors, 0, 5))
    reasons = similarity_reasons(papers, papers["paper_id"][0], ranked, embeddings.query_model)
    assert len(reasons) == 5 and all("rests on " in r for r in reasons)
    mine = set(papers["keywords"][0])
    for reason, keywords in zip(reasons, ranked["keywords"]):
        if reason.startswith("shares "):
            shared = reason.removeprefix("shares ").split("; ")[0].split(", ")
            assert set(shared) <= mine & set(keywords)  # in both papers' keyphrases
    # Another embedder's space is not split by terms: the shared keyphrases alone.
    other = similarity_reasons(papers, papers["paper_id"][0], ranked, {"embedder": np.array("test-hashing")})
    assert all("rests on" not in r for r in other)
    assert similarity_reasons(papers, "no such paper", ranked, embeddings.query_model) == [""] * 5


def test_the_search_example_finds_papers_of_the_list_it_is_shown_for(planted_map):
    papers = planted_map[1]
    example = search_example(papers)
    assert example.count('"') == 2 and text_matches(papers, example).sum() >= 1
    phrase = example.split('"')[1]
    assert len(phrase.split()) > 1 and sum(phrase in [k.casefold() for k in ks] for ks in papers["keywords"]) > 1
    assert (
        search_example(papers.assign(keywords=[["neural networks", "kernels"]] * len(papers))) == ""
    )  # field words only
    lone = papers.assign(keywords=[["regret bound"]] * len(papers))
    assert search_example(lone) == '"regret bound"'  # no word beside it: the phrase alone
    assert search_example(papers.sample(frac=1.0, random_state=1)) == example  # whatever the order


def titles(*texts):
    return pd.DataFrame({"title": list(texts), "abstract": [""] * len(texts), "title_is_derived": False})


def test_the_word_index_finds_a_rare_word_in_any_form_and_ignores_the_rest():
    index = TermIndex.of_papers(
        titles("Language model agents", "Teaching language models to use tools", "Tool-use benchmarks", "Agents")
    )
    cosines = index.cosines("An agent that calls a tool, and the language models behind it.")
    assert cosines[1] > 0 and cosines[3] > 0  # "tool" for "tools"; "agent" for "agents"
    assert cosines[2] == 0  # "tool-use" is one word, not "tool"
    assert cosines.max() <= 1 + 1e-12 and cosines.min() >= 0
    assert not index.cosines("We propose a novel approach, and the zyxxy").any()  # stop, generic and unknown words
    assert np.array_equal(index.cosines("tools"), index.cosines("TOOL"))


def test_shared_words_lift_a_paper_the_embedding_ranks_lower():
    vectors = np.array([[1, 0], [0.8, 0.6], [0, 1]], dtype=np.float32)
    query = np.array([1, 0], dtype=np.float32)
    assert similar_to_text(vectors, query, k=3)["row"].tolist() == [0, 1]
    words = np.array([0.0, 1.0, 0.0])
    blended = similar_to_text(vectors, query, k=3, term_cosines=words)
    assert blended["row"].tolist() == [1, 0]
    assert blended["similarity"].tolist() == pytest.approx([(1 - TERM_WEIGHT) * 0.8 + TERM_WEIGHT, 1 - TERM_WEIGHT])
    assert similar_to_text(vectors, query, k=3, term_cosines=np.ones(3))["row"].tolist() == [0, 1, 2]


def test_a_pasted_abstract_finds_its_own_title_more_often_with_its_words(shared_data):
    """On a titles-only map, as ICML 2025's: each of 300 colm2025 abstracts, pasted, should rank its own title first."""
    papers = load_papers(shared_data / "colm2025.json").papers.iloc[:300]
    papers = papers[papers["abstract"].str.strip() != ""].reset_index(drop=True)
    listed = papers.assign(abstract="")
    vectors, query_model = fit_embed(TfidfSvdEmbedder(), analysis_texts(listed))
    queries = query_embedder(query_model).embed(list(papers["abstract"]))
    index = TermIndex.of_papers(listed)

    def firsts(with_words: bool) -> int:
        return sum(
            similar_to_text(vectors, query, k=1, term_cosines=index.cosines(text) if with_words else None)[
                "row"
            ].tolist()
            == [own]
            for own, (query, text) in enumerate(zip(queries, papers["abstract"]))
        )

    alone, blended = firsts(False), firsts(True)
    assert blended > alone and blended >= 0.8 * len(papers), (alone, blended)


def test_similar_papers_blend_the_words_two_papers_share():
    papers = titles(
        "Fairness-aware graph generation", "Scenario-aware planning", "Fairness in graph generation", "Video"
    )
    cosines = TermIndex.of_papers(papers).paper_cosines(0)
    assert cosines[0] == pytest.approx(1) and cosines[2] > 0
    assert cosines[1] == cosines[3] == 0  # "fairness-aware" is one word: no "aware" in common
    vectors = np.array([[1, 0], [0.9, 0.1], [0.5, 0.5], [0, 1]], dtype=np.float32)
    assert similar_papers(vectors, 0, k=3)["row"].tolist() == [1, 2]  # the embedding alone: "aware"
    blended = similar_papers(vectors, 0, k=3, term_cosines=cosines)
    assert blended["row"].tolist() == [2, 1]  # the words they share outweigh the embedding's "aware"
    assert blended["similarity"].iloc[0] < 1
