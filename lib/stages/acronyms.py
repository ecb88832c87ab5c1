"""Acronyms a text defines ("graph neural networks (GNNs)") and the text's units, in which a defined
acronym and its long form written out are one unit that reads as the long form.

Used by the keyphrase extractor (`lib.stages.keywords`) on its cased tokens.
"""

from __future__ import annotations

import re
import sys
from collections import ChainMap, Counter
from collections.abc import Container, Iterable, Mapping, Sequence
from itertools import accumulate, compress, count, pairwise
from operator import itemgetter

from lib.stages.phrases import phrase_key, singular_word
from lib.stages.stop_words import ENGLISH_STOP_WORDS

_SENTENCE_END = frozenset(".!?")
_ACRONYM = re.compile(r"(?=(?:[^A-Z]*[A-Z]){2})[A-Za-z][A-Za-z0-9-]{1,11}")  # 2-12 characters, 2+ capitals
# Longer long forms are a method's title, not a term; see `_long_form`.
MAX_LONG_FORM = 5


def acronym_definitions(tokens: Sequence[str]) -> list[tuple[int, int, str, str]]:
    """(start, end, acronym, long form) of each `long form (ACRONYM)` in a token list; `end` is past the `)`."""
    found = []
    for i in range(2, len(tokens) - 1):
        short = tokens[i]
        if tokens[i - 1] != "(" or tokens[i + 1] != ")" or not _ACRONYM.fullmatch(short):
            continue
        letters = sum(c.isalnum() for c in short)
        start = i - 1
        while start > 0 and i - 1 - start < min(letters + 5, 2 * letters) and tokens[start - 1][0].isalpha():
            start -= 1
        words = tokens[start : i - 1]
        long_form = _long_form(short, words) or (short.endswith("s") and _long_form(short[:-1], words))
        if long_form:
            found.append((i - 1 - len(long_form), i + 2, short, " ".join(long_form).lower()))
    return found


def _long_form(short: str, words: Sequence[str]) -> list[str] | None:
    """Schwartz & Hearst (2003): the shortest run of `words`' last words whose letters spell `short` in order."""
    text = " ".join(words).lower()
    pos = len(text) - 1
    letters = [c for c in short.lower() if c.isalnum()]
    for s in range(len(letters) - 1, -1, -1):
        # The acronym's first letter must start a word; the others may sit anywhere ("RAG": Retrieval-Augmented Generation).
        while pos >= 0 and (text[pos] != letters[s] or (s == 0 and pos > 0 and text[pos - 1].isalnum())):
            pos -= 1
        if pos < 0:
            return None
        pos -= 1
    long_form = list(words[len(words) - text[pos + 1 :].count(" ") - 1 :])
    if long_form[0].lower() in ENGLISH_STOP_WORDS or short.lower() in text[pos + 1 :]:
        return None
    if len(long_form) < 2 and "-" not in long_form[0]:  # "SplitNN (SNN)" defines nothing
        return None
    # Longer names ("Rapid Attention Distillation to Linear Attention Decoders at Scale") are a
    # method's title, not a term: the acronym then stays as written.
    if len(long_form) > MAX_LONG_FORM or sum(w.lower() in ENGLISH_STOP_WORDS for w in long_form) > 1:
        return None
    return long_form


def _acronym_key(token: str) -> str:
    """`GNNs` and `GNN` are one acronym."""
    return token[:-1] if token.endswith("s") and sum(c.isupper() for c in token) >= 2 else token


def corpus_acronyms(definitions: Sequence[Sequence[tuple[int, int, str, str]]]) -> dict[str, str]:
    """Acronym -> long form, for acronyms that at least two texts define, most of them the same way."""
    return agreed_acronyms(acronym_uses(definitions))


def acronym_uses(definitions: Sequence[Sequence[tuple[int, int, str, str]]]) -> Counter:
    """How many texts define each (acronym key, long form key): sums over slices of a list."""
    return Counter(pair for doc in definitions for pair in {(_acronym_key(d[2]), phrase_key(d[3])) for d in doc})


def agreed_acronyms(uses: Mapping[tuple[str, str], int]) -> dict[str, str]:
    """`corpus_acronyms` from the texts' `acronym_uses`."""
    defined: dict[str, Counter] = {}
    for (short, long_form), n in uses.items():
        defined.setdefault(short, Counter())[long_form] += n
    out = {}
    for short, forms in defined.items():
        best, count = max(forms.items(), key=lambda item: (item[1], item[0]))
        if count >= 2 and 2 * count > sum(forms.values()):
            out[short] = best
    return out


def long_form_index(long_forms) -> dict[str, list[list[str]]]:
    """First word -> the long forms it starts, as word lists with the last word singular, longest first."""
    index: dict[str, list[list[str]]] = {}
    for long_form in sorted(set(long_forms), key=lambda f: (-f.count(" "), f)):
        words = phrase_key(long_form).split(" ")
        index.setdefault(words[0], []).append(words)
    return index


