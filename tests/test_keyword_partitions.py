"""The keyword statistics and keyphrases a partition at a time (lib.stages.keywords.partitions, run by
lib.builder.keyword_partitions): the whole list's statistics, field for field, and its keyphrases."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import planted_records

from lib.builder.keyword_partitions import keywords_in_partitions
from lib.builder.parallel import InProcess, partition_ranges
from lib.builder.text_partitions import send_texts
from lib.schema import analysis_texts
from lib.stages import tallies
from lib.stages.keywords import extract_keywords, keyword_statistics
from lib.stages.keywords import partitions as steps
from lib.stages.load import load_papers


def statistics_in_partitions(texts: list[str], size: int, n_buckets: int = 3) -> list[steps.KeywordStatistics]:
    """The rounds run here, a partition of `size` texts at a time: each partition's statistics."""
    ranges = partition_ranges(len(texts), size)
    read = [steps.first_read(texts[a:b]) for a, b in ranges]
    lexicon = steps.agree_lexicon(*map(steps.counts_of, read))
    units = [steps.partition_units(part, lexicon) for part in read]
    roles = steps.agree_roles(*map(steps.role_counts, units))
    gerunds = steps.agree_gerunds(*[steps.gerund_counts(u, roles) for u in units])
    phrases = [steps.count_phrases(u, roles, gerunds) for u in units]
    tail = steps.added_tails(*map(steps.tail_of, phrases))
    shared = steps.agree_statistics(len(texts), lexicon, roles, gerunds, tail)
    found: list[list[steps.FoundTotals]] = [[] for _ in phrases]
    for bucket in range(n_buckets):
        shares = [steps.bucket_totals(steps.totals_of(part), bucket, n_buckets) for part in phrases]
        summed = steps.added_totals(*shares)
        for place, share in zip(found, shares):
            place.append(steps.found_totals(share, summed))
    return [steps.with_phrases(part, shared, *totals) for part, totals in zip(phrases, found)]


PHRASE_FIELDS = ("phrases", "document_frequency", "uses", "ends")


def assert_same_statistics(parts: list[steps.KeywordStatistics], expected: steps.KeywordStatistics) -> None:
    """Each partition's statistics are the whole list's, its phrases' totals the list's for them, and
    the partitions' phrases are the list's."""
    place = {phrase: i for i, phrase in enumerate(expected.phrases)}
    for got in parts:
        for name in expected.__dataclass_fields__:
            if name not in PHRASE_FIELDS:
                assert getattr(got, name) == getattr(expected, name), name
        rows = np.array([place[phrase] for phrase in got.phrases], dtype=np.intp)
        for name in PHRASE_FIELDS[1:]:
            a, b = getattr(got, name), getattr(expected, name)
            assert a.dtype == b.dtype and np.array_equal(a, b[rows]), name
    assert set().union(*(got.phrases for got in parts)) == set(expected.phrases)


def partitioned_keywords(texts: list[str], size: int) -> list[list[str]]:
    papers = pd.DataFrame({"paper_id": [f"p{i}" for i in range(len(texts))]})
    sent = send_texts(texts, InProcess(), size)
    handles = keywords_in_partitions(papers, sent, range(len(sent.ranges)), 10, InProcess())
    tables = [h.result() for h in handles]
    assert pd.concat(tables)["paper_id"].tolist() == papers["paper_id"].tolist()
    return [k for table in tables for k in table["keywords"]]


@pytest.mark.parametrize("size", [1, 5, 13, 1000])
def test_partitions_give_the_whole_lists_statistics_and_keyphrases(size):
    texts = [f"{r['title']}. {r['abstract']}" for r in planted_records(12)]
    assert_same_statistics(statistics_in_partitions(texts, size), keyword_statistics(texts))
    assert partitioned_keywords(texts, size) == extract_keywords(texts, 10)


def test_a_real_list_in_partitions_gets_the_whole_lists_keyphrases(shared_data):
    ijcai_texts = analysis_texts(load_papers(shared_data / "ijcai2023.json").papers)
    # Acronyms, verbs, gerunds and casing of a real list, decided from counts that 9 partitions each hold a share of.
    assert_same_statistics(statistics_in_partitions(ijcai_texts, 97), keyword_statistics(ijcai_texts))
    assert partitioned_keywords(ijcai_texts, 97) == extract_keywords(ijcai_texts, 10)


def test_an_acronym_two_partitions_define_once_each_is_the_lists():
    # Neither partition alone has the two definitions an acronym needs: only their sum does.
    texts = [
        "We train graph neural networks (GNNs) on molecules.",
        "A study of protein folding.",
        "Deep graph neural networks (GNNs) oversmooth.",
        "GNNs scale to large graphs.",
    ]
    statistics = statistics_in_partitions(texts, 2)
    assert all(part.acronyms == {"GNN": "graph neural network"} for part in statistics)
    assert_same_statistics(statistics, keyword_statistics(texts))
    assert "graph neural network" in partitioned_keywords(texts, 2)[3]


