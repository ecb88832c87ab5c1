"""How other programs read PaperMap's exports, for the tests: Markdown rendered to HTML, BibTeX
parsed as BibTeX parses it, CSV read back as a spreadsheet imports it."""

from __future__ import annotations

import csv
import io
import re
from html.parser import HTMLParser

from markdown_it import MarkdownIt
from pybtex.database.input.bibtex import Parser

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # a spreadsheet runs a cell starting so as a formula

# What each LaTeX escape prints; any other command, brace or special character in a field came from data.
_LATEX_ESCAPES = {
    r"\textbackslash{}": "\\",
    r"\textbraceleft{}": "{",
    r"\textbraceright{}": "}",
    r"\textasciitilde{}": "~",
    r"\textasciicircum{}": "^",
    r"\%": "%",
    r"\&": "&",
    r"\$": "$",
    r"\#": "#",
    r"\_": "_",
}
_LATEX_TOKEN = re.compile("|".join(re.escape(escape) for escape in _LATEX_ESCAPES) + r"|[\\{}%&$#_~^]")


def markdown_html(text: str) -> str:
    """`text` rendered by CommonMark with raw HTML on and every link target accepted (markdown-it
    drops `javascript:` links by default), so whatever the text would make is in the HTML."""
    renderer = MarkdownIt("commonmark", {"html": True})
    renderer.validateLink = lambda url: True
    return renderer.render(text)


def gfm_html(text: str) -> str:
    """`text` rendered as `markdown_html` does plus GitHub's extensions markdown-it has: ~~strikethrough~~ and tables."""
    renderer = MarkdownIt("commonmark", {"html": True}).enable(["strikethrough", "table"])
    renderer.validateLink = lambda url: True
    return renderer.render(text)


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data) -> None:
        self.text.append(data)


def html_elements(html: str) -> tuple[list[tuple[str, dict]], str]:
    """The start tags of `html` with their attributes, and its text as a browser shows it (entities decoded)."""
    parser = _Elements()
    parser.feed(html)
    parser.close()
    return parser.tags, "".join(parser.text)


def bibtex_entries(text: str) -> dict:
    """The entries of a BibTeX file by key, read by pybtex's BibTeX-compatible parser in strict mode:
    a syntax error raises. Authors stay a plain field, as written."""
    return dict(Parser(person_fields=()).parse_string(text).entries)


def latex_text(value: str) -> str:
    """What a BibTeX field's value prints; AssertionError if it holds LaTeX other than escaped characters."""

    def printed(match: re.Match) -> str:
        if match[0] in "{}":
            return ""
        assert match[0] in _LATEX_ESCAPES, f"unescaped LaTeX {match[0]!r} in {value!r}"
        return _LATEX_ESCAPES[match[0]]

    # Bare braces are BibTeX's case protection ({GNNs}): they print nothing. Braces from the data
    # are escaped (\textbraceleft{}), matched above before a bare brace can be.
    return _LATEX_TOKEN.sub(printed, value)


def csv_rows(text: str) -> list[dict[str, str]]:
    """The rows of a CSV export as the csv module reads them back, by column name."""
    return list(csv.DictReader(io.StringIO(text, newline="")))


def unguarded(cell: str) -> str:
    """A spreadsheet-safe cell's original text: the apostrophe before a formula-like start removed."""
    return cell[1:] if cell.startswith("'") and cell[1:2] in FORMULA_STARTS else cell


def same_text(text: object) -> str:
    """`text` with its whitespace collapsed, as the exports write it."""
    return " ".join(str(text).split())
