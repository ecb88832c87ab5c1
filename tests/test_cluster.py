"""The Dask path (lib.builder.cluster): the same map on any number of workers and partitions, a worker
killed mid-build losing no paper, and one sentence when there is no cluster to use."""

import os
import signal
import sys
import threading
import time

import numpy as np
import pandas as pd
import pytest
from conftest import HashingEmbedder, planted_records

from lib.builder.cluster import DaskRunner
from lib.builder.pipeline import BuildParams, build
from lib.cli import main
from lib.errors import ClusterError
from lib.map_folder import read_papers
from lib.stages.embed import TfidfSvdEmbedder

pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def two_workers():
    with DaskRunner(workers=2) as runner:
        yield runner


@pytest.fixture
def in_one_process(planted_file, tmp_path):
    return build(planted_file, cache_dir=tmp_path / "one_process", embedder=HashingEmbedder()).papers


def on_cluster(planted_file, cache, runner, partition_size):
    return build(
        planted_file, cache_dir=cache, embedder=HashingEmbedder(), runner=runner, partition_size=partition_size
    )


def _stages_imported() -> bool:
    import sys

    stages = ("lib.stages.keywords", "lib.stages.declared_areas", "lib.stages.tfidf_partitions", "lib.stages.project")
    stages += ("lib.stages.phrase_partitions",)
    return all(name in sys.modules for name in stages)


def test_workers_import_the_stages_before_any_task_restarted_ones_too():
    # Else a task's first imports race the unpickling of another's SciPy arguments on the worker's
    # other thread, and Python's import locks fail one of them (a `_DeadlockError`).
    with DaskRunner(workers=1) as runner:
        assert list(runner.client.run(_stages_imported).values()) == [True]
        runner.client.restart()
        assert list(runner.client.run(_stages_imported).values()) == [True]


@pytest.mark.parametrize("partition_size", [7, 50, None])
def test_two_workers_give_the_map_of_one_process(planted_file, tmp_path, in_one_process, two_workers, partition_size):
    built = on_cluster(planted_file, tmp_path / "cache", two_workers, partition_size)
    pd.testing.assert_frame_equal(in_one_process, built.papers)


