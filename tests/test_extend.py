"""Growing a map: papers of a later list are placed on a finished map, which does not move."""

import json

import numpy as np
import pandas as pd
import pytest
from conftest import planted_records

from lib.builder.extend import extend_map
from lib.builder.pipeline import build
from lib.cli import main
from lib.errors import InputError
from lib.map_folder import is_built, read_papers, read_topic_summaries
from lib.stages.topics import topic_summaries


@pytest.fixture
def grown(tmp_path):
    records = planted_records(per_topic=14)
    later = [r for i, r in enumerate(records) if i % 14 >= 12]  # two papers per planted topic come later
    first = tmp_path / "first2025.json"
    first.write_text(json.dumps([r for r in records if r not in later]))
    second = tmp_path / "later2025.json"
    second.write_text(json.dumps(later + records[:1]))  # and one already on the map
    build(first, out_dir=tmp_path / "map", cache_dir=tmp_path / "cache")
    result = extend_map(tmp_path / "map", second, out_dir=tmp_path / "grown")
    return tmp_path, result


def test_old_papers_stay_where_readers_saw_them(grown):
    tmp_path, result = grown
    before, after = read_papers(tmp_path / "map" / "papers.parquet"), result.papers
    assert is_built(tmp_path / "grown") and len(after) == len(before) + 6
    old = after.iloc[: len(before)]
    assert old[["paper_id", "x", "y", "topic", "topic_label"]].equals(
        before[["paper_id", "x", "y", "topic", "topic_label"]]
    )
    assert [issue.problem for issue in result.report.skipped] == ["already on the map"]
    assert result.summary().startswith("Grew the map of 42 papers")
    vectors = np.load(tmp_path / "grown" / "embeddings.npy")
    assert vectors.shape[0] == len(after)


def test_the_grown_maps_topic_summaries_count_the_new_papers(grown):
    tmp_path, result = grown
    for level in ("coarse", "fine"):
        written = read_topic_summaries(tmp_path / "grown", level)
        pd.testing.assert_frame_equal(written, topic_summaries(result.papers, level))
    assert read_topic_summaries(tmp_path / "grown", "coarse")["papers"].sum() == 42


def test_new_papers_join_their_own_topic_and_region(grown):
    tmp_path, result = grown
    papers = result.papers
    base = papers.iloc[:36]
    for _, paper in papers.iloc[36:].iterrows():
        planted = paper["paper_id"].split("-")[0]
        kin = base[base["paper_id"].str.startswith(planted)]
        assert paper["topic"] in set(kin["topic"])  # a topic of its planted kin (a planted topic may span two)
        centre = kin[["x", "y"]].median().to_numpy()
        others = base[~base["paper_id"].str.startswith(planted)][["x", "y"]].median().to_numpy()
        assert np.linalg.norm(paper[["x", "y"]].to_numpy(float) - centre) < np.linalg.norm(
            paper[["x", "y"]].to_numpy(float) - others
        )


def test_growing_needs_a_finished_map_and_new_papers(tmp_path, grown):
    folder, _ = grown
    with pytest.raises(InputError, match="holds no finished map"):
        extend_map(tmp_path / "nothing", folder / "later2025.json", out_dir=tmp_path / "x")
    with pytest.raises(InputError, match="no paper to add"):
        extend_map(folder / "map", folder / "first2025.json", out_dir=tmp_path / "x")
    assert main(["extend", str(folder / "map"), str(folder / "first2025.json"), "--out", str(tmp_path / "x")]) == 2
