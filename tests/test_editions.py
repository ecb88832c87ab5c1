"""Several paper lists on one map (lib.stages.editions, `python -m lib build A B`): each paper keeps its
list's edition, a paper in two lists is kept once per list and linked, and a list without abstracts is
not placed apart from one with them."""

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from conftest import REPO, SHARED_DATA, planted_records
from sklearn.neighbors import NearestNeighbors

from lib.map_folder import EMBEDDINGS_FILE, PAPERS_FILE, read_papers, read_sidecar
from lib.stages.editions import combine_editions, edition_of, same_as, same_paper_key
from lib.stages.load import load_lists, papers_from_bytes


def nearest(points, k: int = 10) -> np.ndarray:
    """Each point's `k` nearest others (itself left out by row, not by place: a copy may tie with it)."""
    found = NearestNeighbors(n_neighbors=k + 1).fit(points).kneighbors(points, return_distance=False)
    return np.array([[other for other in row_found if other != row][:k] for row, row_found in enumerate(found)])


def table(rows):
    return pd.DataFrame(rows, columns=["paper_id", "title", "edition"])


def test_a_papers_edition_is_its_records_else_its_venue_and_year(tmp_path):
    records = [
        {"id": "a", "title": "Graph kernels", "venue": "ICML 2024"},
        {"id": "b", "title": "Graph kernels revisited", "edition": "ICML 2024 workshop", "venue": "ICML 2024"},
        {"id": "c", "title": "Untitled venue"},
    ]
    papers = papers_from_bytes(json.dumps(records).encode(), tmp_path / "list.json").papers
    assert list(papers["edition"]) == ["ICML 2024", "ICML 2024 workshop", ""]
    assert edition_of("NeurIPS", 2023) == "NeurIPS 2023" and edition_of("", 2023) == "2023"
    # One list with two editions links a paper in both.
    assert list(papers["same_as"]) == [[], [], []]
    assert same_paper_key("Attention Is All You Need!") == same_paper_key("attention is  all you need")
    assert same_paper_key("Café-based learning") == same_paper_key("Cafe based Learning")


def test_same_as_links_each_copy_to_the_others_of_other_editions_only():
    papers = table(
        [
            ("a1", "Deep Sets", "ICML 2019"),
            ("b1", "Deep sets.", "ICML 2024"),
            ("c1", "DEEP SETS", "ICML 2025"),
            ("a2", "Deep Sets", "ICML 2019"),  # the same title twice in one edition: not the same paper's copy
            ("a3", "Something else", "ICML 2019"),
        ]
    )
    assert same_as(papers) == [["b1", "c1"], ["a1", "c1", "a2"], ["a1", "b1", "a2"], ["b1", "c1"], []]


def test_combining_keeps_each_lists_papers_and_tells_clashing_editions_and_ids_apart():
    first = table([("x", "Kernel methods", "ICML 2025"), ("y", "Diffusion models", "ICML 2025")])
    second = table([("x", "Kernel methods", "ICML 2025"), ("z", "Graph networks", "ICML 2025")])
    third = table([("w", "Graph networks", "NeurIPS 2024")])
    combined = combine_editions([("titles", first), ("abstracts", second), ("neurips", third)])
    assert list(combined["paper_id"]) == ["x", "y", "x@abstracts", "z", "w"]
    assert list(combined["edition"]) == ["ICML 2025"] * 2 + ["ICML 2025 (abstracts)"] * 2 + ["NeurIPS 2024"]
    assert combined["same_as"].tolist() == [["x@abstracts"], [], ["x"], ["w"], ["z"]]
    assert combined["paper_id"].is_unique


def test_load_lists_names_each_skipped_record_by_its_file(tmp_path):
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps([{"id": "a", "title": "Kernel methods", "venue": "ICML 2024"}]))
    bad.write_text(json.dumps([{"id": "b", "title": "Graph networks", "venue": "ICML 2025"}, {"id": "c", "title": ""}]))
    result = load_lists([good, bad])
    assert list(result.papers["edition"]) == ["ICML 2024", "ICML 2025"]
    assert result.report.records_read == 3 and result.report.loaded == 2
    [line] = [line for line in result.report.lines() if line.startswith("skipped")]
    assert "bad.json record" in line and "id 'c'" in line and "neither a title nor an abstract" in line


