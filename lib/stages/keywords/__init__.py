"""Per-paper keyphrases: noun-phrase-like word runs, acronyms resolved, scored by use, position and specificity.

Candidates are runs of content words between stop words, punctuation, verbs and adverbs: the
closest a tagger-free extractor gets to noun phrases. An acronym the text defines ("graph neural
networks (GNNs)") is one unit that reads as its long form wherever the text uses either.

One module per concern: `words` (the word lists and tokens), `roles` (what the corpus uses each word
as: verbs, gerunds, relational nouns, adjectives), `counting` (each text's phrases, counted and
packed), `scoring` (`KeywordStatistics` and the score) and `dedup` (near-duplicates dropped). This
module makes the corpus pass and holds the entry points.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import pandas as pd

from lib.errors import ParameterError
from lib.stages.acronyms import acronym_definitions, corpus_acronyms, long_form_index, text_units
from lib.stages.phrases import display_case

from .counting import _count_phrases, _Doc, _phrase_totals, _Unit
from .roles import _chunks, _pieces, _tail_share, _word_roles
from .scoring import CorpusFactors, KeywordStatistics, _best_phrases
from .words import _tokens

__all__ = ["KeywordStatistics", "extract_keywords", "keyword_statistics", "keywords_table"]


def extract_keywords(
    texts: Sequence[str], top_n: int = 10, statistics: KeywordStatistics | None = None
) -> list[list[str]]:
    """Up to `top_n` keyphrases per text, best first; `statistics` are the corpus's when `texts` is
    a slice of it (default: `texts` are the whole corpus).

    A phrase scores by how often the text uses it; by where it first does (the first sentence, the
    title in `analysis_texts`, counts five times a late one); by how specific it is (a single word:
    its IDF plus a floor; a multi-word phrase: a higher floor plus its IDF or, for a term many texts
    repeat, the log of how many do, whichever is larger, so a field's terms count as much as a
    paper's own); by whether its last word is one the corpus ends phrases with (nouns do,
    adjectives rarely); and it loses half when the text and the corpus mostly continue it (a
    fragment such as "arbitrary linear"). Phrases have at most `MAX_NGRAM` words, but an acronym's
    long form alone. Acronyms the text defines count as their long form. Singular/plural twins,
    stem twins and phrases inside a better one are dropped. Phrases are lower case but for
    acronyms and mixed-case names, shown as the corpus writes them.
    """
    if top_n < 1:
        raise ParameterError(f"top_n must be at least 1; got {top_n}")
    if statistics is None:
        statistics, docs = _corpus(texts)
    else:
        tokens = _tokens(texts)
        units = _units(tokens, [acronym_definitions(t) for t in tokens], statistics.acronyms, statistics.long_forms)
        docs = _phrase_docs(units, statistics)
    shared: dict[str, CorpusFactors] = {}
    return [_best_phrases(doc, statistics, top_n, shared) for doc in docs]


def keyword_statistics(texts: Sequence[str]) -> KeywordStatistics:
    """The corpus statistics of `texts` that `extract_keywords` scores any slice of them with."""
    return _corpus(texts)[0]


def _units(
    tokens: Sequence[list[str]],
    definitions: Sequence[Sequence[tuple[int, int, str, str]]],
    acronyms: dict[str, str],
    long_forms: dict[str, list[list[str]]],
) -> list[list[tuple[str, int]]]:
    """Each text's `text_units`, one tuple per distinct (unit, sentence) for all the texts: the units
    of a corpus run to tens of millions, too many for a tuple each."""
    pool: dict[tuple[str, int], tuple[str, int]] = {}
    return [
        [pool.setdefault(u, u) for u in text_units(t, d, acronyms, long_forms)] for t, d in zip(tokens, definitions)
    ]


def _corpus(texts: Sequence[str]) -> tuple[KeywordStatistics, list[_Doc]]:
    """The corpus statistics of `texts` and each text's counted phrases, in one pass over them."""
    # Each step's input is let go as soon as the next is made: over a corpus every one of them holds
    # a reference per word of every text.
    tokens = _tokens(texts)
    definitions = [acronym_definitions(t) for t in tokens]
    acronyms = corpus_acronyms(definitions)
    long_forms = long_form_index(acronyms.values())
    units = _units(tokens, definitions, acronyms, long_forms)
    del tokens, definitions
    verbs, maybe_verbs, relational = _word_roles(units)
    runs, gerunds = _chunks(units, verbs, maybe_verbs)
    words: Counter = Counter()
    tails: Counter = Counter()
    described: dict[str, _Unit] = {}
    docs = []
    # Taken from the end, so each text's units go once its phrases are counted.
    units.reverse()
    runs.reverse()
    while units:
        docs.append(_count_phrases(_pieces(units.pop(), runs.pop(), gerunds), described, relational, words, tails))
    document_frequency, uses, ends = _phrase_totals(docs)
    statistics = KeywordStatistics(
        n=len(texts),
        acronyms=acronyms,
        long_forms=long_forms,
        verbs=frozenset(verbs),
        maybe_verbs=frozenset(maybe_verbs),
        relational=frozenset(relational),
        gerunds=frozenset(gerunds),
        tail=_tail_share(words, tails),
        document_frequency=document_frequency,
        uses=uses,
        ends=ends,
        cased=display_case(texts),
    )
    return statistics, docs


def _phrase_docs(units: Sequence[Sequence[tuple[str, int]]], statistics: KeywordStatistics) -> list[_Doc]:
    """Each text's counted phrases, its words' roles taken from the corpus's statistics."""
    runs, _ = _chunks(units, statistics.verbs, statistics.maybe_verbs)
    described: dict[str, _Unit] = {}
    return [
        _count_phrases(_pieces(own, own_runs, statistics.gerunds), described, statistics.relational)
        for own, own_runs in zip(units, runs)
    ]


def keywords_table(
    papers: pd.DataFrame, texts: Sequence[str], top_n: int = 10, statistics: KeywordStatistics | None = None
) -> pd.DataFrame:
    """`paper_id` and `keywords` columns for the papers whose texts are given, in the same order
    (`statistics`: the whole list's, when `papers` is a slice of it)."""
    keywords = extract_keywords(texts, top_n, statistics)
    return pd.DataFrame({"paper_id": papers["paper_id"].to_numpy(), "keywords": keywords})
