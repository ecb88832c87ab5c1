"""The Dask runner of lib.builder.parallel: a `LocalCluster` of worker processes here, or a user's cluster by address.

Optional: `dask` and `distributed` come from requirements-dask.txt. Tasks lost with a worker are run
again by the scheduler on another one (up to `distributed.scheduler.allowed-failures` times); past
that, or when the cluster itself goes, the build stops with a `ClusterError` sentence, and what
already finished stays in the cache for the next run.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from typing import Any

from lib.errors import ClusterError

DASK_REQUIREMENTS = "requirements-dask.txt"
CONNECT_TIMEOUT = 10  # seconds to reach a scheduler before giving up


def _dask() -> tuple[Any, Any]:
    """The `dask` and `distributed` modules, or a `ClusterError` saying what to install."""
    try:
        import dask
        import distributed
    except ImportError:
        raise ClusterError(f"--workers and --scheduler need Dask: pip install -r {DASK_REQUIREMENTS}") from None
    return dask, distributed


def _stage_importer(dask: Any, distributed: Any) -> Any:
    """A worker plugin importing the stages' modules on each worker, restarted ones too, before its first task.

    A worker unpickles a large task's arguments (the subfields' phrase counts, a SciPy matrix) on a
    thread of its own while its task thread runs the keyword statistics, each importing SciPy and
    scikit-learn for the first time: Python's import locks then stopped one of them with a
    `_DeadlockError` (one build in six of a 36-paper list on a 1-worker cluster). It also tells the
    worker what the partitions' results weigh (`lib.builder.sizes`), so that it spills them in time,
    and after each task or result let go gives back the memory they freed (`lib.builder.heap`).
    When asked (`lib.builder.task_memory`), it records each task's memory. Made here, where Dask
    is known to be installed; it reaches the workers pickled by value.
    """

    class ImportStages(distributed.WorkerPlugin):
        name = "papermap-import-stages"

        def setup(self, worker: Any) -> None:
            import lib.builder.parallel
            import lib.builder.stages_table
            import lib.stages.declared_areas
            import lib.stages.keywords.partitions
            import lib.stages.phrase_partitions
            import lib.stages.project
            import lib.stages.tfidf_partitions
            import lib.stages.topic_labels
            import lib.stages.topics  # noqa: F401
            from lib.builder.heap import Trimmer
            from lib.builder.sizes import register_sizes
            from lib.builder.task_memory import TaskMemory

            register_sizes(dask.sizeof.sizeof)
            self.trim = Trimmer()
            self.memory = TaskMemory.from_environment()

        def transition(self, key: Any, start: str, finish: str, **kwargs: Any) -> None:
            if self.memory is not None and finish == "executing":
                self.memory.start()
            elif self.memory is not None and start == "executing":
                self.memory.end(dask.utils.key_split(key))
            if start in ("executing", "memory") and finish in ("memory", "released", "error"):
                self.trim()  # a task's temporaries or a result freed

    return ImportStages()


def _local_cluster(workers: int, memory_limit: int) -> Any:
    """A `LocalCluster` of `workers` one-thread processes, each keeping to `memory_limit` bytes.

    Processes, not threads: the stages are pure Python, held by the GIL. A nanny writes its pre-spawn
    variables (OMP_NUM_THREADS=1 and the like) into this process's own environment at every worker
    start, restarts included, and leaves them: every process started later from here (a worker
    interpreter, a test's CLI run) then computed with one BLAS thread, and the map's topics came out
    differently. So none: the stages on the workers are pure Python, or limit BLAS themselves
    (lib.stages.subfields). Nor the allocator's trim threshold: setting it also stops glibc raising
    its threshold for mapping large blocks, so NumPy's temporaries are mapped afresh, which slowed
    the map's placement and the topics (docs/cluster.md). The PYTHONHASHSEED a nanny adds as well
    only fixes later children's string hashing; it is undone here after the first start.
    """
    dask, distributed = _dask()
    environment = dict(os.environ)
    try:
        with dask.config.set({"distributed.nanny.pre-spawn-environ": {}}):
            return distributed.LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",  # any free port
                memory_limit=memory_limit,
            )
    finally:
        os.environ.clear()
        os.environ.update(environment)


def default_worker_memory(workers: int) -> int:
    """Bytes each of a local cluster's `workers` may use: the machine's memory (or this process's
    limit on it), shared equally by the workers and the build's own process."""
    _, distributed = _dask()
    return int(distributed.system.MEMORY_LIMIT // (workers + 1))


class _Future:
    """A Dask future whose failure is one sentence."""

    def __init__(self, future: Any) -> None:
        self.future = future

    def result(self) -> Any:
        _, distributed = _dask()
        try:
            return self.future.result()
        except distributed.client.FutureCancelledError:
            raise ClusterError("the Dask cluster went away before the build's work finished; run it again") from None
        except distributed.KilledWorker as error:
            raise ClusterError(
                f"Dask workers died running {error.task}, too often to try again; rerun to go on from the cache"
            ) from None
        except (OSError, TimeoutError) as error:
            raise ClusterError(
                f"lost the Dask cluster during the build ({error}); rerun to go on from the cache"
            ) from None


class DaskRunner:
    """Runs calls on a Dask cluster: a new `LocalCluster` of `workers` processes (one thread each), or
    the one at `scheduler` (never started or stopped here). Use as a context manager.

    Each local worker keeps to `worker_memory` bytes (default: the machine's memory shared equally by
    the workers and this process, which loads the list and writes the map): past 60% of it a worker
    spills the partitions' results it holds to its local disk, at 80% it takes no new task until it
    is back under, at 95% its nanny restarts it and its tasks run again (Dask's thresholds)."""

    passes_handles = True

    def __init__(
        self, *, workers: int | None = None, scheduler: str | None = None, worker_memory: int | None = None
    ) -> None:
        if (workers is None) == (scheduler is None):
            raise ValueError("give a number of workers or a scheduler address, one of them")
        if workers is not None and workers < 1:
            raise ClusterError(f"--workers must be at least 1; got {workers}")
        if worker_memory is not None and scheduler is not None:
            raise ClusterError(
                "--worker-memory sets a local cluster's workers; the cluster at --scheduler sets its own"
            )
        self.workers, self.scheduler, self.worker_memory = workers, scheduler, worker_memory
        self.cluster: Any = None
        self.client: Any = None
        self.batches = 0  # batches sent so far: each one's priority

    def __enter__(self) -> DaskRunner:
        dask, distributed = _dask()
        try:
            if self.workers is not None:
                self.cluster = _local_cluster(self.workers, self.worker_memory or default_worker_memory(self.workers))
                self.client = distributed.Client(self.cluster)
            else:
                self.client = distributed.Client(self.scheduler, timeout=CONNECT_TIMEOUT)
            self.client.register_plugin(_stage_importer(dask, distributed))
        except (OSError, TimeoutError) as error:
            self.__exit__(None)
            where = f"the Dask scheduler at {self.scheduler}" if self.scheduler else "a local Dask cluster"
            raise ClusterError(f"cannot reach {where} ({error})") from None
        return self

    def threads(self) -> int:
        """How many threads the cluster's workers have now (at least 1): what partitions are sized for."""
        return max(1, sum(self.client.nthreads().values()))

    def map(self, calls: list[tuple[Callable[..., Any], tuple[Any, ...]]], background: bool = False) -> list[_Future]:
        """Submit `calls` as tasks. A newer batch goes ahead of older ones still waiting, a `background`
        one after all: the build sends a batch when it is about to wait for it (the embed stage's
        steps), so a side stage's tasks sent at the start (the keywords') fill the workers' idle time
        instead of standing in front of it."""
        closed = _dask()[1].client.ClosedClientError
        self.batches += 1
        priority = -1 if background else self.batches
        # pure=False: each call is its own task, even when two calls are the same (no result shared by key).
        # Each task carries its own slice of the papers, sent once, so Dask's "large graph" advice does not apply.
        warnings.filterwarnings("ignore", message="Sending large graph", category=UserWarning)
        try:
            return [
                _Future(
                    self.client.submit(
                        function,
                        *[a.future if isinstance(a, _Future) else a for a in arguments],
                        pure=False,
                        priority=priority,
                    )
                )
                for function, arguments in calls
            ]
        except (closed, OSError, TimeoutError) as error:
            raise ClusterError(f"cannot send the build's work to the Dask cluster ({error})") from None

    def __exit__(self, *_: object) -> None:
        for part in (self.client, self.cluster):
            if part is not None:
                part.close()
