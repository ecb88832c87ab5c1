"""A build's texts, and later its vectors, sent to a runner's workers once, a partition per task,
where every partitioned step on a cluster reads them (the texts: the keywords' rounds, the
embedding, the shared phrase counts; the vectors: the map's placement and the subfields' graph):
sent once instead of once per step, and read where they went, as results a worker counts and can
spill, not as the arguments of tasks waiting to run.

A partition of texts travels pickled and compressed (Zstandard, by Arrow), and its task makes it a
NumPy object array where it runs. Dask's scheduler, in the build's own process on a local cluster,
keeps every task's arguments for as long as its result may have to be made again (a worker lost):
the texts sent as they are stayed there, a copy of every text, for most of the build.
"""

from __future__ import annotations

import math
import pickle
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


TEXTS_CODEC = "zstd"
TEXTS_LEVEL = 1  # the fastest: a million papers' texts are packed in seconds


def packed_texts(texts: Sequence[str]) -> tuple[bytes, int]:
    """`texts` as their partition's task carries them: pickled, compressed, and the pickle's size."""
    import pyarrow as pa

    pickled = pickle.dumps(list(texts), protocol=pickle.HIGHEST_PROTOCOL)
    return pa.Codec(TEXTS_CODEC, compression_level=TEXTS_LEVEL).compress(pickled, asbytes=True), len(pickled)


def unpacked_texts(packed: tuple[bytes, int]) -> np.ndarray:
    """A task: the texts of `packed_texts` as an object array, kept by the worker they went to."""
    import numpy as np
    import pyarrow as pa

    compressed, size = packed
    pickled = pa.Codec(TEXTS_CODEC).decompress(compressed, decompressed_size=size, asbytes=True)
    return np.array(pickle.loads(pickled), dtype=object)


def held(rows: np.ndarray) -> np.ndarray:
    """A task whose value is its argument (a partition's vectors, say), kept by the worker it went to."""
    return rows


BUCKET_PAPERS = 2000  # see bucket_count


def bucket_count(parts: SentParts) -> int:
    """How many buckets (by hash) a merge of the items of a list's `parts` takes, a partition's share
    of each carried by a small task: the square root of the number of partitions, or of the list's
    papers over `BUCKET_PAPERS` when that is more, rounded up. A bucket's task then holds a small
    share of every partition's items, and those of at most some `sqrt(BUCKET_PAPERS * n)` of the
    list's n papers, however large its partitions."""
    blocks = max(len(parts.parts), -(-len(parts) // BUCKET_PAPERS))
    return math.isqrt(blocks - 1) + 1 if blocks else 1


def send_texts(texts: Sequence[str], runner: Runner, partition_size: int | None) -> SentParts:
    """`texts` on `runner`, in partitions of `partition_size` (None: one), each packed (`packed_texts`)."""
    ranges = partition_ranges(len(texts), partition_size)
    return SentParts(ranges, list(runner.map([(unpacked_texts, (packed_texts(texts[a:b]),)) for a, b in ranges])))


def send_vectors(vectors: np.ndarray, runner: Runner, partition_size: int | None) -> SentParts:
    """`vectors` (a row per paper) on `runner`, in partitions of `partition_size` rows (None: one)."""
    ranges = partition_ranges(len(vectors), partition_size)
    return SentParts(ranges, list(runner.map([(held, (vectors[a:b],)) for a, b in ranges])))


def joined_rows(*parts: np.ndarray) -> np.ndarray:
    """A task: consecutive parts' rows as one array."""
    import numpy as np

    return np.concatenate(parts)


@dataclass
class ClusterRun:
    """A cluster (a runner that passes handles, lib.builder.cluster) the embed, project and topics
    stages and the shared phrase counts run on, the embedding and the counts in partitions of
    `partition_size` papers (None: one), and the build's texts and vectors there once sent; the
    build's value "cluster", else None."""

    runner: Runner
    partition_size: int | None = None
    sent: SentParts | None = None
    sent_vectors: SentParts | None = None

    def texts_on_workers(self, texts: Sequence[str]) -> SentParts:
        """The build's `texts` on the cluster: sent by the first partitioned step, read by the others."""
        if self.sent is None:
            self.sent = send_texts(texts, self.runner, self.partition_size)
        return self.sent

    def vectors_on_workers(self, vectors: np.ndarray) -> SentParts:
        """The build's `vectors` on the cluster: where the embedding made them, else sent by the first step
        that needs them (the map's placement, or the subfields); read by the others."""
        if self.sent_vectors is None:
            self.sent_vectors = send_vectors(vectors, self.runner, self.partition_size)
        return self.sent_vectors

    def let_go(self) -> None:
        """Drop the build's handles on the texts and vectors sent: the cluster frees each partition
        once the tasks sent that read it are done (a later step would send them again)."""
        self.sent = self.sent_vectors = None
