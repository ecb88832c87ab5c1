"""The data sets page under AppTest: listing, opening (`?data=`), uploading and fetching."""

import json
import re

import pytest
from conference_server import conference_server
from conftest import plain, planted_records, started
from local_server import closed_port_url

from lib.views.markup import markdown_literal

XSS_TITLE = "<img src=x onerror=alert(1)> **bold** [x](javascript:alert(1))"


@pytest.fixture
def env(tmp_path, monkeypatch):
    """36 planted papers given with --data; a data folder holding a 12-paper list; fetching refused."""
    given = tmp_path / "planted2025.json"
    given.write_text(json.dumps(planted_records()))
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "small2024.json").write_text(json.dumps(planted_records(per_topic=4, seed=1)))
    monkeypatch.setenv("PAPERMAP_DATA", str(given))
    monkeypatch.setenv("PAPERMAP_DATA_DIR", str(folder))
    monkeypatch.setenv("PAPERMAP_CACHE", str(tmp_path / "cache"))
    point_fetch_at(monkeypatch, closed_port_url().rsplit("/", 2)[0])
    return folder


def point_fetch_at(monkeypatch, base):
    """The fetch button's three sources, all at `base` (the layout of tests/conference_server.py)."""
    monkeypatch.setenv("PAPERMAP_VIRTUAL_SITE_URL", base)
    monkeypatch.setenv("PAPERMAP_OPENREVIEW_URL", f"{base}/openreview")
    monkeypatch.setenv("PAPERMAP_PAPERLISTS_URL", f"{base}/paperlists")


def on_data_sets_page(app):
    app.switch_page("app_pages/datasets.py").run()
    assert not app.exception, app.exception
    return app


def listed(app):
    return app.dataframe[0].value.to_dict("records")


def shown_papers(app):
    return app.subheader[0].value  # the map page's "Topic map: N of M papers"


def test_page_lists_the_data_sets_and_opening_one_maps_it_on_every_page(env):
    app = on_data_sets_page(started())
    rows = {r["name"]: r for r in listed(app)}
    assert list(rows) == ["planted2025.json", "icml2025_seed.txt", "small2024.json"]
    assert rows["planted2025.json"]["papers"] == 36 and rows["planted2025.json"]["built"]
    assert not rows["small2024.json"]["built"] and rows["small2024.json"]["size"].endswith("KB")
    assert app.selectbox(key="data_set_choice").value == "planted2025.json"  # the open one
    app.selectbox(key="data_set_choice").select("small2024.json")
    app.button(key="open_data_set").click().run()
    assert not app.exception, app.exception
    assert "12 of 12 papers" in shown_papers(app)
    assert app.query_params["data"] in ("small2024.json", ["small2024.json"])  # a link reopens it
    # A page switch drops the URL's query; the session keeps the data set.
    app.switch_page("app_pages/subfields.py").run()
    assert not app.exception and any(
        m.value.startswith("**12 of 12 papers**") for m in app.markdown
    )  # the sidebar's count
    rows = {r["name"]: r for r in listed(on_data_sets_page(app))}
    assert rows["small2024.json"]["papers"] == 12 and rows["small2024.json"]["built"]


def test_a_link_with_data_opens_that_set(env):
    app = started(data="small2024.json")
    assert "12 of 12 papers" in shown_papers(app) and not app.warning


def test_an_unknown_data_name_warns_once_and_maps_the_default(env):
    app = started(data="<img src=x onerror=alert(1)>")
    assert len(app.warning) == 1 and "36 of 36 papers" in shown_papers(app)
    warning = app.warning[0].value
    assert "no data set called `img-src-x-onerror-alert-1`" in warning and "<" not in warning
    assert app.query_params["data"] in ("planted2025.json", ["planted2025.json"])


