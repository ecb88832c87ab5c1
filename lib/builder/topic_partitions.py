"""The topics stage on a runner's workers (a Dask cluster): the topics found on the map in one task
(the points are small), their labels' and summaries' phrase use summed a partition per task
(`lib.stages.topic_tallies`) from the shared phrase counts and the texts where they already are,
then labelled in one task from the sums. No task holds every paper's phrase counts or texts; the
topics table and summaries are the one-process ones (`tests/test_cluster.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from lib.builder.parallel import Runner, passed
from lib.builder.reductions import added_up
from lib.builder.text_partitions import SentTexts

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    from scipy import sparse

    from lib.builder.phrase_partitions import ClusterPhrases
    from lib.stages.topic_tallies import PhraseTally
    from lib.stages.topics import TopicLevels


class PhraseKeys(NamedTuple):
    """The list's phrases' keys (`lib.stages.topic_labels.phrase_keys`): each phrase's, and the keys."""

    key_of_phrase: np.ndarray
    keys: np.ndarray


def topics_in_partitions(
    params: Any, papers: pd.DataFrame, coords: np.ndarray, counted: ClusterPhrases, texts: SentTexts, runner: Runner
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """`lib.builder.stages_table.topics_of`'s value on `runner`: the topics of `papers` (their
    `paper_id`s) at `coords`, from the phrase counts `counted` of the `texts` there, partition by partition."""
    from lib.builder.stages_table import found_topics
    from lib.stages.topic_tallies import added

    def one(function: Callable[..., Any], *arguments: Any) -> Any:
        """A task of `function`, as the later tasks' argument."""
        return passed(runner, runner.map([(function, arguments)])[0])

    levels = one(found_topics, params, coords)
    ids, keys = one(level_ids, levels), one(phrase_keys_of, passed(runner, counted.phrases))
    shared = (one(keys_of_phrases, keys), runner.map([(key_count, (keys,))])[0].result(), levels)
    tallies = runner.map(
        [
            (tally_of, (passed(runner, text), passed(runner, rows), *shared, a, b, ids))
            for text, rows, (a, b) in zip(texts.parts, counted.rows, texts.ranges)
        ]
    )
    # Added in a tree of small tasks: no task takes every partition's sums, each of which repeats
    # the list's common keys.
    total = added_up(runner, [passed(runner, tally) for tally in tallies], added)
    call = (labelled_from_sums, (papers, coords, levels, total, passed(runner, counted.phrases), keys, ids))
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


def tally_of(
    texts: np.ndarray,
    counts: sparse.csr_matrix,
    key_of_phrase: np.ndarray,
    n_keys: int,
    levels: TopicLevels,
    start: int,
    stop: int,
    ids: list[list[int]],
) -> PhraseTally:
    """A partition's `partition_tally`: its texts (papers `start` to `stop`) and their phrase
    `counts` in the list's columns."""
    from lib.stages.topic_tallies import partition_tally

    topics = [levels.coarse[start:stop], levels.fine[start:stop]]
    return partition_tally(texts.tolist(), counts, key_of_phrase, n_keys, topics, ids)


def labelled_from_sums(
    papers: pd.DataFrame,
    coords: np.ndarray,
    levels: TopicLevels,
    total: PhraseTally,
    phrases: np.ndarray,
    keys: PhraseKeys,
    ids: list[list[int]],
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The topics table and summaries, labelled from the list's sums (`total`)."""
    from lib.builder.stages_table import labelled_topics
    from lib.stages.topic_labels import fewest_users
    from lib.stages.topic_tallies import summed_use

    topics = [levels.coarse, levels.fine]
    use = summed_use(total, phrases.tolist(), keys.key_of_phrase, keys.keys, topics, ids, fewest_users(*topics))
    return labelled_topics(papers, coords, levels, use)
