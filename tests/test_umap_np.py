"""lib.stages.umap_np against umap-learn, the implementation it follows, and against brute force.

umap-learn is a runtime requirement (lib.stages.project keeps it as `method="umap-learn"`); its numba JIT
costs tens of seconds in a fresh process, so the comparisons with it are `slow`.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.manifold import trustworthiness

from lib import neighbours
from lib.stages import umap_np, umap_sgd

umap_ = pytest.importorskip("umap.umap_")

# Tolerances: both bisect to |sum - log2(k)| < 1e-5 in float64 (umap-learn from float32 inputs),
# so bandwidths agree to about that relative error; the a, b fits are the same least squares.
SIGMA_RTOL = 1e-4
GRAPH_ATOL = 1e-5
AB_RTOL = 1e-5
TRUST_MARGIN = 0.01


def planted_clusters(n_per: int = 120, n_clusters: int = 5, dim: int = 40, seed: int = 0) -> np.ndarray:
    """L2-normalised float32 points around `n_clusters` random directions."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(n_clusters, dim))
    points = np.repeat(centres, n_per, axis=0) + rng.normal(scale=0.6, size=(n_clusters * n_per, dim))
    return neighbours.normalize_rows(points)


def lattice_vectors(n: int, dim: int = 16, seed: int = 0, duplicates: int = 0) -> np.ndarray:
    """Unit rows with entries +-1/4 (dim 16): every cosine is a multiple of 1/16, exact in float32,
    so many neighbours tie exactly; `duplicates` rows are copies of earlier rows."""
    rng = np.random.default_rng(seed)
    rows = rng.choice([-0.25, 0.25], size=(n, dim)).astype(np.float32)
    if duplicates:
        rows[-duplicates:] = rows[rng.integers(0, n - duplicates, duplicates)]
    return rows


def brute_force_knn(queries: np.ndarray, base: np.ndarray, k: int, self_query: bool) -> tuple[np.ndarray, np.ndarray]:
    """Every similarity in float64, sorted by similarity then column; the point itself first for a self-query."""
    sims = queries.astype(np.float64) @ base.astype(np.float64).T
    rank = sims.copy()
    if self_query:
        np.fill_diagonal(rank, np.inf)
    columns = np.arange(len(base))
    order = np.array([np.lexsort((columns, -row))[:k] for row in rank])
    distances = np.maximum(1.0 - np.take_along_axis(sims, order, axis=1), 0.0)
    if self_query:
        distances[:, 0] = 0.0
    return order, distances


@pytest.mark.parametrize("n, k, self_query", [(60, 8, True), (60, 8, False), (3000, 10, True), (3000, 10, False)])
@pytest.mark.parametrize("duplicates", [0, 40])
def test_knn_cosine_is_exact_with_ties_and_duplicates(n, k, self_query, duplicates, monkeypatch):
    # 3,000 points with k=10 take the sampled-threshold screen, 60 keep every entry;
    # a small block size makes several row blocks.
    monkeypatch.setattr(neighbours, "BLOCK_ENTRIES", 50_000)
    base = lattice_vectors(n, duplicates=duplicates)
    queries = base if self_query else lattice_vectors(50, seed=1)
    indices, distances = neighbours.knn_cosine(queries, base, k, self_query=self_query)
    expected_indices, expected_distances = brute_force_knn(queries, base, k, self_query)
    np.testing.assert_array_equal(indices, expected_indices)
    np.testing.assert_allclose(distances, expected_distances, atol=1e-6)
    if self_query:
        assert (indices[:, 0] == np.arange(n)).all()  # even beside an exact copy of itself


@pytest.mark.parametrize("n, k", [(60, 8), (3000, 10)])
def test_knn_graph_links_each_paper_to_its_exact_nearest_others_with_ties_to_the_lower_row(n, k, monkeypatch):
    # The subfield scorer's paper graph: each row's k most similar other rows (ties: the lower row,
    # so the graph never depends on how a sort broke them), symmetrised, weighted by their cosine.
    monkeypatch.setattr(neighbours, "BLOCK_ENTRIES", 50_000)
    vectors = lattice_vectors(n, duplicates=40)
    graph = neighbours.knn_graph(vectors, k)
    sims = vectors.astype(np.float64) @ vectors.astype(np.float64).T
    np.fill_diagonal(sims, -np.inf)
    columns = np.arange(n)
    expected = np.zeros((n, n))
    for row in range(n):
        nearest = np.lexsort((columns, -sims[row]))[:k]
        expected[row, nearest] = np.maximum(sims[row, nearest], 0)
    np.testing.assert_allclose(graph.toarray(), np.maximum(expected, expected.T), atol=1e-6)


@pytest.mark.parametrize("n, k, every", [(60, 8, 3), (3000, 10, 7)])
def test_knn_graph_among_candidates_links_each_paper_to_its_nearest_candidates(n, k, every, monkeypatch):
    # Past a size the subfields seek neighbours among a sample: each row's k most similar candidate
    # rows other than itself (a candidate never picks itself, even beside its exact copies), symmetrised.
    monkeypatch.setattr(neighbours, "BLOCK_ENTRIES", 50_000)
    vectors = lattice_vectors(n, duplicates=40)
    candidates = np.arange(1, n, every)
    graph = neighbours.knn_graph(vectors, k, candidates)
    sims = vectors.astype(np.float64) @ vectors.astype(np.float64).T
    np.fill_diagonal(sims, -np.inf)
    expected = np.zeros((n, n))
    for row in range(n):
        nearest = candidates[np.lexsort((candidates, -sims[row, candidates]))[:k]]
        expected[row, nearest] = np.maximum(sims[row, nearest], 0)
    np.testing.assert_allclose(graph.toarray(), np.maximum(expected, expected.T), atol=1e-6)


