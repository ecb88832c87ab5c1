"""The embed stage's truncated SVD against the exact one, on real TF-IDF and on matrices of known rank."""

import numpy as np
import pytest
from conftest import SEED_SAMPLE, planted_records
from scipy import sparse
from sklearn.feature_extraction.text import TfidfVectorizer

import lib.stages.sparse_svd as sparse_svd
from lib.errors import ParameterError
from lib.schema import analysis_texts
from lib.stages.load import load_papers
from lib.stages.sparse_svd import truncated_svd


@pytest.fixture(scope="module")
def tfidf():
    """The seed sample's abstracts and the planted corpus's, as the embedder weighs them."""
    texts = analysis_texts(load_papers(SEED_SAMPLE).papers) + [r["abstract"] for r in planted_records()]
    return TfidfVectorizer(stop_words="english", ngram_range=(1, 2), sublinear_tf=True, dtype=np.float32).fit_transform(
        texts
    )


def low_rank(rank, shape=(60, 400), seed=0):
    """A sparse matrix of exactly `rank`: sparse factors, so most of it is zero."""
    rng = np.random.default_rng(seed)
    left = sparse.random(shape[0], rank, density=0.5, random_state=rng)
    right = sparse.random(rank, shape[1], density=0.1, random_state=rng)
    return sparse.csr_matrix(left @ right, dtype=np.float32)


def test_with_a_random_column_per_row_it_is_the_exact_svd(tfidf):
    n_rows = tfidf.shape[0]
    components, values, _ = truncated_svd(tfidf, 10, random_state=0, n_oversamples=n_rows)
    _, exact_values, exact_rows = np.linalg.svd(tfidf.toarray().astype(np.float64), full_matrices=False)
    assert values == pytest.approx(exact_values[:10], rel=1e-4)
    assert np.abs(np.sum(components * exact_rows[:10], axis=1)) == pytest.approx(np.ones(10), abs=1e-3)


def test_few_random_columns_capture_nearly_what_the_exact_svd_does(tfidf):
    """Randomized: with the default 10 columns beyond the 16 asked for, the directions found keep
    nearly as much of the matrix as the exact top 16 do."""
    components = truncated_svd(tfidf, 16, random_state=0).components
    dense = tfidf.toarray().astype(np.float64)
    exact_values = np.linalg.svd(dense, compute_uv=False)
    captured = np.sum((dense @ components.T.astype(np.float64)) ** 2)
    assert captured >= 0.98 * np.sum(exact_values[:16] ** 2)


def test_directions_are_orthonormal_sorted_and_signed_and_rows_are_the_projection(tfidf):
    components, values, rows = truncated_svd(tfidf, 16, random_state=1)
    assert components.dtype == np.float32 and components.shape == (16, tfidf.shape[1])
    assert components @ components.T == pytest.approx(np.eye(16), abs=1e-5)
    assert np.all(np.diff(values) <= 0)
    largest = components[np.arange(16), np.abs(components).argmax(axis=1)]
    assert np.all(largest > 0)
    assert rows.dtype == np.float64 and rows == pytest.approx(tfidf @ components.T, abs=1e-5)


def test_same_seed_same_bytes_and_blocks_change_nothing_but_rounding(tfidf, monkeypatch):
    components, values, rows = truncated_svd(tfidf, 12, random_state=3)
    again = truncated_svd(tfidf.tocsc(), 12, random_state=3)
    assert again.components.tobytes() == components.tobytes() and again.rows.tobytes() == rows.tobytes()
    monkeypatch.setattr(sparse_svd, "TERMS_PER_BLOCK", 7)  # many blocks, the last one short
    in_blocks, values_in_blocks, _ = truncated_svd(tfidf, 12, random_state=3)
    assert values_in_blocks == pytest.approx(values, rel=1e-4)
    assert np.abs(np.sum(in_blocks[:6] * components[:6], axis=1)) == pytest.approx(np.ones(6), abs=1e-3)


