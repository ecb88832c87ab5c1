"""The topics' labels and summaries from sums over slices of a list (partitions), so that no one
process holds every paper's phrase counts: the same `PhraseUse` answers, for the given topics.

1. `phrase_keys` (`lib.stages.topic_labels`, once): each of the list's phrases' key, plural twins
   folded;
2. `partition_tally`, on each partition: its papers' use of each key summed by topic at every
   level, its phrases' uses, how its texts case words and use them as verbs;
3. `added` (partitions in order, some at a time, then those sums: `lib.builder.reductions`): the
   list's sums;
4. `summed_use`: the `PhraseUse` of the list from them, the keys fewer than `min_users` papers use
   left out as `PhraseUse` leaves them.

Every sum is of integers (32-bit, made float64 at the end as the one-process products are), so
any grouping gives the one-process values (`tests/test_topic_tallies.py`: labels and summaries equal).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import reduce
from operator import add
from typing import NamedTuple

import numpy as np
from scipy import sparse

from lib.stages.label_rules import verb_counts, verbs_of
from lib.stages.phrases import display_forms, shown_forms, written_chunks, written_words
from lib.stages.tallies import Tally, merged, tally
from lib.stages.topic_labels import PhraseUse, TopicUse, folded_counts, kept_columns, topic_membership, uses_of


class LevelTally(NamedTuple):
    """One level's sums: papers per topic, and per topic (row) and key its papers using the key and
    their uses of it (32-bit integers: a third less to hold and send than float64)."""

    sizes: np.ndarray
    users: sparse.csr_matrix
    occurrences: sparse.csr_matrix


class PhraseTally(NamedTuple):
    """What `summed_use` needs of some papers: how many, each phrase's uses (the list's phrase
    columns they use, sorted, and their uses), a `LevelTally` per level, the words as written
    (`written_words`) and the verb counts (`verb_counts`)."""

    n_texts: int
    phrase_uses: tuple[np.ndarray, np.ndarray]
    levels: tuple[LevelTally, ...]
    written: Tally
    verbs: Tally


def partition_tally(
    texts: Sequence[str],
    counts: sparse.csr_matrix,
    key_of_phrase: np.ndarray,
    n_keys: int,
    topics: Sequence[np.ndarray],
    topic_ids: Sequence[list[int]],
) -> PhraseTally:
    """Step 2, on a partition: its `texts`, their `counts` in the list's phrase columns (its rows of
    `phrase_counts`), the list's `key_of_phrase` (of `n_keys` keys), and per level its papers'
    topics and the level's sorted `topic_ids`."""
    texts = list(texts)
    per_paper = folded_counts(counts, key_of_phrase, n_keys)
    used = uses_of(per_paper)
    levels = []
    for level_topics, ids in zip(topics, topic_ids):
        _, membership = topic_membership(level_topics, ids)
        membership = membership.astype(np.int32)
        sizes = np.asarray(membership.sum(axis=1)).ravel()
        levels.append(LevelTally(sizes, _canonical(membership @ used), _canonical(membership @ per_paper)))
    chunks = written_chunks(texts)
    written = written_words(chunks)
    return PhraseTally(
        len(texts),
        _summed_by(counts.indices, counts.data),
        tuple(levels),
        tally(list(written), [list(written.values())]),
        verb_counts(texts, chunks),
    )


def added(*tallies: PhraseTally) -> PhraseTally:
    """Step 3: the sums of `tallies` (of consecutive slices, in order)."""
    columns, uses = zip(*(t.phrase_uses for t in tallies))
    levels = tuple(
        LevelTally(
            np.sum([t.sizes for t in level], axis=0),
            _sum([t.users for t in level]),
            _sum([t.occurrences for t in level]),
        )
        for level in zip(*(t.levels for t in tallies))
    )
    return PhraseTally(
        sum(t.n_texts for t in tallies),
        _summed_by(np.concatenate(columns), np.concatenate(uses)),
        levels,
        merged([t.written for t in tallies]),
        merged([t.verbs for t in tallies]),
    )


def _summed_by(columns: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct `columns`, sorted (32-bit), and the sum of `values` at each: a phrase's uses."""
    distinct, slot = np.unique(columns, return_inverse=True)
    sums = np.bincount(slot, weights=values, minlength=len(distinct)).astype(np.int64)  # exact below 2**53
    return distinct.astype(np.int32), sums


def _as_products(matrix: sparse.csr_matrix) -> sparse.csr_matrix:
    """Sums as `PhraseUse.by_topic`'s float64 products give them: the same values, the same arithmetic after."""
    return matrix.astype(np.float64).tocsr()


def _canonical(matrix: sparse.csr_matrix) -> sparse.csr_matrix:
    """`matrix` with each row's entries sorted: SciPy then adds two such in time of their entries
    (unsorted, in time of their width, a corpus's keys, per row)."""
    matrix = matrix.tocsr()
    matrix.sort_indices()
    return matrix


def _sum(matrices: Sequence[sparse.csr_matrix]) -> sparse.csr_matrix:
    """The sum of same-shaped canonical matrices, one at a time: no more than the sum beside them."""
    return reduce(add, matrices)


def summed_use(
    tallied: PhraseTally,
    phrases: Sequence[str],
    key_of_phrase: np.ndarray,
    keys: np.ndarray,
    topics: Sequence[np.ndarray],
    topic_ids: Sequence[list[int]],
    min_users: int,
) -> PhraseUse:
    """Step 4: the list's `PhraseUse` from its sums (`tallied`), its `phrases` and their keys
    (`phrase_keys`), for its papers' `topics` per level (`topic_ids` each level's sorted ids)."""
    users = np.asarray(tallied.levels[0].users.sum(axis=0)).ravel()  # each paper is in one topic of a level
    kept = kept_columns(keys, users, min_users)
    phrase_uses = np.zeros(len(phrases), dtype=np.int64)
    phrase_uses[tallied.phrase_uses[0]] = tallied.phrase_uses[1]
    cased = display_forms(dict(zip(tallied.written.keys.tolist(), tallied.written.counts[0].tolist())))
    shown = shown_forms(phrases, phrase_uses, key_of_phrase, kept, cased) if len(kept) else []
    levels = []
    for level, ids, sums in zip(topics, topic_ids, tallied.levels):
        level_users, level_uses = (_as_products(matrix[:, kept]) for matrix in (sums.users, sums.occurrences))
        levels.append((level, TopicUse(ids, sums.sizes.astype(np.float64), level_users, level_uses)))
    return PhraseUse.summed(tallied.n_texts, keys[kept], shown, users[kept], verbs_of(tallied.verbs), levels)
