"""Per-paper keyphrases: noun-phrase-like word runs, acronyms resolved, scored by use, position and specificity."""

from __future__ import annotations

import math
import re
import sys
import unicodedata
from array import array
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence, Set
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain, compress
from operator import itemgetter

import numpy as np
import pandas as pd

from lib.errors import ParameterError
from lib.stages.acronyms import acronym_definitions, corpus_acronyms, long_form_index, text_units
from lib.stages.phrases import MAX_NGRAM, NOT_PROSE, STOP_WORDS, display_case, phrase_key, singular_word

# --- Keyphrase extraction -----------------------------------------------------------------------
# Candidates are runs of content words between stop words, punctuation, verbs and adverbs: the
# closest a tagger-free extractor gets to noun phrases. An acronym the text defines ("graph neural
# networks (GNNs)") is one unit that reads as its long form wherever the text uses either.

# Generic words that still belong inside a phrase, as its modifier ("large language model") or its
# head ("inference efficiency", "case study"); never a keyphrase alone.
GENERIC_MODIFIERS = frozenset(
    "large small simple strong efficient effective real-world open-source theoretical empirical "
    "fundamental common prior wide key critical position state case paradigm fast".split()
)
GENERIC_HEADS = frozenset(
    "performance efficiency effectiveness problem problems task tasks setting settings framework "
    "capabilities capability approach approaches method methods study studies stage stages state case paradigm "
    "view views aspect aspects application applications goal goals practice year years".split()
)
# Every other generic word ends a phrase as a stop word does; so do comparatives and superlatives
# ("larger models") and a few discourse words.
BREAK_WORDS = (STOP_WORDS - GENERIC_MODIFIERS - GENERIC_HEADS) | frozenset(
    """
    state-of-the-art sota et al e.g i.e etc versus vs whereas thereby like unlike vice versa
    larger smaller faster stronger higher lower greater fewer longer shorter deeper wider cheaper easier
    harder weaker simpler richer largest smallest strongest highest lowest greatest fastest longest
    don doesn didn isn aren wasn weren won shouldn couldn wouldn hasn haven does did doing
    met made found known taken seen held led built brought thought kept sought told chosen drawn arisen
    idea ideas section sections manner fashion thing things lot lots
    """.split()
)
# Endings of adjectives that name no concept alone ("scalable", "pairwise", "training-free").
_ADJECTIVE_ENDINGS = (
    "ous",
    "ful",
    "less",
    "able",
    "ible",
    "ive",
    "ical",
    "ional",
    "ual",
    "tial",
    "wise",
    "-free",
    "-based",
    "-aware",
    "-specific",
    "-driven",
    "-agnostic",
    "-like",
    "-level",
    "-efficient",
    "-centric",
    "-optimal",
    "-box",
    "-preserving",
)
# Endings shared by adjectives and nouns ("optimal"/"signal", "convex"/"index"): such a word alone
# must be a noun in the corpus more clearly.
_MAYBE_ADJECTIVE_ENDINGS = ("al", "ic", "ar", "ent", "ant", "ex", "ete", "ust", "ate", "ine", "ian", "ed", "ing")
_NOUNS_IN_LY = frozenset(
    "anomaly family assembly supply reply monopoly butterfly italy july rally ally poly early daily weekly monthly yearly hourly".split()
)
# A word right before a determiner, or right after `to`, `we` or a modal, is used as a verb there.
_DETERMINERS = frozenset("the a an this these those its their our his her such each every both any some".split())
_BEFORE_VERB = frozenset("to we can may will also could would should might must they it not that which who".split())
_AUXILIARIES = frozenset("has have had been".split())  # before a participle: "has gained"
# "Kullback–Leibler" is one word; "Newton's method" and "Occam's razor" name one concept each.
_JOINED_DASH = re.compile(r"(?<=[^\W\d_])[\u2010\u2011\u2013](?=[^\W\d_])")
# Words may hold any letters ("Rényi", "Nyström"); anything else but white space is a break.
_CASED_TOKEN = re.compile(
    r"[A-Z][^\W\d_A-Z]+['\u2019]s(?![^\W\d_])|[^\W\d_][^\W_]*(?:[-+][^\W_]+)*\+?|\d+[^\W\d_][^\W_]*(?:-[^\W_]+)*|\d+(?:[.,]\d+)*|[^\w\s]|_"
)

