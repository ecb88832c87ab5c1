from lib.keywords import STOP_WORDS, candidate_phrases, extract_keywords, singular
from lib.load import load_papers
from lib.schema import analysis_texts

from conftest import SEED_SAMPLE


def test_candidates_never_cross_or_touch_stop_words_or_punctuation():
    phrases = candidate_phrases("We study the privacy of large language models, and graph neural networks.")
    assert "language models" in phrases and "graph neural networks" in phrases
    assert "models graph" not in phrases  # would span the comma and "and"
    for phrase in phrases:
        words = phrase.split()
        assert words[0] not in STOP_WORDS and words[-1] not in STOP_WORDS
        assert 1 <= len(words) <= 3


def test_markup_is_not_a_phrase():
    phrases = candidate_phrases(r"Code at https://github.com/x/y and \textbf{bold} with $O(n^2)$ cost.")
    assert not any("github" in p or "textbf" in p or "n^2" in p for p in phrases)


def test_singular_folds_plurals_only():
    assert singular("language models") == "language model"
    assert singular("theories") == "theory"
    assert singular("analysis") == "analysis" and singular("loss") == "loss"


def test_seed_keywords_are_distinct_ranked_phrases():
    papers = load_papers(SEED_SAMPLE).papers
    keywords = extract_keywords(analysis_texts(papers))
    assert len(keywords) == len(papers)
    for phrases in keywords:
        assert 1 <= len(phrases) <= 10
        folded = [singular(p.lower()) for p in phrases]
        assert len(set(folded)) == len(folded)
        for i, a in enumerate(folded):  # no phrase is a word run inside another chosen phrase
            assert not any(f" {a} " in f" {b} " for j, b in enumerate(folded) if i != j)
        assert not set(p.lower() for p in phrases) & STOP_WORDS
    multiword = sum(" " in p for phrases in keywords for p in phrases)
    assert multiword >= len(papers)  # concepts such as "graph structure", not only single words


def test_keywords_come_from_the_paper_and_keep_acronym_case():
    texts = [
        "We train large language models (LLMs) with reinforcement learning. LLMs improve.",
        "Graph neural networks (GNNs) learn on molecules; GNNs scale to large graphs.",
        "Differential privacy protects users. Differential privacy needs noise.",
    ]
    keywords = extract_keywords(texts)
    assert "LLMs" in keywords[0] and "GNNs" in keywords[1]
    assert "differential privacy" in keywords[2]
    for text, phrases in zip(texts, keywords):
        assert all(p.lower() in text.lower() for p in phrases)


def test_deterministic_and_tolerates_empty_texts():
    texts = ["", "the of and", "kernel regression for kernel regression tasks", "sparse kernel regression"]
    first = extract_keywords(texts)
    assert first == extract_keywords(texts)
    assert first[0] == [] and first[1] == []
    assert "kernel regression" in first[2]
    assert extract_keywords([]) == []
