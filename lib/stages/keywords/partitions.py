"""`keyword_statistics` and `keywords_table` a partition (a slice of the texts) at a time: the same
statistics and keyphrases, each partition's counting done by its own task, in four rounds.

What the corpus pass decides is each a choice made from sums over the texts, and each round's
counts need the choices of the rounds before:
1. `first_read`: which acronyms texts define and how words are cased (`counts_of`), and the texts'
   tokens kept for round 2; `agree_lexicon` decides the list's acronyms and display case;
2. `partition_units` reads each text's units from its tokens with those acronyms, `role_counts`
   counts the uses the word roles are decided from; `agree_roles` decides the verbs and relational nouns;
3. `gerund_counts`, with those verbs; `agree_gerunds` decides the gerunds;
4. `count_phrases`: each text's phrases, cut at those gerunds, and their totals; `agree_statistics`
   makes the `KeywordStatistics` of the list but its phrases, from the words' totals added up;
   the phrases' totals are added up in buckets by their hashes (`bucket_totals`, `added_totals`),
   each partition finds its phrases' in their buckets (`found_totals`), and `scored` makes each
   partition's keyphrases with the list's statistics and its own phrases' totals (`with_phrases`).

Each agreement of rounds 1-3 is one task over the partitions' `Tally`s, small beside their texts;
a partition's texts, units and phrases stay where they were made. `lib.builder.keyword_partitions`
runs the rounds on a runner (a Dask cluster). Words and phrases travel as NumPy object arrays (see
`lib.stages.phrase_partitions`).
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import NamedTuple

import numpy as np
import pandas as pd

from lib.stages.acronyms import acronym_definitions, acronym_uses, agreed_acronyms, long_form_index
from lib.stages.key_hashes import CHECK_KEY, hashed_places, term_hashes
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


class PhraseTotals(NamedTuple):
    """Phrases by their hashes (`lib.stages.key_hashes`: `hashes` and `checks`) and their totals: the
    texts using each, its uses, and its uses ending a piece (`totals`, a row each). A partition's
    share in a bucket also has each phrase's place (`rows`) among the partition's phrases; a whole
    partition's totals (in its phrases' order) and a bucket's sum have none."""

    hashes: np.ndarray
    checks: np.ndarray
    totals: np.ndarray
    rows: np.ndarray


class FoundTotals(NamedTuple):
    """A partition's phrases in one bucket, by their place among its phrases (`rows`), with their
    totals in the whole list (`totals`, as `PhraseTotals.totals`): what scoring it takes of the bucket."""

    rows: np.ndarray
    totals: np.ndarray


_NO_ROWS = np.zeros(0, dtype=np.intp)


class CountedPhrases(NamedTuple):
    """Round 4 of a partition: its texts' phrases (for `scored`), their totals, and its word keys'
    uses in pieces and at their ends (`tail`)."""

    table: _Phrases
    totals: PhraseTotals
    tail: Tally


class FirstRead(NamedTuple):
    """Round 1 of a partition: its counts for `agree_lexicon` (`counts_of`), and its texts' tokens
    and acronym definitions pickled as one buffer, which round 2 reads instead of tokenizing the
    texts again."""

    counts: tuple[Tally, Tally]
    tokens: bytes


def first_read(texts: Sequence[str]) -> FirstRead:
    """Round 1, on a partition's texts (a list, or the object array a cluster holds them in): its
    counts, (acronym key, long form key) -> texts defining it and cased word -> uses, and its tokens."""
    texts = list(texts)
    tokens = _tokens(texts)
    definitions = [acronym_definitions(text_tokens) for text_tokens in tokens]
    uses = acronym_uses(definitions)
    written = written_words(written_chunks(texts))
    counts = tally(list(uses), [list(uses.values())]), tally(list(written), [list(written.values())])
    return FirstRead(counts, pickle.dumps((tokens, definitions), protocol=pickle.HIGHEST_PROTOCOL))


def counts_of(read: FirstRead) -> tuple[Tally, Tally]:
    """What `agree_lexicon` takes of a partition's round 1: its counts, not its tokens."""
    return read.counts


def agree_lexicon(*parts: tuple[Tally, Tally]) -> Lexicon:
    """Round 1's agreement, on every partition's `counts_of` in partition order."""
    defined = merged([p[0] for p in parts])
    acronyms = agreed_acronyms(dict(zip(defined.keys.tolist(), defined.counts[0].tolist())))
    written = merged([p[1] for p in parts])
    return Lexicon(
        acronyms, long_form_index(acronyms.values()), display_forms(dict(zip(written.keys, written.counts[0].tolist())))
    )


def partition_units(read: FirstRead, lexicon: Lexicon) -> _Units:
    """Round 2: a partition's units, from its round 1 tokens, read with the list's acronyms."""
    tokens, definitions = pickle.loads(read.tokens)
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
    totals = PhraseTotals(
        term_hashes(table.phrases),
        term_hashes(table.phrases, CHECK_KEY),
        np.stack(_phrase_totals(table)).astype(np.int64),
        _NO_ROWS,
    )
    return CountedPhrases(table, totals, tally(described.keys, _tail_counts(units, kept, described)))


