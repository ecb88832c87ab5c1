"""Phrase and text utilities shared by the text stages (keywords, topics, subfields): stop words,
coarse 1-3-word candidate phrases between them, crude singulars (`singular`, `singular_word`,
`phrase_key`), and the corpus's casing."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

# Words that carry no topic in an abstract, on top of English stop words.
GENERIC_WORDS = frozenset(
    """
    approach approaches paper papers propose proposed proposes novel new method methods result results
    work works show shows shown demonstrate demonstrates based using use used study studies problem
    problems task tasks performance existing effective efficient effectiveness efficiency framework
    various different significant significantly key extensive experiments experimental state art
    achieve achieves achieving improve improves improved improvement outperform outperforms
    leverage leverages address addresses challenge challenges provide provides recent recently
    however furthermore specifically particular introduce introduces present presents demonstrate
    theoretical empirical empirically theoretically paradigm setting settings way ways terms
    allows enables enable aim aims given able prior previous remains remain key crucial important
    limited lack stage stages wide widely common commonly simple strong better best large small
    require requires required extend extends emerge emerges generate generates employ employs
    consider considers obtain obtains yield yields achieved despite capable possess enhance enhances
    capabilities capability potential real-world critical fundamental open-source available
    towards toward via beyond rethinking revisiting position role perspective insights case
    """.split()
)
STOP_WORDS = ENGLISH_STOP_WORDS | GENERIC_WORDS

_TOKEN = re.compile(r"[a-z][a-z0-9]*(?:[-+][a-z0-9]+)*\+?|\d+[a-z][a-z0-9-]*|[.,;:!?()\[\]{}\"]")
# URLs, LaTeX commands and inline maths are markup, not phrases.
NOT_PROSE = re.compile(r"https?://\S+|www\.\S+|\\[a-z]+|\$[^$]*\$")
MAX_NGRAM = 3
_PLURALS_IN_ES = frozenset("caches headaches niches avalanches moustaches".split())
_CASED_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-+][A-Za-z0-9]+)*\+?")


def candidate_phrases(text: str) -> list[str]:
    """All 1-3-word phrases of `text` that neither start, end nor span a stop word or punctuation.

    Called on every text by keywords, subfields and topic labels, so written for speed: punctuation
    tokens are one character, and every longer token starts with a letter or digit (`_TOKEN`), so
    length and the stop words alone tell a phrase's words from its breaks."""
    phrases: list[str] = []
    chunk: list[str] = []
    for token in _TOKEN.findall(NOT_PROSE.sub(" . ", text.lower())):
        if len(token) < 2 or token in STOP_WORDS:
            if chunk:
                _add_ngrams(phrases, chunk)
                chunk = []
        else:
            chunk.append(token)
    if chunk:
        _add_ngrams(phrases, chunk)
    return phrases


def _add_ngrams(phrases: list[str], chunk: list[str]) -> None:
    """The chunk's 1- to MAX_NGRAM-word runs, shortest first, each length in order of its start."""
    phrases.extend(chunk)
    for n in range(2, min(MAX_NGRAM, len(chunk)) + 1):
        phrases.extend(map(" ".join, zip(*(chunk[i:] for i in range(n)))))


def singular(phrase: str) -> str:
    """A crude singular of a phrase's last word, to spot `model`/`models` as the same phrase."""
    head, _, last = phrase.rpartition(" ")
    if len(last) > 3 and last.endswith("ies"):
        last = last[:-3] + "y"
    elif len(last) > 3 and last.endswith("s") and not last.endswith(("ss", "us", "is")):
        last = last[:-1]
    return f"{head} {last}".strip()


@lru_cache(maxsize=1 << 16)
def singular_word(word: str) -> str:
    """`singular` for one word, also right for -sses/-shes/-ches/-xes plurals ("losses", "approaches")."""
    if len(word) > 4 and word.endswith(("sses", "shes", "ches", "xes")) and word not in _PLURALS_IN_ES:
        return word[:-2]
    return singular(word)


def phrase_key(phrase: str) -> str:
    """The phrase with its last word singular: one key for "model" and "models"."""
    head, space, last = phrase.rpartition(" ")
    return head + space + singular_word(last)


def display_case(texts: Sequence[str]) -> dict[str, str]:
    """Lower-case word -> the form to show: acronyms and mixed case ("LLMs", "CoT") as written."""
    written: Counter = Counter()
    for text in texts:
        written.update(_CASED_WORD.findall(text))
    forms: dict[str, Counter] = {}
    for word, count in written.items():
        # Title case ("Vision-Language", a sentence's first word) is how ordinary words are
        # capitalised, so it counts for the lower-case form; a shouted "VISION-LANGUAGE" in one
        # title then loses to fifty "Vision-Language" ones.
        # Most words have no capital past their first letter: they skip the split.
        tail = word[1:]
        mixed = tail != tail.lower() and any(c.isupper() for part in re.split(r"[-+]", word) for c in part[1:])
        lower = word.lower()
        if lower not in forms:
            forms[lower] = Counter()
        forms[lower][word if mixed else lower] += count
    shown = {lower: max(counter.items(), key=lambda item: (item[1], item[0]))[0] for lower, counter in forms.items()}
    return {lower: form for lower, form in shown.items() if form != lower}