# Scoring; see `extract_keywords`.
IDF_FLOOR = 3.0
SINGLE_IDF_FLOOR = 1.0
TITLE_BONUS = 2.0
POSITION_BONUS = 2.0
SINGLETON = 0.5
LENGTH_BONUS = 0.15
TAIL_SHARE = 0.25
SINGLE_TAIL_SHARE = 0.3
VERB_SHARE = 0.35
GERUND_HEAD_SHARE = 0.2
RELATIONAL_SHARE = 0.5
FRAGMENT = 0.5


@dataclass(frozen=True)
class KeywordStatistics:
    """What scoring one paper's phrases takes from the whole list (`keyword_statistics`).

    Keyphrases are judged against the corpus: which words it uses as verbs, which acronyms two of
    its texts define, how many texts use a phrase (IDF). A slice of the papers scored with the
    whole list's statistics gets exactly the keyphrases the whole list's build gives it, which is
    what lets the keywords stage run partition by partition (lib.build.parallel).
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


def _tokens(texts: Sequence[str]) -> list[list[str]]:
    # NFKC folds ligatures and superscripts ("ﬁrst" -> "first", "M²IV" -> "M2IV"). One string per
    # distinct token: the tokens of 87,690 abstracts are 20 million, as separate strings 1 GB.
    return [
        [
            sys.intern(token)
            for token in _CASED_TOKEN.findall(
                _JOINED_DASH.sub("-", NOT_PROSE.sub(" . ", unicodedata.normalize("NFKC", text)))
            )
        ]
        for text in texts
    ]


def _units(
    tokens: Sequence[list[str]],
    definitions: Sequence[Sequence[tuple[int, int, str, str]]],
    acronyms: dict[str, str],
    long_forms: dict[str, list[list[str]]],
) -> list[list[tuple[str, int]]]:
    """Each text's `text_units`, one tuple per distinct (unit, sentence) for all the texts: the units
    of 87,690 abstracts are 20 million, as tuples of their own 1.1 GB."""
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


def _phrase_totals(docs: Sequence[_Doc]) -> tuple[Counter, Counter, Counter]:
    """Per phrase over `docs`: the texts using it, its uses, and its uses at a run's end.

    Counted in C where it can be: a text uses most of its phrases once (a phrase's uses are its
    texts plus the few extra uses) and ends a run with them at most once. A loop over the 6 million
    entries of 87,690 abstracts took twice as long."""
    keys = list(chain.from_iterable(doc.keys for doc in docs))
    numbers = np.frombuffer(b"".join(doc.numbers.tobytes() for doc in docs), dtype=np.intc).reshape(-1, 3)
    texts = Counter(keys)
    uses = Counter(texts)
    extra = numbers[:, 0] - 1
    for i in np.flatnonzero(extra).tolist():
        uses[keys[i]] += int(extra[i])
    ended = numbers[:, 2]
    ends = Counter(compress(keys, (ended > 0).tolist()))
    for i in np.flatnonzero(ended > 1).tolist():
        ends[keys[i]] += int(ended[i]) - 1
    return texts, uses, ends


def _phrase_docs(units: Sequence[Sequence[tuple[str, int]]], statistics: KeywordStatistics) -> list[_Doc]:
    """Each text's counted phrases, its words' roles taken from the corpus's statistics."""
    runs, _ = _chunks(units, statistics.verbs, statistics.maybe_verbs)
    described: dict[str, _Unit] = {}
    return [
        _count_phrases(_pieces(own, own_runs, statistics.gerunds), described, statistics.relational)
        for own, own_runs in zip(units, runs)
    ]


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


