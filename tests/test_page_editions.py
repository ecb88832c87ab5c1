"""A map of two editions under AppTest: the Topics page says what changed between them, the sidebar
filters by edition, and the map can be coloured by it; a map of one edition shows none of this."""

import json

import pytest
from conftest import app_env_with, map_chart_data, planted_records, started

PER_TOPIC = 64  # each edition past the 60 papers a filter must show for its labels to follow its own topics


@pytest.fixture(scope="module")
def app_env(tmp_path_factory):
    """The planted list as two years of one conference: the privacy papers all but one in 2025
    (a topic that grew), the others split evenly."""
    folder = tmp_path_factory.mktemp("editions")
    records = planted_records(per_topic=PER_TOPIC)
    for i, record in enumerate(records):
        privacy = record["id"].startswith("privacy")
        record["venue"] = (
            "CONF 2025" if (privacy and not record["id"].endswith("-0")) or (not privacy and i % 2) else "CONF 2024"
        )
    # A 2024 paper given again in 2025 under another id: the same paper in two editions.
    records.append({**records[2 * PER_TOPIC], "id": "again-in-2025", "venue": "CONF 2025"})
    return app_env_with(folder, "conf.json", records)


def test_the_topics_page_says_what_changed_between_the_editions(env):
    app = started()
    app.switch_page("app_pages/topics.py").run()
    assert not app.exception, app.exception
    assert any(m.value == "#### What changed from CONF 2024 to CONF 2025" for m in app.markdown)
    [changes] = [frame.value for frame in app.dataframe if "Change" in frame.value.columns]
    assert {"CONF 2024", "CONF 2025", "Share", "Growth", "q", "Phrases whose use grew", "Newest papers"} <= set(changes)
    # The most grown is a privacy topic, absent or nearly in 2024.
    grown = changes.iloc[0]
    assert grown["Change"] in ("new", "grew") and grown["CONF 2024"] <= 1 and "privacy" in grown["Topic"].lower()


def test_the_sidebar_filters_by_edition_and_the_map_colours_by_it(env):
    app = started(edition="CONF 2024")
    assert app.multiselect(key="edition").value == ["CONF 2024"]
    records = planted_records(per_topic=PER_TOPIC)  # the fixture's, but for the copy (2025)
    in_2024 = sum(1 for i, r in enumerate(records) if not r["id"].startswith("privacy") and not i % 2) + 1
    assert any(m.value.startswith(f"**{in_2024} of {len(records) + 1} papers**") for m in app.markdown)
    colour = app.selectbox(key="color")
    assert "Edition" in colour.options
    colour.select("edition").run()
    assert not app.exception, app.exception
    figure = map_chart_data(app)["figure"]
    assert figure["layout"]["legend"]["title"]["text"].startswith("Edition")
    names = {trace["name"] for trace in figure["data"] if trace.get("showlegend") is not False}
    assert f"CONF 2024 ({in_2024})" in names and not any(name.startswith("CONF 2025") for name in names)


def test_a_map_of_one_edition_offers_no_edition_facet_nor_changes(tmp_path, monkeypatch):
    data = tmp_path / "conf2025.json"
    data.write_text(json.dumps(planted_records(per_topic=6)))
    monkeypatch.setenv("PAPERMAP_DATA", str(data))
    monkeypatch.setenv("PAPERMAP_CACHE", str(tmp_path / "cache"))
    app = started()
    assert "edition" not in [widget.key for widget in app.multiselect]
    assert "edition_step" not in [widget.key for widget in app.select_slider]
    assert "Edition" not in app.selectbox(key="color").options
    app.switch_page("app_pages/topics.py").run()
    assert not any("What changed" in m.value for m in app.markdown)


def test_stepping_through_the_editions_filters_to_each_on_a_map_kept_still(env):
    app = started()
    step = app.select_slider(key="edition_step")
    assert step.options == ["All", "CONF 2024", "CONF 2025"] and step.value == "All"
    whole = map_chart_data(app)["figure"]["layout"]
    step.set_value("CONF 2024").run()  # a privacy topic has 1 paper in 2024: a filter alone would drop its label
    assert not app.exception, app.exception
    assert app.multiselect(key="edition").value == ["CONF 2024"]
    stepped = map_chart_data(app)["figure"]["layout"]
    assert stepped["xaxis"]["range"] == whole["xaxis"]["range"] and stepped["uirevision"] == whole["uirevision"]
    assert stepped["annotations"] == whole["annotations"]  # the map's labels, where they were

    def region_alphas(figure):
        return {
            trace["name"]: float(trace["colorscale"][1][1].rsplit(",", 1)[1].rstrip(")"))
            for trace in figure["data"]
            if trace["type"] == "contour"
        }

    # The privacy topics, nearly absent in 2024, fade; others, a larger share of 2024 than of the map, light up.
    before, after = region_alphas(map_chart_data(started())["figure"]), region_alphas(map_chart_data(app)["figure"])
    assert len(set(before.values())) == 1 and before.keys() == after.keys()
    faded = {name for name in after if after[name] < before[name]}
    assert any("privacy" in name.lower() for name in faded) and any(after[name] > before[name] for name in after)
    # A filter set by hand moves the slider with it; clearing it steps back to all.
    app.multiselect(key="edition").set_value(["CONF 2025"]).run()
    assert app.select_slider(key="edition_step").value == "CONF 2025"
    app.select_slider(key="edition_step").set_value("All").run()
    assert app.multiselect(key="edition").value == []


def test_the_new_topics_newest_papers_go_into_a_list_to_present(env, tmp_path, monkeypatch):
    from contextlib import closing

    from lib.store import reading_lists

    monkeypatch.setenv("PAPERMAP_DB", str(tmp_path / "lists.sqlite"))
    app = started()
    app.switch_page("app_pages/topics.py").run()
    assert not app.exception, app.exception
    newest = next(frame.value for frame in app.dataframe if "title" in frame.value.columns)  # the first paper table
    assert len(newest) >= 3 and "privacy" in newest["title"].iloc[0].lower() + newest["topic"].iloc[0].lower()
    app.text_input(key="newest-papers-new-name").input("New in 2025").run()
    app.button(key="newest-papers-add").click().run()
    assert not app.exception and not app.error
    with closing(reading_lists.connect(tmp_path / "lists.sqlite")) as db:
        entries = reading_lists.entries(db, "New in 2025")
    assert len(entries) == len(newest) and all(entry.paper_id.startswith("privacy") for entry in entries[:3])
    app.switch_page("app_pages/present.py").run()
    assert not app.exception, app.exception


def test_a_paper_in_two_editions_links_to_its_other_copy(env):
    first = planted_records(per_topic=PER_TOPIC)[2 * PER_TOPIC]["id"]
    app = started(paper=first)
    app.switch_page("app_pages/paper.py").run()
    assert not app.exception, app.exception
    [copy] = [button for button in app.button if button.key and button.key.startswith("same-paper-")]
    assert copy.key == "same-paper-again-in-2025" and copy.label.startswith("CONF 2025: ")
    copy.click().run()
    assert not app.exception and app.query_params["paper"] in ("again-in-2025", ["again-in-2025"])
    assert [button.key for button in app.button if button.key and button.key.startswith("same-paper-")] == [
        f"same-paper-{first}"
    ]
