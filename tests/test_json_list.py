"""A JSON list read a record at a time (lib.stages.json_list) gives what reading it whole gives: the
same records, in order, or the same one-line error; through windows of a few bytes too, so every
record, number, escape and multi-byte character crosses a window's edge somewhere.

Derandomized and without an example database, so every run (and CI) tries the same examples.
"""

from __future__ import annotations

import codecs
import json
import logging
import tempfile
import tracemalloc
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lib.errors import InputError
from lib.stages import json_list
from lib.stages.format_parsers import PARSERS, parse_json
from lib.stages.load import load_papers, papers_from_bytes
from lib.stages.readers import HEAD_BYTES, _decode, is_json_list, read_json_list, read_records

PROPERTY = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],  # `window` is the same for all
)
PATH = Path("list.json")

# Astral characters (four UTF-8 bytes, and four bytes a character in a Python string that holds
# one), escapes, lone surrogates, numbers of every kind, nesting.
SCALAR = (
    st.text(st.characters(exclude_categories=()), max_size=12)
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False)
    | st.booleans()
    | st.none()
)
VALUE = st.recursive(
    SCALAR,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
DOCUMENT = st.tuples(
    st.lists(VALUE, max_size=6),
    st.sampled_from([None, 0, 1, 4]),  # json.dumps' indent: one line, or records over many
    st.booleans(),  # ensure_ascii: escapes, or the characters themselves
    st.sampled_from(["", " ", "\n", "\r\n\t "]),  # around the list
    st.booleans(),  # a UTF-8 byte-order mark first
)


def whole(raw: bytes) -> list:
    """The records of `raw` read whole, as before (json.loads of the decoded text)."""
    return parse_json(raw.decode("utf-8-sig"), PATH)


def encoded(document: tuple) -> bytes:
    values, indent, ascii_only, space, bom = document
    text = space + json.dumps(values, indent=indent, ensure_ascii=ascii_only) + space
    return (codecs.BOM_UTF8 if bom else b"") + text.encode()


@pytest.fixture(params=[3, 64, json_list.WINDOW_BYTES], ids=lambda size: f"window {size}")
def window(request, monkeypatch):
    monkeypatch.setattr(json_list, "WINDOW_BYTES", request.param)
    return request.param


@PROPERTY
@given(document=DOCUMENT)
def test_a_valid_list_gives_every_record_in_order_as_read_whole(window, document):
    try:
        raw = encoded(document)
    except UnicodeEncodeError:  # a lone surrogate written as itself, which UTF-8 cannot hold
        return
    read = list(read_records(raw, PATH, "json")[1])
    assert read == [(f"record {n}", value) for n, value in enumerate(whole(raw), 1)]
    assert from_file(raw) == [record for _, record in read]


def from_file(raw: bytes) -> object:
    """`outcome` of `raw` written to a file and read from it as `load_papers` reads a JSON list; its
    error naming the file as `PATH`."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / PATH
        path.write_bytes(raw)
        head = raw[:HEAD_BYTES]
        assert is_json_list(head, "auto")
        read = outcome(lambda: read_json_list(path, head))
        return read.replace(str(path), str(PATH)) if isinstance(read, str) else read


def outcome(read) -> object:
    """The records `read()` gives, or the message of the `InputError` it raises."""
    try:
        return [record for _, record in read()]
    except InputError as error:
        return str(error)


@PROPERTY
@given(
    document=DOCUMENT,
    cut=st.integers(min_value=0),
    junk=st.sampled_from([b"", b"x", b",", b"]", b"[", b"\xff", b"\xe2\x82", b'"']),
)
def test_a_broken_list_gives_the_records_or_the_error_reading_it_whole_gives(window, document, cut, junk):
    try:
        raw = encoded(document)
    except UnicodeEncodeError:
        return
    cut = cut % (len(raw) + 1)
    broken = raw[:cut] + junk + raw[cut + 1 :]  # one byte replaced by `junk`, or dropped
    read_whole = outcome(lambda: PARSERS["json"](_decode(broken, PATH), PATH))
    assert outcome(lambda: read_records(broken, PATH, "json")[1]) == read_whole
    if is_json_list(broken, "json"):  # a file that no longer begins a list is read whole, as bytes are
        assert from_file(broken) == read_whole


def test_a_list_past_the_limit_is_refused_before_any_record_is_worked_on(tmp_path, monkeypatch):
    from lib.stages import load

    monkeypatch.setenv("PAPERMAP_LIMIT_LIST_RECORDS", "3")
    normalized = []
    monkeypatch.setattr(load, "_row", lambda record, *rest: normalized.append(record))
    path = tmp_path / "long.json"
    path.write_text("[" + ", ".join(json.dumps({"title": f"Paper {n}"}) for n in range(4)) + ", {not JSON at all")
    with pytest.raises(InputError, match="long.json: more than 3 records"):
        load_papers(path)
    assert normalized == []


def test_reading_holds_a_window_not_the_whole_text():
    # An astral character makes Python keep a whole decoded text at four bytes a character.
    raw = json.dumps(
        [{"title": f"Paper {n} \U0001f600", "abstract": "word " * 40} for n in range(40_000)], ensure_ascii=False
    ).encode()
    peaks = {}
    for name, read in (("window", lambda: read_records(raw, PATH, "json")[1]), ("whole", lambda: iter(whole(raw)))):
        tracemalloc.start()
        sum(1 for _ in read())
        peaks[name] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peaks["whole"] > 3 * len(raw) and peaks["window"] < len(raw) / 3


def test_a_json_list_file_is_read_from_the_file_never_held_whole(tmp_path):
    path = tmp_path / "icml2025.json"
    values = [{"title": f"Paper {n}", "abstract": "word " * 40} for n in range(20_000)]
    path.write_text(json.dumps(values))
    peaks, tables = {}, {}
    for name, load in (
        ("file", lambda: load_papers(path)),
        ("bytes", lambda: papers_from_bytes(path.read_bytes(), path)),
    ):
        tracemalloc.start()
        tables[name] = load().papers
        peaks[name] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    pd.testing.assert_frame_equal(tables["file"], tables["bytes"])
    assert peaks["file"] < peaks["bytes"] - path.stat().st_size / 2


def test_where_the_window_reading_stops_on_a_valid_list_the_rest_comes_from_reading_it_whole(monkeypatch, caplog):
    values = [{"title": f"Paper {n}"} for n in range(5)]
    raw = json.dumps(values).encode()

    def stops_after_two(open_list):
        yield from values[:2]
        raise ValueError("a reading that disagrees with json.loads")

    monkeypatch.setattr(json_list, "_list_elements", stops_after_two)
    with caplog.at_level(logging.INFO, logger=json_list.__name__):
        assert list(read_records(raw, PATH, "json")[1]) == [(f"record {n}", v) for n, v in enumerate(values, 1)]
    assert "stopped at record 3" in caplog.text
