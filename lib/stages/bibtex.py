"""BibTeX: a tolerant reader of `@article{key, title = {...}, ...}` entries and their text as plain Unicode.

It reads what reference managers and publishers export: `{...}` and `"..."` values with nested
braces, `#` concatenation, numbers, `@string` macros and month names; `@comment` and `@preamble`
are skipped, as is text between entries. A value's LaTeX is made readable: accents (`{\\"o}`,
`\\'{e}`, `\\c{c}`, `\\ss`) become their letters, case-protecting braces go, and inline maths and
markup go through `lib.stages.latex.readable`. A file that cannot be read as BibTeX (an unclosed
brace, a field without `=`) raises `InputError` naming the file and the entry, and so does one
whose macros expand a value past `bibtex_value_chars`, or all values past `bibtex_total_chars`
(`lib.limits`): each `@string` may double the one before, so a few hundred bytes could otherwise
ask for gigabytes.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import NoReturn

from lib.errors import InputError
from lib.limits import limits
from lib.stages.latex import readable

# Combining marks for TeX's accent commands: \"o -> o + U+0308 -> ö once normalised.
_SYMBOL_ACCENTS = {
    "`": "\u0300",
    "'": "\u0301",
    "^": "\u0302",
    "~": "\u0303",
    "=": "\u0304",
    ".": "\u0307",
    '"': "\u0308",
}
_LETTER_ACCENTS = {
    "u": "\u0306",
    "v": "\u030c",
    "H": "\u030b",
    "c": "\u0327",
    "k": "\u0328",
    "r": "\u030a",
    "d": "\u0323",
    "b": "\u0331",
    "t": "\u0361",
}
_LETTERS = {
    "ss": "ß",
    "o": "ø",
    "O": "Ø",
    "ae": "æ",
    "AE": "Æ",
    "oe": "œ",
    "OE": "Œ",
    "aa": "å",
    "AA": "Å",
    "l": "ł",
    "L": "Ł",
    "i": "i",
    "j": "j",
}
_BASE = r"(\\[ij](?![A-Za-z])|[A-Za-z])"
_SYMBOL_ACCENT = re.compile(r"\\([`'^~=.\"])\s*(?:\{\s*" + _BASE + r"\s*\}|" + _BASE + ")")
_LETTER_ACCENT = re.compile(r"\\([uvHckrdbt])(?:\s*\{\s*" + _BASE + r"\s*\}|\s+" + _BASE + ")")
_LETTER = re.compile(r"\\(" + "|".join(sorted(_LETTERS, key=len, reverse=True)) + r")(?![A-Za-z])(?:\s*\{\}|\s?)")
# Old-style font switches inside a group: {\em word}, {\bf word}.
_SWITCH = re.compile(r"\\(?:em|bf|it|sl|sc|rm|sf|tt|small|large|Large|normalfont)(?![A-Za-z])\s*")
# What makes a group an argument rather than case protection: a command, a script mark, or the
# group before it (\\href{url}{text}).
_COMMAND_BEFORE = re.compile(r"(\\[A-Za-z]+\*?|[\^_}])\s*$")
_MONTHS = {
    m: m.capitalize() for m in ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
}
_NAME = re.compile(r"[^\s\"#%'(),={}]+")
_SKIPPED_KINDS = ("comment", "preamble")


@dataclass(frozen=True)
class BibEntry:
    """One BibTeX entry: its type (lower-case: "article"), key, line, and fields (lower-case names, raw values)."""

    kind: str
    key: str
    line: int
    fields: dict[str, str]

    @property
    def label(self) -> str:
        """How messages name the entry: `entry smith2024 (line 12)`."""
        return f"entry {self.key} (line {self.line})" if self.key else f"entry at line {self.line}"


def looks_like_bibtex(text: str) -> bool:
    """Whether `text` holds a BibTeX entry (`@type{` or `@type(` at a line's start)."""
    return re.search(r"^[ \t]*@[A-Za-z]+[ \t]*[{(]", text, re.MULTILINE) is not None


def parse_bibtex(text: str, source: str = "the BibTeX") -> list[BibEntry]:
    """The entries of `text`, in order, with their fields' raw values (macros and `#` resolved).

    Raises `InputError` ("SOURCE: entry KEY (line N): ...") when an entry cannot be read.
    """
    return _Parser(text, source).entries()


def bib_text(value: str) -> str:
    """A field's raw value as plain text: accents as letters, no protecting braces, readable LaTeX.

    >>> bib_text(r'{B}ay{\\"e}sian {GNN}s for Gr\\"{o}bner bases --- \\c{c}a $\\ell_1$')
    'Bayësian GNNs for Gröbner bases — ça ℓ₁'
    """
    text = _SYMBOL_ACCENT.sub(_accented, value)
    text = _LETTER_ACCENT.sub(_accented, text)
    text = _LETTER.sub(lambda m: _LETTERS[m.group(1)], text)
    text = _SWITCH.sub("", text)
    text = text.replace("---", "—").replace("--", "–").replace("~", " ").replace("\\\\", " ")
    text = readable(_without_protecting_braces(text))
    text = text.replace("{", "").replace("}", "")
    return " ".join(unicodedata.normalize("NFC", text).split())


def _accented(match: re.Match[str]) -> str:
    mark = match.group(1)
    base = next(g for g in match.groups()[1:] if g is not None).lstrip("\\")
    return base + _SYMBOL_ACCENTS.get(mark, _LETTER_ACCENTS.get(mark, ""))


def _without_protecting_braces(text: str) -> str:
    """`text` without the braces of groups that are no command's argument: `{GNN}s` -> `GNNs`,
    while `\\emph{x}`, `x^{2}` and `\\sqrt{n}` keep theirs for `readable`."""
    drop: set[int] = set()
    stack: list[tuple[int, bool]] = []
    for i, char in enumerate(text):
        if char == "{" and (i == 0 or text[i - 1] != "\\"):
            stack.append((i, _COMMAND_BEFORE.search(text[max(0, i - 40) : i]) is None))
        elif char == "}" and (i == 0 or text[i - 1] != "\\") and stack:
            start, protecting = stack.pop()
            if protecting:
                drop.update((start, i))
    return "".join(char for i, char in enumerate(text) if i not in drop)


class _Parser:
    """A one-pass reader over the text: entries, their fields, values with their delimiters."""

    def __init__(self, text: str, source: str) -> None:
        self.text, self.source, self.pos = text, source, 0
        self.macros = dict(_MONTHS)
        self.limits = limits()
        self.expanded = 0  # characters of all values so far, macros expanded
        self.entry = ""  # the entry being read, for messages

    def entries(self) -> list[BibEntry]:
        found = []
        while (at := self.text.find("@", self.pos)) >= 0:
            self.pos = at + 1
            kind_match = re.compile(r"[A-Za-z]+").match(self.text, self.pos)
            if not kind_match:
                continue  # an @ in text between entries (an e-mail address): not an entry
            after = self._skip_space(kind_match.end())
            if after >= len(self.text) or self.text[after] not in "{(":
                continue
            kind, line = kind_match.group().lower(), self._line(at)
            self.entry = f"entry at line {line}"
            closing = "}" if self.text[after] == "{" else ")"
            self.pos = after + 1
            if kind in _SKIPPED_KINDS:
                self._skip_group(after, closing)
            elif kind == "string":
                self.macros.update(self._fields(closing))
            else:
                key = self._key()
                self.entry = f"entry {key} (line {line})" if key else self.entry
                found.append(BibEntry(kind, key, line, self._fields(closing)))
        return found

    def _key(self) -> str:
        match = re.compile(r"\s*([^\s,{}()=\"#]*)\s*").match(self.text, self.pos)
        assert match is not None  # every part of the pattern may match nothing
        key = match.group(1)
        self.pos = match.end()
        if self.pos < len(self.text) and self.text[self.pos] == ",":
            self.pos += 1
            return key
        if self.pos < len(self.text) and self.text[self.pos] == "=":
            self.pos = match.start()  # no key: the entry starts with its first field
            return ""
        return key

    def _fields(self, closing: str) -> dict[str, str]:
        fields: dict[str, str] = {}
        while True:
            self.pos = self._skip_space(self.pos)
            while self.pos < len(self.text) and self.text[self.pos] == ",":
                self.pos = self._skip_space(self.pos + 1)
            if self.pos >= len(self.text):
                self._fail(f"it is never closed with '{closing}'")
            if self.text[self.pos] == closing:
                self.pos += 1
                return fields
            name_match = _NAME.match(self.text, self.pos)
            if not name_match:
                self._fail(
                    f"unexpected {self.text[self.pos]!r} at line {self._line(self.pos)}, where a field name should be"
                )
            if name_match.group().startswith("@"):
                self._fail(
                    f"it is not closed before the next entry, at line {self._line(self.pos)} (a '{closing}' missing?)"
                )
            name = name_match.group().lower()
            self.pos = self._skip_space(name_match.end())
            if self.pos >= len(self.text) or self.text[self.pos] != "=":
                self._fail(f"field {name!r} at line {self._line(name_match.start())} has no '=' and value")
            self.pos += 1
            value = self._value(name)
            fields.setdefault(name, value)  # a repeated field keeps its first value

    def _value(self, name: str) -> str:
        parts: list[str] = []
        length = 0
        while True:
            self.pos = self._skip_space(self.pos)
            if self.pos >= len(self.text):
                self._fail(f"field {name!r} has no value")
            char = self.text[self.pos]
            if char == "{":
                end = self._group_end(self.pos, "{", "}", f"the '{{' of field {name!r}")
                parts.append(self.text[self.pos + 1 : end])
                self.pos = end + 1
            elif char == '"':
                end = self._quote_end(self.pos, name)
                parts.append(self.text[self.pos + 1 : end])
                self.pos = end + 1
            elif word := _NAME.match(self.text, self.pos):
                parts.append(self.macros.get(word.group().lower(), word.group()))
                self.pos = word.end()
            else:
                self._fail(f"field {name!r} at line {self._line(self.pos)} has no value")
            length += len(parts[-1])
            self._check_expansion(name, length)
            self.pos = self._skip_space(self.pos)
            if self.pos < len(self.text) and self.text[self.pos] == "#":
                self.pos += 1
                continue
            self.expanded += length
            return "".join(parts)

    def _check_expansion(self, name: str, length: int) -> None:
        """Refuse a value, or the whole text, grown past its limit by macros: before it is joined."""
        if length > self.limits.bibtex_value_chars:
            self._fail(
                f"field {name!r} expands to more than {self.limits.bibtex_value_chars:,} characters "
                "(PAPERMAP_LIMIT_BIBTEX_VALUE_CHARS)"
            )
        if self.expanded + length > self.limits.bibtex_total_chars:
            self._fail(
                f"its values expand to more than {self.limits.bibtex_total_chars:,} characters in all "
                "(PAPERMAP_LIMIT_BIBTEX_TOTAL_CHARS)"
            )

    def _group_end(self, start: int, opening: str, closing: str, what: str) -> int:
        depth = 0
        for i in range(start, len(self.text)):
            char = self.text[i]
            if char == opening and self.text[i - 1] != "\\":
                depth += 1
            elif char == closing and self.text[i - 1] != "\\":
                depth -= 1
                if depth == 0:
                    return i
        self._fail(f"{what}, opened at line {self._line(start)}, is never closed")

    def _quote_end(self, start: int, name: str) -> int:
        depth = 0  # a quote inside braces does not end the value: "The {"}Bad{"} case"
        for i in range(start + 1, len(self.text)):
            char = self.text[i]
            if self.text[i - 1] == "\\":
                continue
            if char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
            elif char == '"' and depth <= 0:
                return i
        self._fail(f"the '\"' of field {name!r}, opened at line {self._line(start)}, is never closed")

    def _skip_group(self, opening_at: int, closing: str) -> None:
        opening = self.text[opening_at]
        self.pos = self._group_end(opening_at, opening, closing, f"the '{opening}'") + 1

    def _skip_space(self, pos: int) -> int:
        while pos < len(self.text) and self.text[pos].isspace():
            pos += 1
        return pos

    def _line(self, pos: int) -> int:
        return self.text.count("\n", 0, pos) + 1

    def _fail(self, problem: str) -> NoReturn:
        raise InputError(f"{self.source}: {self.entry}: {problem}")
