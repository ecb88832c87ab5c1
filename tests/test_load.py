"""The loader: every reader, format detection, bad input, the load report, and the real paper lists."""

from __future__ import annotations

import codecs
import csv
import json
import pickle
import re
from pathlib import Path

import pandas as pd
import pytest
from conftest import SHARED_DATA

from lib.errors import InputError, ParameterError
from lib.schema import PAPER_COLUMNS, SESSION_FIELDS, conform
from lib.stages.latex import readable
from lib.stages.load import (
    FORMATS,
    MAX_ABSTRACT_CHARS,
    LoadReport,
    LoadResult,
    detect_format,
    load_lists,
    load_papers,
)

REPO = Path(__file__).resolve().parents[1]
SEED = REPO / "data" / "icml2025_seed.txt"
SHARED_FILES = ("aistats2025", "colm2025", "icml2019", "icml2025_papers", "ijcai2023", "uai2024", "wacv2025")

LABEL = r"(record|note|line|row|paragraph) \d+( \(id '[^']*'\))?"


# --- helpers ---------------------------------------------------------------------------------------


def write(path: Path, content: str | bytes) -> Path:
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8", newline="")
    else:
        path.write_bytes(content)
    return path


def load(path: Path, input_format: str = "auto") -> LoadResult:
    """load_papers plus the checks every load must pass."""
    result = load_papers(path, input_format)
    check_report(result)
    check_schema(result.papers)
    return result


def check_report(result: LoadResult) -> None:
    """No record is lost uncounted, and every report line names the file and the record."""
    report = result.report
    assert report.loaded == len(result.papers)
    assert report.loaded + len(report.skipped) == report.records_read
    lines = report.lines()
    assert len(lines) == len(report.skipped) + len(report.warnings)
    pattern = re.compile(rf"(skipped|warning) {re.escape(report.source)}: {LABEL}: \S")
    for line in lines:
        assert pattern.match(line), line


def check_schema(papers: pd.DataFrame) -> None:
    """Columns and dtypes exactly as lib.schema says; missing text is "", never null."""
    assert list(papers.columns) == [c.name for c in PAPER_COLUMNS]
    for column in PAPER_COLUMNS:
        values = papers[column.name]
        expected = "object" if column.dtype in ("list", "sessions") else column.dtype
        assert str(values.dtype) == expected, column.name
        if column.dtype == "list":
            assert all(isinstance(v, list) and all(isinstance(s, str) and s for s in v) for v in values)
        elif column.dtype == "sessions":
            assert all(isinstance(v, list) and all(tuple(s) == SESSION_FIELDS for s in v) for v in values)
        elif column.dtype == "str":
            assert not values.isna().any(), column.name


def by_title(papers: pd.DataFrame) -> dict[str, dict]:
    return {row["title"]: row for row in papers.to_dict("records")}


def problems(issues) -> str:
    return "\n".join(f"{i.record}: {i.problem}" for i in issues)


# --- seed plain text -------------------------------------------------------------------------------


def test_seed_sample_loads_every_paragraph_with_venue_and_year_from_heading():
    paragraphs = [p for p in re.split(r"\n\s*\n", SEED.read_text(encoding="utf-8")) if p.strip()]
    heading, abstracts = paragraphs[0].strip(), paragraphs[1:]
    assert heading.startswith("ICML 2025")
    result = load(SEED)
    papers = result.papers
    assert result.report.format == "text"
    assert result.report.records_read == len(abstracts) == len(papers) == 19
    assert not result.report.skipped
    assert set(papers["venue"]) == {"ICML"} and set(papers["year"]) == {2025}
    assert papers["paper_id"].is_unique
    # Source order and text kept (only whitespace normalised); the heading is not a paper.
    assert list(papers["abstract"]) == [readable(" ".join(a.split())) for a in abstracts]  # inline LaTeX made readable
    assert papers["title_is_derived"].all() and (papers["title"].str.len() > 0).all()


def test_text_paragraphs_are_joined_and_heading_sets_venue(tmp_path):
    path = write(
        tmp_path / "list.txt",
        "NeurIPS 2024 accepted papers\r\n\r\nWe study  graph\r\nneural networks.\r\n\r\n\r\n"
        "Second abstract about bandits.\r\n   \r\nThird one, on privacy.\r\n",
    )
    papers = load(path).papers
    assert list(papers["abstract"]) == [
        "We study graph neural networks.",
        "Second abstract about bandits.",
        "Third one, on privacy.",
    ]
    assert set(papers["venue"]) == {"NeurIPS"} and set(papers["year"]) == {2024}
    assert papers["title_is_derived"].all()


def test_text_without_heading_takes_venue_from_file_name(tmp_path):
    path = write(tmp_path / "colt2023.txt", "A first abstract.\nIt has two lines.\n\nA second abstract.")
    result = load(path)
    assert result.report.records_read == 2
    assert set(result.papers["venue"]) == {"COLT"} and set(result.papers["year"]) == {2023}


# --- Paper Copilot JSON ----------------------------------------------------------------------------


COPILOT_RECORDS = [
    {
        "id": "a1",
        "title": "Comma Authors",
        "author": "Ada Lovelace, Alan Turing",
        "status": "Poster",
        "site": "https://openreview.net/forum?id=a1",
        "abstract": "An abstract.",
        "keywords": "bandits;regret bounds",
        "primary_area": "Theory",
        "track": "main",
    },
    {
        "id": "a2",
        "title": "Semicolon Authors",
        "author": "Turing, Alan;Lovelace, Ada",
        "status": "Oral",
        "site": "",
        "abstract": "",
        "keywords": "",
        "primary_area": "",
    },
    {"id": "a3", "title": "Own Venue", "author": "", "venue": "UAI 2024", "status": "Spotlight"},
]


