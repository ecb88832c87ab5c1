"""A conference plan (`lib.views.schedule.plan_presentations`) as an iCalendar file and as a
one-page printable agenda.

The calendar follows RFC 5545: CRLF line ends, lines folded at 75 octets, TEXT values escaped
(so a title can never end its property or add one), times in UTC (`...Z`), which every calendar
app shows in its user's own zone. The agenda is HTML with every piece of paper text escaped and
no script.
"""

from __future__ import annotations

import datetime
import hashlib
import html
import re

import pandas as pd

from lib.views.markup import safe_url
from lib.views.schedule import NO_TIME, hours, place
from lib.views.text import short_authors

PRODUCT_ID = "-//PaperMap//Conference plan//EN"
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def ics_text(value: str) -> str:
    """A TEXT value escaped as RFC 5545 §3.3.11 asks: backslash, semicolon, comma and newline."""
    value = _CONTROL.sub(" ", value.replace("\r\n", "\n").replace("\r", "\n"))
    return value.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,").replace("\n", "\\n")


def fold(line: str) -> str:
    """One content line folded at 75 octets (RFC 5545 §3.1), never inside a UTF-8 character."""
    parts: list[str] = []
    current, size = "", 0
    for character in line:
        width = len(character.encode("utf-8"))
        if size + width > (75 if not parts else 74):  # continuation lines start with a space
            parts.append(current)
            current, size = "", 0
        current += character
        size += width
    parts.append(current)
    return "\r\n ".join(parts)


def _utc(stamp: pd.Timestamp) -> str:
    return stamp.tz_convert("UTC").strftime("%Y%m%dT%H%M%SZ")


def presentation_summary(row) -> str:
    """`Oral: Title`, `Poster E-1001: Title`: what a calendar shows of a presentation."""
    kind = row.kind.capitalize() or "Session"
    position = f" {row.poster_position}" if row.poster_position else ""
    return f"{kind}{position}: {row.title}"


def plan_ics(plan: pd.DataFrame, name: str, *, stamp: datetime.datetime | None = None) -> bytes:
    """The plan's presentations with a time as an iCalendar file (UTF-8): one VEVENT each, with
    the room and poster position as LOCATION and authors, session and link in DESCRIPTION.

    `stamp` is the DTSTAMP of every event (the export time; fixed in tests so files compare).
    UIDs depend only on the paper, session and time, so a re-exported plan updates, not doubles,
    the events a calendar already has.
    """
    stamp = stamp or datetime.datetime.now(datetime.UTC)
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        f"PRODID:{PRODUCT_ID}",
        "CALSCALE:GREGORIAN",
        "METHOD:PUBLISH",
        f"X-WR-CALNAME:{ics_text(name)}",
    ]
    for row in plan.itertuples(index=False):
        if row.start is None:
            continue
        where = place(row.room, row.poster_position)
        identity = f"{row.paper_id}\n{row.session}\n{row.start.isoformat()}"
        description = "\n".join(
            part
            for part in (", ".join(row.authors), " · ".join(p for p in (row.session, row.time) if p), safe_url(row.url))
            if part
        )
        lines += [
            "BEGIN:VEVENT",
            f"UID:{hashlib.sha1(identity.encode()).hexdigest()}@papermap",
            f"DTSTAMP:{stamp.astimezone(datetime.UTC):%Y%m%dT%H%M%SZ}",
            f"DTSTART:{_utc(row.start)}",
            *([f"DTEND:{_utc(row.end)}"] if row.end is not None else []),
            f"SUMMARY:{ics_text(presentation_summary(row))}",
            *([f"LOCATION:{ics_text(where)}"] if where else []),
            f"DESCRIPTION:{ics_text(description)}",
            *([f"URL:{safe_url(row.url)}"] if safe_url(row.url) else []),
            "END:VEVENT",
        ]
    lines.append("END:VCALENDAR")
    return ("\r\n".join(fold(line) for line in lines) + "\r\n").encode("utf-8")


_AGENDA_STYLE = """
body { font: 11pt/1.35 system-ui, sans-serif; margin: 1.5cm; color: #111; }
h1 { font-size: 16pt; margin: 0 0 .2em; } p.meta { margin: 0 0 1em; color: #555; }
h2 { font-size: 12pt; margin: 1em 0 .3em; border-bottom: 1px solid #999; }
table { border-collapse: collapse; width: 100%; } td { padding: .15em .4em; vertical-align: top; }
td.time { white-space: nowrap; width: 7em; } td.where { width: 14em; } .authors { color: #555; }
.conflict { color: #A00000; font-weight: 600; }
@page { size: A4; margin: 1cm; } @media print { body { margin: 0; } }
"""


def plan_agenda_html(plan: pd.DataFrame, name: str, heading: str = "") -> str:
    """The plan as a one-page printable agenda: days, then each presentation's time, place,
    title and authors, conflicts marked. Every piece of text is HTML-escaped."""
    escape = html.escape
    body = [f"<h1>{escape(name)}</h1>"]
    if heading:
        body.append(f'<p class="meta">{escape(heading)}</p>')
    day = None
    for row in plan.itertuples(index=False):
        if row.day != day:
            if day is not None:
                body.append("</table>")
            day = row.day
            body.append(f"<h2>{escape(day or NO_TIME)}</h2><table>")
        clash = (
            f'<div class="conflict">Overlaps: {escape("; ".join(row.conflicts_with))}</div>'
            if row.conflicts_with
            else ""
        )
        where = place(row.room, row.poster_position)
        body.append(
            f'<tr><td class="time">{escape(hours(row.start, row.end))}</td><td class="where">{escape(where)}</td>'
            f"<td><b>{escape(presentation_summary(row))}</b>"
            f'<div class="authors">{escape(short_authors(list(row.authors)))}</div>{clash}</td></tr>'
        )
    if day is not None:
        body.append("</table>")
    else:
        body.append("<p>No presentation in this plan has a session.</p>")
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(name)}</title><style>{_AGENDA_STYLE}</style></head><body>{''.join(body)}</body></html>"
    )
