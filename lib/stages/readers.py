"""Paper-list formats: detect a file's format and turn its bytes into (label, record) pairs.

Records are raw mappings as the source wrote them (or, for an unreadable one, an `InputError`
that the loader reports as skipped); `lib.stages.load` normalizes them into the papers table.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from lib.errors import InputError

FORMATS = ("auto", "text", "json", "openreview", "jsonl", "csv", "tsv", "parquet")
_KNOWN_STATUSES = ("oral", "spotlight", "poster")

# Each reader yields (record label, record mapping or a non-mapping to be reported).
Records = Iterator[tuple[str, Any]]


def read_records(raw: bytes, path: Path, fmt: str) -> tuple[str, Records]:
    """The file's heading (plain text only, else "") and its records, read as format `fmt`.

    Raises `InputError` naming the file when it cannot be decoded or parsed at all.
    """
    if fmt == "parquet":
        return "", _parquet_records(raw, path)
    text = _decode(raw, path)
    if not text.strip():  # a byte-order mark and whitespace only
        raise InputError(f"{path}: the file is empty")
    if fmt == "text":
        return _text_records(text)
    return "", _READERS[fmt](text, path)


def detect_format(raw: bytes) -> str:
    """Guess a file's format from its first bytes."""
    if raw.startswith(b"PAR1"):
        return "parquet"
    head = raw[:65536]
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
        # {"count": N, "notes": [...]} is OpenReview's; {"count": N, "results": [...]} is a plain list.
        return "openreview" if re.match(r'\{\s*(?:"count"\s*:\s*\d+\s*,\s*)?"notes"', stripped) else "json"
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
        return isinstance(_json_loads(line), dict)
    except (ValueError, RecursionError):
        return False


def _decode(raw: bytes, path: Path) -> str:
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        encoding, start = "utf-16", 0  # this codec reads the mark itself and counts offsets from it
    else:
        # Strip a UTF-8 mark here, not with "utf-8-sig", whose error offsets skip the mark.
        encoding, start = "utf-8", len(codecs.BOM_UTF8) if raw.startswith(codecs.BOM_UTF8) else 0
    try:
        return raw[start:].decode(encoding)
    except UnicodeDecodeError as error:
        offset = start + error.start
        raise InputError(
            f"{path}: not valid {encoding.upper()} text (byte {raw[offset]:#04x} at offset {offset}); "
            "save the file as UTF-8"
        ) from None


def _text_records(text: str) -> tuple[str, Records]:
    blocks = [b.strip() for b in re.split(r"\n\s*\n", text.replace("\r\n", "\n")) if b.strip()]
    heading = ""
    # A heading is one short line without sentence punctuation at its end.
    if blocks and "\n" not in blocks[0] and len(blocks[0]) <= 120 and not blocks[0].endswith("."):
        heading = blocks.pop(0)
    return heading, ((f"paragraph {n}", {"abstract": b}) for n, b in enumerate(blocks, 1))


def _json_records(text: str, path: Path) -> Records:
    data = _parse_json(text, path)
    if isinstance(data, dict):
        for key in ("papers", "data", "records", "items", "results"):
            if isinstance(data.get(key), list):
                data = data[key]
                break
        else:
            if "notes" in data:
                return _openreview_notes(data, path)
            raise InputError(f"{path}: expected a JSON list of paper records, found an object with keys {_keys(data)}")
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a JSON list of paper records, found {type(data).__name__}")
    return ((f"record {n}", item) for n, item in enumerate(data, 1))


def _openreview_records(text: str, path: Path) -> Records:
    data = _parse_json(text, path)
    if isinstance(data, list):
        return _openreview_notes({"notes": data}, path)
    if not isinstance(data, dict) or not isinstance(data.get("notes"), list):
        raise InputError(f'{path}: expected OpenReview notes JSON ({{"notes": [...]}})')
    return _openreview_notes(data, path)