def test_paper_copilot_json_fields(tmp_path):
    path = write(tmp_path / "aistats2025.json", json.dumps(COPILOT_RECORDS, indent=1))
    result = load(path)
    assert result.report.format == "json" and not result.report.skipped and not result.report.warnings
    papers = by_title(result.papers)
    first, second, third = papers["Comma Authors"], papers["Semicolon Authors"], papers["Own Venue"]
    assert first["authors"] == ["Ada Lovelace", "Alan Turing"]
    assert second["authors"] == ["Turing, Alan", "Lovelace, Ada"]  # ";" wins over the commas inside names
    assert first["author_keywords"] == ["bandits", "regret bounds"]
    assert (first["status"], second["status"], third["status"]) == ("Poster", "Oral", "Spotlight")
    assert first["url"] == "https://openreview.net/forum?id=a1"
    assert first["primary_area"] == "Theory"
    assert first["paper_id"] == "a1" and first["title_is_derived"] is False
    # Empty strings mean missing.
    assert (second["url"], second["abstract"], second["primary_area"]) == ("", "", "")
    assert second["author_keywords"] == [] and third["authors"] == []
    # Venue and year: from the file name unless the record names its own.
    assert (first["venue"], first["year"]) == ("AISTATS", 2025)
    assert (third["venue"], third["year"]) == ("UAI", 2024)


@pytest.mark.parametrize("key", ["papers", "results"])
def test_json_wrapped_in_an_object_with_a_list(tmp_path, key):
    path = write(tmp_path / "papers.json", json.dumps({"count": 2, key: COPILOT_RECORDS[:2]}))
    result = load(path)
    assert result.report.format == "json"
    assert result.report.records_read == 2 and len(result.papers) == 2
    # No year in "papers": venue and year stay unknown rather than invented.
    assert set(result.papers["venue"]) == {""} and result.papers["year"].isna().all()


# --- OpenReview notes ------------------------------------------------------------------------------


def v2(value):
    return {"value": value}


def test_openreview_api_v2_notes(tmp_path):
    notes = {
        "notes": [
            {
                "id": "abc123",
                "forum": "abc123",
                "content": {
                    "title": v2("Sparse Mixtures"),
                    "abstract": v2("We study  sparse\nmixtures."),
                    "authors": v2(["Ada Lovelace", "Alan Turing"]),
                    "keywords": v2(["mixtures", "sparsity"]),
                    "venue": v2("ICML 2025 oral"),
                    "primary_area": v2("probabilistic_methods"),
                    "pdf": v2("/pdf/abc123.pdf"),
                },
            },
            {"id": "def456", "content": {"title": v2("A Poster"), "venue": v2("ICML 2025 poster")}},
            {
                "id": "ghi789",
                "content": {"title": v2("Moral Uncertainty"), "venue": v2("Moral Philosophy Workshop 2024")},
            },
        ],
        "count": 3,
    }
    result = load(write(tmp_path / "export.json", json.dumps(notes, indent=2)))
    assert result.report.format == "openreview"
    papers = by_title(result.papers)
    oral = papers["Sparse Mixtures"]
    assert oral["paper_id"] == "abc123"
    assert (oral["venue"], oral["year"], oral["status"]) == ("ICML", 2025, "Oral")
    assert oral["url"] == "https://openreview.net/forum?id=abc123"
    assert oral["abstract"] == "We study sparse mixtures."
    assert oral["authors"] == ["Ada Lovelace", "Alan Turing"]
    assert oral["author_keywords"] == ["mixtures", "sparsity"]
    assert oral["primary_area"] == "probabilistic_methods"
    assert papers["A Poster"]["status"] == "Poster"
    # "oral" inside a word is not a presentation type.
    assert papers["Moral Uncertainty"]["status"] == ""
    assert (papers["Moral Uncertainty"]["venue"], papers["Moral Uncertainty"]["year"]) == (
        "Moral Philosophy Workshop",
        2024,
    )


def test_openreview_api_v1_plain_values(tmp_path):
    notes = {
        "notes": [
            {
                "id": "n1",
                "forum": "f1",
                "content": {
                    "title": "Plain Values",
                    "abstract": "An abstract.",
                    "authors": ["A. One", "B. Two"],
                    "keywords": ["k1"],
                    "venue": "ICLR 2019 Conference Spotlight",
                },
            }
        ]
    }
    result = load(write(tmp_path / "v1.json", json.dumps(notes)))
    assert result.report.format == "openreview"
    row = result.papers.iloc[0]
    assert row["title"] == "Plain Values" and row["authors"] == ["A. One", "B. Two"]
    assert (row["venue"], row["year"], row["status"]) == ("ICLR", 2019, "Spotlight")
    assert row["url"] == "https://openreview.net/forum?id=f1"
    assert row["author_keywords"] == ["k1"]


def test_openreview_non_record_notes_are_reported(tmp_path):
    notes = {"notes": ["not a note", {"id": "x", "content": {"title": v2("Real")}}, {"id": "y", "content": 5}]}
    result = load(write(tmp_path / "notes.json", json.dumps(notes)))
    assert list(result.papers["title"]) == ["Real"]
    assert [i.record.split(" (")[0] for i in result.report.skipped] == ["note 1", "note 3"]