class _LongForms:
    """The corpus's long forms by first word (`long_form_index`), and by what must follow it: most
    uses of a long form's first word ("learning", "deep") go on with no long form's second word."""

    def __init__(self, forms: dict[str, list[list[str]]]) -> None:
        self.forms = forms
        self._after: dict[str, set[str]] = {}  # second word of 3+ -> first words
        self._after_singular: dict[str, set[str]] = {}  # second word of 2, singular -> first words
        self._by_second: dict[tuple[str, str], list[list[str]]] = {}  # (first, second) -> forms of 3+ words
        self._two_words: set[tuple[str, str]] = set()
        self._one_word: set[tuple[str, str]] = set()  # (first word, the form)
        self._in_turn: set[str] = set()  # first words whose forms are not longest first
        for word, word_forms in forms.items():
            if any(len(a) < len(b) for a, b in pairwise(word_forms)):
                self._in_turn.add(word)
            for form in word_forms:
                if len(form) > 2:
                    self._by_second.setdefault((word, form[1]), []).append(form)
                    self._after.setdefault(form[1], set()).add(word)
                elif len(form) == 2 and form[0] == word:
                    self._two_words.add((word, form[1]))
                    self._after_singular.setdefault(form[1], set()).add(word)
                elif len(form) == 1:
                    self._one_word.add((word, form[0]))
        self.one_word = {word for word, _ in self._one_word}

    def continued(self, lower: str) -> tuple[str, ...]:
        """The first words of the forms of two or more words a token of lower case `lower` may be second in."""
        after, after_singular = self._after.get(lower), self._after_singular.get(singular_word(lower))
        if after is None and after_singular is None:
            return ()  # most tokens
        return tuple(sorted((after or set()) | (after_singular or set())))

    def written(self, tokens: Sequence[str], i: int, word: str) -> tuple[str, int] | None:
        """`_written_long_form` of `word`'s forms at token `i`: a longer form first, so the forms
        that the next token can continue, then those of two words, then those of one."""
        if word in self._in_turn:
            return _written_long_form(tokens, i, word, self.forms[word])
        if i + 1 < len(tokens):
            after = tokens[i + 1].lower()
            written = _written_long_form(tokens, i, word, self._by_second.get((word, after), ()))
            if written:
                return written
            if (word, singular_word(after)) in self._two_words:
                return sys.intern(f"{word} {after}"), 2
        return (word, 1) if (word, singular_word(word)) in self._one_word else None


# A token's reading: (unit, whether it ends a sentence, whether a long form may start at it (0: no;
# 1: one of two or more words; 2: a one-word one, or the text's own), the first words of the long
# forms it may be the second word of (`_LongForms.continued`)). Strings, numbers and tuples of them
# alone: the garbage collector stops tracking such a tuple, and a corpus has 200,000 readings.
_Reading = tuple[str, bool, int, tuple[str, ...]]


class _Readings(dict[str, _Reading]):
    """Token -> its reading against the corpus's acronyms and long forms alone, made when first
    met; `spellings` holds, per lower-case word, the tokens met that lower-case to it."""

    def __init__(self, acronyms: dict[str, str], long_forms: _LongForms) -> None:
        super().__init__()
        self.acronyms, self.long_forms = acronyms, long_forms
        self.spellings: dict[str, tuple[str, ...]] = {}

    def __missing__(self, token: str) -> _Reading:
        lower = token.lower()
        self[token] = reading = self.read(token, self.acronyms, self.long_forms.continued(lower))
        self.spellings[lower] = (*self.spellings.get(lower, ()), token)
        return reading

    def read(
        self, token: str, known: Mapping[str, str], second: tuple[str, ...], local: Container[str] = frozenset()
    ) -> _Reading:
        """The reading of `token` against the acronyms `known` and the corpus's long forms and `local`;
        `second`: `_LongForms.continued` of its lower case (only the corpus's long forms count there:
        a text's own ones start at a 2, see `UnitReader.columns`)."""
        # Numbers and sizes ("8B", "128k") end a phrase; dimensions ("3D") belong to one.
        if not token[0].isalpha() and not (token[0].isdigit() and token[-1] in "dD" and token[:-1].isdigit()):
            return ":" if token == ":" else "", token in _SENTENCE_END, 0, second
        if not token.islower() and (token in known or (token[-1] == "s" and token[:-1] in known)):
            return known.get(token) or known[token[:-1]], False, 0, second
        # One string per distinct word for the whole corpus, not one per use: a corpus's units run
        # to tens of millions of words.
        word = sys.intern(token.lower())
        start = 2 if word in local or word in self.long_forms.one_word else int(word in self.long_forms.forms)
        return word, False, start, second


