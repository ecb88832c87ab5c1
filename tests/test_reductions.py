"""Sums in a tree of small tasks (lib.builder.reductions): the sum of every part, in order, with no
task taking more than FAN_IN of them."""

from __future__ import annotations

import pytest

from lib.builder.parallel import InProcess
from lib.builder.reductions import FAN_IN, added_up


@pytest.mark.parametrize("n_parts", [1, 2, FAN_IN, FAN_IN + 1, FAN_IN**2, FAN_IN**2 + 3])
def test_a_tree_of_small_tasks_adds_every_part_in_order(n_parts):
    calls = []

    def joined(*parts: str) -> str:  # joining strings is associative, not commutative: the order shows
        calls.append(len(parts))
        return "".join(parts)

    parts = [chr(ord("a") + i % 26) + str(i) for i in range(n_parts)]
    assert added_up(InProcess(), parts, joined) == "".join(parts)
    assert all(1 <= n <= FAN_IN for n in calls)
    # Each task takes FAN_IN results, or the rest of its level: a level of m results makes ceil(m / FAN_IN).
    expected, level = 0, n_parts
    while level > 1:
        level = -(-level // FAN_IN)
        expected += level
    assert len(calls) == expected
