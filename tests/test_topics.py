import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import adjusted_rand_score

from lib.errors import ParameterError
from lib.topics import MAX_TOPICS, default_n_topics, find_topics, label_topics, topic_summary


def blobs(sizes=(30, 20, 10), seed=0):
    rng = np.random.default_rng(seed)
    centres = [(-5, 0), (5, 0), (0, 6)]
    coords = np.vstack([rng.normal(c, 0.5, size=(n, 2)) for c, n in zip(centres, sizes)])
    truth = np.repeat(np.arange(len(sizes)), sizes)
    return coords, truth


def test_default_topic_count_grows_with_the_corpus_and_is_capped():
    assert default_n_topics(0) == 1 and default_n_topics(1) == 1
    assert default_n_topics(19) == 3
    counts = [default_n_topics(n) for n in (50, 200, 800, 3340, 87691)]
    assert counts == sorted(counts) and counts[-1] == MAX_TOPICS


def test_planted_clusters_are_found_and_numbered_by_size():
    coords, truth = blobs()
    topics = find_topics(coords, n_topics=3)
    assert adjusted_rand_score(truth, topics) == 1.0
    assert list(np.bincount(topics)) == [30, 20, 10]
    assert np.array_equal(topics, find_topics(coords, n_topics=3))


@pytest.mark.parametrize("n", [0, 1, 2, 5])
def test_tiny_maps_get_valid_topics(n):
    coords = np.arange(2 * n, dtype=float).reshape(n, 2)
    topics = find_topics(coords)
    assert topics.shape == (n,) and (n == 0 or topics.min() == 0)


def test_identical_points_cannot_make_more_topics_than_positions():
    topics = find_topics(np.zeros((6, 2)), n_topics=4)
    assert set(topics) == {0}


def test_bad_topic_count_is_rejected():
    with pytest.raises(ParameterError):
        find_topics(np.zeros((4, 2)), n_topics=0)


def test_labels_name_what_a_topic_shares_and_others_lack():
    topics = np.array([0, 0, 0, 1, 1, 1])
    texts = [
        "Differential privacy for language models with noise.",
        "Auditing differential privacy of models.",
        "Differential privacy under attacks on models.",
        "Diffusion models for image generation.",
        "Faster sampling in diffusion models.",
        "Diffusion models and score matching for models.",
    ]
    labels = label_topics(topics, texts)
    assert labels == {0: "Differential privacy", 1: "Diffusion models"}


def test_a_label_covers_many_papers_not_one_papers_rare_phrase():
    # "quantum annealing schedules" is unique to one paper: distinctive, but it names one paper,
    # not the topic; "graph neural networks" is shared by most of the topic.
    texts = ["Graph neural networks for molecules.", "Graph neural networks scale.", "Graph neural networks and quantum annealing schedules.",
             "Bandits with regret.", "Bandits under delays.", "Contextual bandits."]
    labels = label_topics(np.array([0, 0, 0, 1, 1, 1]), texts)
    assert labels[0] == "Graph neural networks" and labels[1].startswith("Bandits")


def test_labels_stay_distinct_and_short():
    topics = np.array([0, 0, 1, 1])
    texts = ["Graph learning on molecules.", "Graph learning for molecules.", "Graph learning in social networks.", "Graph learning of social networks."]
    labels = label_topics(topics, texts)
    assert labels[0] != labels[1]
    assert all(1 <= len(label.replace(",", " ").split()) <= 4 for label in labels.values())


def test_labels_fall_back_when_texts_have_no_words():
    assert label_topics(np.array([0, 1]), ["", "the of"]) == {0: "Topic 0", 1: "Topic 1"}


def test_topic_summary_counts_papers_and_lists_frequent_keywords():
    papers = pd.DataFrame({
        "topic": [1, 0, 0], "topic_label": ["B", "A", "A"],
        "keywords": [["x"], ["kernels", "svm"], ["kernels"]],
    })
    summary = topic_summary(papers)
    assert list(summary["topic_label"]) == ["A", "B"]
    assert list(summary["papers"]) == [2, 1]
    assert summary["keywords"][0].startswith("kernels")
