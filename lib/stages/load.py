"""Read a paper list in any supported format into the normalized papers table.

Formats: the seed's plain text (a heading, then abstracts separated by blank lines), Paper Copilot
`paperlists` JSON (a list of records), OpenReview API notes JSON, JSONL, CSV, TSV and Parquet.
The format is detected from content unless given. A file that cannot be read raises `InputError`;
a record that cannot be used is skipped and reported, never dropped silently.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Container, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import pandas as pd

from lib.errors import InputError, ParameterError, read_error
from lib.schema import PAPER_COLUMNS, conform, empty_table
from lib.stages.editions import combine_editions, edition_of, linked_papers
from lib.stages.format_parsers import Records, fields, is_missing, openreview_forum
from lib.stages.latex import readable
from lib.stages.readers import FORMATS, HEAD_BYTES, detect_format, is_json_list, read_json_list, read_records
from lib.stages.report import LoadReport, RecordIssue
from lib.stages.sessions import parse_sessions, split_declared_area
from lib.stages.titles import derive_title

__all__ = [
    "FORMATS",
    "LoadReport",
    "LoadResult",
    "RecordIssue",
    "detect_format",
    "load_lists",
    "load_papers",
    "papers_from_bytes",
]


MAX_ABSTRACT_CHARS = 20_000
MAX_SOURCE_TITLE_CHARS = 500
TYPED_BLOCK_ROWS = 10_000  # papers typed at a time (`_typed_block`)

# Source field names accepted for each papers-table column, first match wins.
FIELD_ALIASES: dict[str, tuple[str, ...]] = {
    "paper_id": ("paper_id", "id", "paperid", "forum", "uid", "openreview_id", "arxiv_id"),
    "title": ("title", "paper_title", "name"),
    "abstract": ("abstract", "summary", "abstract_text", "paper_abstract"),
    "authors": ("authors", "author", "author_names", "authors_list"),
    "venue": ("venue", "conference", "booktitle"),
    "year": ("year", "publication_year"),
    "status": ("status", "decision", "presentation_type", "type"),
    "url": ("url", "site", "link", "forum_url", "paper_url", "pdf"),
    "author_keywords": ("author_keywords", "keywords", "keyword"),
    "primary_area": ("primary_area", "primary_subject_area", "area", "subject_area"),
    "institutions": ("institutions", "aff", "affiliations", "affiliation", "institution"),
    "openreview_url": ("openreview_url", "openreview", "or"),  # "or": Paper Copilot's lists
    "pdf_url": ("pdf_url", "paper_pdf_url", "pdf"),
    "sessions": ("sessions",),
    "edition": ("edition",),
}
# Venues whose own name is not their code in capitals, as file names and Paper Copilot's venue
# codes give it (`nips2018`, `neurips2024.json`).
VENUE_NAMES = {"NIPS": "NeurIPS", "NEURIPS": "NeurIPS", "CORL": "CoRL", "3DV": "3DV", "MIDL": "MIDL", "TMLR": "TMLR"}
_VENUE_YEAR = re.compile(r"^\s*(.*?)[\s_\-]*((?:19|20)\d{2})(?!\d)")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# JSON escapes like "\ud800" give lone surrogates, which no encoder can write (UTF-8, Parquet, a page).
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# Text extracted from old PDFs names glyphs its font did not map as "(cid:N)": read as words, "cid"
# labelled a topic of 4,528 corpus papers. A soft hyphen (173) at a line break joins its word again;
# TeX's ligatures ff, fi, fl, ffi (11-14, the same in every corpus abstract that has them) are spelled
# out; any other code names no known glyph (15 is "ffl" in one font, epsilon in another) and is dropped.
_PDF_GLYPH = re.compile(r"\(cid:(\d+)\)(\s*)")
_PDF_GLYPHS = {"173": "", "11": "ff", "12": "fi", "13": "fl", "14": "ffi"}


@dataclass
class LoadResult:
    papers: pd.DataFrame
    report: LoadReport


def load_papers(path: str | Path, input_format: str = "auto") -> LoadResult:
    """Read `path` into the papers table (see `lib.schema.PAPER_COLUMNS`) and a load report.

    Raises `InputError` with one sentence naming the file when nothing can be read from it.
    """
    path = Path(path)
    head = _file_bytes(path, HEAD_BYTES)
    if not is_json_list(head, input_format):
        return papers_from_bytes(_file_bytes(path), path, input_format)
    # A JSON list is read from the file a window at a time: a large list's bytes are never held whole.
    return _loaded(read_json_list(path, head), "", path, "json")


def _file_bytes(path: Path, most: int = -1) -> bytes:
    """The file's bytes, or its first `most`."""
    try:
        with open(path, "rb") as file:
            return file.read(most)
    except OSError as error:
        raise InputError(read_error(path, error)) from None


