"""The dashboard's pages under Streamlit's AppTest, on a small planted list with a private cache."""

import base64

import numpy as np
import pytest
from conftest import DASHBOARD, map_chart_data, map_chart_element, plain, planted_records, started
from streamlit.testing.v1 import AppTest

from lib.views.filters import FINE_MARK
from lib.views.map.points import read_points


@pytest.fixture
def app_env(planted_file, tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERMAP_DATA", str(planted_file))
    monkeypatch.setenv("PAPERMAP_CACHE", str(tmp_path / "cache"))
    return planted_file


def array_length(values):
    """Length of a Plotly JSON array, which may be a list or a base64 typed array."""
    if isinstance(values, dict):
        return len(base64.b64decode(values["bdata"])) // np.dtype(values["dtype"]).itemsize
    return len(values)


def map_points(app):
    figure = map_chart_data(app)["figure"]
    # Papers in view carry their ids; the filtered-out backdrop does not.
    return sum(array_length(trace["x"]) for trace in figure["data"] if trace.get("customdata") is not None)


def with_table(app):
    """The map page with the table of the papers shown opened (its expander's state), run again."""
    app.session_state["shown_table-open"] = True
    app.run()
    assert not app.exception, app.exception
    return app


def test_map_page_shows_every_paper_coloured_by_subfield(app_env):
    app = started()
    assert "36 of 36 papers" in app.subheader[0].value
    assert map_points(app) == 36
    figure = map_chart_data(app)["figure"]
    paper_traces = [trace for trace in figure["data"] if "customdata" in trace]
    assert paper_traces and all(
        array_length(trace["customdata"]) for trace in paper_traces
    )  # ids travel with the points
    assert any(a["text"] for a in figure["layout"]["annotations"])  # topic labels drawn
    # The table of the papers shown is made only once opened: it held back the map's first draw.
    assert [len(t.value) for t in app.dataframe] == [0] and app.expander[0].label == "The papers shown, as a table"
    with_table(app)
    assert len(app.dataframe) == 1 and len(app.dataframe[0].value) == 36
    app.multiselect(key="subfield").select(app.multiselect(key="subfield").options[0].rsplit(" (", 1)[0]).run()
    assert len(app.dataframe) == 1 and 0 < len(app.dataframe[0].value) < 36  # open it stays, following the filters
    assert "planted2025.json" in plain(app.get("caption")[0].value)


def test_a_long_table_under_the_map_is_capped_and_says_so(app_env, monkeypatch):
    # A corpus map would otherwise send every row (tens of megabytes); here the cap is set below the list's size.
    monkeypatch.setattr("lib.ui_state.map_view.TABLE_ROWS", 10)
    app = with_table(started())
    assert len(app.dataframe) == 1 and len(app.dataframe[0].value) == 10
    assert any("first 10 of 36 papers shown" in plain(c.value) for c in app.get("caption"))
    assert any("Download all 36" in b.proto.label for b in app.get("download_button"))
    figure = map_chart_data(app)["figure"]
    hover = [text for trace in figure["data"] if "customdata" in trace for text in trace["hovertext"]]
    abstracts = [record["abstract"][:40] for record in planted_records()]
    assert len(hover) == 36 and not any(
        abstract in text for text in hover for abstract in abstracts
    )  # hover never carries abstracts


def test_subfield_filter_changes_what_is_shown(app_env):
    app = started()
    subfield = app.multiselect(key="subfield").options[0]
    name = subfield.rsplit(" (", 1)[0]
    count = int(subfield.rsplit("(", 1)[1].rstrip(")"))
    app.multiselect(key="subfield").select(name).run()
    assert not app.exception
    assert f"{count} of 36 papers" in app.subheader[0].value
    assert map_points(app) == count < 36
    assert app.multiselect(key="subfield").value == [name]
    assert app.query_params["subfield"] in ([name], name)  # the view is in the URL, ready to share


def test_area_and_subfield_filters_combine_and_keep_the_map_as_backdrop(app_env):
    app = started()
    area = app.multiselect(key="area").options[0].rsplit(" (", 1)[0]
    app.multiselect(key="area").select(area).run()
    in_area = int(app.subheader[0].value.split(" of ")[0].split()[-1])
    assert 0 < in_area < 36 and map_points(app) == in_area
    figure = map_chart_data(app)["figure"]
    backdrop = [t for t in figure["data"] if t.get("name") == "filtered out"]
    assert len(backdrop) == 1 and array_length(backdrop[0]["x"]) == 36 - in_area
    offered = [o.rsplit(" (", 1)[0] for o in app.multiselect(key="subfield").options]
    assert (
        offered
        and sum(int(o.rsplit("(", 1)[1].rstrip(")")) for o in app.multiselect(key="subfield").options) == in_area
    )
    subfield = offered[-1]
    app.multiselect(key="subfield").select(subfield).run()
    assert not app.exception
    both = app.subheader[0].value if app.subheader else ""
    assert 0 < int(both.split(" of ")[0].split()[-1]) <= in_area  # a subfield of the chosen area: never empty
    # Switching to another area drops the subfield chosen in the first: it is no longer offered.
    other = app.multiselect(key="area").options[-1].rsplit(" (", 1)[0]
    app.multiselect(key="area").unselect(area).select(other).run()
    assert not app.exception
    still_offered = [o.rsplit(" (", 1)[0] for o in app.multiselect(key="subfield").options]
    assert subfield not in still_offered and app.multiselect(key="subfield").value == []


def test_filter_in_the_url_is_applied(app_env):
    app = started()
    name = app.multiselect(key="subfield").options[0].rsplit(" (", 1)[0]
    linked = started(subfield=name)
    assert linked.multiselect(key="subfield").value == [name]
    assert "of 36 papers" in linked.subheader[0].value and "36 of 36" not in linked.subheader[0].value


def test_colour_choice_regroups_the_map(app_env):
    app = started()
    app.selectbox(key="color").select("topic_label").run()
    figure = map_chart_data(app)["figure"]
    points = [trace for trace in figure["data"] if trace["type"] != "contour"]  # the topics' regions lie under them
    assert len(points) == len({*with_table(app).dataframe[0].value["topic"]})


def test_unreadable_data_is_one_clear_error_not_a_traceback(tmp_path, monkeypatch):
    broken = tmp_path / "broken.json"
    broken.write_text('[{"title": ')
    monkeypatch.setenv("PAPERMAP_DATA", str(broken))
    monkeypatch.setenv("PAPERMAP_CACHE", str(tmp_path / "cache"))
    app = AppTest.from_file(DASHBOARD, default_timeout=60).run()
    assert not app.exception
    assert (
        len(app.error) == 1
        and "broken.json" in plain(app.error[0].value)
        and "invalid JSON" in plain(app.error[0].value)
    )


def test_every_facet_filters_and_lives_in_the_url(app_env):
    app = started(keyword="differential privacy", status="Poster", author="lovelace")
    assert app.multiselect(key="keyword").value == ["differential privacy"]
    shown = int(app.subheader[0].value.split(" of ")[0].split()[-1])
    assert 0 < shown < 36 and map_points(app) == shown
    app.text_input(key="author").input("nobody by that name").run()
    assert not app.exception and any("No paper matches" in i.value for i in app.info)
    assert app.query_params["author"] in (["nobody by that name"], "nobody by that name")
    app.button[0].click().run()  # Clear filters
    assert "36 of 36" in app.subheader[0].value and "keyword" not in app.query_params


def test_the_sidebar_counts_each_facet_over_the_same_papers_once(app_env, monkeypatch):
    # A facet's offer (the whole map) and its counts (the other facets' papers) are one tally when
    # no other facet is chosen: on a map of 200,000 papers the second cost seconds at every open.
    from lib.ui_state import sidebar

    tallies = []
    count = sidebar.facet_counts
    monkeypatch.setattr(
        sidebar, "facet_counts", lambda papers, name: tallies.append((len(papers), name)) or count(papers, name)
    )
    app = started()
    assert len(tallies) == len(set(tallies)) and {n for n, _ in tallies} == {36} and (36, "keyword") in tallies
    tallies.clear()
    area = app.multiselect(key="area").options[0].rsplit(" (", 1)[0]
    app.multiselect(key="area").select(area).run()
    shown = int(app.subheader[0].value.split(" of ")[0].split()[-1])
    assert 0 < shown < 36 and (shown, "keyword") in tallies and len(tallies) == len(set(tallies))
    assert app.multiselect(key="keyword").options  # offered from the whole map, counted over the area's papers


def test_topic_facet_offers_coarse_and_fine_topics(app_env):
    app = started()
    options = [o.rsplit(" (", 1)[0] for o in app.multiselect(key="topic").options]
    coarse = [o for o in options if not o.endswith(FINE_MARK)]
    assert coarse and len(options) > len(coarse)
    app.multiselect(key="topic").select(coarse[0]).run()
    table = with_table(app).dataframe[0].value
    assert 0 < len(table) < 36 and set(table["topic"]) == {table["topic"].iloc[0]}


def test_a_new_colouring_changes_the_maps_figure_not_the_chart(app_env):
    # The same chart (its element id) takes the new figure, so the browser updates it in place.
    app = started()
    chart, figure = map_chart_element(app).proto.id, map_chart_data(app)
    app.selectbox(key="color").select("topic_label").run()
    assert map_chart_element(app).proto.id == chart
    assert map_chart_data(app)["revision"] != figure["revision"]
    assert map_chart_data(app)["figure"]["layout"]["legend"]["title"]["text"].strip() == "Topic"


def map_points_element(app):
    [points] = [c for c in app.get("bidi_component") if c.proto.component_name.endswith("papermap_map_points")]
    return points


def test_a_filter_sends_the_maps_papers_unchanged_and_a_figure_of_rows(app_env):
    # The papers' element is the same on every run, so Streamlit's message cache sends it to a
    # browser once; only the figure, which names papers by row, changes with a filter.
    app = started()
    points, figure = map_points_element(app).proto.bytes, map_chart_element(app).proto.json
    subfield = app.multiselect(key="subfield").options[0].rsplit(" (", 1)[0]
    app.multiselect(key="subfield").select(subfield).run()
    assert "36 of 36" not in app.subheader[0].value
    assert map_points_element(app).proto.bytes == points and map_chart_element(app).proto.json != figure
    shown = [t for t in map_chart_data(app)["figure"]["data"] if t.get("hovertemplate") and len(t["x"]) > 1]
    assert shown and all(title in read_points(points)["titles"] for t in shown for title in t["text"])
    ids = read_points(points)["ids"]
    assert not any(paper_id in map_chart_element(app).proto.json for paper_id in ids)  # no paper in the figure


def ring_of(app):
    """Where the map's script rings the open paper (its map x, y), or None."""
    return map_chart_data(app)["ring"]


def test_an_open_paper_from_the_url_is_ringed_on_the_map_and_can_be_closed(app_env):
    app = started(paper="privacy-3", color="topic_label", labels="none")
    figure = map_chart_data(app)["figure"]
    # The ring is drawn over the chart, so opening a paper leaves the figure, which the browser
    # then does not redraw.
    assert figure == map_chart_data(started(color="topic_label", labels="none"))["figure"]
    table = with_table(app).dataframe[0].value
    assert ring_of(app) is not None and not figure["layout"].get("annotations")
    assert app.selectbox(key="color").value == "topic_label"
    card = [m.value for m in app.markdown]
    assert any(plain(text).startswith("**On ") and "number 3" in plain(text) for text in card)
    app.button(key="close_paper").click().run()
    assert "paper" not in app.query_params and ring_of(app) is None
    assert map_chart_data(app)["figure"] == figure and len(table) == len(app.dataframe[0].value)
    stale = started(paper="no-such-paper")  # a stale link opens the map, not an error
    assert ring_of(stale) is None
