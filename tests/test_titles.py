"""Derived titles: the method name an abstract introduces, else its first sentence, shortened."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lib.stages.load import load_papers
from lib.stages.titles import MAX_TITLE_CHARS, MAX_TITLE_WORDS, derive_title

SEED = Path(__file__).resolve().parents[1] / "data" / "icml2025_seed.txt"
ELLIPSIS = "…"


def plain(text: str) -> str:
    """Text without markdown emphasis and with single spaces, to compare titles with their source."""
    return " ".join(re.sub(r"[*_`]+", "", text).split())


def assert_short(title: str) -> None:
    assert title and title == title.strip()
    words = title.removesuffix(ELLIPSIS).split()
    assert 1 <= len(words) <= MAX_TITLE_WORDS
    assert len(title) <= MAX_TITLE_CHARS


@pytest.fixture(scope="module")
def seed_papers():
    return load_papers(SEED).papers


def test_seed_titles_are_short_derived_and_taken_from_their_abstract(seed_papers):
    assert len(seed_papers) == 19
    assert seed_papers["title_is_derived"].all()
    for title, abstract in zip(seed_papers["title"], seed_papers["abstract"]):
        assert_short(title)
        assert plain(title.removesuffix(ELLIPSIS)) in plain(abstract)
    assert seed_papers["title"].is_unique


def test_seed_titles_name_the_methods_the_abstracts_introduce(seed_papers):
    titles = set(seed_papers["title"])
    for name in ("Aligned Multi-Objective Optimization", "Direct Discriminative Optimization", "CurvGAD", "VistaDPO"):
        assert name in titles
    # Abstracts that name nothing get their first sentence, cut to MAX_TITLE_WORDS with an ellipsis.
    assert "This paper considers the challenging computational task of estimating nested expectations" in titles
    assert any(t.endswith(ELLIPSIS) and len(t[:-1].split()) == MAX_TITLE_WORDS for t in titles)


@pytest.mark.parametrize(
    ("abstract", "expected"),
    [
        ("Videos are hard. To address this, we introduce **VistaDPO**, a novel framework for alignment.", "VistaDPO"),
        ("We introduce a practical robust aggregation rule, coined CS+, such that CS+-RG is robust.", "CS+"),
        ("We build a benchmark for agents, named ***SRM***. It has two parts.", "SRM"),
        (
            "To address this gap, we introduce the Aligned Multi-Objective Optimization framework, and prove bounds.",
            "Aligned Multi-Objective Optimization",
        ),
        ("We propose the Sparse Expert Routing framework for scaling.", "Sparse Expert Routing"),
        (
            "In this work, we propose Direct Discriminative Optimization (DDO) as a unified framework.",
            "Direct Discriminative Optimization",
        ),
        ("We introduce F-RG, a general framework for robust decentralized algorithms.", "F-RG"),
        ("Our estimator, dubbed `KQ-Nest`, needs fewer samples.", "KQ-Nest"),
        ("We present a new method, which we call GraphMix, for semi-supervised learning.", "GraphMix"),
        ("This paper presents LLMNodeBed, a testbed for node classification.", "LLMNodeBed"),
    ],
)
def test_introduced_names_are_picked(abstract, expected):
    assert derive_title(abstract) == expected


@pytest.mark.parametrize(
    ("abstract", "expected"),
    [
        ("We propose Graph Attention Networks with sparse heads.", "Graph Attention Networks"),
        ("We introduce Deep Sets on graphs.", "Deep Sets"),
        ("We introduce Mixture of Experts to scale training.", "Mixture of Experts"),
        ("We propose Learning to Rank with Trees and show gains.", "Learning to Rank with Trees"),
        ("We propose Plug-in Networks for transfer.", "Plug-in Networks"),
    ],
)
def test_names_keep_inner_connectors_but_never_end_on_one(abstract, expected):
    assert derive_title(abstract) == expected


@pytest.mark.parametrize(
    "abstract",
    [
        "We present Transformers that read long documents. They are fast.",  # one capitalised word: not a name
        "We propose a simple method for sparse regression. It works.",  # no capitalised name at all
        "We introduce We. It is odd.",
    ],
)
def test_ordinary_words_after_an_intro_are_not_names(abstract):
    assert derive_title(abstract) == abstract.split(". ")[0]


def test_short_first_sentence_is_the_title_without_its_full_stop():
    abstract = "Crystalline materials often exhibit a high level of symmetry. However, most models ignore it."
    assert derive_title(abstract) == "Crystalline materials often exhibit a high level of symmetry"


def test_long_first_sentence_is_cut_to_max_words_with_an_ellipsis():
    words = [f"w{i}" for i in range(MAX_TITLE_WORDS + 8)]
    abstract = " ".join(words) + ". Second sentence is never used."
    title = derive_title(abstract)
    assert title == " ".join(words[:MAX_TITLE_WORDS]) + ELLIPSIS


def test_only_the_first_sentence_is_used_and_markup_is_dropped():
    abstract = "The *turnstile* model of privacy is studied. Second Sentence Words appear here."
    title = derive_title(abstract)
    assert title == "The turnstile model of privacy is studied"


@pytest.mark.parametrize("abstract", ["", "   ", "\n\t"])
def test_empty_abstract_gives_empty_title(abstract):
    assert derive_title(abstract) == ""


def test_an_abstract_without_words_still_gets_a_title():
    assert derive_title("***") != ""


@pytest.mark.parametrize(
    "abstract",
    [
        "本文提出了一种新的图神经网络方法。" + "我们在多个数据集上验证了它的有效性" * 30 + "。",  # no spaces at all
        "https://example.org/" + "a" * 5000 + " is where the code lives.",
        "We propose " + "A-" * 3000 + "Net for everything.",
    ],
)
def test_text_without_spaces_still_gives_a_short_title(abstract):
    title = derive_title(abstract)
    assert title and len(title) <= MAX_TITLE_CHARS


def test_chinese_abstract_is_cut_at_its_first_sentence():
    first = "本文提出了一种新的图神经网络方法。"
    assert derive_title(first + "我们在多个数据集上验证了它。") == first


def test_loader_derives_titles_only_when_the_source_has_none(tmp_path):
    records = [
        {"id": "given", "title": "A Given Title", "abstract": "We introduce **VistaDPO**, a framework."},
        {"id": "derived", "abstract": "We introduce **VistaDPO**, a framework."},
        {"id": "sentence", "title": "", "abstract": "Node classification is a fundamental task. More text."},
    ]
    path = tmp_path / "titles.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    papers = load_papers(path).papers.set_index("paper_id")
    assert papers.loc["given", "title"] == "A Given Title" and not papers.loc["given", "title_is_derived"]
    assert papers.loc["derived", "title"] == "VistaDPO" and papers.loc["derived", "title_is_derived"]
    assert papers.loc["sentence", "title"] == "Node classification is a fundamental task"
    assert papers.loc["sentence", "title_is_derived"]


def test_a_marker_many_titles_share_is_found_and_one_method_name_is_not():
    from lib.schema import title_markers, without_markers

    titles = [f"Position: topic {i} matters" for i in range(40)] + [
        f"Result {i} (Extended  Abstract)" for i in range(5)
    ]
    titles += ["Divide and Conquer: one", "Divide and Conquer: two", "Plain title (PLAIN)"] + ["x"] * 300
    markers = title_markers(titles)
    # 40 and 5 of 348 titles: over 1% and at least 3; "Divide and Conquer" is 2, "(plain)" 1.
    assert markers == {"position:", "(extended abstract)"}
    assert without_markers("Position: topic 1 matters", markers) == "topic 1 matters"
    assert without_markers("Result 7 (extended abstract)", markers) == "Result 7"
    assert without_markers("Divide and Conquer: one", markers) == "Divide and Conquer: one"
    assert title_markers(titles[:2]) == frozenset()  # two titles never make a marker


def test_a_format_marker_is_not_what_a_titles_only_map_is_about(tmp_path):
    """IJCAI 2023's 51 "(Extended Abstract)" titles made a topic labelled "Extended abstract" (issue 35)."""
    from conftest import HashingEmbedder, planted_records

    from lib.builder.pipeline import build
    from lib.schema import analysis_texts

    records = planted_records(per_topic=12)
    for n, record in enumerate(records):
        record["abstract"] = ""
        if n % 3 == 0:  # a third of every topic's papers
            record["title"] += " (Extended Abstract)"
    path = tmp_path / "titles.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    papers = build(path, out_dir=tmp_path / "map", cache_dir=tmp_path / "cache", embedder=HashingEmbedder()).papers
    assert all("extended" not in text.lower() for text in analysis_texts(papers))
    assert papers["title"].str.endswith("(Extended Abstract)").sum() == 12  # shown as the list has it
    labels = set(papers["topic_label"].str.lower()) | set(papers["topic_fine_label"].str.lower())
    assert not any("abstract" in label for label in labels)


