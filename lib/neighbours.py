"""Exact cosine nearest neighbours, in row blocks so that no m x n similarity matrix is ever held whole.

Shared by the stages (`knn_cosine` for the UMAP layout, `knn_graph` for the subfield scorer's
paper graph), the map's growth (`ranked_rows`, `lib.builder.extend`) and search (`cosine_similarity`,
`lib.views.search`). Rows given to `knn_cosine`, `knn_graph` and `ranked_rows` must be
L2-normalised (`normalize_rows`); `cosine_similarity` divides by the norms itself.

`knn_cosine`, `knn_graph` and `ranked_rows` rank exact similarities (`lib.exact.products`: the
rows on a grid, multiplied in float64 without rounding), so near-ties come out the same on every
BLAS kernel and thread count, and exact ties go to the lower row. (`knn_cosine` and `knn_graph`
first screen with a float32 product, keeping every entry that its error bound cannot rule out,
whatever the kernel.)
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits  # installed with scikit-learn, which uses it the same way

from lib import exact

# A block of similarities (rows x points) holds at most this many entries (32 MB of float32); a
# block of `BLOCK_ROWS` rows or more goes in tiles of columns of that size.
BLOCK_ENTRIES = 1 << 23
# Query rows per block of `_nearest`, at least: BLAS runs a taller product faster (it reads the base
# rows once a block), and the block goes through the base in tiles of columns within BLOCK_ENTRIES.
BLOCK_ROWS = 384
# Threads making `knn_graph`'s blocks, each holding one block at a time.
GRAPH_THREADS = min(4, os.cpu_count() or 1)


def _blocks(m: int, rows: int) -> Iterator[tuple[int, int]]:
    """(start, stop) of consecutive blocks of `rows` of `m` query rows."""
    for start in range(0, m, rows):
        yield start, min(m, start + rows)


def _tiles(n: int, rows: int, n_sample: int) -> list[tuple[int, int]]:
    """(first, past the last) column of consecutive tiles of `n` columns, each of `rows` rows within
    `BLOCK_ENTRIES` but the first, which holds the `n_sample` sampled columns."""
    width = max(1, BLOCK_ENTRIES // rows)
    return list(pairwise([0, *range(max(width, n_sample), n, width), n]))


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
    """
    indices, sims = _nearest(queries, base, min(k, len(base)), self_query)
    distances = np.maximum(1.0 - sims, 0.0).astype(np.float32)
    if self_query:
        distances[:, 0] = 0.0
    return indices, distances


