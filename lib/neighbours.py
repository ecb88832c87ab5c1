"""Exact cosine nearest neighbours, in row blocks so that no m x n similarity matrix is ever held whole.

Shared by the stages (`knn_cosine` for the UMAP layout, `knn_graph` for the subfield scorer's
paper graph), the map's growth (`ranked_rows`, `lib.builder.extend`) and search (`cosine_similarity`,
`lib.views.search`). Rows given to `knn_cosine`, `knn_graph` and `ranked_rows` must be
L2-normalised (`normalize_rows`); `cosine_similarity` divides by the norms itself.

`knn_cosine`, `knn_graph` and `ranked_rows` rank exact similarities (`lib.exact.products`: the
rows on a grid, multiplied in float64 without rounding), so near-ties come out the same on every
BLAS kernel and thread count, and exact ties go to the lower row. (`knn_cosine` first screens with
a float32 product, keeping every entry that its error bound cannot rule out, whatever the kernel.)
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits  # installed with scikit-learn, which uses it the same way

from lib import exact

# A block of similarities (rows x points) holds at most this many entries (64 MB of float64).
BLOCK_ENTRIES = 1 << 23
# Threads making `knn_graph`'s blocks, each holding one block at a time.
GRAPH_THREADS = min(4, os.cpu_count() or 1)


def _blocks(m: int, n: int) -> Iterator[tuple[int, int]]:
    """(start, stop) of consecutive blocks of `m` query rows, each against `n` base rows within `BLOCK_ENTRIES`."""
    block = max(1, BLOCK_ENTRIES // max(n, 1))
    for start in range(0, m, block):
        yield start, min(m, start + block)


def normalize_rows(vectors: np.ndarray) -> np.ndarray:
    """float32 rows of unit length; all-zero rows stay zero (cosine distance 1 to everything)."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


