import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import adjusted_rand_score

from lib.errors import ParameterError
from lib.schema import OUTPUT_COLUMNS, SUMMARY_COLUMNS, analysis_texts
from lib.stages.phrases import phrase_counts
from lib.stages.topic_labels import PhraseUse, fewest_users, label_levels, label_topics
from lib.stages.topics import (
    MAX_FINE_TOPICS,
    MAX_NEAREST_SHARE,
    MAX_TOPICS,
    TopicLevels,
    default_n_fine_topics,
    default_n_topics,
    find_topics,
    topic_summaries,
    topics_table,
)


def blobs(sizes=(30, 20, 10), seed=0):
    rng = np.random.default_rng(seed)
    centres = [(-5, 0), (5, 0), (0, 6)]
    coords = np.vstack([rng.normal(c, 0.5, size=(n, 2)) for c, n in zip(centres, sizes)])
    truth = np.repeat(np.arange(len(sizes)), sizes)
    return coords, truth


def conference_map(seed=0):
    """A 2,880-paper map of 12 planted areas on a ring, each made of 4 planted sub-areas."""
    rng = np.random.default_rng(seed)
    angles = np.linspace(0, 2 * np.pi, 12, endpoint=False)
    areas = np.c_[np.cos(angles), np.sin(angles)] * 40
    corners = np.array([(-3, -3), (3, -3), (-3, 3), (3, 3)])
    points, coarse, fine = [], [], []
    for a in range(12):
        for s in range(4):
            n = 50 + 5 * ((a + s) % 5)
            points.append(rng.normal(areas[a] + corners[s], 0.6, size=(n, 2)))
            coarse += [a] * n
            fine += [4 * a + s] * n
    return np.vstack(points), np.array(coarse), np.array(fine)


def assert_nested(levels):
    parents = pd.Series(levels.coarse).groupby(levels.fine).nunique()
    assert (parents == 1).all(), "a fine topic straddles two coarse topics"


def assert_numbered_by_size(ids):
    sizes = np.bincount(ids)
    assert ids.min() == 0 and (sizes > 0).all() and list(sizes) == sorted(sizes, reverse=True)


def test_default_topic_counts_grow_with_the_corpus_and_are_capped():
    assert default_n_topics(0) == 1 and default_n_topics(1) == 1
    assert default_n_topics(19) == 3
    counts = [default_n_topics(n) for n in (50, 200, 800, 3340, 87691)]
    assert counts == sorted(counts) and counts[-1] == MAX_TOPICS
    fine = [default_n_fine_topics(n) for n in (1, 2, 19, 200, 3000, 87691)]
    assert fine == sorted(fine) and fine[0] == 1 and fine[-1] == MAX_FINE_TOPICS
    assert 30 <= default_n_fine_topics(3000) <= 60 and 8 <= default_n_topics(3000) <= 15
    assert all(default_n_fine_topics(n) >= default_n_topics(n) for n in range(0, 400, 7))


def test_a_conference_sized_map_gets_both_levels_in_range_and_nested():
    coords, coarse, fine = conference_map()
    levels = find_topics(coords)
    assert 8 <= len(set(levels.coarse)) <= 15 and 30 <= len(set(levels.fine)) <= 60
    assert_nested(levels)
    assert_numbered_by_size(levels.coarse) and assert_numbered_by_size(levels.fine)
    assert adjusted_rand_score(coarse, levels.coarse) > 0.85 and adjusted_rand_score(fine, levels.fine) > 0.9
    again = find_topics(coords)
    assert all(np.array_equal(a, b) for a, b in zip(vars(levels).values(), vars(again).values()))


def test_planted_levels_are_recovered_exactly_when_their_counts_are_given():
    coords, coarse, fine = conference_map()
    levels = find_topics(coords, n_topics=12, n_fine_topics=48)
    assert adjusted_rand_score(coarse, levels.coarse) == 1.0 and adjusted_rand_score(fine, levels.fine) == 1.0


def test_planted_clusters_are_found_and_numbered_by_size():
    coords, truth = blobs()
    levels = find_topics(coords, n_topics=3)
    assert adjusted_rand_score(truth, levels.coarse) == 1.0
    assert list(np.bincount(levels.coarse)) == [30, 20, 10]
    assert_nested(levels)
    assert np.array_equal(levels.coarse, find_topics(coords, n_topics=3).coarse)


