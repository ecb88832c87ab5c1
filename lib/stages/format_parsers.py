"""One parser per paper-list format, from the file's text (Parquet: its bytes) to (label, record) pairs,
and the record helpers they share: a record's fields by name, missing values, OpenReview links.

Plain text, JSON, OpenReview notes, a conference virtual site's events, JSONL, CSV and TSV, Parquet;
`lib.stages.readers` detects the format, decodes the bytes and calls the parser (`PARSERS`).
"""

from __future__ import annotations

import csv
import io
import json
import re
import urllib.parse
from collections.abc import Iterable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

from lib.errors import InputError
from lib.limits import limits

# The ways a paper is presented, as statuses and session kinds name them.
PRESENTATION_KINDS = ("oral", "spotlight", "poster")
_OPENREVIEW_ID = re.compile(r"^[A-Za-z0-9_\-]{5,40}$")
# The OpenReview group a virtual site's event links to: `.../group?id=ICML.cc/2025/Conference`.
_SOURCE_GROUP = re.compile(r"id=([A-Za-z]+)\.cc/((?:19|20)\d\d)\b")

# Each reader yields (record label, record mapping or a non-mapping to be reported).
Records = Iterator[tuple[str, Any]]


def text_records(text: str) -> tuple[str, Records]:
    """Plain text's heading (a short first line, else "") and one record per paragraph, as its abstract."""
    blocks = [b.strip() for b in re.split(r"\n\s*\n", text.replace("\r\n", "\n")) if b.strip()]
    heading = ""
    # A heading is one short line without sentence punctuation at its end.
    if blocks and "\n" not in blocks[0] and len(blocks[0]) <= 120 and not blocks[0].endswith("."):
        heading = blocks.pop(0)
    return heading, ((f"paragraph {n}", {"abstract": b}) for n, b in enumerate(blocks, 1))


def _json_records(text: str, path: Path) -> Records:
    data = parse_json(text, path)
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
    limit = limits().list_records
    if len(data) > limit:  # said at once, not after the first `limit` records are read
        raise InputError(
            f"{path}: {len(data):,} records; PaperMap reads at most {limit:,} (PAPERMAP_LIMIT_LIST_RECORDS)"
        )
    return ((f"record {n}", item) for n, item in enumerate(data, 1))


def _openreview_records(text: str, path: Path) -> Records:
    data = parse_json(text, path)
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
        content = note.get("content")
        content = content if isinstance(content, dict) else {}
        # API v2 wraps every field as {"value": ...}; API v1 does not.
        record: dict[str, Any] = {
            k: (v.get("value") if isinstance(v, dict) and "value" in v else v) for k, v in content.items()
        }
        record["id"] = note.get("id") or note.get("forum") or record.get("id", "")
        forum = note.get("forum") or record["id"]
        if forum:
            record.setdefault("openreview_url", f"https://openreview.net/forum?id={forum}")
        if not record.get("url") and forum:
            record["url"] = f"https://openreview.net/forum?id={forum}"
        if isinstance(record.get("pdf"), str) and record["pdf"].startswith("/"):
            record["pdf"] = f"https://openreview.net{record['pdf']}"  # API v2 gives the path alone
        venue = str(record.get("venue") or "")
        # Whole words only: "Moral Philosophy 2024" is not an oral.
        status = _status_named(venue)
        if status and not record.get("status"):
            record["status"] = status
        if venue:
            record["venue"] = re.sub(r"\s+(oral|spotlight|poster|conference)\w*\b.*$", "", venue, flags=re.I)
        yield f"note {n}", record


def _virtual_site_records(text: str, path: Path) -> Records:
    """A conference virtual site's events (`{"count": N, "results": [...]}`) as one record per paper.

    An oral paper is two events, its oral and its poster: events are one paper when they link to
    the same OpenReview forum, share a `uid`, or name each other (`related_events_ids`, `parent_id`).
    The paper's record keeps every event as one of its `sessions`.
    """
    data = parse_json(text, path)
    events = data.get("results") if isinstance(data, dict) else data
    if not isinstance(events, list):
        raise InputError(f'{path}: expected a conference site\'s events ({{"results": [...]}})')
    usable = []
    for n, event in enumerate(events, 1):
        if isinstance(event, dict):
            usable.append((n, event))
        else:
            yield f"event {n}", event
    for group in _same_paper_groups([event for _, event in usable]):
        numbers = [usable[i][0] for i in group]
        label = f"event {numbers[0]}" if len(numbers) == 1 else f"events {', '.join(map(str, numbers))}"
        yield label, _paper_of_events([usable[i][1] for i in group])


