"""Truncated SVD of a large sparse matrix in little memory: the embed stage's reduction of TF-IDF.

scikit-learn's randomized SVD of a corpus's TF-IDF holds several dense blocks as tall as the
vocabulary (the range finder's products and their LU copies): on a corpus, most of its memory on
top of the TF-IDF. Here the same randomized range finder (Halko, Martinsson and Tropp 2011) runs
on the rows' side: power iterations of X Xᵀ, applied a block of columns (terms) at a time, so
besides the output only row-side blocks (papers x columns) and a block or two of terms are held.
Two blocks run at once, in threads, their products summed in the blocks' order.

The dense side is float64: BLAS rounds differently on every kernel, and float64 keeps that noise
near 1e-16, far below the grid `lib.exact.snap` puts the embeddings on (see `lib.exact`).
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from typing import NamedTuple, TypeVar

import numpy as np
from scipy import linalg, sparse

from lib.errors import ParameterError

# Terms per block of the matrix's columns: each block's products are (terms x columns) dense, 72 MB
# at 138 columns in float64; larger blocks save little time.
TERMS_PER_BLOCK = 65_536
# Blocks worked on at once, each in a thread (scipy's sparse products release the GIL): a core the
# build's side stages leave idle takes one. Each block in flight holds its products.
BLOCKS_AT_ONCE = min(2, os.cpu_count() or 1)

_Block = TypeVar("_Block")
_Result = TypeVar("_Result")


class TruncatedSvd(NamedTuple):
    """components: (n_components, n_columns) float32, orthonormal rows (scikit-learn's `components_`);
    singular_values: (n_components,), largest first; rows: (n_rows, n_components) float64, the
    matrix's rows in those directions (X componentsᵀ, scikit-learn's `fit_transform`)."""

    components: np.ndarray
    singular_values: np.ndarray
    rows: np.ndarray


def truncated_svd(
    matrix: sparse.spmatrix | sparse.sparray,
    n_components: int,
    random_state: int,
    n_iter: int = 5,
    n_oversamples: int = 10,
    fit_rows: np.ndarray | None = None,
) -> TruncatedSvd:
    """The top `n_components` right singular vectors of `matrix`, their singular values and the
    matrix's rows in their directions (made in the same pass over the matrix: a product with the
    finished components' transpose would copy them whole first, as scipy multiplies C-ordered vectors).

    With `fit_rows` (row indices), the directions and singular values are those of these rows alone,
    and every row of `matrix` is given in them: on a corpus, a sample's power iterations instead of
    the whole matrix's.

    Randomized: `n_iter` (at least 1) power iterations of X Xᵀ on `n_components + n_oversamples`
    seeded random columns of as many values as the rows fitted. The same matrix, rows and
    `random_state` give the same bytes. Each row's largest entry is positive (scikit-learn's sign
    convention; an exact tie keeps the sign found). A direction the matrix does not have (its rank
    is below `n_components`) is a row of zeros with a singular value of 0.
    """
    fitted = matrix.shape[0] if fit_rows is None else len(fit_rows)
    _check(n_components, n_iter, n_oversamples, fitted, matrix.shape[1])
    every_row = _TermBlocks(matrix)
    terms = every_row if fit_rows is None else _TermBlocks(every_row.by_column[np.asarray(fit_rows)])
    left, singular_values = _fit(terms, n_components, random_state, n_iter, n_oversamples)

    components = np.empty((n_components, matrix.shape[1]), dtype=np.float32)
    rows = np.zeros((matrix.shape[0], n_components))
    # One block at a time: beside the components, a second block's products would raise the peak.
    directions_and_rows = partial(terms.directions_and_rows, left=left, every_row=every_row)
    for start, (directions, part) in zip(terms.starts, _in_order(directions_and_rows, terms.starts, 1), strict=True):
        components[:, start : start + len(directions)] = directions.T
        rows += part
    # Each row's largest entry positive, found by the row's extremes and flipped in place: np.abs
    # or a masked assignment would copy the whole output.
    for flipped in _flipped(components.max(axis=1), components.min(axis=1)):
        components[flipped] *= -1
        rows[:, flipped] *= -1
    return TruncatedSvd(components, singular_values, rows)


class SvdDirections(NamedTuple):
    """A truncated SVD's directions as `rows_in` takes them, over the columns the fitted rows use
    (`used`, sorted; the other columns' share of every direction is exactly zero): `directions`,
    (len(used), n_components) float64, those columns of the directions before they are rounded to
    `TruncatedSvd.components`' float32 (`components`); singular values as there. A corpus's
    vocabulary can be ten times its sample's, so nothing here is as wide as it."""

    singular_values: np.ndarray
    used: np.ndarray
    directions: np.ndarray

    @property
    def components(self) -> np.ndarray:
        """(n_components, len(used)) float32: the used columns of `TruncatedSvd.components`."""
        return self.directions.T.astype(np.float32, order="C")


def fit_directions(
    matrix: sparse.spmatrix | sparse.sparray,
    n_components: int,
    random_state: int,
    n_iter: int = 5,
    n_oversamples: int = 10,
) -> SvdDirections:
    """`truncated_svd`'s fit of `matrix` (the rows fitted), for other rows to be given in its directions
    a slice at a time (`rows_in`): the rows `truncated_svd(whole, ..., fit_rows=those rows)` gives,
    bit for bit, when `matrix` is the whole matrix's `fit_rows`, and its components' used columns."""
    _check(n_components, n_iter, n_oversamples, *matrix.shape)
    terms = _TermBlocks(matrix)
    left, singular_values = _fit(terms, n_components, random_state, n_iter, n_oversamples)
    used = columns_used(terms.by_column)
    # Filled a block at a time, the used columns' only: no second copy of them, no unused column.
    directions = np.empty((len(used), n_components))
    largest, smallest = np.full(n_components, -np.inf, np.float32), np.full(n_components, np.inf, np.float32)
    filled = 0
    for start in terms.starts:
        block = terms.block(start)
        part = (block.T @ left)[np.diff(block.indptr) > 0]
        directions[filled : filled + len(part)] = part
        filled += len(part)
        if len(part):  # each direction's extremes as rounded to the components' float32
            rounded = part.astype(np.float32)
            largest, smallest = np.maximum(largest, rounded.max(axis=0)), np.minimum(smallest, rounded.min(axis=0))
    # The unused columns' zeros would change no direction's sign test (`_flipped`).
    flipped = _flipped(largest, smallest)
    directions[:, flipped] *= -1  # negation is exact: flipped before the products, their sums come out flipped
    return SvdDirections(singular_values, used, directions)


def columns_used(matrix: sparse.spmatrix | sparse.sparray, rows: np.ndarray | None = None) -> np.ndarray:
    """The columns (sorted) in which `rows` of `matrix` (all when None) hold an entry: those a fit on
    these rows gives directions for."""
    chosen = sparse.csc_matrix(matrix if rows is None else matrix[rows])
    return np.flatnonzero(np.diff(chosen.indptr))


def rows_in(matrix: sparse.spmatrix | sparse.sparray, fitted: SvdDirections) -> np.ndarray:
    """(n_rows, n_components) float64: `matrix`'s rows (its columns are the fitted matrix's) in the
    directions of `fitted`, summed a block of `TERMS_PER_BLOCK` columns at a time in the blocks'
    order, as `truncated_svd` sums them: the same bits whatever slice of rows `matrix` is."""
    rows = np.zeros((matrix.shape[0], fitted.directions.shape[1]))
    by_column = sparse.csc_matrix(matrix, dtype=np.float32)
    for start in range(0, matrix.shape[1], TERMS_PER_BLOCK):
        inside = slice(*np.searchsorted(fitted.used, [start, start + TERMS_PER_BLOCK]))
        # The other columns' directions are zeros, whose products add nothing (not even a sign:
        # a sum that starts at +0 never becomes -0), so the used columns alone give the same bits.
        rows += by_column[:, fitted.used[inside]].astype(np.float64) @ fitted.directions[inside]
    return rows


def _check(n_components: int, n_iter: int, n_oversamples: int, fitted: int, n_columns: int) -> None:
    if n_iter < 1 or n_oversamples < 0:
        raise ParameterError(
            f"n_iter must be at least 1 and n_oversamples at least 0; got {n_iter} and {n_oversamples}"
        )
    if not 1 <= n_components <= min(fitted, n_columns):
        raise ParameterError(f"n_components must be between 1 and {min(fitted, n_columns)}; got {n_components}")


def _fit(
    terms: _TermBlocks, n_components: int, random_state: int, n_iter: int, n_oversamples: int
) -> tuple[np.ndarray, np.ndarray]:
    """The fitted rows' side of the SVD: `left` (rows x n_components), from which a block of terms'
    directions are `block.T @ left`, and the singular values (0 for a direction the matrix lacks)."""
    fitted = terms.by_column.shape[0]
    size = min(n_components + n_oversamples, fitted)
    basis = np.random.default_rng(random_state).standard_normal((fitted, size))
    for _ in range(n_iter):
        basis = _orthonormal(terms.summed(partial(terms.times_gram, rows=basis)))

    # B = Qᵀ X has the singular values and right vectors of X's projection on the basis; B Bᵀ is small.
    gram = terms.summed(partial(terms.projected_gram, basis=basis))
    eigenvalues, eigenvectors = np.linalg.eigh(gram)
    top = np.argsort(-eigenvalues, kind="stable")[:n_components]
    singular_values = np.sqrt(np.clip(eigenvalues[top], 0, None))
    # B Bᵀ resolves singular values down to about sqrt(eps) of the largest (float32's, to keep the
    # rank the same as when B was float32).
    present = singular_values > singular_values[0] * np.sqrt(np.finfo(np.float32).eps)
    scale = np.where(present, 1 / np.where(present, singular_values, 1), 0)
    # Vᵀ = diag(1/s) Wᵀ B = (Xᵀ Q W diag(1/s))ᵀ
    return basis @ (eigenvectors[:, top] * scale), np.where(present, singular_values, 0.0)


def _flipped(largest: np.ndarray, smallest: np.ndarray) -> np.ndarray:
    """The rows to negate, given each row's `largest` and `smallest` entries, so that each row's
    largest entry (in size) is positive (an exact tie keeps the sign found)."""
    return np.flatnonzero(largest < -smallest)


class _TermBlocks:
    """A matrix as blocks of `TERMS_PER_BLOCK` columns (terms), each made float64 when used, and the
    SVD's products with each block."""

    def __init__(self, matrix: sparse.spmatrix | sparse.sparray) -> None:
        self.by_column = sparse.csc_matrix(matrix, dtype=np.float32)  # no copy when it already is one
        self.starts = range(0, self.by_column.shape[1], TERMS_PER_BLOCK)

    def block(self, start: int) -> sparse.csc_matrix:
        return self.by_column[:, start : start + TERMS_PER_BLOCK].astype(np.float64)

    def summed(self, product: Callable[[int], np.ndarray]) -> np.ndarray:
        """`product(start)` summed over the blocks, in their order: the same rounding however many run at once."""
        total: np.ndarray | None = None
        for part in _in_order(product, self.starts):
            if total is None:
                total = np.zeros_like(part)  # from zeros, as any sum before: 0 + (-0.0) is +0.0
            total += part
        assert total is not None  # a matrix has at least one column
        return total

    def times_gram(self, start: int, rows: np.ndarray) -> np.ndarray:
        """This block's share of X Xᵀ rows."""
        terms = self.block(start)
        return terms @ (terms.T @ rows)

    def projected_gram(self, start: int, basis: np.ndarray) -> np.ndarray:
        """This block's share of B Bᵀ, B = basisᵀ X."""
        projected = self.block(start).T @ basis  # Bᵀ's rows for these terms
        return projected.T @ projected

    def directions_and_rows(
        self, start: int, left: np.ndarray, every_row: _TermBlocks
    ) -> tuple[np.ndarray, np.ndarray]:
        """This block's terms' columns of the components (float32, as kept) and its share of the rows
        of `every_row` (this matrix, or the whole one these rows were taken from)."""
        terms = self.block(start)
        directions = terms.T @ left
        return directions.astype(np.float32), (terms if every_row is self else every_row.block(start)) @ directions


def _in_order(
    work: Callable[[_Block], _Result], items: Iterable[_Block], at_once: int | None = None
) -> Iterator[_Result]:
    """`work(item)` for each item, in the items' order, `at_once` (default `BLOCKS_AT_ONCE`) at a time
    in threads and no more in flight: each result is large, and the caller sums them in order, so
    the sum's rounding is the same however many run at once."""
    at_once = at_once or BLOCKS_AT_ONCE
    with ThreadPoolExecutor(at_once) as threads:
        pending: deque[Future[_Result]] = deque()
        for item in items:
            pending.append(threads.submit(work, item))
            if len(pending) == at_once:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


def _orthonormal(columns: np.ndarray) -> np.ndarray:
    """An orthonormal basis of the columns' span, by Cholesky QR applied twice (the second pass
    restores the orthogonality the first loses to rounding): one small Gram matrix and a triangular
    solve, several times cheaper than Householder QR on tall columns. Householder QR when the
    columns are too near dependent for that (no Cholesky factor, or a result not orthonormal)."""
    basis = columns
    try:
        for _ in range(2):
            lower = np.linalg.cholesky(basis.T @ basis)
            basis = linalg.solve_triangular(lower, basis.T, lower=True, check_finite=False).T
    except np.linalg.LinAlgError:
        return np.linalg.qr(columns)[0]
    if not np.allclose(basis.T @ basis, np.eye(basis.shape[1]), rtol=0, atol=1e-10):
        return np.linalg.qr(columns)[0]
    return basis