def _chunks(
    docs: Sequence[Sequence[tuple[str, int]]], verbs: Set[str], maybe_verbs: Set[str]
) -> tuple[list[array], set[str]]:
    """Per text, its runs of content units: what lies between stop words, punctuation, verbs and
    adverbs (`_word_roles` tells the verbs), as (start, stop) positions in its units, flat. Also the
    -ing words the corpus uses as verbs: they rarely follow another word of their run ("evaluating",
    against "mathematical reasoning").

    Positions, not lists of units: over 87,690 abstracts the runs' lists held 0.4 GB; `_pieces`
    spells one text's out when its phrases are counted."""
    breaks = {"": True, ":": True}
    ing: dict[str, bool] = {}
    gerund_uses: Counter = Counter()
    gerund_heads: Counter = Counter()
    runs = []
    for units in docs:
        bounds = array("i")
        start = -1  # the open run's first position, or none open
        for i, unit in enumerate(units):
            word = unit[0]
            stop = breaks.get(word)
            if stop is None:
                stop = breaks[word] = " " not in word and (_is_break(word) or word in verbs)
            if not stop and word in maybe_verbs:  # "to approximate the", not "approximate inference"
                stop = (i > 0 and units[i - 1][0] in _BEFORE_VERB) or (
                    i + 1 < len(units) and units[i + 1][0] in _DETERMINERS
                )
            if not stop:
                is_ing = ing.get(word)
                if is_ing is None:
                    is_ing = ing[word] = word.endswith("ing") and " " not in word
                if is_ing:
                    gerund_uses[word] += 1
                    if start >= 0:
                        gerund_heads[word] += 1
                if start < 0:
                    start = i
            elif start >= 0:
                bounds.extend((start, i))
                start = -1
        if start >= 0:
            bounds.extend((start, len(units)))
        runs.append(bounds)
    gerunds = {w for w, c in gerund_uses.items() if (gerund_heads[w] + 1) / (c + 2) < GERUND_HEAD_SHARE}
    return runs, gerunds


def _pieces(units: Sequence[tuple[str, int]], runs: array, gerunds: Set[str]) -> list[list[tuple[str, int]]]:
    """One text's runs (`_chunks`), cut at their verbs in -ing: a gerund, or one that opens the text
    or a title's part ("Evaluating ...", "OCN: Learning ...") or comes right before a long form
    ("fine-tuning LLMs")."""
    pieces = []
    for start, stop in zip(runs[0::2], runs[1::2]):
        if stop - start == 1:  # most runs: cut only by a gerund, which leaves nothing
            if units[start][0] not in gerunds:
                pieces.append([units[start]])
            continue
        opens = start == 0 or units[start - 1][0] == ":"
        run: list[tuple[str, int]] = []
        for j in range(start, stop):
            unit = units[j]
            word = unit[0]
            if (
                word.endswith("ing")
                and " " not in word
                and (word in gerunds or (j + 1 < stop and ((j == start and opens) or " " in units[j + 1][0])))
            ):
                if run:
                    pieces.append(run)
                run = []
            else:
                run.append(unit)
        if run:
            pieces.append(run)
    return pieces


