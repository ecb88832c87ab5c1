"""A build's texts, and later its vectors, sent to a runner's workers once, a partition per task,
where every partitioned step on a cluster reads them (the texts: the keywords' rounds, the
embedding, the shared phrase counts; the vectors: the map's placement and the subfields' graph):
sent once instead of once per step, and read where they went, as results a worker counts and can
spill, not as the arguments of tasks waiting to run.

A partition of texts travels as a NumPy object array: Dask serializes a list of strings one string
at a time.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lib.builder.parallel import Handle, Runner, partition_ranges

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class SentParts:
    """A list's rows (texts, or vectors) on a runner: `parts[i]` holds rows `ranges[i]` (as a handle
    the runner passes)."""

    ranges: list[tuple[int, int]]
    parts: list[Handle]

    def __len__(self) -> int:
        return self.ranges[-1][1] if self.ranges else 0

    def covering(self, start: int, stop: int) -> tuple[int, list[Handle]]:
        """The parts holding rows `start` to `stop` (at least one row), in order, and the first one's first row."""
        first = next(i for i, (_, b) in enumerate(self.ranges) if b > start)
        last = next(i for i, (_, b) in enumerate(self.ranges) if b >= stop)
        return self.ranges[first][0], self.parts[first : last + 1]


def held(texts: np.ndarray) -> np.ndarray:
    """A task whose value is its argument: a partition's texts or vectors, kept by the worker they went to."""
    return texts


def bucket_count(n_partitions: int) -> int:
    """How many buckets (by hash) a merge of `n_partitions` partitions' items takes: the square root,
    rounded up, so that a bucket's task holds a small share of every partition's items, and
    partitions times buckets small tasks carry them there."""
    return math.isqrt(n_partitions - 1) + 1 if n_partitions else 1


def send_texts(texts: Sequence[str], runner: Runner, partition_size: int | None) -> SentParts:
    """`texts` on `runner`, in partitions of `partition_size` (None: one)."""
    import numpy as np

    ranges = partition_ranges(len(texts), partition_size)
    return SentParts(ranges, list(runner.map([(held, (np.array(texts[a:b], dtype=object),)) for a, b in ranges])))


def send_vectors(vectors: np.ndarray, runner: Runner, partition_size: int | None) -> SentParts:
    """`vectors` (a row per paper) on `runner`, in partitions of `partition_size` rows (None: one)."""
    ranges = partition_ranges(len(vectors), partition_size)
    return SentParts(ranges, list(runner.map([(held, (vectors[a:b],)) for a, b in ranges])))


def joined_rows(*parts: np.ndarray) -> np.ndarray:
    """A task: consecutive parts' rows as one array."""
    import numpy as np

    return np.concatenate(parts)
