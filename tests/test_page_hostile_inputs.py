"""The dashboard on broken paper lists (tests/hostile_lists.py), opened with `?data=<name>`: the
sentence the CLI prints for the same file, or the map of the kept papers and what was skipped."""

import pytest
from conftest import plain, started
from hostile_lists import PARTLY, REFUSED

from lib.cli import main
from lib.stages.load import load_papers
from lib.ui_state import REPORT_LINES


@pytest.fixture
def folder(tmp_path, monkeypatch, hostile_cache):
    """The data folder the dashboard offers, empty; the stage cache the CLI's tests of these lists share."""
    folder = tmp_path / "data"
    folder.mkdir()
    monkeypatch.delenv("PAPERMAP_DATA", raising=False)
    monkeypatch.setenv("PAPERMAP_DATA_DIR", str(folder))
    monkeypatch.setenv("PAPERMAP_CACHE", str(hostile_cache))
    monkeypatch.setenv("PAPERMAP_DB", str(tmp_path / "lists.sqlite"))
    return folder


@pytest.mark.parametrize("name", REFUSED)
def test_an_unusable_list_shows_the_clis_sentence_and_the_way_out(name, folder, hostile_cache, capsys):
    path = folder / name
    path.write_bytes(REFUSED[name])
    assert (
        main(["build", str(path), "--cache", str(hostile_cache), "--out", str(folder.parent / "out"), "--quiet"]) == 2
    )
    sentence = capsys.readouterr().err.strip().removeprefix("error: ")
    app = started(data=name)
    assert [plain(e.value) for e in app.error] == [sentence] and not app.warning
    assert [link.label for link in app.get("page_link")] == ["Choose another data set"]


@pytest.mark.parametrize("name", PARTLY)
def test_a_partly_broken_list_maps_the_kept_papers_and_says_what_it_skipped(name, folder, hostile_cache):
    raw, kept = PARTLY[name]
    (folder / name).write_bytes(raw)
    report = load_papers(folder / name).report
    # The CLI mapped a copy (as in test_hostile_inputs.py): the page reuses that map, naming its own file.
    copy = folder.parent / "elsewhere" / name
    copy.parent.mkdir()
    copy.write_bytes(raw)
    assert main(["build", str(copy), "--cache", str(hostile_cache), "--out", str(copy.parent / "out"), "--quiet"]) == 0
    app = started(data=name)
    assert not app.error and not app.warning
    assert app.subheader[0].value == f"Topic map: {kept:,} of {kept:,} papers"
    lines = report.lines()
    reports = [e for e in app.expander if plain(e.label).startswith("Load report")]  # not the papers' table
    if not lines:
        assert not reports  # a clean load needs no report
        return
    [expander] = reports
    assert plain(expander.label) == f"Load report: {report.summary()}"
    assert app.text[0].value.splitlines() == lines[:REPORT_LINES]
    if len(lines) > REPORT_LINES:  # dups.json: 9,900 duplicates skipped, 99 ids renamed
        assert any(c.value.startswith(f"The first {REPORT_LINES} of {len(lines):,} lines") for c in app.caption)