def _word_roles(docs: Sequence[Sequence[tuple[str, int]]]) -> tuple[set[str], set[str], set[str]]:
    """The words the corpus uses as verbs, those it uses as verbs at times, and its relational nouns.

    A verb comes before a determiner or after `to`/`we`/a modal (a participle: after `has`/`been`)
    in over `VERB_SHARE` of its uses ("address", "reveal"); its -s form is one too unless a
    determiner ever precedes it ("offers", not "the conditions"). A word in such places in over
    half that share is a verb only there ("to approximate the", not "approximate inference"); so
    is a verb the corpus also writes after a determiner ("the estimate"). A relational noun is
    mostly followed by `of` ("number", "variety", "kind"): it needs its complement, so it is no
    keyphrase alone.
    """
    uses: Counter = Counter()
    as_verb: Counter = Counter()
    before_of: Counter = Counter()
    after_determiner: Counter = Counter()
    for units in docs:
        words = [u for u, _ in units]
        triples = [t for t in zip([""] + words[:-1], words, words[1:] + [""]) if t[1] and " " not in t[1]]
        uses.update(w for _, w, _ in triples)
        as_verb.update(
            w
            for b, w, a in triples
            if a in _DETERMINERS
            or b in _BEFORE_VERB
            or (" " in a and w.endswith("ing"))
            or (b in _AUXILIARIES and w.endswith("ed"))
        )
        before_of.update(w for _, w, a in triples if a == "of")
        after_determiner.update(w for b, w, _ in triples if b in _DETERMINERS)
    maybe_verbs = {w for w, c in as_verb.items() if c >= VERB_SHARE / 2 * (uses[w] + 1)}
    verbs = {w for w in maybe_verbs if as_verb[w] >= VERB_SHARE * (uses[w] + 1) and not after_determiner[w]}
    verbs |= {
        w
        for w in uses
        if w.endswith("s") and (w[:-1] in verbs or (w.endswith("es") and w[:-2] in verbs)) and not after_determiner[w]
    }
    relational = {w for w, c in before_of.items() if c >= 2 and c >= RELATIONAL_SHARE * (uses[w] + 1)}
    return verbs, maybe_verbs - verbs, relational


@lru_cache(maxsize=1 << 16)
def _is_break(unit: str) -> bool:
    if " " in unit:  # an acronym's long form
        return False
    return (
        len(unit) < 2
        or unit in BREAK_WORDS
        or (unit.endswith("ly") and len(unit) > 4 and unit not in _NOUNS_IN_LY)  # adverbs
        or (len(unit) > 5 and unit.endswith(("ize", "izes", "ify", "ifies")))  # verbs
    )


_FORM = itemgetter(2)
_NUMBERS = itemgetter(0, 1, 3)  # count, first sentence, uses at a run's end


class _Doc:
    """One text's counted phrases, packed: a key's entry is its position in `keys` (singular keys),
    `forms` (the surface form first written) and `numbers` (count, first sentence, uses at a run's
    end, three each). A dict of lists per text took 1.9 GB over 87,690 abstracts (6 million phrases)."""

    __slots__ = ("forms", "keys", "numbers")

    def __init__(self, phrases: Mapping[str, list]) -> None:
        """From `phrases`: singular key -> [count, first sentence, surface form, uses at a run's end]."""
        # map() and itemgetter, not generators: built once per text of a corpus.
        self.keys = tuple(map(sys.intern, phrases))
        self.forms = tuple(map(sys.intern, map(_FORM, phrases.values())))
        self.numbers = array("i", chain.from_iterable(map(_NUMBERS, phrases.values())))

    def entries(self) -> Iterator[tuple[str, int, int, str, int]]:
        """(key, count, first sentence, surface form, uses at a run's end) per phrase."""
        return zip(self.keys, self.numbers[0::3], self.numbers[1::3], self.forms, self.numbers[2::3])


def _count_phrases(
    chunks: Sequence[Sequence[tuple[str, int]]],
    described: dict[str, _Unit],
    relational: Set[str],
    words: Counter | None = None,
    tails: Counter | None = None,
) -> _Doc:
    """Count each text's 1-3-unit phrases that may stand alone: no generic word alone, no adjective or
    participle last. `described` memoises `_describe` over a corpus (`relational` its relational nouns).
    `words` and `tails`, when given, count the singular words inside its runs and those that end one
    (`_tail_share`)."""
    phrases: dict[str, list] = {}
    inside: list[str] = []
    run_ends: list[str] = []
    for chunk in chunks:
        keys = _count_run(chunk, described, relational, phrases, inside)
        if " " not in chunk[-1][0]:
            run_ends.append(keys[-1])
    if words is not None:
        words.update(inside)
    if tails is not None:
        tails.update(run_ends)
    return _Doc(phrases)


