"""Text -> vectors. TF-IDF + truncated SVD by default; all-MiniLM-L6-v2 in exact arithmetic (`minilm`)
or any sentence-transformers model optionally; any object with `name`, `params()` and
`embed(texts)` plugs in (the pipeline keys its cache on the name and parameters).

A text that is not in the corpus (a search query) is embedded in the corpus's space by its query
model: `fit_embed` returns it as plain arrays (saved without pickle) and `query_embedder` rebuilds
an embedder from them. Embedders with a `fit(texts)` method have one; others cannot embed queries.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from lib import exact
from lib.errors import ParameterError
from lib.stages.pretrained import (  # noqa: F401  (EmbedderUnavailable and packaged_model_path are part of this module's API)
    EmbedderUnavailable,
    MiniLMEmbedder,
    SentenceTransformerEmbedder,
    packaged_model_path,
)


class Embedder(Protocol):
    name: str

    def params(self) -> dict[str, Any]:
        """Everything that changes the vectors; part of the cache key."""

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """An (n_texts, dim) float32 array of L2-normalised rows."""


# Shared by fitting and by embedding queries, so both read text the same way; the n-gram range is
# the embedder's `ngram_max` (`tfidf_settings`).
_TFIDF_SETTINGS = {"stop_words": "english", "sublinear_tf": True, "dtype": np.float32}


def tfidf_settings(ngram_max: int) -> dict[str, Any]:
    """scikit-learn's vectorizer settings for terms of 1 to `ngram_max` words."""
    return {**_TFIDF_SETTINGS, "ngram_range": (1, ngram_max)}


@dataclass(frozen=True)
class TfidfSvdModel:
    """What `TfidfSvdEmbedder` learned from a corpus: enough to embed any text into the corpus's space.

    terms: (n_terms,) str, the TF-IDF's columns the SVD was fitted on (its sample's), in order;
    idf: (n_terms,) float32; components: (dim, n_terms) float32, the SVD directions (the identity
    when the corpus was too small for SVD; no columns when it had no usable word); ngram_max: the
    longest term's words. Other terms have no share in any direction: in a query they would only
    lengthen its TF-IDF row, which `embed` normalises away.
    """

    terms: np.ndarray
    idf: np.ndarray
    components: np.ndarray
    ngram_max: int = 2

    @cached_property
    def _vectorizer(self) -> Any:
        """The corpus's TF-IDF weighting, made once per model: its vocabulary is a dict of every term
        (large on a corpus), which took longer to make than a query took to embed."""
        from sklearn.feature_extraction.text import TfidfVectorizer

        vocabulary = {term: i for i, term in enumerate(self.terms)}
        vectorizer = TfidfVectorizer(**tfidf_settings(self.ngram_max), vocabulary=vocabulary)
        vectorizer.idf_ = self.idf
        return vectorizer

    def _weights(self, texts: Sequence[str]) -> tuple[Any, np.ndarray]:
        """The texts' TF-IDF rows over the terms any of them uses, sparse, and those terms' columns.

        Products go over those columns only: one with the whole of `components.T` would first copy
        it (scipy multiplies C-ordered vectors), a large copy on a corpus, for each query.
        """
        tfidf = self._vectorizer.transform(texts)
        used = np.unique(tfidf.indices)
        return tfidf[:, used], used

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """An (n_texts, dim) float32 array of L2-normalised rows (zero rows for texts with no known word)."""
        if len(texts) == 0 or len(self.terms) == 0:
            return np.zeros((len(texts), self.components.shape[0]), dtype=np.float32)
        weights, used = self._weights(texts)
        rows = np.asarray(weights @ self.components[:, used].T)
        norms = np.sqrt(np.einsum("ij,ij->i", rows, rows))  # as scikit-learn's `normalize` measures them
        return (rows / np.where(norms == 0, 1, norms)[:, np.newaxis]).astype(np.float32)

    def cosine_parts(self, text: str, others: Sequence[str]) -> np.ndarray:
        """(len(others), n_terms): how much each term of `text` adds to its cosine with each of `others`.

        With a = P t / |P t| and b the other's vector (P the SVD directions, t the TF-IDF row), the
        cosine splits exactly over `text`'s terms, a · b = sum_j t_j (Pᵀ b)_j / |P t|: each row sums
        to the cosine of the two texts' vectors. Rows are zero where either text has no known word.
        """
        parts = np.zeros((len(others), len(self.terms)), dtype=np.float64)
        if len(self.terms) == 0 or not others:
            return parts
        weights, used = self._weights([text, *others])
        rows = weights.toarray().astype(np.float64)
        directions = self.components[:, used].astype(np.float64)
        projected = rows @ directions.T
        norms = np.linalg.norm(projected, axis=1)
        if norms[0] == 0:
            return parts
        for n, (other, norm) in enumerate(zip(projected[1:], norms[1:])):
            if norm > 0:
                parts[n, used] = rows[0] * (directions.T @ (other / norm)) / norms[0]
        return parts

    def shared_terms(self, text: str, others: Sequence[str], top: int = 3) -> list[list[str]]:
        """For each of `others`, the `top` terms of both texts adding most to `text`'s cosine with it
        (`cosine_parts`): what the similarity rests on; none where they share no term.

        A term of `text` alone can add too, through the words it co-occurs with in the corpus; it is
        left out, as a reason the other paper does not contain misleads."""
        if len(self.terms) == 0 or not others:
            return [[] for _ in others]
        contained = self._vectorizer.transform(others).tocsr()
        found = []
        for n, parts in enumerate(self.cosine_parts(text, others)):
            both = contained.indices[contained.indptr[n] : contained.indptr[n + 1]]
            adding = np.intersect1d(np.flatnonzero(parts > 0), both)  # in column order: ties go to the earlier term
            best = adding[np.argsort(-parts[adding], kind="stable")[:top]]
            found.append([str(self.terms[j]) for j in best])
        return found

    def to_arrays(self) -> dict[str, np.ndarray]:
        return {
            # As wide as the longest of these terms, not as one the model left out.
            "terms": self.terms.astype(object).astype(str),
            "idf": self.idf,
            "components": np.ascontiguousarray(self.components),  # a file's bytes do not depend on how it was cut
            "ngram_max": np.array(self.ngram_max),
        }

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray]) -> TfidfSvdModel:
        # Maps built before `ngram_max` was recorded used words and word pairs.
        ngram_max = int(arrays["ngram_max"]) if "ngram_max" in arrays else 2
        return cls(arrays["terms"], arrays["idf"], arrays["components"], ngram_max)


