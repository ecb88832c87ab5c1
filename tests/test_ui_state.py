"""The dashboard's Streamlit-side helpers that hold no widget: the map chart's events, and the map as every session reads it."""

from lib.builder.pipeline import build
from lib.ui_state import clicked_paper, drawn_selection, figure_revision, read_map


def test_a_click_names_one_paper_and_a_box_lists_papers_of_the_figure_it_was_drawn_on():
    shown = figure_revision('{"data": []}')
    box = {"revision": shown, "kind": "box", "ids": ["p1", "p2"]}
    assert clicked_paper({"click": "p1", "selection": None}) == "p1"
    assert clicked_paper({"click": None, "selection": box}) is None and clicked_paper(None) is None
    assert drawn_selection({"click": None, "selection": box}, shown) == ("p1", "p2")
    # A box drawn before a filter changed the figure selects nothing on the new one.
    changed = figure_revision('{"data": [{}]}')
    assert changed != shown and drawn_selection({"selection": box}, changed) == ()
    assert (
        drawn_selection(None, shown) == () == drawn_selection({}, shown) == drawn_selection({"selection": None}, shown)
    )


def test_each_reader_of_a_map_gets_its_own_table(planted_file, tmp_path):
    # One table is shared by every session; a page that changes its copy changes no other page's.
    out = tmp_path / "map"
    build(planted_file, out_dir=out, cache_dir=tmp_path / "cache")
    first, report = read_map(str(out))
    title = first["title"].iloc[0]
    first.loc[first.index[0], "title"] = "changed"
    first["extra"] = 1
    report["added"] = True
    again, report_again = read_map(str(out))
    assert again["title"].iloc[0] == title and "extra" not in again and "added" not in report_again
