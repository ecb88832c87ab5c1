"""Declared areas first: the taxonomy made of a list's `Area->Subarea` pairs, papers filed under
their own, the classifier filling the rest and measured against the declared ones."""

import json
from pathlib import Path

import pandas as pd
import pytest
from conftest import planted_records

from lib.paths import DEFAULT_TAXONOMY
from lib.schema import analysis_texts
from lib.stages.declared_areas import FILED_COLUMNS, declared_taxonomy, declares_areas, file_papers
from lib.stages.load import papers_from_bytes
from lib.stages.sessions import split_declared_area
from lib.stages.taxonomy import load_taxonomy
from lib.views import breakdowns


def papers_of(records):
    return papers_from_bytes(json.dumps(records).encode(), Path("planted2025.json")).papers


@pytest.mark.parametrize(
    "given, expected",
    [
        ("Deep Learning->Large Language Models", ("Deep Learning", "Large Language Models")),
        (
            "Applications->Chemistry, Physics, and Earth Sciences",
            ("Applications", "Chemistry, Physics, and Earth Sciences"),
        ),
        ("Machine Learning", ("Machine Learning", "")),
        ("deep_learning->generative_models", ("Deep Learning", "Generative Models")),
        ("reinforcement learning and planning", ("Reinforcement Learning and Planning", "")),
        ("", ("", "")),
    ],
)
def test_declared_areas_are_split_and_made_readable(given, expected):
    assert split_declared_area(given) == expected


def test_the_declared_taxonomy_keeps_names_unique_and_borrows_known_descriptions():
    declared = pd.DataFrame(
        {
            "declared_area": ["Deep Learning", "Deep Learning", "Theory", "Theory", "Optimization", ""],
            "declared_subarea": ["Other", "Large Language Models", "Other", "", "", ""],
        }
    )
    taxonomy, entry_of = declared_taxonomy(declared, load_taxonomy(DEFAULT_TAXONOMY))
    assert [(e.name, e.parent) for e in taxonomy.entries] == [
        ("Deep Learning", None),
        ("Large Language Models", "Deep Learning"),
        ("Other (Deep Learning)", "Deep Learning"),
        ("Optimization", None),
        ("Theory", None),
        ("Other (Theory)", "Theory"),
    ]
    assert entry_of[("Theory", "Other")] == "Other (Theory)" and entry_of[("Theory", "")] == "Theory"
    described = {e.name: e for e in taxonomy.entries}
    assert described["Large Language Models"].terms and described["Deep Learning"].description  # from the file
    assert not described["Theory"].description  # the ICML file calls it "Theory of Machine Learning"


@pytest.fixture(scope="module")
def planted():
    papers = papers_of(planted_records())
    return papers, analysis_texts(papers)


def test_declared_papers_keep_their_area_and_the_classifier_fills_the_rest(planted):
    papers, texts = planted
    papers = papers.copy()
    papers.loc[:5, ["primary_area", "declared_area"]] = ""  # six papers declare nothing
    filed = file_papers(papers, texts, load_taxonomy(DEFAULT_TAXONOMY))
    assert dict(filed.dtypes.astype(str)) == FILED_COLUMNS and len(filed) == len(papers)
    declared = papers["declared_area"] != ""
    assert (filed.loc[declared, "area"] == papers.loc[declared, "declared_area"]).all()
    assert (filed.loc[declared, "subfield_score"] == 1).all() and filed.loc[declared, "subfield_confident"].all()
    assert (filed["subfield_inferred"] == ~declared).all()
    # The rest are filed by the classifier, among the declared areas only.
    assert set(filed.loc[~declared, "area"]) <= {"Privacy", "Diffusion", "Bandits"}
    assert (filed.loc[~declared, "area"] == filed.loc[~declared, "inferred_area"]).all()


def test_the_classifier_never_sees_a_papers_declared_area(planted):
    papers, texts = planted
    taxonomy = load_taxonomy(DEFAULT_TAXONOMY)
    shuffled = papers.copy()
    shuffled["declared_area"] = papers["declared_area"].sample(frac=1, random_state=3).to_numpy()  # same pairs
    first, second = file_papers(papers, texts, taxonomy), file_papers(shuffled, texts, taxonomy)
    assert (first["inferred_area"] == second["inferred_area"]).all()  # its picks are its own
    assert (second["area"] == shuffled["declared_area"]).all()


def test_planted_papers_are_filed_by_the_classifier_much_as_they_declare(planted):
    papers, texts = planted
    filed = file_papers(papers, texts, load_taxonomy(DEFAULT_TAXONOMY))
    table = breakdowns.classifier_agreement(papers.assign(**{c: filed[c] for c in FILED_COLUMNS}))
    total = table.iloc[-1]
    assert total["papers"] == 36 and total["share"] > 0.8  # planted topics are easy to tell apart


def test_lists_declaring_too_few_areas_or_told_not_to_use_them_are_classified(planted):
    papers, texts = planted
    taxonomy = load_taxonomy(DEFAULT_TAXONOMY)
    few = papers.copy()
    few.loc[few.index % 2 == 0, "declared_area"] = ""  # exactly half: not most
    assert declares_areas(papers) and not declares_areas(few)
    for filed in (file_papers(few, texts, taxonomy), file_papers(papers, texts, taxonomy, use_declared=False)):
        assert filed["subfield_inferred"].all() and (filed["inferred_area"] == filed["area"]).all()
        assert set(filed["area"]) <= {e.name for e in taxonomy.entries if e.parent is None} | {"Unassigned"}


def test_papers_added_to_a_declared_map_are_filed_its_way(planted):
    papers, texts = planted
    newcomers = papers.iloc[:4].copy()
    newcomers["declared_area"] = ["Bandits", "", "", ""]  # few declare: the map's areas still rule
    filed = file_papers(newcomers, texts[:4], load_taxonomy(DEFAULT_TAXONOMY), declared_from=papers)
    assert list(filed["subfield_inferred"]) == [False, True, True, True]
    assert set(filed["area"]) <= {"Privacy", "Diffusion", "Bandits"}
