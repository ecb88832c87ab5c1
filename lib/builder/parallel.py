"""Per-paper stages partition by partition, through a runner: in this process, a worker process, or Dask.

The keywords table is computed in partitions: slices of the papers in order, `partition_size` each,
concatenated in paper order. A slice is scored with the whole list's `KeywordStatistics` (which words
are verbs, which acronyms two papers define, IDF), computed once first, so any partition size gives
the same table. Subfields compare every paper with the whole list (profiles, a neighbour graph over
the embeddings), so that stage is one task, started once the vectors are made; on Dask it runs on one
worker while the others score keyword partitions.
It is a background batch: in a worker process it runs at a lower priority than the build and the keywords.

A `Runner` takes calls and returns handles whose `result()` is the call's value:
- `InProcess` computes each call when its result is asked for (small lists: last, as before);
- `WorkerProcess` runs each batch of calls in a fresh interpreter running this module (`python -m
  lib.builder.parallel`), never a `multiprocessing` child: `spawn` re-imports the parent's main module,
  which under Streamlit is the running page script, so the child ran the dashboard itself and waited
  forever on the build lock its own parent held. The calls go to its standard input and the values
  come back on its standard output, pickled; its standard input closing (the build ended or was
  killed) ends it. Whatever goes wrong with it (it cannot start, dies, or sends nothing), the build
  logs a warning quoting the end of its standard error and computes what it lacks itself;
- `lib.builder.cluster.DaskRunner` submits them to a `dask.distributed` cluster.
Each finished keyword partition is stored in the cache under the stage's key and its range, so a
build that failed half-way (a cluster lost) finishes from the cache when run again.
"""

from __future__ import annotations

import logging
import os
import pickle
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, BinaryIO, Protocol

from lib.paths import REPO_ROOT

logger = logging.getLogger(__name__)
# How much of a failed worker's standard error its warning quotes: the end, where a traceback ends.
STDERR_TAIL = 2000

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from lib.builder.cache import ArtifactCache
    from lib.builder.text_partitions import SentParts

# How the worker is started; tests replace it with a command that fails.
WORKER_COMMAND = [sys.executable, "-m", "lib.builder.parallel"]
SIDE_STAGE_NAMES = ("subfields", "keywords")
# A background batch's worker runs this much nicer than the build: it takes the cores the build and
# the keywords leave, so those two, the build's longest paths, are not slowed by it.
BACKGROUND_FLAG = "--background"
BACKGROUND_NICENESS = 10
PARTITION_STAGE = "keywords-partition"  # the cache's folder for finished keyword partitions
# All the side stages read of the papers table besides the texts: the rest (abstracts, authors,
# sessions) would only be copied to the worker, a large copy on a corpus.
SIDE_COLUMNS = ["paper_id", "declared_area", "declared_subarea"]


class Handle(Protocol):
    def result(self) -> Any: ...


class Runner(Protocol):
    """Runs calls, maybe elsewhere; `map` returns one handle per call, in order. A `background` batch
    is on no critical path of the build: a runner that shares this machine's cores runs it at a lower
    priority, one that does not may ignore it."""

    # Whether a handle may be passed as an argument of a later call (Dask resolves it where the call
    # runs); otherwise the caller passes its value.
    passes_handles: bool

    def map(
        self, calls: list[tuple[Callable[..., Any], tuple[Any, ...]]], background: bool = False
    ) -> Sequence[Handle]: ...


def passed(runner: Runner, handle: Handle) -> Any:
    """A handle as a later call's argument: itself where the runner resolves handles (where the call
    runs, so a partition's data stays on its worker), else its value."""
    return handle if runner.passes_handles else handle.result()


def partition_ranges(n_papers: int, partition_size: int | None) -> list[tuple[int, int]]:
    """The `(start, stop)` slices of `n_papers` papers, `partition_size` each (None: one slice of all)."""
    if partition_size is not None and partition_size < 1:
        raise ValueError(f"partition_size must be a positive number of papers or None; got {partition_size!r}")
    size = partition_size or max(n_papers, 1)
    return [(start, min(start + size, n_papers)) for start in range(0, n_papers, size)]


