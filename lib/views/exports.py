"""Exports: a reading list as a Markdown agenda, BibTeX or CSV; the map as a standalone HTML file.

Titles, authors and notes are untrusted text; each format neutralises what would be markup in
it, and only that, so the raw file reads as written: CommonMark syntax is backslash-escaped
(`commonmark_literal`), BibTeX specials are escaped, CSV cells that a spreadsheet would run as a
formula are prefixed with an apostrophe.
"""

from __future__ import annotations

import csv
import html
import io
import itertools
import string
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING
from urllib.parse import quote

import plotly.graph_objects as go

from lib.names import safe_name
from lib.store.reading_lists import Entry
from lib.views.map.script import EXPORT_SCRIPT
from lib.views.markup import commonmark_literal, safe_url

if TYPE_CHECKING:
    import pandas as pd

# BibTeX ends a field at the brace that balances its opening one and ignores backslashes while
# counting, so a "\}" would still close the field (and a title could append entries of its own):
# braces from data become commands whose own braces balance.
_BIBTEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "{": r"\textbraceleft{}",
    "}": r"\textbraceright{}",
    "%": r"\%",
    "&": r"\&",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_KEY_STOPWORDS = frozenset("a an the on of for in to and with via towards toward is are from by at".split())
CSV_COLUMNS = (
    "position",
    "title",
    "authors",
    "presenter",
    "note",
    "status",
    "meeting_date",
    "votes",
    "voters",
    "venue",
    "year",
    "url",
    "paper_id",
    "dataset",
)


def _link(url: str) -> str:
    # A plain http(s) link with spaces, angle brackets, braces and backslashes percent-encoded, so it
    # can neither end a Markdown autolink nor unbalance a BibTeX field; anything else is dropped.
    return quote(safe_url(url), safe=":/?#[]@!$&'()*+,;=%~")


def _authors(entry: Entry) -> str:
    return ", ".join(entry.authors)


def votes_text(entry: Entry) -> str:
    """`3 (Ada, Grace, Alan)`, or "" without votes."""
    return f"{len(entry.votes)} ({', '.join(entry.votes)})" if entry.votes else ""


def venue_year(entry: Entry) -> str:
    """`ICML 2025`, or whichever of the two the entry has."""
    return " ".join(part for part in (entry.venue, str(entry.year) if entry.year else "") if part)


def markdown_agenda(name: str, entries: Sequence[Entry]) -> str:
    """The list as a Markdown agenda: a heading, then one numbered item per paper in list order.

    Each item has the title in bold, authors, venue and year, the presenter, the status, the
    meeting date, the votes, the note and the link (plain http(s) links only). Text is escaped
    with `commonmark_literal`, so the file renders
    (GitHub, markdown-it) as plain text whatever the titles hold, and ordinary text has no escapes.
    Data never starts a line: each piece follows the heading's or the item's own text.
    """
    lines = [f"# Reading list: {commonmark_literal(name)}", ""]
    if not entries:
        lines.append("No papers yet.")
    for number, entry in enumerate(entries, start=1):
        # An empty title would leave "****", a thematic break, where the title belongs.
        lines.append(f"{number}. **{commonmark_literal(entry.title) or '(no title)'}**")
        details = [
            ("Authors", commonmark_literal(_authors(entry))),
            ("Venue", commonmark_literal(venue_year(entry))),
            ("Presenter", commonmark_literal(entry.presenter)),
            ("Status", commonmark_literal(entry.status)),
            ("Meeting", commonmark_literal(entry.meeting_date)),
            ("Votes", commonmark_literal(votes_text(entry))),
            ("Note", commonmark_literal(entry.note)),
            ("Link", f"<{_link(entry.url)}>" if _link(entry.url) else ""),
        ]
        # A sub-list belongs to its item only when indented past the item's marker: "9. " is 3
        # characters, "10. " 4; a fixed 3 split a list of 10 or more into separate lists.
        indent = " " * (len(str(number)) + 2)
        lines += [f"{indent}- {label}: {value}" for label, value in details if value]
    return "\n".join(lines) + "\n"