def load_lists(paths: Sequence[str | Path], input_format: str = "auto") -> LoadResult:
    """`load_papers` of each of `paths`, as one table (`lib.stages.editions.combine_editions`: each
    paper keeps its list's edition) and one report whose records name their file."""
    names = [Path(path).stem for path in paths]
    if len(set(names)) < len(names):
        raise InputError(f"{', '.join(map(str, paths))}: two paper lists have the same file name")
    loaded = [load_papers(path, input_format) for path in paths]
    report = LoadReport(source=" + ".join(str(path) for path in paths), format=loaded[0].report.format)
    for path, result in zip(paths, loaded):
        named = Path(path).name
        report.records_read += result.report.records_read
        report.skipped += [RecordIssue(f"{named} {issue.record}", issue.problem) for issue in result.report.skipped]
        report.warnings += [RecordIssue(f"{named} {issue.record}", issue.problem) for issue in result.report.warnings]
    papers = conform(combine_editions([(name, result.papers) for name, result in zip(names, loaded)]), PAPER_COLUMNS)
    report.loaded = len(papers)
    return LoadResult(papers, report)


def papers_from_bytes(raw: bytes, path: Path, input_format: str = "auto") -> LoadResult:
    """`load_papers` of bytes already read (an upload, a download); `path` names them in messages
    and gives the venue and year when the content does not."""
    if input_format not in FORMATS:
        raise ParameterError(f"input_format must be one of {', '.join(FORMATS)}; got {input_format!r}")
    if not raw or raw.isspace():  # `strip` would copy a large list's bytes
        raise InputError(f"{path}: the file is empty")
    fmt = detect_format(raw) if input_format == "auto" else input_format
    heading, records = read_records(raw, path, fmt)
    # The records hold the bytes until the last is read: unless the caller keeps them too (`load_papers`
    # does not), a large list's bytes are freed before its blocks are joined into one table.
    del raw
    return _loaded(records, heading, path, fmt)


def _loaded(records: Records, heading: str, path: Path, fmt: str) -> LoadResult:
    """The papers table of `records` read as format `fmt` and its report; the venue and year from the
    file's `heading`, else its name."""
    report = LoadReport(source=str(path), format=fmt)
    defaults = _defaults_from_name(heading) or _defaults_from_name(path.stem)
    return LoadResult(_normalize(records, defaults, report), report)


def _defaults_from_name(name: str) -> dict[str, Any]:
    """Venue and year from a file stem or heading such as `icml2025_papers` or `ICML 2025 papers`."""
    found = _venue_year(name)
    return {"venue": found[0], "year": found[1]} if found else {}


@lru_cache(maxsize=1024)
def _venue_year(name: str) -> tuple[str, int] | None:
    """`_defaults_from_name` as a pair, worked out once per name: every record of a list names its venue."""
    match = _VENUE_YEAR.match(name)
    if not match or not match.group(1):
        return None
    venue = re.sub(r"[_\-]+", " ", match.group(1)).strip(" ./")
    return VENUE_NAMES.get(venue.upper(), venue.upper() if venue.islower() else venue), int(match.group(2))


def _normalize(records: Records, defaults: dict[str, Any], report: LoadReport) -> pd.DataFrame:
    blocks: list[pd.DataFrame] = []
    rows: list[dict[str, Any]] = []
    # Every id taken so far, and a digest of each (id, title, abstract) kept, as given or as renamed:
    # an id repeated three times may repeat the second record, not the first. Digests, not the texts,
    # so that the texts' objects are freed with their typed block. Sets, and the next free suffix per
    # id, keep a list of 10^4 records sharing one id linear, not quadratic.
    taken: set[str] = set()
    kept: set[bytes] = set()
    next_suffix: dict[str, int] = {}
    for label, record in records:
        report.records_read += 1
        if isinstance(record, InputError):
            report.skipped.append(RecordIssue(label, str(record)))
            continue
        if not isinstance(record, Mapping):
            report.skipped.append(RecordIssue(label, f"is a {type(record).__name__}, not a record with fields"))
            continue
        warnings: list[str] = []
        row = _row(record, defaults, warnings)
        source_id = row["paper_id"]
        if source_id:
            label = f"{label} (id {source_id!r})"
        if not row["title"] and not row["abstract"]:
            report.skipped.append(RecordIssue(label, "has neither a title nor an abstract"))
            continue
        if not source_id:
            row["paper_id"] = _content_id(row)
        paper_id, digest = row["paper_id"], _record_digest(row["paper_id"], row)
        if paper_id in taken:
            if digest in kept:
                report.skipped.append(RecordIssue(label, f"duplicate of an earlier record with id {paper_id!r}"))
                continue
            row["paper_id"] = _unique_id(paper_id, taken, next_suffix)
            warnings.append(f"id {paper_id!r} is used by an earlier, different record; kept as {row['paper_id']!r}")
            taken.add(row["paper_id"])
            kept.add(_record_digest(row["paper_id"], row))
        taken.add(paper_id)
        kept.add(digest)
        rows.append(row)
        report.warnings.extend(RecordIssue(label, w) for w in warnings)
        if len(rows) == TYPED_BLOCK_ROWS:
            blocks.append(_typed_block(rows))
            rows = []
    if rows:
        blocks.append(_typed_block(rows))
    report.loaded = sum(map(len, blocks))
    if not blocks:
        return empty_table(PAPER_COLUMNS)
    table = _joined(blocks)
    return _linked(table)