def test_a_build_sized_for_the_cluster_splits_the_list_two_partitions_per_thread(
    planted_file, tmp_path, in_one_process, two_workers, monkeypatch
):
    import lib.builder.partition_sizes
    from lib.builder.cache import ArtifactCache
    from lib.builder.parallel import PARTITION_STAGE

    monkeypatch.setattr(lib.builder.partition_sizes, "SMALLEST_CLUSTER_PARTITION", 1)  # the planted list is small
    built = on_cluster(planted_file, tmp_path / "cache", two_workers, "auto")
    pd.testing.assert_frame_equal(in_one_process, built.papers)
    cache = ArtifactCache(tmp_path / "cache")
    folder = tmp_path / "cache" / PARTITION_STAGE
    sizes = sorted(len(cache.get(folder.name, path.stem).value) for path in folder.glob("*.json"))
    n = len(in_one_process)
    assert sum(sizes) == n and len(sizes) == 4  # two threads, each given two partitions
    assert sizes[-1] == -(-n // 4)


def test_one_worker_gives_the_same_map(planted_file, tmp_path, in_one_process):
    with DaskRunner(workers=1) as runner:
        pd.testing.assert_frame_equal(in_one_process, on_cluster(planted_file, tmp_path / "cache", runner, 7).papers)


def test_topics_made_again_on_a_cluster_count_their_own_phrases(planted_file, tmp_path, two_workers):
    # With the subfields in the cache, no phrases are counted for them: the topics count theirs there.
    cache, params = tmp_path / "cache", BuildParams(n_topics=2)
    on_cluster(planted_file, cache, two_workers, 7)
    again = build(
        planted_file, cache_dir=cache, embedder=HashingEmbedder(), runner=two_workers, partition_size=7, params=params
    )
    assert {run.name for run in again.stages if not run.cached} == {"topics", "write"}
    alone = build(planted_file, cache_dir=tmp_path / "alone", embedder=HashingEmbedder(), params=params)
    pd.testing.assert_frame_equal(alone.papers, again.papers)


@pytest.mark.parametrize(
    "embedder, vectors",
    [
        (HashingEmbedder(), "held"),  # embedded in the build's process, then sent
        (TfidfSvdEmbedder(n_components=8), "partition_vectors"),  # kept where the embedding made them
    ],
)
def test_the_build_lets_go_of_the_texts_vectors_and_phrase_counts_once_their_readers_are_sent(
    planted_file, tmp_path, two_workers, embedder, vectors
):
    # At a million papers they waited on the workers beside the subfields' filing until the build's
    # end; once the topics have sent their tasks, only the tasks still to run hold them.
    sent = {vectors, "renumbered", "agreed_phrases"}

    def held():
        # The client lets go of a future on its own thread: a moment after the build dropped it.
        deadline = time.monotonic() + 10
        while True:
            kinds = {str(key).split("-")[0] for key, count in list(two_workers.client.refcount.items()) if count}
            if not kinds & sent or time.monotonic() > deadline:
                return kinds

    seen = {}
    build(
        planted_file,
        cache_dir=tmp_path / "cache",
        embedder=embedder,
        runner=two_workers,
        partition_size=7,
        progress=lambda stage, done, total: (
            seen.setdefault(stage, held()) if stage in ("topics", "subfields") else None
        ),
    )
    # The vectors, the phrase counts (`renumbered`) and the list's phrases (`agreed_phrases`) before
    # the topics, not after.
    assert sent <= seen["topics"] and not sent & seen["subfields"]


def test_a_worker_killed_mid_build_loses_no_paper(planted_file, tmp_path, in_one_process, two_workers):
    address, pid = next(iter(two_workers.client.run(os.getpid).items()))
    built, failed = [], []

    def run():
        try:
            built.append(on_cluster(planted_file, tmp_path / "cache", two_workers, 1))  # 36 partitions
        except Exception as error:
            failed.append(error)

    builder = threading.Thread(target=run)
    builder.start()
    # Killed as soon as it runs one of the build's tasks (a fixed wait lost the race: the build ended first).
    deadline = time.monotonic() + 60
    while not two_workers.client.processing(workers=[address]).get(address) and time.monotonic() < deadline:
        time.sleep(0.005)
    assert builder.is_alive(), "the build ended before a worker could be killed"
    os.kill(pid, signal.SIGKILL)
    builder.join(timeout=120)
    assert not failed, failed
    pd.testing.assert_frame_equal(in_one_process, built[0].papers)
    assert pid not in two_workers.client.run(os.getpid).values(), "the killed worker is still there"


def test_no_scheduler_at_the_address_is_one_sentence(planted_file, tmp_path, capsys):
    status = main(
        ["build", str(planted_file), "--out", str(tmp_path / "out"), "--scheduler", "tcp://127.0.0.1:9", "--quiet"]
    )
    err = capsys.readouterr().err
    assert (
        status == 2
        and err.startswith("error: cannot reach the Dask scheduler at tcp://127.0.0.1:9")
        and err.count("\n") == 1
    )


def test_the_cli_builds_on_local_workers_the_map_it_builds_without(planted_file, tmp_path, capsys):
    def cli(*extra):
        out = tmp_path / f"out{len(extra)}"
        status = main(
            ["build", str(planted_file), "--out", str(out), "--cache", str(tmp_path / f"c{len(extra)}"), *extra]
        )
        assert status == 0 and "Built a map of 36 papers" in capsys.readouterr().out
        return read_papers(out / "papers.parquet")

    pd.testing.assert_frame_equal(cli(), cli("--workers", "2", "--partition-size", "5"))


def test_local_workers_keep_to_the_memory_given_and_by_default_leave_the_build_a_share():
    import distributed

    def limits(runner):
        return [worker["memory_limit"] for worker in runner.client.scheduler_info()["workers"].values()]

    def environment(*names):
        return [os.environ.get(name) for name in names]

    with DaskRunner(workers=1, worker_memory=2**30) as runner:
        assert limits(runner) == [2**30]  # past 60% of it a worker spills what it holds to disk
        # BLAS keeps its threads (the map's bits depend on them), and the allocator its thresholds.
        names = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MALLOC_TRIM_THRESHOLD_")
        assert list(runner.client.run(environment, *names).values()) == [environment(*names)]
    with DaskRunner(workers=2) as runner:
        shares = limits(runner)
    assert len(shares) == 2 and 3 * shares[0] <= distributed.system.MEMORY_LIMIT < 3 * shares[0] + 3


@pytest.mark.parametrize(
    ("flags", "problem"),
    [
        (["--workers", "1", "--worker-memory", "0.1"], "--worker-memory must be at least 0.5 GB; got 0.1"),
        (["--workers", "1", "--worker-memory", "nan"], "--worker-memory must be at least 0.5 GB; got nan"),
        (["--worker-memory", "4"], "--worker-memory sets the memory of --workers processes; give --workers too"),
    ],
)
def test_a_worker_memory_the_cluster_cannot_keep_to_is_refused_before_any_work(
    planted_file, tmp_path, capsys, flags, problem
):
    status = main(["build", str(planted_file), "--out", str(tmp_path / "out"), "--cache", str(tmp_path / "c"), *flags])
    assert status == 2 and capsys.readouterr().err == f"error: {problem}\n"
    assert not (tmp_path / "out").exists() and not (tmp_path / "c").exists()


def test_a_task_whose_workers_keep_dying_is_one_sentence():
    # Past `allowed-failures` deaths of the workers running one task the scheduler gives it up
    # (KilledWorker): the build says so in one sentence instead of a Dask traceback.
    import dask

    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), DaskRunner(workers=1) as runner:
        (dying,) = runner.map([(os._exit, (1,))])  # the worker process ends mid-task
        with pytest.raises(ClusterError, match=r"^Dask workers died running .*too often to try again; rerun"):
            dying.result()