def test_stray_papers_join_their_nearest_topic_and_are_marked():
    coords, truth = blobs(sizes=(200, 150, 100))
    strays = np.array([(-5, 12), (12, 3), (-13, -6), (0, -9), (9, 11)], dtype=float)
    levels = find_topics(np.vstack([coords, strays]), n_topics=3, n_fine_topics=6)
    marked = np.flatnonzero(levels.assigned_nearest)
    assert set(range(450, 455)) <= set(marked) and len(marked) <= MAX_NEAREST_SHARE * 455
    # Each stray takes the topic of the nearest clear member, not a bucket of its own.
    clear = np.flatnonzero(~levels.assigned_nearest)
    points = np.vstack([coords, strays])
    for i in range(450, 455):
        nearest = clear[np.argmin(np.linalg.norm(points[clear] - points[i], axis=1))]
        assert levels.coarse[i] == levels.coarse[nearest]
    assert len(set(levels.coarse)) == 3 and adjusted_rand_score(truth, levels.coarse[:450]) == 1.0


def test_no_more_than_five_percent_are_ever_marked():
    rng = np.random.default_rng(1)
    coords, _ = blobs(sizes=(300, 300, 300))
    noise = rng.uniform(-40, 40, size=(300, 2))  # a quarter of the map is scattered noise
    levels = find_topics(np.vstack([coords, noise]))
    assert 0 < levels.assigned_nearest.mean() <= MAX_NEAREST_SHARE
    assert levels.assigned_nearest[900:].sum() == levels.assigned_nearest.sum()  # the sparsest: all from the noise
    assert np.bincount(levels.fine).max() < 0.5 * 1200


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 19])
def test_tiny_maps_get_valid_nested_topics(n):
    coords = np.arange(2 * n, dtype=float).reshape(n, 2)
    levels = find_topics(coords)
    assert levels.coarse.shape == levels.fine.shape == levels.assigned_nearest.shape == (n,)
    if n:
        assert levels.coarse.min() == 0 and levels.fine.min() == 0 and not levels.assigned_nearest.any()
        assert len(set(levels.fine)) >= len(set(levels.coarse))
        assert_nested(levels)


def test_identical_points_cannot_make_more_topics_than_positions():
    levels = find_topics(np.zeros((6, 2)), n_topics=4)
    assert set(levels.coarse) == {0} and set(levels.fine) == {0}


@pytest.mark.parametrize("kwargs", [{"n_topics": 0}, {"n_topics": 5, "n_fine_topics": 4}])
def test_bad_topic_counts_are_rejected(kwargs):
    with pytest.raises(ParameterError):
        find_topics(np.zeros((4, 2)), **kwargs)


def test_labels_name_what_a_topic_shares_and_others_lack():
    topics = np.array([0, 0, 0, 1, 1, 1])
    texts = [
        "Differential privacy for language models with noise.",
        "Auditing differential privacy of models.",
        "Differential privacy under attacks on models.",
        "Diffusion models for image generation.",
        "Faster sampling in diffusion models.",
        "Diffusion models and score matching for models.",
    ]
    labels = label_topics(topics, texts)
    assert labels == {0: "Differential privacy", 1: "Diffusion models"}


def test_a_label_covers_many_papers_not_one_papers_rare_phrase():
    # "quantum annealing schedules" is unique to one paper: distinctive, but it names one paper,
    # not the topic; "graph neural networks" is shared by most of the topic.
    texts = [
        "Graph neural networks for molecules.",
        "Graph neural networks scale.",
        "Graph neural networks and quantum annealing schedules.",
        "Bandits with regret.",
        "Bandits under delays.",
        "Contextual bandits.",
    ]
    labels = label_topics(np.array([0, 0, 0, 1, 1, 1]), texts)
    assert labels[0] == "Graph neural networks" and labels[1].startswith("Bandits")


def test_labels_stay_distinct_and_short():
    topics = np.array([0, 0, 1, 1])
    texts = [
        "Graph learning on molecules.",
        "Graph learning for molecules.",
        "Graph learning in social networks.",
        "Graph learning of social networks.",
    ]
    labels = label_topics(topics, texts)
    assert labels[0] != labels[1]
    assert all(1 <= len(label.replace(",", " ").split()) <= 4 for label in labels.values())


def test_labels_name_things_not_modifiers_and_do_not_repeat_themselves():
    # "robust" and "adaptive" are the most distinctive words of topic 0, but name nothing on their own.
    texts = [
        "Robust adaptive selection of features.",
        "Robust sampling with adaptive schedules.",
        "Adaptive robust selection.",
        "Low-rank adaptation.",
        "Low-rank adaptation of transformers.",
        "Low-rank methods.",
        "Bandits.",
        "Regret of bandits.",
        "Kernels.",
        "Kernel methods.",
    ]
    labels = label_topics(np.array([0, 0, 0, 1, 1, 1, 2, 2, 3, 3]), texts)
    first_parts = [label.split(",")[0].lower() for label in labels.values()]
    assert not {"robust", "adaptive", "low-rank"} & set(first_parts), labels
    assert all(label.lower().count("low-rank") <= 1 for label in labels.values())


