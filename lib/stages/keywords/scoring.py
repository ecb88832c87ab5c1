"""How each text's phrases score (`_keyphrases`): by use, position, specificity against the corpus
(`KeywordStatistics`, `_corpus_factors`) and whether they end in a noun (`_nounness`).

Scored for all texts at once: what a phrase takes from the corpus once per distinct phrase, each
use's product in NumPy (the same float64 operations, in the same order, as one at a time), logs from
`math` once per distinct argument. Only the best few per text are looked at one by one (`_distinct`).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass

import numpy as np

from lib.stages.phrases import cased_form, singular_word

from .counting import _Forms, _Phrases
from .dedup import _distinct
from .words import _ADJECTIVE_ENDINGS, _MAYBE_ADJECTIVE_ENDINGS, GENERIC_HEADS

# The score's tuned constants (`_scores`, `_corpus_factors`, `_nounness`): bench/keywords.py
# measures them as exact F1@5 against YAKE's in the same run, bench/meaning.py as `key F1@5`
# (docs/meaning.md: tuned on colm2025's author keywords, iclr2018 held out).
# Added to a multi-word phrase's IDF (or log document frequency): a word run is more specific than
# a word. Chosen by hand; bench/keywords.py measures it.
IDF_FLOOR = 3.0
# Added to a single word's IDF, so a word every text uses still scores. Chosen by hand;
# bench/keywords.py measures it.
SINGLE_IDF_FLOOR = 1.0
# Weight of a phrase the text first uses in its first sentence (the title in `analysis_texts`),
# and of an early one (divided by 1 + its first sentence's number): a title phrase counts five
# times a late one. Set with FRAGMENT: the three together raised exact F1@5 on colm2025
# (bench/keywords.py).
TITLE_BONUS = 2.0
POSITION_BONUS = 2.0
# Factor of a phrase said once in one text only: more often a chance word run than a concept.
# Chosen by hand; bench/keywords.py measures it.
SINGLETON = 0.5
# Bonus per word beyond a phrase's first. Chosen by hand; bench/keywords.py measures it.
LENGTH_BONUS = 0.15
# The share of a word's uses inside runs that must end one for the word to be a noun
# (`_nounness`), and of a phrase's uses that must end a run for it to be complete in the corpus
# (`_corpus_factors`). Chosen by hand; bench/keywords.py measures it.
TAIL_SHARE = 0.25
# TAIL_SHARE for a single word, which must be a noun more clearly. Chosen by hand;
# bench/keywords.py measures it.
SINGLE_TAIL_SHARE = 0.3
# Factor of a fragment: a phrase the text always continues and the corpus mostly does. Set with
# TITLE_BONUS and POSITION_BONUS (see there; bench/keywords.py).
FRAGMENT = 0.5


@dataclass(frozen=True)
class KeywordStatistics:
    """What scoring one paper's phrases takes from the whole list (`keyword_statistics`).

    Keyphrases are judged against the corpus: which words it uses as verbs, which acronyms two of
    its texts define, how many texts use a phrase (IDF). A slice of the papers scored with the
    whole list's statistics gets exactly the keyphrases the whole list's build gives it, which is
    what lets the keywords stage run partition by partition (lib.builder.parallel).
    """

    n: int  # texts in the corpus
    acronyms: dict[str, str]
    long_forms: dict[str, list[list[str]]]
    verbs: frozenset[str]
    maybe_verbs: frozenset[str]
    relational: frozenset[str]
    gerunds: frozenset[str]
    tail: dict[str, float]
    phrases: list[str]  # the corpus's phrases, sorted: the three arrays below are by their places
    document_frequency: np.ndarray
    uses: np.ndarray  # in the whole corpus
    ends: np.ndarray  # uses at a run's end, in the whole corpus
    cased: dict[str, str]


def _keyphrases(table: _Phrases, statistics: KeywordStatistics, top_n: int) -> list[list[str]]:
    """Each text's `top_n` keyphrases as shown, from its counted phrases (`_phrase_table`)."""
    score, corpus_uses = _scores(table, statistics)
    texts = len(table.bounds) - 1
    shown = _Shown(table.forms, statistics.cased)
    keyphrases: list[list[str]] = []
    for first in range(0, texts, _TEXTS_AT_ONCE):
        bounds = table.bounds[first : min(first + _TEXTS_AT_ONCE, texts) + 1]
        keyphrases += _chosen(table, shown, top_n, (score, corpus_uses), bounds)
    return keyphrases


