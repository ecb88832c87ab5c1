"""How one text's phrases score (`_best_phrases`): by use, position, specificity against the corpus
(`KeywordStatistics`, `_corpus_factors`) and whether they end in a noun (`_nounness`)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Set
from dataclasses import dataclass

from lib.stages.phrases import singular_word

from .counting import _Doc
from .dedup import _distinct
from .words import _ADJECTIVE_ENDINGS, _MAYBE_ADJECTIVE_ENDINGS, GENERIC_HEADS

# The score's tuned constants (`_best_phrases`, `_corpus_factors`, `_nounness`): bench/keywords.py
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
    document_frequency: Counter
    uses: Counter  # in the whole corpus
    ends: Counter  # uses at a run's end, in the whole corpus
    cased: dict[str, str]


# What a phrase's score takes from the corpus alone (`_corpus_factors`): specificity, length bonus,
# whether the corpus often ends a run with it, nounness.
CorpusFactors = tuple[float, float, bool, float]


def _best_phrases(doc: _Doc, statistics: KeywordStatistics, top_n: int, shared: dict[str, CorpusFactors]) -> list[str]:
    """One text's `top_n` keyphrases as shown; `shared` memoises `_corpus_factors` of the phrases
    several texts use (a phrase one text uses is scored once: a memo of those would only grow)."""
    score = {}
    for key, count, first, _, ended in doc.entries():
        in_several = statistics.document_frequency[key] > 1
        factors = shared.get(key) if in_several else None
        if factors is None:
            factors = _corpus_factors(key, statistics)
            if in_several:
                shared[key] = factors
        specificity, length, complete_in_corpus, nounness = factors
        position = 1 + TITLE_BONUS * (first == 0) + POSITION_BONUS / (1 + first)
        # A phrase said once in one paper only is more often a chance word run than a concept.
        repeated = 1.0 if count > 1 or in_several else SINGLETON
        # A phrase the text always continues ("arbitrary linear" dynamical systems) is a fragment,
        # unless the corpus often ends a run with it: "deep learning" in "deep learning models".
        complete = 1.0 if ended or complete_in_corpus else FRAGMENT
        score[key] = (1 + math.log(count)) * specificity * position * repeated * length * complete * nounness
    ranked = sorted(score, key=lambda k: (-score[k], k))  # ties alphabetical: deterministic
    chosen = _distinct(ranked, dict(zip(doc.keys, doc.numbers[0::3])), score, top_n, statistics.uses)
    forms = dict(zip(doc.keys, doc.forms))
    return [" ".join(statistics.cased.get(w, w) for w in forms[k].split(" ")) for k in chosen]


def _corpus_factors(key: str, statistics: KeywordStatistics) -> CorpusFactors:
    """What a phrase's score takes from the corpus alone: its specificity, its length bonus, whether
    the corpus often ends a run with it, and its `_nounness`."""
    n, document_frequency = statistics.n, statistics.document_frequency
    idf = math.log((n + 1) / (document_frequency[key] + 1))
    if " " in key:
        # A word run many texts repeat is a term of the field ("reinforcement learning",
        # "large language model"), the kind authors list; one few texts use is the paper's own
        # ("spurious local minima"). Either counts; a run in between is more often a passing one.
        specificity = IDF_FLOOR + max(idf, math.log(document_frequency[key]))
    else:
        specificity = SINGLE_IDF_FLOOR + idf
    length = 1 + LENGTH_BONUS * key.count(" ")
    complete_in_corpus = statistics.ends[key] >= TAIL_SHARE * statistics.uses[key]
    return specificity, length, complete_in_corpus, _nounness(key, statistics.tail, statistics.relational)


def _nounness(key: str, tail: Mapping[str, float], relational: Set[str]) -> float:
    """Up to 1: whether the phrase ends in a word the corpus uses as a noun.

    A single word must be one more clearly ("symmetric" alone is no keyphrase), so must a word
    with an adjective's ending ("reverse diffusive"), and a generic or relational head needs a
    noun before it ("inference efficiency", not "current methods" or "wide range").
    """
    words = key.split(" ")
    last = words[-1]
    needed = SINGLE_TAIL_SHARE if len(words) == 1 else TAIL_SHARE
    if last.endswith(_ADJECTIVE_ENDINGS) or (
        len(words) == 1 and last.endswith(_MAYBE_ADJECTIVE_ENDINGS) and not last.endswith("ment")
    ):
        needed *= 2
    factor = min(1.0, tail.get(last, 1.0) / needed)
    if len(words) > 1 and (last in GENERIC_HEADS or last in relational or singular_word(last) in GENERIC_HEADS):
        factor *= min(1.0, tail.get(words[-2], 1.0) / TAIL_SHARE)
    return factor
