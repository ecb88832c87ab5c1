"""The few named errors PaperMap raises; the CLI and the pages print them as one sentence."""

from __future__ import annotations


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


class ReadingListError(PaperMapError):
    """A reading-list request that cannot be done (unknown list, taken name, busy database, ...)."""