# Texts ranked and made Python lists at once (`_chosen`): a NumPy slice per text cost more than
# choosing its keyphrases, and sorting a few thousand texts' entries at a time less than all at once.
_TEXTS_AT_ONCE = 4096


class _Shown(dict[int, str]):
    """Written form (its number in `forms`) -> the phrase as shown (`_shown`): texts share many of
    their best phrases, each spelled once."""

    def __init__(self, forms: _Forms, cased: Mapping[str, str]) -> None:
        super().__init__()
        self.forms, self.cased = forms, cased

    def __missing__(self, number: int) -> str:
        self[number] = shown = cased_form(self.forms.spelled(number), self.cased)
        return shown


def _chosen(
    table: _Phrases,
    shown: _Shown,
    top_n: int,
    scored: tuple[np.ndarray, np.ndarray],
    bounds: np.ndarray,
) -> list[list[str]]:
    """The keyphrases of the texts whose entries `bounds` delimits; `scored` holds every entry's
    score and its phrase's uses in the corpus."""
    low, high = int(bounds[0]), int(bounds[-1])
    score, corpus_uses = scored
    # Entries run by text, then by phrase, which sorts as its key: a stable sort by text and falling
    # score leaves ties alphabetical, as deterministic as the score.
    order = low + np.lexsort((-score[low:high], np.repeat(np.arange(len(bounds) - 1), np.diff(bounds))))
    phrase, count, scores, uses, form = (
        column[order].tolist() for column in (table.phrase, table.count, score, corpus_uses, table.form)
    )
    ranked = list(map(table.phrases.__getitem__, phrase))
    keyphrases = []
    for start, stop in zip((bounds[:-1] - low).tolist(), (bounds[1:] - low).tolist()):
        chosen = _distinct(ranked[start:stop], count[start:stop], scores[start:stop], top_n, uses[start:stop])
        keyphrases.append([shown[form[start + i]] for i in chosen])
    return keyphrases


def _scores(table: _Phrases, statistics: KeywordStatistics) -> tuple[np.ndarray, np.ndarray]:
    """Each entry's score, and its phrase's uses in the corpus.

    A phrase scores by how often the text uses it, where it first does, how specific it is, its
    length and whether it ends in a noun (`_corpus_factors`). The product runs left to right, as
    the same product of Python floats would."""
    # A phrase the corpus lacks (`statistics` of another list) counts as used nowhere: the 0 appended.
    place = _places(table.phrases, statistics.phrases)
    texts, uses, ends = (
        np.append(c, 0)[place] for c in (statistics.document_frequency, statistics.uses, statistics.ends)
    )
    specificity, length, complete_in_corpus, nounness = _corpus_factors(table.phrases, texts, uses, ends, statistics)
    phrase, count = table.phrase, table.count
    score = (
        _values(lambda c: 1 + math.log(c), count)
        * specificity[phrase]
        * _values(lambda first: 1 + TITLE_BONUS * (first == 0) + POSITION_BONUS / (1 + first), table.first)
        # A phrase said once in one paper only is more often a chance word run than a concept.
        * np.where((count > 1) | (texts[phrase] > 1), 1.0, SINGLETON)
        * length[phrase]
        # A phrase the text always continues ("arbitrary linear" dynamical systems) is a fragment,
        # unless the corpus often ends a run with it: "deep learning" in "deep learning models".
        * np.where((table.ended > 0) | complete_in_corpus[phrase], 1.0, FRAGMENT)
        * nounness[phrase]
    )
    return score, uses[phrase]