def test_merged_tallies_add_counts_by_key_as_first_met():
    first = tallies.tally(["b", "a"], [[1, 2], [10, 20]])
    second = tallies.tally(["c", "a"], [[3, 4], [30, 40]])
    together = tallies.merged([first, second, tallies.tally([], [[], []])])
    assert together.keys.tolist() == ["b", "a", "c"]
    assert together.counts.tolist() == [[1, 6, 3], [10, 60, 30]]
    pairs = tallies.merged([tallies.tally([("x", "y")], [[1]]), tallies.tally([("x", "y"), ("x", "z")], [[2, 5]])])
    assert pairs.keys.tolist() == [("x", "y"), ("x", "z")] and pairs.counts.tolist() == [[3, 5]]


@pytest.mark.parametrize("texts", [["graph neural networks"], ["", "the of", "graph nets"], ["", ""]])
def test_tiny_and_empty_partitions(texts):
    assert_same_statistics(statistics_in_partitions(texts, 1, n_buckets=1), keyword_statistics(texts))
    assert partitioned_keywords(texts, 1) == extract_keywords(texts, 10)


def test_phrase_totals_add_by_both_hashes_and_each_partition_finds_its_own():
    # Planted hashes: "a" and "b" share a first hash, told apart by their checks.
    def totals(hashes, checks, counts):
        n = len(hashes)
        rows = np.arange(n)
        return steps.PhraseTotals(np.array(hashes, np.uint64), np.array(checks, np.uint64), np.array(counts), rows)

    first = totals([5, 5, 9], [1, 2, 3], [[1, 1, 1], [2, 3, 4], [0, 1, 0]])  # a, b, c
    second = totals([9, 5, 7], [3, 2, 4], [[1, 1, 1], [5, 6, 7], [1, 0, 0]])  # c, b, d
    summed = steps.added_totals(first, second)
    assert summed.hashes.tolist() == [5, 5, 7, 9] and summed.checks.tolist() == [1, 2, 4, 3]
    assert summed.totals.tolist() == [[1, 2, 1, 2], [2, 9, 7, 9], [0, 1, 0, 1]]
    # Added in any grouping of consecutive parts, as a tree of tasks adds them.
    assert steps.added_totals(steps.added_totals(first), second).totals.tolist() == summed.totals.tolist()
    found = steps.found_totals(second, summed)
    assert found.rows.tolist() == [0, 1, 2] and found.totals.tolist() == [[2, 2, 1], [9, 9, 7], [1, 1, 0]]
    stranger = totals([5], [8], [[1], [1], [1]])  # a first hash the sum has, with another check
    with pytest.raises(ValueError, match="missing"):
        steps.found_totals(stranger, summed)


def test_only_the_partitions_asked_for_are_scored():
    texts = [f"{r['title']}. {r['abstract']}" for r in planted_records(4)]
    papers = pd.DataFrame({"paper_id": [f"p{i}" for i in range(len(texts))]})
    sent = send_texts(texts, InProcess(), 3)
    ranges = sent.ranges
    handles = keywords_in_partitions(papers, sent, [1, 3], 10, InProcess())
    assert [h.result()["paper_id"].tolist() for h in handles] == [
        papers["paper_id"][a:b].tolist() for a, b in (ranges[1], ranges[3])
    ]
    whole = extract_keywords(texts, 10)
    assert [k for h in handles for k in h.result()["keywords"]] == [k for i in (1, 3) for k in whole[slice(*ranges[i])]]


def test_a_partitions_role_and_gerund_tallies_carry_only_units_that_can_move_a_decision(shared_data):
    # The agreements merge every partition's tallies in one task: at a million papers, every
    # partition's whole vocabulary took a worker past its memory limit.
    texts = analysis_texts(load_papers(shared_data / "ijcai2023.json").papers)[:400]
    read = steps.first_read(texts)
    units = steps.partition_units(read, steps.agree_lexicon(steps.counts_of(read)))
    roles_tally = steps.role_counts(units)
    assert 0 < len(roles_tally.keys) < len(units.vocab) and roles_tally.counts.any(axis=0).all()
    assert "" not in set(roles_tally.keys) and "," not in set(roles_tally.keys)  # punctuation: no word
    gerunds = steps.gerund_counts(units, steps.agree_roles(roles_tally))
    assert 0 < len(gerunds.keys) < len(units.vocab) / 10
    assert all(word.endswith("ing") for word in gerunds.keys) and (gerunds.counts[0] > 0).all()