def test_knn_cosine_returns_every_point_when_k_exceeds_them():
    base = lattice_vectors(5)
    indices, _ = neighbours.knn_cosine(base, base, 10, self_query=True)
    assert indices.shape == (5, 5) and all(sorted(row) == list(range(5)) for row in indices)


@pytest.fixture(scope="module")
def clusters_knn():
    vectors = planted_clusters()
    k = 15
    indices, distances = neighbours.knn_cosine(vectors, vectors, k, self_query=True)
    return vectors, k, indices, distances


@pytest.mark.slow
def test_smooth_knn_dist_matches_umap_learn(clusters_knn):
    _, k, _, distances = clusters_knn
    sigma, rho = umap_np.smooth_knn_dist(distances, k)
    their_sigma, their_rho = umap_.smooth_knn_dist(distances, float(k))
    np.testing.assert_allclose(rho, their_rho, rtol=1e-6)
    np.testing.assert_allclose(sigma, their_sigma, rtol=SIGMA_RTOL)


@pytest.mark.slow
def test_smooth_knn_dist_matches_umap_learn_with_duplicate_points():
    # Copies put zero distances after the point itself: rho must skip them, as umap-learn's does.
    vectors = neighbours.normalize_rows(lattice_vectors(300, duplicates=60))
    indices, distances = neighbours.knn_cosine(vectors, vectors, 12, self_query=True)
    sigma, rho = umap_np.smooth_knn_dist(distances, 12)
    their_sigma, their_rho = umap_.smooth_knn_dist(distances, 12.0)
    np.testing.assert_allclose(rho, their_rho, rtol=1e-6)
    np.testing.assert_allclose(sigma, their_sigma, rtol=SIGMA_RTOL)


@pytest.mark.slow
def test_fuzzy_graph_matches_umap_learns_fuzzy_simplicial_set(clusters_knn):
    vectors, k, indices, distances = clusters_knn
    ours = umap_np.fuzzy_graph(indices, distances, k)
    theirs, _, _ = umap_.fuzzy_simplicial_set(
        vectors, k, np.random.RandomState(0), "cosine", knn_indices=indices, knn_dists=distances
    )
    theirs = theirs.tocsr()
    assert ours.shape == theirs.shape
    assert abs(ours - ours.T).max() == 0  # symmetric
    difference = abs(ours - theirs)
    assert difference.max() <= GRAPH_ATOL
    # The same edges: none of one graph missing from the other (beyond weights below the tolerance).
    assert ((ours > GRAPH_ATOL) != (theirs > GRAPH_ATOL)).nnz == 0


@pytest.mark.slow
@pytest.mark.parametrize("min_dist", [0.0, 0.02, 0.1, 0.5, 0.99])
@pytest.mark.parametrize("spread", [1.0, 2.0])
def test_find_ab_params_matches_umap_learn(spread, min_dist):
    if min_dist >= spread:
        pytest.skip("umap-learn requires min_dist < spread")
    np.testing.assert_allclose(
        umap_sgd.find_ab_params(spread, min_dist), umap_.find_ab_params(spread, min_dist), rtol=AB_RTOL
    )


@pytest.mark.slow
# umap-learn's defaults, PaperMap's before issue 17, PaperMap's
@pytest.mark.parametrize("n_neighbors, min_dist, spread", [(15, 0.1, 1.0), (12, 0.02, 1.0), (12, 0.2, 2.0)])
def test_layout_is_as_trustworthy_as_umap_learns_on_planted_clusters(n_neighbors, min_dist, spread):
    import umap

    vectors = planted_clusters()
    ours = umap_np.fit_layout(vectors, n_neighbors, min_dist, np.random.default_rng(0), spread=spread)
    reference = umap.UMAP(
        n_neighbors=n_neighbors, min_dist=min_dist, spread=spread, metric="cosine", random_state=0, n_jobs=1
    )
    theirs = reference.fit_transform(vectors)
    assert ours.shape == (len(vectors), 2) and np.isfinite(ours).all()
    trust_ours = trustworthiness(vectors, ours, n_neighbors=10, metric="cosine")
    trust_theirs = trustworthiness(vectors, theirs, n_neighbors=10, metric="cosine")
    assert trust_ours >= trust_theirs - TRUST_MARGIN, (trust_ours, trust_theirs)


def test_the_same_seed_gives_the_same_layout_and_another_seed_another():
    vectors = planted_clusters(n_per=40)
    first = umap_np.fit_layout(vectors, 10, 0.1, np.random.default_rng(3))
    again = umap_np.fit_layout(vectors, 10, 0.1, np.random.default_rng(3))
    other = umap_np.fit_layout(vectors, 10, 0.1, np.random.default_rng(4))
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, other)