class TfidfSvdEmbedder:
    """Latent semantic vectors: TF-IDF over words (and word pairs, with `ngram_max=2`), reduced by a
    seeded truncated SVD of `n_iter` power iterations (more changed no measure of docs/meaning.md's
    "What the SVD's iterations buy", and each costs two passes over the TF-IDF). Past `svd_sample`
    texts, the SVD's directions are fitted on a seeded sample of that many, as the map's layout is
    (docs/meaning.md, "A corpus's SVD fitted on a sample"); the TF-IDF's terms and weights are always
    the whole list's."""

    name = "tfidf-svd"

    def __init__(
        self,
        n_components: int = 128,
        random_state: int = 42,
        ngram_max: int = 2,
        n_iter: int = 3,
        svd_sample: int = 20_000,
    ) -> None:
        if n_components < 2:
            raise ParameterError(f"n_components must be at least 2; got {n_components}")
        if ngram_max not in (1, 2):
            raise ParameterError(f"ngram_max must be 1 (words) or 2 (words and word pairs); got {ngram_max}")
        if n_iter < 1:
            raise ParameterError(f"n_iter (the SVD's power iterations) must be at least 1; got {n_iter}")
        if svd_sample < n_components:
            raise ParameterError(f"svd_sample must be at least n_components ({n_components}); got {svd_sample}")
        self.n_components = n_components
        self.random_state = random_state
        self.ngram_max = ngram_max
        self.n_iter = n_iter
        self.svd_sample = svd_sample

    def params(self) -> dict[str, Any]:
        return {
            "n_components": self.n_components,
            "random_state": self.random_state,
            "ngram_max": self.ngram_max,
            "n_iter": self.n_iter,
            "svd_sample": self.svd_sample,
        }

    def components_for(self, n_texts: int, n_terms: int) -> int:
        """The SVD's number of components for a list of `n_texts` texts and `n_terms` kept terms: fewer
        than either (below 2, the list is too small for an SVD)."""
        return min(self.n_components, n_texts - 1, n_terms - 1)

    def fit(self, texts: Sequence[str]) -> TfidfSvdModel:
        """Learn the vocabulary, IDF weights and SVD directions of `texts`."""
        return self.fit_embed(texts)[1]

    def fit_embed(self, texts: Sequence[str]) -> tuple[np.ndarray, TfidfSvdModel]:
        """`fit`, and the texts' vectors from the same TF-IDF pass (what `fit(texts).embed(texts)` gives,
        but for the grid the vectors are snapped to: the same bits on any machine, see `lib.exact`)."""
        # Imported here, not above: a cache hit never fits and should not pay scikit-learn's import.
        from threadpoolctl import threadpool_limits

        from lib.stages.sparse_svd import columns_used, truncated_svd
        from lib.stages.term_counts import count_terms

        try:
            counts, terms = count_terms(texts, self.ngram_max, *term_users_kept(len(texts)))
        except ValueError:  # no text, or no usable word in any text
            empty = np.zeros(0, dtype=np.float32)
            no_terms = np.zeros((self.n_components, 0), dtype=np.float32)
            model = TfidfSvdModel(empty.astype(str), empty, no_terms, self.ngram_max)
            return model.embed(texts), model
        tfidf, idf = tfidf_weights(counts)
        del counts  # not held through the SVD, the embed stage's peak
        tfidf, idf = tfidf.astype(np.float32), idf.astype(np.float32)
        # Tiny corpora keep all of TF-IDF.
        n_components = self.components_for(*tfidf.shape)
        if n_components < 2:
            components, rows = np.eye(tfidf.shape[1], dtype=np.float32), tfidf.toarray()
            used = np.arange(tfidf.shape[1])
        else:
            tfidf = tfidf.tocsc()  # by columns, as the SVD reads it a block of terms at a time; no CSR kept beside it
            sample = sample_rows(tfidf.shape[0], self.svd_sample, self.random_state)
            # On one BLAS thread: its sparse products run in threads of their own, and its dense steps
            # are small, so a second BLAS thread mostly waits, spinning, on a core the build uses.
            with threadpool_limits(limits=1, user_api="blas"):
                components, _, rows = truncated_svd(
                    tfidf, n_components, self.random_state, self.n_iter, fit_rows=sample
                )
            used = columns_used(tfidf, sample)
        vectors = exact.snap(exact.unit_rows(rows)).astype(np.float32)  # grid points: exact in float32
        return vectors, TfidfSvdModel(terms[used], idf[used], components[:, used], self.ngram_max)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.fit_embed(texts)[0]


