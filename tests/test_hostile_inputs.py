"""Broken paper lists, made here: each is refused with one sentence naming the file, or loaded
with every record either kept or reported as skipped. Nothing raises a traceback."""
import codecs
import json

import pytest

from lib.cli import main
from lib.load import load_papers

GOOD = {"title": "Bandits with regret bounds", "abstract": "We bound the regret of bandits."}

# name -> file bytes, for lists that cannot be mapped at all: one line, exit status 2.
REFUSED = {
    "truncated.json": b'[{"title": "a", "abstract": "b"}, {"title": ',
    "object.json": json.dumps({"title": "x"}).encode(),
    "strings.json": json.dumps(["a", "b"]).encode(),
    "badutf8.json": b'[{"title": "caf\xe9", "abstract": "x"}]',
    "empty.json": b"",
    "empties.json": json.dumps([{}] * 100_000).encode(),
}

# name -> (file bytes, papers kept): lists with some bad records, loaded with a report.
PARTLY = {
    "types.json": (json.dumps([{"title": 5, "abstract": None, "author": [["x"]]}, {"title": ["a"], "abstract": {"a": 1}}, GOOD]).encode(), 2),
    "utf16.json": (codecs.BOM_UTF16_LE + json.dumps([GOOD]).encode("utf-16-le"), 1),
    "ragged.csv": (b'title,abstract\n"a","b"\n"c"\n"d","e","f"\n"multi\nline","x"\n', 3),
    "big.json": (json.dumps([{"title": "Big", "abstract": "word " * 1_000_000}]).encode(), 1),
    "dups.json": (json.dumps([{"id": "same", "title": f"T{i}", "abstract": "a"} for i in range(10_000)]).encode(), 10_000),
    "odd.json": (json.dumps([{"title": "$$", "abstract": "😀😀"}, {"title": "\\frac{}{}", "abstract": "\x00\x07 control"},
                             {"title": "Нейронные сети", "abstract": "深度学习 的 研究"}]).encode(), 3),
}


@pytest.mark.parametrize("name", REFUSED)
def test_an_unusable_list_is_one_line_naming_the_file(name, tmp_path, capsys):
    path = tmp_path / name
    path.write_bytes(REFUSED[name])
    status = main(["build", str(path), "--cache", str(tmp_path / "cache"), "--out", str(tmp_path / "out"), "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1 and err[0].startswith(f"error: {path}: "), err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("name", PARTLY)
def test_every_record_is_kept_or_reported(name, tmp_path):
    raw, kept = PARTLY[name]
    path = tmp_path / name
    path.write_bytes(raw)
    result = load_papers(path)
    report = result.report
    assert len(result.papers) == report.loaded == kept
    assert report.loaded + len(report.skipped) == report.records_read  # nothing lost silently
    assert all(issue.problem for issue in report.skipped + report.warnings)
    assert result.papers["paper_id"].is_unique
