"""Counts per key summed over slices of a list: what partitions' tasks send a merge, small beside
their texts. Keys travel as a NumPy object array (Dask serializes a list of strings one string at a
time)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike


class Tally(NamedTuple):
    """Counts per key: `counts[:, i]` are key `keys[i]`'s (an object array, keys as first met)."""

    keys: np.ndarray
    counts: np.ndarray


def tally(keys: Sequence[object], counts: ArrayLike) -> Tally:
    """A `Tally` of `keys` (strings or tuples) and their `counts`: a row per count, a column per key."""
    array = np.empty(len(keys), dtype=object)
    array[:] = list(keys)  # element by element: tuples stay keys, not rows
    return Tally(array, np.asarray(counts, dtype=np.int64))


def merged(tallies: Sequence[Tally]) -> Tally:
    """The tallies' counts added up by key, keys as first met in the tallies' order."""
    rows = tallies[0].counts.shape[0]
    codes, keys = pd.factorize(np.concatenate([t.keys for t in tallies]))
    counts = np.concatenate([t.counts for t in tallies], axis=1)
    # Exact: float64 sums of integers below 2**53.
    sums = [np.bincount(codes, weights=counts[row], minlength=len(keys)).astype(np.int64) for row in range(rows)]
    return tally(list(keys), sums)