def sample_rows(n_rows: int, size: int, random_state: int) -> np.ndarray | None:
    """The rows a fit on a sample uses: all (None) up to `size`, else a seeded sample of `size`, in
    order. The SVD's directions are fitted on it, and the subfields seek neighbours among it, so with
    the same seed and size both use the same papers."""
    if n_rows <= size:
        return None
    return np.sort(np.random.default_rng(random_state).choice(n_rows, size, replace=False))


def term_users_kept(n_texts: int) -> tuple[int, float]:
    """The fewest texts a term must be used by, and the largest share of them it may be, to be a
    TF-IDF term of a list of `n_texts`: words seen once cannot link two papers, those in over half of
    them tell none apart; lists under 50 texts keep every term."""
    return (2, 0.5) if n_texts >= 50 else (1, 1.0)


def smoothed_idf(users: np.ndarray, n_texts: int) -> np.ndarray:
    """The smoothed IDF (float64) of terms used by `users` of `n_texts` texts, with `lib.exact`'s logarithm."""
    return exact.log((1 + n_texts) / (1 + users)) + 1


def tfidf_weights(counts: Any, idf: np.ndarray | None = None) -> tuple[Any, np.ndarray]:
    """The TF-IDF rows (CSR float64, unit length; an empty row stays empty) and IDF (float64) of a
    (texts x terms) counts matrix, weighed as `TfidfVectorizer(sublinear_tf=True)` weighs them:
    1 + ln(count), times the smoothed IDF ln((1 + texts) / (1 + texts using the term)) + 1, or times
    `idf` when given (a corpus's, for texts weighed as it was). With `lib.exact`'s logarithm: NumPy's
    differs in the last bit between CPUs, and the SVD and the subfields' scores would carry that on."""
    weights = counts.astype(np.float64)
    if idf is None:
        users = np.bincount(weights.indices, minlength=weights.shape[1])  # texts using each term
        idf = smoothed_idf(users, weights.shape[0])
    weights.data = (1 + exact.log(weights.data)) * idf[weights.indices]
    return _unit_rows(weights), idf


def _unit_rows(weights: Any) -> Any:
    """CSR rows divided by their length, in place; empty rows stay empty. Each row's squares are summed
    in its stored order, as scikit-learn's `normalize` (the vectorizer's own row scaling) sums them, so
    the bits are the same without importing scikit-learn into the build's processes (lib.stages.stop_words)."""
    squares = type(weights)((weights.data * weights.data, weights.indices, weights.indptr), shape=weights.shape)
    lengths = np.sqrt(squares @ np.ones(weights.shape[1]))  # a CSR product adds each row's entries in order
    weights.data /= np.repeat(np.where(lengths == 0, 1, lengths), np.diff(weights.indptr))
    return weights


@dataclass(frozen=True)
class HybridModel:
    """What `HybridEmbedder` learned: the TF-IDF model of the corpus, MiniLM's folder and the weight."""

    tfidf: TfidfSvdModel
    minilm: MiniLMEmbedder
    weight: float

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return join_vectors(self.tfidf.embed(texts), self.minilm.embed(texts), self.weight)

    def to_arrays(self) -> dict[str, np.ndarray]:
        return {**self.tfidf.to_arrays(), **self.minilm.to_arrays(), "weight": np.array(self.weight)}

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray]) -> HybridModel:
        weight = float(arrays["weight"])
        return cls(TfidfSvdModel.from_arrays(arrays), MiniLMEmbedder.from_arrays(arrays), weight)


