"""A paper's conference facts as the loader reads them: its sessions and its declared area.

Sources name these differently (ICML's virtual site has events with `eventtype`, `room_name` and
`starttime`; OpenReview and Paper Copilot give `primary_area` as `Area->Subarea`); the functions
here turn each into the papers table's form (`lib.schema`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import pandas as pd

from lib.schema import SESSION_FIELDS
from lib.stages.format_parsers import PRESENTATION_KINDS

# Source field names accepted for each session field, first match wins.
_SESSION_ALIASES = {
    "kind": ("kind", "eventtype", "event_type", "type"),
    "name": ("name", "session"),
    "room": ("room", "room_name", "location"),
    "start": ("start", "starttime"),
    "end": ("end", "endtime"),
    "poster_position": ("poster_position", "position"),
}
_SMALL_WORDS = {"and", "or", "of", "for", "in", "on", "the", "to", "a", "an", "with"}


def parse_sessions(value: Any, warnings: list[str]) -> list[dict[str, Any]]:
    """The sessions of one record (a list of mappings) as `SESSION_FIELDS` dicts, earliest first.

    A session that is not a mapping, or whose time cannot be read, is reported in `warnings`; an
    unreadable session is dropped, an unreadable time left empty. `start`/`end` without a time zone
    are read as UTC, with a warning.
    """
    if value is None or (isinstance(value, float) and value != value):
        return []
    if not isinstance(value, (list, tuple)) and getattr(value, "ndim", 0) == 0:
        warnings.append(f"sessions is a {type(value).__name__}, expected a list of sessions; left empty")
        return []
    sessions = []
    for n, item in enumerate(value, 1):
        if not isinstance(item, Mapping):
            warnings.append(f"session {n} is a {type(item).__name__}, not a session with fields; dropped")
            continue
        lowered = {str(k).strip().lower(): v for k, v in item.items()}

        def pick(field: str, fields: Mapping[str, Any] = lowered) -> Any:
            return next((fields[a] for a in _SESSION_ALIASES[field] if fields.get(a) not in (None, "")), None)

        session: dict[str, Any] = {
            name: " ".join(str(pick(name) or "").split()) for name in SESSION_FIELDS if name not in ("start", "end")
        }
        session["kind"] = session_kind(session["kind"])
        for name in ("start", "end"):
            session[name] = _timestamp(pick(name), f"session {n} {name}", warnings)
        sessions.append(session)
    return sorted(sessions, key=_session_order)


def _session_order(session: dict[str, Any]) -> tuple:
    start = session["start"]
    # Timeless sessions last; ties by name and room so the order never depends on the source's.
    return (start is None, start.value if start is not None else 0, session["name"], session["room"])


def session_kind(text: str) -> str:
    """`oral`, `spotlight` or `poster` when `text` names one ("Oral", "Accept (spotlight)"); else `text` lowercased."""
    lowered = text.strip().lower()
    return next((kind for kind in PRESENTATION_KINDS if re.search(rf"\b{kind}\b", lowered)), lowered)


def _timestamp(value: Any, what: str, warnings: list[str]) -> pd.Timestamp | None:
    if value is None or (isinstance(value, float) and value != value):
        return None
    try:
        stamp = pd.Timestamp(value)
    except (ValueError, TypeError, OverflowError):
        warnings.append(f"{what} {str(value)[:40]!r} is not a date and time; left empty")
        return None
    if pd.isna(stamp):
        return None
    if stamp.tzinfo is None:
        warnings.append(f"{what} {str(value)[:40]!r} has no time zone; read as UTC")
        stamp = stamp.tz_localize("UTC")
    return stamp


def split_declared_area(primary_area: str) -> tuple[str, str]:
    """The area and subarea a venue declared: `Deep Learning->Large Language Models` gives both,
    `Machine Learning` the area alone. Names written as identifiers (`deep_learning`) are made readable."""
    if not primary_area.strip():
        return "", ""
    area, _, subarea = (_readable_area(part) for part in primary_area.partition("->"))
    return area, subarea


def _readable_area(name: str) -> str:
    name = " ".join(name.replace("_", " ").split())
    if name != name.lower():
        return name  # cased by the venue: kept as written
    words = name.split(" ")
    return " ".join(w if i and w in _SMALL_WORDS else w[:1].upper() + w[1:] for i, w in enumerate(words))
