"""lib.builder.task_memory: each task's memory on a cluster's workers, as bench/cluster.py --task-memory reads it."""

import os
import subprocess
import sys

import pytest
from conftest import HashingEmbedder

from lib.builder.pipeline import build
from lib.builder.task_memory import TASK_MEMORY_ENV, TaskMemory, read_task_memory
from lib.paths import REPO_ROOT

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="a process's peak is reset through Linux's /proc"
)


# Two tasks in a process of their own, as on a worker: the test's process holds freed memory and
# threads of earlier tests, which would move its resident size on their own.
TWO_TASKS = """
import mmap
import numpy as np
from lib.builder.task_memory import TaskMemory

recorder = TaskMemory.from_environment()
recorder.start()
held = mmap.mmap(-1, 64 * 2**20)  # new pages from the system, written below: resident
np.frombuffer(held, dtype=np.uint8)[:] = 1
recorder.end("holds 64 MB")
held.close()
recorder.start()
recorder.end("holds nothing")
"""


def test_each_task_has_its_own_peak_the_last_ones_forgotten(tmp_path):
    folder = tmp_path / "memory"
    child = subprocess.Popen(
        [sys.executable, "-c", TWO_TASKS], cwd=REPO_ROOT, env=os.environ | {TASK_MEMORY_ENV: str(folder)}
    )
    assert child.wait() == 0
    first, second = read_task_memory(folder)
    assert first.name == "holds 64 MB" and 60 <= first.rise_mb < 128
    assert first.end_mb - first.start_mb >= 60  # it still held them as it ended
    # The first's peak is not the second's: the peak is reset as each task starts.
    assert second.name == "holds nothing" and second.rise_mb < 16 and second.peak_mb < first.peak_mb - 48
    assert [path.name for path in folder.iterdir()] == [f"{child.pid}.tsv"]


def test_nothing_is_recorded_unless_asked(monkeypatch):
    monkeypatch.delenv(TASK_MEMORY_ENV, raising=False)
    assert TaskMemory.from_environment() is None


def test_a_local_clusters_workers_record_each_task_they_run(planted_file, tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    from lib.builder.cluster import DaskRunner

    monkeypatch.setenv(TASK_MEMORY_ENV, str(tmp_path / "memory"))  # before the workers start: they inherit it
    with DaskRunner(workers=1) as runner:
        build(planted_file, cache_dir=tmp_path / "cache", embedder=HashingEmbedder(), runner=runner, partition_size=7)
    records = read_task_memory(tmp_path / "memory")
    files = list((tmp_path / "memory").glob("*.tsv"))
    assert len(files) == 1 and files[0].stem != str(os.getpid())  # the worker's, not this process's
    names = {record.name for record in records}
    assert {"found_topics", "filed_table"} <= names
    assert all(r.peak_mb >= r.start_mb > 0 and r.end_mb > 0 and r.seconds >= 0 for r in records)
