"""Filter state -> DataFrame mask, and the option lists (with counts) that filter widgets show.

A filter is one facet of the papers (edition, area, subfield, topic, keyword, status, session, day,
primary area, author). Values chosen within a facet add up (any of them); facets narrow each other (all of
them). Authors are matched by name fragment (`bengio` finds Yoshua Bengio), since a conference
has too many authors to list. Each facet's URL parameter is its name, so `?subfield=A&subfield=B&status=Oral` is a view.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, fields, replace

import numpy as np
import pandas as pd

from lib.views.schedule import conference_zone, day_label, in_zone, session_label

# Facets in sidebar order, with the label a widget shows.
FACETS = {
    "edition": "Edition",
    "area": "Area",
    "subfield": "Subfield",
    "topic": "Topic",
    "keyword": "Keyword",
    "status": "Status",
    "session": "Session",
    "day": "Day",
    "primary_area": "Primary area",
    "author": "Author",
}
# Facets read from list columns: a paper matches when any of its values is chosen. Sessions and
# days are `lib.views.schedule.with_schedule_columns`'s; a papers table without them offers none.
_LIST_COLUMNS = {"keyword": "keywords", "session": "session_labels", "day": "session_days"}
# Facets offered in time order, not by count: a reader looks for Tuesday after Monday.
_IN_TIME_ORDER = ("session", "day")
FINE_MARK = " (fine)"  # how a fine topic reads in the topic facet, beside the coarse ones


@dataclass(frozen=True)
class Filters:
    """The values chosen in each facet; an empty facet does not filter."""

    edition: tuple[str, ...] = ()  # a map of several lists (`lib.stages.editions`)
    area: tuple[str, ...] = ()
    subfield: tuple[str, ...] = ()
    topic: tuple[str, ...] = ()  # coarse or fine topic labels
    keyword: tuple[str, ...] = ()
    status: tuple[str, ...] = ()
    session: tuple[str, ...] = ()  # session labels (`lib.views.schedule.session_label`)
    day: tuple[str, ...] = ()  # days in the conference's time, `Tue 15 Jul`
    primary_area: tuple[str, ...] = ()
    author: tuple[str, ...] = ()  # name fragments, any case

    def __post_init__(self) -> None:
        for facet in fields(self):
            object.__setattr__(self, facet.name, tuple(dict.fromkeys(getattr(self, facet.name))))

    @classmethod
    def from_query(cls, query: Mapping[str, Iterable[str]]) -> Filters:
        """The facets named in a URL's parameters (each a list of values); other parameters are ignored."""
        return cls(**{name: tuple(query.get(name, ())) for name in FACETS})

    def to_query(self) -> dict[str, list[str]]:
        """URL parameters for the facets that filter."""
        return {name: list(getattr(self, name)) for name in FACETS if getattr(self, name)}

    def without(self, name: str) -> Filters:
        """These filters with facet `name` cleared: what its own option counts are computed over."""
        return replace(self, **{name: ()})

    def active(self) -> bool:
        return any(getattr(self, name) for name in FACETS)

    def zooms(self) -> bool:
        """Whether the map goes to the papers these filters show: any facet's choice does but the
        edition's, which a reader steps through on a map kept still."""
        return self.without("edition").active()


def filter_papers(papers: pd.DataFrame, filters: Filters = Filters()) -> pd.DataFrame:
    """The papers that pass every facet of `filters`.

    A subfield matches the `subfield` column exactly: choosing the subfield "Deep Learning" means
    the papers filed under the area itself, the count its option shows. A topic matches a paper's
    coarse or fine topic label.
    """
    return papers[filter_mask(papers, filters)]


def filter_mask(papers: pd.DataFrame, filters: Filters) -> np.ndarray:
    """Boolean array: which rows of `papers` pass `filters`."""
    mask = np.ones(len(papers), dtype=bool)
    for name in FACETS:
        chosen = set(getattr(filters, name))
        if not chosen:
            continue
        if name == "topic":
            mask &= (
                papers["topic_label"].isin(chosen) | papers["topic_fine_label"].isin(_fine_labels(chosen))
            ).to_numpy()
        elif name in _LIST_COLUMNS:
            if _LIST_COLUMNS[name] not in papers:
                mask &= False  # a list without sessions: no paper is in the chosen one
                continue
            mask &= np.fromiter(
                (not chosen.isdisjoint(values) for values in papers[_LIST_COLUMNS[name]]), bool, len(papers)
            )
        elif name == "author":
            fragments = [fragment.casefold() for fragment in chosen if fragment.strip()]
            mask &= (
                np.fromiter(
                    (
                        any(f in author.casefold() for author in authors for f in fragments)
                        for authors in papers["authors"]
                    ),
                    bool,
                    len(papers),
                )
                if fragments
                else True
            )
        else:
            mask &= papers[name].isin(chosen).to_numpy()
    return mask


def _fine_labels(chosen: Collection[str]) -> set[str]:
    # A fine topic is chosen by its marked name; an unmarked name may also be a fine label (an old link).
    return {value.removesuffix(FINE_MARK) for value in chosen}


