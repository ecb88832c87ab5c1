"""Strings (terms, phrases) found among many partitions' by two fixed 64-bit hashes instead of their
spelling: what partitions send a merge or a lookup is numbers, not millions of short strings.

Two strings are confused only if both their hashes collide: under one chance in 10^24 for ten
million strings.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

# A second, independent key of `term_hashes`: a string is taken for another when both hashes match.
CHECK_KEY = "papermap-checks!"


def term_hashes(terms: Sequence[str] | np.ndarray, key: str | None = None) -> np.ndarray:
    """uint64 hashes of `terms` (str), the same in every process and on every machine (pandas'
    SipHash with a fixed `key`, 16 characters; its default when None)."""
    keyed = {} if key is None else {"hash_key": key}
    return pd.util.hash_array(np.asarray(terms, dtype=object), categorize=False, **keyed)


def hashed_places(hashes: np.ndarray, checks: np.ndarray, among: np.ndarray, among_checks: np.ndarray) -> np.ndarray:
    """Each string's place among others (`among`: their `term_hashes` ascending, `among_checks`: their
    `CHECK_KEY` hashes in that order), by its hash and check; -1 where it is not among them."""
    # Searched in ascending order, each search starts where the last ended: a third of the time.
    order = np.argsort(hashes, kind="stable")
    left, right = np.empty(len(order), dtype=np.intp), np.empty(len(order), dtype=np.intp)
    left[order] = np.searchsorted(among, hashes[order], side="left")
    right[order] = np.searchsorted(among, hashes[order], side="right")
    places = np.full(len(hashes), -1, dtype=np.int64)
    single = np.flatnonzero(right - left == 1)
    match = among_checks[left[single]] == checks[single]
    places[single[match]] = left[single[match]]
    for string in np.flatnonzero(right - left > 1):  # first hashes that collide: rare
        same = np.flatnonzero(among_checks[left[string] : right[string]] == checks[string])
        if len(same):
            places[string] = left[string] + same[0]
    return places
