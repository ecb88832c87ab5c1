"""The limits on what a user or visitor can send, checked before the work, in one place.

Each input that can make PaperMap work without bound (a paper list, a taxonomy, pasted BibTeX) is
checked against these before it is expanded, parsed deeper or built, and refused with one sentence
naming the limit. The person running PaperMap can change any of them with an environment variable
`PAPERMAP_LIMIT_<NAME>` (the field's name in capitals, e.g. `PAPERMAP_LIMIT_LIST_RECORDS=500000`);
docs/limits.md lists them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields, replace

from lib.errors import InputError, ParameterError

ENVIRONMENT_PREFIX = "PAPERMAP_LIMIT_"


@dataclass(frozen=True)
class Limits:
    """Every limit, with its default."""

    # Paper lists: well above the largest corpus PaperMap is measured on (docs/limits.md).
    list_records: int = 250_000
    # BibTeX: one field's value once its @string macros are expanded, and all values together.
    bibtex_value_chars: int = 100_000
    bibtex_total_chars: int = 5_000_000
    # Taxonomies: the file, its entries and how deep they nest (a conference's own is far smaller).
    taxonomy_bytes: int = 1_000_000
    taxonomy_entries: int = 5_000
    taxonomy_depth: int = 10


def limits() -> Limits:
    """The limits in force: the defaults, with `PAPERMAP_LIMIT_<NAME>` environment variables over them."""
    changes = {}
    for field in fields(Limits):
        raw = os.environ.get(ENVIRONMENT_PREFIX + field.name.upper())
        if raw is None:
            continue
        if not raw.strip().isdigit() or int(raw) < 1:
            raise ParameterError(
                f"{ENVIRONMENT_PREFIX}{field.name.upper()} must be a positive whole number; got {raw!r}"
            )
        changes[field.name] = int(raw)
    return replace(Limits(), **changes)


def too_many_records(source: str, limit: int) -> InputError:
    """The refusal of the paper list `source` for holding more than `limit` records."""
    return InputError(
        f"{source}: more than {limit:,} records; PaperMap reads at most {limit:,} (PAPERMAP_LIMIT_LIST_RECORDS)"
    )
