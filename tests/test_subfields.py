import json

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import SEED_SAMPLE, planted_records
from scipy import sparse
from sklearn.feature_extraction.text import TfidfVectorizer

from lib.errors import ParameterError, TaxonomyError
from lib.paths import DEFAULT_TAXONOMY, REPO_ROOT
from lib.schema import MAP_COLUMNS, analysis_texts
from lib.stages import subfields
from lib.stages.load import load_papers
from lib.stages.phrases import candidate_phrases, counts_after, phrase_counts
from lib.stages.subfields import SUBFIELD_COLUMNS, assign_subfields, entry_similarity, tfidf_rows
from lib.stages.taxonomy import UNASSIGNED, load_taxonomy, parse_taxonomy

IJCAI_TAXONOMY = REPO_ROOT / "data" / "taxonomy" / "ijcai2023.yaml"


SMALL = {
    "name": "Tiny",
    "subfields": [
        {
            "name": "Trustworthy ML",
            "description": "privacy fairness robustness",
            "children": [
                {
                    "name": "Privacy",
                    "description": "differential privacy of training data",
                    "terms": ["differential privacy", "membership inference"],
                },
                {"name": "Fairness", "description": "group fairness and bias", "terms": ["demographic parity"]},
            ],
        },
        {
            "name": "Generative Models",
            "description": "diffusion models and image generation",
            "terms": ["diffusion", "denoising"],
        },
    ],
}


def test_default_taxonomy_has_the_ten_icml_areas_with_children():
    taxonomy = load_taxonomy(DEFAULT_TAXONOMY)
    areas = taxonomy.children(None)
    assert len(areas) == 10
    assert {"Deep Learning", "Optimization", "Trustworthy Machine Learning", "Probabilistic Methods"} <= {
        a.name for a in areas
    }
    assert all(taxonomy.children(a.name) for a in areas)
    names = [e.name for e in taxonomy.entries]
    assert len(names) == len(set(names))


def test_yaml_and_json_files_give_the_same_taxonomy(tmp_path):
    (tmp_path / "t.yaml").write_text(yaml.safe_dump(SMALL))
    (tmp_path / "t.json").write_text(json.dumps(SMALL))
    assert load_taxonomy(tmp_path / "t.yaml") == load_taxonomy(tmp_path / "t.json")


@pytest.mark.parametrize(
    "data, problem",
    [
        ({"name": "x"}, "subfields"),
        ({"subfields": [{"description": "no name"}]}, "name"),
        ({"subfields": [{"name": "A"}, {"name": "A"}]}, "twice"),
        ({"subfields": [{"name": "A", "terms": "not a list"}]}, "terms"),
        ([1, 2], "subfields"),
    ],
)
def test_malformed_taxonomies_are_named_errors(data, problem):
    with pytest.raises(TaxonomyError, match=problem):
        parse_taxonomy(data, "bad.yaml")


