"""The keywords/subfields runners (lib.builder.parallel): the same tables as one process, from any main
script and any partition size, a build that finishes whatever happens to the worker, and partitions
kept in the cache."""

import logging
import os
import pickle
import subprocess
import sys
import textwrap
import time

import pandas as pd
import pytest
from conftest import REPO, HashingEmbedder

import lib.builder.parallel
import lib.builder.pipeline
from lib.builder.pipeline import build

WORKER = [sys.executable, "-m", "lib.builder.parallel"]
# The worker, run by a wrapper that first creates the file {mark}: proof that a build started it.
RECORDING = "open({mark!r}, 'w').close(); import runpy; runpy.run_module('lib.builder.parallel', run_name='__main__')"


def run(path, tmp_path, cache):
    return build(path, cache_dir=tmp_path / cache, embedder=HashingEmbedder())


@pytest.fixture
def worker_allowed(monkeypatch):
    """Builds of the small planted list use the worker, as a list of 1,000 papers does."""
    monkeypatch.setattr(lib.builder.pipeline, "SIDE_STAGES_FROM", 10)
    monkeypatch.setattr("os.cpu_count", lambda: 2)


@pytest.fixture
def in_one_process(planted_file, tmp_path):
    return run(planted_file, tmp_path, "one_process").papers


def recording_worker(tmp_path, monkeypatch):
    """The worker, started through a wrapper that leaves a file behind: proof that it ran."""
    mark = tmp_path / "worker_ran"
    monkeypatch.setattr(
        lib.builder.parallel, "WORKER_COMMAND", [sys.executable, "-c", RECORDING.format(mark=str(mark))]
    )
    return mark


def test_tables_from_the_worker_equal_those_made_in_one_process(
    planted_file, tmp_path, in_one_process, worker_allowed, monkeypatch
):
    def not_here(self):
        raise AssertionError("a side stage was computed in the build process, not sent by the worker")

    monkeypatch.setattr(lib.builder.parallel._Later, "result", not_here)  # the worker, another process, keeps its own
    pd.testing.assert_frame_equal(in_one_process, run(planted_file, tmp_path, "worker").papers)