def keywords_partition(papers: pd.DataFrame, texts: Sequence[str], top_n: int, statistics: Any) -> pd.DataFrame:
    """The keywords table of a slice of the papers, scored with the whole list's `statistics`."""
    from lib.stages.keywords import keywords_table

    return keywords_table(papers, texts, top_n, statistics)


def subfields_table(
    papers: pd.DataFrame, texts: Sequence[str], vectors: np.ndarray, taxonomy: Any, params: Any, counts: Any = None
) -> pd.DataFrame:
    """The subfields table of the whole list, its papers compared by `vectors` (`params` is the build's
    `BuildParams`; `counts` the texts' `lib.stages.phrases.phrase_counts`, when made beforehand; on a
    cluster, `lib.builder.subfield_partitions` instead)."""
    from lib.stages.declared_areas import file_papers

    declared = params.declared_areas
    return file_papers(
        papers, texts, taxonomy, params.subfield_min_score, vectors=vectors, use_declared=declared, counts=counts
    )


class _Later:
    """A call made when its result is first asked for, once."""

    def __init__(self, function: Callable[..., Any], arguments: tuple[Any, ...]) -> None:
        self.call: tuple[Callable[..., Any], tuple[Any, ...]] | None = (function, arguments)
        self.value: Any = None

    def result(self) -> Any:
        if self.call is not None:
            function, arguments = self.call
            self.value, self.call = function(*arguments), None
        return self.value


class InProcess:
    """Runs each call in this process when its result is asked for."""

    passes_handles = False

    def map(self, calls: list[tuple[Callable[..., Any], tuple[Any, ...]]], background: bool = False) -> list[Handle]:
        return [_Later(function, arguments) for function, arguments in calls]

    def __enter__(self) -> InProcess:
        return self

    def __exit__(self, *_: object) -> None:
        pass


class WorkerProcess:
    """Fresh interpreters beside this process, one per `map`, each running its batch of calls in order;
    a `purpose` is named on their command lines (`--purpose=parse`), so `ps` and benches tell them apart.

    Batches run side by side: the subfields, sent once embed is done, do not wait for the keywords
    (on a large list that wait was a large share of the build, this process idle meanwhile). Use as a
    context manager: leaving the block ends the workers (killed when the block raised).
    """

    passes_handles = False

    def __init__(self, purpose: str | None = None) -> None:
        self.purpose = [f"--purpose={purpose}"] if purpose else []
        self.workers: list[subprocess.Popen] = []
        self.closing = False  # set when the block ends: a worker stopped then has not failed

    def map(self, calls: list[tuple[Callable[..., Any], tuple[Any, ...]]], background: bool = False) -> list[Handle]:
        if not calls:  # every keyword partition was in the cache
            return []
        errors = tempfile.TemporaryFile()  # the worker's standard error, quoted if it fails
        try:
            worker = subprocess.Popen(
                WORKER_COMMAND + self.purpose + [BACKGROUND_FLAG] * background,
                cwd=REPO_ROOT,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=errors,
            )
        except OSError as error:  # no interpreter to start, no memory for it: compute here
            errors.close()
            logger.warning(
                "Could not start a worker process (%s); this process computes its %d calls.", error, len(calls)
            )
            return InProcess().map(calls)
        self.workers.append(worker)
        handles = [_Sent(function, arguments) for function, arguments in calls]
        # Sending happens beside the build too: the pipe takes the calls as fast as the worker,
        # still importing pandas, reads them.
        threading.Thread(target=self._talk, args=(worker, errors, calls, handles), daemon=True).start()
        return list(handles)  # the caller's copy: the talker keeps its own to answer

    def _talk(
        self,
        worker: subprocess.Popen,
        errors: BinaryIO,
        calls: list[tuple[Callable[..., Any], tuple[Any, ...]]],
        handles: list[_Sent],
    ) -> None:
        """Send the calls, then collect each value as it comes, until the worker ends or fails."""
        assert worker.stdin is not None and worker.stdout is not None  # `map` starts it with both pipes
        received = 0
        try:
            # Pickled whole, then written in one call: `pickle.dump` wrote a frame at a time and, between
            # frames, this thread waited for the GIL the build's Python held (a large list's texts took
            # many times longer to reach the keywords worker during embed than one write takes).
            worker.stdin.write(pickle.dumps(calls, protocol=pickle.HIGHEST_PROTOCOL))
            worker.stdin.flush()
            for handle in handles:
                handle.arrive(pickle.load(worker.stdout))
                received += 1
        except Exception as error:  # the worker died or garbled its answer: each handle computes what it lacks here
            # At once: the build goes on while the warning waits for the worker's exit status.
            for handle in handles:
                handle.arrive(None, sent=False)
            if not self.closing:
                logger.warning(
                    "A worker process failed (%s: %s) after %d of %d results; this process computes the rest.%s",
                    type(error).__name__,
                    error,
                    received,
                    len(handles),
                    _quoted_tail(worker, errors),
                )
        finally:
            errors.close()
            for handle in handles:
                handle.arrive(None, sent=False)

    def __enter__(self) -> WorkerProcess:
        return self

    def __exit__(self, error: type[BaseException] | None, *_: object) -> None:
        self.closing = True
        for worker in self.workers:
            if error is not None:
                worker.kill()
            for pipe in (worker.stdin, worker.stdout):
                assert pipe is not None  # `map` starts every worker with both pipes
                try:
                    pipe.close()  # the worker's stdin closing tells it to stop
                except OSError:
                    pass
            worker.wait()


