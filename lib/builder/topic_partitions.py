"""The topics stage on a runner's workers (a Dask cluster): the topics found on the map in one task
(the points are small), their labels' and summaries' phrase use summed a partition per task
(`lib.stages.topic_tallies`) from the shared phrase counts and the texts where they already are,
each range of the phrases' keys apart (as many ranges as the vocabulary's buckets), then labelled
in one task from the sums. No task holds every paper's phrase counts or texts, nor every key's
sums before the keys too few papers use are let go; the topics table and summaries are the
one-process ones (`tests/test_cluster.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from lib.builder.parallel import Runner, passed
from lib.builder.reductions import added_up
from lib.builder.text_partitions import SentParts, bucket_count

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    from scipy import sparse

    from lib.builder.phrase_partitions import ClusterPhrases
    from lib.stages.topic_tallies import KeySums, TextSums
    from lib.stages.topics import TopicLevels


class PhraseKeys(NamedTuple):
    """The list's phrases' keys (`lib.stages.topic_labels.phrase_keys`): each phrase's, and the keys."""

    key_of_phrase: np.ndarray
    keys: np.ndarray


def topics_in_partitions(
    params: Any, papers: pd.DataFrame, coords: np.ndarray, counted: ClusterPhrases, texts: SentParts, runner: Runner
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """`lib.builder.stages_table.topics_of`'s value on `runner`: the topics of `papers` (their
    `paper_id`s) at `coords`, from the phrase counts `counted` of the `texts` there, partition by partition."""
    from lib.builder.stages_table import found_topics
    from lib.stages import topic_tallies as steps

    def one(function: Callable[..., Any], *arguments: Any) -> Any:
        """A task of `function`, as the later tasks' argument."""
        return passed(runner, runner.map([(function, arguments)])[0])

    levels = one(found_topics, params, coords)
    ids, keys = one(level_ids, levels), one(phrase_keys_of, passed(runner, counted.phrases))
    key_of_phrase, min_users = one(keys_of_phrases, keys), one(fewest_users_of, levels)
    n_keys = runner.map([(key_count, (keys,))])[0].result()
    rows = list(zip(counted.rows, texts.ranges))
    # Added in trees of small tasks: no task takes every partition's sums, each of which repeats
    # the list's common keys; and each range's keys apart, so no task adds every key's.
    of_texts = runner.map(
        [(text_sums_of, (passed(runner, text), levels, a, b, ids)) for text, (a, b) in zip(texts.parts, texts.ranges)]
    )
    sums = [added_up(runner, [passed(runner, handle) for handle in of_texts], steps.added_texts)]
    for start, stop in steps.key_ranges(n_keys, bucket_count(texts)):
        calls = [
            (key_sums_of, (passed(runner, r), key_of_phrase, start, stop, levels, a, b, ids)) for r, (a, b) in rows
        ]
        added = added_up(runner, [passed(runner, handle) for handle in runner.map(calls)], steps.added_keys)
        sums.append(one(steps.pruned, added, key_of_phrase, min_users))
    call = (labelled_from_sums, (papers, coords, levels, passed(runner, counted.phrases), keys, ids, min_users, *sums))
    return runner.map([call])[0].result()


def level_ids(levels: TopicLevels) -> list[list[int]]:
    """Each level's sorted topic ids, coarse then fine."""
    return [sorted(set(level.tolist())) for level in (levels.coarse, levels.fine)]


def phrase_keys_of(phrases: np.ndarray) -> PhraseKeys:
    from lib.stages.topic_labels import phrase_keys

    return PhraseKeys(*phrase_keys(phrases.tolist()))


def keys_of_phrases(keys: PhraseKeys) -> np.ndarray:
    """A task of its own: each partition's task is sent these numbers, not every key of the list."""
    return keys.key_of_phrase


def key_count(keys: PhraseKeys) -> int:
    return len(keys.keys)


def fewest_users_of(levels: TopicLevels) -> int:
    """`lib.stages.topic_labels.fewest_users` of the topics' levels."""
    from lib.stages.topic_labels import fewest_users

    return fewest_users(levels.coarse, levels.fine)


def topics_between(levels: TopicLevels, start: int, stop: int) -> list[np.ndarray]:
    """Papers `start` to `stop`'s topics, coarse then fine."""
    return [levels.coarse[start:stop], levels.fine[start:stop]]


def text_sums_of(texts: np.ndarray, levels: TopicLevels, start: int, stop: int, ids: list[list[int]]) -> TextSums:
    """A partition's `text_sums`: its texts (papers `start` to `stop`)."""
    from lib.stages.topic_tallies import text_sums

    return text_sums(texts.tolist(), topics_between(levels, start, stop), ids)


def key_sums_of(
    counts: sparse.csr_matrix,
    key_of_phrase: np.ndarray,
    first_key: int,
    stop_key: int,
    levels: TopicLevels,
    start: int,
    stop: int,
    ids: list[list[int]],
) -> KeySums:
    """A partition's `key_sums` for the keys `first_key` to `stop_key`: its papers' (`start` to
    `stop`) phrase `counts` in the list's columns."""
    from lib.stages.topic_tallies import key_sums

    return key_sums(counts, key_of_phrase, first_key, stop_key, topics_between(levels, start, stop), ids)


def labelled_from_sums(
    papers: pd.DataFrame,
    coords: np.ndarray,
    levels: TopicLevels,
    phrases: np.ndarray,
    keys: PhraseKeys,
    ids: list[list[int]],
    min_users: int,
    text_sums: TextSums,
    *ranges: KeySums,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The topics table and summaries, labelled from the list's sums (`text_sums`, and every range of keys' in order)."""
    from lib.builder.stages_table import labelled_topics
    from lib.stages.topic_tallies import summed_use

    topics = [levels.coarse, levels.fine]
    use = summed_use(text_sums, ranges, phrases.tolist(), keys.key_of_phrase, keys.keys, topics, ids, min_users)
    return labelled_topics(papers, coords, levels, use)
