"""A build's texts sent to a runner's workers once, a partition per task, where every partitioned
step on a cluster (the keywords' rounds, the embedding, the shared phrase counts) reads them: sent
once instead of once per step, and read where they went.

A partition travels as a NumPy object array: Dask serializes a list of strings one string at a time.
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
class SentTexts:
    """A list's texts on a runner: `parts[i]` holds texts `ranges[i]` (as a handle the runner passes)."""

    ranges: list[tuple[int, int]]
    parts: list[Handle]

    def __len__(self) -> int:
        return self.ranges[-1][1] if self.ranges else 0


def held(texts: np.ndarray) -> np.ndarray:
    """A task whose value is its argument: a partition's texts, kept by the worker they went to."""
    return texts


def bucket_count(n_partitions: int) -> int:
    """How many buckets (by hash) a merge of `n_partitions` partitions' items takes: the square root,
    rounded up, so that a bucket's task holds a small share of every partition's items, and
    partitions times buckets small tasks carry them there."""
    return math.isqrt(n_partitions - 1) + 1 if n_partitions else 1


def send_texts(texts: Sequence[str], runner: Runner, partition_size: int | None) -> SentTexts:
    """`texts` on `runner`, in partitions of `partition_size` (None: one)."""
    import numpy as np

    ranges = partition_ranges(len(texts), partition_size)
    return SentTexts(ranges, list(runner.map([(held, (np.array(texts[a:b], dtype=object),)) for a, b in ranges])))
