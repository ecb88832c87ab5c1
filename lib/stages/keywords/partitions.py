"""`keyword_statistics` and `keywords_table` a partition (a slice of the texts) at a time: the same
statistics and keyphrases, each partition's counting done by its own task, in four rounds.

What the corpus pass decides is each a choice made from sums over the texts, and each round's
counts need the choices of the rounds before:
1. `first_counts`: which acronyms texts define and how words are cased; `agree_lexicon` decides the
   list's acronyms and display case;
2. `partition_units` reads each text's units with those acronyms, `role_counts` counts the uses
   the word roles are decided from; `agree_roles` decides the verbs and relational nouns;
3. `gerund_counts`, with those verbs; `agree_gerunds` decides the gerunds;
4. `count_phrases`: each text's phrases, cut at those gerunds, and their totals; `agree_statistics`
   makes the `KeywordStatistics` of the list, and `scored` each partition's keyphrases with them.

Each agreement is one task over the partitions' `Tally`s, small beside their texts; a partition's
texts, units and phrases stay where they were made. `lib.builder.keyword_partitions` runs the rounds
on a runner (a Dask cluster). Words and phrases travel as NumPy object arrays (see
`lib.stages.phrase_partitions`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from lib.stages.acronyms import acronym_definitions, acronym_uses, agreed_acronyms, long_form_index
from lib.stages.phrases import display_forms, written_chunks, written_words
from lib.stages.tallies import Tally, merged, tally

from .counting import _described, _phrase_table, _phrase_totals, _Phrases, _tail_counts, _tail_of
from .roles import _gerund_counts, _gerunds_of, _inside, _kept, _role_counts, _roles_of
from .scoring import KeywordStatistics, _keyphrases
from .units import _encode, _Units
from .words import _tokens


class Lexicon(NamedTuple):
    acronyms: dict[str, str]
    long_forms: dict[str, list[list[str]]]
    cased: dict[str, str]


class Roles(NamedTuple):
    verbs: frozenset[str]
    maybe_verbs: frozenset[str]
    relational: frozenset[str]


class CountedPhrases(NamedTuple):
    """Round 4 of a partition: its texts' phrases (for `scored`), and the totals `agree_statistics` takes."""

    table: _Phrases
    totals: tuple[Tally, Tally]  # phrase -> texts, uses, uses ending a piece; word key -> uses in pieces, at their ends


def first_counts(texts: Sequence[str]) -> tuple[Tally, Tally]:
    """Round 1, on a partition's texts (a list, or the object array a cluster holds them in):
    (acronym key, long form key) -> texts defining it; cased word -> uses."""
    texts = list(texts)
    uses = acronym_uses([acronym_definitions(tokens) for tokens in _tokens(texts)])
    written = written_words(written_chunks(texts))
    return tally(list(uses), [list(uses.values())]), tally(list(written), [list(written.values())])


def agree_lexicon(*parts: tuple[Tally, Tally]) -> Lexicon:
    """Round 1's agreement, on every partition's `first_counts` in partition order."""
    defined = merged([p[0] for p in parts])
    acronyms = agreed_acronyms(dict(zip(defined.keys.tolist(), defined.counts[0].tolist())))
    written = merged([p[1] for p in parts])
    return Lexicon(
        acronyms, long_form_index(acronyms.values()), display_forms(dict(zip(written.keys, written.counts[0].tolist())))
    )


def partition_units(texts: Sequence[str], lexicon: Lexicon) -> _Units:
    """Round 2: a partition's units (texts as `first_counts` takes them), read with the list's acronyms."""
    tokens = _tokens(list(texts))
    definitions = [acronym_definitions(t) for t in tokens]
    return _encode(tokens, definitions, lexicon.acronyms, lexicon.long_forms)


def role_counts(units: _Units) -> Tally:
    """Round 2, on a partition's units: the words' role counts."""
    return _used(units.vocab, _role_counts(units), _role_counts_in_use)


def _role_counts_in_use(counts: np.ndarray) -> np.ndarray:
    """Role counts that can move a decision: a word's (every row counts words only)."""
    return np.asarray(counts.any(axis=0))


def agree_roles(*tallies: Tally) -> Roles:
    words = merged(tallies)
    verbs, maybe_verbs, relational = _roles_of(words.keys.tolist(), words.counts)
    return Roles(frozenset(verbs), frozenset(maybe_verbs), frozenset(relational))


def gerund_counts(units: _Units, roles: Roles) -> Tally:
    """Round 3, on a partition's units."""
    return _used(units.vocab, _gerund_counts(units, _inside(units, roles.verbs, roles.maybe_verbs)), _gerund_uses)


def _gerund_uses(counts: np.ndarray) -> np.ndarray:
    """Gerund counts that can move a decision: an -ing word's used inside a run (its heads are among those uses)."""
    return counts[0] > 0


def _used(vocab: Sequence[str], counts: np.ndarray, in_use: Callable[[np.ndarray], np.ndarray]) -> Tally:
    """A tally of the units `in_use` marks: a partition's other units add nothing to any sum the
    agreement decides from, and its task would merge every partition's whole vocabulary."""
    kept = np.flatnonzero(in_use(counts))
    return tally(np.asarray(vocab, dtype=object)[kept].tolist(), counts[:, kept])


def agree_gerunds(*tallies: Tally) -> frozenset[str]:
    words = merged(tallies)
    return frozenset(_gerunds_of(words.keys.tolist(), words.counts))


def count_phrases(units: _Units, roles: Roles, gerunds: frozenset[str]) -> CountedPhrases:
    """Round 4, on a partition's units."""
    kept = _kept(units, _inside(units, roles.verbs, roles.maybe_verbs), gerunds)
    described = _described(units, roles.relational)
    table = _phrase_table(units, kept, described)
    totals = tally(table.phrases, np.stack(_phrase_totals(table)))
    return CountedPhrases(table, (totals, tally(described.keys, _tail_counts(units, kept, described))))


def totals_of(part: CountedPhrases) -> tuple[Tally, Tally]:
    """What `agree_statistics` takes of a partition's phrases: their totals, not its table."""
    return part.totals


def agree_statistics(
    n_texts: int, lexicon: Lexicon, roles: Roles, gerunds: frozenset[str], *parts: tuple[Tally, Tally]
) -> KeywordStatistics:
    """Round 4's agreement: the list's `KeywordStatistics`, from every partition's `totals_of` in order."""
    phrases = merged([p[0] for p in parts])
    order = np.argsort(phrases.keys, kind="stable")  # the phrases sorted, as one pass numbers them
    document_frequency, uses, ends = phrases.counts[:, order]
    words = merged([p[1] for p in parts])
    return KeywordStatistics(
        n=n_texts,
        acronyms=lexicon.acronyms,
        long_forms=lexicon.long_forms,
        verbs=roles.verbs,
        maybe_verbs=roles.maybe_verbs,
        relational=roles.relational,
        gerunds=gerunds,
        tail=_tail_of(words.keys.tolist(), words.counts),
        phrases=phrases.keys[order].tolist(),
        document_frequency=document_frequency,
        uses=uses,
        ends=ends,
        cased=lexicon.cased,
    )


def scored(part: CountedPhrases, paper_ids: np.ndarray, statistics: KeywordStatistics, top_n: int) -> pd.DataFrame:
    """A partition's keywords table (as `keywords_table`), from its round 4 phrases and its papers' ids."""
    return pd.DataFrame({"paper_id": paper_ids, "keywords": _keyphrases(part.table, statistics, top_n)})
