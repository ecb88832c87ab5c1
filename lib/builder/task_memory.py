"""Each task's memory on a local cluster's workers, for measuring it (`bench/cluster.py --task-memory`).

With `TASK_MEMORY_ENV` naming a folder when the cluster starts, each of its workers writes a line
per task it runs to `<folder>/<its pid>.tsv`: the task's name (its key's prefix), the worker's
resident MB as the task started (what it held, the task's inputs among it), its peak while the task
ran, its resident MB as the task ended, and the task's seconds (`TaskMemoryRecord`). A build's
workers run one task at a time, so the peak is that task's, with whatever the worker did beside it
(taking other tasks' inputs, spilling, reading the task's own inputs back from disk).

Linux only: the peak is the kernel's high-water mark (`VmHWM`), reset as each task starts through
/proc/self/clear_refs. Where that cannot be done nothing is written, and a warning says so.
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path
from typing import NamedTuple

log = logging.getLogger(__name__)

TASK_MEMORY_ENV = "PAPERMAP_TASK_MEMORY"
_STATUS = Path("/proc/self/status")
_CLEAR_REFS = Path("/proc/self/clear_refs")
_RESET_PEAK = "5"  # clear_refs' code for resetting the high-water mark (proc(5))


class TaskMemoryRecord(NamedTuple):
    """One task's line: its name, the worker's resident MB at its start, peak and end, its seconds."""

    name: str
    start_mb: float
    peak_mb: float
    end_mb: float
    seconds: float

    @property
    def rise_mb(self) -> float:
        """How far above what the worker held at its start the task took it."""
        return self.peak_mb - self.start_mb


class TaskMemory:
    """A worker's recorder: `start` as a task starts, `end` as it ends."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / f"{os.getpid()}.tsv"
        self._started: tuple[float, float] | None = None

    @classmethod
    def from_environment(cls) -> TaskMemory | None:
        """A recorder into the folder `TASK_MEMORY_ENV` names; None when it names none, or this
        system cannot reset a process's peak."""
        folder = os.environ.get(TASK_MEMORY_ENV)
        if not folder:
            return None
        try:
            _reset_peak()
            Path(folder).mkdir(parents=True, exist_ok=True)
        except OSError as error:
            log.warning("%s=%s: no task's memory is recorded (%s)", TASK_MEMORY_ENV, folder, error)
            return None
        return cls(Path(folder))

    def start(self) -> None:
        _reset_peak()
        self._started = (time.perf_counter(), _status_mb()[0])

    def end(self, name: str) -> None:
        """Write the task `name`'s line (nothing when no start was seen: the worker's first transition)."""
        if self._started is None:
            return
        began, start_mb = self._started
        self._started = None
        end_mb, peak_mb = _status_mb()
        with self.path.open("a", encoding="utf-8") as out:
            out.write(f"{name}\t{start_mb:.0f}\t{peak_mb:.0f}\t{end_mb:.0f}\t{time.perf_counter() - began:.3f}\n")


def read_task_memory(folder: Path) -> list[TaskMemoryRecord]:
    """Every line the workers wrote into `folder`, worker by worker."""
    records = []
    for path in sorted(folder.glob("*.tsv")):
        for line in path.read_text(encoding="utf-8").splitlines():
            name, *numbers = line.split("\t")
            records.append(TaskMemoryRecord(name, *map(float, numbers)))
    return records


def _reset_peak() -> None:
    _CLEAR_REFS.write_text(_RESET_PEAK)


def _status_mb() -> tuple[float, float]:
    """This process's resident MB now and at its peak since the last reset."""
    fields = dict(line.split(":", 1) for line in _STATUS.read_text().splitlines())
    resident, peak = (int(fields[key].split()[0]) / 1024 for key in ("VmRSS", "VmHWM"))  # kB
    return resident, peak
