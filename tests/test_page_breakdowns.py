"""The topics and subfields pages under AppTest, on the planted list (with primary areas) plus hostile records."""

import base64
import json

import numpy as np
import pytest
from conftest import app_env_with, plain, planted_records, started

from lib.paths import DEFAULT_TAXONOMY
from lib.stages.taxonomy import load_taxonomy
from lib.views.filters import FINE_MARK

HOSTILE_TITLE = "<img src=x onerror=alert(1)>"
HOSTILE_MARKDOWN = "**bold** [x](javascript:alert(1))"


@pytest.fixture(scope="module")
def app_env(tmp_path_factory):
    folder = tmp_path_factory.mktemp("breakdown_pages")
    records = planted_records()
    records[0]["title"] = HOSTILE_TITLE
    records[1]["title"] = HOSTILE_MARKDOWN
    return app_env_with(folder, "planted2025.json", records)


def opened(page, **query):
    app = started(**query)
    app.switch_page(page).run()
    assert not app.exception, app.exception
    return app


def charts(app):
    return [json.loads(chart.proto.spec) for chart in app.get("plotly_chart")]


def all_text(app):
    """Every Markdown, caption and subheader string the page shows, as written (escapes included)."""
    return [e.value for kind in ("markdown", "caption", "subheader") for e in app.get(kind)]


def numbers(values):
    """A Plotly JSON array as a list: plain, or a base64 typed array."""
    if isinstance(values, dict):
        return np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"]).tolist()
    return list(values)


def tables(app, column):
    """The page's tables that have `column`, in page order (read-only tables carry no key in AppTest)."""
    return [frame.value for frame in app.dataframe if column in frame.value.columns]


def map_count(app):
    """The map page's "Topic map: N of M papers" as N."""
    heading = next(s.value for s in app.subheader if s.value.startswith("Topic map"))
    return int(heading.split(": ")[1].split(" of ")[0].replace(",", ""))


def test_topics_page_shows_sizes_every_topic_and_one_in_detail(env):
    app = opened("app_pages/topics.py")
    table = tables(app, "keyphrases")[0]
    assert table["papers"].sum() == 36 and len(table) >= 3
    sizes = charts(app)[0]["data"]
    assert len(sizes) == 1 and len(sizes[0]["y"]) == len(table)  # one bar per topic, nothing filtered out
    assert any(m.value.startswith("**Why this label.**") for m in app.markdown)
    assert any("**Subfields:**" in m.value for m in app.markdown) and any(
        "**Statuses:**" in m.value for m in app.markdown
    )
    assert any("Neighbouring topics" in m.value for m in app.markdown)
    keywords = tables(app, "lift")[0]
    assert len(keywords) and (keywords["lift"] >= 1).all()
    assert 1 <= len(tables(app, "title")[0]) <= 5
    assert app.button(key="show_topic_on_map")


def test_topics_page_switches_level_and_topic(env):
    app = opened("app_pages/topics.py")
    coarse = tables(app, "keyphrases")[0]
    app.radio(key="topic_level").set_value("fine").run()
    assert not app.exception
    fine = tables(app, "keyphrases")[0]
    assert len(fine) > len(coarse) and fine["papers"].sum() == 36
    assert set(fine["within"]) <= set(coarse["topic"])  # each fine topic lies inside a coarse one
    detail = app.selectbox(key="topic_detail_fine")
    last = detail.options[-1]
    topic_id = next(
        str(t) for t in range(100) if detail.format_func(str(t)) == last
    )  # options show labels; values are topic ids
    detail.set_value(topic_id).run()
    assert not app.exception
    heading = next(m.value for m in app.markdown if m.value.startswith("### "))
    assert plain(heading[4:]) in last


def test_topics_page_respects_the_sidebar_filters(env):
    app = opened("app_pages/topics.py", primary_area="privacy")
    table = tables(app, "keyphrases")[0]
    assert table["in view"].sum() == 12 and table["papers"].sum() < 36
    sizes = charts(app)[0]
    assert [t["name"] for t in sizes["data"]] == ["in view", "filtered out"]  # whole topics, split by the filters
    members = tables(app, "title")[1]
    assert 0 < len(members) <= 12


