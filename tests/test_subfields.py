import json

import pytest
import yaml

from lib.errors import TaxonomyError
from lib.pipeline import DEFAULT_TAXONOMY
from lib.subfields import UNASSIGNED, assign_subfields, load_taxonomy, parse_taxonomy


SMALL = {
    "name": "Tiny",
    "subfields": [
        {"name": "Trustworthy ML", "description": "privacy fairness robustness",
         "children": [{"name": "Privacy", "description": "differential privacy of training data", "terms": ["differential privacy", "membership inference"]},
                      {"name": "Fairness", "description": "group fairness and bias", "terms": ["demographic parity"]}]},
        {"name": "Generative Models", "description": "diffusion models and image generation", "terms": ["diffusion", "denoising"]},
    ],
}


def test_default_taxonomy_has_the_ten_icml_areas_with_children():
    taxonomy = load_taxonomy(DEFAULT_TAXONOMY)
    areas = taxonomy.children(None)
    assert len(areas) == 10
    assert {"Deep Learning", "Optimization", "Trustworthy Machine Learning", "Probabilistic Methods"} <= {a.name for a in areas}
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