def knn_cosine(
    queries: np.ndarray, base: np.ndarray, k: int, self_query: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Exact k nearest `base` rows of each `queries` row by cosine distance, in row blocks (never m x n at once).

    Rows must be L2-normalised. With `self_query` (queries is base), each point is its own first neighbour.
    Each block is screened by a float32 product (about twice as fast as float64's) whose error is
    bounded (`_screen`), and only the entries within reach of the k nearest get their exact similarity.
    """
    m, n = len(queries), len(base)
    k = min(k, n)
    indices = np.empty((m, k), dtype=np.int64)
    distances = np.empty((m, k), dtype=np.float32)
    queries, base = _grid32(queries), _grid32(base)
    margins = 2 * _screen_error(queries, base)
    # Base rows reordered so that `_screen`'s sampled columns come first, contiguous in each row.
    n_sample, order = _sample_first(n, k)
    position = np.empty(n, dtype=np.int64)
    position[order] = np.arange(n)
    base = base[order]
    # Reused for every block: fresh arrays of this size cost a page fault every 4 kB.
    buffer = np.empty((min(m, max(1, BLOCK_ENTRIES // max(n, 1))), n), dtype=np.float32)
    mask = np.empty(buffer.shape, dtype=bool)
    for start, stop in _blocks(m, n):
        approx = np.matmul(queries[start:stop], base.T, out=buffer[: stop - start])
        if self_query:  # ties among duplicates must not push a point out of its own first place
            approx[np.arange(stop - start), position[start:stop]] = 2.0  # above any cosine similarity
        row, col = _screen(approx, k, n_sample, margins[start:stop], mask)
        # In float64, exact: see `lib.exact.products`.
        sims = np.einsum("ij,ij->i", queries[start + row], base[col], dtype=np.float64)
        col = order[col]
        if self_query:
            sims[col == start + row] = 2.0
        # By row, then largest similarity (the key is exact: similarities are multiples of 2^-32), then column.
        ranked = np.lexsort((col, row * 8.0 + (2.0 - sims)))
        counts = np.bincount(row, minlength=stop - start)
        picked = ranked[(np.cumsum(counts) - counts)[:, None] + np.arange(k)]
        indices[start:stop] = col[picked]
        distances[start:stop] = np.maximum(1.0 - sims[picked], 0.0)
    if self_query:
        distances[:, 0] = 0.0
    return indices, distances


def _grid32(vectors: np.ndarray) -> np.ndarray:
    """`lib.exact.snap(vectors)` as float32, which holds the grid points of unit rows (17 bits) exactly.

    Rounding float32 rows in float32 gives the same grid points: scaling by a power of two is exact in either.
    """
    vectors = np.asarray(vectors)
    if vectors.dtype != np.float32:
        return exact.snap(vectors).astype(np.float32)
    scale = np.float32(2**exact.SNAP_BITS)
    return np.round(vectors * scale) / scale


def _screen_error(queries: np.ndarray, base: np.ndarray) -> np.ndarray:
    """Per query row, a bound on |float32 product - exact product| with any base row, for float32-exact inputs.

    A dot product of d terms summed in any order, fused or not, is within d u / (1 - d u) of the sum
    of its terms' magnitudes (u = 2^-24), which Cauchy-Schwarz bounds by the product of the norms.
    """
    d = queries.shape[1]
    gamma = d * 2.0**-24 / (1 - d * 2.0**-24)
    base_norm = np.sqrt(np.einsum("ij,ij->i", base, base, dtype=np.float64)).max(initial=0.0)
    # The slack covers the norms' own rounding and the float32 rounding of the thresholds made from them.
    return gamma * np.sqrt(np.einsum("ij,ij->i", queries, queries, dtype=np.float64)) * base_norm * 1.01 + 2.0**-20


def _sample_first(n: int, k: int) -> tuple[int, np.ndarray]:
    """How many columns `_screen` samples to set its thresholds, and an order of n columns that puts them first.

    Every `stride`-th column, with a stride below the balance point of sampling and sorting candidates.
    """
    stride = int(np.sqrt(n / k) / 4)
    if stride < 2:
        return 0, np.arange(n)
    sampled = np.zeros(n, dtype=bool)
    sampled[::stride] = True
    return int(sampled.sum()), np.concatenate([np.flatnonzero(sampled), np.flatnonzero(~sampled)])


def _screen(
    approx: np.ndarray, k: int, n_sample: int, margins: np.ndarray, mask: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns, by row, of every entry of float32 `approx` whose exact value may be among its
    row's k largest: each within `margins` (twice its row's error bound) of its row's k-th largest
    approximation. Values must lie in [-2, 2]; the first `n_sample` columns are a sample (none if 0).

    The k-th largest exact value is at least the k-th approximation less one error, and an entry reaching it
    is approximated at most one error below: so every entry of the exact top k is kept.
    """
    rows, n = approx.shape
    if n_sample >= k:  # the sample's k-th largest approximation is at most the row's: only entries above it
        floor = np.partition(approx[:, :n_sample], n_sample - k, axis=1)[:, n_sample - k]
        above = np.greater_equal(approx, (floor - margins).astype(np.float32)[:, None], out=mask[:rows])
        flat = np.flatnonzero(above)
    else:
        flat = np.arange(approx.size)
    row, col = np.divmod(flat, n)
    values = approx.reshape(-1)[flat]
    # Each row's k-th largest approximation, from its candidates sorted by row, then largest value.
    keys = np.sort(row * 8.0 + (2.0 - values))
    counts = np.bincount(row, minlength=rows)
    kth = 2.0 - (keys[np.cumsum(counts) - counts + k - 1] - np.arange(rows) * 8.0)
    keep = values >= (kth - margins).astype(np.float32)[row]
    return row[keep], col[keep]


def _top_k(sims: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Column indices and values of each row's k largest entries, largest first (ties by column).

    A full argpartition costs ~20 ns an entry, 3-4 times the matrix product that made the entries.
    Instead: each row's k-th largest among every `stride`-th column is a threshold that at least k
    entries reach, and only the ~k * stride entries above it are sorted. Values must lie in [-2, 2].
    """
    rows, n = sims.shape
    stride = int(np.sqrt(n / k) / 4)  # below the balance point: fewer candidates for a longer, cheap sample
    if stride < 2:  # short rows: sort them whole (argpartition would pick among ties at the k-th value arbitrarily)
        part = np.argsort(-sims, axis=1, kind="stable")[:, :k]
        return part, np.take_along_axis(sims, part, axis=1)
    sample = sims[:, ::stride]
    threshold = np.partition(sample, sample.shape[1] - k, axis=1)[:, sample.shape[1] - k]
    # Flat positions, split into row and column after: the 2D `np.nonzero` is much slower.
    flat = np.flatnonzero(sims >= threshold[:, None])
    row, col = np.divmod(flat, n)
    values = sims.reshape(-1)[flat]
    # One float64 key sorts by row, then largest value; the stable sort keeps columns ascending within ties.
    order = np.argsort(row * 8.0 + (2.0 - values), kind="stable")
    counts = np.bincount(row, minlength=rows)
    first = np.concatenate([[0], np.cumsum(counts)[:-1]])
    picked = order[first[:, None] + np.arange(k)]
    return col[picked], values[picked]


def knn_graph(vectors: np.ndarray, n_neighbors: int) -> sp.csr_matrix:
    """Cosine kNN graph, symmetrised (an edge if either end picks the other), in row blocks: never n x n dense.

    The blocks go to `GRAPH_THREADS` threads (NumPy lets go of the GIL in the product and the
    selection): the graph is the subfields' last step, and on a large list it ran alone on one
    core of two while the build waited for it. Each product has one BLAS thread: these tall, thin
    products gain little from BLAS's own, and on a busy laptop its spinning threads made this step
    several times slower.
    """
    n = len(vectors)
    k = min(n_neighbors, n - 1)
    vectors = exact.snap(vectors)

    def block_neighbours(block: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
        start, stop = block
        similarity = vectors[start:stop] @ vectors.T  # exact: see `lib.exact.products`
        local = np.arange(len(similarity))
        similarity[local, start + local] = -2.0  # below any cosine: a paper is not its own neighbour
        # `_top_k`, not a full argpartition: that dominated the subfields stage on large lists.
        return _top_k(similarity, k)

    with ThreadPoolExecutor(GRAPH_THREADS) as pool, threadpool_limits(limits=1, user_api="blas"):
        found = list(pool.map(block_neighbours, _blocks(n, n)))  # in block order, whichever thread made each
    nearest = np.concatenate([f[0] for f in found])
    weights = np.maximum(np.concatenate([f[1] for f in found]).ravel(), 0)  # unrelated papers are not neighbours
    graph = sp.csr_matrix((weights, (np.repeat(np.arange(n), k), nearest.ravel())), shape=(n, n))
    graph.eliminate_zeros()
    return graph.maximum(graph.T).tocsr()


def ranked_rows(queries: np.ndarray, base: np.ndarray, k: int) -> np.ndarray:
    """Indices (m, k) of the `k` `base` rows most similar to each `queries` row (dot product: cosine
    for L2-normalised rows), best first, ties by row, ordered by a stable sort of exact similarities.

    `knn_cosine` is several times faster but orders similarities within float32 rounding near 2
    (about 1e-7) by row, so a near-tie can come out the other way; this keeps the order exact.
    Queries go in blocks of about 1,024 rows: a later list against a corpus-sized map would not
    fit in memory at once.
    """
    k = min(k, len(base))
    base = exact.snap(base)
    return np.vstack(
        [
            np.argsort(-(exact.snap(block) @ base.T), axis=1, kind="stable")[:, :k]
            for block in np.array_split(queries, max(1, len(queries) // 1024))
        ]
    )


def cosine_similarity(vectors: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """float64 cosine of each row of `vectors` with `vector`; 0 where either has no length."""
    norms = np.linalg.norm(vectors, axis=1) * np.linalg.norm(vector)
    dots = vectors.astype(np.float64) @ np.asarray(vector, dtype=np.float64)
    return np.divide(dots, norms, out=np.zeros(len(vectors)), where=norms > 0)