def test_show_on_map_opens_the_map_filtered_to_the_topic_keeping_other_filters(env):
    app = opened("app_pages/topics.py", status="Poster")
    detail = app.selectbox(key="topic_detail_coarse")
    label, size = detail.format_func(detail.value).rsplit(" (", 1)
    app.button(key="show_topic_on_map").click().run()
    assert not app.exception
    assert map_count(app) == int(size.split()[0]) < 36
    assert app.multiselect(key="topic").value == [label] and app.query_params["topic"] in ([label], label)
    assert app.multiselect(key="status").value == ["Poster"]


def test_subfields_page_shows_the_declared_areas_and_how_the_classifier_agrees(env):
    app = opened("app_pages/subfields.py")
    bars, subfield_cells = charts(app)  # the primary-area table would repeat the subfield one: not shown
    assert sum(numbers(bars["data"][0]["x"])) == 36
    heatmap, clickable = subfield_cells["data"]
    assert heatmap["type"] == "heatmap" and sum(c[2] for c in clickable["customdata"]) == 36
    assert {c[0] for c in clickable["customdata"]} == {"Privacy", "Diffusion", "Bandits"}  # as the list declares them
    agreement = tables(app, "other_pick")[0]
    assert list(agreement["area"])[-1] == "All areas" and list(agreement["papers"]) == [12, 12, 12, 36]
    assert agreement["agreeing"].iloc[-1] == agreement["agreeing"].iloc[:-1].sum()
    sentence = next(plain(c) for c in all_text(app) if plain(c).startswith("The classifier, which never sees"))
    assert (
        f"{agreement['agreeing'].iloc[-1]} of the 36 papers" in sentence
        and "largest area would agree on 33%" in sentence
    )


def test_subfields_page_counts_only_papers_passing_the_filters(env):
    app = opened("app_pages/subfields.py", primary_area="bandits")
    bars, subfield_cells = charts(app)
    assert sum(numbers(bars["data"][0]["x"])) == 12
    assert sum(c[2] for c in subfield_cells["data"][1]["customdata"]) == 12
    assert "12 of 36 papers" in app.subheader[0].value
    assert list(tables(app, "other_pick")[0]["papers"]) == [12, 12]  # the one area in view, and all


def test_clicking_a_cell_opens_the_map_filtered_to_its_row_and_topic(env):
    app = opened("app_pages/subfields.py")
    cells = charts(app)[1]["data"][1]["customdata"]
    subfield, topic, count = max(cells, key=lambda c: c[2])
    app.session_state["cross_subfield"] = {
        "selection": {
            "points": [{"customdata": [subfield, topic, count]}],
            "point_indices": [0],
            "box": [],
            "lasso": [],
        }
    }
    app.run()
    assert not app.exception
    assert map_count(app) == count
    assert app.multiselect(key="subfield").value == [subfield] and app.multiselect(key="topic").value == [topic]


def test_a_list_that_mostly_declares_no_area_is_filed_by_the_classifier(tmp_path, monkeypatch):
    records = planted_records()
    for n, record in enumerate(records):
        if n % 3:
            record["primary_area"] = ""  # a third declare one: too few to be the map's subfields
    data = tmp_path / "few_declared2025.json"
    data.write_text(json.dumps(records))
    monkeypatch.setenv("PAPERMAP_DATA", str(data))
    monkeypatch.setenv("PAPERMAP_CACHE", str(tmp_path / "cache"))
    app = opened("app_pages/subfields.py")
    bars, subfield_cells, area_cells = charts(app)
    assert {c[0] for c in area_cells["data"][1]["customdata"]} == {"privacy", "diffusion", "bandits"}
    assert sum(c[2] for c in area_cells["data"][1]["customdata"]) == 12
    assert not tables(app, "other_pick") and not any(plain(c).startswith("The classifier") for c in all_text(app))
    subfields = {c[0] for c in subfield_cells["data"][1]["customdata"]}
    assert subfields <= {e.name for e in load_taxonomy(DEFAULT_TAXONOMY).entries}  # the taxonomy's, not declared


