"""lib.builder.task_memory: each task's memory on a cluster's workers, as bench/cluster.py --task-memory reads it."""

import mmap
import os
import sys

import numpy as np
import pytest
from conftest import HashingEmbedder

from lib.builder.pipeline import build
from lib.builder.task_memory import TASK_MEMORY_ENV, TaskMemory, read_task_memory

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="a process's peak is reset through Linux's /proc"
)
MB = 2**20


def test_each_task_has_its_own_peak_the_last_ones_forgotten(tmp_path, monkeypatch):
    monkeypatch.setenv(TASK_MEMORY_ENV, str(tmp_path / "memory"))
    recorder = TaskMemory.from_environment()
    recorder.start()
    # New pages from the system, written: malloc could hand back memory the process already holds.
    held = mmap.mmap(-1, 64 * MB)
    np.frombuffer(held, dtype=np.uint8)[:] = 1
    recorder.end("holds 64 MB")
    held.close()
    recorder.start()
    recorder.end("holds nothing")
    first, second = read_task_memory(tmp_path / "memory")
    assert first.name == "holds 64 MB" and 60 <= first.rise_mb < 128
    assert first.end_mb - first.start_mb >= 60  # it still held them as it ended
    # The first's peak is not the second's: the peak is reset as each task starts.
    assert second.name == "holds nothing" and second.rise_mb < 16 and second.peak_mb < first.peak_mb - 48
    assert (tmp_path / "memory" / f"{os.getpid()}.tsv").exists()


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
