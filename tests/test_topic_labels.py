"""Labels a researcher would write, true of their region: one concept, no whole-field word, the plurality's theme."""

import numpy as np
from conftest import bench_module

from lib.paths import DEFAULT_DATA
from lib.schema import analysis_texts
from lib.stages.embed import make_embedder
from lib.stages.label_rules import is_field_phrase, verb_words
from lib.stages.load import load_papers
from lib.stages.phrases import candidate_phrases, singular
from lib.stages.project import project
from lib.stages.topic_labels import label_levels, label_topics
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


def test_the_seed_map_has_no_generic_vague_or_comma_joined_labels():
    papers = load_papers(DEFAULT_DATA).papers
    texts = analysis_texts(papers)
    coords = project(make_embedder("tfidf-svd", random_state=42).embed(texts), random_state=42)
    levels = find_topics(coords, random_state=42)
    coarse, fine = label_levels(levels, texts)
    uses = [{singular(p) for p in candidate_phrases(text)} for text in texts]  # plural twins folded, as labels count
    for topics, labels in ((levels.coarse, coarse), (levels.fine, fine)):
        for topic, label in labels.items():
            assert ", " not in label and label.lower() not in {"does", "did", "doing"}, labels
            if is_field_phrase(label):  # only for a topic about it: most of its papers use it, none elsewhere
                using = np.array([singular(label.lower()) in phrases for phrases in uses])
                assert using[topics == topic].mean() > 0.5 and not using[topics != topic].any(), (label, labels)
    audit = bench_module("topics").label_audit
    for row in [*audit(texts, levels.coarse, coarse), *audit(texts, levels.fine, fine, levels.coarse)]:
        assert not {"comma", "generic", "vague"} & set(row["breaks"]), row


BANDITS = [
    "Regret of bandits with delays.",
    "Linear bandits under corruption.",
    "Dueling bandits.",
    "Bandits with knapsacks.",
    "Best arm identification in bandits.",
    "Contextual bandits at scale.",
]
# The rest of a conference, so that a phrase of a few topics is rare elsewhere (distinctive).
COLOURING = [f"Graph colouring heuristics {i}." for i in range(24)]


def test_a_word_the_whole_corpus_uses_in_many_places_names_none_of_them():
    # "inference" is in every paper of three topics, each meaning its own kind: on its own it says
    # nothing about any of them; the concept is the phrase around it, or another theme.
    causal = [
        "Causal inference under interference.",
        "Causal inference with instruments.",
        "Inference of treatment effects.",
        "Treatment effects and inference.",
        "Inference for treatment effects.",
        "Inference in observational studies.",
    ]
    variational = [
        "Variational inference with normalizing flows.",
        "Black-box variational inference.",
        "Stochastic variational inference for topic models.",
        "Amortized variational inference.",
        "Variational inference in Gaussian processes.",
    ]
    serving = [
        "Speculative decoding for LLM inference.",
        "KV cache compression for LLM inference.",
        "Batching requests in LLM inference.",
        "Early exit for LLM inference.",
        "Quantized LLM inference on phones.",
    ]
    texts = causal + variational + serving + BANDITS + COLOURING
    topics = np.array([0] * 6 + [1] * 5 + [2] * 5 + [3] * 6 + [4] * 24)
    labels = label_topics(topics, texts)
    assert "Inference" not in labels.values(), labels
    assert labels == {
        0: "Treatment effects",
        1: "Variational inference",
        2: "LLM inference",
        3: "Bandits",
        4: "Graph colouring",
    }
    # The audit counts the bare word as vague, and these labels as breaking no rule.
    audit = bench_module("topics").label_audit
    assert "vague" in next(a for a in audit(texts, topics, {**labels, 0: "Inference"}) if a["topic"] == 0)["breaks"]
    assert not any(a["breaks"] for a in audit(texts, topics, labels))


def test_a_common_word_one_region_holds_is_that_regions_concept():
    # "diffusion" is used by more papers than a fine topic holds, but nearly all of them are here.
    texts = (
        [
            "Diffusion for image editing.",
            "Guided diffusion for inpainting.",
            "Diffusion with fewer steps.",
            "Latent diffusion for video.",
            "Diffusion for super-resolution.",
            "Consistency distillation of diffusion.",
        ]
        + BANDITS[:5]
        + ["Bandits with diffusion priors."]
    )
    labels = label_topics(np.array([0] * 6 + [1] * 6), texts)
    assert labels == {0: "Diffusion", 1: "Bandits"}


def test_a_word_the_corpus_uses_as_a_verb_names_no_topic():
    kernels = [
        "We validate our kernel on proteins.",
        "We validate it on graphs.",
        "To validate kernels, we test proteins.",
        "We validate on molecules with kernels.",
    ]
    assert "validate" in verb_words(kernels) and "kernel" not in verb_words(kernels)
    labels = label_topics(np.array([0] * 4 + [1] * 6), kernels + BANDITS)
    assert labels[0] == "Kernels", labels


def test_a_verb_after_an_adverb_is_a_verb_too():
    # The 19-paper seed writes "we then investigate", "we systematically investigate" and "this work
    # investigates": "Investigate" labelled one of its fine topics.
    texts = [
        "We then investigate sparse kernels.",
        "We systematically investigate kernels on graphs.",
        "This work investigates kernel methods.",
        "Kernels, as we empirically investigate, scale.",
    ]
    assert "investigate" in verb_words(texts) and "kernel" not in verb_words(texts)


def test_the_topic_more_of_whose_papers_use_a_phrase_gets_it():
    # Topic 0 is larger and first, but a third of it says "language models" against all of topic 1.
    texts = (
        [
            "Language models for code.",
            "Language models and tool calling.",
            "Tool calling by language models.",
            "Sorting networks.",
            "Graph coloring.",
            "Protein folding.",
            "Prompting language models.",
            "Prompting language models to reason.",
            "Language models under prompting.",
            "Scaling language models.",
        ]
        + BANDITS
        + COLOURING
    )
    labels = label_topics(np.array([0] * 6 + [1] * 4 + [2] * 6 + [3] * 24), texts)
    assert labels[0] == "Tool calling" and labels[1] == "Language models", labels


def test_a_topic_is_about_a_field_word_only_if_it_holds_most_of_its_uses():
    # Every paper of topic 0 says "networks", few others do (5%), but as many others as it: the
    # topic is not about networks as such, and its own theme names it.
    texts = (
        [
            "Width of ReLU networks.",
            "Depth of networks.",
            "Networks at initialization.",
            "Pruning networks at initialization.",
        ]
        + [f"Networks in biology {i}." for i in range(4)]
        + [f"Bandits with regret {i}." for i in range(76)]
    )
    labels = label_topics(np.array([0] * 4 + [1] * 80), texts)
    assert labels[0] == "Initialization", labels