def test_unreadable_taxonomy_file_names_the_file(tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text("subfields: [unclosed")
    with pytest.raises(TaxonomyError, match="broken.yaml"):
        load_taxonomy(path)
    with pytest.raises(TaxonomyError, match="missing.yaml"):
        load_taxonomy(tmp_path / "missing.yaml")


def test_papers_land_in_the_matching_area_and_child():
    taxonomy = parse_taxonomy(SMALL)
    texts = [
        "We give a differential privacy mechanism that resists membership inference attacks.",
        "Denoising diffusion models for image generation.",
        "A study of cooking recipes.",
    ]
    result = assign_subfields(texts, taxonomy)
    assert list(result["area"]) == ["Trustworthy ML", "Generative Models", UNASSIGNED]
    assert result["subfield"][0] == "Privacy"
    assert result["subfield"][1] == "Generative Models"  # no children: the area itself
    assert 0 < result["subfield_score"][0] <= 1 and result["subfield_score"][2] == 0


def test_a_weak_child_match_stays_at_the_area():
    taxonomy = parse_taxonomy(SMALL)
    result = assign_subfields(["robustness of classifiers to shifts"], taxonomy)
    assert result["area"][0] == "Trustworthy ML" and result["subfield"][0] == "Trustworthy ML"


def test_default_taxonomy_files_real_abstracts_sensibly():
    taxonomy = load_taxonomy(DEFAULT_TAXONOMY)
    texts = [
        "We audit the privacy of trained models with membership inference attacks and give differential privacy guarantees.",
        "We study regret minimization in stochastic multi-armed bandits and prove a minimax lower bound.",
        "A denoising diffusion model that generates high-resolution images in fewer sampling steps.",
    ]
    areas = list(assign_subfields(texts, taxonomy)["area"])
    assert areas == ["Trustworthy Machine Learning", "Theory of Machine Learning", "Deep Learning"]


# Descriptions that share only their headline words with the planted topics of conftest.py.
PLANTED = parse_taxonomy(
    {
        "name": "Planted",
        "subfields": [
            {"name": "Privacy", "description": "differential privacy guarantees"},
            {"name": "Generative Models", "description": "diffusion models for image generation"},
            {"name": "Online Learning", "description": "multi-armed bandits and regret"},
        ],
    }
)
PLANTED_AREA = {"privacy": "Privacy", "diffusion": "Generative Models", "bandits": "Online Learning"}


def planted_texts(per_topic: int = 12) -> tuple[list[str], list[str]]:
    records = planted_records(per_topic)
    return [f"{r['title']}. {r['abstract']}" for r in records], [PLANTED_AREA[r["primary_area"]] for r in records]


def check_columns(result: pd.DataFrame, taxonomy, n: int) -> None:
    """The documented columns and dtypes, and a runner-up that is a sibling of the subfield."""
    assert list(result.columns) == list(SUBFIELD_COLUMNS) and len(result) == n
    assert {c.name: c.dtype for c in MAP_COLUMNS if c.name in SUBFIELD_COLUMNS} == SUBFIELD_COLUMNS
    assert dict(result.dtypes.astype(str)) == SUBFIELD_COLUMNS
    parent = {e.name: e.parent for e in taxonomy.entries}
    for row in result.itertuples():
        assert 0 <= row.subfield_runner_up_score <= row.subfield_score <= 1
        if row.area == UNASSIGNED:
            assert (row.subfield, row.subfield_runner_up, row.subfield_score, row.subfield_confident) == (
                UNASSIGNED,
                "",
                0,
                False,
            )
            continue
        assert parent[row.area] is None and (
            row.subfield == row.area or row.subfield in _descendants(taxonomy, row.area)
        )
        if row.subfield_runner_up:
            assert row.subfield_runner_up != row.subfield and parent[row.subfield_runner_up] == parent[row.subfield]
        if not row.subfield_confident:
            assert row.subfield == row.area  # a best guess is not forced down into a child


def _descendants(taxonomy, name):
    children = [e.name for e in taxonomy.children(name)]
    return set(children).union(*(_descendants(taxonomy, c) for c in children))


def test_each_paper_gets_a_runner_up_at_its_subfields_depth_and_a_confidence():
    taxonomy = parse_taxonomy(SMALL)
    texts = [
        "We give a differential privacy mechanism that resists membership inference attacks.",
        "Denoising diffusion models for image generation.",
        "Membership inference against diffusion models that generate images.",
        "A study of cooking recipes.",
    ]
    result = assign_subfields(texts, taxonomy)
    check_columns(result, taxonomy, len(texts))
    assert list(result["subfield"][:2]) == ["Privacy", "Generative Models"]
    assert result["subfield_runner_up"][0] == "Fairness"  # a sibling child, not the other area
    assert result["subfield_runner_up"][1] == "Trustworthy ML"
    assert list(result["subfield_confident"]) == [True, True, False, False]
    # Privacy words and generative words in equal measure: a best guess, marked, left at the area.
    assert result["subfield"][2] == result["area"][2] and result["subfield_runner_up"][2] != result["area"][2]


def test_neighbours_file_a_paper_whose_own_words_point_elsewhere():
    texts, truth = planted_texts()
    # Privacy vocabulary the description never uses, plus one word of the generative description.
    stray = "A private mechanism against membership inference: calibration of the budget, mechanism and inference, and one image."
    alone = assign_subfields(texts + [stray], PLANTED, min_papers=1000)  # own words only
    corpus = assign_subfields(texts + [stray], PLANTED)
    assert alone["area"].iloc[-1] == "Generative Models"
    assert corpus["area"].iloc[-1] == "Privacy"
    assert corpus["subfield_runner_up"].iloc[-1] in {"Generative Models", "Online Learning"}
    assert list(corpus["area"][:-1]) == truth and corpus["subfield_confident"][:-1].all()
    check_columns(corpus, PLANTED, len(texts) + 1)


def test_neighbours_sought_among_a_sample_still_file_the_stray_paper():
    # A corpus past `graph_sample` papers: each paper's neighbours come from a seeded sample of them.
    texts, truth = planted_texts(per_topic=30)
    stray = "A private mechanism against membership inference: calibration of the budget, mechanism and inference, and one image."
    sampled = assign_subfields(texts + [stray], PLANTED, graph_sample=len(texts) // 3)
    assert sampled["area"].iloc[-1] == "Privacy"
    assert list(sampled["area"][:-1]) == truth
    check_columns(sampled, PLANTED, len(texts) + 1)


def test_the_neighbours_are_the_given_vectors_nearest():
    texts, truth = planted_texts()
    stray = "A private mechanism against membership inference: calibration of the budget, mechanism and inference, and one image."
    areas = sorted(set(truth))
    for placed_among in ("Privacy", "Generative Models"):
        # One direction per area: every paper's neighbours are its area's papers, the stray's those of `placed_among`.
        vectors = np.eye(len(areas))[[areas.index(a) for a in truth + [placed_among]]]
        filed = assign_subfields(texts + [stray], PLANTED, vectors=vectors)
        assert filed["area"].iloc[-1] == placed_among
        assert list(filed["area"][:-1]) == truth
    with pytest.raises(ParameterError, match="one row per text"):
        assign_subfields(texts, PLANTED, vectors=vectors)


def test_the_corpus_stage_is_deterministic():
    texts, _ = planted_texts(20)
    taxonomy = load_taxonomy(DEFAULT_TAXONOMY)
    first, second = assign_subfields(texts, taxonomy), assign_subfields(texts, taxonomy)
    pd.testing.assert_frame_equal(first, second)
    assert first["subfield_confident"].any()


@pytest.mark.parametrize("n", [1, 3])
def test_tiny_lists_fall_back_to_own_words(n):
    texts = [
        "We audit the privacy of trained models with membership inference attacks and give differential privacy guarantees.",
        "We study regret minimization in stochastic multi-armed bandits and prove a minimax lower bound.",
        "A denoising diffusion model that generates high-resolution images in fewer sampling steps.",
    ][:n]
    taxonomy = load_taxonomy(DEFAULT_TAXONOMY)
    result = assign_subfields(texts, taxonomy)
    check_columns(result, taxonomy, n)
    assert list(result["area"]) == ["Trustworthy Machine Learning", "Theory of Machine Learning", "Deep Learning"][:n]
    assert result["subfield"][0] == "Privacy" and result["subfield_confident"][0]


def test_the_19_paper_seed_is_filed_by_its_own_words():
    texts = analysis_texts(load_papers(SEED_SAMPLE).papers)
    assert len(texts) == 19
    taxonomy = load_taxonomy(DEFAULT_TAXONOMY)
    result = assign_subfields(texts, taxonomy)
    check_columns(result, taxonomy, 19)
    own = entry_similarity(texts, taxonomy)
    areas = [i for i, e in enumerate(taxonomy.entries) if e.parent is None]
    assert list(result["area"]) == [taxonomy.entries[areas[j]].name for j in own[:, areas].argmax(axis=1)]
    by_text = dict(zip(texts, result["area"]))
    assert by_text[next(t for t in texts if "differential privacy" in t)] == "Trustworthy Machine Learning"
    assert (
        by_text[next(t for t in texts if "partial differential equation" in t)] == "Application-Driven Machine Learning"
    )
    assert result["subfield_confident"].mean() > 0.5 and (result["subfield"] != result["area"]).any()


def test_tfidf_rows_weigh_phrases_as_scikit_learns_vectorizer():
    texts = [*analysis_texts(load_papers(SEED_SAMPLE).papers), "", "the of and", "model model models"]
    vectorizer = TfidfVectorizer(analyzer=candidate_phrases, sublinear_tf=True)
    expected = vectorizer.fit_transform(texts)
    counts, phrases = phrase_counts(texts)
    weights = tfidf_rows(counts)[:, np.argsort([vectorizer.vocabulary_[p] for p in phrases])]  # its columns sorted
    assert weights.shape == expected.shape
    np.testing.assert_allclose(weights.toarray(), expected.toarray(), rtol=0, atol=1e-15)


def test_phrase_counts_count_each_texts_candidate_phrases_numbered_as_first_met():
    # `phrase_counts` works on all the texts' tokens at once: the same as counting `candidate_phrases`
    # text by text, run by run, across texts that end and start with a word and texts of no word.
    texts = [
        *analysis_texts(load_papers(SEED_SAMPLE).papers),
        "",
        "the of and",
        "model model models",
        "Deep models",
        "learning rate of deep models, 3d-vision for C++ code (see https://x.org) with $O(n)$ cost",
    ]
    counts, phrases = phrase_counts(texts)
    met = [candidate_phrases(text) for text in texts]
    assert phrases == list(dict.fromkeys(p for phrases_of_text in met for p in phrases_of_text))
    column = {p: i for i, p in enumerate(phrases)}
    rows = [row for row, phrases_of_text in enumerate(met) for _ in phrases_of_text]
    columns = [column[p] for phrases_of_text in met for p in phrases_of_text]
    expected = sparse.csr_matrix((np.ones(len(rows), dtype=np.int32), (rows, columns)), shape=counts.shape)
    assert counts.dtype == np.int32 and counts.has_canonical_format and (counts != expected).nnz == 0


def test_counts_of_more_texts_stacked_on_a_lists_equal_the_counts_of_both():
    texts = analysis_texts(load_papers(SEED_SAMPLE).papers)
    more = [e.text for e in load_taxonomy(DEFAULT_TAXONOMY).entries]  # phrases of their own, and the seed's
    both, phrases = phrase_counts([*texts, *more])
    first = phrase_counts(texts)
    after = counts_after(first[1], more)
    assert after.shape == (len(more), both.shape[1]) and len(phrases) > first[0].shape[1]
    widened = sparse.csr_matrix((first[0].data, first[0].indices, first[0].indptr), shape=(len(texts), both.shape[1]))
    stacked = sparse.vstack([widened, after], format="csr")
    assert (stacked != both).nnz == 0 and after.dtype == both.dtype


def test_phrase_counts_made_beforehand_file_every_paper_the_same():
    # A build counts the phrases once, for the topics' labels and for the subfields, and hands them in.
    texts, _ = planted_texts(20)
    taxonomy = load_taxonomy(DEFAULT_TAXONOMY)
    pd.testing.assert_frame_equal(
        assign_subfields(texts, taxonomy, counts=phrase_counts(texts)), assign_subfields(texts, taxonomy)
    )


def test_a_list_whose_papers_share_no_word_keeps_its_own_words():
    texts = [f"word{i} privacy" if i % 2 else f"word{i} diffusion" for i in range(40)]
    texts = [
        t.replace(" privacy", "") if i > 1 else t for i, t in enumerate(texts)
    ]  # only two papers have a topic word
    result = assign_subfields(texts, parse_taxonomy(SMALL))
    assert list(result["area"][:2]) == ["Generative Models", "Trustworthy ML"]
    check_columns(result, parse_taxonomy(SMALL), 40)


@pytest.mark.parametrize(
    "kwargs",
    [{"alpha": 1.0}, {"alpha": -0.1}, {"n_neighbors": 0}, {"min_papers": 5, "n_neighbors": 10}, {"graph_sample": 29}],
)
def test_bad_parameters_are_named(kwargs):
    with pytest.raises(ParameterError):
        assign_subfields(["text"], parse_taxonomy(SMALL), **kwargs)


def test_ijcai_taxonomy_areas_are_the_lists_primary_areas(shared_data):
    taxonomy = load_taxonomy(IJCAI_TAXONOMY)
    papers = load_papers(shared_data / "ijcai2023.json").papers
    labels = set(papers["primary_area"]) - {""}
    assert {a.name for a in taxonomy.children(None)} == labels and len(labels) == 15
    assert all(a.description and taxonomy.children(a.name) for a in taxonomy.children(None))


def test_ijcai_areas_are_found_from_title_and_abstract_alone(shared_data):
    papers = load_papers(shared_data / "ijcai2023.json").papers
    texts = analysis_texts(papers[["title", "title_is_derived", "abstract"]])
    result = assign_subfields(texts, load_taxonomy(IJCAI_TAXONOMY))
    labelled = (papers["primary_area"] != "").to_numpy()
    right = (result["area"] == papers["primary_area"]).to_numpy()[labelled]
    assert right.mean() >= 0.55  # the goal; nearest description scores about 0.54 here
    confident = result["subfield_confident"].to_numpy()[labelled]
    assert right[confident].mean() > right[~confident].mean() + 0.1


def test_ijcai_areas_hold_with_neighbours_from_a_corpus_sized_sample(shared_data):
    # A sample of the share a 20,000-paper sample is of the 87,690-paper corpus (docs/meaning.md).
    papers = load_papers(shared_data / "ijcai2023.json").papers
    texts = analysis_texts(papers[["title", "title_is_derived", "abstract"]])
    taxonomy = load_taxonomy(IJCAI_TAXONOMY)
    exact, sampled = (
        assign_subfields(texts, taxonomy, graph_sample=size)
        for size in (len(texts), round(len(texts) * 20_000 / 87_690))
    )
    labelled = (papers["primary_area"] != "").to_numpy()
    right = (sampled["area"] == papers["primary_area"]).to_numpy()[labelled]
    assert right.mean() >= 0.55
    assert (sampled["area"] == exact["area"]).mean() >= 0.9


@pytest.mark.parametrize("block", [1, 5, 10_000])
def test_own_word_scores_in_blocks_of_papers_are_the_cosines_over_papers_and_entries_together(monkeypatch, block):
    texts = [*analysis_texts(load_papers(SEED_SAMPLE).papers), "", *planted_texts(12)[0]]
    taxonomy = load_taxonomy(DEFAULT_TAXONOMY)
    entry_texts = [e.text for e in taxonomy.entries]
    weights = tfidf_rows(phrase_counts([*texts, *entry_texts])[0])
    cosines = (weights[: len(texts)] @ weights[len(texts) :].T).toarray()
    monkeypatch.setattr(subfields, "SCORE_BLOCK", block)
    own = entry_similarity(texts, taxonomy, phrase_counts(texts))
    leaves = [i for i, e in enumerate(taxonomy.entries) if not taxonomy.children(e.name)]
    assert own[:, leaves].tobytes() == cosines[:, leaves].tobytes()  # the same bits, block by block
    assert (own >= cosines).all() and (own[:, leaves] > 0).any()


@pytest.mark.parametrize("columns", [1, 3, 200])
def test_a_sparse_product_a_block_of_columns_at_a_time_has_the_whole_products_bits(monkeypatch, columns):
    rng = np.random.default_rng(0)
    membership = sparse.random(7, 500, density=0.3, format="csr", random_state=1)
    vectors = rng.standard_normal((500, 40)).astype(np.float32)  # SciPy sums float32 in float64
    monkeypatch.setattr(subfields, "PRODUCT_COLUMNS", columns)
    blocked = subfields._sparse_product(membership, vectors)
    assert blocked.dtype == np.float64 and blocked.tobytes() == (membership @ vectors).tobytes()


def test_papers_filed_a_block_of_rows_and_columns_at_a_time_are_filed_as_all_at_once(monkeypatch):
    texts, _ = planted_texts(20)
    taxonomy = load_taxonomy(DEFAULT_TAXONOMY)
    whole = assign_subfields(texts, taxonomy)
    monkeypatch.setattr(subfields, "SCORE_BLOCK", 7)
    monkeypatch.setattr(subfields, "PRODUCT_COLUMNS", 5)
    blocked = assign_subfields(texts, taxonomy)
    pd.testing.assert_frame_equal(blocked, whole, check_exact=True)
    assert whole["subfield_confident"].any() and (whole["subfield"] != whole["area"]).any()
