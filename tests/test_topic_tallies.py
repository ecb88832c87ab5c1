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
from lib.stages.topic_tallies import added_keys, added_texts, key_ranges, key_sums, pruned, summed_use, text_sums
from lib.stages.topics import TopicLevels, find_topics, level_summaries, topics_table


def summed_in_partitions(
    texts: list[str], levels: TopicLevels, partition_size: int | None, group: int, n_ranges: int = 3
) -> PhraseUse:
    """The list's `PhraseUse` from sums of partitions of `partition_size` and `n_ranges` ranges of
    keys, added `group` at a time."""
    counts, phrases = phrase_counts(texts)
    key_of_phrase, keys = phrase_keys(phrases)
    topics = [levels.coarse, levels.fine]
    ids = [sorted(set(level.tolist())) for level in topics]
    parts = partition_ranges(len(texts), partition_size)

    def in_groups(add, sums):
        return add(*[add(*sums[i : i + group]) for i in range(0, len(sums), group)])

    texts_sum = in_groups(added_texts, [text_sums(texts[a:b], [t[a:b] for t in topics], ids) for a, b in parts])
    ranges = [
        pruned(
            in_groups(
                added_keys,
                [key_sums(counts[a:b], key_of_phrase, *keys_range, [t[a:b] for t in topics], ids) for a, b in parts],
            ),
            key_of_phrase,
            fewest_users(*topics),
        )
        for keys_range in key_ranges(len(keys), n_ranges)
    ]
    return summed_use(texts_sum, ranges, phrases, key_of_phrase, keys, topics, ids, fewest_users(*topics))


def assert_same_topics(texts: list[str], partition_size: int | None, group: int = 3, n_ranges: int = 3) -> None:
    coords = np.random.default_rng(0).normal(size=(len(texts), 2))
    levels = find_topics(coords)
    whole = PhraseUse(texts, fewest_users(levels.coarse, levels.fine))
    summed = summed_in_partitions(texts, levels, partition_size, group, n_ranges)
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


@pytest.mark.parametrize("n_ranges", [1, 4])
@pytest.mark.parametrize("partition_size", [1, 5, 13, None])
def test_partitions_sums_give_the_whole_lists_labels_and_summaries(partition_size, n_ranges):
    # In partitions of 1 paper, every key two papers use is pruned from no partition's sums.
    texts = [f"{r['title']}. {r['abstract']}" for r in planted_records(12)]
    assert_same_topics(texts, partition_size, n_ranges=n_ranges)


def test_a_real_lists_labels_and_summaries_from_partitions(shared_data):
    texts = analysis_texts(load_papers(shared_data / "ijcai2023.json").papers)
    assert_same_topics(texts, 97, group=4, n_ranges=7)


@pytest.mark.parametrize(("n_keys", "n_ranges"), [(0, 1), (0, 3), (2, 5), (10, 3), (1000, 7)])
def test_key_ranges_cover_every_key_once_in_order(n_keys, n_ranges):
    ranges = key_ranges(n_keys, n_ranges)
    assert len(ranges) == n_ranges
    assert [k for a, b in ranges for k in range(a, b)] == list(range(n_keys))
    assert max(b - a for a, b in ranges) - min(b - a for a, b in ranges) <= 1


def test_a_ranges_sums_let_go_only_the_keys_too_few_papers_use():
    texts = ["graph networks", "graph networks", "sparse codes", "graph networks and sparse codes", "tiny corpus"]
    counts, phrases = phrase_counts(texts)
    key_of_phrase, keys = phrase_keys(phrases)
    topics, ids = [np.zeros(len(texts), dtype=np.int64)], [[0]]
    summed = added_keys(
        *[
            key_sums(counts[i : i + 1], key_of_phrase, 0, len(keys), [t[i : i + 1] for t in topics], ids)
            for i in range(len(texts))
        ]
    )
    kept = pruned(summed, key_of_phrase, 2)
    users = np.asarray(summed.users[0].sum(axis=0)).ravel()
    assert set(np.flatnonzero(np.asarray(kept.users[0].sum(axis=0)).ravel())) == set(np.flatnonzero(users >= 2))
    assert 0 < (users >= 2).sum() < len(keys)  # some let go, some kept
    assert set(key_of_phrase[kept.phrase_uses[0]]) == set(np.flatnonzero(users >= 2))


def test_a_summed_phrase_use_refuses_topics_it_was_not_summed_for():
    texts = [f"{r['title']}. {r['abstract']}" for r in planted_records(4)]
    levels = find_topics(np.random.default_rng(1).normal(size=(len(texts), 2)))
    summed = summed_in_partitions(texts, levels, 5, 2)
    summed.by_topic(levels.fine.copy())  # equal topics, another array: answered
    with pytest.raises(ParameterError, match="summed for other topics"):
        summed.by_topic(np.zeros(len(texts), dtype=np.int64))


@pytest.mark.parametrize("texts", [["graph neural networks"], ["", "the of", "graph nets"], ["", "the of"]])
def test_tiny_lists_and_lists_without_phrases(texts):
    assert_same_topics(texts, 1, group=2, n_ranges=3)