def test_a_one_word_label_gives_way_to_a_well_used_phrase_holding_it():
    from lib.stages.topic_labels import _compose_label

    ranked = [("Conversion", 0.9), ("distribution", 0.6), ("ANN-SNN conversion", 0.5)]
    assert _compose_label(ranked, set()) == "ANN-SNN conversion"
    # One concept per label: a rarer holder or an unrelated second word is not appended after a comma.
    assert _compose_label([("Conversion", 0.9), ("distribution", 0.6), ("ANN-SNN conversion", 0.3)], set()) == (
        "Conversion"
    )
    assert _compose_label(ranked, {"ann-snn conversion"}) == "Conversion"


def test_labels_fall_back_when_texts_have_no_words():
    assert label_topics(np.array([0, 1]), ["", "the of"]) == {0: "Topic 0", 1: "Topic 1"}


def planted_table():
    """Nine papers in two coarse topics; the first splits into two fine topics. Coordinates are planted too."""
    texts = [
        ("Differential privacy for deep learning.", (0.0, 0.0)),
        ("Differential privacy auditing.", (0.1, 0.0)),
        ("Differential privacy and membership inference.", (0.2, 0.0)),
        ("Membership inference attacks on language models.", (1.0, 0.0)),
        ("Membership inference without shadow models.", (1.1, 0.0)),
        ("Diffusion models for images.", (5.0, 5.0)),
        ("Diffusion models sample faster.", (5.1, 5.0)),
        ("Score matching with diffusion models.", (5.2, 5.0)),
        ("Diffusion models and protein design.", (9.0, 9.0)),  # far out: given its nearest topic
    ]
    papers = pd.DataFrame(
        {
            "paper_id": [f"p{i}" for i in range(9)],
            "title": [t for t, _ in texts],
            "title_is_derived": False,
            "abstract": "",
            "x": [p[0] for _, p in texts],
            "y": [p[1] for _, p in texts],
        }
    )
    levels = type("Levels", (), {})()
    levels.coarse = np.array([0, 0, 0, 0, 0, 1, 1, 1, 1])
    levels.fine = np.array([0, 0, 0, 2, 2, 1, 1, 1, 1])
    levels.assigned_nearest = np.array([False] * 8 + [True])
    labels, fine_labels = label_levels(levels, list(papers["title"]))
    return papers.join(topics_table(papers, levels, labels, fine_labels).drop(columns="paper_id"))


def test_topics_table_has_the_documented_topic_columns():
    table = planted_table()
    documented = [c for c in OUTPUT_COLUMNS if c.name.startswith("topic")]
    for column in documented:
        assert str(table[column.name].dtype) == column.dtype, column.name
    assert table["topic_fine_label"].nunique() == 3 and table["topic_label"].nunique() == 2


def test_summaries_give_distinctive_keywords_with_their_shares_and_central_papers():
    table = planted_table()
    coarse = topic_summaries(table, "coarse")
    assert list(coarse.columns) == list(SUMMARY_COLUMNS)
    assert (
        list(coarse["topic"]) == [0, 1] and list(coarse["papers"]) == [5, 4] and list(coarse["share"]) == [5 / 9, 4 / 9]
    )
    privacy = coarse.iloc[0]
    shares = dict(zip(privacy["keywords"], privacy["keyword_shares"]))
    assert shares["differential privacy"] == 0.6 and shares["membership inference"] == 0.6  # 3 and 3 of its 5 papers
    assert "diffusion models" not in shares  # used by no paper of the topic
    diffusion = coarse.iloc[1]
    assert diffusion["keywords"][0] == "diffusion models" and diffusion["keyword_shares"][0] == 1.0
    assert diffusion["assigned_nearest"] == 1 and privacy["assigned_nearest"] == 0
    # The centre of the clear members is p6; the far paper comes last, however near it were.
    assert diffusion["representatives"][0] == "p6" and diffusion["representatives"][-1] == "p8"
    assert privacy["representatives"][:2] == ["p2", "p1"]


def test_summaries_give_the_numbers_behind_each_label():
    table = planted_table()
    coarse = topic_summaries(table, "coarse").set_index("topic")
    diffusion = coarse.loc[1]
    overall = dict(zip(diffusion["keywords"], diffusion["keyword_overall_shares"]))
    assert overall["diffusion models"] == round(4 / 9, 4)  # 4 of the 9 papers, all of them in this topic
    assert all(o <= 1 and s <= 1 for s, o in zip(diffusion["keyword_shares"], diffusion["keyword_overall_shares"]))
    for label, evidence in zip(coarse["label"], coarse["label_evidence"]):
        assert evidence and ", ".join(phrase for phrase, _, _ in evidence).lower() == label.lower()
        assert all(share > overall for _, share, overall in evidence)  # a label is used more in its topic than overall


