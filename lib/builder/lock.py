"""The lock a build holds while it writes an output folder: a second build of the same folder
(another dashboard session, another shell) waits for it and then finds the map made instead of
computing it again."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from lib.files import exclusive_lock

LOCKS_FOLDER = "locks"  # in the cache folder, so a build refused for bad input leaves no output folder
LOCK_POLL_SECONDS = 0.2


@contextmanager
def build_lock(out_dir: Path | None, cache_dir: Path, waiting: Callable[[], None]) -> Iterator[None]:
    """Hold the build lock of `out_dir` for the block, calling `waiting` while another build holds it.

    The lock is a file in the cache's locks folder named for the folder's absolute path; builds
    sharing a cache folder (as all dashboard sessions do) take turns. An `flock` dies with the
    process holding it, so a build killed at any point never leaves the folder locked. The wait
    polls, so a dashboard session stopped while waiting stops. No output folder needs no lock.
    """
    if out_dir is None:
        yield
        return
    lock_path = cache_dir / LOCKS_FOLDER / f"{hashlib.sha256(str(out_dir.resolve()).encode()).hexdigest()[:24]}.lock"
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "a") as lock:  # closing it releases the lock
        while not exclusive_lock(lock.fileno(), wait=False):
            waiting()
            time.sleep(LOCK_POLL_SECONDS)
        yield
