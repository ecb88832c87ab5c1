"""Acronyms a text defines ("graph neural networks (GNNs)") and the text's units, in which a defined
acronym and its long form written out are one unit that reads as the long form.

Used by the keyphrase extractor (`lib.stages.keywords`) on its cased tokens.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from collections.abc import Mapping, Sequence

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from lib.stages.phrases import phrase_key, singular_word

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
    defined: dict[str, Counter] = {}
    for doc in definitions:
        for short, long_form in {(_acronym_key(d[2]), phrase_key(d[3])) for d in doc}:
            defined.setdefault(short, Counter())[long_form] += 1
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


def text_units(
    tokens: Sequence[str],
    definitions: Sequence[tuple[int, int, str, str]],
    corpus_acronyms: Mapping[str, str],
    corpus_long_forms: Mapping[str, list[list[str]]],
) -> list[tuple[str, int]]:
    """(lower-case unit, sentence index) per word of a text, `` for punctuation and numbers (`:` for a colon).

    A defined acronym becomes one unit that reads as its long form, and so does the long form
    written out, so "GNNs" and "graph neural networks" are one phrase and no phrase cuts through
    one ("attributing large language"). The text's own definitions come before the corpus's.
    """
    known = {**corpus_acronyms, **{_acronym_key(short): long_form for _, _, short, long_form in definitions}}
    local = long_form_index(long_form for _, _, _, long_form in definitions)
    defined_at = {start: (end, long_form) for start, end, _, long_form in definitions}
    units: list[tuple[str, int]] = []
    sentence, i = 0, 0
    while i < len(tokens):
        token = tokens[i]
        if defined_at and i in defined_at:
            i, defined = defined_at[i]
            units.append((defined, sentence))
            continue
        i += 1
        # Numbers and sizes ("8B", "128k") end a phrase; dimensions ("3D") belong to one.
        if not token[0].isalpha() and not (token[0].isdigit() and token[-1] in "dD" and token[:-1].isdigit()):
            units.append((":" if token == ":" else "", sentence))
            sentence += token in _SENTENCE_END
        elif not token.islower() and (token in known or (token[-1] == "s" and token[:-1] in known)):
            units.append((known.get(token) or known[token[:-1]], sentence))
        else:
            word = token.lower()
            long_forms = corpus_long_forms.get(word, ())
            if word in local:
                long_forms = sorted([*local[word], *long_forms], key=len, reverse=True)
            for long_form in long_forms:
                written = [word] + [t.lower() for t in tokens[i : i + len(long_form) - 1]]
                if written[:-1] == long_form[:-1] and singular_word(written[-1]) == long_form[-1]:
                    word, i = " ".join(written), i + len(long_form) - 1
                    break
            # One string per distinct word for the whole corpus, not one per use: a corpus's units
            # run to tens of millions of words.
            units.append((sys.intern(word), sentence))
    return units
