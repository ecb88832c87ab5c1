"""Partition sizes (lib.builder.partition_sizes): on a cluster, two partitions per thread within
their bounds; a size that is no number nor "auto" refused before any work."""

import pytest
from conftest import HashingEmbedder

from lib.builder.parallel import partition_ranges
from lib.builder.partition_sizes import LARGEST_CLUSTER_PARTITION, SMALLEST_CLUSTER_PARTITION, cluster_partition_size
from lib.builder.pipeline import build
from lib.errors import ParameterError


@pytest.mark.parametrize("n_papers", [0, 1, 7_999, 16_000, 16_001, 87_691, 1_000_000, 2_500_000])
@pytest.mark.parametrize("threads", [1, 2, 3, 8, 64])
def test_a_clusters_partitions_are_two_per_thread_within_their_bounds(n_papers, threads):
    size = cluster_partition_size(n_papers, threads)
    parts = len(partition_ranges(n_papers, size))
    assert SMALLEST_CLUSTER_PARTITION <= size <= LARGEST_CLUSTER_PARTITION
    if SMALLEST_CLUSTER_PARTITION < size < LARGEST_CLUSTER_PARTITION:
        assert parts == 2 * threads  # as many as keep every thread busy, no more
    elif size == SMALLEST_CLUSTER_PARTITION:
        assert parts <= 2 * threads  # a small list: partitions not smaller than the bound
    else:
        assert parts >= 2 * threads  # a large list: partitions not larger than the bound
    assert cluster_partition_size(n_papers, threads + 1) <= size <= cluster_partition_size(n_papers + 10_000, threads)


def test_a_cluster_of_no_thread_is_refused():
    with pytest.raises(ValueError, match="threads"):
        cluster_partition_size(1000, 0)


def test_a_partition_size_that_is_no_number_nor_auto_is_refused_before_any_work(planted_file, tmp_path):
    with pytest.raises(ParameterError, match="'many'"):
        build(planted_file, cache_dir=tmp_path / "cache", embedder=HashingEmbedder(), partition_size="many")
    assert not (tmp_path / "cache").exists()
