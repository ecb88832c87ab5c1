"""The list's parse, in a fresh interpreter when the list is large, which also stores the papers table
in the build's cache: the build's own process reads it from there, as it would on a warm build.

Parsing a JSON list makes a Python object of every field of every record, and the table's own
objects (each paper's authors, keywords, sessions) are made among them. Once the parse's objects are
freed, the allocator keeps most of the pages they shared, and the build's process holds the table
through every later stage: on a large list, several times the table's own size (docs/cluster.md).
A worker process (`lib.builder.parallel.WorkerProcess`) parses a large list instead and writes the
table into the cache, where the build's process reads it: made whole in this process without the
garbage, and never pickled (which copied every text and held every list once more on each side).
Whatever goes wrong with the worker, this process parses the list itself, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lib.builder.parallel import WorkerProcess
from lib.errors import PaperMapError

if TYPE_CHECKING:
    import pandas as pd

APART_BYTES = 64 * 2**20  # inputs of more bytes than this are parsed in a worker process

Loaded = tuple["pd.DataFrame", dict[str, Any]]  # the papers table and its sidecar's fields (`parse`)
Store = Callable[["pd.DataFrame", dict[str, Any]], None]  # keeps a table and its sidecar's fields (`StagePut`)


def load_inputs(files: Sequence[Path], input_format: str, store: Store) -> None:
    """Parse the paper lists `files` (`lib.stages.load.load_papers`, or `load_lists` for several) into
    the papers table and its load report, and `store` them (picklable: the build's cache); in a worker
    process when they hold more than `APART_BYTES`, which stores them itself. Raises the `PaperMapError`
    the parse raised, wherever it ran."""
    if sum(_size(path) for path in files) <= APART_BYTES:
        store(*parse(files, input_format))
        return
    with WorkerProcess(purpose="parse") as worker:
        [handle] = worker.map([(_stored_or_error, (tuple(files), input_format, store))])
        error = handle.result()
    if error is not None:
        raise error


def parse(files: Sequence[Path], input_format: str) -> Loaded:
    """The papers table of `files`, and its load report and how its texts are read
    (`lib.schema.text_reading`, decided here on the whole table) as dicts, parsed in this process."""
    from lib.schema import text_reading
    from lib.stages.load import load_lists, load_papers

    result = load_papers(files[0], input_format) if len(files) == 1 else load_lists(files, input_format)
    reading = text_reading(result.papers).to_dict()
    return result.papers, {"report": result.report.to_dict(), "reading": reading}


def _stored_or_error(files: Sequence[Path], input_format: str, store: Store) -> PaperMapError | None:
    """`parse`, stored; its one-sentence error sent back as a value: raised, it would end the worker,
    and this process would log that as a failure and parse the list again to raise it here."""
    try:
        store(*parse(files, input_format))
    except PaperMapError as error:
        return error
    return None


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:  # the parse says what is wrong with the file, in one sentence
        return 0
