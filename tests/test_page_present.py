"""Presentation mode under AppTest: one paper per step, its place on the map, steps in the URL."""

import json
from contextlib import closing

from conftest import DASHBOARD, plain
from streamlit.testing.v1 import AppTest
from test_page_reading_lists import IMG, LINK, make_list

from lib.store import reading_lists as rl
from lib.views.markup import markdown_literal


def present(**query):
    app = AppTest.from_file(DASHBOARD, default_timeout=300).run()
    app.switch_page("pages/present.py")
    for key, value in query.items():
        app.query_params[key] = value
    app.run()
    assert not app.exception, app.exception
    return app


def highlighted_ids(app):
    figure = json.loads(app.get("plotly_chart")[0].proto.spec)
    ringed = [t for t in figure["data"] if t.get("name", "").startswith("this paper")]
    return [list(t["customdata"]) for t in ringed]


def test_steps_through_the_list_with_the_paper_highlighted_on_the_map(lists_db):
    make_list(lists_db, "Club", [IMG, "Second paper", LINK])  # paper ids privacy-0.. are on the planted map
    app = present(list="Club")
    assert app.title[0].value == markdown_literal(IMG)  # shows as text
    assert "Paper **1** of **3**" in [m.value for m in app.main.markdown]
    assert highlighted_ids(app) == [["privacy-0"]]
    previous, following = (
        next(b for b in app.button if b.proto.label.startswith(word)) for word in ("Previous", "Next")
    )
    assert previous.disabled and not following.disabled
    following.click().run()
    assert not app.exception
    assert app.query_params["step"] in ("2", ["2"]) and app.title[0].value == "Second paper"
    assert highlighted_ids(app) == [["privacy-1"]]
    texts = " ".join(m.value for m in app.main.markdown)
    assert f"**Keywords:** {markdown_literal('privacy budget, noise')}" in texts
    assert markdown_literal(LINK) in texts  # the abstract, inert


def test_step_in_the_url_is_clamped_and_presenter_and_note_show(lists_db):
    make_list(lists_db, "Club", ["First", "Last"])
    with closing(rl.connect(lists_db)) as db:
        last = rl.entries(db, "Club")[1]
        rl.update_entry(db, "Club", last.entry_id, presenter="Grace <b>", note="Focus on **section 3**")
    app = present(list="Club", step="99")
    assert app.title[0].value == "Last" and app.query_params["step"] in ("2", ["2"])
    texts = [m.value for m in app.main.markdown]
    assert (
        f"Presented by **{markdown_literal('Grace <b>')}**" in texts
        and f"_{markdown_literal('Focus on **section 3**')}_" in texts
    )
    assert next(b for b in app.button if b.proto.label.startswith("Next")).disabled
    make_list(lists_db, "Another", ["Opening paper", "Closing paper"], prefix="bandits")
    app.run().selectbox(key="list").select("Another").run()  # another list starts at its first paper
    assert app.title[0].value == "Opening paper" and app.query_params["step"] in ("1", ["1"])
    assert present(list="Club", step="junk").title[0].value == "First"


def test_a_paper_from_another_data_set_shows_its_snapshot_without_the_map(lists_db):
    make_list(lists_db, "Club", ["Elsewhere"], dataset="other2024.json", prefix="elsewhere")  # ids not on this map
    app = present(list="Club")
    assert app.title[0].value == "Elsewhere"
    assert not app.get("plotly_chart")
    assert plain(app.info[0].value).startswith("Not on this map") and "other2024.json" in plain(app.info[0].value)
    assert "An abstract" not in app.info[0].value and any(
        "Abstract with" in m.value for m in app.main.markdown
    )  # the snapshot


def test_no_lists_and_empty_list_say_what_to_do(lists_db):
    app = present()
    assert "No reading lists yet" in app.info[0].value
    make_list(lists_db, "Empty", [])
    app = present(list="Empty")
    assert "no papers yet" in app.info[0].value