def totals_of(part: CountedPhrases) -> PhraseTotals:
    """What the buckets of phrases take of a partition: its phrases' totals, not its table."""
    return part.totals


def tail_of(part: CountedPhrases) -> Tally:
    """What the list's `tail` takes of a partition: its word keys' uses in pieces and at their ends."""
    return part.tail


def added_tails(*tails: Tally) -> Tally:
    """Partitions' `tail_of` added up (in a tree of tasks: `lib.builder.reductions`)."""
    return merged(tails)


def bucket_totals(totals: PhraseTotals, bucket: int, n_buckets: int) -> PhraseTotals:
    """A partition's phrases (`totals_of`) whose hash falls in `bucket` of `n_buckets`, with their totals and rows."""
    inside = np.flatnonzero(totals.hashes % np.uint64(n_buckets) == np.uint64(bucket))
    # Ordered as `added_totals` orders a sum: one partition's share is its bucket's sum when it is the only one.
    inside = inside[np.lexsort((totals.checks[inside], totals.hashes[inside]))]
    return PhraseTotals(totals.hashes[inside], totals.checks[inside], totals.totals[:, inside], inside)


def added_totals(*parts: PhraseTotals) -> PhraseTotals:
    """Phrase totals added up by phrase, ordered by hash then check (`hashed_places` searches them);
    rows are not kept: the sum is the list's, no partition's."""
    hashes = np.concatenate([part.hashes for part in parts])
    checks = np.concatenate([part.checks for part in parts])
    totals = np.concatenate([part.totals for part in parts], axis=1)
    order = np.lexsort((checks, hashes))
    hashes, checks = hashes[order], checks[order]
    new = np.ones(len(hashes), dtype=bool)
    new[1:] = (hashes[1:] != hashes[:-1]) | (checks[1:] != checks[:-1])
    first = np.flatnonzero(new)
    summed = np.add.reduceat(totals[:, order], first, axis=1) if len(first) else totals
    return PhraseTotals(hashes[first], checks[first], summed, _NO_ROWS)


def found_totals(share: PhraseTotals, bucket: PhraseTotals) -> FoundTotals:
    """A partition's `share` of a bucket with the list's totals (`bucket`, the share's `added_totals`
    with every other partition's) in place of its own; not its hashes, which scoring does not need
    and which would wait with the totals until it runs."""
    places = hashed_places(share.hashes, share.checks, bucket.hashes, bucket.checks)
    if (places < 0).any():  # every partition's share went into the bucket's sum
        raise ValueError("a phrase is missing from its bucket's totals")
    return FoundTotals(share.rows, bucket.totals[:, places])


def agree_statistics(
    n_texts: int, lexicon: Lexicon, roles: Roles, gerunds: frozenset[str], tail: Tally
) -> KeywordStatistics:
    """Round 4's agreement: the list's `KeywordStatistics` but its phrases, from every partition's
    `tail_of` added up; each partition takes its phrases' totals from their buckets (`with_phrases`)."""
    none = np.zeros(0, dtype=np.int64)
    return KeywordStatistics(
        n=n_texts,
        acronyms=lexicon.acronyms,
        long_forms=lexicon.long_forms,
        verbs=roles.verbs,
        maybe_verbs=roles.maybe_verbs,
        relational=roles.relational,
        gerunds=gerunds,
        tail=_tail_of(tail.keys.tolist(), tail.counts),
        phrases=[],
        document_frequency=none,
        uses=none,
        ends=none,
        cased=lexicon.cased,
    )


def with_phrases(part: CountedPhrases, statistics: KeywordStatistics, *found: FoundTotals) -> KeywordStatistics:
    """`statistics` (`agree_statistics`) with a partition's phrases and their totals in the list,
    from its `found_totals` in every bucket: what scoring it takes of the list's statistics."""
    totals = np.zeros((3, len(part.table.phrases)), dtype=np.int64)
    for share in found:
        totals[:, share.rows] = share.totals
    document_frequency, uses, ends = totals
    return replace(statistics, phrases=part.table.phrases, document_frequency=document_frequency, uses=uses, ends=ends)


def scored(
    part: CountedPhrases, paper_ids: np.ndarray, statistics: KeywordStatistics, top_n: int, *found: FoundTotals
) -> pd.DataFrame:
    """A partition's keywords table (as `keywords_table`), from its round 4 phrases, its papers' ids,
    the list's statistics and its phrases' totals in every bucket (`found_totals`)."""
    keyphrases = _keyphrases(part.table, with_phrases(part, statistics, *found), top_n)
    return pd.DataFrame({"paper_id": paper_ids, "keywords": keyphrases})
