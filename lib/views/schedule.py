"""The conference's schedule from the papers table's `sessions`: one row per presentation, the
facet and colour columns of each paper's sessions and days, and a plan's conflicts. Pure; no Streamlit.

Times are shown in the conference's own time: the UTC offset most of its sessions were given in
(`conference_zone`), so a session one source wrote in UTC sits with the others. A day is the date
there, not on the reader's machine.
"""

from __future__ import annotations

import datetime
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from lib.views.markup import markdown_literal
from lib.views.text import short_authors, utc_offset_name

# One row per (paper, session), in time order: what `presentations` returns.
PRESENTATION_COLUMNS = (
    "paper_id",
    "title",
    "authors",
    "url",
    "topic_label",
    "subfield",
    "kind",
    "session",
    "room",
    "poster_position",
    "start",
    "end",
    "day",
    "time",
)
# Derived columns `with_schedule_columns` adds to a papers table: facets read the lists, the map colours by the firsts.
SCHEDULE_COLUMNS = ("session_labels", "session_days", "first_session", "first_day")


def session_label(session: dict) -> str:
    """How a session is named in facets, colours and headings: its name, else its kind and room."""
    return session["name"] or " ".join(part for part in (session["kind"].capitalize(), session["room"]) if part)


def day_label(session: dict) -> str:
    """The session's day in its own offset, `Tue 15 Jul`; "" without a time (`in_zone` it first)."""
    return "" if session["start"] is None else f"{session['start']:%a %d %b}"


def conference_zone(papers: pd.DataFrame) -> datetime.timezone | None:
    """The UTC offset most sessions of `papers` were given in (ties: the earliest-listed), or None without times."""
    offsets = Counter(
        s["start"].utcoffset() for sessions in papers["sessions"] for s in sessions if s["start"] is not None
    )
    if not offsets:
        return None
    return datetime.timezone(offsets.most_common(1)[0][0])


def zone_caption(zone: datetime.timezone | None) -> str:
    """What the page says of its times: `times in the conference's own time, UTC-07:00`."""
    if zone is None:
        return "no session has a time"
    return f"times in the conference's own time, {utc_offset_name(zone.utcoffset(None))}"


def paper_choices(papers: pd.DataFrame) -> dict[str, str]:
    """The papers of `papers` that are presented, paper id -> title, by title: what a plan can take."""
    presented = papers[[len(s) > 0 for s in papers["sessions"]]]
    return dict(sorted(zip(presented["paper_id"], presented["title"]), key=lambda item: (item[1].casefold(), item[0])))


def in_zone(session: dict, zone: datetime.timezone | None) -> dict:
    """`session` with its times shown in `zone` (the same instants)."""
    if zone is None:
        return session
    return {**session, **{k: session[k].tz_convert(zone) for k in ("start", "end") if session[k] is not None}}


def place(room: str, poster_position: str) -> str:
    """Where a presentation is: `East Exhibition Hall A-B, poster E-1001`, or the room alone."""
    return ", ".join(part for part in (room, f"poster {poster_position}" if poster_position else "") if part)


def has_sessions(papers: pd.DataFrame) -> bool:
    """Whether any paper of `papers` has a session: the schedule's parts show only then."""
    return "sessions" in papers and any(len(s) for s in papers["sessions"])


def with_schedule_columns(papers: pd.DataFrame) -> pd.DataFrame:
    """`papers` with `SCHEDULE_COLUMNS`: each paper's session labels and days (lists, in time
    order, without repeats) and its first session and day ("" for a paper without one)."""
    zone = conference_zone(papers)
    labels = [list(dict.fromkeys(session_label(s) for s in sessions)) for sessions in papers["sessions"]]
    days = [
        list(dict.fromkeys(d for d in (day_label(in_zone(s, zone)) for s in sessions) if d))
        for sessions in papers["sessions"]
    ]
    return papers.assign(
        session_labels=labels,
        session_days=days,
        first_session=[values[0] if values else "" for values in labels],
        first_day=[values[0] if values else "" for values in days],
    )


