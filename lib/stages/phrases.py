"""Phrase and text utilities shared by the text stages (keywords, topics, subfields): stop words,
coarse 1-3-word candidate phrases between them and how often each text uses each (`phrase_counts`),
crude singulars (`singular`, `singular_word`, `phrase_key`), and the corpus's casing."""

from __future__ import annotations

import re
import string
from array import array
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from itertools import chain, count, groupby

import numpy as np
import pandas as pd
from scipy import sparse

from lib.stages.stop_words import ENGLISH_STOP_WORDS

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

# Repeats are possessive (*+, ++): what follows one never starts with a character it takes, so it
# never gives one back, and the regex engine skips keeping the state to try that (a tenth faster).
_TOKEN = re.compile(r"[a-z][a-z0-9]*+(?:[-+][a-z0-9]++)*+\+?|\d++[a-z][a-z0-9-]*+|[.,;:!?()\[\]{}\"]")
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


class Numbering(dict[str, int]):
    """Numbers keys as first met, from `first` on (by default, after the `known` keys): a missing
    key gets the next number, so a lookup is all a use takes. `known` keys keep the numbers they
    come with."""

    def __init__(self, known: dict[str, int] | None = None, first: int | None = None) -> None:
        super().__init__(known or {})
        self.next = len(self) if first is None else first

    def __missing__(self, key: str) -> int:
        self[key] = number = self.next
        self.next += 1
        return number


# What `phrase_counts` returns: how often each text (row) uses each phrase (column), and the phrases.
PhraseCounts = tuple[sparse.csr_matrix, list[str]]


def phrase_counts(texts: Sequence[str]) -> PhraseCounts:
    """How often each text (row) uses each candidate phrase (column), and the phrases, in the order
    first met: what scikit-learn's CountVectorizer counts, without its dict per text, its Python int
    per use and its sort of every phrase (2 million over a corpus) that no caller needs.

    The counts of `candidate_phrases` of each text, worked out on the token numbers of all the texts at
    once: a phrase string is spelled once per phrase, not once per use (11 million over a corpus), and
    runs, n-grams and their first uses are NumPy array operations."""
    words, tokens, ends = _numbered_tokens(texts)
    # Token i is a word (no break); token i and i + 1 are a run's (both words of one text).
    is_word = ~np.fromiter(map(_BREAKS.__contains__, words), dtype=bool, count=len(words))[tokens]
    text_starts = np.zeros(len(tokens) + 1, dtype=bool)
    text_starts[ends] = True
    joined = np.append(is_word[:-1] & is_word[1:] & ~text_starts[1:-1], False)
    # Where each n-gram starts, and which n-gram it is: numbered as first met among those of its length.
    starts = [np.flatnonzero(is_word).astype(np.int32), np.flatnonzero(joined).astype(np.int32)]
    go_on = joined[starts[1] + 1]  # the 2-grams whose run goes on: a 3-gram is one of them and a word
    starts.append(starts[1][go_on])
    del joined
    n_words = np.int64(len(words))
    codes = [_factorized(tokens[starts[0]]), _factorized(tokens[starts[1]] * n_words + tokens[starts[1] + 1])]
    codes.append(_factorized(codes[1][go_on] * n_words + tokens[starts[2] + 2]))
    firsts = [at[first_uses(code)] for at, code in zip(starts, codes)]
    order = _order_met(is_word, text_starts, firsts)
    # Each phrase spelled once, from its first use; the 1-grams, then the 2-grams, then the 3-grams.
    vocabulary = np.array(words, dtype=object)
    spelled = np.empty(len(order), dtype=object)
    spelled[: len(firsts[0])] = vocabulary[tokens[firsts[0]]]
    spelled[len(firsts[0]) :] = [
        *map(" ".join, zip(vocabulary[tokens[firsts[1]]], vocabulary[tokens[firsts[1] + 1]])),
        *map(" ".join, zip(*(vocabulary[tokens[firsts[2] + k]] for k in range(3)))),
    ]
    phrases = spelled[order].tolist()
    # Arrays of the corpus's 16 million tokens go before the matrix is made: a build's peak memory.
    del is_word, text_starts, tokens, vocabulary, spelled
    row_of_token = np.repeat(np.arange(len(texts), dtype=np.int32), np.diff(ends))
    rows = np.concatenate([row_of_token[at] for at in starts])
    del row_of_token, starts
    column = np.empty(len(order), dtype=np.int32)
    column[order] = np.arange(len(order), dtype=np.int32)
    offsets = np.cumsum([0, *map(len, firsts)])
    columns = np.concatenate([column[code + offset] for offset, code in zip(offsets, codes)])
    del codes
    # From (row, column) pairs: scipy orders them by row, keeping each row's in turn, and sums repeats.
    counts = sparse.csr_matrix(
        (np.ones(len(columns), dtype=np.int32), (rows, columns)), shape=(len(texts), len(phrases))
    )
    return counts, phrases


