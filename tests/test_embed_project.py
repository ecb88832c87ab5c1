import numpy as np
import pytest
from sklearn.manifold import trustworthiness

from lib.embed import TfidfSvdEmbedder
from lib.errors import ParameterError
from lib.load import load_papers
from lib.project import MIN_UMAP_POINTS, project
from lib.schema import analysis_texts

from conftest import SEED_SAMPLE, HashingEmbedder, planted_records


@pytest.fixture(scope="module")
def planted_vectors():
    texts = [r["abstract"] for r in planted_records()]
    return TfidfSvdEmbedder().embed(texts)


def test_tfidf_svd_vectors_are_unit_rows_and_deterministic(planted_vectors):
    assert planted_vectors.dtype == np.float32 and planted_vectors.shape[0] == 36
    assert np.all(np.isfinite(planted_vectors))
    assert np.allclose(np.linalg.norm(planted_vectors, axis=1), 1, atol=1e-5)
    again = TfidfSvdEmbedder().embed([r["abstract"] for r in planted_records()])
    assert np.array_equal(planted_vectors, again)


def test_vectors_separate_planted_topics(planted_vectors):
    labels = np.repeat([0, 1, 2], 12)
    similarity = planted_vectors @ planted_vectors.T
    same = similarity[labels[:, None] == labels[None, :]].mean()
    different = similarity[labels[:, None] != labels[None, :]].mean()
    assert same > different + 0.3


@pytest.mark.parametrize("texts", [[], ["one paper about kernels"], ["a", "b"], ["the of", "and to"]])
def test_embedder_handles_tiny_and_empty_corpora(texts):
    vectors = TfidfSvdEmbedder().embed(texts)
    assert vectors.shape[0] == len(texts) and np.all(np.isfinite(vectors))


def test_embedder_rejects_bad_parameters():
    with pytest.raises(ParameterError, match="n_components"):
        TfidfSvdEmbedder(n_components=1)


@pytest.mark.parametrize("n", [0, 1, 2, 3, MIN_UMAP_POINTS - 1, MIN_UMAP_POINTS, 19])
def test_every_corpus_size_gets_a_finite_deterministic_map(n):  # 19 is the seed sample's size
    words = "kernels privacy diffusion bandits graphs robustness transformers sampling causality fairness".split()
    vectors = HashingEmbedder().embed([f"{words[i % 10]} {words[(i * 3) % 10]} {words[(i * 7) % 10]} paper{i}" for i in range(n)])
    coords = project(vectors)
    assert coords.shape == (n, 2) and np.all(np.isfinite(coords))
    assert np.array_equal(coords, project(vectors))
    if n >= 2:
        assert np.abs(coords).max() == pytest.approx(1.0)  # centred and scaled to unit spread
        assert len(np.unique(coords.round(6), axis=0)) > 1


def test_umap_map_keeps_neighbourhoods_and_planted_topics_apart(planted_vectors):
    coords = project(planted_vectors)
    assert trustworthiness(planted_vectors, coords, n_neighbors=5) > 0.85
    labels = np.repeat([0, 1, 2], 12)
    centres = np.array([coords[labels == k].mean(axis=0) for k in range(3)])
    spread = max(np.linalg.norm(coords[labels == k] - centres[k], axis=1).mean() for k in range(3))
    gaps = [np.linalg.norm(centres[a] - centres[b]) for a in range(3) for b in range(a + 1, 3)]
    assert min(gaps) > 2 * spread


def test_seed_sample_map_is_reproducible():
    texts = analysis_texts(load_papers(SEED_SAMPLE).papers)
    vectors = TfidfSvdEmbedder().embed(texts)
    assert np.array_equal(project(vectors), project(vectors))


@pytest.mark.parametrize("kwargs", [{"n_neighbors": 1}, {"min_dist": -0.1}])
def test_projection_rejects_bad_parameters(kwargs):
    with pytest.raises(ParameterError):
        project(np.zeros((20, 4)), **kwargs)


def test_identical_papers_share_one_point():
    coords = project(np.ones((3, 8), dtype=np.float32))
    assert np.array_equal(coords, np.zeros((3, 2)))
