"""The TF-IDF + SVD embedding a partition (a slice of the papers) at a time: the vectors and model
`TfidfSvdEmbedder.fit_embed` gives, bit for bit, each partition's texts and TF-IDF held by its own
task, a bucket of the terms (by a hash of the term) by each vocabulary task, the SVD's sample by its.

Each partition, then each bucket of terms, then the small global fits, then each partition again:
1. `partition_terms`: a partition's terms, as it first uses them (as keys into its words: spelled
   out only where a step needs them), how many of its texts use each, and each term's two hashes;
   what a worker holds of a partition's or a bucket's terms is packed (`packed_terms`), one
   buffer each, from step 1 to step 3;
2. `bucket_terms` (a partition's, per bucket) and `bucket_vocabulary` (per bucket): the terms whose
   hash falls in a bucket, from every partition in order, counted together and pruned by how many
   texts use them, each kept term with the place where the list first uses it;
3. `agree_vocabulary` (one task, the kept terms only): sorted by name into the TF-IDF's columns,
   with their IDF; `term_lookup`, what a partition needs of it to find its terms' columns;
4. `partition_tfidf`: a partition's TF-IDF rows in the whole list's columns (`sampled_rows`: those
   in the SVD's sample);
5. `fit_sample` (one process): the SVD of the sampled rows (`lib.stages.sparse_svd.fit_directions`);
6. `partition_vectors`: a partition's papers in the SVD's directions, snapped (`lib.exact`).

Every row's arithmetic is the row's own, in the same order as the whole list's (its entries in
first-use order, the SVD's products a block of terms at a time), so the bits do not depend on the
partitions or buckets. A partition finds its terms' columns by two independent 64-bit hashes of
each term, so two terms are confused only if both hashes collide (under one chance in 10^24 for
ten million terms). `lib.builder.embed_partitions` runs the steps on a runner (a Dask cluster).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy import sparse

from lib import exact
from lib.stages.embed import (
    TfidfSvdEmbedder,
    TfidfSvdModel,
    sample_rows,
    smoothed_idf,
    term_users_kept,
    tfidf_weights,
)
from lib.stages.key_hashes import CHECK_KEY, hashed_places, term_hashes
from lib.stages.phrases import first_uses
from lib.stages.sparse_svd import SvdDirections, fit_directions, rows_in
from lib.stages.term_counts import first_met_term_keys, kept_terms, packed_terms, spell_terms, unpacked_terms


class PartitionTerms(NamedTuple):
    """A partition's counts: `counts` (texts x its terms) float32, each row's entries in first-use
    order; its terms numbered as it first uses them, each a key (`keys`) into its `words` (packed,
    `lib.stages.term_counts.packed_terms`; `spell_terms`); `users`, its texts using each; `hashes` and
    `checks`, each term's `term_hashes` with the default key and with `CHECK_KEY`."""

    counts: sparse.csr_matrix
    words: bytes
    keys: np.ndarray
    users: np.ndarray
    hashes: np.ndarray
    checks: np.ndarray


class BucketTerms(NamedTuple):
    """A partition's terms in one bucket, in its first-use order: the terms (packed), their users, and
    where the list first uses each (`first_use`: the partition's number, then the term's in the partition)."""

    terms: bytes
    users: np.ndarray
    first_use: np.ndarray


class KeptTerms(NamedTuple):
    """A bucket's kept terms (packed), sorted by name: how many texts use each and where the list
    first does."""

    terms: bytes
    users: np.ndarray
    first_use: np.ndarray


class TermLookup(NamedTuple):
    """What a partition needs of the vocabulary: the kept terms' `term_hashes` ascending, their
    `CHECK_KEY` hashes and columns in that order, and by column each term's first use and IDF."""

    hashes: np.ndarray
    checks: np.ndarray
    columns: np.ndarray
    first_use: np.ndarray
    idf: np.ndarray


@dataclass(frozen=True)
class Vocabulary:
    """The list's kept terms (Python strings sorted by name, the TF-IDF's columns), their IDF
    (float64), the number of texts, and where the list first uses each term (ordered as
    `BucketTerms.first_use`)."""

    terms: np.ndarray
    idf: np.ndarray
    n_texts: int
    first_use: np.ndarray


# A term's place in a partition takes the low bits of its `first_use`; its partition's number the rest.
PLACE_BITS = 32


def partition_terms(texts: Sequence[str], ngram_max: int) -> PartitionTerms:
    """Step 1, on each partition's texts (a list, or the object array a cluster holds them in)."""
    counts, keys, words = first_met_term_keys(list(texts), ngram_max)
    users = np.bincount(counts.indices, minlength=len(keys))
    # A cluster holds every partition's terms until the vocabulary is agreed: as keys, not spelled.
    terms = spell_terms(keys, words)
    return PartitionTerms(counts, packed_terms(words), keys, users, term_hashes(terms), term_hashes(terms, CHECK_KEY))


def bucket_terms(part: PartitionTerms, number: int, bucket: int, n_buckets: int) -> BucketTerms:
    """Step 2, on each partition (the `number`th) for each of `n_buckets` buckets: its terms in `bucket`."""
    inside = np.flatnonzero(part.hashes % np.uint64(n_buckets) == np.uint64(bucket))
    terms = spell_terms(part.keys[inside], unpacked_terms(part.words))
    return BucketTerms(packed_terms(terms), part.users[inside], (number << PLACE_BITS) + inside.astype(np.int64))


