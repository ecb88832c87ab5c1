"""The map page under AppTest: a paper drawn over others says so on hover, and its card lists them."""

import functools
import re

import pytest
from conftest import map_chart_data, plain, started

from lib.ui_state import map_view
from lib.views.map import stacks as map_stacks


@pytest.fixture
def app_env(planted_file, tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERMAP_DATA", str(planted_file))
    monkeypatch.setenv("PAPERMAP_CACHE", str(tmp_path / "cache"))
    # The planted map's 36 papers stand apart at the page's real view; in a 40 px plot area (a
    # tiny window) each topic's papers pile up, as a conference's do at the real one.
    for name in ("stack_counts", "stacked_with"):
        monkeypatch.setattr(map_view, name, functools.partial(getattr(map_stacks, name), plot_px=(40, 40)))
    return planted_file


def stacked_hovers(app) -> dict[str, str]:
    figure = map_chart_data(app)["figure"]
    return {
        paper_id: details
        for trace in figure["data"]
        if trace.get("customdata") is not None
        for paper_id, details in zip(trace["customdata"], trace["hovertext"])
        if "here: click to list" in details
    }


def test_a_stacked_papers_card_lists_the_others_on_its_spot_as_buttons_that_open_them(app_env):
    hovers = stacked_hovers(started())
    assert hovers, "no stacked paper on the planted map at 40 px"
    paper_id, details = next(iter(hovers.items()))
    count = int(re.search(r"(\d+) more papers? here: click to list", details).group(1))
    app = started(paper=paper_id)
    others = [b for b in app.button if b.key and b.key.startswith("map-stacked-")]
    assert len(others) == min(count, map_view.STACK_LISTED)
    assert any(plain(m.value).startswith(f"**{count} more paper") for m in app.markdown)
    # The card names the topic as the hover does.
    topic = re.search(r"Topic: ([^<]+)", details).group(1)
    assert any(f"Topic: {topic}" in plain(c.value) for c in app.caption)
    # A listed paper opens on a click, and its own card lists the first one back.
    target = others[0].key.removeprefix("map-stacked-")
    others[0].click().run()
    assert not app.exception and app.query_params["paper"] in (target, [target])
    assert any(b.key == f"map-stacked-{paper_id}" for b in app.button)


def test_a_paper_that_stands_alone_lists_nothing(app_env, monkeypatch):
    monkeypatch.setattr(map_view, "stacked_with", lambda papers, paper_id: papers.iloc[:0])
    app = started(paper="privacy-3")
    assert not [b for b in app.button if b.key and b.key.startswith("map-stacked-")]
    assert not any("at this spot" in plain(m.value) for m in app.markdown)