def test_the_worker_sends_each_table_and_exits_cleanly(planted_file):
    from lib.builder.pipeline import BuildParams
    from lib.paths import DEFAULT_TAXONOMY
    from lib.schema import PAPER_COLUMNS, analysis_texts, conform
    from lib.stages.load import load_papers
    from lib.stages.taxonomy import load_taxonomy

    papers = conform(load_papers(planted_file).papers, PAPER_COLUMNS)
    texts = analysis_texts(papers)
    vectors = HashingEmbedder().embed(texts)
    calls = [
        (lib.builder.parallel.keywords_partition, (papers, texts, 10, None)),
        (
            lib.builder.parallel.subfields_table,
            (papers, texts, vectors, load_taxonomy(DEFAULT_TAXONOMY), BuildParams()),
        ),
    ]
    worker = subprocess.Popen(WORKER, cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    pickle.dump(calls, worker.stdin)
    worker.stdin.flush()  # and left open, as the build leaves it
    try:
        sent = [pickle.load(worker.stdout) for _ in range(2)]
        returncode = worker.wait(timeout=60)
    finally:
        worker.kill()
        worker.stdin.close()
    assert returncode == 0, worker.stderr.read().decode(errors="replace")[-500:]
    for table, (function, arguments) in zip(sent, calls):
        pd.testing.assert_frame_equal(table, function(*arguments), obj=function.__name__)


def test_each_batch_runs_in_its_own_worker_beside_the_others():
    # The subfields, sent once the vectors are made, must not wait for the keywords sent before them.
    with lib.builder.parallel.WorkerProcess() as runner:
        started = time.time()
        first = runner.map([(time.sleep, (3.0,)), (os.getpid, ())])
        second = runner.map([(time.time, ()), (os.getpid, ())])
        ran_at, second_pid = second[0].result(), second[1].result()
        assert first[0].result() is None
        first_pid = first[1].result()
    assert len({first_pid, second_pid, os.getpid()}) == 3
    assert ran_at < started + 3.0, "the second batch waited for the first"


@pytest.mark.skipif(not os.path.exists("/proc/self/cmdline"), reason="reads the worker's command line from /proc")
def test_a_worker_names_its_purpose_on_its_command_line():
    from pathlib import Path

    own_command_line = (Path.read_bytes, (Path("/proc/self/cmdline"),))
    with lib.builder.parallel.WorkerProcess(purpose="parse") as named, lib.builder.parallel.WorkerProcess() as plain:
        [named_line], [plain_line] = named.map([own_command_line]), plain.map([own_command_line])
        assert b"--purpose=parse" in named_line.result().split(b"\0")
        assert b"lib.builder.parallel" in plain_line.result() and b"--purpose" not in plain_line.result()


@pytest.mark.skipif(not hasattr(os, "nice"), reason="process priority is POSIX's")
def test_a_background_batch_runs_nicer_than_the_build_and_a_foreground_one_does_not():
    own = os.nice(0)  # os.nice(0) changes nothing and tells the niceness
    with lib.builder.parallel.WorkerProcess() as runner:
        foreground = runner.map([(os.nice, (0,))])[0]
        background = runner.map([(os.nice, (0,))], background=True)[0]
        assert foreground.result() == own
        assert background.result() == min(19, own + lib.builder.parallel.BACKGROUND_NICENESS) > own


def test_the_subfields_are_sent_as_a_background_batch():
    class Recording(lib.builder.parallel.InProcess):
        batches: list = []

        def map(self, calls, background=False):
            self.batches.append(([function.__name__ for function, _ in calls], background))
            return super().map(calls, background)

    runner = Recording()  # its calls run only when asked for: none is
    lib.builder.parallel.start_subfields(
        pd.DataFrame(columns=lib.builder.parallel.SIDE_COLUMNS), [], None, None, None, runner
    )
    assert runner.batches == [(["subfields_table"], True)]


def test_small_lists_and_cached_stages_start_no_worker(planted_file, tmp_path, monkeypatch):
    ran = recording_worker(tmp_path, monkeypatch)
    run(planted_file, tmp_path, "cache")  # 36 papers: below SIDE_STAGES_FROM
    assert not ran.exists()
    monkeypatch.setattr(lib.builder.pipeline, "SIDE_STAGES_FROM", 10)
    run(planted_file, tmp_path, "cache")  # large enough now, but keywords and subfields are cached
    assert not ran.exists()
    # As a build killed after storing its one keyword partition, before the stage: nothing left to send.
    for artifact in (tmp_path / "cache" / "keywords").iterdir():
        artifact.unlink()
    again = run(planted_file, tmp_path, "cache")
    assert not ran.exists()
    assert [s.name for s in again.stages if not s.cached] == ["keywords", "write"]


@pytest.mark.parametrize(
    "command, failure, logged",
    [
        (["/nonexistent/python3"], "cannot start", "Could not start a worker process"),
        ([sys.executable, "-c", "raise SystemExit('out of luck')"], "exits at once", "out of luck"),
        (
            [sys.executable, "-c", "import sys; sys.stdin.buffer.read(10); print('not a table')"],
            "answers garbage",
            "after 0 of 1 results",
        ),
        (
            [sys.executable, "-c", "import os, sys; sys.stdin.buffer.read(10); os.kill(os.getpid(), 9)"],
            "is killed",
            "Its exit status: -9.",
        ),
    ],
)
def test_a_worker_that_fails_leaves_the_build_to_finish_in_one_process_and_says_so(
    planted_file, tmp_path, in_one_process, worker_allowed, monkeypatch, caplog, command, failure, logged
):
    monkeypatch.setattr(lib.builder.parallel, "WORKER_COMMAND", command)
    with caplog.at_level(logging.WARNING, logger="lib.builder.parallel"):
        pd.testing.assert_frame_equal(in_one_process, run(planted_file, tmp_path, "failing").papers, obj=failure)
    assert any(logged in record.getMessage() for record in caplog.records), caplog.text


def test_a_worker_that_finishes_logs_nothing(planted_file, tmp_path, worker_allowed, caplog):
    with caplog.at_level(logging.WARNING, logger="lib.builder.parallel"):
        run(planted_file, tmp_path, "clean")
    assert not caplog.records, caplog.text


def test_the_worker_never_runs_the_main_script_of_the_process_that_builds(planted_file, tmp_path):
    # As under `streamlit run dashboard.py`: the building process's main module is a script whose
    # import would run the app again. multiprocessing's spawn imported it in the child, which
    # then waited forever on the build lock its parent held.
    script = tmp_path / "page_script.py"
    imported_again = tmp_path / "imported_again"
    mark = tmp_path / "worker_ran"
    worker = [sys.executable, "-c", RECORDING.format(mark=str(mark))]
    script.write_text(
        textwrap.dedent(f"""
        import sys, time
        if __name__ != "__main__":
            open({str(imported_again)!r}, "w").close()
            time.sleep(3600)
        sys.path.insert(0, {str(REPO)!r})
        import os
        import lib.builder.parallel, lib.builder.pipeline
        lib.builder.pipeline.SIDE_STAGES_FROM = 10
        os.cpu_count = lambda: 2
        lib.builder.parallel.WORKER_COMMAND = {worker!r}
        result = lib.builder.pipeline.build({str(planted_file)!r}, cache_dir={str(tmp_path / "cache")!r},
                                    out_dir={str(tmp_path / "out")!r})
        print(result.counts["papers"])
    """)
    )
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["36"]
    assert not imported_again.exists(), "the worker imported the main script"
    assert mark.exists(), "the build did not start the worker"


def test_partitions_cover_every_paper_once_in_order():
    assert lib.builder.parallel.partition_ranges(36, 7) == [(0, 7), (7, 14), (14, 21), (21, 28), (28, 35), (35, 36)]
    assert lib.builder.parallel.partition_ranges(36, None) == [(0, 36)] == lib.builder.parallel.partition_ranges(36, 50)
    with pytest.raises(ValueError, match="partition_size"):
        lib.builder.parallel.partition_ranges(36, 0)


@pytest.mark.parametrize("partition_size", [1, 7, 50])
def test_any_partition_size_gives_the_same_map(planted_file, tmp_path, in_one_process, partition_size):
    # Keywords score each slice against the whole list's statistics: a slice alone would judge
    # IDF and verbs by its own few papers.
    built = build(
        planted_file,
        cache_dir=tmp_path / "parts",
        embedder=HashingEmbedder(),
        runner=lib.builder.parallel.InProcess(),
        partition_size=partition_size,
    )
    pd.testing.assert_frame_equal(in_one_process, built.papers)


def test_a_build_that_fails_part_way_keeps_its_finished_partitions(planted_file, tmp_path, in_one_process, monkeypatch):
    real = lib.builder.parallel.keywords_partition
    calls = []

    def failing_once(papers, texts, top_n, statistics):
        calls.append(papers["paper_id"].iloc[0])
        if len(calls) == 3:
            raise OSError("worker lost")
        return real(papers, texts, top_n, statistics)

    monkeypatch.setattr(lib.builder.parallel, "keywords_partition", failing_once)
    options = {
        "cache_dir": tmp_path / "cache",
        "embedder": HashingEmbedder(),
        "runner": lib.builder.parallel.InProcess(),
    }
    with pytest.raises(OSError, match="worker lost"):
        build(planted_file, partition_size=10, **options)  # 4 partitions; the third fails
    calls.clear()
    pd.testing.assert_frame_equal(in_one_process, build(planted_file, partition_size=10, **options).papers)
    assert len(calls) == 1, "the rerun computed again partitions that had finished"
