"""Freed memory given back (lib.builder.heap): a trim after much was freed inside the heap lowers the
process's resident memory, a second call with nothing newly freed does not trim, the free heap is
counted at most a share of the time, and a build offers a trim after each of its steps."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lib.builder.heap import SLACK_BYTES, Trimmer, free_heap_bytes

pytestmark = pytest.mark.skipif(free_heap_bytes() is None, reason="needs glibc's mallinfo2 (Linux)")

BLOCK = 4096  # bytes per object: past Python's small-object allocator, so each is glibc's


def unthrottled(slack: int = SLACK_BYTES) -> Trimmer:
    """A Trimmer whose counts take no time by its clock, so it counts at every call: what a count decides."""
    return Trimmer(slack=slack, clock=lambda: 0.0)


def resident_bytes() -> int:
    return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def freed_inside_heap(total: int) -> list[bytes]:
    """Allocate `total` bytes in small blocks, keep one block in 64, free the rest: freed memory the
    kept blocks pin inside the heap, which glibc does not return by itself. Returns the kept blocks."""
    blocks = [bytes(BLOCK) for _ in range(total // BLOCK)]
    kept = blocks[::64]
    del blocks
    return kept


def test_a_trim_after_much_was_freed_gives_the_pages_back():
    trim = unthrottled()
    kept = freed_inside_heap(8 * SLACK_BYTES)
    before = resident_bytes()
    assert free_heap_bytes() > SLACK_BYTES
    assert trim()
    assert before - resident_bytes() > 4 * SLACK_BYTES  # most of the 8 slacks freed: the kept blocks pin few pages
    assert not trim(), "nothing was freed since the last trim: a second one would only cost page faults"
    del kept


def test_no_trim_below_the_slack():
    trim = unthrottled(slack=16 * SLACK_BYTES)
    kept = freed_inside_heap(2 * SLACK_BYTES)
    assert not trim()
    del kept


def test_memory_reused_then_freed_again_counts_anew():
    trim = unthrottled()
    kept = freed_inside_heap(4 * SLACK_BYTES)
    assert trim()
    refilled = [bytes(BLOCK) for _ in range(4 * SLACK_BYTES // BLOCK)]  # uses the freed heap again
    assert not trim()
    del refilled  # freed anew: more than the slack since the heap's fullest use
    assert trim()
    del kept


def test_a_count_has_arrow_give_back_the_memory_of_its_freed_buffers():
    import pyarrow as pa

    trim = unthrottled()
    texts = pa.array([f"paper {i} " * 20 for i in range(300_000)])  # some 50 MB from Arrow's allocator
    copies = [pa.concat_arrays([texts, texts]) for _ in range(4)]
    del texts, copies
    assert pa.total_allocated_bytes() < SLACK_BYTES
    before = resident_bytes()
    trim()
    assert before - resident_bytes() > 4 * SLACK_BYTES  # most of the 450 MB Arrow freed


def test_the_free_heap_is_counted_at_most_a_share_of_the_time(monkeypatch):
    from lib.builder import heap

    now, counts = [0.0], []

    def slow_count():  # a heap of many free chunks: each count takes 0.1 s
        counts.append(now[0])
        now[0] += 0.1
        return 0

    monkeypatch.setattr(heap, "free_heap_bytes", slow_count)
    trim = Trimmer(clock=lambda: now[0])
    for _ in range(1_000):  # a task's end every 20 ms
        trim()
        now[0] += 0.02
    gaps = [later - earlier for earlier, later in zip(counts, counts[1:])]
    assert len(counts) > 1 and min(gaps) >= 0.1 / heap.CHECK_SHARE
    assert sum(0.1 for _ in counts) <= heap.CHECK_SHARE * now[0] + 0.1  # at most 1% of the time, and the first count


def test_a_build_offers_a_trim_after_its_load_and_each_step(planted_file, tmp_path, monkeypatch):
    from lib.builder import pipeline
    from lib.builder.runner import StageRunner

    steps: list[str] = []
    run = StageRunner.run

    def recorded_run(self, name):
        steps.append(name)
        return run(self, name)

    class RecordedTrimmer(Trimmer):
        def __call__(self) -> bool:
            steps.append("trim")
            return super().__call__()

    monkeypatch.setattr(StageRunner, "run", recorded_run)
    monkeypatch.setattr(pipeline, "Trimmer", RecordedTrimmer)
    pipeline.build(planted_file, cache_dir=tmp_path / "cache")
    ran = [i for i, step in enumerate(steps) if step != "trim"]
    assert steps[ran[0]] == "load" and len(ran) >= 4
    # The list's parse, the vectors and the placement are freed before the next step builds on them.
    assert all(steps[i + 1] == "trim" for i in ran)
