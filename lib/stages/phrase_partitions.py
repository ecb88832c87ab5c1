"""`lib.stages.phrases.phrase_counts` a partition (a slice of the texts) at a time: the same matrix
and phrases, each partition's counting done by its own task.

1. `partition_phrases`: `phrase_counts` of a partition's texts, its phrases numbered as the
   partition first meets them;
2. `agree_phrases` (one task, the partitions' phrase lists only): merged in partition order, so
   numbered as the whole list first meets them, and each partition's columns among them;
3. `renumbered`: a partition's counts in the list's columns, each row's entries ordered by column
   as the whole list's are (SciPy's canonical form), so the partitions' rows stacked in order are
   the whole list's matrix, array for array;
4. `stacked` (one task): those rows in order with the list's phrases, where the steps that take the
   counts whole (subfields, topics) read them through `as_phrase_counts`.

`lib.builder.phrase_partitions` runs the steps on a runner (a Dask cluster). What goes between
tasks holds phrases as NumPy arrays, never as lists: Dask serializes a list of strings one string at
a time, and 2 million phrases took minutes to send.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy import sparse

from lib.stages.phrases import PhraseCounts, phrase_counts


class PartitionPhrases(NamedTuple):
    """A partition's `phrase_counts`: its counts and its phrases (str, as an object array)."""

    counts: sparse.csr_matrix
    phrases: np.ndarray


class AgreedPhrases(NamedTuple):
    """The list's phrases as it first meets them, and each partition's phrases' columns among them."""

    phrases: np.ndarray
    columns: tuple[np.ndarray, ...]


def partition_phrases(texts: Sequence[str]) -> PartitionPhrases:
    """Step 1, on each partition's texts (a list, or the object array a cluster holds them in)."""
    counts, phrases = phrase_counts(list(texts))
    return PartitionPhrases(counts, np.array(phrases, dtype=object))


def phrases_of(part: PartitionPhrases) -> np.ndarray:
    """What step 2 needs of a partition's counts: its phrases, not its matrix."""
    return part.phrases


def agree_phrases(*phrase_arrays: np.ndarray) -> AgreedPhrases:
    """Step 2, on every partition's phrases in partition order."""
    codes, uniques = pd.factorize(np.concatenate([np.zeros(0, dtype=object), *phrase_arrays]))
    bounds = np.cumsum([0, *map(len, phrase_arrays)])
    columns = tuple(codes[a:b].astype(np.int32) for a, b in zip(bounds[:-1], bounds[1:]))
    return AgreedPhrases(np.asarray(uniques, dtype=object), columns)


def agreed_phrases(agreed: AgreedPhrases) -> np.ndarray:
    return agreed.phrases


def partition_columns(agreed: AgreedPhrases, index: int) -> np.ndarray:
    """Partition `index`'s phrases' columns in the list's counts."""
    return agreed.columns[index]


def stacked(phrases: np.ndarray, *rows: sparse.csr_matrix) -> PartitionPhrases:
    """The list's counts, from every partition's `renumbered` rows in order, and its `phrases`."""
    return PartitionPhrases(sparse.vstack(rows, format="csr"), phrases)


def as_phrase_counts(counts: PartitionPhrases | PhraseCounts | None) -> PhraseCounts | None:
    """`phrase_counts`' value, from a cluster's counts (`stacked`, its phrases an array) or itself."""
    if isinstance(counts, PartitionPhrases):
        return counts.counts, counts.phrases.tolist()
    return counts


def renumbered(part: PartitionPhrases, columns: np.ndarray, n_phrases: int) -> sparse.csr_matrix:
    """Step 3: a partition's counts in the list's `n_phrases` columns (`columns`: its phrases')."""
    matrix = part.counts.tocoo()
    # From (row, column) pairs, as `phrase_counts` makes the whole list's: rows in order, each
    # row's entries sorted by column.
    return sparse.csr_matrix((matrix.data, (matrix.row, columns[matrix.col])), shape=(matrix.shape[0], n_phrases))