def _openreview_notes(data: dict, path: Path) -> Records:
    notes = data.get("notes")
    if not isinstance(notes, list):
        raise InputError(f'{path}: "notes" is not a list')
    for n, note in enumerate(notes, 1):
        if not isinstance(note, dict):
            yield f"note {n}", note
            continue
        content = note.get("content") if isinstance(note.get("content"), dict) else {}
        # API v2 wraps every field as {"value": ...}; API v1 does not.
        record = {k: (v.get("value") if isinstance(v, dict) and "value" in v else v) for k, v in content.items()}
        record["id"] = note.get("id") or note.get("forum") or record.get("id", "")
        if not record.get("url") and record["id"]:
            record["url"] = f"https://openreview.net/forum?id={note.get('forum') or record['id']}"
        venue = str(record.get("venue") or "")
        # Whole words only: "Moral Philosophy 2024" is not an oral.
        status = next((s.title() for s in _KNOWN_STATUSES if re.search(rf"\b{s}\b", venue, re.I)), "")
        if status and not record.get("status"):
            record["status"] = status
        if venue:
            record["venue"] = re.sub(r"\s+(oral|spotlight|poster|conference)\b.*$", "", venue, flags=re.I)
        yield f"note {n}", record


def _jsonl_records(text: str, path: Path) -> Records:
    # Split on "\n" only: str.splitlines() also breaks at U+2028, U+0085 and other characters that
    # JSON strings may hold unescaped. json.loads ignores the "\r" of a CRLF line end.
    for n, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            yield f"line {n}", _json_loads(line)
        except ValueError as error:
            yield f"line {n}", InputError(f"invalid JSON ({error})")
        except RecursionError:
            yield f"line {n}", InputError("JSON nested too deeply to read")


def _delimited_records(text: str, delimiter: str) -> Records:
    # The csv module refuses fields over 128 KiB by default; a long abstract is cut later, with a
    # warning, so allow any field the file could hold. (The limit is process-wide; it only grows.)
    csv.field_size_limit(max(csv.field_size_limit(), len(text)))
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    names = next(reader, [])
    for cells in reader:
        if not cells:  # a blank line
            continue
        if len(cells) > len(names):
            yield (
                f"row {reader.line_num}",
                InputError(f"{len(cells) - len(names)} more cells than the header has columns"),
            )
            continue
        yield f"row {reader.line_num}", fields(names, cells)


def _parquet_records(raw: bytes, path: Path) -> Records:
    try:
        import pandas as pd  # here: only Parquet input needs it

        frame = pd.read_parquet(io.BytesIO(raw))
    except Exception as error:  # pyarrow raises several unrelated types for a damaged file
        raise InputError(f"{path}: not a readable Parquet file ({error})") from None
    rows = frame.astype(object).where(frame.notna(), None).itertuples(index=False, name=None)
    return ((f"row {n}", fields(frame.columns, values)) for n, values in enumerate(rows, 1))


def fields(names: Iterable[Any], values: Iterable[Any]) -> dict[str, Any]:
    """A record's fields by name, lowercased and stripped. Names that then match ("Title", "title ",
    a repeated column) are one field holding its first value that is not missing: an empty duplicate
    cannot hide the text."""
    record: dict[str, Any] = {}
    for name, value in zip(names, values):
        key = str(name).strip().lower()
        if is_missing(record.get(key)):
            record[key] = value
    return record


def is_missing(value: Any) -> bool:
    """None, NaN, blank text or an empty list. Safe for Parquet's NumPy arrays, whose `==` is elementwise."""
    if value is None or (isinstance(value, float) and value != value):
        return True
    if isinstance(value, str):
        return not value.strip()
    return hasattr(value, "__len__") and len(value) == 0


def _parse_json(text: str, path: Path) -> Any:
    try:
        return _json_loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"{path}: invalid JSON at line {error.lineno}, column {error.colno}: {error.msg}") from None
    except RecursionError:
        raise InputError(f"{path}: JSON nested too deeply to read") from None


def _json_loads(text: str) -> Any:
    return json.loads(text, parse_int=_json_int)


def _json_int(digits: str) -> int | str:
    # Python refuses to turn more than 4,300 digits into an int (sys.set_int_max_str_digits); one such
    # number in one field must not make a whole list unreadable, so it stays text.
    try:
        return int(digits)
    except ValueError:
        return digits


def _keys(data: dict) -> str:
    return ", ".join(repr(k) for k in list(data)[:5]) or "none"


_READERS = {
    "json": _json_records,
    "openreview": _openreview_records,
    "jsonl": _jsonl_records,
    "csv": lambda text, path: _delimited_records(text, ","),
    "tsv": lambda text, path: _delimited_records(text, "\t"),
}
