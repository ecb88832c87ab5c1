"""Several paper lists on one map: each paper keeps its list's edition (venue and year), and a paper
that appears in two editions is shown once per edition, linked, never merged. Pure; no I/O.

A paper's `edition` is its record's own `edition` field, else its venue and year (`ICML 2025`).
Lists built together (`combine_editions`) keep their editions apart: when two lists would share one
(the same conference's titles and abstracts, say), the later list's is told apart by its file name.
Two papers of different editions are the same paper when their titles match once case, accents,
punctuation and spacing are set aside (`same_paper_key`); each lists the other's id in `same_as`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

import numpy as np
import pandas as pd

_WORD = re.compile(r"[^\W_]+")
KEY_BLOCK = 65_536  # titles whose keys are made at a time (`same_as`)


def edition_of(venue: str, year: int | None) -> str:
    """`ICML 2025` from a venue and year; either alone when the other is missing; "" for neither."""
    return " ".join(part for part in (venue.strip(), "" if year is None else str(year)) if part)


def same_paper_key(title: str) -> str:
    """What two titles of the same paper share: its words, case-folded, without accents or punctuation."""
    if title.isascii():  # no accent to drop, and casefold is lower: most titles, at a fraction of the cost
        return " ".join(_WORD.findall(title.lower()))
    folded = unicodedata.normalize("NFKD", title.casefold())
    return " ".join(_WORD.findall("".join(c for c in folded if not unicodedata.combining(c))))


def same_as(papers: pd.DataFrame) -> list[list[str]]:
    """For each paper of `papers` (`paper_id`, `title`, `edition`), the ids of the papers of other
    editions with the same title (`same_paper_key`), in table order; [] for most."""
    linked = linked_papers(papers)
    return [linked.get(row, []) for row in range(len(papers))]


def linked_papers(papers: pd.DataFrame) -> dict[int, list[str]]:
    """`same_as` of the papers that have one (another edition's paper has their title), by their row;
    every other paper's is []."""
    titles = papers["title"]
    hashes, keyed = _key_hashes(titles)
    # Only papers whose key's hash papers of two editions have are grouped, by their keys: a large
    # list's every key, group and list held at once was a large share of its parse's peak.
    keys = pd.DataFrame({"hash": hashes, "edition": pd.factorize(papers["edition"])[0]})[keyed]
    spans = keys.groupby("hash")["edition"].transform("nunique").to_numpy() > 1
    shared = keys.index[spans].tolist()
    editions, ids = papers["edition"].iloc[shared].tolist(), papers["paper_id"].iloc[shared].tolist()
    rows_by_key: dict[str, list[int]] = {}
    for at, title in enumerate(titles.iloc[shared].tolist()):
        rows_by_key.setdefault(same_paper_key(title), []).append(at)
    linked = {}
    for rows in rows_by_key.values():
        for at in rows:
            if others := [str(ids[other]) for other in rows if editions[other] != editions[at]]:
                linked[shared[at]] = others
    return linked


def _key_hashes(titles: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Each title's `same_paper_key` as a 64-bit hash, and whether it has one (words), made
    `KEY_BLOCK` titles at a time."""
    hashes, keyed = np.zeros(len(titles), np.uint64), np.zeros(len(titles), bool)
    for start in range(0, len(titles), KEY_BLOCK):
        block = titles.iloc[start : start + KEY_BLOCK].tolist()
        keys = np.array([same_paper_key(title) for title in block], dtype=object)
        hashes[start : start + len(keys)] = pd.util.hash_array(keys)
        keyed[start : start + len(keys)] = keys != ""
    return hashes, keyed


def combine_editions(lists: Sequence[tuple[str, pd.DataFrame]]) -> pd.DataFrame:
    """One papers table of several (`(name, papers)` pairs, each a loaded list named by its file), in
    order: a list's editions that an earlier list has are renamed `<edition> (<name>)`, its paper ids
    that an earlier list has become `<id>@<name>`, and `same_as` links the same paper across editions."""
    editions: set[str] = set()
    ids: set[str] = set()
    parts = []
    for name, papers in lists:
        papers = papers.copy()
        clash = papers["edition"].isin(editions)
        papers.loc[clash, "edition"] = (papers.loc[clash, "edition"] + f" ({name})").str.strip()
        taken = papers["paper_id"].isin(ids)
        papers.loc[taken, "paper_id"] = papers.loc[taken, "paper_id"] + f"@{name}"
        editions.update(papers["edition"])
        ids.update(papers["paper_id"])
        parts.append(papers)
    combined = pd.concat(parts, ignore_index=True)
    combined["same_as"] = same_as(combined)
    return combined