def test_fine_summaries_name_their_coarse_parent():
    table = planted_table()
    fine = topic_summaries(table, "fine", n_keywords=2, n_representatives=1)
    assert set(fine["topic"]) == {0, 1, 2}
    row = fine.set_index("topic").loc[2]
    assert row["parent"] == 0 and row["parent_label"] == table["topic_label"][0]
    assert row["keywords"][0] == "membership inference" and row["keyword_shares"][0] == 1.0
    full = topic_summaries(table, "fine").set_index("topic").loc[2]
    assert "shadow models" not in full["keywords"] and "language models" not in full["keywords"]  # one paper's phrases
    assert len(row["keywords"]) <= 2 and row["representatives"] in (["p3"], ["p4"])


def test_summaries_from_phrase_counts_made_beforehand_are_the_same():
    # The dashboard counts a map's phrases once for both levels and hands them in.
    table = planted_table()
    use = PhraseUse(analysis_texts(table))
    for level in ("coarse", "fine"):
        pd.testing.assert_frame_equal(topic_summaries(table, level, use=use), topic_summaries(table, level))


def test_leaving_out_phrases_too_few_papers_use_changes_no_label_or_summary():
    """Labels and summaries take phrases two of a topic's papers use: on a map whose topics all have
    two papers or more, the phrases of one paper may be left out, which a corpus's build does for speed."""
    from conftest import SEED_SAMPLE

    from lib.stages.load import load_papers

    papers = load_papers(SEED_SAMPLE).papers
    texts = analysis_texts(papers)
    # Planted topics, not the seed map's, whose sizes are incidental: fine topics of 3 papers (the
    # last of 4), two to a coarse topic; the smallest fine topic shares 2 papers with no other.
    n = len(texts)
    fine = np.minimum(np.arange(n) // 3, n // 3 - 1)
    fine[2] = 1  # fine topic 0 now has 2 papers
    levels = TopicLevels(fine // 2, fine, np.zeros(n, dtype=bool))
    coords = np.column_stack([np.arange(n), fine]).astype(np.float64)
    assert fewest_users(levels.coarse, levels.fine) == 2
    every, shared = PhraseUse(texts), PhraseUse(texts, min_users=2)
    assert len(shared.keys) < len(every.keys) / 2  # most phrases are one paper's
    labels = label_levels(levels, texts, use=every)
    assert label_levels(levels, texts, use=shared) == labels
    # A build counts the phrases before this stage, for the subfields too, and hands them in.
    counted = PhraseUse(texts, min_users=2, counts=phrase_counts(texts))
    assert label_levels(levels, texts, use=counted) == labels and list(counted.keys) == list(shared.keys)
    table = topics_table(papers, levels, *labels).assign(x=coords[:, 0], y=coords[:, 1])
    for level in ("coarse", "fine"):
        pd.testing.assert_frame_equal(
            topic_summaries(table, level, use=shared), topic_summaries(table, level, use=every)
        )
    # A topic of one paper is labelled by that paper's phrases: then none may be left out.
    assert fewest_users(np.array([0, 0, 1]), np.array([0, 1, 2])) == 1


def test_summaries_can_find_the_centre_in_the_embedding_space():
    table = planted_table()
    vectors = np.eye(9)[:, :9] + 0.0
    vectors[:, 0] += 1  # every paper shares one direction; p7 also leans the most towards the centre
    vectors[7, 0] += 1
    row = topic_summaries(table, vectors=vectors).iloc[1]
    assert row["representatives"][0] == "p7"
    with pytest.raises(ParameterError):
        topic_summaries(table, vectors=vectors[:3])


def test_summaries_reject_an_unknown_level_and_handle_no_papers():
    with pytest.raises(ParameterError, match="level"):
        topic_summaries(planted_table(), "medium")
    assert list(topic_summaries(planted_table().iloc[:0]).columns) == list(SUMMARY_COLUMNS)


def test_a_build_from_before_the_fine_topic_columns_is_built_again_not_read(planted_file, tmp_path):
    import json

    from conftest import HashingEmbedder

    from lib.builder.pipeline import build
    from lib.map_folder import is_built, read_papers

    out = tmp_path / "out"
    build(planted_file, cache_dir=tmp_path / "cache", out_dir=out, embedder=HashingEmbedder())
    assert is_built(out)
    # What an older PaperMap left: no fine topics in the table, no column list in the sidecar.
    old = read_papers(out / "papers.parquet").drop(columns=["topic_fine", "topic_fine_label", "topic_assigned_nearest"])
    old.to_parquet(out / "papers.parquet")
    meta = json.loads((out / "papers.json").read_text())
    del meta["columns"]
    (out / "papers.json").write_text(json.dumps(meta))
    assert not is_built(out)
    build(planted_file, cache_dir=tmp_path / "cache", out_dir=out, embedder=HashingEmbedder())
    assert is_built(out) and read_papers(out / "papers.parquet")["topic_fine"].notna().all()
