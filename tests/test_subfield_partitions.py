"""The subfields a partition at a time (lib.builder.subfield_partitions): own-word scores made per
partition against the summed users' IDF, the graph's picks per partition, the papers filed in one
task: the one-process table, value for value."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from conftest import planted_records

from lib.builder.parallel import InProcess
from lib.builder.phrase_partitions import phrase_counts_in_partitions
from lib.builder.subfield_partitions import subfields_in_partitions
from lib.builder.text_partitions import send_texts, send_vectors
from lib.paths import DEFAULT_TAXONOMY
from lib.schema import analysis_texts
from lib.stages.declared_areas import file_papers, with_declared
from lib.stages.embed import TfidfSvdEmbedder
from lib.stages.load import load_papers
from lib.stages.subfields import assign_subfields
from lib.stages.taxonomy import load_taxonomy


def in_partitions(papers: pd.DataFrame, vectors, partition_size: int | None, graph_sample=None, declared=True):
    texts = analysis_texts(papers)
    runner = InProcess()
    sent = send_texts(texts, runner, partition_size)
    counted = phrase_counts_in_partitions(runner, sent)
    taxonomy = load_taxonomy(DEFAULT_TAXONOMY)
    on_runner = send_vectors(vectors, runner, partition_size)
    handle = subfields_in_partitions(
        papers, vectors, on_runner, taxonomy, 0.03, declared, counted, runner, graph_sample
    )
    return handle.result()


def planted_papers(per_topic: int, folder: Path) -> pd.DataFrame:
    path = folder / "planted2025.json"
    path.write_text(json.dumps(planted_records(per_topic)), encoding="utf-8")
    return load_papers(path).papers


@pytest.mark.parametrize("partition_size", [1, 7, 13, None])
def test_partitions_with_the_graphs_sample_file_papers_as_one_process(partition_size, tmp_path):
    papers = planted_papers(20, tmp_path)  # 60 papers, their neighbours sought among 40
    texts = analysis_texts(papers)
    vectors = TfidfSvdEmbedder(n_components=16).embed(texts)
    taxonomy = load_taxonomy(DEFAULT_TAXONOMY)
    expected = with_declared(papers, assign_subfields(texts, taxonomy, vectors=vectors, graph_sample=40), None)
    assert expected["subfield"].nunique() > 1
    got = in_partitions(papers, vectors, partition_size, graph_sample=40, declared=False)
    pd.testing.assert_frame_equal(got, expected)


def test_a_list_under_the_graphs_sample_files_its_papers_as_one_process(shared_data):
    papers = load_papers(shared_data / "colm2025.json").papers
    texts = analysis_texts(papers)
    vectors = TfidfSvdEmbedder().embed(texts)
    expected = file_papers(papers, texts, load_taxonomy(DEFAULT_TAXONOMY), vectors=vectors)
    pd.testing.assert_frame_equal(in_partitions(papers, vectors, 97), expected)


def test_a_real_list_with_declared_areas_in_partitions_and_a_sample(shared_data):
    papers = load_papers(shared_data / "ijcai2023.json").papers
    texts = analysis_texts(papers)
    vectors = TfidfSvdEmbedder().embed(texts)
    expected = file_papers(papers, texts, load_taxonomy(DEFAULT_TAXONOMY), vectors=vectors)
    assert (~expected["subfield_inferred"]).mean() > 0.5  # the declared areas decide most papers
    pd.testing.assert_frame_equal(in_partitions(papers, vectors, 97), expected)
    # The declared areas set aside: the classifier alone, each paper's neighbours among 300.
    taxonomy = load_taxonomy(DEFAULT_TAXONOMY)
    sampled = with_declared(papers, assign_subfields(texts, taxonomy, vectors=vectors, graph_sample=300), None)
    pd.testing.assert_frame_equal(in_partitions(papers, vectors, 97, graph_sample=300, declared=False), sampled)
