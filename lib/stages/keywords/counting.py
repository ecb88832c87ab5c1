"""Each text's phrases counted (`_phrase_table`, a `_Phrases`): every distinct unit described once
(`_describe`), the 1-3-unit phrases ending at each kept unit found in NumPy (`_occurrences`), each
distinct word pair or triple spelled out once (`_spelled`), and the uses counted per text and
phrase; with the corpus's totals per phrase (`_phrase_totals`) and per word (`_tail_share`).

A corpus's phrase uses run to millions: a dict per text, updated per use in Python, was the
stage's largest cost after its word roles.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from dataclasses import dataclass
from itertools import compress
from operator import itemgetter, ne

import numpy as np

from lib.stages.phrases import MAX_NGRAM, Numbering, phrase_key

from .roles import _is_adjective, _is_participle
from .units import _Units
from .words import GENERIC_HEADS, GENERIC_MODIFIERS

# What a unit may do at the end of a phrase (`_describe`).
_ENDS_NOTHING, _ENDS_LONGER, _ENDS_ALONE = 0, 1, 2
# A unit as a phrase uses it: its key, its form inside a longer phrase, what it may end, whether it is a long form.
_Unit = tuple[str, str, int, bool]


def _describe(unit: str, relational: Set[str]) -> _Unit:
    """`unit`'s key (last word singular), its form inside a phrase (a long form reads singular there,
    as its acronym did: "LLM efficiency" -> "large language model efficiency"), and what it may end:
    nothing (a generic modifier, a participle), only a longer phrase (a generic or relational head,
    an adjective, a number), or a phrase of its own too (a long form always may)."""
    key = phrase_key(unit)
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


@dataclass(frozen=True)
class _Described:
    """Every distinct unit's `_describe`, by its number: `key` numbers its key in `keys`, `inner` is
    its form inside a longer phrase, `ending` what it may end, `long_form` whether it is one; and
    the spaces in its key and in its inner form."""

    key: np.ndarray
    keys: list[str]
    inner: list[str]
    ending: np.ndarray
    long_form: np.ndarray
    key_spaces: np.ndarray
    inner_spaces: np.ndarray


def _described(units: _Units, relational: Set[str]) -> _Described:
    """`_describe` of every distinct unit of `units`."""
    # "" (punctuation, numbers) is in no run.
    descriptions = [_describe(unit, relational) if unit else ("", "", _ENDS_NOTHING, False) for unit in units.vocab]
    size = len(descriptions)
    number = Numbering()
    key = np.fromiter(map(number.__getitem__, map(itemgetter(0), descriptions)), dtype=np.int32, count=size)
    keys = list(number)
    inner = list(map(itemgetter(1), descriptions))
    key_spaces = np.fromiter((k.count(" ") for k in keys), dtype=np.int16, count=len(keys))
    return _Described(
        key=key,
        keys=keys,
        inner=inner,
        ending=np.fromiter(map(itemgetter(2), descriptions), dtype=np.int8, count=size),
        long_form=np.fromiter(map(itemgetter(3), descriptions), dtype=bool, count=size),
        key_spaces=key_spaces[key],
        inner_spaces=np.fromiter((f.count(" ") for f in inner), dtype=np.int16, count=size),
    )


@dataclass(frozen=True)
class _Forms:
    """How each phrase use was written, by number (`_spelled`): a unit (`vocab`'s numbers), then a
    pair of units (`pairs`: the first's number times len(vocab), plus the second's), then a unit
    before a pair (`triples`: its number times len(pairs), plus the pair's place in `pairs`). Spelled
    out only for the phrases shown: a corpus writes a million pairs."""

    vocab: list[str]
    inner: list[str]  # each unit's form inside a longer phrase (`_describe`)
    pairs: np.ndarray
    triples: np.ndarray

    def spelled(self, number: int) -> str:
        """The written form numbered `number`."""
        size = len(self.vocab)
        if number < size:
            return self.vocab[number]
        if number < size + len(self.pairs):
            before, last = divmod(int(self.pairs[number - size]), size)
            return f"{self.inner[before]} {self.vocab[last]}"
        before, pair = divmod(int(self.triples[number - size - len(self.pairs)]), len(self.pairs))
        return f"{self.inner[before]} {self.spelled(size + pair)}"


@dataclass(frozen=True)
class _Phrases:
    """Each text's counted phrases, one entry per text and phrase: text i's are entries
    `bounds[i]:bounds[i + 1]`, in the order of `phrases` (sorted, so a phrase's number orders it as
    its key does). An entry has its `phrase`, its `count` in the text, the sentence it `first`
    starts in, its surface `form` (a number in `forms`: the first written) and how often it
    `ended` a piece of a run."""

    phrases: list[str]
    forms: _Forms
    bounds: np.ndarray
    phrase: np.ndarray
    count: np.ndarray
    first: np.ndarray
    form: np.ndarray
    ended: np.ndarray


def _phrase_table(units: _Units, kept: np.ndarray, described: _Described) -> _Phrases:
    """Count each text's 1-3-unit phrases that may stand alone, in the pieces of runs `kept` marks:
    no generic word alone, no adjective or participle last (`_describe`)."""
    end, length = _occurrences(units, kept, described)
    written, keys, forms = _spelled(units, described, end, length)
    phrases, phrase_of = _numbered(keys, np.flatnonzero(np.bincount(written, minlength=len(keys))))
    del keys
    uses = _Uses(
        # `end` runs by text: each text's uses lie between its bounds' places in it.
        text=np.repeat(np.arange(len(units.bounds) - 1, dtype=np.int32), np.diff(np.searchsorted(end, units.bounds))),
        phrase=phrase_of[written],
        written=written,
        sentence=units.sentences[end - length + 1],
        ends_piece=(kept & ~units.after(kept))[end],
    )
    del end, length, written, phrase_of
    texts = len(units.bounds) - 1
    # A few thousand texts at a time: grouping all of a corpus's uses at once took much memory.
    parts = [_entries(uses, a, min(a + _TEXTS_AT_ONCE, texts), len(phrases)) for a in range(0, texts, _TEXTS_AT_ONCE)]
    columns = [np.concatenate(column) for column in zip(*parts)] if parts else [np.zeros(0, dtype=np.int32)] * 6
    text, phrase, count, first, form, ended = columns
    return _Phrases(phrases, forms, np.searchsorted(text, np.arange(texts + 1)), phrase, count, first, form, ended)


# Texts whose phrase uses are grouped at once (`_entries`).
_TEXTS_AT_ONCE = 8192


@dataclass(frozen=True)
class _Uses:
    """Every phrase use of a list's texts, by text and then in the order a reader meets them: its
    text, phrase, written form (`_Forms`), first unit's sentence, and whether it ends a piece."""

    text: np.ndarray
    phrase: np.ndarray
    written: np.ndarray
    sentence: np.ndarray
    ends_piece: np.ndarray


def _entries(uses: _Uses, first: int, last: int, phrases: int) -> tuple[np.ndarray, ...]:
    """The entries (text, phrase, count, first sentence, form, ends of a piece) of texts `first:last`."""
    low, high = np.searchsorted(uses.text, [first, last])
    # A stable sort: an entry's first index is its first use.
    codes, first_use, entry_of, count = np.unique(
        (uses.text[low:high] - first).astype(np.int64) * phrases + uses.phrase[low:high],
        return_index=True,
        return_inverse=True,
        return_counts=True,
    )
    text, phrase = np.divmod(codes, max(phrases, 1))
    return (
        (text + first).astype(np.int32),
        phrase.astype(np.int32),
        count.astype(np.int32),
        uses.sentence[low:high][first_use],
        uses.written[low:high][first_use],
        np.bincount(entry_of[uses.ends_piece[low:high]], minlength=len(codes)).astype(np.int32),
    )


def _numbered(keys: list[str], used: np.ndarray) -> tuple[list[str], np.ndarray]:
    """The distinct keys of the `used` numbers (of `keys`), sorted, and each used number's place among them."""
    spelled = list(map(keys.__getitem__, used.tolist()))
    order = sorted(range(len(spelled)), key=spelled.__getitem__)
    in_order = list(map(spelled.__getitem__, order))
    new = np.ones(len(in_order), dtype=bool)
    new[1:] = np.fromiter(map(ne, in_order[1:], in_order[:-1]), dtype=bool, count=max(len(in_order) - 1, 0))
    place = np.zeros(len(keys), dtype=np.int32)
    place[used[order]] = np.cumsum(new) - 1
    return list(compress(in_order, new.tolist())), place


def _occurrences(units: _Units, kept: np.ndarray, described: _Described) -> tuple[np.ndarray, np.ndarray]:
    """The last position and the length (1-3 units) of every phrase use, in the order a reader meets
    them: by their last unit, longer first.

    A phrase has at most MAX_NGRAM words, a long form counted by its words: "LLM agent
    optimization" is no keyphrase; a long form alone may be longer. A run that repeats a word
    ("noise noise", a list's words run together) names nothing."""
    ids, key = units.ids, described.key
    end = np.flatnonzero(kept & (described.ending[ids] != _ENDS_NOTHING))
    second = units.before(kept)  # the unit before is in the same piece
    third = second & units.before(second)
    last, before, before_that = ids[end], ids[end - 1], ids[end - 2]  # masked where not in the piece
    two = (
        second[end]
        & (key[before] != key[last])
        & (described.inner_spaces[before] + described.key_spaces[last] < MAX_NGRAM - 1)
    )
    three = (
        two
        & third[end]
        & (key[before_that] != key[before])
        & (key[before_that] != key[last])
        & (
            described.inner_spaces[before_that] + described.inner_spaces[before] + described.key_spaces[last]
            < MAX_NGRAM - 2
        )
    )
    one = described.ending[last] == _ENDS_ALONE
    rows, kinds = np.nonzero(np.stack([three, two, one], axis=1))  # row-major: by end, longer first
    return end[rows], (3 - kinds).astype(np.int8)


def _spelled(
    units: _Units, described: _Described, end: np.ndarray, length: np.ndarray
) -> tuple[np.ndarray, list[str], _Forms]:
    """Number each use by its units as written (`_Forms`), and spell each such number's key once."""
    ids, size = units.ids, len(units.vocab)
    written = ids[end]
    longer = length > 1
    pairs, pair_of = np.unique(ids[end[longer] - 1].astype(np.int64) * size + ids[end[longer]], return_inverse=True)
    written[longer] = size + pair_of
    # A three-unit phrase's last two units are a two-unit one (`_occurrences`): its pair is numbered.
    three = length == 3
    triples, triple_of = np.unique(
        ids[end[three] - 2].astype(np.int64) * len(pairs) + pair_of[three[longer]], return_inverse=True
    )
    written[three] = size + len(pairs) + triple_of
    inner = described.inner
    unit_keys = list(map(described.keys.__getitem__, described.key.tolist()))
    heads, lasts = (part.tolist() for part in np.divmod(pairs, size))
    pair_keys = [f"{inner[h]} {unit_keys[u]}" for h, u in zip(heads, lasts)]
    heads, rests = (part.tolist() for part in np.divmod(triples, max(len(pairs), 1)))
    keys = unit_keys + pair_keys + [f"{inner[h]} {pair_keys[r]}" for h, r in zip(heads, rests)]
    return written, keys, _Forms(units.vocab, inner, pairs, triples)


def _phrase_totals(table: _Phrases) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per phrase of `table`: the texts using it, its uses, and its uses at a piece's end."""
    size = len(table.phrases)
    texts = np.bincount(table.phrase, minlength=size)
    uses = np.bincount(table.phrase, weights=table.count, minlength=size).astype(np.int64)
    ends = np.bincount(table.phrase, weights=table.ended, minlength=size).astype(np.int64)
    return texts, uses, ends


def _tail_share(units: _Units, kept: np.ndarray, described: _Described) -> dict[str, float]:
    """Per word key, how readily the corpus ends a piece of a run with it (nouns do, adjectives
    rarely), from its uses inside pieces and at their ends."""
    return _tail_of(described.keys, _tail_counts(units, kept, described))


def _tail_counts(units: _Units, kept: np.ndarray, described: _Described) -> np.ndarray:
    """Per word key (columns, by their number in `described.keys`), its uses inside pieces of runs
    and at their ends (rows): what `_tail_share` decides from; sums over slices of a list."""
    word = kept & ~described.long_form[units.ids]
    key = described.key[units.ids]
    size = len(described.keys)
    return np.stack(
        [np.bincount(key[word], minlength=size), np.bincount(key[word & ~units.after(kept)], minlength=size)]
    )


def _tail_of(keys: Sequence[str], counts: np.ndarray) -> dict[str, float]:
    """`_tail_share` from the `_tail_counts` of `keys`."""
    inside, ends = counts
    used = np.flatnonzero(inside)
    share = (ends[used] + 0.5) / (inside[used] + 1)
    return dict(zip([keys[k] for k in used.tolist()], share.tolist()))