# --- JSONL, CSV, TSV, Parquet ----------------------------------------------------------------------


def test_jsonl_records_blank_lines_and_a_broken_line(tmp_path):
    lines = [
        json.dumps({"paper_id": "j1", "title": "First", "authors": ["A", "B"], "year": 2023, "venue": "COLT"}),
        "",
        '{"paper_id": "j2", "title": "Broken"',
        json.dumps(
            {"paper_id": "j3", "Title": "Mixed\u2028Separator", "Abstract": "Has a U+2028 inside."}, ensure_ascii=False
        ),
    ]
    result = load(write(tmp_path / "papers.jsonl", "\r\n".join(lines) + "\r\n"))
    assert result.report.format == "jsonl"
    assert result.report.records_read == 3
    assert list(result.papers["paper_id"]) == ["j1", "j3"]
    assert result.papers.iloc[0]["authors"] == ["A", "B"] and result.papers.iloc[0]["year"] == 2023
    assert result.papers.iloc[1]["title"] == "Mixed Separator"
    [skipped] = result.report.skipped
    assert skipped.record == "line 3" and "invalid JSON" in skipped.problem


def test_csv_with_aliases_and_quoted_cells(tmp_path):
    rows = [
        ["Title", "Summary", "author", "Year", "Link", "Decision", "Keyword", "Subject_Area", "Conference"],
        [
            "Quoted, With Comma",
            "Line one\nline two.",
            "A. One; B. Two",
            "2022",
            "https://x.org/1",
            "Oral",
            "a;b",
            "Vision",
            "CVPR",
        ],
        ["Second", "", "Solo Author", "", "", "", "", "", ""],
    ]
    path = tmp_path / "list.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows(rows)
    result = load(path)
    assert result.report.format == "csv" and result.report.records_read == 2
    first, second = result.papers.to_dict("records")
    assert first["title"] == "Quoted, With Comma" and first["abstract"] == "Line one line two."
    assert first["authors"] == ["A. One", "B. Two"] and first["author_keywords"] == ["a", "b"]
    assert (first["year"], first["url"], first["status"], first["primary_area"], first["venue"]) == (
        2022,
        "https://x.org/1",
        "Oral",
        "Vision",
        "CVPR",
    )
    assert second["authors"] == ["Solo Author"] and pd.isna(second["year"]) and second["abstract"] == ""


def test_tsv_with_aliases(tmp_path):
    text = "paper_title\tabstract\tauthors\tid\nTab Paper\tAn abstract, with commas, inside.\tA, B\tt1\n"
    result = load(write(tmp_path / "icml2021.tsv", text))
    assert result.report.format == "tsv"
    row = result.papers.iloc[0]
    assert (row["paper_id"], row["title"], row["abstract"]) == ("t1", "Tab Paper", "An abstract, with commas, inside.")
    assert row["authors"] == ["A", "B"] and (row["venue"], row["year"]) == ("ICML", 2021)


def test_csv_ragged_rows(tmp_path):
    text = 'title,abstract\nToo Long,abstract,extra cell\nShort Row\n"Normal","Fine."\n'
    result = load(write(tmp_path / "ragged.csv", text))
    assert result.report.records_read == 3
    assert list(result.papers["title"]) == ["Short Row", "Normal"]
    assert result.papers.iloc[0]["abstract"] == ""
    [skipped] = result.report.skipped
    assert skipped.record == "row 2" and "more cells" in skipped.problem


def test_parquet_with_list_columns_and_nulls(tmp_path):
    frame = pd.DataFrame(
        {
            "Title": ["Parquet One", "Parquet Two", None],
            "abstract": ["First abstract.", None, "Only an abstract here."],
            "authors": [["A", "B", "C"], [], ["D"]],
            "keywords": [["k1", "k2"], None, []],
            "year": pd.array([2024, None, 2023], dtype="Int64"),
            "id": ["q1", "q2", "q3"],
            "primary_area": [["not", "text"], None, ["x"]],
        }
    )
    path = tmp_path / "papers.parquet"
    frame.to_parquet(path)
    result = load(path)
    assert result.report.format == "parquet" and not result.report.skipped
    one, two, three = result.papers.to_dict("records")
    # A list where text belongs is left empty with a warning, not printed as "['not' 'text']".
    assert one["primary_area"] == "" == three["primary_area"]
    assert [i.record for i in result.report.warnings] == ["row 1 (id 'q1')", "row 3 (id 'q3')"]
    assert all(i.problem.startswith("primary_area is a") for i in result.report.warnings)
    assert one["authors"] == ["A", "B", "C"] and one["author_keywords"] == ["k1", "k2"] and one["year"] == 2024
    assert two["abstract"] == "" and two["authors"] == [] and two["author_keywords"] == [] and pd.isna(two["year"])
    assert three["title_is_derived"] and three["title"] and three["abstract"] == "Only an abstract here."