def bucket_vocabulary(n_texts: int, *parts: BucketTerms) -> KeptTerms:
    """Step 2, on one bucket's terms from every partition in order: those the list keeps."""
    terms = np.concatenate([np.zeros(0, dtype=object), *(unpacked_terms(part.terms) for part in parts)])
    codes, uniques = pd.factorize(terms)
    users = np.bincount(
        codes, weights=np.concatenate([np.zeros(0), *(part.users for part in parts)]), minlength=len(uniques)
    )
    # The parts come in partition order, each in its first-use order: a term's first row is its first use.
    first_row = first_uses(codes)
    first_use = np.concatenate([np.zeros(0, dtype=np.int64), *(part.first_use for part in parts)])[first_row]
    kept = kept_terms(users, n_texts, *term_users_kept(n_texts))
    # Python strings, sorted as NumPy sorts fixed-width ones (by code point): a fixed-width array of
    # a million-paper list's kept terms gives each the longest one's four bytes a character.
    order = np.argsort(uniques[kept], kind="stable")
    return KeptTerms(packed_terms(uniques[kept[order]]), users[kept[order]], first_use[kept[order]])


def agree_vocabulary(n_texts: int, *buckets: KeptTerms) -> Vocabulary | None:
    """Step 3, on every bucket's kept terms; None when no term is kept (no text has a usable word),
    for which the whole list's fit has its own answer."""
    terms = np.concatenate([np.zeros(0, dtype=object), *(unpacked_terms(bucket.terms) for bucket in buckets)])
    if len(terms) == 0:
        return None
    order = np.argsort(terms, kind="stable")  # no term is in two buckets
    users = np.concatenate([bucket.users for bucket in buckets])[order]
    first_use = np.concatenate([bucket.first_use for bucket in buckets])[order]
    return Vocabulary(terms[order], smoothed_idf(users, n_texts), n_texts, first_use)


def term_lookup(vocabulary: Vocabulary) -> TermLookup:
    """Step 3: what each partition is sent of the vocabulary (not its terms' spellings)."""
    hashes = term_hashes(vocabulary.terms)
    by_hash = np.argsort(hashes, kind="stable")
    checks = term_hashes(vocabulary.terms, CHECK_KEY)[by_hash]
    return TermLookup(hashes[by_hash], checks, by_hash, vocabulary.first_use, vocabulary.idf)


def term_columns(part: PartitionTerms, lookup: TermLookup) -> np.ndarray:
    """Each of a partition's terms' column in the list's TF-IDF, -1 for a term the list does not keep."""
    places = hashed_places(part.hashes, part.checks, lookup.hashes, lookup.checks)
    columns = np.full(len(places), -1, dtype=np.int64)
    columns[places >= 0] = lookup.columns[places[places >= 0]]
    return columns


def partition_tfidf(part: PartitionTerms, lookup: TermLookup) -> sparse.csr_matrix:
    """Step 4: a partition's TF-IDF rows (float32, in the list's columns)."""
    columns, idf = term_columns(part, lookup), lookup.idf
    counts = part.counts.tocoo()
    keep = columns[counts.col] >= 0
    rows = counts.row[keep]
    ranks = lookup.first_use[columns[counts.col[keep]]]
    # Each row's entries in the whole list's first-use order, as the whole list's counts hold them
    # when `tfidf_weights` sums each row's squares: the same input, whatever SciPy does with that order.
    order = np.lexsort((ranks, rows))
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=counts.shape[0]))])
    kept = sparse.csr_matrix(
        (counts.data[keep][order], columns[counts.col[keep][order]].astype(np.int32), indptr),
        shape=(counts.shape[0], len(idf)),
    )
    return tfidf_weights(kept, idf)[0].astype(np.float32)


def sampled_rows(tfidf: sparse.csr_matrix, sampled: np.ndarray | None) -> sparse.csr_matrix:
    """A partition's rows in the SVD's sample (`sampled`, the partition's own row numbers; None: all)."""
    return tfidf if sampled is None else tfidf[sampled]


def fit_sample(embedder: TfidfSvdEmbedder, n_components: int, *sampled: sparse.csr_matrix) -> SvdDirections:
    """Step 5: the SVD of the sampled rows (every partition's, in order), on one BLAS thread as the
    whole list's fit runs."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return fit_directions(
            sparse.vstack(sampled, format="csr"), n_components, embedder.random_state, embedder.n_iter
        )


def partition_vectors(tfidf: sparse.csr_matrix, fitted: SvdDirections) -> np.ndarray:
    """Step 6: the partition's vectors, float32 unit rows on `lib.exact`'s grid."""
    return exact.snap(exact.unit_rows(rows_in(tfidf, fitted))).astype(np.float32)


def svd_plan(embedder: TfidfSvdEmbedder, n_texts: int, n_terms: int) -> tuple[int, np.ndarray | None]:
    """The SVD's number of components and sampled rows (None: all) for this list, as the whole list's
    fit chooses them; fewer than 2 components means the list is too small for an SVD."""
    return embedder.components_for(n_texts, n_terms), sample_rows(n_texts, embedder.svd_sample, embedder.random_state)


def vocabulary_size(vocabulary: Vocabulary | None) -> int:
    """The number of kept terms (0: none)."""
    return 0 if vocabulary is None else len(vocabulary.terms)


def sampled_in(sample: np.ndarray | None, start: int, stop: int) -> np.ndarray | None:
    """The rows of partition `start:stop` in the SVD's sample, as the partition's own row numbers."""
    if sample is None:
        return None
    return sample[(sample >= start) & (sample < stop)] - start


def model_of(vocabulary: Vocabulary, fitted: SvdDirections, ngram_max: int) -> TfidfSvdModel:
    """The query model the whole list's fit makes: the terms the SVD's sample uses, and their directions."""
    idf = vocabulary.idf[fitted.used].astype(np.float32)
    return TfidfSvdModel(vocabulary.terms[fitted.used], idf, fitted.components, ngram_max)
