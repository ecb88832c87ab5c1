"""The shared phrase counts a partition at a time (lib.stages.phrase_partitions, run by
lib.builder.phrase_partitions): the whole list's matrix and phrases, array for array."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import planted_records
from scipy import sparse

from lib.builder.parallel import InProcess
from lib.builder.phrase_partitions import phrase_counts_in_partitions
from lib.builder.text_partitions import send_texts
from lib.schema import analysis_texts
from lib.stages.load import load_papers
from lib.stages.phrases import phrase_counts
from lib.stages.term_counts import unpacked_terms


def assert_same_counts(texts: list[str], partition_size: int | None) -> None:
    matrix, phrases = phrase_counts(texts)
    runner = InProcess()
    counted = phrase_counts_in_partitions(runner, send_texts(texts, runner, partition_size))
    in_parts = sparse.vstack([rows.result() for rows in counted.rows], format="csr")
    assert counted.phrases.result().tolist() == phrases
    assert in_parts.shape == matrix.shape
    for name in ("data", "indices", "indptr"):
        got, expected = getattr(in_parts, name), getattr(matrix, name)
        assert got.dtype == expected.dtype and got.tobytes() == expected.tobytes(), name


@pytest.mark.parametrize("partition_size", [1, 5, 13, None])
def test_partitions_give_the_whole_lists_phrase_counts(partition_size):
    texts = [f"{r['title']}. {r['abstract']}" for r in planted_records(12)]
    assert_same_counts(texts, partition_size)


def test_a_real_lists_phrases_first_met_late_in_a_partition_keep_their_place(shared_data):
    texts = analysis_texts(load_papers(shared_data / "ijcai2023.json").papers)
    assert_same_counts(texts, 97)


@pytest.mark.parametrize("texts", [[], ["graph neural networks"], ["", "the of", "graph nets"]])
def test_tiny_and_empty_lists(texts):
    assert_same_counts(texts, 1)


def test_a_partition_renumbered_into_the_lists_columns_sorts_each_row():
    from lib.stages.phrase_partitions import partition_phrases, renumbered

    part = partition_phrases(["graph model graph"])  # graph (twice), model, graph model, model graph, all three
    moved = renumbered(part, np.array([4, 0, 3, 1, 2], dtype=np.int32), 6)
    assert moved.indices.tolist() == [0, 1, 2, 3, 4] and moved.has_canonical_format
    assert moved.data.tolist() == [1, 1, 1, 1, 2]  # "graph"'s 2 moved to column 4


def test_a_partition_and_its_buckets_hold_their_phrases_packed(shared_data):
    # A worker holds every partition's phrases and bucket pieces until the buckets are merged: as
    # short strings they pinned its small-object arenas, a million papers' some 1,500 per worker.
    import tracemalloc

    from lib.stages import phrase_partitions as steps

    texts = analysis_texts(load_papers(shared_data / "ijcai2023.json").papers)[:500]
    tracemalloc.start()
    try:
        part = steps.partition_phrases(texts)
        buckets = steps.phrase_buckets(part, 4)
        pieces = [steps.bucket_phrases(part, buckets, 0, bucket) for bucket in range(4)]
        held = tracemalloc.get_traced_memory()[0]
        spelled = np.array(phrase_counts(texts)[1], dtype=object)
        held_spelled = tracemalloc.get_traced_memory()[0] - held
    finally:
        tracemalloc.stop()
    assert len(spelled) > 10_000
    assert held < held_spelled  # the partition, its counts, buckets and pieces, under its phrases spelled
    merged = steps.merge_bucket(pieces[0])
    assert sorted(unpacked_terms(merged.phrases)) == sorted(spelled[buckets == 0])