@pytest.mark.parametrize("suffix", ["json", "csv", "parquet"])
def test_fields_named_alike_give_their_first_value_that_is_not_blank(tmp_path, suffix):
    # "Title" and " title " are one field; the last column named so used to win even when blank.
    rows = [
        {"Title": "First Wins", " title ": "Second"},
        {"Title": " ", " title ": "Blank First"},
        {"Title": None, " title ": "Null First"},
    ]
    path = tmp_path / f"alike.{suffix}"
    if suffix == "json":
        path.write_text(json.dumps(rows))
    elif suffix == "csv":
        path.write_text("Title, title ,title,year\nFirst Wins,Second,Third,\n , Blank First,,\n,,Last Column,\n")
    else:
        pd.DataFrame(rows).to_parquet(path)
    result = load(path)
    expected = ["First Wins", "Blank First", "Last Column" if suffix == "csv" else "Null First"]
    assert list(result.papers["title"]) == expected and not result.report.skipped


def test_damaged_parquet_is_an_input_error(tmp_path):
    path = write(tmp_path / "broken.parquet", b"PAR1" + b"\x00" * 64)
    with pytest.raises(InputError, match="broken.parquet"):
        load_papers(path)


# --- format detection and the override -------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b'[{"title": "a"}]', "json"),
        (b'\n  [\n  {"title": "a"}\n]', "json"),
        (codecs.BOM_UTF8 + b'[{"title": "a"}]', "json"),
        ('[{"title": "é"}]'.encode("utf-16"), "json"),
        (b'{"notes": [{"id": "x", "content": {}}]}', "openreview"),
        (b'{\n  "count": 1,\n  "notes": []\n}', "openreview"),
        (b'{"count": 1, "results": [{"title": "a"}]}', "json"),
        (b'{"title": "a"}\n{"title": "b"}\n', "jsonl"),
        (b'{"title": "' + b"x" * 100_000 + b'"}\n{"title": "b"}\n', "jsonl"),  # first line past the sample
        (b"title,abstract\na,b\n", "csv"),
        (b'"Title","Summary"\na,b\n', "csv"),
        ("Title\tAuthor\na\tb\n".encode("utf-16"), "tsv"),
        (b"ICML 2025 papers\n\nAn abstract, with a comma.\n", "text"),
        (b"PAR1\x00\x00", "parquet"),
    ],
)
def test_detect_format(content, expected):
    assert detect_format(content) == expected


def test_detection_and_override_agree_with_load(tmp_path):
    path = write(tmp_path / "list.csv", "title,abstract\nOne,First.\nTwo,Second.\n")
    detected = load(path)
    assert detected.report.format == "csv" and list(detected.papers["title"]) == ["One", "Two"]
    as_text = load(path, input_format="text")
    assert as_text.report.format == "text"
    assert len(as_text.papers) == 1 and as_text.papers.iloc[0]["abstract"].startswith("title,abstract One,First.")


def test_override_reads_a_one_record_jsonl_file(tmp_path):
    path = write(tmp_path / "one.jsonl", json.dumps({"id": "only", "title": "Only Paper"}) + "\n")
    result = load(path, input_format="jsonl")
    assert result.report.format == "jsonl" and list(result.papers["paper_id"]) == ["only"]


@pytest.mark.parametrize("name", ["xml", "JSON", "", "csv "])
def test_invalid_format_name_is_a_parameter_error(tmp_path, name):
    path = write(tmp_path / "list.csv", "title\nA\n")
    with pytest.raises(ParameterError) as raised:
        load_papers(path, input_format=name)
    assert isinstance(raised.value, ValueError)
    assert all(f in str(raised.value) for f in FORMATS)


# --- unreadable files ------------------------------------------------------------------------------


def test_invalid_json_names_file_line_and_column(tmp_path):
    lines = ["[", '  {"title": "ok"},', '  {"title": }', "]"]
    path = write(tmp_path / "bad.json", "\n".join(lines))
    with pytest.raises(InputError) as raised:
        load_papers(path)
    message = str(raised.value)
    assert message.startswith(f"{path}: invalid JSON")
    assert f"line 3, column {lines[2].index('}') + 1}" in message


@pytest.mark.parametrize("bom", [b"", codecs.BOM_UTF8])
def test_latin1_bytes_name_the_file_the_byte_and_utf8(tmp_path, bom):
    path = write(tmp_path / "latin.csv", bom + "title,abstract\nCafé,Crème brûlée.\n".encode("latin-1"))
    with pytest.raises(InputError) as raised:
        load_papers(path)
    message = str(raised.value)
    offset = len(bom) + len(b"title,abstract\nCaf")
    assert str(path) in message and "UTF-8" in message
    assert f"byte 0xe9 at offset {offset}" in message


@pytest.mark.parametrize("suffix", ["json", "csv"])
def test_utf16_with_bom_is_read(tmp_path, suffix):
    if suffix == "json":
        content = json.dumps([{"title": "Schrödinger Bridges", "author": "Zoë Ünal;Łukasz"}], ensure_ascii=False)
    else:
        content = "title,author\nSchrödinger Bridges,Zoë Ünal;Łukasz\n"
    path = write(tmp_path / f"utf16.{suffix}", content.encode("utf-16"))
    assert path.read_bytes()[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
    result = load(path)
    assert result.report.format == suffix
    row = result.papers.iloc[0]
    assert row["title"] == "Schrödinger Bridges" and row["authors"] == ["Zoë Ünal", "Łukasz"]


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"   \n\t\r\n",
        codecs.BOM_UTF8 + b"\n  \n",
        "  \n".encode("utf-16"),
    ],
    ids=["empty", "whitespace", "utf8-bom-only", "utf16-whitespace"],
)
def test_empty_file_is_an_input_error(tmp_path, content):
    path = write(tmp_path / "empty.json", content)
    with pytest.raises(InputError, match=re.escape(str(path)) + ".*empty"):
        load_papers(path)