def _nearest(
    queries: np.ndarray, base: np.ndarray, k: int, self_query: bool, threads: int = 1
) -> tuple[np.ndarray, np.ndarray]:
    """Indices and exact float64 similarities (`lib.exact.products`) of the k most similar `base`
    rows of each `queries` row, largest first, ties by the lower row; with `self_query`, each point
    first, at similarity 2. Row blocks go to `threads` threads.

    Each block is screened by a float32 product (about twice as fast as float64's) whose error is
    bounded (`_screen`), and only the entries within reach of the k nearest get their exact similarity.
    """
    m, n = len(queries), len(base)
    indices = np.empty((m, k), dtype=np.int64)
    similarities = np.empty((m, k), dtype=np.float64)
    queries, base = _grid32(queries), _grid32(base)
    margins = 2 * _screen_error(queries, base)
    # Base rows reordered so that `_screen`'s sampled columns come first, contiguous in each row.
    n_sample, order = _sample_first(n, k)
    position = np.empty(n, dtype=np.int64)
    position[order] = np.arange(n)
    base = base[order]
    rows = min(m, max(BLOCK_ROWS, BLOCK_ENTRIES // max(n, 1)))
    tiles = _tiles(n, rows, n_sample)
    scratch = threading.local()

    def block_nearest(block: tuple[int, int]) -> None:
        start, stop = block
        if not hasattr(scratch, "buffer"):  # reused for every tile of a thread: fresh arrays of this
            size = rows * max(last - first for first, last in tiles)  # size cost a page fault every 4 kB
            scratch.buffer, scratch.mask = np.empty(size, dtype=np.float32), np.empty(size, dtype=bool)
        own = position[start:stop]
        found = []
        for first, last in tiles:
            approx = scratch.buffer[: (stop - start) * (last - first)].reshape(stop - start, last - first)
            np.matmul(queries[start:stop], base[first:last].T, out=approx)
            if self_query:  # ties among duplicates must not push a point out of its own first place
                inside = np.flatnonzero((own >= first) & (own < last))
                approx[inside, own[inside] - first] = 2.0  # above any cosine similarity
            if first == 0:
                floor = _floor(approx, k, n_sample, margins[start:stop])
            found.append(_above(approx, floor, first, scratch.mask))
        rows_found, cols_found, values = (np.concatenate(part) for part in zip(*found))
        row, col = _screen(rows_found, cols_found, values, k, margins[start:stop])
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
        similarities[start:stop] = sims[picked]

    if threads == 1:
        for block in _blocks(m, rows):
            block_nearest(block)
    else:  # each block fills its own rows: whichever thread makes it, the result is the same
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(block_nearest, _blocks(m, rows)))
    return indices, similarities


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


def _floor(approx: np.ndarray, k: int, n_sample: int, margins: np.ndarray) -> np.ndarray:
    """Per row of float32 `approx`, whose first `n_sample` columns are a sample (none if 0), a float32
    value that every entry of the row's exact top k reaches (`margins`: twice the rows' error bounds).

    The sample's k-th largest approximation is at most the row's: so is the exact k-th largest, less
    one error, and an entry reaching that is approximated at most one error below it."""
    if n_sample < k:
        return np.full(len(approx), -np.inf, dtype=np.float32)
    floor = np.partition(approx[:, :n_sample], n_sample - k, axis=1)[:, n_sample - k]
    return (floor - margins).astype(np.float32)


def _above(
    approx: np.ndarray, floor: np.ndarray, first: int, mask: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows, columns (from `first`) and values of the entries of float32 `approx` at least their row's `floor`."""
    above = np.greater_equal(approx, floor[:, None], out=mask[: approx.size].reshape(approx.shape))
    flat = np.flatnonzero(above)  # flat positions, split after: the 2D `np.nonzero` is much slower
    row, col = np.divmod(flat, approx.shape[1])
    return row, col + first, approx.reshape(-1)[flat]


def _screen(
    row: np.ndarray, col: np.ndarray, values: np.ndarray, k: int, margins: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of the candidates (`row`, `col`: float32 approximations `values` in [-2, 2],
    all of each row's exact top k among them) whose exact value may be among their row's k largest:
    each within `margins` (twice its row's error bound) of its row's k-th largest approximation.

    The k-th largest exact value is at least the k-th approximation less one error, and an entry reaching it
    is approximated at most one error below: so every entry of the exact top k is kept.
    """
    rows = len(margins)
    # Each row's k-th largest approximation, from its candidates sorted by row, then largest value.
    keys = np.sort(row * 8.0 + (2.0 - values))
    counts = np.bincount(row, minlength=rows)
    kth = 2.0 - (keys[np.cumsum(counts) - counts + k - 1] - np.arange(rows) * 8.0)
    keep = values >= (kth - margins).astype(np.float32)[row]
    return row[keep], col[keep]


def knn_graph(vectors: np.ndarray, n_neighbors: int, candidates: np.ndarray | None = None) -> sp.csr_matrix:
    """Cosine kNN graph, symmetrised (an edge if either end picks the other), in row blocks: never n x n dense.

    Each paper's `n_neighbors` most similar others (`_nearest`: exact similarities, ties to the
    lower row), weighted by their similarity; with `candidates` (sorted row numbers), the most
    similar among those rows only, so the work grows with the papers times the candidates, not
    with the papers squared. The blocks go to `GRAPH_THREADS` threads (NumPy lets
    go of the GIL in the product and the selection): the graph is the subfields' last step, and on
    a large list it ran alone on one core of two while the build waited for it. Each product has
    one BLAS thread: these tall, thin products gain little from BLAS's own, and on a busy laptop
    its spinning threads made this step several times slower.
    """
    if candidates is not None:
        pool = np.asarray(candidates, dtype=np.int64)
        return picks_graph(
            nearest_candidates(vectors, 0, vectors[pool], pool, n_neighbors, GRAPH_THREADS), len(vectors)
        )
    k = min(n_neighbors, len(vectors) - 1)
    # A paper comes first among its own nearest: the others follow it.
    with threadpool_limits(limits=1, user_api="blas"):
        found, similarities = _nearest(vectors, vectors, k + 1, self_query=True, threads=GRAPH_THREADS)
    return picks_graph((found[:, 1:], similarities[:, 1:]), len(vectors))


def nearest_candidates(
    queries: np.ndarray, first_row: int, candidates: np.ndarray, pool: np.ndarray, k: int, threads: int = 1
) -> tuple[np.ndarray, np.ndarray]:
    """Row numbers and similarities of the `k` nearest `candidates` (rows `pool` of the list, sorted)
    of each of `queries` (the list's rows from `first_row` on), the query's own row left out: a
    block of `knn_graph(vectors, k, pool)`'s picks, each row's the same whatever the block."""
    k = min(k, len(pool) - 1)
    with threadpool_limits(limits=1, user_api="blas"):
        found, similarities = _nearest(queries, candidates, k + 1, self_query=False, threads=threads)
    found = pool[found]
    # A candidate may find itself, anywhere among its k + 1 nearest (a duplicate ties with it).
    rows = np.arange(first_row, first_row + len(queries))
    others = np.argsort(found == rows[:, None], axis=1, kind="stable")[:, :k]
    return np.take_along_axis(found, others, 1), np.take_along_axis(similarities, others, 1)


def picks_graph(picks: tuple[np.ndarray, np.ndarray], n: int) -> sp.csr_matrix:
    """The symmetric graph of `n` rows from each row's picked neighbours and similarities (`picks`):
    an edge, weighted by its similarity, where either end picked the other."""
    nearest, similarities = picks
    weights = np.maximum(similarities.ravel(), 0)  # unrelated papers are not neighbours
    graph = sp.csr_matrix((weights, (np.repeat(np.arange(n), nearest.shape[1]), nearest.ravel())), shape=(n, n))
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