def _bibtex_escape(text: str) -> str:
    return "".join(_BIBTEX_SPECIALS.get(c, c) for c in " ".join(str(text).split()))


def _protected_title(title: str) -> str:
    """The title escaped, each word with a capital past its first letter (`GNNs`, `K²VAE`,
    `BERT-based`) in braces, so bibliography styles that lower-case titles keep it as written."""
    return " ".join(
        f"{{{_bibtex_escape(word)}}}" if any(c.isupper() for c in word[1:]) else _bibtex_escape(word)
        for word in title.split()
    )


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


# The proceedings' own names of the venues PaperMap fetches, from their year (ICML 2025 was the
# 42nd ICML, ICLR 2025 the 13th; NeurIPS papers appear in "Advances in ...", a volume per year).
_PROCEEDINGS = {
    "icml": (1983, "Proceedings of the {} International Conference on Machine Learning"),
    "iclr": (2012, "The {} International Conference on Learning Representations"),
    "neurips": (1987, "Advances in Neural Information Processing Systems"),
    "nips": (1987, "Advances in Neural Information Processing Systems"),
}


def proceedings_name(venue: str, year: int | None) -> str:
    """A BibTeX `booktitle`: the proceedings' full name for ICML, ICLR and NeurIPS of a known year,
    else the venue as the list gives it."""
    known = _PROCEEDINGS.get(venue.strip().lower())
    if known is None or not year or year <= known[0]:
        return venue
    first, name = known
    return name.format(_ordinal(year - first))


def _ascii_word(text: str) -> str:
    return safe_name(text, keep="", joiner="", strip="", lower=True)


def citation_key(entry: Entry) -> str:
    """`lovelace2025privacy`: first author's last name, year and first significant title word, ASCII.

    Parts that are missing are left out; a key with none of them is `paper`.
    """
    surname = _ascii_word(entry.authors[0].split()[-1]) if entry.authors and entry.authors[0].split() else ""
    words = [w for w in (_ascii_word(w) for w in entry.title.split()) if w and w not in _KEY_STOPWORDS]
    return f"{surname}{entry.year or ''}{words[0] if words else ''}" or "paper"


def _key_suffixes() -> Iterator[str]:
    yield ""
    yield from string.ascii_lowercase[1:]
    yield from (str(n) for n in itertools.count(27))


def bibtex(entries: Sequence[Entry]) -> str:
    """The list as BibTeX `@inproceedings` entries built from each paper's title, authors, venue, year
    and url, with what the group recorded (`group_record`) as its `note`.

    A field the paper lacks is left out: no `author` without authors, no `booktitle` without a
    venue, no `year` without a year, no `url` unless it is a plain http(s) link. The booktitle is
    the proceedings' name (`proceedings_name`); title words with inner capitals are braced
    (`{GNNs}`) so styles keep their case. Text is escaped
    (`{ } \\ % & $ # _ ~ ^`, braces as `\\textbraceleft{}`/`\\textbraceright{}`), so a title can
    neither unbalance the file nor run a LaTeX command. Keys come from
    `citation_key`; a key already used in the file gets `b`, `c`, ... appended, in list order.
    """
    used: set[str] = set()
    blocks = []
    for entry in entries:
        base = citation_key(entry)
        key = next(f"{base}{suffix}" for suffix in _key_suffixes() if f"{base}{suffix}" not in used)
        used.add(key)
        fields = [
            ("title", _protected_title(entry.title)),
            ("author", " and ".join(_bibtex_escape(a) for a in entry.authors if a.strip())),
            ("booktitle", _bibtex_escape(proceedings_name(entry.venue, entry.year))),
            ("year", str(entry.year) if entry.year else ""),
            ("url", _link(entry.url)),
            ("note", _bibtex_escape(group_record(entry))),
        ]
        body = ",\n".join(f"  {field} = {{{value}}}" for field, value in fields if value)
        blocks.append(f"@inproceedings{{{key},\n{body}\n}}")
    return "\n\n".join(blocks) + "\n" if blocks else ""


