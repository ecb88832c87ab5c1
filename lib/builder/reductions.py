"""Sums of many partitions' results on a runner, in a tree of small tasks: no task takes more than
`FAN_IN` of them. A task adding every partition's results, or groups of a square root's worth of
them, takes inputs that grow with the number of partitions (the subfields' phrase users are an
array as long as the list's phrases, per group); on a worker already holding its share of the
partitions, that pushed it past its memory limit (docs/cluster.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import reduce
from operator import add as plus
from typing import Any

from lib.builder.parallel import Runner, passed

# The most results one task of the tree adds: four levels for 4,096 partitions.
FAN_IN = 8


def added_up(runner: Runner, parts: Sequence[Any], add: Callable[..., Any], background: bool = False) -> Any:
    """`add(*parts)` made in a tree of `add` tasks of up to `FAN_IN` consecutive results each, as the
    later tasks' argument (`passed`); `parts` (handles as `passed` gives them, at least one) itself
    when there is one. `add` must take one result or more and be associative over consecutive runs
    of them, as sums of integers are."""
    level = list(parts)
    while len(level) > 1:
        calls = [(add, tuple(level[i : i + FAN_IN])) for i in range(0, len(level), FAN_IN)]
        level = [passed(runner, handle) for handle in runner.map(calls, background=background)]
    return level[0]


def total(*values: Any) -> Any:
    """The sum of `values` (NumPy arrays of one shape, say), added in order: an `add` for `added_up`."""
    return reduce(plus, values)
