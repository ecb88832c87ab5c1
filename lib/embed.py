"""Text -> vectors. TF-IDF + truncated SVD by default; any object with `name`, `params()` and
`embed(texts)` plugs in (the pipeline keys its cache on the name and parameters)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.preprocessing import normalize

from .errors import ParameterError

# Part of this stage's cache key: bump it when a change alters what the stage outputs.
VERSION = 1


class Embedder(Protocol):
    name: str

    def params(self) -> dict[str, Any]:
        """Everything that changes the vectors; part of the cache key."""

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """An (n_texts, dim) float32 array of L2-normalised rows."""


class TfidfSvdEmbedder:
    """Latent semantic vectors: TF-IDF over words and bigrams, reduced by a seeded truncated SVD."""

    name = "tfidf-svd"

    def __init__(self, n_components: int = 128, random_state: int = 42) -> None:
        if n_components < 2:
            raise ParameterError(f"n_components must be at least 2; got {n_components}")
        self.n_components = n_components
        self.random_state = random_state

    def params(self) -> dict[str, Any]:
        return {"n_components": self.n_components, "random_state": self.random_state}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if len(texts) == 0:
            return np.zeros((0, self.n_components), dtype=np.float32)
        vectorizer = TfidfVectorizer(
            stop_words="english",
            ngram_range=(1, 2),
            sublinear_tf=True,
            min_df=2 if len(texts) >= 50 else 1,  # words seen once cannot link two papers
            max_df=0.5 if len(texts) >= 50 else 1.0,
            dtype=np.float32,
        )
        try:
            tfidf = vectorizer.fit_transform(texts)
        except ValueError:  # no usable word in any text
            return np.zeros((len(texts), self.n_components), dtype=np.float32)
        # SVD needs fewer components than either side of the matrix; tiny corpora keep all of TF-IDF.
        n_components = min(self.n_components, tfidf.shape[0] - 1, tfidf.shape[1] - 1)
        if n_components < 2:
            vectors = tfidf.toarray()
        else:
            svd = TruncatedSVD(n_components=n_components, algorithm="randomized", random_state=self.random_state)
            vectors = svd.fit_transform(tfidf)
        return normalize(vectors).astype(np.float32)
