"""A process's freed memory given back to the system (`Trimmer`), so that what it holds between
tasks (a Dask worker) or stages (the build's own process) is what it keeps, not what its last one
once used.

glibc keeps the memory a task freed inside its heap for the next allocations, and returns it only
from the heap's top: a worker that had run the subfields' neighbour search held its peak between
tasks, memory Dask counts as "unmanaged" and never spills. `malloc_trim` returns every free page.
It is called only when much was freed (`mallinfo2`): each trim makes the next task fault its pages in
again, which on every task slowed the build (docs/cluster.md). And `mallinfo2` walks every free chunk
of the heap: on a worker of a million-paper build, called after every task, it kept the worker's
event loop busy all the time, so it is asked at most `CHECK_SHARE` of the time.

Arrow's buffers (a parquet file read or written, a table unpickled) come from its own allocator,
which keeps the pages of those freed too: each count first has it give back what it holds unused.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import sys
import time
from collections.abc import Callable
from functools import cache

log = logging.getLogger(__name__)

SLACK_BYTES = 64 * 2**20  # free bytes inside the heap past which a trim pays for its page faults
CHECK_SHARE = 0.01  # the most of a worker's time that counting its free heap (`mallinfo2`) may take
# glibc's struct mallinfo2, field by field in order.
_MALLINFO2_FIELDS = "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split()


class _Mallinfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in _MALLINFO2_FIELDS]


@cache
def _glibc() -> ctypes.CDLL | None:
    """The C library when it is glibc 2.33 or later (which has `mallinfo2`), else None."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
        libc.mallinfo2.restype = _Mallinfo2
        libc.malloc_trim.argtypes = [ctypes.c_size_t]
    except (OSError, AttributeError, TypeError):
        log.debug("no glibc with mallinfo2 here (%s): freed memory stays with the allocator", name)
        return None
    return libc


def free_heap_bytes() -> int | None:
    """Bytes freed but kept inside this process's malloc heaps (all arenas); None without glibc."""
    libc = _glibc()
    return None if libc is None else int(libc.mallinfo2().fordblks)


def release_arrow_pool() -> None:
    """Have Arrow's allocator give back the memory it keeps from freed buffers, when pyarrow is in use."""
    arrow = sys.modules.get("pyarrow")
    if arrow is not None:
        arrow.default_memory_pool().release_unused()


class Trimmer:
    """Gives this process's free heap pages back to the system (`malloc_trim`) each time the heap has
    freed more than `slack` bytes since its fullest use: since the last trim, or the least free seen
    after it. A trim leaves the freed bytes counted free (their pages are given back, not the heap's
    bookkeeping), so the free count alone would call it again and again for nothing.

    Counting the free heap takes as long as it has free chunks: after a count that took t seconds
    (by `clock`), calls within t / `CHECK_SHARE` seconds return at once."""

    def __init__(self, slack: int = SLACK_BYTES, clock: Callable[[], float] = time.monotonic) -> None:
        self.slack = slack
        self.clock = clock
        self.due = 0.0
        self.least_free = self._free_bytes()

    def _free_bytes(self) -> int | None:
        """`free_heap_bytes`, once Arrow's freed memory is given back, and when the next count is due."""
        start = self.clock()
        release_arrow_pool()
        free = free_heap_bytes()
        self.due = start + (self.clock() - start) / CHECK_SHARE
        return free

    def __call__(self) -> bool:
        """Trim if the heap freed more than `slack` since its fullest use; whether it did."""
        if self.clock() < self.due:
            return False
        free = self._free_bytes()
        if free is None or self.least_free is None:
            return False
        if free - self.least_free <= self.slack:
            self.least_free = min(self.least_free, free)
            return False
        _glibc().malloc_trim(0)  # type: ignore[union-attr]  # free_heap_bytes found it
        self.least_free = free
        return True
