"""How often each text uses each term (word, or word pair): the counts the embed stage weighs by TF-IDF.

The same matrix and terms as scikit-learn's `CountVectorizer(stop_words="english",
ngram_range=(1, ngram_max), dtype=float32)` with `min_df` and `max_df`, to the order of each row's
entries (which sets the rounding of every later row sum), at a fraction of its cost on a corpus:
it makes a Python string and a dict look-up for each of a corpus's 25 million word and pair uses.
Here words are numbered once, each pair is a number made from its two words' numbers, and the
numbering, counting and pruning run in NumPy and pandas; only the kept terms are spelled out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import chain

import numpy as np
import pandas as pd
from scipy import sparse

from lib.stages.stop_words import ENGLISH_STOP_WORDS

_TOKEN = re.compile(r"(?u)\b\w\w+\b")  # scikit-learn's default token pattern
TEXTS_PER_BLOCK = 5000


def count_terms(
    texts: Sequence[str], ngram_max: int, min_df: int, max_df: float
) -> tuple[sparse.csr_matrix, np.ndarray]:
    """(texts x terms) float32 counts and the terms (str, in alphabetical order, the columns' order).

    Terms are the texts' lower-case words of two or more letters or digits that are not English stop
    words, and with `ngram_max=2` each two such words in a row. A term is kept when at least
    `min_df` texts use it and at most `max_df` of them (a share of the texts). Raises ValueError,
    as the vectorizer does, when no term is found or none is kept.
    """
    counts, uniques, vocabulary = first_met_term_keys(texts, ngram_max)
    if len(uniques) == 0:
        raise ValueError("empty vocabulary; perhaps the documents only contain stop words")
    users = np.bincount(counts.indices, minlength=len(uniques))
    kept = kept_terms(users, len(texts), min_df, max_df)
    if len(kept) == 0:
        raise ValueError("After pruning, no terms remain. Try a lower min_df or a higher max_df.")
    terms = spell_terms(uniques[kept], vocabulary).astype(str)
    order = np.argsort(terms, kind="stable")
    column = np.full(len(uniques), -1, dtype=np.int64)
    column[kept[order]] = np.arange(len(kept))
    mapped = column[counts.indices]
    keep = mapped >= 0
    row = np.repeat(np.arange(len(texts)), np.diff(counts.indptr))
    indptr = np.concatenate([[0], np.cumsum(np.bincount(row[keep], minlength=len(texts)))])
    pruned = sparse.csr_matrix(
        (counts.data[keep], mapped[keep].astype(np.int32), indptr.astype(np.int32)), shape=(len(texts), len(kept))
    )
    return pruned, terms[order]


def kept_terms(users: np.ndarray, n_texts: int, min_df: int, max_df: float) -> np.ndarray:
    """The numbers of the terms used by at least `min_df` of `n_texts` texts and at most `max_df` of
    them (a share), `users` being each term's texts."""
    return np.flatnonzero((users <= max_df * n_texts) & (users >= min_df))


def first_met_term_keys(texts: Sequence[str], ngram_max: int) -> tuple[sparse.csr_matrix, np.ndarray, list[str]]:
    """(texts x terms) float32 counts of every term of `texts`, none pruned, numbered in the order the
    texts first use them (the vectorizer's column order before it sorts them by name; each row's
    entries in that order too); each term's key (`_term_stream`'s number); and the words the keys
    are made of (`spell_terms` spells them). What `count_terms` prunes and sorts, and what a slice of
    a list counted a slice at a time holds: a key costs 8 bytes where a spelled term costs 60."""
    if ngram_max not in (1, 2):
        raise ValueError(f"ngram_max must be 1 or 2; got {ngram_max}")
    codes, lengths, vocabulary = _words(texts)
    keys, ends = _term_stream(codes, lengths, len(vocabulary), ngram_max)
    numbers, uniques = pd.factorize(keys)
    counts = sparse.csr_matrix(
        (np.ones(len(numbers), dtype=np.float32), numbers.astype(np.int32), ends), shape=(len(texts), len(uniques))
    )
    counts.sum_duplicates()  # sorts each row by first-met number, as the vectorizer's rows are
    return counts, uniques, vocabulary


def _words(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Every text's words but stop words, in order, as numbers into the returned vocabulary; and
    each text's number of them. A block of texts at a time: a corpus's 15 million words held as
    Python strings at once would take a gigabyte."""
    number: dict[str, int] = {}
    codes, lengths = [], []
    for start in range(0, len(texts), TEXTS_PER_BLOCK):
        found = [_TOKEN.findall(text.lower()) for text in texts[start : start + TEXTS_PER_BLOCK]]
        local, uniques = pd.factorize(np.array(list(chain.from_iterable(found)), dtype=object))
        # A stop word is numbered -1, and dropped.
        shared = [-1 if w in ENGLISH_STOP_WORDS else number.setdefault(w, len(number)) for w in uniques]
        block = np.array(shared, dtype=np.int64)[local]
        kept = block >= 0
        text_of_word = np.repeat(np.arange(len(found)), np.fromiter(map(len, found), dtype=np.int64, count=len(found)))
        lengths.append(np.bincount(text_of_word[kept], minlength=len(found)))
        codes.append(block[kept])
    if not texts:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), []
    return np.concatenate(codes).astype(np.int64), np.concatenate(lengths).astype(np.int64), list(number)


def _term_stream(codes: np.ndarray, lengths: np.ndarray, n_words: int, ngram_max: int) -> tuple[np.ndarray, np.ndarray]:
    """Each text's terms as numbers, in the vectorizer's order (its words, then its word pairs), and
    where each text's terms end. A word is its code; a pair of codes (a, b) is n + a * n + b, with n
    the `n_words` of the vocabulary."""
    starts = np.cumsum(lengths) - lengths  # each text's first word in `codes`
    pair_counts = np.maximum(lengths - 1, 0) if ngram_max == 2 else np.zeros_like(lengths)
    ends = np.concatenate([[0], np.cumsum(lengths + pair_counts)])
    stream = np.empty(ends[-1], dtype=np.int64)
    stream[np.repeat(ends[:-1] - starts, lengths) + np.arange(len(codes))] = codes
    # A text's k-th pair is its words k and k + 1: pairs never run from one text into the next.
    k = np.arange(pair_counts.sum()) - np.repeat(np.cumsum(pair_counts) - pair_counts, pair_counts)
    first = np.repeat(starts, pair_counts) + k
    n = max(n_words, 1)
    stream[np.repeat(ends[:-1] + lengths, pair_counts) + k] = n + codes[first] * n + codes[first + 1]
    return stream, ends


def spell_terms(keys: np.ndarray, words: Sequence[str] | np.ndarray) -> np.ndarray:
    """The terms `first_met_term_keys` numbered `keys` (`_term_stream`'s numbers), as an object array
    of Python strings (each its own length, where a fixed-width array takes the longest one's)."""
    n = max(len(words), 1)
    vocabulary = np.asarray(words, dtype=object)
    single = keys < n
    spelled = np.empty(len(keys), dtype=object)
    spelled[single] = vocabulary[keys[single]]
    first, second = np.divmod(keys[~single] - n, n)
    spelled[~single] = [f"{a} {b}" for a, b in zip(vocabulary[first], vocabulary[second])]
    return spelled


def packed_terms(terms: Sequence[str] | np.ndarray) -> bytes:
    """`terms` as one UTF-8 buffer, a line each (a term has no line break: it is words and spaces).
    A worker holding many partitions' terms holds one buffer each, not millions of short strings
    that pin Python's small-object arenas once freed among other objects (docs/cluster.md); UTF-8,
    as one string with a single Greek letter would take two bytes for every character."""
    return "\n".join(terms).encode()


def unpacked_terms(packed: bytes) -> np.ndarray:
    """The terms `packed_terms` packed, as an object array of Python strings."""
    return np.array(packed.decode().split("\n") if packed else [], dtype=object)


def packed_subset(packed: bytes, rows: np.ndarray) -> bytes:
    """`packed_terms` of the terms numbered `rows` among those `packed`, cut from the buffer without
    making a string of every term (a partition's terms are cut once per bucket)."""
    # UTF-8 never uses the line break's byte inside another character.
    breaks = np.flatnonzero(np.frombuffer(packed, dtype=np.uint8) == ord("\n"))
    starts, ends = np.concatenate([[0], breaks + 1]), np.append(breaks, len(packed))
    return b"\n".join(packed[a:b] for a, b in zip(starts[rows].tolist(), ends[rows].tolist()))