def _count_run(
    chunk: Sequence[tuple[str, int]],
    described: dict[str, _Unit],
    relational: Set[str],
    phrases: dict[str, list],
    inside: list[str],
) -> list[str]:
    """Count into `phrases` (key -> [count, first sentence, surface form, uses at a run's end]) the
    phrases of one run of units, and add to `inside` the keys of its words (not long forms); returns
    the run's keys.

    Runs are short (1.7 units on average over a corpus), so each unit is one lookup and each phrase
    is spelled out by length: lists of the run's keys and forms, sliced and joined, took a third longer."""
    keys: list[str] = []
    inner: list[str] = []
    last = len(chunk) - 1
    for end, (unit, sentence) in enumerate(chunk):
        description = described.get(unit)
        if description is None:
            description = described[unit] = _describe(unit, relational)
        key, inner_form, ending, long_form = description
        keys.append(key)
        inner.append(inner_form)
        if not long_form:
            inside.append(key)
        if ending == _ENDS_NOTHING:
            continue
        found = _longer_phrases(chunk, keys, inner, end, unit) if end else []  # a run's first unit ends none
        if ending == _ENDS_ALONE:
            found.append((key, unit, sentence))
        for phrase, form, first in found:
            entry = phrases.get(phrase)
            if entry is None:
                entry = phrases[phrase] = [1, first, form, 0]
            else:
                entry[0] += 1
            if end == last:
                entry[3] += 1
    return keys


def _longer_phrases(
    chunk: Sequence[tuple[str, int]], keys: list[str], inner: list[str], end: int, unit: str
) -> list[tuple[str, str, int]]:
    """(key, form, first unit's sentence) of the 3- and 2-unit phrases of a run ending at unit `end`,
    longest first. At most MAX_NGRAM words, a long form counted by its words: "LLM agent
    optimization" is no keyphrase; a long form alone may be longer. A run that repeats a word
    ("noise noise", a list's words run together) names nothing."""
    key = keys[end]
    found = []
    if end >= 2 and keys[end - 2] != keys[end - 1] and keys[end - 2] != key and keys[end - 1] != key:
        head = f"{inner[end - 2]} {inner[end - 1]} "
        if head.count(" ") + key.count(" ") < MAX_NGRAM:
            found.append((head + key, head + unit, chunk[end - 2][1]))
    if end >= 1 and keys[end - 1] != key:
        head = inner[end - 1] + " "
        if head.count(" ") + key.count(" ") < MAX_NGRAM:
            found.append((head + key, head + unit, chunk[end - 1][1]))
    return found


# What a unit may do at the end of a phrase (`_describe`).
_ENDS_NOTHING, _ENDS_LONGER, _ENDS_ALONE = 0, 1, 2
# A unit as `_count_phrases` uses it: its key, its form inside a longer phrase, what it may end, whether it is a long form.
_Unit = tuple[str, str, int, bool]


def _describe(unit: str, relational: Set[str]) -> _Unit:
    """`unit`'s key (last word singular), its form inside a phrase (a long form reads singular there,
    as its acronym did: "LLM efficiency" -> "large language model efficiency"), and what it may end:
    nothing (a generic modifier, a participle), only a longer phrase (a generic or relational head,
    an adjective, a number), or a phrase of its own too (a long form always may)."""
    key = _unit_key(unit)
    if " " in unit:
        return key, key, _ENDS_ALONE, True
    if (unit in GENERIC_MODIFIERS and unit not in GENERIC_HEADS) or _is_participle(unit):
        return key, unit, _ENDS_NOTHING, False
    if (
        unit in GENERIC_HEADS
        or unit in GENERIC_MODIFIERS
        or unit in relational
        or _is_adjective(unit)
        or unit[0].isdigit()
    ):
        return key, unit, _ENDS_LONGER, False
    return key, unit, _ENDS_ALONE, False


# A text's units are words of a few hundred thousand, each met many times: their keys are memoised.
_unit_key = lru_cache(maxsize=1 << 18)(phrase_key)


def _is_participle(word: str) -> bool:
    return len(word) > 4 and word.endswith("ed") and not word.endswith("eed")


def _is_adjective(word: str) -> bool:
    return word.endswith(_ADJECTIVE_ENDINGS)