def test_clicking_a_bar_opens_the_map_filtered_to_its_subfield(env):
    app = opened("app_pages/subfields.py")
    bars = charts(app)[0]["data"][0]
    subfield, count = bars["customdata"][-1], numbers(bars["x"])[-1]  # the top bar
    app.session_state["subfield_bars"] = {
        "selection": {"points": [{"customdata": subfield}], "point_indices": [0], "box": [], "lasso": []}
    }
    app.run()
    assert not app.exception
    assert map_count(app) == count and app.multiselect(key="subfield").value == [subfield]


def test_hostile_titles_and_labels_show_as_text(env):
    for page in ("app_pages/topics.py", "app_pages/subfields.py"):
        app = opened(page, topic_level="fine")
        for text in all_text(app):
            assert "<img" not in text.replace("\\<img", "")  # only ever escaped
            assert "](javascript" not in text.replace("\\]\\(javascript", "")
        for chart in app.get("plotly_chart"):
            spec = json.loads(chart.proto.spec)
            for trace in spec["data"]:
                trace.pop("customdata", None)
            assert HOSTILE_TITLE not in json.dumps(spec)


def test_hostile_titles_are_plain_table_cells(env):
    app = opened("app_pages/topics.py")
    detail = app.selectbox(key="topic_detail_coarse")
    ids = [str(t) for t in range(len(detail.options) + 5) if detail.format_func(str(t)) in detail.options]
    titles = []
    for topic_id in ids:
        app.selectbox(key="topic_detail_coarse").set_value(topic_id).run()
        assert not app.exception
        titles += list(tables(app, "title")[1]["title"])  # the topic's papers
    assert HOSTILE_TITLE in titles and HOSTILE_MARKDOWN in titles  # shown as the text it is


def test_clicking_a_topic_bar_opens_the_map_filtered_to_that_fine_topic(env):
    app = opened("app_pages/topics.py", topic_level="fine")
    bars = charts(app)[0]["data"][0]
    label, count = bars["customdata"][-1], numbers(bars["x"])[-1]  # the largest fine topic, drawn on top
    app.session_state["topic_sizes"] = {
        "selection": {"points": [{"customdata": label}], "point_indices": [0], "box": [], "lasso": []}
    }
    app.run()
    assert not app.exception
    assert map_count(app) == count and app.multiselect(key="topic").value == [f"{label}{FINE_MARK}"]


def test_the_topics_page_shows_the_summaries_the_build_wrote_counting_no_phrase(tmp_path, monkeypatch):
    # Counting every paper's phrases is the slow part over a corpus (a minute at 87,690 abstracts):
    # the build does it for the labels and writes the summaries; the page only reads them.
    data = tmp_path / "planted2025.json"  # a new list: nothing of it in Streamlit's caches yet
    data.write_text(json.dumps(planted_records()))
    monkeypatch.setenv("PAPERMAP_DATA", str(data))
    monkeypatch.setenv("PAPERMAP_CACHE", str(tmp_path / "cache"))
    app = started()  # builds the map

    def counted(*args, **kwargs):
        raise AssertionError("a page counted the papers' phrases")

    def not_again(*args, **kwargs):
        raise AssertionError("the breakdown summarised the topics again")

    monkeypatch.setattr("lib.stages.topic_labels.PhraseUse.__init__", counted)
    monkeypatch.setattr("lib.views.breakdowns.topic_summaries", not_again)
    app.switch_page("app_pages/topics.py").run()
    assert not app.exception, app.exception
    assert any("Representative papers" in plain(m.value) for m in app.markdown)
    app.radio(key="topic_level").set_value("fine").run()
    assert not app.exception, app.exception
    assert any("Representative papers" in plain(m.value) for m in app.markdown)
