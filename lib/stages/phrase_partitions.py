"""`lib.stages.phrases.phrase_counts` a partition (a slice of the texts) at a time: the same matrix
and phrases, each partition's counting done by its own task, each bucket of the phrases (by a hash
of the phrase) merged by its own.

1. `partition_phrases`: `phrase_counts` of a partition's texts, its phrases numbered as the
   partition first meets them; `phrase_buckets`: each one's bucket;
2. `bucket_phrases` (a partition's, per bucket) and `merge_bucket` (per bucket): the phrases in a
   bucket from every partition in order, each distinct one with where the list first meets it;
3. `agree_phrases` (one task, the distinct phrases only): numbered as the whole list first meets
   them; `bucket_columns` (per bucket) and `partition_columns` (per partition): each partition's
   phrases' columns among them;
4. `renumbered`: a partition's counts in the list's columns, each row's entries ordered by column
   as the whole list's are (SciPy's canonical form), so the partitions' rows stacked in order are
   the whole list's matrix, array for array. The subfields score each partition's rows
   (`lib.builder.subfield_partitions`) and the topics sum them (`lib.stages.topic_tallies`) where
   they are: no step stacks them.

`lib.builder.phrase_partitions` runs the steps on a runner (a Dask cluster). What a worker holds of
a partition's or a bucket's phrases is packed (`lib.stages.term_counts.packed_terms`), one buffer
each: millions of short strings pinned Python's small-object arenas once freed among other objects,
and Dask sends a list of strings one string at a time. The list's phrases are an object array.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy import sparse

from lib.stages.key_hashes import term_hashes
from lib.stages.phrases import first_uses, phrase_counts
from lib.stages.term_counts import packed_subset, packed_terms, unpacked_terms
from lib.stages.tfidf_partitions import PLACE_BITS


class PartitionPhrases(NamedTuple):
    """A partition's `phrase_counts`: its counts and its phrases (packed)."""

    counts: sparse.csr_matrix
    phrases: bytes


class BucketPhrases(NamedTuple):
    """A partition's phrases in one bucket (packed), in its first-met order, and where the list meets
    each there: the partition's number above `PLACE_BITS`, the phrase's place in it below."""

    phrases: bytes
    met: np.ndarray


class MergedBucket(NamedTuple):
    """One bucket's phrases from every partition: each distinct one as the bucket first meets them
    (packed), where the list first meets it, and each partition's phrases in the bucket as numbers
    among them."""

    phrases: bytes
    first_met: np.ndarray
    codes: tuple[np.ndarray, ...]


class AgreedPhrases(NamedTuple):
    """The list's phrases as it first meets them, and each bucket's distinct phrases' columns among them."""

    phrases: np.ndarray
    columns: tuple[np.ndarray, ...]


def partition_phrases(texts: Sequence[str]) -> PartitionPhrases:
    """Step 1, on each partition's texts (a list, or the object array a cluster holds them in)."""
    counts, phrases = phrase_counts(list(texts))
    return PartitionPhrases(counts, packed_terms(phrases))


def phrase_buckets(part: PartitionPhrases, n_buckets: int) -> np.ndarray:
    """Step 1: each of a partition's phrases' bucket of `n_buckets`, by its hash (the same on any machine)."""
    return (term_hashes(unpacked_terms(part.phrases)) % np.uint64(n_buckets)).astype(np.int32)


def bucket_phrases(part: PartitionPhrases, buckets: np.ndarray, number: int, bucket: int) -> BucketPhrases:
    """Step 2, on each partition (the `number`th, `buckets` its `phrase_buckets`) for each bucket."""
    inside = np.flatnonzero(buckets == bucket)
    return BucketPhrases(packed_subset(part.phrases, inside), (number << PLACE_BITS) + inside.astype(np.int64))


def merge_bucket(*parts: BucketPhrases) -> MergedBucket:
    """Step 2, on one bucket's phrases from every partition in order."""
    codes, uniques = pd.factorize(
        np.concatenate([np.zeros(0, dtype=object), *(unpacked_terms(p.phrases) for p in parts)])
    )
    # The parts come in partition order, each in its first-met order: a phrase's first row is its first meeting.
    first_met = np.concatenate([np.zeros(0, dtype=np.int64), *(part.met for part in parts)])[first_uses(codes)]
    bounds = np.cumsum([0, *(len(part.met) for part in parts)])
    split = tuple(codes[a:b].astype(np.int32) for a, b in zip(bounds[:-1], bounds[1:]))
    return MergedBucket(packed_terms(uniques), first_met, split)


def agree_phrases(*buckets: MergedBucket) -> AgreedPhrases:
    """Step 3, on every bucket's merged phrases: no phrase is in two buckets, so ordering them all by
    where the list first meets each numbers them as the whole list does."""
    order = np.argsort(np.concatenate([np.zeros(0, dtype=np.int64), *(b.first_met for b in buckets)]))
    columns = np.empty(len(order), dtype=np.int32)
    columns[order] = np.arange(len(order), dtype=np.int32)
    phrases = np.concatenate([np.zeros(0, dtype=object), *(unpacked_terms(b.phrases) for b in buckets)])[order]
    bounds = np.cumsum([0, *(len(b.first_met) for b in buckets)])
    return AgreedPhrases(phrases, tuple(columns[a:b] for a, b in zip(bounds[:-1], bounds[1:])))


def own_phrases(part: PartitionPhrases) -> np.ndarray:
    """A list of one partition: its phrases are the list's."""
    return unpacked_terms(part.phrases)


def own_columns(part: PartitionPhrases) -> np.ndarray:
    """A list of one partition: its phrases' columns are their own."""
    return np.arange(part.counts.shape[1], dtype=np.int32)


def agreed_phrases(agreed: AgreedPhrases) -> np.ndarray:
    return agreed.phrases


def bucket_order(agreed: AgreedPhrases, bucket: int) -> np.ndarray:
    """Bucket `bucket`'s distinct phrases' columns in the list's counts: a task of its own, so that
    each `bucket_columns` task is sent these numbers, not every phrase of the list."""
    return agreed.columns[bucket]


def bucket_columns(merged: MergedBucket, order: np.ndarray) -> tuple[np.ndarray, ...]:
    """Step 3, per bucket (`order`: its `bucket_order`): each partition's phrases in it, as columns."""
    return tuple(order[codes] for codes in merged.codes)


def partition_columns(buckets: np.ndarray, number: int, *columns: tuple[np.ndarray, ...]) -> np.ndarray:
    """Step 3: the `number`th partition's phrases' columns in the list's counts, from its
    `phrase_buckets` and every bucket's `bucket_columns` in bucket order."""
    placed = np.empty(len(buckets), dtype=np.int32)
    for bucket, by_partition in enumerate(columns):
        placed[buckets == bucket] = by_partition[number]  # both in the partition's first-met order
    return placed


def renumbered(part: PartitionPhrases, columns: np.ndarray, n_phrases: int) -> sparse.csr_matrix:
    """Step 3: a partition's counts in the list's `n_phrases` columns (`columns`: its phrases')."""
    matrix = part.counts.tocoo()
    # From (row, column) pairs, as `phrase_counts` makes the whole list's: rows in order, each
    # row's entries sorted by column.
    return sparse.csr_matrix((matrix.data, (matrix.row, columns[matrix.col])), shape=(matrix.shape[0], n_phrases))
