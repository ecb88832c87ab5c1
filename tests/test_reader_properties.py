"""Property tests for the readers: arbitrary records, written in every format a paper list can have,
never crash the loader; every record read is kept or reported, and every record with a usable title
is kept. Arbitrary bytes, read as any format, load or are refused in one line naming the file.

Derandomized and without an example database, so every run (and CI) tries the same examples.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import re
import unicodedata
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lib.errors import InputError
from lib.files import write_frame
from lib.stages.load import FIELD_ALIASES, FORMATS, LoadResult, load_papers

PROPERTY = settings(
    max_examples=150, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow]
)

# --- strategies ------------------------------------------------------------------------------------

# Text of every Unicode category: control characters, format characters, astral emoji, unassigned
# code points, and lone surrogates (JSON writes them as "\ud800" escapes; UTF-8 cannot hold them).
ANY_TEXT = st.text(st.characters(exclude_categories=()), max_size=30)
ODD_TEXT = st.sampled_from(
    [
        "",
        " \t ",
        "\x00\x07\x1b",
        "\u2028\u2029\x85",
        "\ufeff",
        "\r\n",
        '"',
        ",",
        "\t",
        "NaN",
        "null",
        "[]",
        "$$",
        "\\frac{}{}",
        "$\\alpha$",
        "😀🧪",
        "Нейронные сети",
        "深度学习 的 研究",
        "مرحبا",
        "\u202eevil",
        '=HYPERLINK("http://x")',
    ]
)
LONG_TEXT = st.sampled_from(["a", "word "]).map(
    lambda unit: unit * 30_000
)  # past the abstract cut and csv's 128 KiB field limit
TEXT = ANY_TEXT | ODD_TEXT | LONG_TEXT
SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | TEXT  # floats include NaN and infinities
JSON_VALUES = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4), max_leaves=12
)
ALIASES = sorted({alias for aliases in FIELD_ALIASES.values() for alias in aliases})
# Field names the loader knows, as given or with other case and spaces, and anything else.
KEYS = st.sampled_from(ALIASES) | st.sampled_from(ALIASES).map(lambda k: f" {k.upper()} ") | ANY_TEXT
RECORDS = st.dictionaries(KEYS, JSON_VALUES, max_size=8)
# A title any reader must keep: letters and digits of any script, so no LaTeX, markup or spaces to clean.
USABLE_TITLES = st.text(st.characters(categories=["L", "N"]), min_size=1, max_size=40)


def is_title_key(key: str) -> bool:
    return key.strip().lower() == "title"  # how the loader matches field names


@st.composite
def usable_records(draw) -> dict:
    """Arbitrary fields around a title that must be kept (no other field competes for `title`)."""
    record = {k: v for k, v in draw(RECORDS).items() if not is_title_key(k)}
    record["title"] = draw(USABLE_TITLES)
    return record


# (item, whether its title must be kept): records, usable records, and things that are not records.
ENTRIES = st.lists(
    RECORDS.map(lambda r: (r, False))
    | usable_records().map(lambda r: (r, True))
    | JSON_VALUES.map(lambda v: (v, False)),
    max_size=12,
)

# --- writers: items -> (file content, records written) ---------------------------------------------

SURROGATE = re.compile("[\ud800-\udfff]")

ENCODINGS = {
    "utf-8": lambda text: text.encode("utf-8", "surrogatepass"),  # a lone surrogate makes invalid UTF-8
    "utf-8 with BOM": lambda text: codecs.BOM_UTF8 + text.encode("utf-8", "surrogatepass"),
    "utf-16 LE with BOM": lambda text: codecs.BOM_UTF16_LE + text.encode("utf-16-le", "surrogatepass"),
    "utf-16 BE with BOM": lambda text: codecs.BOM_UTF16_BE + text.encode("utf-16-be", "surrogatepass"),
}


def as_json(items: list, ensure_ascii: bool) -> tuple[str, int]:
    return json.dumps(items, ensure_ascii=ensure_ascii), len(items)


def as_wrapped_json(items: list, ensure_ascii: bool) -> tuple[str, int]:
    return json.dumps({"count": len(items), "results": items}, ensure_ascii=ensure_ascii), len(items)


def as_jsonl(items: list, ensure_ascii: bool) -> tuple[str, int]:
    return "".join(json.dumps(item, ensure_ascii=ensure_ascii) + "\n" for item in items), len(items)


def as_openreview(items: list, ensure_ascii: bool) -> tuple[str, int]:
    """API v2 notes: each field wrapped as {"value": ...}; a non-record item stays a bare note."""
    notes = [
        {"id": f"n{n}", "content": {k: {"value": v} for k, v in item.items()}} if isinstance(item, dict) else item
        for n, item in enumerate(items)
    ]
    return json.dumps({"notes": notes}, ensure_ascii=ensure_ascii), len(items)


def as_delimited(items: list, delimiter: str) -> tuple[str, int]:
    """One row per record (a table cannot hold other items), every value as its text."""
    rows = [item for item in items if isinstance(item, dict)]
    out = io.StringIO()
    writer = csv.DictWriter(out, list(dict.fromkeys(k for row in rows for k in row)), delimiter=delimiter)
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue(), len(rows)


def as_parquet(items: list) -> tuple[bytes, int]:
    """One row per record, every value as text (a Parquet column holds one type) or null; lone
    surrogates, which Parquet's UTF-8 cannot hold, as U+FFFD."""

    def cell(value):
        return (
            None if value is None else SURROGATE.sub("\ufffd", value if isinstance(value, str) else json.dumps(value))
        )

    rows = [{SURROGATE.sub("\ufffd", k): cell(v) for k, v in item.items()} for item in items if isinstance(item, dict)]
    frame = pd.DataFrame(rows)
    buffer = io.BytesIO()
    write_frame(buffer, frame)
    return buffer.getvalue(), len(rows) if len(frame.columns) else 0  # Parquet keeps no rows without columns