@pytest.mark.parametrize("at_once", [1, 3])
def test_blocks_worked_on_at_once_change_no_bit(tfidf, monkeypatch, at_once):
    """Blocks run in threads, but their products are summed in the blocks' order: any number of
    threads gives the bytes one gives."""
    monkeypatch.setattr(sparse_svd, "TERMS_PER_BLOCK", 50)  # many blocks, the last one short
    monkeypatch.setattr(sparse_svd, "BLOCKS_AT_ONCE", 2)
    components, values, rows = truncated_svd(tfidf, 12, random_state=3)
    monkeypatch.setattr(sparse_svd, "BLOCKS_AT_ONCE", at_once)
    again = truncated_svd(tfidf, 12, random_state=3)
    assert again.components.tobytes() == components.tobytes() and again.rows.tobytes() == rows.tobytes()
    assert again.singular_values.tobytes() == values.tobytes()


def test_a_matrix_of_low_rank_is_recovered_whole():
    matrix = low_rank(5)
    components, values, _ = truncated_svd(matrix, 5, random_state=0)
    dense = matrix.toarray()
    assert dense @ components.T @ components == pytest.approx(dense, abs=1e-4)
    assert np.all(values > 0)


def test_directions_past_the_rank_are_zero_rows():
    components, values, rows = truncated_svd(low_rank(3), 8, random_state=0)
    assert np.all(values[3:] == 0) and np.all(components[3:] == 0) and np.all(rows[:, 3:] == 0)
    assert components[:3] @ components[:3].T == pytest.approx(np.eye(3), abs=1e-5)


@pytest.mark.parametrize(("n_components", "n_iter", "n_oversamples"), [(0, 5, 10), (61, 5, 10), (5, 0, 10), (5, 5, -1)])
def test_bad_parameters_are_named(n_components, n_iter, n_oversamples):
    with pytest.raises(ParameterError):
        truncated_svd(low_rank(5), n_components, 0, n_iter=n_iter, n_oversamples=n_oversamples)


def test_fitted_on_some_rows_it_is_their_svd_with_every_row_given_in_it(tfidf):
    every = np.arange(tfidf.shape[0])
    whole = truncated_svd(tfidf, 8, random_state=0)
    for part, expected in zip(truncated_svd(tfidf, 8, random_state=0, fit_rows=every), whole, strict=True):
        assert part.tobytes() == expected.tobytes()  # all rows: the same bytes as no sample

    sample = np.sort(np.random.default_rng(0).choice(tfidf.shape[0], 40, replace=False))
    components, values, rows = truncated_svd(tfidf, 8, random_state=0, fit_rows=sample)
    alone = truncated_svd(tfidf[sample], 8, random_state=0)
    np.testing.assert_array_equal(components, alone.components)
    np.testing.assert_array_equal(values, alone.singular_values)
    assert rows.shape == (tfidf.shape[0], 8)
    np.testing.assert_allclose(rows, tfidf @ components.astype(np.float64).T, atol=1e-6)
    np.testing.assert_allclose(rows[sample], alone.rows, atol=1e-12)
    with pytest.raises(ParameterError, match="n_components"):
        truncated_svd(tfidf, 8, random_state=0, fit_rows=sample[:5])


@pytest.mark.parametrize("sampled", [False, True])
def test_a_fit_gives_any_slice_of_rows_the_bits_of_the_whole_matrixs_rows(tfidf, monkeypatch, sampled):
    # Blocks of 100 terms: the rows' sums run over several blocks, in order, as on a corpus.
    monkeypatch.setattr(sparse_svd, "TERMS_PER_BLOCK", 100)
    fit_rows = np.arange(0, tfidf.shape[0], 2) if sampled else None
    whole = truncated_svd(tfidf, 12, random_state=3, fit_rows=fit_rows)
    fitted = sparse_svd.fit_directions(tfidf if fit_rows is None else tfidf[fit_rows], 12, random_state=3)
    # Only the columns the fitted rows use: the others' share of every direction is zero.
    np.testing.assert_array_equal(fitted.used, sparse_svd.columns_used(tfidf, fit_rows))
    assert fitted.components.tobytes() == whole.components[:, fitted.used].tobytes()
    assert not np.any(np.delete(whole.components, fitted.used, axis=1))
    if sampled:
        assert len(fitted.used) < tfidf.shape[1]  # the sample leaves some columns out
    assert np.array_equal(fitted.singular_values, whole.singular_values)
    slices = [tfidf[a : a + 10] for a in range(0, tfidf.shape[0], 10)]
    assert np.concatenate([sparse_svd.rows_in(rows, fitted) for rows in slices]).tobytes() == whole.rows.tobytes()
