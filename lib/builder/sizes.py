"""What a Dask worker counts the partitions' results it holds as weighing (`register_sizes`), so that
it spills them to its disk before they fill its memory.

Dask sizes an object array by its pointers alone (a partition's 2,000 texts as 16 KB of their 2.5 MB).
It spills only what it counts: on a million papers a worker holding the texts and the keyword rounds'
units and phrases (then dataclasses, which Dask sized as 48 bytes; now held pickled, bytes it sizes
exactly: `lib.builder.keyword_partitions.Pickled`) counted a tenth of them, went past its limit and
was restarted, losing them all.
"""

from __future__ import annotations

import sys
from typing import Any

# Elements sized per object array, spread evenly over it: its mean element stands for the rest.
SAMPLE = 100


def register_sizes(sizeof: Any) -> None:
    """Teach `sizeof` (`dask.sizeof.sizeof`, given by the caller, which has Dask) the sizes of object arrays."""
    import numpy as np

    sizeof(np.zeros(0))  # Dask registers NumPy's sizes when it first meets an array; ours then replaces them
    numeric_size = sizeof.dispatch(np.ndarray)

    def array_size(array: np.ndarray) -> int:
        if array.dtype != object or array.size == 0:
            return int(numeric_size(array))
        flat = array.ravel()
        sample = flat[:: max(1, len(flat) // SAMPLE)]
        return int(array.nbytes + len(flat) * sum(map(sys.getsizeof, sample)) / len(sample))

    sizeof.register(np.ndarray)(array_size)
