"""The topics' labels and summaries from sums over slices of a list (partitions), so that no one
process holds every paper's phrase counts: the same `PhraseUse` answers, for the given topics.

1. `phrase_keys` (`lib.stages.topic_labels`, once): each of the list's phrases' key, plural twins
   folded; `key_ranges`, the keys cut into consecutive ranges;
2. on each partition, `text_sums`: its papers per topic at every level, how its texts case words and
   use them as verbs; and for each range of keys, `key_sums`: its papers' use of each key of the
   range summed by topic at every level, and the uses of those keys' phrases;
3. `added_texts` and, per range, `added_keys` (partitions in order, some at a time, then those sums:
   `lib.builder.reductions`): the list's sums; then `pruned`, a range's keys fewer than `min_users`
   papers use let go, as `PhraseUse` leaves them out. A task adds one range's keys: the list's
   common keys, repeated in every partition's sums, are not all in one task;
4. `summed_use`: the `PhraseUse` of the list from the sums of every range.

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
from lib.stages.topic_labels import PhraseUse, TopicUse, folded_entries, kept_columns, topic_membership, uses_of


class TextSums(NamedTuple):
    """What `summed_use` needs of some papers' texts: how many, per level the papers per topic, the
    words as written (`written_words`) and the verb counts (`verb_counts`)."""

    n_texts: int
    sizes: tuple[np.ndarray, ...]
    written: Tally
    verbs: Tally


class KeySums(NamedTuple):
    """Some papers' sums for the list's keys `start` to `start` + the matrices' width: the uses of
    those keys' phrases (the list's phrase columns, sorted, and their uses), and per level, per topic
    (row) and key (column, from `start`) its papers using the key and their uses of it (32-bit
    integers: a third less to hold and send than float64)."""

    start: int
    phrase_uses: tuple[np.ndarray, np.ndarray]
    users: tuple[sparse.csr_matrix, ...]
    occurrences: tuple[sparse.csr_matrix, ...]


def key_ranges(n_keys: int, n_ranges: int) -> list[tuple[int, int]]:
    """`n_keys` keys cut into `n_ranges` consecutive `(start, stop)` ranges as even as can be (at least one)."""
    bounds = [n_keys * i // max(n_ranges, 1) for i in range(max(n_ranges, 1) + 1)]
    return list(zip(bounds[:-1], bounds[1:]))


def text_sums(texts: Sequence[str], topics: Sequence[np.ndarray], topic_ids: Sequence[list[int]]) -> TextSums:
    """Step 2, on a partition: its `texts`, and per level its papers' topics and the level's sorted `topic_ids`."""
    texts = list(texts)
    sizes = tuple(np.bincount(np.searchsorted(ids, level), minlength=len(ids)) for level, ids in zip(topics, topic_ids))
    chunks = written_chunks(texts)
    written = written_words(chunks)
    return TextSums(len(texts), sizes, tally(list(written), [list(written.values())]), verb_counts(texts, chunks))


def key_sums(
    counts: sparse.csr_matrix,
    key_of_phrase: np.ndarray,
    start: int,
    stop: int,
    topics: Sequence[np.ndarray],
    topic_ids: Sequence[list[int]],
) -> KeySums:
    """Step 2, on a partition for the keys `start` to `stop`: its texts' `counts` in the list's phrase
    columns (its rows of `phrase_counts`), the list's `key_of_phrase`, and per level its papers'
    topics and the level's sorted `topic_ids`."""
    key = key_of_phrase[counts.indices]
    inside = (key >= start) & (key < stop)
    in_range = _only(counts, inside)
    # Renumbered from each entry's key: a copy of the list's `key_of_phrase` per range would cost more.
    per_paper = folded_entries(in_range, key[inside] - start, stop - start)
    used = uses_of(per_paper)
    memberships = [topic_membership(level, ids)[1].astype(np.int32) for level, ids in zip(topics, topic_ids)]
    return KeySums(
        start,
        _summed_by(in_range.indices, in_range.data),
        tuple(_canonical(membership @ used) for membership in memberships),
        tuple(_canonical(membership @ per_paper) for membership in memberships),
    )


def added_texts(*sums: TextSums) -> TextSums:
    """Step 3: the sums of some papers' `text_sums` (of consecutive slices, in order)."""
    return TextSums(
        sum(s.n_texts for s in sums),
        tuple(np.sum(level, axis=0) for level in zip(*(s.sizes for s in sums))),
        merged([s.written for s in sums]),
        merged([s.verbs for s in sums]),
    )


