"""The CLI on broken paper lists (tests/hostile_lists.py): each is refused with one line naming the
file, or mapped with every record either kept or reported as skipped. Nothing raises a traceback."""

import pytest
from hostile_lists import PARTLY, REFUSED

from lib.cli import main
from lib.stages.load import load_papers


def build(path, cache, out, *flags) -> int:
    return main(["build", str(path), "--cache", str(cache), "--out", str(out), *flags])


@pytest.mark.parametrize("name", REFUSED)
def test_an_unusable_list_is_one_line_naming_the_file(name, tmp_path, hostile_cache, capsys):
    path = tmp_path / name
    path.write_bytes(REFUSED[name])
    status = build(path, hostile_cache, tmp_path / "out", "--quiet")
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1 and err[0].startswith(f"error: {path}: "), err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("name", PARTLY)
def test_every_record_is_kept_or_reported(name, tmp_path, hostile_cache, capsys):
    raw, kept = PARTLY[name]
    path = tmp_path / name
    path.write_bytes(raw)
    result = load_papers(path)
    report = result.report
    assert len(result.papers) == report.loaded == kept
    assert report.loaded + len(report.skipped) == report.records_read  # nothing lost silently
    assert all(issue.problem for issue in report.skipped + report.warnings)
    assert result.papers["paper_id"].is_unique
    # The CLI maps the kept papers and prints each skipped record and warning, naming the file.
    status = build(path, hostile_cache, tmp_path / "out")
    out, err = capsys.readouterr()
    assert status == 0 and f" map of {kept} papers" in out
    assert err.splitlines() == report.lines()
