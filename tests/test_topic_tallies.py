"""The topics' labels and summaries from partitions' sums (lib.stages.topic_tallies): the same
`PhraseUse` answers, labels and summaries as one process over every paper's counts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import planted_records

from lib.builder.parallel import partition_ranges
from lib.errors import ParameterError
from lib.schema import analysis_texts
from lib.stages.load import load_papers
from lib.stages.phrases import phrase_counts
from lib.stages.topic_labels import PhraseUse, fewest_users, label_levels, phrase_keys
from lib.stages.topic_tallies import added, partition_tally, summed_use
from lib.stages.topics import TopicLevels, find_topics, level_summaries, topics_table


def summed_in_partitions(texts: list[str], levels: TopicLevels, partition_size: int | None, group: int) -> PhraseUse:
    """The list's `PhraseUse` from tallies of partitions of `partition_size`, added `group` at a time."""
    counts, phrases = phrase_counts(texts)
    key_of_phrase, keys = phrase_keys(phrases)
    topics = [levels.coarse, levels.fine]
    ids = [sorted(set(level.tolist())) for level in topics]
    tallies = [
        partition_tally(texts[a:b], counts[a:b], key_of_phrase, len(keys), [t[a:b] for t in topics], ids)
        for a, b in partition_ranges(len(texts), partition_size)
    ]
    groups = [added(*tallies[i : i + group]) for i in range(0, len(tallies), group)]
    return summed_use(added(*groups), phrases, key_of_phrase, keys, topics, ids, fewest_users(*topics))


def assert_same_topics(texts: list[str], partition_size: int | None, group: int = 3) -> None:
    coords = np.random.default_rng(0).normal(size=(len(texts), 2))
    levels = find_topics(coords)
    whole = PhraseUse(texts, fewest_users(levels.coarse, levels.fine))
    summed = summed_in_partitions(texts, levels, partition_size, group)
    assert summed.keys.tolist() == whole.keys.tolist() and summed.shown == whole.shown
    for name in ("overall", "nameable", "field", "words"):
        assert np.array_equal(getattr(summed, name), getattr(whole, name)), name
    labels = label_levels(levels, texts, use=whole)
    assert label_levels(levels, texts, use=summed) == labels
    mapped = topics_table(pd.DataFrame({"paper_id": range(len(texts))}), levels, *labels).assign(
        x=coords[:, 0], y=coords[:, 1]
    )
    expected, got = level_summaries(mapped, whole), level_summaries(mapped, summed)
    for level, table in expected.items():
        pd.testing.assert_frame_equal(got[level], table)


@pytest.mark.parametrize("partition_size", [1, 5, 13, None])
def test_partitions_sums_give_the_whole_lists_labels_and_summaries(partition_size):
    texts = [f"{r['title']}. {r['abstract']}" for r in planted_records(12)]
    assert_same_topics(texts, partition_size)


def test_a_real_lists_labels_and_summaries_from_partitions(shared_data):
    texts = analysis_texts(load_papers(shared_data / "ijcai2023.json").papers)
    assert_same_topics(texts, 97, group=4)


def test_a_summed_phrase_use_refuses_topics_it_was_not_summed_for():
    texts = [f"{r['title']}. {r['abstract']}" for r in planted_records(4)]
    levels = find_topics(np.random.default_rng(1).normal(size=(len(texts), 2)))
    summed = summed_in_partitions(texts, levels, 5, 2)
    summed.by_topic(levels.fine.copy())  # equal topics, another array: answered
    with pytest.raises(ParameterError, match="summed for other topics"):
        summed.by_topic(np.zeros(len(texts), dtype=np.int64))


@pytest.mark.parametrize("texts", [["graph neural networks"], ["", "the of", "graph nets"], ["", "the of"]])
def test_tiny_lists_and_lists_without_phrases(texts):
    assert_same_topics(texts, 1, group=2)
