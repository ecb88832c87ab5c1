import json
import subprocess
import sys
import time

import pytest
from conftest import REPO, SEED_SAMPLE

from lib.builder.pipeline import BuildParams, build
from lib.cli import parser
from lib.map_folder import read_papers


def cli(*args, cwd=REPO):
    return subprocess.run(
        [sys.executable, "-m", "lib", *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=600
    )


def test_build_command_writes_papers_parquet_and_prints_one_summary(tmp_path):
    out = tmp_path / "out"
    done = cli("build", SEED_SAMPLE, "--out", out, "--cache", tmp_path / "cache")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().count("\n") == 0
    assert done.stdout.startswith("Built a map of 19 papers") and str(out) in done.stdout
    assert "Traceback" not in done.stderr
    assert len(read_papers(out / "papers.parquet")) == 19


@pytest.mark.parametrize(
    "content, problem",
    [(b"", "empty"), (b'[{"title": "x",}]', "invalid JSON"), (b"\xff\xfe\xfa garbage \xe9", "UTF")],
)
def test_bad_input_exits_non_zero_with_one_line_naming_the_file(tmp_path, content, problem):
    path = tmp_path / "broken_list.json"
    path.write_bytes(content)
    done = cli("build", path, "--out", tmp_path / "out", "--cache", tmp_path / "cache", "--quiet")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "broken_list.json" in lines[0] and problem in lines[0]
    assert done.stdout == "" and not (tmp_path / "out").exists()


def test_skipped_records_are_listed_one_per_line(tmp_path):
    path = tmp_path / "partial.json"
    path.write_text(
        json.dumps(
            [
                {"id": "a", "title": "Kernel methods for graphs"},
                {"id": "b", "title": ""},
                {"id": "a", "title": "Kernel methods for graphs"},
            ]
        )
    )
    done = cli("build", path, "--out", tmp_path / "out", "--cache", tmp_path / "cache")
    assert done.returncode == 0, done.stderr
    skipped = [line for line in done.stderr.splitlines() if line.startswith("skipped ")]
    assert len(skipped) == 2 and all("partial.json" in line for line in skipped)
    assert "skipped 2" in done.stdout


def test_missing_taxonomy_is_one_clear_line(tmp_path):
    done = cli(
        "build",
        SEED_SAMPLE,
        "--taxonomy",
        tmp_path / "none.yaml",
        "--cache",
        tmp_path / "cache",
        "--out",
        tmp_path / "o",
    )
    assert done.returncode == 2 and done.stderr.startswith("error: ") and "none.yaml" in done.stderr


def test_every_option_is_documented_in_the_output_doc():
    output_doc = (REPO / "docs" / "output.md").read_text()
    build_parser = parser()._subparsers._group_actions[0].choices["build"]
    for action in build_parser._actions:
        for flag in action.option_strings:
            if flag.startswith("--") and flag != "--help" and flag != "--quiet":
                assert flag in output_doc, flag
    assert "python -m lib build" in output_doc
    assert "](docs/output.md)" in (REPO / "README.md").read_text()


def test_every_shared_paper_list_builds(shared_data, tmp_path):
    """The foundation's promise: every real list but the 87,691-paper corpus builds."""
    files = sorted(p for p in shared_data.glob("*.json") if p.name != "scale_corpus.json")
    assert len(files) >= 7
    for path in files:
        records = json.loads(path.read_text(encoding="utf-8"))
        start = time.perf_counter()
        result = build(path, cache_dir=tmp_path / "cache", out_dir=tmp_path / path.stem, params=BuildParams())
        table = result.papers
        assert len(table) + len(result.report.skipped) == len(records), path.name
        assert table["paper_id"].is_unique and table["title"].str.len().gt(0).all()
        assert table["topic"].nunique() >= 5 and table["topic_label"].nunique() == table["topic"].nunique()
        assert table["area"].nunique() >= 5, path.name
        print(f"{path.name}: {len(table)} papers in {time.perf_counter() - start:.1f} s")
