"""Per-paper keyphrases: noun-phrase-like word runs, acronyms resolved, scored by use, position and specificity.

Candidates are runs of content words between stop words, punctuation, verbs and adverbs: the
closest a tagger-free extractor gets to noun phrases. An acronym the text defines ("graph neural
networks (GNNs)") is one unit that reads as its long form wherever the text uses either.

One module per concern: `words` (the word lists and tokens), `units` (the texts' units as numbers,
end to end), `roles` (what the corpus uses each word as: verbs, gerunds, relational nouns,
adjectives), `counting` (each text's phrases, counted), `scoring` (`KeywordStatistics` and the
score) and `dedup` (near-duplicates dropped). This module makes the corpus pass and holds the entry
points.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from lib.errors import ParameterError
from lib.stages.acronyms import acronym_definitions, corpus_acronyms, long_form_index
from lib.stages.phrases import display_case

from .counting import _described, _phrase_table, _phrase_totals, _Phrases, _tail_share
from .roles import _gerunds, _inside, _kept, _word_roles
from .scoring import KeywordStatistics, _keyphrases
from .units import _encode
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
        statistics, table = _corpus(texts)
    else:
        tokens = _tokens(texts)
        units = _encode(tokens, [acronym_definitions(t) for t in tokens], statistics.acronyms, statistics.long_forms)
        del tokens
        kept = _kept(units, _inside(units, statistics.verbs, statistics.maybe_verbs), statistics.gerunds)
        table = _phrase_table(units, kept, _described(units, statistics.relational))
    return _keyphrases(table, statistics, top_n)


def keyword_statistics(texts: Sequence[str]) -> KeywordStatistics:
    """The corpus statistics of `texts` that `extract_keywords` scores any slice of them with."""
    return _corpus(texts)[0]


def _corpus(texts: Sequence[str]) -> tuple[KeywordStatistics, _Phrases]:
    """The corpus statistics of `texts` and each text's counted phrases, in one pass over them."""
    tokens = _tokens(texts)
    definitions = [acronym_definitions(t) for t in tokens]
    acronyms = corpus_acronyms(definitions)
    long_forms = long_form_index(acronyms.values())
    units = _encode(tokens, definitions, acronyms, long_forms)
    del tokens, definitions  # a reference per word of every text
    verbs, maybe_verbs, relational = _word_roles(units)
    inside = _inside(units, verbs, maybe_verbs)
    gerunds = _gerunds(units, inside)
    kept = _kept(units, inside, gerunds)
    described = _described(units, relational)
    table = _phrase_table(units, kept, described)
    document_frequency, uses, ends = _phrase_totals(table)
    statistics = KeywordStatistics(
        n=len(texts),
        acronyms=acronyms,
        long_forms=long_forms,
        verbs=frozenset(verbs),
        maybe_verbs=frozenset(maybe_verbs),
        relational=frozenset(relational),
        gerunds=frozenset(gerunds),
        tail=_tail_share(units, kept, described),
        phrases=table.phrases,
        document_frequency=document_frequency,
        uses=uses,
        ends=ends,
        cased=display_case(texts),
    )
    return statistics, table


def keywords_table(
    papers: pd.DataFrame, texts: Sequence[str], top_n: int = 10, statistics: KeywordStatistics | None = None
) -> pd.DataFrame:
    """`paper_id` and `keywords` columns for the papers whose texts are given, in the same order
    (`statistics`: the whole list's, when `papers` is a slice of it)."""
    keywords = extract_keywords(texts, top_n, statistics)
    return pd.DataFrame({"paper_id": papers["paper_id"].to_numpy(), "keywords": keywords})