def _factorized(keys: np.ndarray) -> np.ndarray:
    """`keys` numbered as first met, in 32 bits as the counts: one number per use, millions over a corpus."""
    return pd.factorize(keys)[0].astype(np.int32)


def _numbered_tokens(texts: Sequence[str]) -> tuple[list[str], np.ndarray, list[int]]:
    """The distinct tokens of `texts` as first met, each token of the texts in turn as its number
    there, and where each text's tokens end (after a 0)."""
    number_of: dict[str, int] = {}
    uses = count()
    # Each token gets the position of its first use, by `setdefault` in C: no call per token in Python.
    first_use = array("i")
    ends = [0]
    for text in texts:
        first_use.extend(map(number_of.setdefault, _TOKEN.findall(NOT_PROSE.sub(" . ", text.lower())), uses))
        ends.append(len(first_use))
    number = np.zeros(len(first_use), dtype=np.int32)
    number[np.fromiter(number_of.values(), dtype=np.int64, count=len(number_of))] = np.arange(len(number_of))
    return list(number_of), number[np.frombuffer(first_use, dtype=np.int32)], ends


def first_uses(codes: np.ndarray) -> np.ndarray:
    """Where each code is first used in `codes`, codes numbered as first met (`pd.factorize`)."""
    highest = np.maximum.accumulate(codes)
    return np.flatnonzero(np.diff(highest, prepend=-1) > 0)


def _order_met(is_word: np.ndarray, text_starts: np.ndarray, firsts: list[np.ndarray]) -> np.ndarray:
    """The phrases given by where each is first used (`firsts`: the starts of the 1-grams', then the
    2-grams', then the 3-grams'), in the order `candidate_phrases` meets them: text by text, run by run,
    and in a run its words, then its 2-grams, then its 3-grams."""
    after_word = np.concatenate([[False], is_word[:-1]]) & ~text_starts[:-1]
    before_word = np.concatenate([is_word[1:], [False]]) & ~text_starts[1:]
    run_first, run_last = np.flatnonzero(is_word & ~after_word), np.flatnonzero(is_word & ~before_word)
    met = []
    for n, at in enumerate(firsts):
        run = np.searchsorted(run_first, at, side="right") - 1
        first, length = run_first[run], run_last[run] - run_first[run] + 1
        # A run of L tokens from token s on is met at 3s: its words at 3s + 0..L-1, its 2-grams at
        # 3s + L.., its 3-grams at 3s + 2L..; all before 3(s + L), where the next run is met at the earliest.
        met.append(3 * first + n * length + (at - first))
    return np.argsort(np.concatenate(met))


def word_counts(texts: Sequence[str]) -> PhraseCounts:
    """How often each text (row) uses each of its `content_words` (column), and the words, in the
    order first met: the words a free text can share with a paper, rare ones included."""
    column_of = Numbering()
    return _counted(map(content_words, texts), column_of), list(column_of)


def content_words(text: str) -> list[str]:
    """The words of `text` that can carry its subject, singular ("bandits" -> "bandit"): no stop
    word, punctuation, lone letter or markup."""
    return [singular_word(word) for word in _TOKEN.findall(NOT_PROSE.sub(" . ", text.lower())) if word not in _BREAKS]


def counts_after(phrases: Sequence[str], texts: Sequence[str]) -> sparse.csr_matrix:
    """The rows `phrase_counts` gives `texts` counted after a list's texts whose `phrase_counts`
    found `phrases`: in their columns and, after them, the phrases new in `texts`, as first met. The
    list's rows in that wider shape (the same arrays) stacked on them are the counts of both."""
    candidates = [candidate_phrases(text) for text in texts]
    used = set(chain.from_iterable(candidates))
    # Only the phrases `texts` use are looked up among `first`'s: numbering all of them took a dict of
    # millions on a corpus.
    column_of = Numbering({p: i for i, p in enumerate(phrases) if p in used}, first=len(phrases))
    return _counted(candidates, column_of)


