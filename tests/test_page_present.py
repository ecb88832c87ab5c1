"""Presentation mode under AppTest: one paper per step, its place on the map, steps in the URL."""

import base64
import json
import re
from contextlib import closing
from datetime import date

import numpy as np
import pytest
from conftest import DASHBOARD, plain
from streamlit.testing.v1 import AppTest
from test_page_reading_lists import IMG, LINK, make_list, rows

from lib.store import reading_lists as rl
from lib.ui_state import new_presses
from lib.views.markup import markdown_literal


def present(**query):
    app = AppTest.from_file(DASHBOARD, default_timeout=300).run()
    app.switch_page("app_pages/present.py")
    for key, value in query.items():
        app.query_params[key] = value
    app.run()
    assert not app.exception, app.exception
    return app


def map_places(app):
    """Paper id -> (across, down): each paper's place on the slide's map as shares of its plotting
    area, read from the chart's own figure (its traces' points, its axes' fixed ranges)."""
    figure = json.loads(app.get("plotly_chart")[0].proto.spec)
    (x0, x1), (y0, y1) = figure["layout"]["xaxis"]["range"], figure["layout"]["yaxis"]["range"]
    assert "scaleanchor" not in figure["layout"]["yaxis"]  # else Plotly widens a range and the ring misses

    def values(array):  # plotly writes numpy arrays as base64 typed arrays
        if isinstance(array, dict):
            return np.frombuffer(base64.b64decode(array["bdata"]), dtype=np.dtype(array["dtype"])).tolist()
        return list(array)

    places = {}
    for trace in figure["data"]:
        if "customdata" in trace:
            for paper, x, y in zip(values(trace["customdata"]), values(trace["x"]), values(trace["y"])):
                places[paper] = ((x - x0) / (x1 - x0), (y1 - y) / (y1 - y0))
    return places


def ring(app):
    """(across, down) of the ring over the map, from its style; None without one."""
    found = [h.proto.body for h in app.get("html") if 'class="slide-ring"' in h.proto.body]
    if not found:
        return None
    (across, down) = re.findall(r"\+ ([0-9.]+) \* \(100%", found[0])
    return float(across), float(down)


def ringed(app):
    """The paper the ring is on: the map's paper nearest it (within a thousandth of the map)."""
    at = ring(app)
    nearest = min(map_places(app).items(), key=lambda item: abs(item[1][0] - at[0]) + abs(item[1][1] - at[1]))
    assert nearest[1] == pytest.approx(at, abs=1e-3)
    return nearest[0]


def backdrop_spec(app):
    return app.get("plotly_chart")[0].proto.spec


def test_steps_through_the_list_with_the_paper_highlighted_on_the_map(lists_db):
    make_list(lists_db, "Club", [IMG, "Second paper", LINK])  # paper ids privacy-0.. are on the planted map
    app = present(list="Club")
    assert app.title[0].value == markdown_literal(IMG)  # shows as text
    assert "Paper **1** of **3**" in [m.value for m in app.main.markdown]
    assert ringed(app) == "privacy-0"
    map_before = backdrop_spec(app)
    previous, following = (
        next(b for b in app.button if b.proto.label.startswith(word)) for word in ("Previous", "Next")
    )
    assert previous.disabled and not following.disabled
    following.click().run()
    assert not app.exception
    assert app.query_params["step"] in ("2", ["2"]) and app.title[0].value == "Second paper"
    assert ringed(app) == "privacy-1"
    assert backdrop_spec(app) == map_before  # the same figure: the browser keeps the map drawn, the ring moves
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
    assert not app.get("plotly_chart") and ring(app) is None
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


def test_authors_read_in_the_main_text_not_a_grey_caption_and_a_long_list_is_cut(lists_db):
    make_list(lists_db, "Club", ["Two authors"])
    many = rows(["Twelve authors"], prefix="privacy").assign(authors=[[f"Author {i}" for i in range(12)]])
    with closing(rl.connect(lists_db)) as db:
        rl.add_papers(db, "Club", many.assign(paper_id="privacy-1"), "planted2025.json")
    app = present(list="Club")
    assert not app.caption  # st.caption is light grey and small: unreadable from the back of a room
    texts = [m.value for m in app.main.markdown]
    assert markdown_literal("Ada Lovelace, Alan Turing · ICML 2025") in texts
    app = present(list="Club", step="2")
    texts = [m.value for m in app.main.markdown]
    assert markdown_literal(", ".join(f"Author {i}" for i in range(8)) + " et al. · ICML 2025") in texts


def test_the_session_keeps_the_step_when_a_run_starts_from_a_url_not_yet_updated(lists_db):
    # A press that arrives while a step is on its way carries the URL the browser had before it.
    make_list(lists_db, "Club", ["First", "Second", "Third"])
    app = present(list="Club")
    next(b for b in app.button if b.proto.label.startswith("Next")).click().run()
    app.query_params["step"] = "1"  # the browser's URL, one step behind
    next(b for b in app.button if b.proto.label.startswith("Next")).click().run()
    assert app.title[0].value == "Third" and app.query_params["step"] in ("3", ["3"])


def test_presses_count_from_the_last_applied_total_and_from_nothing_after_a_reload():
    assert new_presses(None, None) == 0
    assert new_presses({"epoch": "a", "net": 5}, None) == 5  # five presses before the first run saw any
    assert new_presses({"epoch": "a", "net": 5}, {"epoch": "a", "net": 2}) == 3
    assert new_presses({"epoch": "a", "net": 1}, {"epoch": "a", "net": 3}) == -2  # two Lefts
    assert new_presses({"epoch": "b", "net": 1}, {"epoch": "a", "net": 7}) == 1  # a new page load counts anew


def test_the_present_page_moves_a_presented_paper_on_into_the_rota(lists_db):
    make_list(lists_db, "Club", ["First", "Second"])
    app = present(list="Club", step="1")
    mark = next(b for b in app.button if b.proto.label == "Mark presented")
    mark.click().run()
    assert not app.exception
    with closing(rl.connect(lists_db)) as db:
        first = rl.entries(db, "Club")[0]
    assert first.status == "presented" and first.meeting_date == date.today().isoformat()
    next(b for b in app.button if b.proto.label == "Mark discussed").click().run()
    with closing(rl.connect(lists_db)) as db:
        discussed = rl.entries(db, "Club")[0]
    assert (discussed.status, discussed.meeting_date) == ("discussed", first.meeting_date)  # when it was presented
    assert not [b for b in app.button if b.proto.label.startswith("Mark ")]  # discussed: nothing further
