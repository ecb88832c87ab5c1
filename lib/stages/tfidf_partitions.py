"""The TF-IDF + SVD embedding a partition (a slice of the papers) at a time: the vectors and model
`TfidfSvdEmbedder.fit_embed` gives, bit for bit, each partition's texts and TF-IDF held by its own
task; the vocabulary's task holds every partition's terms, the SVD's its sample.

Each partition, then the one small global fit, then each partition again:
1. `partition_terms`: a partition's terms, as it first uses them, and how many of its texts use each;
2. `agree_vocabulary`: those merged in partition order (so numbered as the whole list first uses
   them), pruned by how many texts use them, sorted by name, with their IDF; each partition gets back
   where its terms went (`VocabularyPlace`);
3. `partition_tfidf`: a partition's TF-IDF rows in the whole list's columns (`sampled_rows`: those
   in the SVD's sample);
4. `fit_sample` (one process): the SVD of the sampled rows (`lib.stages.sparse_svd.fit_directions`);
5. `partition_vectors`: a partition's papers in the SVD's directions, snapped (`lib.exact`).

Every row's arithmetic is the row's own, in the same order as the whole list's (its entries in
first-use order, the SVD's products a block of terms at a time), so the bits do not depend on the
partitions. `lib.builder.embed_partitions` runs the steps on a runner (a Dask cluster).
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
from lib.stages.sparse_svd import SvdDirections, fit_directions, rows_in
from lib.stages.term_counts import first_met_terms, kept_terms


class PartitionTerms(NamedTuple):
    """A partition's counts: `counts` (texts x its terms) float32, each row's entries in first-use
    order; `terms` (str), numbered as the partition first uses them; `users`, its texts using each."""

    counts: sparse.csr_matrix
    terms: np.ndarray
    users: np.ndarray


class VocabularyPlace(NamedTuple):
    """Where a partition's terms went: `columns`, each term's column in the list's TF-IDF (-1: pruned);
    `ranks`, each term's number in the order the whole list first uses them."""

    columns: np.ndarray
    ranks: np.ndarray


@dataclass(frozen=True)
class Vocabulary:
    """The list's kept terms (sorted by name, the TF-IDF's columns), their IDF (float64), the number
    of texts, and each partition's `VocabularyPlace`, in partition order."""

    terms: np.ndarray
    idf: np.ndarray
    n_texts: int
    places: tuple[VocabularyPlace, ...]


def partition_terms(texts: Sequence[str], ngram_max: int) -> PartitionTerms:
    """Step 1, on each partition's texts."""
    counts, terms = first_met_terms(texts, ngram_max)
    return PartitionTerms(counts, terms, np.bincount(counts.indices, minlength=len(terms)))


def terms_and_users(part: PartitionTerms) -> tuple[np.ndarray, np.ndarray]:
    """What step 2 needs of a partition: its terms and users, not its counts."""
    return part.terms, part.users


def agree_vocabulary(n_texts: int, *parts: tuple[np.ndarray, np.ndarray]) -> Vocabulary | None:
    """Step 2, on every partition's `terms_and_users` in order; None when no term is kept (no text
    has a usable word), for which the whole list's fit has its own answer."""
    if not parts:
        return None
    # Factorized in partition order, each partition's terms in its own first-use order: the numbers
    # are the order in which the whole list first uses them.
    ranks, uniques = pd.factorize(np.concatenate([np.asarray(terms, dtype=object) for terms, _ in parts]))
    users = np.bincount(ranks, weights=np.concatenate([users for _, users in parts]), minlength=len(uniques))
    kept = kept_terms(users, n_texts, *term_users_kept(n_texts))
    if len(kept) == 0:
        return None
    terms = uniques[kept].astype(str)
    order = np.argsort(terms, kind="stable")
    column = np.full(len(uniques), -1, dtype=np.int64)
    column[kept[order]] = np.arange(len(kept))
    idf = smoothed_idf(users[kept[order]], n_texts)
    bounds = np.cumsum([0, *(len(terms) for terms, _ in parts)])
    places = tuple(VocabularyPlace(column[ranks[a:b]], ranks[a:b]) for a, b in zip(bounds[:-1], bounds[1:]))
    return Vocabulary(terms[order], idf, n_texts, places)


def partition_tfidf(part: PartitionTerms, vocabulary: Vocabulary, index: int) -> sparse.csr_matrix:
    """Step 3: partition `index`'s TF-IDF rows (float32, in the list's columns)."""
    place, idf = vocabulary.places[index], vocabulary.idf
    counts = part.counts.tocoo()
    keep = place.columns[counts.col] >= 0
    rows, ranks = counts.row[keep], place.ranks[counts.col[keep]]
    # Each row's entries in the whole list's first-use order, as the whole list's counts hold them
    # when `tfidf_weights` sums each row's squares: the same input, whatever SciPy does with that order.
    order = np.lexsort((ranks, rows))
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=counts.shape[0]))])
    kept = sparse.csr_matrix(
        (counts.data[keep][order], place.columns[counts.col[keep][order]].astype(np.int32), indptr),
        shape=(counts.shape[0], len(idf)),
    )
    return tfidf_weights(kept, idf)[0].astype(np.float32)


def sampled_rows(tfidf: sparse.csr_matrix, sampled: np.ndarray | None) -> sparse.csr_matrix:
    """A partition's rows in the SVD's sample (`sampled`, the partition's own row numbers; None: all)."""
    return tfidf if sampled is None else tfidf[sampled]


def fit_sample(embedder: TfidfSvdEmbedder, n_components: int, *sampled: sparse.csr_matrix) -> SvdDirections:
    """Step 4: the SVD of the sampled rows (every partition's, in order), on one BLAS thread as the
    whole list's fit runs."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return fit_directions(
            sparse.vstack(sampled, format="csr"), n_components, embedder.random_state, embedder.n_iter
        )


def partition_vectors(tfidf: sparse.csr_matrix, fitted: SvdDirections) -> np.ndarray:
    """Step 5: the partition's vectors, float32 unit rows on `lib.exact`'s grid."""
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
    """The query model the whole list's fit makes."""
    return TfidfSvdModel(vocabulary.terms, vocabulary.idf.astype(np.float32), fitted.components, ngram_max)
