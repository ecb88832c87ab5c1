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
    from lib.stages.phrase_partitions import PartitionPhrases, renumbered

    counts = phrase_counts(["graph model graph"])  # graph (twice), model, graph model, model graph, all three
    moved = renumbered(PartitionPhrases(*counts), np.array([4, 0, 3, 1, 2], dtype=np.int32), 6)
    assert moved.indices.tolist() == [0, 1, 2, 3, 4] and moved.has_canonical_format
    assert moved.data.tolist() == [1, 1, 1, 1, 2]  # "graph"'s 2 moved to column 4