def _places(phrases: list[str], corpus: list[str]) -> np.ndarray:
    """Each of `phrases`' place in `corpus` (both sorted), or -1."""
    if phrases is corpus:  # the corpus's own phrases (`_corpus`)
        return np.arange(len(phrases))
    found = [bisect_left(corpus, p) for p in phrases]
    return np.array([i if i < len(corpus) and corpus[i] == p else -1 for i, p in zip(found, phrases)], dtype=np.intp)


def _values(value: Callable[[int], float], arguments: np.ndarray) -> np.ndarray:
    """`value` of each of `arguments` (whole numbers, 0 and up), called once per distinct one."""
    table = np.zeros(int(arguments.max()) + 1 if len(arguments) else 0)
    distinct = np.flatnonzero(np.bincount(arguments, minlength=len(table)))
    table[distinct] = [value(a) for a in distinct.tolist()]
    return table[arguments]


# What a phrase's score takes from the corpus alone (`_corpus_factors`), per phrase: specificity,
# length bonus, whether the corpus often ends a run with it, nounness.
CorpusFactors = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _corpus_factors(
    phrases: Sequence[str],
    document_frequency: np.ndarray,
    uses: np.ndarray,
    ends: np.ndarray,
    statistics: KeywordStatistics,
) -> CorpusFactors:
    """What each phrase's score takes from the corpus alone: its specificity, its length bonus, whether
    the corpus often ends a run with it, and its `_nounness`."""
    n = statistics.n
    spaces = np.fromiter((p.count(" ") for p in phrases), dtype=np.intp, count=len(phrases))
    several = spaces > 0
    specificity = np.empty(len(phrases))
    # A word run many texts repeat is a term of the field ("reinforcement learning",
    # "large language model"), the kind authors list; one few texts use is the paper's own
    # ("spurious local minima"). Either counts; a run in between is more often a passing one.
    specificity[several] = _values(
        lambda d: IDF_FLOOR + max(math.log((n + 1) / (d + 1)), math.log(d)), document_frequency[several]
    )
    specificity[~several] = _values(
        lambda d: SINGLE_IDF_FLOOR + math.log((n + 1) / (d + 1)), document_frequency[~several]
    )
    length = _values(lambda words: 1 + LENGTH_BONUS * words, spaces)
    complete_in_corpus = ends >= TAIL_SHARE * uses
    return specificity, length, complete_in_corpus, _nounness(phrases, statistics.tail, statistics.relational)


def _nounness(phrases: Sequence[str], tail: Mapping[str, float], relational: Set[str]) -> np.ndarray:
    """Per phrase, up to 1: whether it ends in a word the corpus uses as a noun.

    A single word must be one more clearly ("symmetric" alone is no keyphrase), so must a word
    with an adjective's ending ("reverse diffusive"), and a generic or relational head needs a
    noun before it ("inference efficiency", not "current methods" or "wide range"). Worked out
    once per last word: a corpus's phrases share a few ten thousand.
    """
    alone: dict[str, float] = {}
    heads: dict[str, tuple[float, bool]] = {}
    factors = []
    for phrase in phrases:
        rest, _, last = phrase.rpartition(" ")
        if not rest:
            factor = alone.get(last)
            if factor is None:
                factor = alone[last] = _ends_noun(last, tail, True)
            factors.append(factor)
            continue
        head = heads.get(last)
        if head is None:
            head = heads[last] = (
                _ends_noun(last, tail, False),
                last in GENERIC_HEADS or last in relational or singular_word(last) in GENERIC_HEADS,
            )
        factor, needs_noun = head
        if needs_noun:
            factor *= min(1.0, tail.get(rest.rpartition(" ")[2], 1.0) / TAIL_SHARE)
        factors.append(factor)
    return np.array(factors, dtype=float)


def _ends_noun(last: str, tail: Mapping[str, float], single: bool) -> float:
    """Up to 1: how clearly the corpus uses `last`, a phrase's last word, as a noun."""
    needed = SINGLE_TAIL_SHARE if single else TAIL_SHARE
    if last.endswith(_ADJECTIVE_ENDINGS) or (
        single and last.endswith(_MAYBE_ADJECTIVE_ENDINGS) and not last.endswith("ment")
    ):
        needed *= 2
    return min(1.0, tail.get(last, 1.0) / needed)
