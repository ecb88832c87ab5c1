"""What a Dask worker counts the partitions' results it holds as weighing (`register_sizes`), so that
it spills them to its disk before they fill its memory.

Dask sizes an object array by its pointers alone (a partition's 2,000 texts as 16 KB of their 2.5 MB)
and an object it does not know by `sys.getsizeof` (a partition's keyword units, 8 MB, as 48 bytes).
It spills only what it counts: on a million papers a worker holding the keyword rounds' units and
phrases counted a tenth of them, went past its limit and was restarted, losing them all.
"""

from __future__ import annotations

import sys
from typing import Any

# Elements sized per object array, spread evenly over it: its mean element stands for the rest.
SAMPLE = 100


def register_sizes(sizeof: Any) -> None:
    """Teach `sizeof` (`dask.sizeof.sizeof`, given by the caller, which has Dask) the sizes of object
    arrays and of the keyword rounds' dataclasses."""
    from dataclasses import fields

    import numpy as np

    from lib.stages.keywords.counting import _Forms, _Phrases
    from lib.stages.keywords.units import _Units

    sizeof(np.zeros(0))  # Dask registers NumPy's sizes when it first meets an array; ours then replaces them
    numeric_size = sizeof.dispatch(np.ndarray)

    def array_size(array: np.ndarray) -> int:
        if array.dtype != object or array.size == 0:
            return int(numeric_size(array))
        flat = array.ravel()
        sample = flat[:: max(1, len(flat) // SAMPLE)]
        return int(array.nbytes + len(flat) * sum(map(sys.getsizeof, sample)) / len(sample))

    def fields_size(value: Any) -> int:
        return sys.getsizeof(value) + sum(int(sizeof(getattr(value, field.name))) for field in fields(value))

    sizeof.register(np.ndarray)(array_size)
    for held in (_Units, _Phrases, _Forms):
        sizeof.register(held)(fields_size)
