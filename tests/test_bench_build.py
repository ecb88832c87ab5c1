"""bench/build.py's pure helpers, and the floor's settings matching the embedder's. No timing: machines are noisy."""

import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import bench_module

bench = bench_module("build")


def test_median_and_growth_exponent():
    assert bench.median([3.0, 1.0, 2.0]) == 2.0 and bench.median([]) is None
    assert bench.growth_exponent(1000, 2.0, 2000, 4.0) == pytest.approx(1.0)
    assert bench.growth_exponent(10_000, 1.0, 100_000, 100.0) == pytest.approx(2.0)
    assert bench.growth_exponent(10, 5.0, 20, 5.0) == 0.0
    assert bench.growth_exponent(10, None, 20, 5.0) is None and bench.growth_exponent(10, 1.0, 10, 2.0) is None


def test_exponent_pairs_are_consecutive_plus_ten_thousand_to_the_corpus():
    assert bench.exponent_pairs([10_000, 3340, 87_691, 30_000]) == [
        (3340, 10_000),
        (10_000, 30_000),
        (30_000, 87_691),
        (10_000, 87_691),
    ]
    assert bench.exponent_pairs([3340, 10_000]) == [(3340, 10_000)] and bench.exponent_pairs([3340]) == []


def test_mark():
    assert bench.mark(0.25, 0.25) == "met" and bench.mark(0.26, 0.25) == "not met"
    assert bench.mark(None, 4) == "not measured"


def test_sampling_is_deterministic_and_nested():
    records = [{"id": i} for i in range(1000)]
    small, again, large = (bench.sample_records(records, n, seed=0) for n in (100, 100, 300))
    assert small == again and large[:100] == small and len({r["id"] for r in large}) == 300
    assert bench.sample_records(records, 100, seed=1) != small
    assert bench.sample_records(records, 5000) == records


def case(kind, n, **medians):
    c = bench.Case(f"{kind} {n}", kind, n, Path("x.json"))
    for who, (seconds, peak) in medians.items():
        c.runs[who] = [bench.Run(seconds, peak, {})]
    return c


def test_goal_rows_mark_each_goal():
    cold, warm, plain, peer = bench.COLD, bench.WARM, bench.PLAIN_FLOOR, bench.PEER
    cases = [
        case("abstracts", 3340, **{cold: (5.0, 500), warm: (0.1, 300), plain: (2.0, 200), peer: (30.0, 900)}),
        case("abstracts", 10_000, **{cold: (8.0, 600), warm: (1.5, 300), plain: (4.0, 300)}),
        case("abstracts", bench.FULL_SIZE, **{cold: (100.0, 5000), warm: (3.0, 400), plain: (20.0, 900)}),
    ]
    rows = {goal: status for goal, _, status in bench.goal_rows(cases)}
    # 3,340: 2.5x the floor (met), 0.17x BERTopic (not met); 87,691: 5x the floor, no BERTopic;
    # the cache hit 0.05x the floor; 5,000 MB; growth 1.19 against the floor's 0.32.
    assert list(rows.values()) == ["met", "not met", "not met", "not measured", "met", "not met", "not met"]
    assert all(status == "not measured" for _, _, status in bench.goal_rows([]))


def test_floor_embeds_with_the_embedders_settings():
    from lib.stages.embed import _TFIDF_SETTINGS, TfidfSvdEmbedder

    floor = bench_module("floor_build")
    embedder = TfidfSvdEmbedder()
    assert floor.TFIDF_SETTINGS == _TFIDF_SETTINGS and floor.NGRAM_MAX == embedder.ngram_max
    assert (floor.N_COMPONENTS, floor.RANDOM_STATE) == (embedder.n_components, embedder.random_state)
    texts = [f"paper {i} on topic {i % 7} with words w{i % 11} and w{i % 13}" for i in range(60)]
    np.testing.assert_allclose(np.abs(floor.embed(texts)), np.abs(embedder.embed(texts)), atol=1e-4)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_peak_memory_counts_the_processes_a_contender_starts(tmp_path):
    # A build's keywords and subfields run in a second process: its memory is part of the build's.
    child = "import time; block = bytearray(300_000_000); time.sleep(1.5)"
    parent = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {child!r}])"
    _, peak_mb, status, _, _ = bench.run_process([sys.executable, "-c", parent], tmp_path / "log")
    assert status == 0 and peak_mb >= 300
