"""The paper page under AppTest: details, similar papers that open their own page, inert data text."""

import json

import pytest
from conftest import DASHBOARD, plain, planted_records
from streamlit.testing.v1 import AppTest

HOSTILE_TITLE = "<img src=x onerror=alert(1)>"
HOSTILE_ABSTRACT = "**bold** [y](javascript:alert(1)) differential privacy budget private mechanism noise"


@pytest.fixture
def app_env(tmp_path, monkeypatch):
    records = planted_records()
    records[0].update(
        title=HOSTILE_TITLE,
        abstract=HOSTILE_ABSTRACT + " " + records[0]["abstract"],
        site="javascript:alert(1)",
        author="**Eve** [x](javascript:alert(1))",
    )
    data = tmp_path / "planted2025.json"
    data.write_text(json.dumps(records))
    monkeypatch.setenv("PAPERMAP_DATA", str(data))
    monkeypatch.setenv("PAPERMAP_CACHE", str(tmp_path / "cache"))
    return records


def paper_page(paper=None):
    app = AppTest.from_file(DASHBOARD, default_timeout=300)
    app.run()  # builds the map on the default page first
    app.switch_page("app_pages/paper.py")
    if paper is not None:
        app.query_params["paper"] = paper
    app.run()
    assert not app.exception, app.exception
    return app


def similar_buttons(app, key="similar"):
    return [b for b in app.button if str(b.key).startswith(f"{key}-")]


def rendered_text(app):
    parts = [e.value for kind in ("markdown", "subheader", "caption", "warning", "info") for e in app.get(kind)]
    return "\n".join(parts + [b.label for b in app.button])


def test_a_paper_shows_its_details_and_ten_similar_papers_of_its_topic(app_env):
    app = paper_page("privacy-3")
    assert app.selectbox(key="paper_choice").value == "privacy-3"
    assert app.subheader[0].value.startswith("On ")
    facts = rendered_text(app)
    for label in ("Published", "Subfield", "Area", "Topic", "Keywords", "Primary area"):
        assert f"**{label}:**" in facts
    # Planted papers declare their area: the page says so rather than give a score (Markdown-escaped).
    assert "Privacy \\(declared by the venue\\)" in facts and "Abstract" in facts
    assert [button.proto.url for button in app.get("link_button")] == ["https://example.org/privacy/3"]
    buttons = similar_buttons(app)
    assert len(buttons) == 10 and "similar-privacy-3" not in [b.key for b in buttons]
    assert all(b.key.startswith("similar-privacy-") for b in buttons)  # planted neighbours are its own topic
    # Each says why: the keyphrases it shares and the terms its cosine rests on (a TF-IDF map).
    reasons = [plain(c.value) for c in app.caption if "similarity 0." in plain(c.value)]
    assert len(reasons) >= 10 and all("rests on " in r for r in reasons[:10])
    assert len([c for c in app.caption if "similarity" in c.value]) == 10


def test_clicking_a_similar_paper_opens_its_page_and_updates_the_url(app_env):
    app = paper_page("bandits-0")
    target = similar_buttons(app)[0]
    target_id = target.key.removeprefix("similar-")
    target.click().run()
    assert not app.exception
    assert app.query_params["paper"] in (target_id, [target_id])
    assert app.selectbox(key="paper_choice").value == target_id
    assert target_id not in [b.key.removeprefix("similar-") for b in similar_buttons(app)]


def test_choosing_a_paper_in_the_picker_puts_it_in_the_url(app_env):
    app = paper_page()
    assert app.info and not similar_buttons(app)
    app.selectbox(key="paper_choice").set_value("diffusion-5").run()
    assert not app.exception
    assert app.query_params["paper"] in ("diffusion-5", ["diffusion-5"])
    assert all(b.key.startswith("similar-diffusion-") for b in similar_buttons(app))


def test_an_unknown_paper_id_is_one_clear_sentence(app_env):
    app = paper_page("no-such-paper")
    assert len(app.warning) == 1 and "no paper with the id no\\-such\\-paper" in app.warning[0].value
    assert not similar_buttons(app)


def test_data_text_renders_inert_and_javascript_links_are_not_offered(app_env):
    app = paper_page("privacy-0")
    text = rendered_text(app)
    for raw in (HOSTILE_TITLE, "[y](javascript:alert(1))", "**bold**", "**Eve**", "[x](javascript"):
        assert raw not in text  # every one Markdown-escaped wherever it is shown
    assert "\\<img src\\=x onerror\\=alert\\(1\\)\\>" in app.subheader[0].value  # shown as its literal text
    assert not app.get("link_button")  # the javascript: link is dropped, not linked
    # The hostile paper, listed as found by a text, is a literal button label too.
    app.text_area(key="similar_text").input(HOSTILE_ABSTRACT).run()
    labels = [b.label for b in similar_buttons(app, key="text") if b.key == "text-privacy-0"]
    assert labels and HOSTILE_TITLE not in labels[0] and "\\<img" in labels[0]


def test_similar_to_a_text_ranks_the_matching_topic_first(app_env):
    app = paper_page("privacy-0")
    app.text_area(key="similar_text").input("multi-armed bandits regret bound exploration upper confidence bound").run()
    assert not app.exception
    found = similar_buttons(app, key="text")
    assert len(found) == 10 and all(b.key.startswith("text-bandits-") for b in found)
    found[0].click().run()
    assert app.query_params["paper"] in (found[0].key.removeprefix("text-"), [found[0].key.removeprefix("text-")])


def test_a_large_maps_picker_lists_the_papers_its_search_finds_not_every_title(app_env, monkeypatch):
    from lib.views.map import detail

    monkeypatch.setattr(detail, "LARGE_MAP", 20)  # the 36 planted papers make a large map
    app = paper_page()
    assert app.selectbox(key="paper_choice").options == []  # no title is sent before a search
    title = next(r["title"] for r in app_env if r["id"] == "bandits-0")
    app.text_input(key="paper_query").input(f'"{title}"').run()
    assert title in app.selectbox(key="paper_choice").options and any("papers found" in c.value for c in app.caption)
    app.selectbox(key="paper_choice").set_value("bandits-0").run()
    assert not app.exception and app.query_params["paper"] in ("bandits-0", ["bandits-0"])
    assert app.subheader[0].value == title
    app.text_input(key="paper_query").input("zzzqqq").run()
    assert any(c.value == "No paper found." for c in app.caption)
    assert app.selectbox(key="paper_choice").options == [title]  # the open paper stays offered
    assert app.selectbox(key="paper_choice").value == "bandits-0"
