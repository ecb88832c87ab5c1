"""Short plain-text lines made from paper data: author lines and bylines, for tables, cards and pages."""

from __future__ import annotations

import datetime


def short_authors(authors: list[str], limit: int = 3) -> str:
    """`A, B, C et al.` style author line."""
    if len(authors) <= limit:
        return ", ".join(authors)
    return ", ".join(authors[:limit]) + " et al."


def byline(*parts: str) -> str:
    """The non-empty `parts` on one line, `A, B et al. · ICML 2025`: what a paper's caption says under its title."""
    return " · ".join(part for part in parts if part)


def session_text(session: dict) -> str:
    """One session of the papers table's `sessions` as a line: `Oral · Oral 1A · West Ballroom A ·
    Tue 15 Jul 10:00–10:15 (UTC-07:00)`, in the conference's own time (the offset its source gave);
    a poster's position follows its room."""
    where = ", ".join(part for part in (session["room"], session["poster_position"]) if part)
    return byline(session["kind"].capitalize(), session["name"], where, session_time(session))


def session_time(session: dict) -> str:
    """When a session is: `Tue 15 Jul 10:00–10:15 (UTC-07:00)`, or "" when its source gave no time."""
    start, end = session["start"], session["end"]
    if start is None:
        return ""
    until = ""
    if end is not None:
        end = end.tz_convert(start.tz)
        until = f"–{end:%H:%M}" if end.date() == start.date() else f" – {end:%a %d %b %H:%M}"
    return f"{start:%a %d %b %H:%M}{until} ({utc_offset_name(start.utcoffset())})"


def utc_offset_name(offset: datetime.timedelta | None) -> str:
    """`UTC-07:00` for an offset seven hours behind UTC; `UTC` for none or zero."""
    if not offset:
        return "UTC"
    minutes = int(offset.total_seconds() // 60)
    return f"UTC{'-' if minutes < 0 else '+'}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"