def test_missing_file_and_directory_are_input_errors(tmp_path):
    with pytest.raises(InputError, match=re.escape(str(tmp_path / "nope.json")) + ": no such file"):
        load_papers(tmp_path / "nope.json")
    with pytest.raises(InputError, match=re.escape(str(tmp_path))):
        load_papers(tmp_path)


@pytest.mark.parametrize(
    "content",
    [
        json.dumps({"paper": {"title": "x"}, "meta": 1}, indent=2),
        json.dumps({"papers": "not a list"}, indent=2),
        json.dumps({"notes": {"id": "x"}}),
    ],
)
def test_json_object_of_the_wrong_shape_is_an_input_error(tmp_path, content):
    path = write(tmp_path / "shape.json", content)
    with pytest.raises(InputError, match=re.escape(str(path))):
        load_papers(path)


# --- records that are skipped or changed -----------------------------------------------------------


def test_json_list_of_strings_reports_each(tmp_path):
    result = load(write(tmp_path / "strings.json", json.dumps(["a paper", "another", "third"])))
    assert result.report.records_read == 3 and result.report.loaded == 0 and result.papers.empty
    assert [i.record for i in result.report.skipped] == ["record 1", "record 2", "record 3"]
    assert all("str" in i.problem for i in result.report.skipped)


def test_record_without_title_or_abstract_is_skipped_by_name(tmp_path):
    records = [
        {"id": "ok", "title": "Fine"},
        {"id": "empty-one", "title": "  \n ", "abstract": "", "author": "Someone"},
        {"author": "No Id"},
    ]
    result = load(write(tmp_path / "holes.json", json.dumps(records)))
    assert list(result.papers["paper_id"]) == ["ok"]
    lines = [line for line in result.report.lines() if line.startswith("skipped")]
    assert len(lines) == 2
    assert "record 2 (id 'empty-one')" in lines[0] and "neither a title nor an abstract" in lines[0]
    assert "record 3:" in lines[1]


def test_duplicate_ids(tmp_path):
    records = [
        {"id": "x", "title": "Same", "abstract": "Same text."},
        {"id": "x", "title": "Same", "abstract": "Same  text."},  # identical once whitespace is normalised
        {"id": "x", "title": "Different", "abstract": "Other text."},
        {"id": "x", "title": "Different", "abstract": "Other text."},  # repeats the renamed record
        {"id": "x~2", "title": "Third", "abstract": "Taken id."},
        {"title": "No Id", "abstract": "Hash id."},
        {"title": "No Id", "abstract": "Hash id."},
    ]
    result = load(write(tmp_path / "dupes.json", json.dumps(records)))
    papers = result.papers
    assert papers["paper_id"].is_unique
    assert list(papers["title"]) == ["Same", "Different", "Third", "No Id"]
    assert papers.iloc[0]["paper_id"] == "x" and papers.iloc[1]["paper_id"] != "x"
    assert [i.record.split(" (")[0] for i in result.report.skipped] == ["record 2", "record 4", "record 7"]
    assert all("duplicate" in i.problem for i in result.report.skipped)
    renamed = [i for i in result.report.warnings if "different record" in i.problem]
    assert renamed[0].record == "record 3 (id 'x')" and repr(papers.iloc[1]["paper_id"]) in renamed[0].problem


def test_a_duplicate_is_one_of_the_same_id_as_given_or_as_renamed(tmp_path):
    records = [
        {"id": "a", "title": "First", "abstract": "One."},
        {"id": "a", "title": "Second", "abstract": "Two."},  # kept as a~2
        {"id": "a~2", "title": "Second", "abstract": "Two."},  # the renamed record again: skipped
        {"id": "b", "title": "Third", "abstract": "Three."},
        {"id": "a", "title": "Third", "abstract": "Three."},  # b's texts under another id: kept as a~3
    ]
    result = load(write(tmp_path / "ids.json", json.dumps(records)))
    assert list(result.papers["paper_id"]) == ["a", "a~2", "b", "a~3"]
    assert [i.record for i in result.report.skipped] == ["record 3 (id 'a~2')"]


def test_thirty_thousand_records_sharing_an_id_are_all_kept_under_their_own_ids(tmp_path):
    # Each record used to be compared with, and search a free suffix past, every earlier one: 3 * 10^4
    # took 8 minutes (this test's time is the check; a timed assertion would be noise on CI), now a second.
    records = [{"id": "same", "title": f"Paper {i}", "abstract": "a"} for i in range(30_000)]
    path = write(tmp_path / "same-id.json", json.dumps(records + records[:2]))
    result = load_papers(path)
    check_report(result)
    assert result.report.loaded == 30_000 and len(result.report.skipped) == 2
    assert list(result.papers["paper_id"][:3]) == ["same", "same~2", "same~3"]
    assert result.papers["paper_id"].iloc[-1] == "same~30000"