def _quoted_tail(worker: subprocess.Popen, errors: BinaryIO) -> str:
    """The end of what a failed worker wrote to its standard error, and its exit status, for a warning."""
    try:
        status = worker.wait(timeout=5)
    except subprocess.TimeoutExpired:
        status = None
    errors.seek(0, os.SEEK_END)
    errors.seek(max(0, errors.tell() - STDERR_TAIL))
    tail = errors.read().decode("utf-8", "replace").strip()
    return f" Its exit status: {status}." + (f" The end of its standard error:\n{tail}" if tail else "")


class _Sent:
    """A call sent to the worker process: its value when the worker sends it, else computed here."""

    def __init__(self, function: Callable[..., Any], arguments: tuple[Any, ...]) -> None:
        self.local: _Later | None = _Later(function, arguments)
        self.done = threading.Condition()
        self.state: tuple[bool, Any] | None = None  # (sent by the worker, value)

    def arrive(self, value: Any, sent: bool = True) -> None:
        with self.done:
            if self.state is None:
                self.state = (sent, value)
                if sent:  # its arguments, kept in case the worker failed, are not needed any more
                    self.local = None
                self.done.notify_all()

    def result(self) -> Any:
        with self.done:
            self.done.wait_for(lambda: self.state is not None)
            assert self.state is not None  # what `wait_for` waited for
            sent, value = self.state
        if sent:
            return value
        assert self.local is not None  # dropped only once the worker sent the value
        return self.local.result()