def group_record(entry: Entry) -> str:
    """What the group recorded of a paper, for BibTeX's `note`: `Status: read; meeting 2026-12-10;
    presenter Ada; votes 2 (Ada, Alan); <the note>`, the parts it has."""
    parts = [
        f"Status: {entry.status}" if entry.status else "",
        f"meeting {entry.meeting_date}" if entry.meeting_date else "",
        f"presenter {entry.presenter}" if entry.presenter else "",
        f"votes {votes_text(entry)}" if entry.votes else "",
        entry.note,
    ]
    return "; ".join(part for part in parts if part)


def _spreadsheet_safe(value: object) -> str:
    text = "" if value is None else str(value)
    # A cell starting like a formula is run by spreadsheets (CSV injection); the apostrophe makes it text.
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def csv_text(entries: Sequence[Entry]) -> str:
    """The list as CSV with `CSV_COLUMNS` (position from 1, authors joined by `; `), safe to open in a spreadsheet."""
    out = io.StringIO()
    writer = csv.writer(out)  # RFC 4180: CRLF rows, so a CR inside a cell gets quoted
    writer.writerow(CSV_COLUMNS)
    for number, entry in enumerate(entries, start=1):
        row = (
            number,
            entry.title,
            "; ".join(entry.authors),
            entry.presenter,
            entry.note,
            entry.status,
            entry.meeting_date,
            len(entry.votes),
            "; ".join(entry.votes),
            entry.venue,
            entry.year,
            entry.url,
            entry.paper_id,
            entry.dataset,
        )
        writer.writerow([_spreadsheet_safe(value) for value in row])
    return out.getvalue()


def map_html(figure: go.Figure, title: str = "PaperMap", notes: Sequence[str] = ()) -> bytes:
    """`figure` as a standalone interactive HTML page (UTF-8) with plotly.js inlined: it works offline.

    The page is titled `title` (its `<title>` and heading) and says `notes` under it (what is
    shown: `lib.views.map.page.export_notes`); both are HTML-escaped. Almost all of its size is
    plotly.js. Its labels follow the zoom as on the dashboard (`lib.views.map.script`). Text in
    the figure is whatever its builder put there (`lib.views.map.figure` escapes paper text).
    """
    # The map fills the window under the title and notes, whatever its size: no fixed height.
    plot = (
        go.Figure(figure)
        .update_layout(height=None, width=None, autosize=True)
        .to_html(
            include_plotlyjs=True,
            full_html=False,
            default_width="100%",
            default_height="100%",
            config={"displaylogo": False, "showSendToCloud": False, "responsive": True},
            post_script=EXPORT_SCRIPT,
        )
    )
    lines = "".join(f"<p>{html.escape(note)}</p>" for note in notes)
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title>"
        f"<style>{_EXPORT_CSS}</style>"
        f"</head><body><h1>{html.escape(title)}</h1>{lines}{plot}</body></html>"
    ).encode()


# The page is the window's height, a column: title and notes, then the map's wrapper taking the rest.
_EXPORT_CSS = (
    "html, body { height: 100%; margin: 0; }"
    " body { font-family: system-ui, sans-serif; padding: 1em 2em; box-sizing: border-box;"
    " display: flex; flex-direction: column; }"
    " h1 { margin: 0 0 .3em; font-size: 1.5em; } p { margin: .2em 0; color: #444; }"
    " body > div:last-of-type { flex: 1; min-height: 0; }"
)


def file_stem(name: str) -> str:
    """A safe file name stem for list `name`: ASCII letters, digits and dashes, never empty."""
    return safe_name(name, keep="", lower=True, fallback="reading-list")


def table_csv(table: pd.DataFrame) -> str:
    """A display table (e.g. `tables.paper_table`) as CSV, every cell made safe to open in a spreadsheet."""
    return table.map(_spreadsheet_safe).to_csv(index=False)