def long_records(n: int, edition: str | None = None) -> list[dict]:
    """`n` records of some 2,000-character abstracts (4 MB in 2,000: Parquet writes several pages), ids
    and titles repeating in cycles; of `edition`, else of two editions in turn (the same titles in
    both: `same_as` links them)."""
    return [
        {
            "id": f"p{i % 7}",
            "title": f"Paper {i % 11} on Émile's graphs",
            "abstract": f"We study problem {i} of {i % 11}. " * (60 + i % 5),
            "authors": [f"Author {i}", f"Author {i + 1}"],
            "year": 2020 + i % 3,
            "keywords": "graphs; learning" if i % 2 else [],
            "sessions": [{"name": f"Session {i % 4}", "start": "2025-07-15T10:00:00"}] if i % 3 else [],
            "edition": edition or f"ICML {2024 + i % 2}",
        }
        for i in range(n)
    ]


def test_a_list_typed_in_blocks_is_the_table_typed_whole(tmp_path, monkeypatch):
    # Blocks of 700 records: duplicates and taken ids span blocks. The text columns keep the blocks'
    # Arrow arrays, which Parquet writes in other bytes: the build conforms the table it loads
    # (`conform` joins them), and then writes the same bytes as from a list typed whole.
    records = long_records(2000)
    path = write(tmp_path / "icml2025.json", json.dumps(records + records[650:760]))
    whole = load(path)
    monkeypatch.setattr("lib.stages.load.TYPED_BLOCK_ROWS", 700)
    blocks = load(path)
    assert len(whole.report.skipped) == 110 and len(whole.papers) == 2000 and whole.papers["same_as"].map(len).all()
    assert blocks.report.to_dict() == whole.report.to_dict()
    pd.testing.assert_frame_equal(blocks.papers, whole.papers)
    written = [conform(result.papers, PAPER_COLUMNS).to_parquet(index=False) for result in (blocks, whole)]
    assert written[0] == written[1]


def test_lists_loaded_together_are_written_as_after_a_pickle(tmp_path):
    # A large input is parsed in a worker process and pickled back; a small one, or the same when the
    # worker fails, in the build's: both must write the same papers.parquet.
    paths = [
        write(tmp_path / f"{name}.json", json.dumps(long_records(1500, name))) for name in ("icml2024", "icml2025")
    ]
    papers = load_lists(paths).papers
    assert len(papers) == 3000 and set(papers["edition"]) == {"icml2024", "icml2025"}
    assert papers.to_parquet(index=False) == pickle.loads(pickle.dumps(papers)).to_parquet(index=False)


@pytest.mark.parametrize("suffix", ["json", "jsonl", "csv", "txt"])
def test_one_megabyte_abstract_is_kept_and_cut(tmp_path, suffix):
    abstract = "We propose Huge Abstracts for testing. " + "word " * 200_000
    assert len(abstract) > 1_000_000
    record = {"id": "big", "title": "Big One", "abstract": abstract}
    other = {"id": "small", "title": "Small One", "abstract": "Short."}
    path = tmp_path / f"big.{suffix}"
    if suffix == "json":
        write(path, json.dumps([record, other]))
    elif suffix == "jsonl":
        write(path, json.dumps(record) + "\n" + json.dumps(other) + "\n")
    elif suffix == "csv":
        with path.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(record))
            writer.writeheader()
            writer.writerows([record, other])
    else:
        write(path, f"Heading 2025\n\n{abstract}\n\nShort.\n")
    result = load(path)
    assert result.report.records_read == 2 and result.report.loaded == 2
    lengths = sorted(result.papers["abstract"].str.len())
    assert lengths[-1] == MAX_ABSTRACT_CHARS and lengths[0] == len("Short.")
    [warning] = result.report.warnings
    assert "abstract" in warning.problem and f"{MAX_ABSTRACT_CHARS:,}" in warning.problem
    long_title = result.papers["title"][result.papers["abstract"].str.len() == MAX_ABSTRACT_CHARS].iloc[0]
    assert len(long_title) < 200


def test_wrong_field_types_never_crash(tmp_path):
    records = [
        {"id": 17, "title": 123, "abstract": None, "author": ["A", ["nested"], {"name": "B"}, 5], "year": 2021.0},
        {"id": None, "title": {"value": "dict title"}, "abstract": "Has text.", "author": {"name": "x"}, "year": "n/a"},
        {"id": [1, 2], "title": ["list", "title"], "abstract": ["list abstract"], "keywords": 7, "status": True},
        {"id": "nan", "title": None, "abstract": None},
        {"id": 3.5, "title": "Float Id", "abstract": False, "year": {"y": 2020}, "venue": ["ICML"], "site": 42},
        {"id": "deep", "title": "Deep", "author": [[[["x"]]]], "keywords": [{"a": 1}, None, "ok"]},
    ]
    path = write(tmp_path / "types2020.json", json.dumps(records))
    result = load(path)
    papers = {row["paper_id"]: row for row in result.papers.to_dict("records")}
    assert result.report.records_read == len(records)
    assert papers["17"]["title"] == "123" and papers["17"]["year"] == 2021
    assert papers["17"]["authors"] == ["A", "5"]
    assert "3.5" in papers and papers["3.5"]["url"] == "42" and papers["3.5"]["venue"] == "TYPES"
    assert papers["deep"]["authors"] == [] and papers["deep"]["author_keywords"] == ["ok"]
    dict_title = next(row for row in papers.values() if row["abstract"] == "Has text.")
    assert dict_title["title_is_derived"] and dict_title["authors"] == []
    assert dict_title["year"] == 2020  # "n/a" is no year, so the file name's is used
    skipped = {i.record for i in result.report.skipped}
    assert skipped == {"record 3", "record 4 (id 'nan')"}
    warned = problems(result.report.warnings)
    for expected in ("title is a dict", "authors is a dict", "year 'n/a'", "venue is a list", "abstract is a bool"):
        assert expected in warned
    # Items of the wrong type inside a list are dropped, and said so.
    dropped = {i.record for i in result.report.warnings if i.problem.startswith(("authors has", "author_keywords has"))}
    assert dropped == {"record 1 (id '17')", "record 6 (id 'deep')"}