def test_an_upload_is_saved_in_the_uploads_folder_offered_and_opened(env):
    app = on_data_sets_page(started())
    records = planted_records(per_topic=3, seed=2)
    records[0]["title"] = XSS_TITLE
    app.file_uploader(key="upload").upload("../../evil.txt", json.dumps(records).encode()).run()
    assert not app.exception and not app.error
    assert app.success[0].value.startswith("Saved as evil\\.json")
    assert [p.name for p in (env / "uploads").iterdir()] == ["evil.json"]
    assert not (env.parent / "evil.txt").exists() and not (env.parent / "evil.json").exists()
    assert "upload-evil.json" in [r["name"] for r in listed(app)]
    assert app.selectbox(key="data_set_choice").value == "upload-evil.json"  # offered straight away
    app.button(key="open_data_set").click().run()
    assert not app.exception, app.exception
    assert "9 of 9 papers" in shown_papers(app)
    app.session_state["shown_table-open"] = True  # the map's table of its papers, opened
    app.switch_page("app_pages/map.py").run()
    assert not app.exception, app.exception
    assert XSS_TITLE in set(app.dataframe[0].value["title"])  # a title stays text


def test_an_upload_that_is_not_a_paper_list_is_one_error_and_not_saved(env):
    app = on_data_sets_page(started())
    app.file_uploader(key="upload").upload("papers.json", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff").run()
    assert not app.exception
    assert len(app.error) == 1 and markdown_literal("not valid UTF-8") in app.error[0].value
    assert not (env / "uploads").exists()


def test_an_error_quoting_the_uploaded_text_shows_it_as_text(env):
    app = on_data_sets_page(started())
    app.file_uploader(key="upload").upload("x.json", b'{"[x](javascript:alert(1))": [], "<img src=x>": 1}').run()
    assert not app.exception and len(app.error) == 1
    shown = app.error[0].value
    assert "expected a JSON list" in shown
    # Escaped: displayed literally, never a link or a tag.
    assert "\\[x\\]\\(javascript" in shown and "](" not in shown and "\\<img" in shown


def test_fetch_offline_shows_one_sentence(env):
    app = on_data_sets_page(started())
    app.button(key="fetch").click().run()
    assert not app.exception
    assert len(app.error) == 1
    shown = app.error[0].value
    assert shown.startswith("Could not download ICML 2025 from any source") and "offline" in shown
    assert len(listed(app)) == 3


def test_fetch_gathers_the_conference_into_the_data_folder_and_offers_it(env, monkeypatch):
    with conference_server() as server:
        point_fetch_at(monkeypatch, server.base)
        app = on_data_sets_page(started())
        assert app.button(key="fetch").label == "Fetch ICML 2025"
        app.button(key="fetch").click().run()
    assert not app.exception and not app.error
    assert app.success[0].value.startswith("Saved 20 papers as icml2025\\.json")
    report = "\n".join(t.value for t in app.text)
    assert "virtual-site: 18 papers" in report and "matched across sources: 29 by OpenReview id" in report
    assert (env / "icml2025.json").is_file()
    assert "icml2025.json" in [r["name"] for r in listed(app)]
    assert app.selectbox(key="data_set_choice").value == "icml2025.json"


def test_another_conference_can_be_chosen(env):
    app = on_data_sets_page(started())
    app.selectbox(key="fetch_conference").select("neurips2025").run()
    assert app.button(key="fetch").label == "Fetch NeurIPS 2025"


def test_a_data_set_that_cannot_be_mapped_is_not_a_dead_end(env, monkeypatch):
    broken = env / "broken.json"
    broken.write_text('[{"title": ')
    app = started(data="broken.json")
    assert len(app.error) == 1 and "invalid JSON" in app.error[0].value
    assert not app.get("progress")  # the failed build's bar is gone, not stuck at its last step
    assert app.get("page_link")  # to the data sets page
    on_data_sets_page(app)
    assert len(app.error) == 1 and "broken.json" in [r["name"] for r in listed(app)]
    app.selectbox(key="data_set_choice").select("small2024.json")
    app.button(key="open_data_set").click().run()
    assert not app.exception and not app.error
    assert "12 of 12 papers" in shown_papers(app)


def test_an_upload_over_the_limit_is_one_error_with_both_sizes_and_not_saved(env, monkeypatch):
    import functools

    import lib.store.datasets
    import lib.ui_state.data_sets

    # A 2 KB limit stands in for the real 200 MB one, so the test holds no 200 MB in memory.
    monkeypatch.setattr(
        lib.ui_state.data_sets, "save_upload", functools.partial(lib.store.datasets.save_upload, max_bytes=2048)
    )
    app = on_data_sets_page(started())
    app.file_uploader(key="upload").upload("huge.json", json.dumps(planted_records()).encode()).run()
    assert not app.exception and len(app.error) == 1
    assert re.fullmatch(r"huge is \d+(\.\d)? KB; uploads are limited to 2 KB\.", plain(app.error[0].value)), app.error[
        0
    ].value
    assert not (env / "uploads").exists()
    app.file_uploader(key="upload").upload("justover.json", b" " * 2049).run()  # "2.0 KB" would not say why
    assert plain(app.error[0].value) == "justover is 2,049 bytes; uploads are limited to 2,048 bytes."


def test_under_a_members_rule_a_viewer_cannot_upload_or_fetch(env, monkeypatch):
    from lib.store.members import hash_passphrase

    monkeypatch.setenv("PAPERMAP_EDITOR_PASSPHRASE", hash_passphrase("reading group 2026"))
    app = on_data_sets_page(started())
    assert app.button(key="fetch").disabled and app.file_uploader(key="upload").disabled
    assert any("Only members can change this" in c.value for c in app.caption)
    assert len(listed(app)) >= 1  # viewing and opening the data sets stay open


def test_a_viewer_who_is_not_a_member_cannot_start_a_build(env, monkeypatch):
    """Building is minutes of the server's time: a viewer opens built maps only, by button or by link."""
    from lib.store.members import hash_passphrase

    app = on_data_sets_page(started())  # a member's first visit built the default map
    monkeypatch.setenv("PAPERMAP_EDITOR_PASSPHRASE", hash_passphrase("reading group 2026"))
    app.run()
    app.selectbox(key="data_set_choice").select("small2024.json").run()
    assert app.button(key="open_data_set").disabled  # not built: would start a build
    app.selectbox(key="data_set_choice").select("planted2025.json").run()
    assert not app.button(key="open_data_set").disabled  # built: opening it is viewing
    linked = started(data="small2024.json")
    assert not linked.exception and len(linked.error) == 1
    assert "The map of small2024.json is not built yet, and only members can start a build" in plain(
        linked.error[0].value
    )
    rows = {r["name"]: r for r in listed(on_data_sets_page(linked))}
    assert not rows["small2024.json"]["built"]


def test_data_sets_opened_together_make_one_map_of_their_editions(env):
    app = on_data_sets_page(started())
    app.selectbox(key="data_set_choice").select("small2024.json").run()
    together = app.multiselect(key="data_set_together")
    assert together.options == ["planted2025.json (--data)", "icml2025_seed.txt (embedded sample)"]  # not itself
    together.select("planted2025.json").run()
    app.button(key="open_data_set").click().run()
    assert not app.exception, app.exception
    assert "48 of 48 papers" in shown_papers(app)
    assert app.query_params["data"] in ("small2024.json", ["small2024.json"])
    assert app.query_params["with"] in ("planted2025.json", ["planted2025.json"])  # a link reopens both
    assert app.multiselect(key="edition").options == ["PLANTED 2025 (36)", "SMALL 2024 (12)"]
    # A page switch drops the URL's query; the session keeps both.
    app.switch_page("app_pages/topics.py").run()
    assert not app.exception and any(m.value.startswith("**48 of 48 papers**") for m in app.markdown)
    assert any("small2024" in c.value and "planted2025" in c.value for c in app.caption)  # the map of both


def test_a_link_maps_the_sets_it_names_together_and_warns_of_an_unknown_one(env):
    app = started(data="small2024.json", **{"with": ["planted2025.json", "<script>", "small2024.json"]})
    assert "48 of 48 papers" in shown_papers(app)
    assert len(app.warning) == 1 and "`script`" in app.warning[0].value and "<" not in app.warning[0].value
    assert app.query_params["with"] in ("planted2025.json", ["planted2025.json"])