def _tail_share(words: Counter, tails: Counter) -> dict[str, float]:
    """Per word, how readily the corpus ends a run with it (nouns do, adjectives rarely), from the
    uses of each word inside runs and at their ends (`_count_phrases`)."""
    return {w: (tails[w] + 0.5) / (n + 1) for w, n in words.items()}


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


def _distinct(
    ranked: Sequence[str],
    in_text: Mapping[str, int],
    score: Mapping[str, float],
    top_n: int,
    in_corpus: Mapping[str, int] | None = None,
) -> list[str]:
    """The best `top_n` of `ranked` (singular keys) with no phrase inside another chosen one.

    A longer phrase takes the place of a chosen shorter one inside it ("privacy" -> "differential
    privacy") when the shorter mostly occurs inside it, in the text and in the corpus (`in_corpus`,
    uses per phrase: "deep learning" stays, though one text writes only "deep learning models"),
    the longer scores at least half as well and it does not just add a generic head ("privacy
    approach"); otherwise the longer one is a passing word run ("differential privacy needs") and
    is dropped. A phrase that adds a generic head to another candidate ("deep learning approach",
    "reasoning capabilities") gives way to it. Phrases are compared word stem by word stem, hyphens counting as spaces, so
    "fine-tuning"/"fine tuning" and "reward model"/"reward modeling" are one phrase. Two
    phrases that overlap in two words or more ("receiver operating characteristic", "operating
    characteristic curve") are one concept cut in two: only the better is kept.
    """
    chosen: list[str] = []
    spaced: list[str] = []
    candidates = set(ranked)
    for phrase in ranked:
        rest, _, head = phrase.rpartition(" ")
        if head in GENERIC_HEADS and rest in candidates:  # "reasoning capability": "reasoning" says it
            continue
        key = f" {' '.join(_stem(w) for w in phrase.replace('-', ' ').split())} "
        # Only phrases of three words or more can overlap in two without one holding the other.
        long = key.count(" ") > 3
        if any(key in c or (long and c.count(" ") > 3 and _overlap(key, c)) for c in spaced):
            continue
        inner = [i for i, c in enumerate(spaced) if c in key]
        if inner:
            if head not in GENERIC_HEADS and all(
                in_text[chosen[i]] < 2 * in_text[phrase]
                and 2 * score[phrase] >= score[chosen[i]]
                and (in_corpus is None or in_corpus[chosen[i]] < 2 * in_corpus[phrase])
                for i in inner
            ):
                chosen[inner[0]], spaced[inner[0]] = phrase, key
                chosen = [c for i, c in enumerate(chosen) if i not in inner[1:]]
                spaced = [c for i, c in enumerate(spaced) if i not in inner[1:]]
            continue
        chosen.append(phrase)
        spaced.append(key)
        if len(chosen) == top_n:
            break
    return chosen


@lru_cache(maxsize=1 << 16)
def _stem(word: str) -> str:
    """A crude stem, only to spot near-duplicates: "learners", "learning" -> "learn"; "sample", "sampling" -> "sampl"."""
    word = singular_word(word)
    for suffix in ("ing", "er", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word[:-1] if word.endswith("e") and len(word) > 4 else word


def _overlap(a: str, b: str) -> bool:
    """Whether one phrase (space-padded) ends with at least two words the other starts with."""
    x, y = a.split(), b.split()
    for first, second in ((x, y), (y, x)):
        for k in range(2, min(len(first), len(second))):
            if first[-k:] == second[:k]:
                return True
    return False


def keywords_table(
    papers: pd.DataFrame, texts: Sequence[str], top_n: int = 10, statistics: KeywordStatistics | None = None
) -> pd.DataFrame:
    """`paper_id` and `keywords` columns for the papers whose texts are given, in the same order
    (`statistics`: the whole list's, when `papers` is a slice of it)."""
    keywords = extract_keywords(texts, top_n, statistics)
    return pd.DataFrame({"paper_id": papers["paper_id"].to_numpy(), "keywords": keywords})
