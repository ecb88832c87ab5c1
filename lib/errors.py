"""The few named errors PaperMap raises, and `read_error`, the sentence for a file that cannot be read;
the CLI and the pages print them as one sentence."""

from __future__ import annotations

from os import PathLike


class PaperMapError(Exception):
    """Base class: its message is a complete sentence meant for the user."""


class InputError(PaperMapError):
    """A paper list that cannot be read at all (missing, empty, undecodable, malformed)."""


class TaxonomyError(PaperMapError):
    """A taxonomy file that is missing or does not have the documented shape."""


class ParameterError(PaperMapError, ValueError):
    """A stage parameter outside its allowed values."""


class DataSetError(PaperMapError):
    """A data set that cannot be offered or saved (an upload too large, not a paper list)."""


class FetchError(PaperMapError):
    """A paper list that could not be downloaded (offline, no answer, an error status, not a list)."""


class HTTPStatusError(FetchError):
    """A server that answered with an error status; `status`, `body` and `retry_after` (its
    Retry-After header, if any) say what it sent."""

    def __init__(self, message: str, status: int, body: bytes = b"", retry_after: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.body = body
        self.retry_after = retry_after


class OfflineError(FetchError):
    """A server that could not be reached at all (refused, unresolvable, timed out)."""


class ClusterError(PaperMapError):
    """A Dask cluster that cannot be started or reached, or that lost a build's work past its retries."""


class ReadingListError(PaperMapError):
    """A reading-list request that cannot be done (unknown list, taken name, busy database, ...)."""


def read_error(path: str | PathLike[str], error: OSError | UnicodeDecodeError, what: str = "") -> str:
    """The one-sentence message for a file that could not be read, to raise as the caller's named error.

    Without `what` (a paper list): "PATH: no such file" or "PATH: cannot be read (REASON)". With
    `what` naming the kind of file ("taxonomy"): "PATH: no such taxonomy file", "PATH: cannot read
    taxonomy (REASON)" or "PATH: taxonomy is not UTF-8 text".
    """
    if isinstance(error, FileNotFoundError):
        return f"{path}: no such {what} file" if what else f"{path}: no such file"
    if isinstance(error, UnicodeDecodeError):
        return f"{path}: {what or 'file'} is not UTF-8 text"
    if what:
        return f"{path}: cannot read {what} ({error.strerror})"
    return f"{path}: cannot be read ({error.strerror or error})"
