"""A Dask worker's freed memory given back (lib.builder.heap): a trim after much was freed inside the
heap lowers the process's resident memory, and a second call with nothing newly freed does not trim."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lib.builder.heap import SLACK_BYTES, Trimmer, free_heap_bytes

pytestmark = pytest.mark.skipif(free_heap_bytes() is None, reason="needs glibc's mallinfo2 (Linux)")

BLOCK = 4096  # bytes per object: past Python's small-object allocator, so each is glibc's


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
    trim = Trimmer()
    kept = freed_inside_heap(8 * SLACK_BYTES)
    before = resident_bytes()
    assert free_heap_bytes() > SLACK_BYTES
    assert trim()
    assert before - resident_bytes() > 4 * SLACK_BYTES  # most of the 8 slacks freed: the kept blocks pin few pages
    assert not trim(), "nothing was freed since the last trim: a second one would only cost page faults"
    del kept


def test_no_trim_below_the_slack():
    trim = Trimmer(slack=16 * SLACK_BYTES)
    kept = freed_inside_heap(2 * SLACK_BYTES)
    assert not trim()
    del kept


def test_memory_reused_then_freed_again_counts_anew():
    trim = Trimmer()
    kept = freed_inside_heap(4 * SLACK_BYTES)
    assert trim()
    refilled = [bytes(BLOCK) for _ in range(4 * SLACK_BYTES // BLOCK)]  # uses the freed heap again
    assert not trim()
    del refilled  # freed anew: more than the slack since the heap's fullest use
    assert trim()
    del kept
