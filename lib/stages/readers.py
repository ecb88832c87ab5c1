"""Paper-list formats: detect a file's format and turn its bytes into (label, record) pairs.

Records are raw mappings as the source wrote them (or, for an unreadable one, an `InputError`
that the loader reports as skipped); `lib.stages.load` normalizes them into the papers table.
Each format's parser is in `lib.stages.format_parsers`; this module detects, decodes and bounds.
"""

from __future__ import annotations

import codecs
import io
import re
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import BinaryIO

from lib.errors import InputError, read_error
from lib.limits import limits, too_many_records
from lib.stages.format_parsers import PARSERS, Records, json_loads, parquet_records, parse_json, text_records
from lib.stages.json_list import list_records

HEAD_BYTES = 65536  # the first bytes that tell a file's format
FORMATS = ("auto", "text", "json", "openreview", "virtual-site", "jsonl", "csv", "tsv", "parquet")
# A UTF-8 JSON list: an optional byte-order mark, whitespace, then "[".
_JSON_LIST_START = re.compile(rb"(?:\xef\xbb\xbf)?[ \t\n\r]*\[")
# Fields only a conference virtual site's events have (MiniConf: icml.cc, neurips.cc, iclr.cc).
_VIRTUAL_SITE_FIELD = re.compile(r'"(?:eventtype|event_type|virtualsite_url|poster_position)"\s*:')


def read_records(raw: bytes, path: Path, fmt: str) -> tuple[str, Records]:
    """The file's heading (plain text only, else "") and its records, read as format `fmt`.

    Raises `InputError` naming the file when it cannot be decoded or parsed at all.
    """
    limit = limits().list_records
    if fmt == "parquet":
        return "", _at_most(parquet_records(raw, path), path, limit)
    if fmt == "json" and _JSON_LIST_START.match(raw):
        return "", _list_records(partial(_bytes_from, raw, _past_utf8_mark(raw)), lambda: raw, path)
    text = _decode(raw, path)
    if not text.strip():  # a byte-order mark and whitespace only
        raise InputError(f"{path}: the file is empty")
    if fmt == "text":
        heading, records = text_records(text)
        return heading, _at_most(records, path, limit)
    return "", _at_most(PARSERS[fmt](text, path), path, limit)


def is_json_list(head: bytes, fmt: str) -> bool:
    """Whether a file whose first bytes are `head` is read as a JSON list (`read_json_list`), as format
    `fmt` ("auto" or "json"): `detect_format` and `read_records` read it so."""
    return fmt in ("auto", "json") and _JSON_LIST_START.match(head) is not None


def read_json_list(path: Path, head: bytes) -> Records:
    """The records of the JSON list file `path`, whose first bytes are `head` (`is_json_list`), read
    from the file a window at a time: never held whole, unless it is not valid JSON (for the error
    that reading it whole gives)."""
    try:
        yield from _list_records(partial(_file_from, path, _past_utf8_mark(head)), path.read_bytes, path)
    except OSError as error:
        raise InputError(read_error(path, error)) from None


def _list_records(open_list: Callable[[], BinaryIO], read_whole: Callable[[], bytes], path: Path) -> Records:
    """A JSON list's records a record at a time, counted before any is worked on (a list past the limit
    is never parsed whole); parsed whole from `read_whole()` where the window reading stops."""
    limit = limits().list_records
    records = list_records(open_list, lambda: parse_json(_decode(read_whole(), path), path), str(path), limit)
    return _at_most(records, path, limit)


def _bytes_from(raw: bytes, start: int) -> BinaryIO:
    stream = io.BytesIO(raw)  # shares the bytes, copies none
    stream.seek(start)
    return stream


def _file_from(path: Path, start: int) -> BinaryIO:
    stream = open(path, "rb")  # closed by its reader (`lib.stages.json_list`)
    stream.seek(start)
    return stream


def _past_utf8_mark(raw: bytes) -> int:
    """The first byte past a UTF-8 byte-order mark."""
    return len(codecs.BOM_UTF8) if raw.startswith(codecs.BOM_UTF8) else 0


def _at_most(records: Records, path: Path, limit: int) -> Records:
    """`records`, refused with `InputError` at the first past `limit` (`lib.limits`), before any stage works on them."""
    for n, record in enumerate(records, 1):
        if n > limit:
            raise too_many_records(str(path), limit)
        yield record


def detect_format(raw: bytes) -> str:
    """Guess a file's format from its first bytes."""
    if raw.startswith(b"PAR1"):
        return "parquet"
    head = raw[:HEAD_BYTES]
    stripped = _decode_loosely(head).lstrip()
    if stripped.startswith("["):
        return "json"
    if stripped.startswith("{"):
        first_line, newline, rest = stripped.partition("\n")
        if not newline and len(raw) > len(head):
            # The first line runs past the sample (a JSONL record with a long abstract): read it whole.
            first_line, newline, rest = _decode_loosely(raw).lstrip().partition("\n")
        if rest.strip() and _is_json_object(first_line):
            return "jsonl"
        # {"count": N, "notes": [...]} is OpenReview's; {"count": N, "results": [...]} a plain list,
        # unless its results are a conference site's events (ICML's virtual site).
        if re.match(r'\{\s*(?:"count"\s*:\s*\d+\s*,\s*)?"notes"', stripped):
            return "openreview"
        if re.search(r'"results"\s*:', stripped) and _VIRTUAL_SITE_FIELD.search(stripped):
            return "virtual-site"
        return "json"
    first_line = stripped.split("\n", 1)[0].lower()
    for delimiter, name in (("\t", "tsv"), (",", "csv")):
        cells = {c.strip().strip('"') for c in first_line.split(delimiter)}
        if len(cells) > 1 and cells & {"title", "abstract", "paper_title", "summary"}:
            return name
    return "text"


def _decode_loosely(raw: bytes) -> str:
    """Text for format detection: honours a byte-order mark, ignores undecodable bytes."""
    for bom, encoding in (
        (codecs.BOM_UTF8, "utf-8-sig"),
        (codecs.BOM_UTF16_LE, "utf-16"),
        (codecs.BOM_UTF16_BE, "utf-16"),
    ):
        if raw.startswith(bom):
            return raw.decode(encoding, errors="ignore")
    return raw.decode("utf-8", errors="ignore")


def _is_json_object(line: str) -> bool:
    try:
        return isinstance(json_loads(line), dict)
    except (ValueError, RecursionError):
        return False


def _decode(raw: bytes, path: Path) -> str:
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        encoding, start = "utf-16", 0  # this codec reads the mark itself and counts offsets from it
    else:
        # Strip a UTF-8 mark here, not with "utf-8-sig", whose error offsets skip the mark.
        encoding, start = "utf-8", _past_utf8_mark(raw)
    try:
        return raw[start:].decode(encoding)
    except UnicodeDecodeError as error:
        offset = start + error.start
        raise InputError(
            f"{path}: not valid {encoding.upper()} text (byte {raw[offset]:#04x} at offset {offset}); "
            "save the file as UTF-8"
        ) from None
