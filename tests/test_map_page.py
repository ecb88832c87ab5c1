"""lib.views.map.page: what the map page rings and lists."""

import pandas as pd
import pytest
from conftest import map_chart_data, plain, started

from lib.views.map.page import action_line, listed_papers, map_highlight, selection_line


def frame(*ids):
    return pd.DataFrame({"paper_id": list(ids)})


def test_highlight_layers_in_order_only_when_there():
    assert map_highlight("", None, None, None) == {}
    layers = map_highlight("q", frame("a"), frame("b"), "c")
    assert list(layers) == ["matches for q", "most similar", "open paper"] and layers["open paper"] == ["c"]


def test_a_lasso_comes_before_similar_papers_and_a_search():
    shown = frame("a", "b", "c")
    listed, heading = listed_papers(shown, ("c", "a"), frame("b"), frame("b"), "q")
    assert list(listed["paper_id"]) == ["a", "c"] and heading == "selected papers"
    assert listed_papers(shown, (), frame("b"), frame("c"), "q")[1] == "papers most similar to your text"
    assert listed_papers(shown, (), None, frame("c"), "*q*")[1] == "papers match “\\*q\\*”"
    assert listed_papers(shown, (), None, None, "") == (None, "")


def test_the_line_above_the_map_says_what_a_search_found():
    assert action_line(36, None, "") == ""
    assert action_line(36, frame(), "*zz*").startswith("**0 papers match** “\\*zz\\*”")
    assert "**2 of 36 papers match**" in action_line(36, frame("a", "b"), "q")


@pytest.fixture
def app_env(planted_file, tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERMAP_DATA", str(planted_file))
    monkeypatch.setenv("PAPERMAP_CACHE", str(tmp_path / "cache"))


def test_a_search_says_what_it_found_right_above_the_map(app_env):
    # Above the map, so a search's effect shows without scrolling on a 1280x720 screen.
    nothing = started(q="zzzqqq")
    lines = [plain(m.value) for m in nothing.markdown]
    assert any(line.startswith("**0 papers match**") for line in lines)
    figure = map_chart_data(nothing)["figure"]
    assert figure["layout"]["yaxis"]["scaleanchor"] == "x"  # equal units on both axes
    some = started(q="the")
    assert any("of 36 papers match" in plain(m.value) for m in some.markdown)
    assert not any("papers match" in plain(m.value) for m in started().markdown)


def test_the_selection_line_counts_what_a_box_took():
    assert selection_line(0) == ""
    assert selection_line(1).startswith("**1 paper in the box or lasso**")
    assert selection_line(1234).startswith("**1,234 papers in the box or lasso**, listed below the map")
