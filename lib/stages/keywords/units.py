"""A list's texts as one array of unit numbers (`_Units`, made by `_encode`): what lets the corpus
pass look at each distinct word once in Python and at each of its uses in NumPy.

A corpus's units run to tens of millions; its distinct units to a few hundred thousand. A word's
role (a verb, a break, a gerund) is decided once per distinct word (`_Units.flags`), and spread to
its uses and their neighbours by indexing (`_Units.at`, `before`, `after`).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from lib.stages.acronyms import UnitReader
from lib.stages.phrases import Numbering


@dataclass(frozen=True)
class _Units:
    """The texts' units (`lib.stages.acronyms.UnitReader`) end to end.

    `ids` numbers each unit in `vocab` (unit 0 is "", punctuation); `sentences` is its sentence in
    its text; text i's units are positions `bounds[i]:bounds[i + 1]`; `first` and `last` mark each
    text's first and last unit."""

    ids: np.ndarray
    sentences: np.ndarray
    bounds: np.ndarray
    vocab: list[str]
    first: np.ndarray
    last: np.ndarray

    def flags(self, test: Callable[[str], bool]) -> np.ndarray:
        """`test` of each distinct unit, by its number."""
        return np.fromiter(map(test, self.vocab), dtype=bool, count=len(self.vocab))

    def at(self, test: Callable[[str], bool]) -> np.ndarray:
        """`test` of each unit, by its position."""
        return self.flags(test)[self.ids]

    def before(self, marks: np.ndarray) -> np.ndarray:
        """Per position, the mark of the unit before it in its text (False for a text's first)."""
        out = np.zeros_like(marks)
        out[1:] = marks[:-1]
        out[self.first] = False
        return out

    def after(self, marks: np.ndarray) -> np.ndarray:
        """Per position, the mark of the unit after it in its text (False for a text's last)."""
        out = np.zeros_like(marks)
        out[:-1] = marks[1:]
        out[self.last] = False
        return out

    def counts(self, marks: np.ndarray) -> np.ndarray:
        """How many marked positions each distinct unit has, by its number."""
        return np.bincount(self.ids[marks], minlength=len(self.vocab))


def _encode(
    tokens: Sequence[list[str]],
    definitions: Sequence[Sequence[tuple[int, int, str, str]]],
    acronyms: Mapping[str, str],
    long_forms: Mapping[str, list[list[str]]],
) -> _Units:
    """Each text's units (`lib.stages.acronyms.UnitReader`), numbered, end to end."""
    number = Numbering({"": 0})  # "" stands for what lies past a text's ends, too: never a word
    ids = array("i")
    sentences = array("i")
    bounds = [0]
    read = UnitReader(acronyms, long_forms)  # reads each distinct token once for all texts
    for text_tokens, text_definitions in zip(tokens, definitions):
        words, numbers = read.columns(text_tokens, text_definitions)
        ids.extend(map(number.__getitem__, words))
        sentences.extend(numbers)
        bounds.append(len(ids))
    ends = np.array(bounds, dtype=np.int64)
    used = ends[:-1] < ends[1:]  # texts with a unit
    first = np.zeros(len(ids), dtype=bool)
    first[ends[:-1][used]] = True
    last = np.zeros(len(ids), dtype=bool)
    last[ends[1:][used] - 1] = True
    return _Units(
        np.frombuffer(ids, dtype=np.int32), np.frombuffer(sentences, dtype=np.int32), ends, list(number), first, last
    )