def _same_paper_groups(events: list[dict]) -> list[list[int]]:
    """Indices of `events` grouped by paper (union-find over the links between them), in file order."""
    parent = list(range(len(events)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    # Only ids of events in this file link: posters whose parent is the same session (not listed
    # here) are different papers.
    listed = {str(e.get("id")) for e in events if e.get("id") not in (None, "")}
    first_with: dict[tuple[str, str], int] = {}
    for i, event in enumerate(events):
        named = [str(e) for e in [event.get("id"), event.get("parent_id"), *_as_items(event.get("related_events_ids"))]]
        links = [("forum", openreview_id(event.get("paper_url"))), ("uid", str(event.get("uid") or ""))]
        links += [("event", e) for e in named if e in listed]
        for link in links:
            if not link[1]:
                continue
            if link in first_with:
                parent[root(i)] = root(first_with[link])
            else:
                first_with[link] = i
    groups: dict[int, list[int]] = {}
    for i in range(len(events)):
        groups.setdefault(root(i), []).append(i)
    return sorted(groups.values())


def _paper_of_events(events: list[dict]) -> dict[str, Any]:
    """One paper's record from its events: each field from the first event that has it, the
    longest abstract, the longest author list; every event becomes one of its sessions."""

    def first(*names: str) -> Any:
        return next((e[n] for n in names for e in events if not is_missing(e.get(n))), None)

    authors = max((a for a in (_as_items(e.get("authors")) for e in events)), key=len, default=[])
    people = [a for a in authors if isinstance(a, dict)]
    group = _SOURCE_GROUP.search(str(first("sourceurl") or ""))
    page = str(first("virtualsite_url") or "")
    if page.startswith("/") and group:
        page = f"https://{group.group(1).lower()}.cc{page}"
    sessions = [
        {
            "kind": e.get("eventtype") or e.get("event_type") or "",
            "name": e.get("session") or "",
            "room": e.get("room_name") or "",
            "start": e.get("starttime"),
            "end": e.get("endtime"),
            "poster_position": e.get("poster_position") or "",
        }
        for e in events
    ]
    kinds = " ".join(str(s["kind"]) + " " + str(e.get("decision") or "") for s, e in zip(sessions, events)).lower()
    forum = openreview_id(first("paper_url"))
    return {
        "id": forum or str(first("uid", "id") or ""),
        "title": first("name"),
        "abstract": max((str(e.get("abstract") or "") for e in events), key=len),
        "authors": [str(a.get("fullname") or "") for a in people] if people else authors,
        "institutions": [str(a.get("institution") or "") for a in people],
        "keywords": first("keywords"),
        "primary_area": first("topic"),
        "status": _status_named(kinds),
        "venue": f"{group.group(1)} {group.group(2)}" if group else None,
        "url": page,
        "openreview_url": str(first("paper_url") or "") if forum else "",
        "pdf_url": first("paper_pdf_url"),
        "sessions": sessions,
    }


def _status_named(text: str) -> str:
    """The first of Oral, Spotlight, Poster that `text` names. A word start only: ICML writes
    `spotlightposter`, yet "Moral Philosophy" is not an oral."""
    return next((s.title() for s in PRESENTATION_KINDS if re.search(rf"\b{s}", text, re.I)), "")


def _as_items(value: Any) -> list:
    return list(value) if isinstance(value, list) else []


def openreview_id(link: Any) -> str:
    """The forum id of an OpenReview link (`https://openreview.net/forum?id=X`, `/pdf?id=X`), else ""."""
    try:
        parts = urllib.parse.urlsplit(str(link or "").strip())
    except ValueError:  # "http://[" and the like
        return ""
    if not parts.netloc.lower().endswith("openreview.net"):
        return ""
    found = urllib.parse.parse_qs(parts.query).get("id", [""])[0]
    return found if _OPENREVIEW_ID.match(found) else ""


def openreview_forum(text: str, *, bare_id: bool = False) -> str:
    """The canonical forum link of an OpenReview link (or, with `bare_id`, of a forum id alone); else ""."""
    text = text.strip()
    if not text:  # most lists' records have no such link: no URL to parse
        return ""
    found = openreview_id(text) or (text if bare_id and _OPENREVIEW_ID.match(text) and not text.isdigit() else "")
    return f"https://openreview.net/forum?id={found}" if found else ""


def _jsonl_records(text: str, path: Path) -> Records:
    # Split on "\n" only: str.splitlines() also breaks at U+2028, U+0085 and other characters that
    # JSON strings may hold unescaped. json.loads ignores the "\r" of a CRLF line end.
    for n, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            yield f"line {n}", json_loads(line)
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


def parquet_records(raw: bytes, path: Path) -> Records:
    """A Parquet file's rows, missing values as None."""
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
        key = _field_name(name) if type(name) is str else _field_name(str(name))
        if key not in record or is_missing(record[key]):
            record[key] = value
    return record


@lru_cache(maxsize=1024)
def _field_name(name: str) -> str:
    """A field's name as `fields` matches it, worked out once per name, not once per record."""
    return name.strip().lower()


def is_missing(value: Any) -> bool:
    """None, NaN, blank text or an empty list. Safe for Parquet's NumPy arrays, whose `==` is elementwise."""
    if value is None or (isinstance(value, float) and value != value):
        return True
    if isinstance(value, str):
        return not value.strip()
    return hasattr(value, "__len__") and len(value) == 0


def parse_json(text: str, path: Path) -> Any:
    """`json_loads` of `text`, or `InputError` naming `path` and where the JSON stops being valid."""
    try:
        return json_loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"{path}: invalid JSON at line {error.lineno}, column {error.colno}: {error.msg}") from None
    except RecursionError:
        raise InputError(f"{path}: JSON nested too deeply to read") from None


def json_loads(text: str) -> Any:
    """`json.loads`, keeping an integer too long for Python as its digits (`json_int`)."""
    return json.loads(text, parse_int=json_int)


def json_int(digits: str) -> int | str:
    """An integer of `digits`, or the digits themselves when too long for Python."""
    # Python refuses to turn more than 4,300 digits into an int (sys.set_int_max_str_digits); one such
    # number in one field must not make a whole list unreadable, so it stays text.
    try:
        return int(digits)
    except ValueError:
        return digits


def _keys(data: dict) -> str:
    return ", ".join(repr(k) for k in list(data)[:5]) or "none"


# The parsers of the text formats by name (`lib.stages.readers.FORMATS`); plain text and Parquet are read apart.
PARSERS = {
    "json": _json_records,
    "openreview": _openreview_records,
    "virtual-site": _virtual_site_records,
    "jsonl": _jsonl_records,
    "csv": lambda text, path: _delimited_records(text, ","),
    "tsv": lambda text, path: _delimited_records(text, "\t"),
}