def added_keys(*sums: KeySums) -> KeySums:
    """Step 3: the sums of one range's `key_sums` (of consecutive slices, in order)."""
    columns, uses = zip(*(s.phrase_uses for s in sums))
    return KeySums(
        sums[0].start,
        _summed_by(np.concatenate(columns), np.concatenate(uses)),
        tuple(_sum(level) for level in zip(*(s.users for s in sums))),
        tuple(_sum(level) for level in zip(*(s.occurrences for s in sums))),
    )


def pruned(sums: KeySums, key_of_phrase: np.ndarray, min_users: int) -> KeySums:
    """Step 3: the list's sums of a range with the keys fewer than `min_users` papers use (and their
    phrases) let go: `summed_use` leaves them out, as `PhraseUse` does."""
    # Each paper is in one topic of a level: a key's users are its column's sum at any level.
    few = np.asarray(sums.users[0].sum(axis=0)).ravel() < min_users
    columns, uses = sums.phrase_uses
    kept_phrases = ~few[key_of_phrase[columns] - sums.start]
    return KeySums(
        sums.start,
        (columns[kept_phrases], uses[kept_phrases]),
        tuple(_only(matrix, ~few[matrix.indices]) for matrix in sums.users),
        tuple(_only(matrix, ~few[matrix.indices]) for matrix in sums.occurrences),
    )


def _only(matrix: sparse.csr_matrix, kept: np.ndarray) -> sparse.csr_matrix:
    """`matrix` (CSR) with only its entries where `kept` (a mask over them, in storage order), its shape kept."""
    rows = np.repeat(np.arange(matrix.shape[0]), np.diff(matrix.indptr))[kept]
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=matrix.shape[0]))])
    return sparse.csr_matrix((matrix.data[kept], matrix.indices[kept], indptr), shape=matrix.shape)


def _summed_by(columns: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct `columns`, sorted (32-bit), and the sum of `values` at each: a phrase's uses."""
    distinct, slot = np.unique(columns, return_inverse=True)
    sums = np.bincount(slot, weights=values, minlength=len(distinct)).astype(np.int64)  # exact below 2**53
    return distinct.astype(np.int32), sums


def _side_by_side(ranges: Sequence[tuple[sparse.csr_matrix, ...]]) -> list[sparse.csr_matrix]:
    """Per level, the ranges' matrices (each range's tuple a matrix per level) side by side: every key's column."""
    return [sparse.hstack(level, format="csr") for level in zip(*ranges)]


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
    texts: TextSums,
    ranges: Sequence[KeySums],
    phrases: Sequence[str],
    key_of_phrase: np.ndarray,
    keys: np.ndarray,
    topics: Sequence[np.ndarray],
    topic_ids: Sequence[list[int]],
    min_users: int,
) -> PhraseUse:
    """Step 4: the list's `PhraseUse` from its sums (`texts`, and `ranges`: every range's, in order),
    its `phrases` and their keys (`phrase_keys`), for its papers' `topics` per level (`topic_ids`
    each level's sorted ids)."""
    level_users = _side_by_side([r.users for r in ranges])
    level_uses = _side_by_side([r.occurrences for r in ranges])
    users = np.asarray(level_users[0].sum(axis=0)).ravel()  # each paper is in one topic of a level
    kept = kept_columns(keys, users, min_users)
    phrase_uses = np.zeros(len(phrases), dtype=np.int64)
    for r in ranges:
        phrase_uses[r.phrase_uses[0]] = r.phrase_uses[1]
    cased = display_forms(dict(zip(texts.written.keys.tolist(), texts.written.counts[0].tolist())))
    shown = shown_forms(phrases, phrase_uses, key_of_phrase, kept, cased) if len(kept) else []
    levels = []
    for level, ids, sizes, by_topic, uses in zip(topics, topic_ids, texts.sizes, level_users, level_uses):
        levels.append(
            (
                level,
                TopicUse(ids, sizes.astype(np.float64), _as_products(by_topic[:, kept]), _as_products(uses[:, kept])),
            )
        )
    return PhraseUse.summed(texts.n_texts, keys[kept], shown, users[kept], verbs_of(texts.verbs), levels)