def _counted(candidates: Iterable[list[str]], column_of: Numbering) -> sparse.csr_matrix:
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


def written_chunks(texts: Iterable[str]) -> Counter:
    """How often the texts write each chunk between white space ("models,", "(LLMs)"), as first met.

    No word spans white space, so a text's words are its chunks' in turn: a corpus repeats its
    chunks, and each is read for words once (`display_case`, `lib.stages.label_rules.verb_words`)."""
    return Counter(chain.from_iterable(map(str.split, texts)))


def cased_form(form: str, cased: Mapping[str, str]) -> str:
    """A lower-case phrase as shown: each word as the corpus writes it (`cased`: `display_case`)."""
    words = form.split(" ")
    return " ".join(map(cased.get, words, words))


def display_case(texts: Sequence[str], chunks: Counter | None = None) -> dict[str, str]:
    """Lower-case word -> the form to show: acronyms and mixed case ("LLMs", "CoT") as written.

    `chunks`: `written_chunks(texts)`, when counted beforehand."""
    return display_forms(written_words(written_chunks(texts) if chunks is None else chunks))


def written_words(chunks: Counter) -> Counter:
    """How often the chunks (`written_chunks`) write each word as it is cased, as first met: sums
    over slices of a list, in their order."""
    written: Counter = Counter()
    for chunk, n in chunks.items():
        for word in _CASED_WORD.findall(chunk):
            written[word] += n
    return written


def display_forms(written: Mapping[str, int]) -> dict[str, str]:
    """`display_case` from the texts' `written_words`."""
    plain: Counter = Counter()  # lower-case word -> its uses in lower or title case
    mixed: dict[str, dict[str, int]] = {}  # lower-case word -> its uses in each mixed-case form
    for word, n in written.items():
        # Title case ("Vision-Language", a sentence's first word) is how ordinary words are
        # capitalised, so it counts for the lower-case form; a shouted "VISION-LANGUAGE" in one
        # title then loses to fifty "Vision-Language" ones.
        # Most words have no capital past their first letter: they skip the split.
        tail = word[1:]
        if tail != tail.lower() and any(c.isupper() for part in re.split(r"[-+]", word) for c in part[1:]):
            mixed.setdefault(word.lower(), {})[word] = n
        else:
            plain[word.lower()] += n
    # Only a word written in mixed case may show otherwise than in lower case; words as first met.
    shown = {}
    for lower in dict.fromkeys(map(str.lower, written)):
        if lower in mixed:
            forms = {**mixed[lower], lower: plain[lower]} if lower in plain else mixed[lower]
            form = max(forms.items(), key=lambda item: (item[1], item[0]))[0]
            if form != lower:
                shown[lower] = form
    return shown


def shown_forms(
    phrases: Sequence[str], uses: np.ndarray, column_of_phrase: np.ndarray, columns: np.ndarray, cased: dict[str, str]
) -> list[str]:
    """For each of the folded `columns`, its most used variant ("diffusion models" or "diffusion
    model"), cased as the corpus writes it."""
    # Only the phrases of those columns are compared, not a tuple for each of a corpus's 2 million.
    slot_of_column = np.full(int(column_of_phrase.max()) + 1, -1)
    slot_of_column[columns] = np.arange(len(columns))
    slots = slot_of_column[column_of_phrase]
    wanted = np.flatnonzero(slots >= 0)
    # Most columns have one variant, which is their form; only the others' variants are compared.
    alone = np.bincount(slots[wanted], minlength=len(columns))[slots[wanted]] == 1
    forms: list[str] = [""] * len(columns)
    for phrase, slot in zip(wanted[alone].tolist(), slots[wanted[alone]].tolist()):
        forms[slot] = phrases[phrase]
    shared = wanted[~alone]
    best: dict[int, tuple[float, str]] = {}
    for phrase, n_uses, slot in zip(shared.tolist(), uses[shared].tolist(), slots[shared].tolist()):
        best[slot] = max(best.get(slot, (-1, "")), (n_uses, phrases[phrase]))
    for slot, (_, form) in best.items():
        forms[slot] = form
    return [cased_form(form, cased) for form in forms]