def test_a_cluster_that_goes_away_is_one_sentence(planted_file, tmp_path):
    runner = DaskRunner(workers=1).__enter__()
    runner.__exit__(None)  # closed before the build: its futures are cancelled
    with pytest.raises(ClusterError, match="Dask"):
        on_cluster(planted_file, tmp_path / "cache", runner, 7)


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_the_embedding_and_map_on_any_number_of_workers_are_the_one_process_ones(
    planted_file, tmp_path, workers, monkeypatch
):
    # The TF-IDF and SVD run on the workers a partition at a time (lib.builder.embed_partitions), the
    # map's placement a block at a time (lib.builder.project_partitions): 20 of the 36 papers sampled
    # for the SVD and for the map's fit, the other 16 placed in blocks of 5, as a corpus's are.
    import lib.schema
    import lib.stages.project

    monkeypatch.setattr(lib.stages.project, "PLACE_BLOCK", 5)
    made, read_texts = [], lib.schema.read_texts  # how many papers' texts each call made, in this process
    monkeypatch.setattr(
        lib.schema, "read_texts", lambda papers, how: made.append(len(papers)) or read_texts(papers, how)
    )

    def built(name, **where):
        out = tmp_path / name
        embedder = TfidfSvdEmbedder(n_components=8, svd_sample=20)
        params = BuildParams(map_sample=20)
        build(
            planted_file, out_dir=out, cache_dir=tmp_path / f"cache-{name}", embedder=embedder, params=params, **where
        )
        return {f: (out / f).read_bytes() for f in ("embeddings.npy", "query_model.npz", "papers.parquet")}

    from distributed import get_task_stream

    with DaskRunner(workers=workers) as runner, get_task_stream(runner.client) as tasks:
        on_workers = built("cluster", runner=runner, partition_size=5)
    names = [task["key"] for task in tasks.data]
    assert sum(name.startswith("partition_vectors") for name in names) == 8  # 36 papers in fives
    assert sum(name.startswith("bucket_vocabulary") for name in names) == 3  # terms in 3 buckets (8 partitions)
    assert sum(name.startswith("placed_rows") for name in names) == 4  # 16 placed papers in fives
    assert sum(name.startswith("renumbered") for name in names) == 8  # the shared phrase counts, in fives
    # The keywords' statistics in fives too, agreed in one small task per round; the phrases' totals
    # in 3 buckets (8 partitions), each bucket's added in one task of its tree and each five's share
    # looked up in it; then each five scored.
    assert sum(name.startswith("count_phrases") for name in names) == 8
    rounds = ("agree_lexicon", "agree_roles", "agree_gerunds", "agree_statistics", "added_tails")
    assert [sum(name.startswith(f"{agree}-") for name in names) for agree in rounds] == [1, 1, 1, 1, 1]
    phrase_totals = ("bucket_totals", "added_totals", "found_totals")
    assert [sum(name.startswith(f"{task}-") for name in names) for task in phrase_totals] == [24, 3, 24]
    assert sum(name.startswith("scored") for name in names) == 8
    # The texts went to the workers once, a partition per task, for the keywords, the embedding and
    # the phrase counts; the vectors never: the map's placement and the subfields read them where
    # the embedding made them.
    assert sum(name.startswith("unpacked_texts-") for name in names) == 8
    assert not any(name.startswith("held-") for name in names)
    # The build's process made the texts a partition at a time, as it sent them: never all at once.
    assert made == [5] * 7 + [1]
    # The subfields: the phrases' users summed in one task (8 partitions: one of the sums' tree),
    # each five's own-word scores made where its counts are and joined in one task, the vectors
    # joined as unit rows in another, the graph made in a third (36 papers: the exact one), then
    # the papers filed in one task.
    subfields = ("entry_counts", "phrase_users", "entry_scorer", "scores", "joined_scores", "joined_units")
    assert [sum(name.startswith(f"{task}-") for name in names) for task in subfields] == [1, 1, 1, 8, 1, 1]
    assert [sum(name.startswith(f"{task}-") for name in names) for task in ("knn_graph", "filed_table")] == [1, 1]
    # The topics found in one task; their texts' sums a five at a time, and their phrase keys' in 3
    # ranges (8 partitions), each range's a five at a time; each added in one task of its sums'
    # tree, the ranges' rarest keys let go; labelled in one task.
    topics = ("found_topics", "text_sums_of", "added_texts", "key_sums_of", "added_keys", "pruned")
    assert [sum(name.startswith(f"{task}-") for name in names) for task in topics] == [1, 8, 1, 24, 3, 3]
    assert sum(name.startswith("labelled_from_sums-") for name in names) == 1
    assert on_workers == built("one-process")


def test_a_worker_counts_what_a_partitions_texts_weigh():
    # Dask spills what it counts: it counted a partition's texts by their pointers, and a worker
    # holding a million papers' went past its limit.
    from dask.sizeof import sizeof

    from lib.builder.sizes import register_sizes

    register_sizes(sizeof)
    texts = [f"{r['title']}. {r['abstract']}" for r in planted_records(12)]
    held = np.array(texts, dtype=object)
    strings = sum(map(sys.getsizeof, texts))
    assert 0.8 * strings < sizeof(held) - held.nbytes < 1.25 * strings
    numbers = np.arange(1000, dtype=np.float32)
    assert sizeof(numbers) == numbers.nbytes