def facet_counts(papers: pd.DataFrame, name: str, limit: int | None = None, min_count: int = 1) -> dict[str, int]:
    """Each value facet `name` offers over `papers`, with its number of papers, most common first.

    Topics list the coarse labels, then the fine ones marked with `FINE_MARK`; authors list each
    name. Empty values (no status, no primary area) are not offered. `limit` keeps the most common values, and values
    below `min_count` are left out: a keyword or author facet of a large conference has tens of
    thousands of values, too many for a widget.
    """
    if name == "topic":
        fine = value_counts(papers, "topic_fine_label")
        counts = {**value_counts(papers, "topic_label"), **{f"{label}{FINE_MARK}": n for label, n in fine.items()}}
    elif name in _LIST_COLUMNS and _LIST_COLUMNS[name] not in papers:
        counts = {}
    elif name in (*_LIST_COLUMNS, "author"):
        tally = Counter(
            value for values in papers[_LIST_COLUMNS.get(name, "authors")] for value in dict.fromkeys(values)
        )
        counts = dict(sorted(tally.items(), key=lambda item: (-item[1], item[0])))
    else:
        counts = value_counts(papers, name)
    if name in _IN_TIME_ORDER and counts:
        ordered = [value for value in _in_time_order(papers, name) if value in counts]
        counts = {value: counts[value] for value in [*ordered, *(v for v in counts if v not in ordered)]}
    return most_common({value: n for value, n in counts.items() if value}, limit, min_count)


def most_common(counts: Mapping[str, int], limit: int | None = None, min_count: int = 1) -> dict[str, int]:
    """The values of `counts` (`facet_counts`, in its order) of at least `min_count` papers; with
    `limit`, the first `limit` of them."""
    kept = {value: n for value, n in counts.items() if n >= min_count}
    return dict(list(kept.items())[:limit]) if limit else kept


def _in_time_order(papers: pd.DataFrame, name: str) -> list[str]:
    """The session labels or days of `papers`, earliest first (by UTC instant), timeless ones last."""
    zone = conference_zone(papers)  # days as `with_schedule_columns` names them

    def label(session: dict) -> str:
        return session_label(session) if name == "session" else day_label(in_zone(session, zone))

    earliest: dict[str, tuple[bool, int]] = {}
    for sessions in papers["sessions"]:
        for session in sessions:
            key = (session["start"] is None, 0 if session["start"] is None else session["start"].value)
            value = label(session)
            earliest[value] = min(earliest.get(value, key), key)
    return sorted(earliest, key=lambda value: (earliest[value], value))


def facet_options(
    papers: pd.DataFrame, filters: Filters, name: str, limit: int | None = None, min_count: int = 1
) -> dict[str, int]:
    """What facet `name`'s widget offers: its values, each with the papers it would show given the
    other facets' choices, most first.

    Values the other facets rule out stay on offer with 0, so a reader can switch, say, from one
    status to another; only subfields follow the chosen areas, being their parts. `limit` and
    `min_count` apply to the whole map's counts (see `facet_counts`); chosen values always stay.
    """
    offered = facet_counts(filter_papers(papers, offer_scope(filters, name)), name, limit, min_count)
    counts = facet_counts(filter_papers(papers, filters.without(name)), name)
    return offered_with_counts(offered, counts, filters, name)


def offer_scope(filters: Filters, name: str) -> Filters:
    """The filters whose papers facet `name` offers values from: the chosen areas for subfields
    (their parts), none for every other facet (the whole map)."""
    return Filters(area=filters.area) if name == "subfield" else Filters()


def offered_with_counts(
    offered: Mapping[str, int], counts: Mapping[str, int], filters: Filters, name: str
) -> dict[str, int]:
    """`facet_options` from its two tallies: `offered`, `facet_counts` over `offer_scope`, and `counts`,
    `facet_counts` over the papers `filters.without(name)` shows (a caller may cache each apart:
    neither depends on the facet's own choice)."""
    kept = [*offered, *(v for v in getattr(filters, name) if v not in offered and (name != "subfield" or v in counts))]
    if name in _IN_TIME_ORDER:  # offered in time order already (facet_counts)
        return {v: counts.get(v, 0) for v in kept}
    return dict(sorted(((v, counts.get(v, 0)) for v in kept), key=lambda item: -item[1]))


def value_counts(papers: pd.DataFrame, column: str) -> dict[str, int]:
    """Each value of `column` with its number of papers, most common first, ties alphabetical."""
    counts = papers[column].astype(str).value_counts()
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def choices_from_query(query: Mapping[str, list[str]], key: str, options: Iterable[str]) -> list[str]:
    """The values of URL parameter `key` that are valid `options`, in URL order, without repeats.

    Unknown values (a stale link, a hand-edited URL) are dropped rather than failing the page.
    """
    valid = set(options)
    return list(dict.fromkeys(v for v in query.get(key, []) if v in valid))