def _linked(table: pd.DataFrame) -> pd.DataFrame:
    """`table` with the `same_as` of each paper another edition's paper shares a title with
    (`linked_papers`), among the blocks' empty lists: a new list for every paper would hold them twice."""
    linked = linked_papers(table)
    if linked:
        links = table["same_as"].tolist()
        for row, ids in linked.items():
            links[row] = ids
        table["same_as"] = pd.Series(links, dtype=object)
    return table


def _typed_block(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """`rows` as a papers table, `same_as` left empty. A large list is typed a block at a time, so that
    each block's row dicts and text objects are freed for the next block's instead of all being held
    until the whole list is typed (docs/cluster.md)."""
    # Column by column, as Python objects: a frame from a list of row dicts first stacks them into a
    # 2-D object array, and one guessing dtypes converts text columns that `conform` converts again.
    table = pd.DataFrame({column: [row[column] for row in rows] for column in rows[0]}, dtype=object)
    table["same_as"] = [[] for _ in rows]
    return conform(table, PAPER_COLUMNS)


def _joined(blocks: list[pd.DataFrame]) -> pd.DataFrame:
    """The typed blocks as one table, each text column the blocks' Arrow arrays, not copied into one
    (a large list's texts would be held twice): `conform` joins them where one array matters (a table
    written or pickled, `lib.schema.one_array`), as the build does with the table it loads."""
    table = blocks[0] if len(blocks) == 1 else pd.concat(blocks, ignore_index=True)
    blocks.clear()  # the blocks' own columns freed before the links are made
    return table


def _row(record: Mapping[str, Any], defaults: dict[str, Any], warnings: list[str]) -> dict[str, Any]:
    lowered = fields(record.keys(), record.values())
    present = _aliases_present(tuple(lowered))

    def pick(column: str) -> Any:
        for alias in present[column]:
            value = lowered[alias]
            if not is_missing(value):
                return value
        return None

    def text(column: str, limit: int | None = None) -> str:
        value = pick(column) if present[column] else None
        if value is None:  # most columns of most lists: nothing to clean or report
            return ""
        if type(value) is not str and (isinstance(value, bool) or _is_container(value)):
            warnings.append(f"{column} is a {type(value).__name__}, expected text; left empty")
            return ""
        cleaned = _clean(value)
        if limit and len(cleaned) > limit:
            warnings.append(f"{column} is {len(cleaned):,} characters long; cut to {limit:,}")
            cleaned = cleaned[:limit]
        return cleaned

    row: dict[str, Any] = {
        "paper_id": text("paper_id", 200),
        # Inline LaTeX ($K^2$VAE, \emph{...}) becomes plain text: shown raw it is noise on every page.
        "title": readable(text("title", MAX_SOURCE_TITLE_CHARS)),
        "abstract": readable(text("abstract", MAX_ABSTRACT_CHARS)),
        "authors": _as_list(pick("authors"), warnings, "authors"),
        "venue": "",
        "year": _as_year(pick("year"), warnings),
        "status": text("status"),
        "url": text("url"),
        "author_keywords": _as_list(pick("author_keywords"), warnings, "author_keywords"),
        "primary_area": text("primary_area"),
        "institutions": list(dict.fromkeys(_as_list(pick("institutions"), warnings, "institutions"))),
        "openreview_url": openreview_forum(text("openreview_url"), bare_id=True) or openreview_forum(text("url")),
        "pdf_url": text("pdf_url"),
        "sessions": parse_sessions(pick("sessions"), warnings),
    }
    row["declared_area"], row["declared_subarea"] = split_declared_area(row["primary_area"])
    # A venue like "ICML 2025" or "3dv2025" carries the year; otherwise fall back to the file's.
    venue = text("venue")
    named = _defaults_from_name(venue) or {"venue": venue}
    row["venue"] = named.get("venue") or defaults.get("venue", "")
    row["year"] = row["year"] or named.get("year") or defaults.get("year")
    row["edition"] = text("edition") or edition_of(row["venue"], row["year"])
    row["title_is_derived"] = not row["title"]
    if row["title_is_derived"]:
        row["title"] = derive_title(row["abstract"])
    return row


@lru_cache(maxsize=256)
def _aliases_present(names: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """Per papers-table column, its `FIELD_ALIASES` among a record's field `names`, in alias order.

    A list's records share their field names: this is worked out once per list, not per record and alias."""
    return {column: tuple(a for a in aliases if a in names) for column, aliases in FIELD_ALIASES.items()}


def _is_container(value: Any) -> bool:
    """A list, dict or array (Parquet list cells are NumPy arrays): never usable as text."""
    return isinstance(value, (list, tuple, dict)) or getattr(value, "ndim", 0) > 0


def _clean(value: Any) -> str:
    """Text as one line: Unicode NFC, control characters dropped, whitespace collapsed, PDF glyph codes read."""
    if type(value) is str and "(cid:" in value:
        value = _PDF_GLYPH.sub(_pdf_glyph, value)
    if type(value) is str and value.isprintable():
        # Printable text has no control character, lone surrogate or whitespace but " ", nor has its
        # NFC form (checked over all of Unicode); ASCII is NFC already. Most text is one line with
        # single spaces, and stays as it is.
        text = value if value.isascii() else unicodedata.normalize("NFC", value)
        if "  " in text or text[:1] == " " or text[-1:] == " ":
            return " ".join(text.split())
        return text
    if isinstance(value, bool) or is_missing(value):
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = unicodedata.normalize("NFC", _LONE_SURROGATE.sub("\ufffd", str(value)))
    return " ".join(_CONTROL.sub(" ", text).split())


def _pdf_glyph(code: re.Match[str]) -> str:
    """A "(cid:N)" glyph code as its text; a soft hyphen takes the line break after it along."""
    number, space = code.groups()
    return _PDF_GLYPHS.get(number, "") + ("" if number == "173" else space)


def _as_list(value: Any, warnings: list[str], column: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        separator = ";" if ";" in value else ","
        return [item for item in map(_clean, value.split(separator)) if item]  # text only: nothing to drop
    if isinstance(value, (list, tuple)) or getattr(value, "ndim", 0) > 0:  # not NumPy scalars
        parts = list(value.tolist() if hasattr(value, "tolist") else value)
    else:
        warnings.append(f"{column} is a {type(value).__name__}, expected a list or text; left empty")
        return []
    kept = [p for p in parts if not _is_container(p)]
    if len(kept) < len(parts):
        warnings.append(f"{column} has {len(parts) - len(kept)} items that are not text; dropped")
    items = [_clean(p) for p in kept]
    return [item for item in items if item]


def _as_year(value: Any, warnings: list[str]) -> int | None:
    if value is None:
        return None
    match = re.search(r"\b(1[89]\d\d|20\d\d)\b", str(value))
    if not match:
        warnings.append(f"year {str(value)[:20]!r} is not a year; left empty")
        return None
    return int(match.group(1))


def _content_id(row: dict[str, Any]) -> str:
    digest = hashlib.sha1(f"{row['title']}\n{row['abstract']}".encode()).hexdigest()
    return f"p{digest[:12]}"


def _record_digest(paper_id: str, row: dict[str, Any]) -> bytes:
    """A digest of a record's id, title and abstract, the same for the same three: the text fields are
    one line each, and an id holds no control character (`_clean`), so the line breaks part them."""
    parted = f"{paper_id}\n{row['title']}\n{row['abstract']}".encode()
    return hashlib.blake2b(parted, digest_size=16).digest()


def _unique_id(paper_id: str, taken: Container[str], next_suffix: dict[str, int]) -> str:
    """`paper_id~N` for the smallest free N from the last one handed out for `paper_id`."""
    n = next_suffix.get(paper_id, 2)
    while f"{paper_id}~{n}" in taken:
        n += 1
    next_suffix[paper_id] = n + 1
    return f"{paper_id}~{n}"
