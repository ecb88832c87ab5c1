"""A JSON list of paper records read one record at a time, never decoded or parsed whole.

`json.loads` of a whole paper list holds its decoded text and every parsed record at once, before
the first paper is read; and one character outside the Basic Multilingual Plane (an emoji, a
mathematical letter) makes Python store every character of that text in four bytes. Here the bytes
are decoded a window at a time (`WINDOW_BYTES`) and each element is parsed from the window with
`json.JSONDecoder.raw_decode`, so the reader holds one window and one record beside the file's
bytes. The list is read twice, first only counted: a list past the record limit is refused at its
first record past it, before any record is worked on (docs/performance.md has the figures).

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
from typing import Any

from lib.limits import too_many_records
from lib.stages.format_parsers import Records, json_int

logger = logging.getLogger(__name__)

WINDOW_BYTES = 1 << 18  # bytes decoded at a time; a record longer than this widens the window
_SPACE = re.compile(r"[ \t\n\r]*")  # JSON's whitespace, between a list's elements


class _Window:
    """The text of `raw` from byte `start` on, decoded `WINDOW_BYTES` at a time: `text[pos:]` is
    what is not read yet."""

    def __init__(self, raw: bytes, start: int) -> None:
        self.raw, self.next_byte = memoryview(raw), start
        self.decoder = codecs.getincrementaldecoder("utf-8")()  # strict: an invalid byte stops the reading
        self.text, self.pos = "", 0

    def widen(self) -> bool:
        """Decode more bytes into the window (at least as many as it holds unread, so a long record
        takes a few widenings, not one per window); False at the end of the bytes."""
        if self.next_byte >= len(self.raw):
            return False
        size = max(WINDOW_BYTES, 4 * (len(self.text) - self.pos))
        chunk = self.raw[self.next_byte : self.next_byte + size]
        self.next_byte += len(chunk)
        unread, self.text, self.pos = self.text[self.pos :], "", 0  # the read part freed before the next is decoded
        self.text = unread + self.decoder.decode(chunk, final=self.next_byte >= len(self.raw))
        return True

    def skip_space(self) -> str:
        """Past whitespace to the next character, widening as needed; "" at the end of the text."""
        while True:
            self.pos = _SPACE.match(self.text, self.pos).end()  # type: ignore[union-attr]
            if self.pos < len(self.text) or not self.widen():
                return self.text[self.pos : self.pos + 1]


def list_records(raw: bytes, start: int, parse_whole: Callable[[], list[Any]], source: str, most: int) -> Records:
    """("record N", element) of the JSON list that begins at byte `start` of `raw` (UTF-8, its "["
    the first character there past whitespace), read a window at a time, twice: first each record
    is parsed and dropped, to refuse a list of more than `most` records (`too_many_records`, naming
    `source`) and to find where the list stops being valid JSON before any record is given; then
    given. Where the first reading stops, the records are those of the list `parse_whole()` gives
    from the text read whole, which raises the reader's error for a file that is not valid JSON."""
    count = 0
    try:
        for count, _ in enumerate(_list_elements(raw, start), 1):
            if count > most:
                raise too_many_records(source, most)
    except (ValueError, RecursionError) as error:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        logger.info("%s: the JSON list stopped at record %d (%s); reading it whole", source, count + 1, error)
        elements: Iterable[Any] = parse_whole()
    else:
        elements = _list_elements(raw, start)
    for number, element in enumerate(elements, 1):
        yield f"record {number}", element


def _list_elements(raw: bytes, start: int) -> Iterator[Any]:
    decoder = json.JSONDecoder(parse_int=json_int)
    window = _Window(raw, start)
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
