"""A partition's texts as a cluster's task carries them (lib.builder.text_partitions): the same texts
where it runs, in a fraction of their size while the scheduler keeps them."""

import json

import numpy as np

from lib.builder.parallel import partition_ranges
from lib.builder.text_partitions import BUCKET_PAPERS, SentParts, bucket_count, packed_texts, unpacked_texts


def test_packed_texts_come_back_as_they_were():
    texts = ["", "Plain words.", "Ünïcödé: 深度学习, émojis 🧪", "a" * 100_000, "line\nbreaks\r\nand\ttabs\0"]
    unpacked = unpacked_texts(packed_texts(texts))
    assert isinstance(unpacked, np.ndarray) and unpacked.dtype == object
    assert unpacked.tolist() == texts and all(type(text) is str for text in unpacked)
    assert unpacked_texts(packed_texts([])).tolist() == []


def test_a_partition_of_abstracts_travels_in_under_half_its_size(shared_data):
    records = json.loads((shared_data / "iclr2018.json").read_text(encoding="utf-8"))
    texts = [f"{record['title']}. {record.get('abstract') or ''}" for record in records[:2000]]
    compressed, _ = packed_texts(texts)
    assert len(compressed) < 0.5 * sum(len(text.encode()) for text in texts)
    assert unpacked_texts(packed_texts(texts)).tolist() == texts


def partitioned(n_papers: int, size: int) -> SentParts:
    """A list of `n_papers` papers in partitions of `size`, as `send_texts` describes them (no handles needed)."""
    ranges = partition_ranges(n_papers, size)
    return SentParts(ranges, [None] * len(ranges))


def test_larger_partitions_do_not_make_a_buckets_task_hold_more_of_the_list():
    # A bucket's task holds its share of every partition's items: with as many buckets as the
    # square root of the partitions, partitions four times larger made each bucket's task at a
    # million papers hold some twice as many papers' items.
    for n_papers in (1, 1999, 2000, 2001, 87_691, 1_000_000, 2_500_000):
        least = bucket_count(partitioned(n_papers, BUCKET_PAPERS))
        for size in (BUCKET_PAPERS, 3 * BUCKET_PAPERS, 4 * BUCKET_PAPERS, 50 * BUCKET_PAPERS, None):
            n_buckets = bucket_count(partitioned(n_papers, size))
            assert n_buckets == least
            assert (n_buckets - 1) ** 2 * BUCKET_PAPERS < n_papers or n_buckets == 1
    # Small partitions: as many buckets as the square root of the partitions, rounded up.
    for n_papers, size in ((40, 1), (40, 5), (97, 13), (5_000, 100)):
        parts = partitioned(n_papers, size)
        n_buckets = bucket_count(parts)
        assert (n_buckets - 1) ** 2 < len(parts.parts) <= n_buckets**2