@pytest.mark.parametrize("suffix", ["json", "jsonl"])
def test_lone_surrogates_from_json_escapes_become_replacement_characters(tmp_path, suffix):
    # json reads "\ud800" as a lone surrogate, which no encoder can write: it crashed the content id.
    records = [
        {"id": "\udc00", "title": "Lone \ud800 high", "abstract": "x", "author": ["\udfff"]},
        {"title": "A \ud83d"},
    ]
    content = "\n".join(json.dumps(r) for r in records) if suffix == "jsonl" else json.dumps(records)
    assert "\\ud800" in content  # the file itself is plain ASCII
    result = load(write(tmp_path / f"surrogates.{suffix}", content))
    assert list(result.papers["title"]) == ["Lone \ufffd high", "A \ufffd"]
    assert result.papers.iloc[0]["paper_id"] == "\ufffd" and result.papers.iloc[0]["authors"] == ["\ufffd"]
    result.papers.to_parquet(tmp_path / "written.parquet")


@pytest.mark.parametrize("suffix", ["json", "jsonl"])
def test_a_number_too_long_for_python_keeps_its_record(tmp_path, suffix):
    # Python refuses int() of over 4,300 digits with a ValueError, which escaped the loader.
    digits = "7" * 5_000
    records = [f'{{"id": "a", "title": "Fine", "year": {digits}}}', f'{{"id": "b", "title": {digits}}}']
    content = "\n".join(records) if suffix == "jsonl" else f"[{','.join(records)}]"
    result = load(write(tmp_path / f"long-number.{suffix}", content))
    assert list(result.papers["paper_id"]) == ["a", "b"]
    assert result.papers.iloc[1]["title"].startswith("777")
    assert "is not a year" in problems(result.report.warnings)


def test_a_jsonl_line_nested_too_deeply_is_skipped_not_a_crash(tmp_path):
    # A RecursionError from one line escaped the loader; the other lines are readable.
    path = write(tmp_path / "deep.jsonl", json.dumps({"title": "Kept"}) + "\n" + "[" * 100_000 + "\n")
    result = load(path)
    assert list(result.papers["title"]) == ["Kept"]
    [skipped] = result.report.skipped
    assert skipped.record == "line 2" and "nested too deeply" in skipped.problem


def test_nan_and_bool_values_are_missing_not_text(tmp_path):
    path = write(tmp_path / "nan.json", '[{"id": "n", "title": "T", "abstract": NaN, "status": true}, {"title": NaN}]')
    result = load(path)
    row = result.papers.iloc[0]
    assert row["abstract"] == "" and row["status"] == ""
    assert [i.record for i in result.report.skipped] == ["record 2"]
    assert "status is a bool" in problems(result.report.warnings)


def test_pdf_glyph_codes_become_the_text_they_stand_for(tmp_path):
    # As old NeurIPS abstracts extracted from PDFs have them: a soft hyphen at a line break, TeX's
    # ligatures, and codes no font agrees on. None may be read as the word "cid".
    records = [
        {
            "title": "Di(cid:14)cult classi(cid:12)cation",
            "abstract": "A simulation of piri(cid:173) form cortex and conjunc(cid:173)  tion; the e(cid:11)ects of "
            "(cid:13)exible rules on an N(cid:2)N grid and (cid:15)-tubes.",
            "keywords": "classi(cid:12)cation;e(cid:11)ects",
        }
    ]
    paper = load(write(tmp_path / "pdf.json", json.dumps(records))).papers.iloc[0]
    assert paper["title"] == "Difficult classification"
    assert paper["abstract"] == (
        "A simulation of piriform cortex and conjunction; the effects of flexible rules on an NN grid and -tubes."
    )
    assert paper["author_keywords"] == ["classification", "effects"]


# --- the load report -------------------------------------------------------------------------------


def test_load_report_round_trips_and_summarises(tmp_path):
    records = [{"id": "a", "title": "A"}, {"id": "a", "title": "B"}, {"id": "a", "title": "A"}, "junk"]
    result = load(write(tmp_path / "report.json", json.dumps(records)))
    report = result.report
    assert (report.records_read, report.loaded, len(report.skipped), len(report.warnings)) == (4, 2, 2, 1)
    summary = report.summary()
    assert summary.startswith(f"{report.source}: loaded 2 of 4 records (json)")
    assert "skipped 2" in summary and "1 warnings" in summary
    again = LoadReport.from_dict(json.loads(json.dumps(report.to_dict())))
    assert again == report and again.lines() == report.lines()
    assert report.lines()[0].startswith("skipped ") and report.lines()[-1].startswith("warning ")


def test_clean_load_summary_has_no_problem_counts(tmp_path):
    report = load(write(tmp_path / "clean.json", json.dumps([{"title": "A"}]))).report
    assert report.summary() == f"{report.source}: loaded 1 of 1 records (json)"
    assert report.lines() == []


