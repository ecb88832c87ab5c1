"""A large map's overview (lib.views.map.overview, lib.ui_state.map_overview): the map page's first
look while a new server reads the whole table, and the same map the page then draws."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from test_map_detail import drawn_points, large_map  # noqa: F401 (large_map: a fixture)

from lib.views.map import detail

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def built_large(large_map):  # noqa: F811 (the fixture imported above)
    """The planted map drawn as a large map, built and drawn once by the map page: (page figure, its table)."""
    from conftest import map_chart_data, started

    app = started()
    [path] = large_map.glob("maps/*/papers.parquet")
    return map_chart_data(app)["figure"], path


def test_the_overview_holds_every_papers_place_and_labels_and_the_samples_titles(built_large):
    from lib.map_folder import read_papers
    from lib.views.map.overview import EVERY_PAPER_COLUMNS, read_overview

    _, path = built_large
    papers, overview = read_papers(path), read_overview(path)
    assert set(overview.whole.columns) == set(EVERY_PAPER_COLUMNS)
    pd.testing.assert_frame_equal(overview.whole, papers[overview.whole.columns])
    sample = detail.sample_papers(papers)
    assert 10 <= len(sample) < len(papers)
    pd.testing.assert_frame_equal(overview.sample, sample[overview.sample.columns])
    assert {"paper_id", "title"} <= set(overview.sample.columns)


def figure_dict(figure):
    """A `go.Figure` as the dicts of `map_chart_data`'s figure, its arrays as arrays (Plotly's JSON encodes them)."""
    return {
        "data": [
            {
                **trace.to_plotly_json(),
                **{key: trace[key] for key in ("x", "y", "text", "z") if key in trace},
            }
            for trace in figure.data
        ],
        "layout": {"annotations": [note.to_plotly_json() for note in figure.layout.annotations]},
    }


def test_the_overview_draws_the_points_density_legend_and_labels_the_page_then_draws(built_large):
    from lib.map_folder import read_papers
    from lib.views.map.hover import hover_title
    from lib.views.map.overview import PENDING_DETAILS, overview_figure, read_overview

    page, path = built_large
    first = figure_dict(overview_figure(read_overview(path), height=544, width_hint=527))
    page_drawn = drawn_points(page)
    assert 10 <= len(page_drawn) < 36

    # The overview's points carry their place and hover title only (no ids): each place is a paper
    # the page draws, with that paper's title.
    points = [t for t in first["data"] if t["type"] == "scattergl" and t.get("hovertemplate")]
    assert all(t.get("customdata") is None and t.get("hovertext") is None for t in points)
    assert {t["hovertemplate"] for t in points} == {f"<b>%{{text}}</b><br>{PENDING_DETAILS}<extra></extra>"}
    titled = {
        (round(float(x), 4), round(float(y), 4)): text for t in points for x, y, text in zip(t["x"], t["y"], t["text"])
    }
    titles = read_papers(path).set_index("paper_id")["title"]
    expected = {(round(x, 4), round(y, 4)): hover_title(titles[i]) for i, (x, y) in page_drawn.items()}
    assert sum(len(t["x"]) for t in points) == len(page_drawn) and titled == expected

    def legend(figure):  # each points trace's name, its count of every paper
        return [(t["name"], t.get("showlegend")) for t in figure["data"] if t["type"] == "scattergl"]

    assert legend(first) == legend(page)

    def density(figure):
        [trace] = [t for t in figure["data"] if t["type"] == "heatmap"]
        return np.array(trace["z"], dtype=float)

    assert np.array_equal(density(first), density(page), equal_nan=True)

    # The same labels; the regions they sit on are the sample's (as on a large map's slide), so a
    # label may sit a little apart from where the page puts it: within a tenth of the map's width.
    def labels(figure):
        return sorted((a["text"], a["x"], a["y"]) for a in figure["layout"]["annotations"])

    width = np.ptp([x for x, _ in page_drawn.values()])
    assert [text for text, *_ in labels(first)] == [text for text, *_ in labels(page)] and labels(first)
    for (_, x, y), (_, page_x, page_y) in zip(labels(first), labels(page)):
        assert abs(x - page_x) < width / 10 and abs(y - page_y) < width / 10


def overview_script():
    from lib import ui_state

    ui_state.map_overview(ui_state.built_map_dir(ui_state.chosen_source([])))


def test_the_map_page_shows_the_overview_only_until_this_server_has_read_the_map(built_large, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from lib.ui_state import source

    monkeypatch.setattr(source, "_READ_FOLDERS", set())  # a new server: no map read yet
    source._read_map_once.clear()
    app = AppTest.from_function(overview_script, default_timeout=60).run()
    assert not app.exception and [s.value for s in app.subheader] == ["Topic map: 36 papers"]
    assert len(app.get("plotly_chart")) == 1

    # The whole dashboard: the page's own map replaces the overview.
    from conftest import map_chart_element, started

    dashboard = started()
    assert "Topic map: 36 papers" not in [s.value for s in dashboard.subheader]
    assert map_chart_element(dashboard) and not dashboard.get("plotly_chart")

    # Read once, the map draws at once: no overview.
    assert not AppTest.from_function(overview_script, default_timeout=60).run().get("plotly_chart")
    monkeypatch.setattr(source, "_READ_FOLDERS", set())
    monkeypatch.setattr(detail, "LARGE_MAP", 100)  # the 36 papers drawn whole
    assert not AppTest.from_function(overview_script, default_timeout=60).run().get("plotly_chart")


def test_the_first_look_waits_for_no_module_only_later_pages_need():
    # scikit-learn and SciPy's statistics are for the pages that use them, not a new server's first look.
    later = ("sklearn", "scipy.stats")
    script = (
        "import sys; import lib.ui_state, lib.views.map.overview; "
        f"print(sorted(m for m in {later!r} if m in sys.modules))"
    )
    run = subprocess.run([sys.executable, "-c", script], cwd=REPO, check=True, capture_output=True, text=True)
    assert run.stdout.splitlines()[-1] == "[]", run.stdout


def test_the_overview_shows_on_the_first_server_of_a_map_the_cache_holds(built_large, monkeypatch):
    # Built by `python -m lib build`, or by a server of another checkout (whose taxonomy's path names
    # another map folder): the map is copied from the cache, then its overview drawn before the read.
    import shutil

    from streamlit.testing.v1 import AppTest

    from lib.ui_state import source

    _, path = built_large
    shutil.rmtree(path.parent)
    monkeypatch.setattr(source, "_READ_FOLDERS", set())
    source._read_map_once.clear()
    app = AppTest.from_function(overview_script, default_timeout=60).run()
    assert not app.exception and [s.value for s in app.subheader] == ["Topic map: 36 papers"]
    assert len(app.get("plotly_chart")) == 1 and path.is_file()
