"""Each text's phrases counted and packed (`_Doc`): every unit of a run described once per corpus
(`_describe`), its 1-3-unit phrases spelled out (`_count_run`), and the corpus's totals per phrase
(`_phrase_totals`)."""

from __future__ import annotations

import sys
from array import array
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence, Set
from functools import lru_cache
from itertools import chain, compress
from operator import itemgetter

import numpy as np

from lib.stages.phrases import MAX_NGRAM, phrase_key

from .roles import _is_adjective, _is_participle
from .words import GENERIC_HEADS, GENERIC_MODIFIERS

_FORM = itemgetter(2)
_NUMBERS = itemgetter(0, 1, 3)  # count, first sentence, uses at a run's end


class _Doc:
    """One text's counted phrases, packed: a key's entry is its position in `keys` (singular keys),
    `forms` (the surface form first written) and `numbers` (count, first sentence, uses at a run's
    end, three each). A dict of lists per text took far more memory on a corpus."""

    __slots__ = ("forms", "keys", "numbers")

    def __init__(self, phrases: Mapping[str, list]) -> None:
        """From `phrases`: singular key -> [count, first sentence, surface form, uses at a run's end]."""
        # map() and itemgetter, not generators: built once per text of a corpus.
        self.keys = tuple(map(sys.intern, phrases))
        self.forms = tuple(map(sys.intern, map(_FORM, phrases.values())))
        self.numbers = array("i", chain.from_iterable(map(_NUMBERS, phrases.values())))

    def entries(self) -> Iterator[tuple[str, int, int, str, int]]:
        """(key, count, first sentence, surface form, uses at a run's end) per phrase."""
        return zip(self.keys, self.numbers[0::3], self.numbers[1::3], self.forms, self.numbers[2::3])


def _count_phrases(
    chunks: Sequence[Sequence[tuple[str, int]]],
    described: dict[str, _Unit],
    relational: Set[str],
    words: Counter | None = None,
    tails: Counter | None = None,
) -> _Doc:
    """Count each text's 1-3-unit phrases that may stand alone: no generic word alone, no adjective or
    participle last. `described` memoises `_describe` over a corpus (`relational` its relational nouns).
    `words` and `tails`, when given, count the singular words inside its runs and those that end one
    (`_tail_share`)."""
    phrases: dict[str, list] = {}
    inside: list[str] = []
    run_ends: list[str] = []
    for chunk in chunks:
        keys = _count_run(chunk, described, relational, phrases, inside)
        if " " not in chunk[-1][0]:
            run_ends.append(keys[-1])
    if words is not None:
        words.update(inside)
    if tails is not None:
        tails.update(run_ends)
    return _Doc(phrases)


def _count_run(
    chunk: Sequence[tuple[str, int]],
    described: dict[str, _Unit],
    relational: Set[str],
    phrases: dict[str, list],
    inside: list[str],
) -> list[str]:
    """Count into `phrases` (key -> [count, first sentence, surface form, uses at a run's end]) the
    phrases of one run of units, and add to `inside` the keys of its words (not long forms); returns
    the run's keys.

    Runs are short (a unit or two on average), so each unit is one lookup and each phrase
    is spelled out by length: lists of the run's keys and forms, sliced and joined, were slower."""
    keys: list[str] = []
    inner: list[str] = []
    last = len(chunk) - 1
    for end, (unit, sentence) in enumerate(chunk):
        description = described.get(unit)
        if description is None:
            description = described[unit] = _describe(unit, relational)
        key, inner_form, ending, long_form = description
        keys.append(key)
        inner.append(inner_form)
        if not long_form:
            inside.append(key)
        if ending == _ENDS_NOTHING:
            continue
        found = _longer_phrases(chunk, keys, inner, end, unit) if end else []  # a run's first unit ends none
        if ending == _ENDS_ALONE:
            found.append((key, unit, sentence))
        for phrase, form, first in found:
            entry = phrases.get(phrase)
            if entry is None:
                entry = phrases[phrase] = [1, first, form, 0]
            else:
                entry[0] += 1
            if end == last:
                entry[3] += 1
    return keys


def _longer_phrases(
    chunk: Sequence[tuple[str, int]], keys: list[str], inner: list[str], end: int, unit: str
) -> list[tuple[str, str, int]]:
    """(key, form, first unit's sentence) of the 3- and 2-unit phrases of a run ending at unit `end`,
    longest first. At most MAX_NGRAM words, a long form counted by its words: "LLM agent
    optimization" is no keyphrase; a long form alone may be longer. A run that repeats a word
    ("noise noise", a list's words run together) names nothing."""
    key = keys[end]
    found = []
    if end >= 2 and keys[end - 2] != keys[end - 1] and keys[end - 2] != key and keys[end - 1] != key:
        head = f"{inner[end - 2]} {inner[end - 1]} "
        if head.count(" ") + key.count(" ") < MAX_NGRAM:
            found.append((head + key, head + unit, chunk[end - 2][1]))
    if end >= 1 and keys[end - 1] != key:
        head = inner[end - 1] + " "
        if head.count(" ") + key.count(" ") < MAX_NGRAM:
            found.append((head + key, head + unit, chunk[end - 1][1]))
    return found


# What a unit may do at the end of a phrase (`_describe`).
_ENDS_NOTHING, _ENDS_LONGER, _ENDS_ALONE = 0, 1, 2
# A unit as `_count_phrases` uses it: its key, its form inside a longer phrase, what it may end, whether it is a long form.
_Unit = tuple[str, str, int, bool]


def _describe(unit: str, relational: Set[str]) -> _Unit:
    """`unit`'s key (last word singular), its form inside a phrase (a long form reads singular there,
    as its acronym did: "LLM efficiency" -> "large language model efficiency"), and what it may end:
    nothing (a generic modifier, a participle), only a longer phrase (a generic or relational head,
    an adjective, a number), or a phrase of its own too (a long form always may)."""
    key = _unit_key(unit)
    if " " in unit:
        return key, key, _ENDS_ALONE, True
    if (unit in GENERIC_MODIFIERS and unit not in GENERIC_HEADS) or _is_participle(unit):
        return key, unit, _ENDS_NOTHING, False
    if (
        unit in GENERIC_HEADS
        or unit in GENERIC_MODIFIERS
        or unit in relational
        or _is_adjective(unit)
        or unit[0].isdigit()
    ):
        return key, unit, _ENDS_LONGER, False
    return key, unit, _ENDS_ALONE, False


# A text's units are words of a few hundred thousand, each met many times: their keys are memoised.
_unit_key = lru_cache(maxsize=1 << 18)(phrase_key)


def _phrase_totals(docs: Sequence[_Doc]) -> tuple[Counter, Counter, Counter]:
    """Per phrase over `docs`: the texts using it, its uses, and its uses at a run's end.

    Counted in C where it can be: a text uses most of its phrases once (a phrase's uses are its
    texts plus the few extra uses) and ends a run with them at most once. A Python loop over a
    corpus's millions of entries was markedly slower."""
    keys = list(chain.from_iterable(doc.keys for doc in docs))
    numbers = np.frombuffer(b"".join(doc.numbers.tobytes() for doc in docs), dtype=np.intc).reshape(-1, 3)
    texts = Counter(keys)
    uses = Counter(texts)
    extra = numbers[:, 0] - 1
    for i in np.flatnonzero(extra).tolist():
        uses[keys[i]] += int(extra[i])
    ended = numbers[:, 2]
    ends = Counter(compress(keys, (ended > 0).tolist()))
    for i in np.flatnonzero(ended > 1).tolist():
        ends[keys[i]] += int(ended[i]) - 1
    return texts, uses, ends