def start_keywords(
    papers: pd.DataFrame,
    texts: Sequence[str],
    params: Any,
    runner: Runner,
    cache: ArtifactCache,
    keywords_key: str,
    partition_size: int | None = None,
    sent: SentParts | None = None,
) -> Handle:
    """Start the keywords stage on `runner`; the handle's result is the whole table, each partition
    stored in the cache as it comes (and those already there not computed again). `sent`: the texts
    on `runner` when it is a cluster, in partitions of `partition_size` (else sent here)."""
    papers = papers[SIDE_COLUMNS]
    ranges = partition_ranges(len(papers), partition_size)
    keys = [_partition_key(keywords_key, start, stop) for start, stop in ranges]
    cached = {key: hit.value for key in keys if (hit := cache.get(PARTITION_STAGE, key)) is not None}
    todo = [i for i, key in enumerate(keys) if key not in cached]
    handles: Sequence[Handle] = []
    if len(ranges) == 1 and todo:
        # One partition is the whole list: its statistics come from the same texts, in the same pass.
        handles = runner.map([(keywords_partition, (papers, texts, params.top_keywords, None))])
    elif todo and runner.passes_handles:
        # On a cluster the statistics too are counted a partition per task, where each one's texts went.
        from lib.builder.keyword_partitions import keywords_in_partitions
        from lib.builder.text_partitions import send_texts

        sent = send_texts(texts, runner, partition_size) if sent is None else sent
        handles = keywords_in_partitions(papers, sent, todo, params.top_keywords, runner)
    elif todo:
        # Computed once, before any partition: every slice is scored against the whole list.
        from lib.stages.keywords import keyword_statistics

        statistics = keyword_statistics(texts)
        parts = [ranges[i] for i in todo]
        handles = runner.map(
            [(keywords_partition, (papers.iloc[a:b], texts[a:b], params.top_keywords, statistics)) for a, b in parts]
        )
    return _Joined(dict(zip([keys[i] for i in todo], handles)), keys, cached, cache)


def start_subfields(
    papers: pd.DataFrame,
    texts: Sequence[str],
    vectors: np.ndarray,
    taxonomy: Any,
    params: Any,
    runner: Runner,
    counts: Any = None,
) -> Handle:
    """Start the subfields stage on `runner`; the handle's result is its table (`counts`: see `subfields_table`)."""
    # In the background: the keywords, started first, take longer, and the build's own stages are ahead
    # of it. On a large list and two cores, sharing them in three equal parts made the keywords the
    # build's tail; in the background the build was faster.
    call = (subfields_table, (papers[SIDE_COLUMNS], texts, vectors, taxonomy, params, counts))
    return runner.map([call], background=True)[0]


def _partition_key(stage_key: str, start: int, stop: int) -> str:
    from lib.builder.cache import make_key

    return make_key(PARTITION_STAGE, stage_key, start, stop)


class _Joined:
    """The keywords table from its partitions, each stored in the cache as soon as it is collected."""

    def __init__(
        self, running: dict[str, Handle], keys: list[str], cached: dict[str, Any], cache: ArtifactCache
    ) -> None:
        self.running, self.keys, self.tables, self.cache = running, keys, cached, cache

    def result(self) -> pd.DataFrame:
        import pandas as pd

        failure: BaseException | None = None
        for key, handle in self.running.items():
            # Every partition that finished is kept, even after one failed: a rerun computes only the rest.
            try:
                self.tables[key] = handle.result()
            except Exception as error:
                failure = failure or error
                continue
            self.cache.put(PARTITION_STAGE, key, self.tables[key], {})
        if failure is not None:
            raise failure
        return pd.concat([self.tables[key] for key in self.keys], ignore_index=True)


def _exit_when_closed(stream: BinaryIO) -> None:
    """In the worker: end at once when the build closes our input, as it does when it ends or dies
    (SIGKILL, the OOM killer), instead of computing for nobody while holding the papers."""

    def watch() -> None:
        stream.read()
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def _serve() -> None:
    """The worker: read the calls, send back each one's value as it is made."""
    # Results get their own copy of stdout; anything a library prints goes to stderr instead of into them.
    results = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    if BACKGROUND_FLAG in sys.argv[1:] and hasattr(os, "nice"):  # POSIX only
        os.nice(BACKGROUND_NICENESS)
    calls = pickle.load(sys.stdin.buffer)
    _exit_when_closed(sys.stdin.buffer)
    for function, arguments in calls:
        pickle.dump(function(*arguments), results, protocol=pickle.HIGHEST_PROTOCOL)
        results.flush()
    results.close()
    # Straight out: a normal interpreter shutdown would wait on the watcher's read of stdin, which the
    # build keeps open, and abort ("could not acquire lock for <stdin>", SIGABRT).
    os._exit(0)


if __name__ == "__main__":
    _serve()