def test_content_ids_are_stable_and_distinct(tmp_path):
    path = write(tmp_path / "noids.json", json.dumps([{"title": f"Paper {i}", "abstract": "Same."} for i in range(5)]))
    first, second = load(path).papers, load(path).papers
    assert first["paper_id"].is_unique and list(first["paper_id"]) == list(second["paper_id"])
    moved = write(tmp_path / "moved.json", path.read_text(encoding="utf-8"))
    assert list(load(moved).papers["paper_id"]) == list(first["paper_id"])  # ids do not depend on the path


# --- the real paper lists --------------------------------------------------------------------------


@pytest.mark.parametrize("name", SHARED_FILES)
def test_shared_paper_list_loads_completely(shared_data, name):
    path = shared_data / f"{name}.json"
    if not path.is_file():
        pytest.skip(f"{path} is not present")
    records = json.loads(path.read_text(encoding="utf-8"))
    result = load(path)
    papers = result.papers
    assert result.report.format == "json"
    assert result.report.skipped == [] and result.report.records_read == len(records) == len(papers)
    assert papers["paper_id"].is_unique and (papers["title"].str.strip() != "").all()
    assert not papers["title_is_derived"].any()
    assert list(papers["paper_id"]) == [str(r["id"]) for r in records]
    assert list(papers["title"]) == [readable(" ".join(r["title"].split())) for r in records]
    assert (papers["abstract"] != "").sum() == sum(bool((r.get("abstract") or "").strip()) for r in records)
    venue, year = re.match(r"([a-z]+)(\d{4})", name).groups()
    assert set(papers["venue"]) == {venue.upper()} and set(papers["year"]) == {int(year)}
    authors = [a for names in papers["authors"] for a in names]
    assert authors and not any(";" in a or a != a.strip() for a in authors)
    assert list(load(path).papers["paper_id"]) == list(papers["paper_id"])  # stable across loads


def test_shared_list_reads_the_same_in_every_format(shared_data, tmp_path):
    path = shared_data / "uai2024.json"
    if not path.is_file():
        pytest.skip(f"{path} is not present")
    reference = load(path).papers
    records = json.loads(path.read_text(encoding="utf-8"))
    frame = pd.DataFrame(records)[["id", "title", "author", "abstract", "status", "site"]]
    copies = {
        "jsonl": "\n".join(json.dumps(r, ensure_ascii=False) for r in records),
        "csv": frame.to_csv(index=False),
        "tsv": frame.to_csv(index=False, sep="\t"),
    }
    for fmt, text in copies.items():
        write(tmp_path / f"uai2024.{fmt}", text)
    frame.to_parquet(tmp_path / "uai2024.parquet")
    for fmt in ("jsonl", "csv", "tsv", "parquet"):
        result = load(tmp_path / f"uai2024.{fmt}")
        assert result.report.format == fmt and not result.report.skipped
        for column in ("paper_id", "title", "abstract", "authors", "venue", "year", "status", "url"):
            assert result.papers[column].tolist() == reference[column].tolist(), (fmt, column)


@pytest.mark.parametrize(
    "name, venue", [("nips2018.json", "NeurIPS"), ("neurips2024.json", "NeurIPS"), ("icml2025_papers.json", "ICML")]
)
def test_venues_from_file_names_are_spelled_as_the_venue_spells_itself(tmp_path, name, venue):
    path = tmp_path / name
    path.write_text(json.dumps([{"title": "A paper", "abstract": "Words."}]))
    assert load_papers(path).papers["venue"].tolist() == [venue]


def test_a_paper_copilot_or_field_is_the_openreview_forum(tmp_path):
    path = tmp_path / "icml2024.json"
    records = [{"id": "01M0N8VgfB", "title": "A paper", "or": "https://openreview.net/forum?id=01M0N8VgfB"}]
    path.write_text(json.dumps(records))
    assert load_papers(path).papers["openreview_url"].tolist() == ["https://openreview.net/forum?id=01M0N8VgfB"]


def test_every_icml_2024_paper_gets_its_openreview_forum():
    path = SHARED_DATA / "icml2024.json"
    if not path.exists():
        pytest.skip("../shared is absent")
    papers = load_papers(path).papers
    assert len(papers) == 2610 and (papers["openreview_url"].str.startswith("https://openreview.net/forum?id=")).all()


def test_a_map_of_editions_with_and_without_abstracts_is_analysed_by_titles_alone():
    import pandas as pd

    from lib.schema import analysis_texts, titles_only

    papers = pd.DataFrame(
        {
            "title": ["Kernels", "Graphs", "Sets"],
            "title_is_derived": [False] * 3,
            "abstract": ["We study kernels.", "We study graphs.", ""],
            "edition": ["ICML 2019", "ICML 2019", "ICML 2025"],
        }
    )
    assert titles_only(papers) and analysis_texts(papers) == ["Kernels", "Graphs", "Sets"]
    one = papers.assign(edition="ICML 2025")  # one edition: a paper without an abstract is just that
    assert not titles_only(one) and analysis_texts(one) == [
        "Kernels. We study kernels",
        "Graphs. We study graphs",
        "Sets",
    ]
    # Some papers of the mixed map, all of the edition with abstracts, are read as the map reads them.
    assert analysis_texts(papers.iloc[:2], papers) == ["Kernels", "Graphs"]
    assert analysis_texts(papers.iloc[:2]) == ["Kernels. We study kernels", "Graphs. We study graphs"]
    both = papers.assign(abstract=["A.", "B.", "C."])
    assert not titles_only(both)