def presentations(papers: pd.DataFrame, zone: datetime.timezone | None = None) -> pd.DataFrame:
    """One row per presentation of `papers` (`PRESENTATION_COLUMNS`), in time order (timeless ones
    last), then by session, poster position and title; times in `zone` (default: `conference_zone(papers)`).

    `start` and `end` are `pd.Timestamp`s or None; `time` reads as `lib.views.text.session_time` does."""
    zone = zone or conference_zone(papers)
    rows = [
        {
            "paper_id": paper.paper_id,
            "title": paper.title,
            "authors": list(paper.authors),
            "url": paper.url,
            "topic_label": paper.topic_label,
            "subfield": paper.subfield,
            "kind": session["kind"],
            "session": session_label(session),
            "room": session["room"],
            "poster_position": session["poster_position"],
            "start": session["start"],
            "end": session["end"],
        }
        for paper in papers.itertuples(index=False)
        for session in paper.sessions
    ]
    if not rows:
        return pd.DataFrame(columns=list(PRESENTATION_COLUMNS))
    table = pd.DataFrame(rows)
    # Whole columns at once (a list of 3,000 papers has 7,000 times): in UTC, then in the zone.
    start, end = (pd.to_datetime(table[name], utc=True) for name in ("start", "end"))
    if zone is not None:
        start, end = start.dt.tz_convert(zone), end.dt.tz_convert(zone)
    zone_name = utc_offset_name(zone.utcoffset(None) if zone else None)
    until = ("–" + end.dt.strftime("%H:%M")).where(
        end.dt.date == start.dt.date, " – " + end.dt.strftime("%a %d %b %H:%M")
    )
    table = table.assign(
        start=start.astype(object).where(start.notna(), None),
        end=end.astype(object).where(end.notna(), None),
        day=start.dt.strftime("%a %d %b").fillna(""),
        time=(start.dt.strftime("%a %d %b %H:%M") + until.fillna("") + f" ({zone_name})").fillna(""),
        _instant=start,
    )
    table = table.sort_values(["_instant", "session", "poster_position", "title"], kind="stable", na_position="last")
    return table[list(PRESENTATION_COLUMNS)].reset_index(drop=True)


NO_TIME = "No time given"  # the day of sessions whose source gave no time


@dataclass(frozen=True)
class ScheduledSession:
    """One session of the schedule: its day, heading, label (the session facet's value) and presentations."""

    day: str
    heading: str  # `11:00–13:30 · Poster Session 1 East · East Exhibition Hall A-B`
    label: str
    presentations: pd.DataFrame


def schedule_sessions(shown: pd.DataFrame, zone: datetime.timezone | None = None) -> list[ScheduledSession]:
    """The schedule of `presentations(shown)` as the page shows it, days and sessions in time
    order; sessions without a time come last, under `NO_TIME`. `zone` should be the whole map's
    (`conference_zone`), so filtering never shifts a time."""
    table = presentations(shown, zone)
    clock = [hours(start, end) for start, end in zip(table["start"], table["end"])]
    headings = [" · ".join(p for p in parts if p) for parts in zip(clock, table["session"], table["room"])]
    keys = table.assign(_day=table["day"].replace("", NO_TIME), _heading=headings)
    return [
        ScheduledSession(day, heading, label, rows.drop(columns=["_day", "_heading"]).reset_index(drop=True))
        for (day, heading, label), rows in keys.groupby(["_day", "_heading", "session"], sort=False)
    ]


def hours(start: pd.Timestamp | None, end: pd.Timestamp | None) -> str:
    """`11:00–13:30` in the start's own offset; `11:00` without an end; "" without a start."""
    if start is None:
        return ""
    return f"{start:%H:%M}" + ("" if end is None else f"–{end.tz_convert(start.tz):%H:%M}")


def overlaps(
    a_start: pd.Timestamp, a_end: pd.Timestamp | None, b_start: pd.Timestamp, b_end: pd.Timestamp | None
) -> bool:
    """Whether two presentations overlap in time: half-open intervals, so one ending as the other
    starts does not; one without an end lasts an instant."""
    a_end, b_end = a_end or a_start, b_end or b_start
    return (a_start < b_end and b_start < a_end) or a_start == b_start