@pytest.mark.parametrize("with_abstracts", ["every edition", "one edition of two"])
def test_a_lists_texts_made_when_read_are_the_texts_made_at_once(with_abstracts, monkeypatch, tmp_path):
    """A build reads its texts from the stored papers table a few row groups at a time (`PaperTexts`):
    the same texts, the list's markers and editions weighed on the whole list, not on the rows read."""
    import pandas as pd

    import lib.files
    import lib.schema
    from lib.schema import PaperTexts, analysis_texts, text_reading
    from lib.stored_table import StoredTable

    monkeypatch.setattr(lib.schema, "TEXT_BLOCK", 4)  # iterated a few papers at a time
    monkeypatch.setattr(lib.files, "ROW_GROUP_ROWS", 7)  # stored in row groups of 7 papers
    n = 23
    papers = pd.DataFrame(
        {
            "title": [f"Position: topic {i}" if i % 4 == 0 else f"Study {i}" for i in range(n)],
            "title_is_derived": [i % 5 == 0 for i in range(n)],
            "abstract": [f"Abstract {i}." if i < 12 or with_abstracts == "every edition" else "" for i in range(n)],
            "edition": ["A 2025" if i < 12 else "B 2025" for i in range(n)],
        }
    )
    with open(tmp_path / "papers.parquet", "wb") as stream:
        lib.files.write_frame(stream, papers)
    whole = analysis_texts(papers)
    lazy = PaperTexts(StoredTable(tmp_path / "papers.parquet"), text_reading(papers))
    assert StoredTable(tmp_path / "papers.parquet").starts == [0, 7, 14, 21, 23]
    assert whole[4].startswith("topic 4")  # its marker, weighed on the whole list, left out
    assert ("Abstract 1" in whole[1]) == (with_abstracts == "every edition")
    assert len(lazy) == n and list(lazy) == whole
    assert [lazy[i] for i in range(n)] == whole and lazy[-1] == whole[-1]
    assert lazy[5:17] == whole[5:17] and lazy[20:40] == whole[20:] and lazy[7:7] == [] and lazy[::5] == whole[::5]
    assert lazy[::-3] == whole[::-3] and lazy[-2] == whole[-2]
