"""Keywords and subfields in a second process while the build embeds, projects and finds topics.

The worker is a fresh interpreter running this module (`python -m lib.build.parallel`), never a
`multiprocessing` child: `spawn` re-imports the parent's main module, which under Streamlit is the
running page script, so the child ran the dashboard itself and waited forever on the build lock
its own parent held. The worker imports no page script and no Streamlit. The arguments go to the worker's
standard input and each stage's table comes back on its standard output, both pickled; its
standard input closing (the build ended or was killed) ends the worker. Whatever goes wrong with
the worker (it cannot start, dies, or sends nothing), the build computes what it lacks itself.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import threading
from typing import TYPE_CHECKING, Any, BinaryIO

from lib.paths import REPO_ROOT

if TYPE_CHECKING:
    import pandas as pd

# How the worker is started; tests replace it with a command that fails.
WORKER_COMMAND = [sys.executable, "-m", "lib.build.parallel"]
SIDE_STAGE_NAMES = ("keywords", "subfields")


def side_stage(name: str, papers: pd.DataFrame, texts: list[str], taxonomy: Any, params: Any) -> pd.DataFrame:
    """The keywords or subfields table of `papers` (`params` is the build's `BuildParams`)."""
    if name == "keywords":
        from lib.stages.keywords import keywords_table

        return keywords_table(papers, texts, params.top_keywords)
    if name == "subfields":
        from lib.stages.declared_areas import file_papers

        return file_papers(
            papers,
            texts,
            taxonomy,
            params.subfield_min_score,
            random_state=params.random_state,
            use_declared=params.declared_areas,
        )
    raise ValueError(f"side stage must be one of {SIDE_STAGE_NAMES}, not {name!r}")


class SideStages:
    """The side stages `names` of one build: run by a worker process when `in_worker`, else here.

    `result(name)` returns a stage's table: the worker's when it sent one, otherwise computed in this
    process when asked for. The results are the same either way. Use as a context manager: leaving
    the block ends the worker (killed when the block raised).
    """

    def __init__(self, names: list[str], arguments: tuple[Any, ...], in_worker: bool) -> None:
        self.arguments = arguments
        self.results: dict[str, pd.DataFrame] = {}
        self.worker: subprocess.Popen | None = None
        self.done = threading.Condition()
        self.finished = True  # no worker sends anything more
        if in_worker and names:
            self._start(names)

    def _start(self, names: list[str]) -> None:
        try:
            self.worker = subprocess.Popen(
                WORKER_COMMAND, cwd=REPO_ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
            )
        except OSError:  # no interpreter to start, no memory for it: compute here
            return
        self.finished = False
        # Sending happens beside the build too: the pipe takes the arguments as fast as the worker,
        # still importing pandas, reads them.
        threading.Thread(target=self._talk, args=(names,), daemon=True).start()

    def _talk(self, names: list[str]) -> None:
        """Send the work, then collect each table as it comes, until the worker ends or fails."""
        try:
            pickle.dump((names, self.arguments), self.worker.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            self.worker.stdin.flush()
            for _ in names:
                name, table = pickle.load(self.worker.stdout)
                with self.done:
                    self.results[name] = table
                    self.done.notify_all()
        except Exception:  # the worker died or garbled its answer: `result` computes what it lacks here
            pass
        finally:
            with self.done:
                self.finished = True
                self.done.notify_all()

    def result(self, name: str) -> pd.DataFrame:
        """Stage `name`'s table, waiting for the worker while it still may send it."""
        with self.done:
            self.done.wait_for(lambda: name in self.results or self.finished)
            table = self.results.pop(name, None)
        return side_stage(name, *self.arguments) if table is None else table

    def __enter__(self) -> SideStages:
        return self

    def __exit__(self, error: type[BaseException] | None, *_: object) -> None:
        if self.worker is None:
            return
        if error is not None:
            self.worker.kill()
        for pipe in (self.worker.stdin, self.worker.stdout):
            try:
                pipe.close()  # the worker's stdin closing tells it to stop
            except OSError:
                pass
        self.worker.wait()


def _exit_when_closed(stream: BinaryIO) -> None:
    """In the worker: end at once when the build closes our input, as it does when it ends or dies
    (SIGKILL, the OOM killer), instead of computing for nobody while holding the papers."""

    def watch() -> None:
        stream.read()
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def _serve() -> None:
    """The worker: read the stage names and arguments, send back each stage's table as it is made."""
    # Results get their own copy of stdout; anything a library prints goes to stderr instead of into them.
    results = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    names, arguments = pickle.load(sys.stdin.buffer)
    _exit_when_closed(sys.stdin.buffer)
    for name in names:
        pickle.dump((name, side_stage(name, *arguments)), results, protocol=pickle.HIGHEST_PROTOCOL)
        results.flush()
    results.close()
    # Straight out: a normal interpreter shutdown would wait on the watcher's read of stdin, which the
    # build keeps open, and abort ("could not acquire lock for <stdin>", SIGABRT).
    os._exit(0)


if __name__ == "__main__":
    _serve()