def plan_conflicts(plan: pd.DataFrame) -> pd.DataFrame:
    """A plan's presentations (`presentations` of its papers) with `conflicts_with`: the titles of
    the plan's other papers presented at an overlapping time in another place (another room, or
    another session), and `other_sessions`: the paper's other presentations that clash with none,
    to go to instead. A paper's own presentations never conflict with each other."""
    titles, clashes = [], []
    rows = list(plan.itertuples(index=False))
    for row in rows:
        clashing = [
            other.title
            for other in rows
            if other.paper_id != row.paper_id
            and row.start is not None
            and other.start is not None
            and (other.room, other.session) != (row.room, row.session)
            and overlaps(row.start, row.end, other.start, other.end)
        ]
        titles.append(list(dict.fromkeys(clashing)))
    conflicted = plan.assign(conflicts_with=titles)
    for row in conflicted.itertuples(index=False):
        alternatives = [
            f"{other.session} · {other.time}"
            for other in conflicted.itertuples(index=False)
            if other.paper_id == row.paper_id and other.session != row.session and not other.conflicts_with
        ]
        clashes.append(alternatives if row.conflicts_with else [])
    return conflicted.assign(other_sessions=clashes)


def plan_presentations(papers: pd.DataFrame, paper_ids: Sequence[str]) -> pd.DataFrame:
    """The presentations of the plan's papers (`paper_ids`, as a reading list holds them) with
    their conflicts (`plan_conflicts`), in time order, in the conference's time (`papers`' zone)."""
    chosen = papers[papers["paper_id"].isin(set(paper_ids))]
    return plan_conflicts(presentations(chosen, conference_zone(papers)))


def session_table(session: pd.DataFrame, plan_ids: Sequence[str] = ()) -> pd.DataFrame:
    """A session's presentations as the Schedule page lists them: poster position, title, authors,
    topic, subfield, and whether the paper is in the plan."""
    planned = set(plan_ids)
    return pd.DataFrame(
        {
            "position": session["poster_position"],
            "title": session["title"],
            "authors": [short_authors(a) for a in session["authors"]],
            "topic": session["topic_label"],
            "subfield": session["subfield"],
            "in plan": session["paper_id"].isin(planned),
        }
    )


def plan_markdown(plan: pd.DataFrame) -> str:
    """A plan (`plan_presentations`) as the Schedule page shows it: a heading per day, then each
    presentation's time, session and place, its title, and what it overlaps elsewhere with the
    paper's other sessions to go to instead. Every piece of text is Markdown-escaped."""
    lines, day = [], None
    for row in plan.itertuples(index=False):
        if row.day != day:
            day = row.day
            lines.append(f"\n##### {markdown_literal(day or NO_TIME)}\n")
        where = " · ".join(p for p in (row.session, place(row.room, row.poster_position)) if p)
        item = f"- **{markdown_literal(hours(row.start, row.end))}** · {markdown_literal(where)}  \n  {markdown_literal(row.title)}"
        if row.conflicts_with:
            item += f"  \n  :red[Overlaps, elsewhere: {markdown_literal('; '.join(row.conflicts_with))}]"
            if row.other_sessions:
                item += f"  \n  Go instead to: {markdown_literal('; '.join(row.other_sessions))}"
        lines.append(item)
    return "\n".join(lines).strip()


def conflict_count(plan: pd.DataFrame) -> int:
    """How many presentations of a plan (`plan_presentations`) overlap another paper's elsewhere."""
    return int(sum(bool(c) for c in plan["conflicts_with"]))


def conflict_sentence(plan: pd.DataFrame) -> str:
    """What the page warns of a plan's conflicts, or "" when it has none."""
    clashes = conflict_count(plan)
    if not clashes:
        return ""
    what = "1 presentation of this plan overlaps" if clashes == 1 else f"{clashes} presentations of this plan overlap"
    return (
        f"{what} another paper's elsewhere; where the paper has another session that clashes with none, "
        "it is offered to go to instead."
    )
