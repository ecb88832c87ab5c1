"""The Papers for me page under AppTest: a pasted or uploaded profile ranks the map, rings it and saves as a list."""

from contextlib import closing

from conftest import DASHBOARD, plain
from streamlit.testing.v1 import AppTest

from lib.store import reading_lists as rl

BANDITS = "My bandits paper\nmulti-armed bandits regret bound exploration upper confidence bound"
BIB = b"""@inproceedings{mine2024,
  title = {Private {M}echanisms with a {\\"u}ber {B}udget},
  abstract = {differential privacy privacy budget private mechanism membership inference noise calibration},
}
@misc{untitled, year = 2020}
"""


def for_me_page():
    app = AppTest.from_file(DASHBOARD, default_timeout=300)
    app.run()  # builds the map on the default page first
    app.switch_page("app_pages/for_me.py").run()
    assert not app.exception, app.exception
    return app


def rank(app, text="", upload=None):
    if text:
        app.text_area(key="profile_text").input(text)
    if upload is not None:
        app.file_uploader(key="profile_file").set_value(upload)
    app.button(key="rank_profile").click().run()
    assert not app.exception, app.exception
    return app


def ranked_table(app):
    return app.dataframe[0].value if app.dataframe else None


def stored(path, name):
    with closing(rl.connect(path)) as db:
        return [e.paper_id for e in rl.entries(db, name)]


def test_before_ranking_the_page_says_what_to_do(lists_db):
    app = for_me_page()
    assert "press **Rank papers**" in app.info[0].value
    assert not app.get("plotly_chart") and ranked_table(app) is None


def test_a_pasted_profile_ranks_and_rings_its_topic(lists_db):
    app = rank(for_me_page(), BANDITS)
    table = ranked_table(app)
    assert list(table["rank"]) == list(range(1, 21))  # 20 by default
    papers = app.session_state["papermap_view"].papers
    ids = [dict(zip(papers["title"], papers["paper_id"]))[t] for t in table["title"]]
    assert all(i.startswith("bandits-") for i in ids[:12])  # the planted topic the profile is written in
    assert set(table["nearest"]) == {"My bandits paper"}
    assert table["similarity"].is_monotonic_decreasing
    [chart] = app.get("plotly_chart")
    assert '"nearest your papers (20)"' in chart.proto.spec
    assert any("20 papers in view nearest your 1 paper" in plain(c.value) for c in app.caption)
    app.number_input(key="profile_top").set_value(10).run()
    assert list(ranked_table(app)["rank"]) == list(range(1, 11))  # the kept profile is ranked again, no new click


def test_an_uploaded_bibtex_ranks_by_its_entries_and_reports_the_skipped_one(lists_db):
    app = rank(for_me_page(), upload=("mine.bib", BIB, "application/x-bibtex"))
    table = ranked_table(app)
    assert set(table["nearest"]) == {"Private Mechanisms with a über Budget"}
    [expander] = app.expander
    assert expander.label == "1 of your records were left out"
    assert "mine.bib: @misc entry untitled (line 5): has no title" in plain(expander.markdown[0].value)


def test_a_malformed_upload_is_one_sentence_naming_file_and_entry(lists_db):
    bad = ("broken.bib", b"@article{half, title = {Never closed", "application/x-bibtex")
    app = rank(for_me_page(), BANDITS, upload=bad)
    assert len(app.error) == 1
    assert plain(app.error[0].value).startswith("broken.bib: entry half (line 1): the '{' of field 'title'")
    assert ranked_table(app) is None


def test_an_own_paper_on_the_map_is_left_out_and_ringed(lists_db):
    app = for_me_page()
    papers = app.session_state["papermap_view"].papers
    title = papers.loc[papers["paper_id"] == "diffusion-4", "title"].iloc[0]
    app = rank(app, title)
    assert title not in set(ranked_table(app)["title"])
    assert any("1 of the map's papers is yours by title" in plain(c.value) for c in app.caption)
    assert '"your papers (1)"' in app.get("plotly_chart")[0].proto.spec


def test_saving_the_ranking_makes_a_reading_list_in_rank_order(lists_db):
    app = rank(for_me_page(), BANDITS)
    table = ranked_table(app)
    papers = app.session_state["papermap_view"].papers
    ids_by_title = dict(zip(papers["title"], papers["paper_id"]))
    assert app.text_input(key="for-me-new-name").value == "Papers for me"
    app.button(key="for-me-add").click().run()
    assert not app.exception and not app.error
    assert app.success[0].value == "Added 20 papers to Papers for me."
    assert stored(lists_db, "Papers for me") == [ids_by_title[t] for t in table["title"]]


def test_nothing_pasted_is_written_to_disk(lists_db, planted_module_data):
    marker = "quixotic zephyr profile marker"
    app = rank(for_me_page(), f"{marker}\nmulti-armed bandits regret bound")
    assert ranked_table(app) is not None
    folders = [planted_module_data.parent, lists_db.parent]
    files = [p for folder in folders for p in folder.rglob("*") if p.is_file()]
    assert files and not [p for p in files if marker.encode() in p.read_bytes()]


def test_an_empty_profile_says_so(lists_db):
    app = rank(for_me_page(), "   ")
    assert "No paper to rank by" in app.warning[0].value