def join_vectors(tfidf: np.ndarray, minilm: np.ndarray, weight: float) -> np.ndarray:
    """Unit rows whose cosines are `weight` times the TF-IDF cosine plus the rest times MiniLM's, snapped."""
    joined = np.hstack([math.sqrt(weight) * tfidf.astype(np.float64), math.sqrt(1 - weight) * minilm])
    return exact.snap(exact.unit_rows(joined)).astype(np.float32)


class HybridEmbedder:
    """TF-IDF + SVD beside all-MiniLM-L6-v2 (`minilm`), one vector: the corpus's own words, which name
    rare methods exactly, and the model's meaning, which knows their synonyms (docs/meaning.md)."""

    name = "tfidf-minilm"

    def __init__(self, model: str | Path | None = None, weight: float = 0.3, random_state: int = 42) -> None:
        if not 0 < weight < 1:
            raise ParameterError(f"weight must be between 0 and 1; got {weight}")
        self.tfidf, self.minilm, self.weight = (
            TfidfSvdEmbedder(random_state=random_state),
            MiniLMEmbedder(model),
            weight,
        )

    def params(self) -> dict[str, Any]:
        return {"tfidf": self.tfidf.params(), "minilm": self.minilm.params(), "weight": self.weight}

    def fit_embed(self, texts: Sequence[str]) -> tuple[np.ndarray, HybridModel]:
        vectors, tfidf = self.tfidf.fit_embed(texts)
        return join_vectors(vectors, self.minilm.embed(texts), self.weight), HybridModel(
            tfidf, self.minilm, self.weight
        )

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.fit_embed(texts)[0]


EMBEDDERS = ("tfidf-svd", "minilm", "tfidf-minilm", "sentence-transformers")


def make_embedder(name: str = "tfidf-svd", model: str | Path | None = None, random_state: int = 42) -> Embedder:
    """The embedder called `name` (one of `EMBEDDERS`); `model` is the pretrained model's folder or name."""
    if name == "tfidf-svd":
        if model is not None:
            raise ParameterError("--model applies to the embedders of a pretrained model only")
        return TfidfSvdEmbedder(random_state=random_state)
    if name == "minilm":
        return MiniLMEmbedder(model)
    if name == "tfidf-minilm":
        return HybridEmbedder(model, random_state=random_state)
    if name == "sentence-transformers":
        return SentenceTransformerEmbedder(model)
    raise ParameterError(f"embedder must be one of {', '.join(EMBEDDERS)}; got {name!r}")


class QueryEmbedder(Protocol):
    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """An (n_texts, dim) float32 array of L2-normalised rows in the corpus's space."""


# How each embedder's query model is rebuilt from the arrays `fit_embed` returned.
_QUERY_EMBEDDERS: dict[str, Callable[[Mapping[str, np.ndarray]], QueryEmbedder]] = {
    TfidfSvdEmbedder.name: TfidfSvdModel.from_arrays,
    MiniLMEmbedder.name: MiniLMEmbedder.from_arrays,
    HybridEmbedder.name: HybridModel.from_arrays,
    SentenceTransformerEmbedder.name: SentenceTransformerEmbedder.from_arrays,
}


def fit_embed(embedder: Embedder, texts: Sequence[str]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The vectors of `texts` and the query model: arrays from which `query_embedder` embeds new text
    in the same space. An embedder without `fit` gives a query model naming it only."""
    if hasattr(embedder, "fit_embed"):  # one pass over the texts instead of two
        vectors, fitted = embedder.fit_embed(texts)
        return vectors, query_model_of(embedder, fitted)
    fit = getattr(embedder, "fit", None)
    if fit is None:
        return embedder.embed(texts), query_model_of(embedder)
    fitted = fit(texts)
    return fitted.embed(texts), query_model_of(embedder, fitted)


def query_model_of(embedder: Embedder, fitted: Any = None) -> dict[str, np.ndarray]:
    """The query model's arrays: the embedder's name, and what its fit learned (`to_arrays`), if any."""
    return {"embedder": np.array(embedder.name), **(fitted.to_arrays() if fitted is not None else {})}


def query_embedder(query_model: Mapping[str, np.ndarray]) -> QueryEmbedder:
    """An embedder of new text into the space `fit_embed` made `query_model` for.

    Raises `EmbedderUnavailable` (one sentence) when that embedder cannot embed queries here.
    """
    name = str(query_model["embedder"])
    if name not in _QUERY_EMBEDDERS or set(query_model) == {"embedder"}:
        raise EmbedderUnavailable(f"this map's embedder ({name}) cannot embed a text to compare with the papers")
    return _QUERY_EMBEDDERS[name](query_model)