def test_two_lists_build_one_map_of_both_editions(tmp_path):
    records = planted_records(per_topic=10)
    year_one, year_two = tmp_path / "conf2024.json", tmp_path / "conf2025.json"
    year_one.write_text(json.dumps(records[::2]))
    year_two.write_text(json.dumps(records[1::2] + records[0:8:2]))  # four papers in both years
    out = tmp_path / "out"
    command = [sys.executable, "-m", "lib", "build", year_one, year_two, "--out", out, "--cache", tmp_path / "cache"]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    papers = read_papers(out / PAPERS_FILE)
    assert papers["edition"].value_counts().to_dict() == {
        "CONF 2024": len(records[::2]),
        "CONF 2025": len(records) - len(records[::2]) + 4,
    }
    twins = papers[papers["same_as"].map(len) > 0]
    assert len(twins) == 8 and set(twins["edition"]) == {"CONF 2024", "CONF 2025"}
    assert read_sidecar(out)["input"] == f"{year_one} + {year_two}"
    again = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0 and again.stdout.startswith("Found the map of"), again.stdout


@pytest.mark.skipif(not (SHARED_DATA / "ijcai2023.json").exists(), reason="../shared/data is absent")
def test_a_list_without_abstracts_lands_beside_the_same_list_with_them(tmp_path):
    """IJCAI 2023 twice: once as it is, once titles only. Each paper's two copies must be near
    neighbours, and neither copy's list may form a region of its own."""
    records = json.loads((SHARED_DATA / "ijcai2023.json").read_text())
    titles_only = tmp_path / "ijcai2023_titles.json"
    titles_only.write_text(json.dumps([{**record, "abstract": ""} for record in records]))
    out = tmp_path / "out"
    command = [sys.executable, "-m", "lib", "build", SHARED_DATA / "ijcai2023.json", titles_only, "--out", out]
    done = subprocess.run(
        [*command, "--cache", tmp_path / "cache", "--quiet"], cwd=REPO, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    papers = read_papers(out / PAPERS_FILE)
    assert (papers["same_as"].map(len) == 1).all()
    row_of = {paper_id: row for row, paper_id in enumerate(papers["paper_id"])}
    twin = np.array([row_of[ids[0]] for ids in papers["same_as"]])
    titles_copy = (papers["edition"] != "IJCAI 2023").to_numpy()
    for name, points, at_least in (
        ("embedding", np.load(out / EMBEDDINGS_FILE), 0.95),
        ("map", papers[["x", "y"]], 0.85),
    ):
        near = nearest(points)
        found = np.mean([twin[row] in near[row] for row in range(len(papers))])
        assert found >= at_least, f"{name}: a copy's twin among its 10 nearest for {found:.3f} of papers"
        same_list = np.mean(titles_copy[near] == titles_copy[:, None])
        assert 0.35 <= same_list <= 0.65, f"{name}: {same_list:.3f} of neighbours come from the paper's own list"


@pytest.mark.skipif(not (SHARED_DATA / "icml2019.json").exists(), reason="../shared/data is absent")
def test_an_edition_with_abstracts_is_not_drawn_apart_from_editions_of_titles(tmp_path):
    """ICML 2019 (abstracts) with ICML 2024 and 2025 (titles only): analysed by their abstracts, 70% of
    the 2019 papers' nearest papers were from 2019 (11.5% of the map); by titles alone as the others
    are, 19%, as when 2019 is given as titles only."""
    lists = [SHARED_DATA / name for name in ("icml2019.json", "icml2024.json", "icml2025_papers.json")]
    out = tmp_path / "out"
    command = [sys.executable, "-m", "lib", "build", *lists, "--out", out, "--cache", tmp_path / "cache", "--quiet"]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    papers = read_papers(out / PAPERS_FILE)
    editions = papers["edition"].to_numpy()
    first = editions == "ICML 2019"
    for points in (np.load(out / EMBEDDINGS_FILE), papers[["x", "y"]]):
        near = nearest(points)
        assert (editions[near[first]] == "ICML 2019").mean() < 2.5 * first.mean()
