"""bench/synthetic_corpus.py's lists and bench/cluster.py's per-process sampling. No timing: machines are noisy."""

import os
import subprocess
import sys
import time

import pytest
from conftest import bench_module

synthetic = bench_module("synthetic_corpus")
cluster = bench_module("cluster")

CORPUS = [
    {
        "id": "a:1",
        "title": "Graphs",
        "author": "A",
        "venue": "a",
        "abstract": "Graphs are here. We cut them. It works!",
    },
    {
        "id": "a:2",
        "title": "Trees",
        "author": "B",
        "venue": "a",
        "abstract": "Trees grow. E.g. oaks do. We prune them.",
    },
    {"id": "b:1", "title": "Proteins", "author": "C", "venue": "b", "abstract": "Proteins fold. We model folding."},
    {"id": "b:2", "title": "Empty", "author": "D", "venue": "b", "abstract": " "},
]


def test_sentences_end_before_a_capital_only():
    assert synthetic.sentences("Trees grow. E.g. oaks do. We prune them.") == [
        "Trees grow.",
        "E.g. oaks do.",
        "We prune them.",
    ]
    assert synthetic.sentences("Fig. 3 shows it. Done") == ["Fig. 3 shows it.", "Done"]


def test_synthetic_papers_recombine_sentences_within_their_venue_reproducibly():
    records = list(synthetic.synthetic_records(CORPUS, 300, seed=0))
    assert records == list(synthetic.synthetic_records(CORPUS, 300, seed=0))
    assert records != list(synthetic.synthetic_records(CORPUS, 300, seed=1))
    assert len({r["id"] for r in records}) == 300
    bases = {r["title"]: r for r in CORPUS}
    assert "Empty" not in {r["title"] for r in records}  # a paper without an abstract is no base
    pools = {v: {s for r in CORPUS if r["venue"] == v for s in synthetic.sentences(r["abstract"])} for v in "ab"}
    for record in records:
        base = bases[record["title"]]
        assert record["venue"] == base["venue"] and record["id"].startswith(base["venue"] + ":synthetic-")
        parts = synthetic.sentences(record["abstract"])
        assert parts[0] == synthetic.sentences(base["abstract"])[0]
        assert set(parts) <= pools[record["venue"]]  # no sentence crosses venues
    # later sentences do mix: some paper took a sentence its base does not have
    assert any(
        set(synthetic.sentences(r["abstract"])) - set(synthetic.sentences(bases[r["title"]]["abstract"]))
        for r in records
    )


def test_a_written_corpus_is_one_json_list(tmp_path):
    import json

    (tmp_path / synthetic.CORPUS_FILE).write_text(json.dumps(CORPUS))
    out = synthetic.write_corpus(tmp_path / "out.json", 7, data_dir=tmp_path)
    written = json.loads(out.read_text())
    assert written == list(synthetic.synthetic_records(CORPUS, 7, seed=0))
    assert not (tmp_path / "out.json.partial").exists()


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads Linux's /proc")
def test_the_sampler_sees_the_whole_tree_and_names_the_driver():
    child = subprocess.Popen([sys.executable, "-c", "import time; x = bytearray(50_000_000); time.sleep(30)"])
    try:
        seen = {}
        for _ in range(100):  # until the child has its 50 MB
            total = cluster.sample_tree(os.getpid(), seen)
            if child.pid in seen and seen[child.pid].peak_mb > 50:
                break
            time.sleep(0.1)
        assert seen[os.getpid()].role == "driver" and seen[child.pid].role == cluster.OTHER
        assert seen[child.pid].peak_mb > 50 and total >= seen[child.pid].peak_mb
        assert seen[os.getpid()].cpu_seconds > 0
    finally:
        child.kill()
        child.wait()


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads Linux's /proc")
def test_a_process_met_before_its_command_line_is_named_once_it_has_one():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)", "-m", "lib.builder.parallel"])
    try:
        seen = {child.pid: cluster.Process(cluster.OTHER)}  # as if sampled mid-start
        for _ in range(100):  # this child may itself be mid-start at the first sample
            cluster.sample_tree(os.getpid(), seen)
            if seen[child.pid].role != cluster.OTHER:
                break
            time.sleep(0.05)
        assert seen[child.pid].role == "side worker"
    finally:
        child.kill()
        child.wait()


def test_a_worker_process_is_named_by_its_purpose():
    sleep = [sys.executable, "-c", "import time; time.sleep(30)", "-m", "lib.builder.parallel"]
    children = [
        subprocess.Popen(sleep + flag) for flag in ([], ["--purpose=parse"], ["--purpose=parse", "--background"])
    ]
    try:
        # A process is named by its command line, which the kernel sets part-way through its start:
        # met before that, it shows none (or its parent's) and is read again later.
        roles = [cluster.role_of(child.pid, os.getpid()) for child in children]
        for _ in range(100):
            if cluster.OTHER not in roles:
                break
            time.sleep(0.05)
            roles = [cluster.role_of(child.pid, os.getpid()) for child in children]
        assert roles == [
            "side worker",
            "parse worker",
            "parse worker",
        ]
    finally:
        for child in children:
            child.kill()
            child.wait()


def test_a_failed_build_is_reported_with_its_figures_until_it_ended():
    processes = {1: cluster.Process("driver", 11_000.0, 90.0), 2: cluster.Process("Dask worker", 4_000.0, 30.0)}
    case = cluster.Case(1_000_000, None)
    case.runs["Dask x2"] = [cluster.Run(300.0, processes, {}, 20_000.0, status=-9)]
    (row,) = cluster.summary_rows(case)
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[1] == "Dask x2: failed (exit -9) after" and cells[2] == "300.0"
    assert cells[5] == "90.0 (75%)" and cells[6:] == ["11,000", "4,000", "0", "20,000"]


def test_task_rows_rank_the_kinds_of_task_by_their_largest_rise():
    from lib.builder.task_memory import TaskMemoryRecord

    records = [
        TaskMemoryRecord("partition_tfidf", 1000, 1600, 1100, 2.0),
        TaskMemoryRecord("filed_table", 2000, 4200, 2100, 30.0),
        TaskMemoryRecord("partition_tfidf", 3000, 4300, 3200, 3.5),  # its kind's largest rise
        TaskMemoryRecord("text_sums_of", 500, 510, 505, 1.0),
    ]
    rows = cluster.task_rows(records, top=2)
    assert rows[2:] == [
        "| filed_table | 1 | 30.0 | 2,200 | 4,200 |",
        "| partition_tfidf | 2 | 5.5 | 1,300 | 4,300 |",
    ]
    assert len(cluster.task_rows(records)) == 2 + 3
