"""The list's parse, in a fresh interpreter when the list is large, so that the build's own process
holds the papers table and not what parsing it left behind.

Parsing a JSON list makes a Python object of every field of every record, and the table's own
objects (each paper's authors, keywords, sessions) are made among them. Once the parse's objects are
freed, the allocator keeps most of the pages they shared, and the build's process holds the table
through every later stage: on a large list, several times the table's own size (docs/cluster.md).
A worker process (`lib.builder.parallel.WorkerProcess`) parses a large list instead and sends the
table back, pickled: the same table, made whole in this process without the garbage. Whatever goes
wrong with the worker, this process parses the list itself, as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lib.builder.parallel import WorkerProcess
from lib.errors import PaperMapError

if TYPE_CHECKING:
    import pandas as pd

APART_BYTES = 64 * 2**20  # inputs of more bytes than this are parsed in a worker process

Loaded = tuple["pd.DataFrame", dict[str, Any]]  # the papers table and {"report": the load report as a dict}


def load_inputs(files: Sequence[Path], input_format: str) -> Loaded:
    """The papers table of the paper lists `files` (`lib.stages.load.load_papers`, or `load_lists`
    for several) and its load report; parsed in a worker process when they hold more than
    `APART_BYTES`. Raises the `PaperMapError` the parse raised, wherever it ran."""
    if sum(_size(path) for path in files) <= APART_BYTES:
        return parse(files, input_format)
    with WorkerProcess(purpose="parse") as worker:
        [handle] = worker.map([(_parse_or_error, (tuple(files), input_format))])
        loaded = handle.result()
    if isinstance(loaded, PaperMapError):
        raise loaded
    return loaded


def parse(files: Sequence[Path], input_format: str) -> Loaded:
    """`load_inputs`, in this process."""
    from lib.stages.load import load_lists, load_papers

    result = load_papers(files[0], input_format) if len(files) == 1 else load_lists(files, input_format)
    return result.papers, {"report": result.report.to_dict()}


def _parse_or_error(files: Sequence[Path], input_format: str) -> Loaded | PaperMapError:
    """`parse`, its one-sentence error sent back as a value: raised, it would end the worker, and this
    process would log that as a failure and parse the list again to raise it here."""
    try:
        return parse(files, input_format)
    except PaperMapError as error:
        return error


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:  # the parse says what is wrong with the file, in one sentence
        return 0
