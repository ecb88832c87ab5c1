"""A JSON list of paper records read one record at a time, never decoded or parsed whole.

`json.loads` of a whole paper list holds its decoded text and every parsed record at once, before
the first paper is read; and one character outside the Basic Multilingual Plane (an emoji, a
mathematical letter) makes Python store every character of that text in four bytes. Here the bytes
are read and decoded a window at a time (`WINDOW_BYTES`), from the file itself or from bytes already
read (an upload), and each element is parsed from the window with `json.JSONDecoder.raw_decode`, so
the reader holds one window and one record. The list is read twice, first only counted: a list past
the record limit is refused at its first record past it, before any record is worked on
(docs/performance.md has the figures).

The records and the errors are those of parsing the whole text: at the first place where the
window reading stops (an invalid byte, a syntax error, a record nested too deeply), the text is
decoded and parsed whole, which raises the same one-line `InputError` as before (should the whole
text parse, its records are given instead). As the first reading only counts, that happens before
any record is given.
"""

from __future__ import annotations

import codecs
import json
import logging
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any, BinaryIO

from lib.limits import too_many_records
from lib.stages.format_parsers import Records, json_int

logger = logging.getLogger(__name__)

WINDOW_BYTES = 1 << 18  # bytes decoded at a time; a record longer than this widens the window
_SPACE = re.compile(r"[ \t\n\r]*")  # JSON's whitespace, between a list's elements


class _Window:
    """The text of the bytes `stream` gives, decoded `WINDOW_BYTES` at a time: `text[pos:]` is what
    is not read yet."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream, self.ended = stream, False
        self.decoder = codecs.getincrementaldecoder("utf-8")()  # strict: an invalid byte stops the reading
        self.text, self.pos = "", 0

    def widen(self) -> bool:
        """Decode more bytes into the window (at least as many as it holds unread, so a long record
        takes a few widenings, not one per window); False at the end of the bytes."""
        if self.ended:
            return False
        chunk = self.stream.read(max(WINDOW_BYTES, 4 * (len(self.text) - self.pos)))
        self.ended = not chunk  # at the end, a character the bytes stop inside raises
        unread, self.text, self.pos = self.text[self.pos :], "", 0  # the read part freed before the next is decoded
        decoded = self.decoder.decode(chunk, final=self.ended)
        del chunk  # the bytes too, before the window is joined
        self.text = unread + decoded
        return not self.ended

    def skip_space(self) -> str:
        """Past whitespace to the next character, widening as needed; "" at the end of the text."""
        while True:
            self.pos = _SPACE.match(self.text, self.pos).end()  # type: ignore[union-attr]
            if self.pos < len(self.text) or not self.widen():
                return self.text[self.pos : self.pos + 1]


def list_records(
    open_list: Callable[[], BinaryIO], parse_whole: Callable[[], list[Any]], source: str, most: int
) -> Records:
    """("record N", element) of the JSON list whose bytes each `open_list()` gives from its start (UTF-8,
    its "[" the first character past whitespace), read a window at a time, twice: first each record
    is parsed and dropped, to refuse a list of more than `most` records (`too_many_records`, naming
    `source`) and to find where the list stops being valid JSON before any record is given; then
    given. Where the first reading stops, the records are those of the list `parse_whole()` gives
    from the text read whole, which raises the reader's error for a file that is not valid JSON."""
    count = 0
    try:
        for count, _ in enumerate(_list_elements(open_list), 1):
            if count > most:
                raise too_many_records(source, most)
    except (ValueError, RecursionError) as error:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        logger.info("%s: the JSON list stopped at record %d (%s); reading it whole", source, count + 1, error)
        elements: Iterable[Any] = parse_whole()
    else:
        elements = _list_elements(open_list)
    for number, element in enumerate(elements, 1):
        yield f"record {number}", element


def _list_elements(open_list: Callable[[], BinaryIO]) -> Iterator[Any]:
    with open_list() as stream:
        yield from _elements(_Window(stream))


def _elements(window: _Window) -> Iterator[Any]:
    decoder = json.JSONDecoder(parse_int=json_int)
    if window.skip_space() != "[":
        raise ValueError("not a JSON list")
    window.pos += 1
    if window.skip_space() == "]":
        window.pos += 1
    else:
        while True:
            yield _element(decoder, window)
            following = window.skip_space()
            window.pos += 1
            if following == "]":
                break
            if following != ",":
                raise ValueError("expected ',' or ']' after a list element")
            window.skip_space()
    if window.skip_space():
        raise ValueError("text after the list")


def _element(decoder: json.JSONDecoder, window: _Window) -> Any:
    """The JSON value at the window's reading place, widening the window while the value may run past
    it: until a "," or "]" follows it in the window, as in a valid list ("1e" of "1e+16" reads as 1)."""
    while True:
        try:
            value, end = decoder.raw_decode(window.text, window.pos)
        except json.JSONDecodeError:
            if window.widen():
                continue
            raise
        following = _SPACE.match(window.text, end).end()  # type: ignore[union-attr]
        if window.text[following : following + 1] in (",", "]") or not window.widen():
            window.pos = end
            return value