TEXT_WRITERS = {
    "json": as_json,
    "json results": as_wrapped_json,
    "jsonl": as_jsonl,
    "openreview": as_openreview,
    "csv": lambda items, ensure_ascii: as_delimited(items, ","),
    "tsv": lambda items, ensure_ascii: as_delimited(items, "\t"),
}
WRITERS = [*TEXT_WRITERS, "parquet"]
READ_AS = {"json results": "json"}  # the loader's format name where it differs from the writer's


def written_file(items: list, writer: str, encoding: str, ensure_ascii: bool) -> tuple[bytes, int, bool]:
    """The file `writer` makes of `items`, the records it holds, and whether the loader may refuse it:
    only when it holds no text, or characters its encoding cannot hold (lone surrogates, which JSON
    escapes only with ensure_ascii), never for what the records hold."""
    if writer == "parquet":
        return *as_parquet(items), False
    text, written = TEXT_WRITERS[writer](items, ensure_ascii)
    return ENCODINGS[encoding](text), written, not text.strip() or bool(SURROGATE.search(text))


# --- checks ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("properties")


def loaded_or_refused(path: Path, input_format: str) -> LoadResult | None:
    """`load_papers`' result, or None when it refused the file with one line naming it; any other
    exception fails the test."""
    try:
        result = load_papers(path, input_format)
    except InputError as error:
        message = str(error)
        assert message.startswith(f"{path}: ") and "\n" not in message, message
        return None
    check_complete(result)
    return result


def check_complete(result: LoadResult) -> None:
    """Every record read is kept or skipped with a reason; the table and report can be stored and printed."""
    papers, report = result.papers, result.report
    assert report.loaded == len(papers)
    assert report.loaded + len(report.skipped) == report.records_read
    assert all(issue.record and issue.problem for issue in report.skipped + report.warnings)
    assert papers["paper_id"].is_unique and papers["paper_id"].ne("").all()
    assert (papers["title"].ne("") | papers["abstract"].ne("")).all()
    write_frame(io.BytesIO(), papers)  # what the build's cache writes: fails on text no encoder can hold
    "\n".join(report.lines()).encode("utf-8")  # what the CLI prints


# --- properties ------------------------------------------------------------------------------------


@PROPERTY
@given(
    entries=ENTRIES,
    writer=st.sampled_from(WRITERS),
    encoding=st.sampled_from(sorted(ENCODINGS)),
    ensure_ascii=st.booleans(),
)
def test_arbitrary_records_are_kept_or_reported_in_every_format(folder, entries, writer, encoding, ensure_ascii):
    raw, written, refusable = written_file([item for item, _ in entries], writer, encoding, ensure_ascii)
    path = folder / f"papers.{writer.split()[0]}"
    path.write_bytes(raw)
    result = loaded_or_refused(path, READ_AS.get(writer, writer))
    loaded_or_refused(path, "auto")  # whatever the content is taken for, the same guarantees hold
    if result is None:
        assert refusable, raw[:200]
        return
    assert result.report.records_read == written
    usable = {unicodedata.normalize("NFC", item["title"]) for item, must_keep in entries if must_keep}
    assert usable <= set(result.papers["title"])


# Pieces of every format's syntax, so that random files are often almost valid.
SYNTAX = st.sampled_from(
    [
        "[",
        "]",
        "{",
        "}",
        ",",
        ":",
        '"',
        "\n",
        "\r\n",
        "\t",
        " ",
        '"title"',
        '"abstract"',
        '"id"',
        '"notes"',
        '"content"',
        '"value"',
        '"papers"',
        "title,abstract\n",
        "title\tabstract\n",
        "null",
        "true",
        "NaN",
        "-Infinity",
        "1e999",
        "7" * 5000,
        '"\\ud800"',
        '"\\u0000"',
        '"x"',
        "\\",
        "PAR1",
        "\ufeff",
        "\x00",
        "$\\frac{",
        "😀",
    ]
)
RAW_TEXT = st.lists(SYNTAX | ANY_TEXT, max_size=40).map("".join)
RAW_FILES = (
    st.binary(max_size=200)
    | RAW_TEXT.map(lambda text: text.encode("utf-8", "surrogatepass"))
    | RAW_TEXT.map(lambda text: codecs.BOM_UTF16_LE + text.encode("utf-16-le", "surrogatepass"))
)


@PROPERTY
@given(raw=RAW_FILES, input_format=st.sampled_from(FORMATS))
def test_any_bytes_are_read_or_refused_in_one_line(folder, raw, input_format):
    path = folder / "random.json"
    path.write_bytes(raw)
    loaded_or_refused(path, input_format)
