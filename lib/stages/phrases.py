"""Phrase and text utilities shared by the text stages (keywords, topics, subfields): stop words,
coarse 1-3-word candidate phrases between them and how often each text uses each (`phrase_counts`),
crude singulars (`singular`, `singular_word`, `phrase_key`), and the corpus's casing."""

from __future__ import annotations

import re
import string
from array import array
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache
from itertools import chain, groupby

import numpy as np
from scipy import sparse
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
MAX_NGRAM = 3  # `candidate_phrases` spells out its 2- and 3-word phrases
# What breaks a phrase: stop words and every one-character token `_TOKEN` yields (punctuation, a lone letter).
_BREAKS = STOP_WORDS | frozenset('.,;:!?()[]{}"') | frozenset(string.ascii_lowercase)
_PLURALS_IN_ES = frozenset("caches headaches niches avalanches moustaches".split())
_CASED_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-+][A-Za-z0-9]+)*\+?")


def candidate_phrases(text: str) -> list[str]:
    """All 1-3-word phrases of `text` that neither start, end nor span a stop word or punctuation.

    Called on every text by subfields and topic labels, so written for speed: the runs between
    breaks are found by `groupby` with a set lookup for key, both in C, and each run's 2- and 3-word
    phrases are zipped from its slices (a loop over the tokens in Python, and n-grams zipped from a
    generator of slices, were slower). A run gives its words, then its 2-word phrases, then its 3-word ones."""
    phrases: list[str] = []
    for is_break, run in groupby(_TOKEN.findall(NOT_PROSE.sub(" . ", text.lower())), _BREAKS.__contains__):
        if is_break:
            continue
        chunk = list(run)
        phrases += chunk
        if len(chunk) > 1:  # the runs of MAX_NGRAM (3) words or fewer, zipped directly
            phrases += map(" ".join, zip(chunk, chunk[1:]))
            if len(chunk) > 2:
                phrases += map(" ".join, zip(chunk, chunk[1:], chunk[2:]))
    return phrases


class _Numbering(dict):
    """Numbers keys as first met, from `first` on: a missing key gets the next number, so a lookup is
    all a use takes. `known` keys keep the numbers they come with."""

    def __init__(self, known: dict[str, int] | None = None, first: int = 0) -> None:
        super().__init__(known or {})
        self.next = first

    def __missing__(self, key: str) -> int:
        self[key] = number = self.next
        self.next += 1
        return number


# What `phrase_counts` returns: how often each text (row) uses each phrase (column), and the phrases.
PhraseCounts = tuple[sparse.csr_matrix, list[str]]


def phrase_counts(texts: Sequence[str]) -> PhraseCounts:
    """How often each text (row) uses each candidate phrase (column), and the phrases, in the order
    first met: what scikit-learn's CountVectorizer counts, without its dict per text, its Python int
    per use and its sort of every phrase (2 million over a corpus) that no caller needs."""
    column_of = _Numbering()
    return _counted(map(candidate_phrases, texts), column_of), list(column_of)


def word_counts(texts: Sequence[str]) -> PhraseCounts:
    """How often each text (row) uses each of its `content_words` (column), and the words, in the
    order first met: the words a free text can share with a paper, rare ones included."""
    column_of = _Numbering()
    return _counted(map(content_words, texts), column_of), list(column_of)


def content_words(text: str) -> list[str]:
    """The words of `text` that can carry its subject, singular ("bandits" -> "bandit"): no stop
    word, punctuation, lone letter or markup."""
    return [singular_word(word) for word in _TOKEN.findall(NOT_PROSE.sub(" . ", text.lower())) if word not in _BREAKS]


def stacked_counts(first: PhraseCounts, texts: Sequence[str]) -> sparse.csr_matrix:
    """`phrase_counts` of the texts counted in `first` followed by `texts`, from `first` (a list's
    counts, made once for all its uses): the same matrix, counting only `texts`."""
    counts, phrases = first
    candidates = [candidate_phrases(text) for text in texts]
    used = set(chain.from_iterable(candidates))
    # Only the phrases `texts` use are looked up among `first`'s: numbering all of them took a dict of
    # millions on a corpus. Phrases new in `texts` are numbered after `first`'s, as first met.
    column_of = _Numbering({p: i for i, p in enumerate(phrases) if p in used}, first=len(phrases))
    more = _counted(candidates, column_of)
    # `first`'s rows lack only the columns of phrases new in `texts`: the same arrays, a wider shape.
    widened = sparse.csr_matrix((counts.data, counts.indices, counts.indptr), shape=(counts.shape[0], more.shape[1]))
    return sparse.vstack([widened, more], format="csr")


def _counted(candidates: Iterable[list[str]], column_of: _Numbering) -> sparse.csr_matrix:
    """How often each text (row, given by its candidate phrases) uses each column of `column_of`,
    which numbers the phrases not yet in it."""
    columns = array("i")  # 32-bit, as the counts: 20 million uses over a corpus, in the topics stage's peak
    ends = [0]
    for phrases in candidates:
        columns.extend(map(column_of.__getitem__, phrases))
        ends.append(len(columns))
    counts = sparse.csr_matrix(
        (np.ones(len(columns), dtype=np.int32), np.frombuffer(columns, dtype=np.int32), np.array(ends)),
        shape=(len(ends) - 1, column_of.next),
    )
    counts.sum_duplicates()
    return counts


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