class UnitReader:
    """The units of the texts of one corpus (`columns`), which each read their tokens much as the corpus does.

    A token's reading depends on the token alone but where a text defines an acronym or writes a
    long form: so each distinct token is read once for the corpus (`_Readings`), a text's own
    definitions read again only the tokens they name (`_own_readings`), and only where a long form
    may start is a text read word by word."""

    def __init__(self, corpus_acronyms: Mapping[str, str], corpus_long_forms: Mapping[str, list[list[str]]]) -> None:
        # Copies, once per corpus: a text's own definitions are looked up before them (`ChainMap`).
        self._acronyms = dict(corpus_acronyms)
        self._long_forms = _LongForms(dict(corpus_long_forms))
        self._readings = _Readings(self._acronyms, self._long_forms)

    def columns(
        self, tokens: Sequence[str], definitions: Sequence[tuple[int, int, str, str]]
    ) -> tuple[list[str], list[int]]:
        """One text's lower-case units, `` for punctuation and numbers (`:` for a colon), and the
        sentence index of each; `definitions`: the text's `acronym_definitions`.

        A defined acronym becomes one unit that reads as its long form, and so does the long form
        written out, so "GNNs" and "graph neural networks" are one phrase and no phrase cuts through
        one ("attributing large language"). The text's own definitions come before the corpus's.
        """
        looked = list(map(self._readings.__getitem__, tokens))
        own_forms: dict[str, list[list[str]]] = {}
        defined_at: dict[int, tuple[int, str]] = {}
        if definitions:
            looked, own_forms = self._own_readings(tokens, definitions, looked)
            defined_at = {start: (end, long_form) for start, end, _, long_form in definitions}
        units = list(map(itemgetter(0), looked))
        starts: Iterable[int] = compress(count(), map(itemgetter(2), looked))
        if defined_at:
            starts = sorted({*starts, *(defined_at.keys() & range(len(tokens)))})
        spans = []  # (first, past the last) token of each unit of two or more tokens
        past = 0  # the first token the units do not cover yet
        for i in starts:
            if i < past:
                continue
            if i in defined_at:
                past, units[i] = defined_at[i]
            elif looked[i][2] == 1 and (i + 1 == len(tokens) or units[i] not in looked[i + 1][3]):
                continue  # the next token is the second word of none of this word's long forms
            elif written := (
                _written_long_form(tokens, i, units[i], own_forms[units[i]])
                if units[i] in own_forms
                else self._long_forms.written(tokens, i, units[i])
            ):
                units[i], past = written[0], i + written[1]
            else:
                continue
            spans.append((i, past))
        if not spans:
            sentences = list(accumulate(map(itemgetter(1), looked), initial=0))
            del sentences[-1]  # the sentence after the last token
            return units, sentences
        # The tokens a unit covers are not read on their own: none of them ends a sentence.
        ends = list(map(itemgetter(1), looked))
        kept = bytearray(b"\x01") * len(tokens)
        for i, past in spans:
            kept[i + 1 : past] = bytes(max(past - i - 1, 0))
            ends[i:past] = [False] * (past - i)
        return list(compress(units, kept)), list(compress(accumulate(ends, initial=0), kept))

    def _own_readings(
        self, tokens: Sequence[str], definitions: Sequence[tuple[int, int, str, str]], looked: list[_Reading]
    ) -> tuple[list[_Reading], dict[str, list[list[str]]]]:
        """`looked` with the text's own acronyms and long forms before the corpus's, and the long
        forms, the text's and the corpus's, of the first words of the text's own."""
        own = {_acronym_key(short): long_form for _, _, short, long_form in definitions}
        local = long_form_index(long_form for _, _, _, long_form in definitions)
        present = set(tokens)
        named = present.intersection([key + end for key in own for end in ("", "s")])
        for word in local:  # the text's spellings of a long form's first word
            named.update(present.intersection(self._readings.spellings.get(word, ())))
        known = ChainMap(own, self._acronyms)
        read = self._readings.read
        readings = {token: read(token, known, self._readings[token][3], local) for token in named}
        corpus = self._long_forms.forms
        forms = {word: sorted([*local[word], *corpus.get(word, ())], key=len, reverse=True) for word in local}
        return list(map(readings.get, tokens, looked)), forms


def _written_long_form(
    tokens: Sequence[str], i: int, word: str, long_forms: Sequence[list[str]]
) -> tuple[str, int] | None:
    """(unit, tokens it covers) of the first of `long_forms` (word lists that start with `word`,
    longest first) the text writes out from token `i`, whose lower case is `word`."""
    after = tokens[i + 1].lower() if i + 1 < len(tokens) else None
    for long_form in long_forms:
        size = len(long_form)
        # Most long forms differ in their second word: a cheap test first ("deep" starts 14).
        if (size > 2 and long_form[1] != after) or (
            size == 2 and (after is None or singular_word(after) != long_form[1])
        ):
            continue
        written = [word] + [t.lower() for t in tokens[i + 1 : i + size]]
        if written[:-1] == long_form[:-1] and singular_word(written[-1]) == long_form[-1]:
            return sys.intern(" ".join(written)), size
    return None
