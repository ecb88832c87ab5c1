"""How many papers go in each partition of a build's spread stages when the caller gives no number
(`partition_size="auto"`): on a cluster, a size for the list and the cluster's threads; elsewhere,
one partition. Neither changes the output (docs/cluster.md)."""

from __future__ import annotations

from typing import Literal, Protocol, TypeGuard, cast

from lib.builder.parallel import Runner
from lib.errors import ParameterError

AUTO: Literal["auto"] = "auto"
PARTITIONS_PER_THREAD = 2
# The sizes a cluster's partition keeps within (`cluster_partition_size`).
SMALLEST_CLUSTER_PARTITION = 8_000
LARGEST_CLUSTER_PARTITION = 25_000


class ClusterRunner(Runner, Protocol):
    """A runner that passes handles (`lib.builder.cluster.DaskRunner`), which also says how many
    threads run its calls."""

    def threads(self) -> int: ...


def on_cluster(runner: Runner | None) -> TypeGuard[Runner]:
    """Whether `runner` runs a build's spread stages on a cluster: it passes handles between calls."""
    return runner is not None and runner.passes_handles


def cluster_partition_size(n_papers: int, threads: int) -> int:
    """Papers per partition on a cluster of `threads`: the list in `PARTITIONS_PER_THREAD` partitions
    per thread, as few as keep every thread busy (each partition's tasks redo some work: a
    tokenizer's chunks, the words of the acronyms' reader; and a bucketed merge takes a share of
    each), but no fewer papers than `SMALLEST_CLUSTER_PARTITION` and no more than
    `LARGEST_CLUSTER_PARTITION` (one task holds its partition's texts, terms and phrases at once)."""
    if threads < 1:
        raise ValueError(f"threads must be at least 1; got {threads}")
    even_share = -(-n_papers // (PARTITIONS_PER_THREAD * threads))
    return min(max(even_share, SMALLEST_CLUSTER_PARTITION), LARGEST_CLUSTER_PARTITION)


def check_partition_size(partition_size: object) -> None:
    """Refuse a `partition_size` that is text other than "auto" (`ParameterError`), before any work."""
    if isinstance(partition_size, str) and partition_size != AUTO:
        raise ParameterError(f"partition_size must be a number of papers, None or {AUTO!r}; got {partition_size!r}")


def resolved_partition_size(
    partition_size: int | Literal["auto"] | None, runner: Runner | None, n_papers: int
) -> int | None:
    """`partition_size` as given, or the size "auto" stands for with `runner`: on a cluster (a runner
    that passes handles), `cluster_partition_size` of the list on its threads; else None, one partition."""
    if not isinstance(partition_size, str):
        return partition_size
    if not on_cluster(runner):
        return None
    return cluster_partition_size(n_papers, cast(ClusterRunner, runner).threads())
