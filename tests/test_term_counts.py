"""lib.stages.term_counts against scikit-learn's CountVectorizer, which it replaces: the same matrix,
to the order of each row's entries, and the same terms."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer

from lib.stages import term_counts
from lib.stages.term_counts import count_terms

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
PLANTED = [
    "Deep learning for graphs: graph neural networks learn deep graph features.",
    "",
    "The of and a",  # stop words only
    "Über naïve café models; models of models",
    "x y z",  # single letters are no words
    "Graph neural networks, again: deep learning on graphs",
    "ICML 2025 papers and ICML 2024 papers",
]


def vectorizer_counts(texts, ngram_max, min_df, max_df):
    vectorizer = CountVectorizer(
        stop_words="english", ngram_range=(1, ngram_max), dtype=np.float32, min_df=min_df, max_df=max_df
    )
    return vectorizer.fit_transform(texts), vectorizer.get_feature_names_out().astype(str)


def assert_same(texts, ngram_max, min_df, max_df):
    expected, expected_terms = vectorizer_counts(texts, ngram_max, min_df, max_df)
    counts, terms = count_terms(texts, ngram_max, min_df, max_df)
    np.testing.assert_array_equal(terms, expected_terms)
    assert counts.shape == expected.shape and counts.dtype == expected.dtype
    for part in ("indptr", "indices", "data"):  # the entries' order within rows too: it sets later sums' rounding
        np.testing.assert_array_equal(getattr(counts, part), getattr(expected, part))


@pytest.mark.parametrize("ngram_max", [1, 2])
@pytest.mark.parametrize(("min_df", "max_df"), [(1, 1.0), (2, 0.5), (2, 1.0)])
def test_counts_equal_the_vectorizers_on_planted_texts(ngram_max, min_df, max_df):
    assert_same(PLANTED * 2 if min_df == 2 else PLANTED, ngram_max, min_df, max_df)


def test_blocks_of_texts_number_words_as_one_pass_would(monkeypatch):
    monkeypatch.setattr(term_counts, "TEXTS_PER_BLOCK", 2)
    assert_same(PLANTED * 3, 2, 2, 0.5)


@pytest.mark.parametrize("texts", [[], [""], ["the of", "a"], ["x y"]])
def test_no_usable_word_raises_as_the_vectorizer_does(texts):
    with pytest.raises(ValueError, match="empty vocabulary"):
        count_terms(texts, 2, 1, 1.0)


def test_pruning_every_term_raises():
    with pytest.raises(ValueError, match="no terms remain"):
        count_terms(["alpha beta", "gamma delta"], 2, 2, 1.0)


@pytest.mark.skipif(not SHARED.is_dir(), reason="needs ../shared/data")
@pytest.mark.parametrize("name", ["ijcai2023.json", "icml2025_papers.json"])
def test_counts_equal_the_vectorizers_on_a_real_list(name):
    records = json.loads((SHARED / name).read_text(encoding="utf-8"))
    texts = [f"{r.get('title') or ''}. {r.get('abstract') or ''}" for r in records]
    assert_same(texts, 2, 2, 0.5)


def test_stop_words_are_scikit_learns_list_read_without_importing_it():
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS as sklearn_stop_words

    from lib.stages.stop_words import ENGLISH_STOP_WORDS

    assert ENGLISH_STOP_WORDS == sklearn_stop_words and len(ENGLISH_STOP_WORDS) > 300


@pytest.mark.parametrize("ngram_max", [1, 2])
def test_packed_terms_unpack_to_every_term_of_real_texts_in_order(ngram_max):
    # Terms of letters in other scripts and digits too; none holds the line break that separates them.
    counts, keys, words = term_counts.first_met_term_keys(PLANTED, ngram_max)
    spelled = term_counts.spell_terms(keys, words)
    unpacked = term_counts.unpacked_terms(term_counts.packed_terms(spelled))
    assert unpacked.dtype == object and unpacked.tolist() == spelled.tolist()
    assert term_counts.unpacked_terms(term_counts.packed_terms([])).tolist() == []


def test_a_packed_subset_is_the_packed_terms_of_those_rows():
    counts, keys, words = term_counts.first_met_term_keys(PLANTED, 2)  # "Über naïve café": multi-byte characters
    spelled = term_counts.spell_terms(keys, words)
    packed = term_counts.packed_terms(spelled)
    for rows in ([], [0], [len(spelled) - 1], list(range(0, len(spelled), 3)), list(range(len(spelled)))):
        picked = np.array(rows, dtype=np.intp)
        assert term_counts.packed_subset(packed, picked) == term_counts.packed_terms(spelled[picked])
