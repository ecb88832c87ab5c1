"""Labels a researcher would write, true of their region: one concept, no whole-field word, the plurality's theme."""

import numpy as np

from lib.paths import DEFAULT_DATA
from lib.schema import analysis_texts
from lib.stages.embed import make_embedder
from lib.stages.load import load_papers
from lib.stages.project import project
from lib.stages.topic_labels import is_field_phrase, label_levels, label_topics
from lib.stages.topics import find_topics

OTHER = [
    "Sparse autoencoders for interpretability.",
    "Interpreting features with sparse autoencoders.",
    "Sparse autoencoders find circuits.",
    "Scaling sparse autoencoders.",
    "Sparse autoencoders and superposition.",
    "Evaluating sparse autoencoders.",
    "Dictionary learning with sparse autoencoders.",
    "Sparse autoencoders in vision.",
    "Sparse autoencoders for language.",
    "Contextual bandits at scale.",  # the plurality's word is used elsewhere too, the minority's is not
]


def test_a_minority_distinctive_word_loses_to_the_plurality_phrase():
    # Topic 0 is mostly bandits (6 of 10) with a conformal minority (4) that no other paper mentions:
    # the more distinctive word must not name the whole region.
    bandits = [
        "Regret of bandits with delays.",
        "Linear bandits under corruption.",
        "Dueling bandits.",
        "Bandits with knapsacks.",
        "Best arm identification in bandits.",
        "Bandits in networks.",
    ]
    conformal = [
        "Conformal prediction sets.",
        "Conformal prediction under shift.",
        "Weighted conformal prediction.",
        "Conformal prediction for regression.",
    ]
    texts = bandits + conformal + OTHER
    labels = label_topics(np.array([0] * 10 + [1] * len(OTHER)), texts)
    assert labels[0] == "Bandits", labels
    assert labels[1] == "Sparse autoencoders", labels


def test_no_label_joins_two_unrelated_phrases_with_a_comma():
    # "conversion" and "distribution" rarely meet in one paper: the old labeller wrote "Conversion, distribution".
    texts = [
        "Conversion of networks.",
        "Spike conversion.",
        "Conversion in distribution.",
        "Fast conversion.",
        "Distribution shift.",
        "Distribution matching.",
    ] + OTHER
    labels = label_topics(np.array([0] * 6 + [1] * len(OTHER)), texts)
    assert all(", " not in label for label in labels.values()), labels
    assert labels[0] == "Conversion"


def test_whole_field_words_name_a_topic_only_when_it_is_about_them():
    assert is_field_phrase("Machine learning") and is_field_phrase("deep neural networks") and is_field_phrase("AI")
    assert not is_field_phrase("graph neural networks") and not is_field_phrase("language models")
    # Every paper of topic 0 says "neural networks", but so do the others: a distinctive phrase names it.
    texts = [
        "Pruning neural networks.",
        "Pruning deep neural networks fast.",
        "Neural networks and pruning.",
        "Neural networks for molecules.",
        "Neural networks for proteins.",
        "Molecules with neural networks.",
        "Proteins and molecules.",
    ]
    labels = label_topics(np.array([0, 0, 0, 1, 1, 1, 1]), texts)
    assert labels == {0: "Pruning", 1: "Molecules"}
    # A topic about AI itself (position papers), rare in the rest of the map, may be called "AI".
    texts = ["AI governance.", "Position: AI audits.", "AI regulation now."] + [f"Bandits {i}." for i in range(30)]
    assert label_topics(np.array([0] * 3 + [1] * 30), texts)[0] == "AI"


def test_the_seed_map_has_no_generic_or_comma_joined_labels():
    papers = load_papers(DEFAULT_DATA).papers
    texts = analysis_texts(papers)
    coords = project(make_embedder("tfidf-svd", random_state=42).embed(texts), random_state=42)
    coarse, fine = label_levels(find_topics(coords, random_state=42), texts)
    for label in [*coarse.values(), *fine.values()]:
        assert ", " not in label and not is_field_phrase(label), (coarse, fine)
