"""Merge one conference's paper lists from several sources into one list: one record per paper.

Each source's file is read by the loader into a papers table (`lib.stages.load`); the tables are
matched paper to paper by OpenReview forum id, else by normalised title, and each field of a
merged paper is taken from the first source, in that field's order of preference, that has it.
Every merged record says which sources listed it (`sources`), under which id (`source_ids`), and
which source gave each of its fields (`field_sources`).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from lib.schema import PAPER_COLUMNS
from lib.stages.format_parsers import openreview_id

# The merged list's fields (written as the papers table names them, so the loader reads them back
# as they are); declared_area and declared_subarea are derived from primary_area when it is read.
MERGED_FIELDS = tuple(
    c.name for c in PAPER_COLUMNS if c.name not in ("title_is_derived", "declared_area", "declared_subarea")
)
# Which source's value a field takes first. ICML's virtual site is the conference's own record of
# titles, areas, authors with institutions and sessions; OpenReview holds the authors' abstract,
# keywords, links and PDF; Paper Copilot fills what both lack. A source not named comes last.
FIELD_PREFERENCE: dict[str, tuple[str, ...]] = {
    "abstract": ("openreview", "virtual-site", "paperlists"),
    "author_keywords": ("openreview", "virtual-site", "paperlists"),
    "openreview_url": ("openreview", "virtual-site", "paperlists"),
    "pdf_url": ("openreview", "virtual-site", "paperlists"),
    "url": ("virtual-site", "paperlists", "openreview"),
}
DEFAULT_PREFERENCE = ("virtual-site", "openreview", "paperlists")


def normalised_title(title: str) -> str:
    """A title as matching compares it: accents, case, punctuation and spacing ignored."""
    decomposed = unicodedata.normalize("NFKD", title)
    letters = "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()
    return " ".join(re.sub(r"[\W_]+", " ", letters).split())


@dataclass
class MergeReport:
    """What a merge did: papers per source, how they were matched, and who filled each field."""

    papers: dict[str, int]  # source -> papers it listed
    merged: int = 0
    matched_by_id: int = 0  # papers of a later source joined to an earlier one by OpenReview id
    matched_by_title: int = 0  # ... by normalised title
    listed_by: Counter = field(default_factory=Counter)  # number of sources -> papers listed by that many
    only_in: Counter = field(default_factory=Counter)  # source -> papers no other source listed
    filled: dict[str, Counter] = field(default_factory=dict)  # field -> source -> papers it filled

    def lines(self) -> list[str]:
        """The report as lines for the CLI and the dashboard."""
        sources = ", ".join(f"{name} {count:,}" for name, count in self.papers.items())
        lines = [
            f"{self.merged:,} papers from {sources}",
            f"matched across sources: {self.matched_by_id:,} by OpenReview id, {self.matched_by_title:,} by title",
        ]
        if len(self.papers) > 1:
            spread = ", ".join(f"{self.listed_by[n]:,} in {n}" for n in range(len(self.papers), 0, -1))
            only = ", ".join(f"{name} {self.only_in[name]:,}" for name in self.papers if self.only_in[name])
            lines.append(f"listed by how many sources: {spread}" + (f" (only in: {only})" if only else ""))
        for name in ("abstract", "primary_area", "institutions", "sessions", "openreview_url", "pdf_url"):
            by_source = self.filled.get(name, Counter())
            total = sum(by_source.values())
            detail = ", ".join(f"{source} {count:,}" for source, count in by_source.most_common())
            lines.append(f"{name}: {total:,} of {self.merged:,}" + (f" ({detail})" if detail else ""))
        return lines


def merge_tables(tables: Mapping[str, pd.DataFrame]) -> tuple[list[dict[str, Any]], MergeReport]:
    """Merge papers tables (`lib.schema.PAPER_COLUMNS`), keyed by source name in order, into
    JSON-ready records, one per paper, in order of first appearance.

    A paper of a later source joins an earlier paper with its OpenReview id, else one with its
    normalised title that has no id that differs and no paper of this source yet; otherwise it is
    a new paper. So no paper is lost (each row is in exactly one record) and no paper is doubled
    (a record holds at most one row per source).
    """
    groups: list[dict[str, pd.Series]] = []  # each paper: source -> its row there
    by_id: dict[str, int] = {}
    by_title: dict[str, list[int]] = {}
    report = MergeReport(papers={name: len(table) for name, table in tables.items()})
    for source, table in tables.items():
        for _, row in table.iterrows():
            forum = openreview_id(row["openreview_url"])
            title = "" if row["title_is_derived"] else normalised_title(row["title"])
            index = by_id.get(forum) if forum else None
            if index is not None and source not in groups[index]:
                report.matched_by_id += 1
            else:
                index = next(
                    (
                        i
                        for i in by_title.get(title, [])
                        if source not in groups[i] and not (forum and _forum_of(groups[i]) not in ("", forum))
                    ),
                    None,
                )
                if index is None:
                    index = len(groups)
                    groups.append({})
                    if title:
                        by_title.setdefault(title, []).append(index)
                else:
                    report.matched_by_title += 1
            groups[index][source] = row
            if forum:
                by_id.setdefault(forum, index)
    records = [_merged_record(group, list(tables), report) for group in groups]
    report.merged = len(records)
    return records, report


def _forum_of(group: dict[str, pd.Series]) -> str:
    return next((f for f in (openreview_id(r["openreview_url"]) for r in group.values()) if f), "")


def _merged_record(group: dict[str, pd.Series], order: list[str], report: MergeReport) -> dict[str, Any]:
    record: dict[str, Any] = {}
    field_sources: dict[str, str] = {}
    for name in MERGED_FIELDS:
        preference = FIELD_PREFERENCE.get(name, DEFAULT_PREFERENCE)
        ranked = sorted(
            group, key=lambda s: (preference.index(s) if s in preference else len(preference), order.index(s))
        )
        source = next((s for s in ranked if _has(group[s][name])), None)
        value = group[source][name] if source else group[ranked[0]][name]
        record[name] = json_value(value)
        if source:
            field_sources[name] = source
            report.filled.setdefault(name, Counter())[source] += 1
    forum = _forum_of(group)
    if forum:
        record["paper_id"] = forum  # one id for the paper whichever source listed it first
    record["sources"] = [s for s in order if s in group]
    record["source_ids"] = {s: str(group[s]["paper_id"]) for s in record["sources"]}
    record["field_sources"] = field_sources
    report.listed_by[len(group)] += 1
    if len(group) == 1:
        report.only_in[next(iter(group))] += 1
    return record


def _has(value: Any) -> bool:
    if isinstance(value, list):
        return bool(value)
    return not pd.isna(value) and value != ""


def json_value(value: Any) -> Any:
    """A table value as JSON can hold it: sessions' times as ISO 8601 text with their offset."""
    if isinstance(value, list):
        return [
            {k: (v.isoformat() if isinstance(v, pd.Timestamp) else v) for k, v in item.items()}
            if isinstance(item, dict)
            else item
            for item in value
        ]
    if pd.isna(value):
        return None
    return value.item() if hasattr(value, "item") else value
