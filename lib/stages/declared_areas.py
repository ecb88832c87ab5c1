"""Subfields that put the venue's own areas first: when most papers of a list declare an area
(`declared_area`, `declared_subarea`), the taxonomy is made of the declared `Area->Subarea`
pairs, each declared paper keeps its own, and the zero-shot classifier (`lib.stages.subfields`)
files only the others, marked as inferred. The classifier still runs on every paper, so its
agreement with the declared areas can be measured honestly: it never sees a paper's label.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
import pandas as pd

from lib.stages.phrases import PhraseCounts
from lib.stages.subfields import SUBFIELD_COLUMNS, assign_subfields
from lib.stages.taxonomy import UNASSIGNED, Taxonomy, parse_taxonomy

# The columns `file_papers` returns: the classifier's, and where they came from.
FILED_COLUMNS = {**SUBFIELD_COLUMNS, "subfield_inferred": "bool", "inferred_area": "str"}
# A list declares its areas when more than this share of its papers has one.
DECLARED_SHARE = 0.5


def declares_areas(papers: pd.DataFrame) -> bool:
    """Whether more than `DECLARED_SHARE` of `papers` have a declared area."""
    return len(papers) > 0 and float((papers["declared_area"] != "").mean()) > DECLARED_SHARE


def subarea_entry(area: str, subarea: str, taken: set[str]) -> str:
    """The taxonomy name of `subarea` within `area`: itself, or `Subarea (Area)` when that name is
    already an area or another area's subarea (ICML has an `Other` in several areas)."""
    return f"{subarea} ({area})" if subarea in taken else subarea


def declared_taxonomy(
    declared: pd.DataFrame, known: Taxonomy | None = None
) -> tuple[Taxonomy, dict[tuple[str, str], str]]:
    """The taxonomy of the declared pairs in `declared` (columns `declared_area`, `declared_subarea`),
    areas and subareas in alphabetical order, and each pair's entry name (the area itself when the
    subarea is empty).

    An entry named as one of `known` (case and spacing aside) takes its description and terms:
    what a taxonomy file says about a field helps the classifier, and it knows no paper's label.
    """
    described = {" ".join(e.name.lower().split()): e for e in (known.entries if known else ())}

    def entry(name: str, declared_name: str) -> dict:
        match = described.get(" ".join(declared_name.lower().split()))
        return {"name": name, "description": match.description, "terms": list(match.terms)} if match else {"name": name}

    pairs = sorted({(a, s) for a, s in zip(declared["declared_area"], declared["declared_subarea"]) if a})
    areas = sorted({a for a, _ in pairs} - {UNASSIGNED})
    uses = Counter(subarea for _, subarea in pairs if subarea)
    taken = set(areas) | {name for name, count in uses.items() if count > 1}
    entries: dict[tuple[str, str], str] = {}
    tree = []
    for area in areas:
        children = []
        for pair_area, subarea in pairs:
            if pair_area == area and subarea:
                entries[(area, subarea)] = subarea_entry(area, subarea, taken)
                children.append(entry(entries[(area, subarea)], subarea))
        entries[(area, "")] = area
        tree.append({**entry(area, area), "children": children})
    return parse_taxonomy({"name": "Declared areas", "subfields": tree}, "declared areas"), entries


def file_papers(
    papers: pd.DataFrame,
    texts: Sequence[str],
    taxonomy: Taxonomy,
    min_score: float = 0.03,
    *,
    vectors: np.ndarray | None = None,
    random_state: int = 42,
    declared_from: pd.DataFrame | None = None,
    use_declared: bool = True,
    counts: PhraseCounts | None = None,
) -> pd.DataFrame:
    """Each paper's area and subfield (`FILED_COLUMNS`, one row per paper, in order).

    When `declared_from` is given (a table with declared areas, such as the map a list is added
    to), or else when `papers` declare areas (`declares_areas`), the taxonomy is the declared
    pairs of `declared_from` or `papers`, described where `taxonomy` has entries of their
    names; a paper with a declared area is filed there (score 1, confident, `subfield_inferred`
    False) and the classifier files the rest. Otherwise the classifier files every paper in
    `taxonomy`, as it does when `use_declared` is False.
    `inferred_area` is always the classifier's area. `vectors`, `random_state` and `counts` are the
    classifier's (`lib.stages.subfields.assign_subfields`).
    """
    filing, entry_of = filing_taxonomy(papers, taxonomy, declared_from, use_declared)
    filed = assign_subfields(texts, filing, min_score, vectors=vectors, random_state=random_state, counts=counts)
    return with_declared(papers, filed, entry_of)


def filing_taxonomy(
    papers: pd.DataFrame, taxonomy: Taxonomy, declared_from: pd.DataFrame | None = None, use_declared: bool = True
) -> tuple[Taxonomy, dict[tuple[str, str], str] | None]:
    """The taxonomy `file_papers` files `papers` in, and each declared (area, subarea)'s entry in it
    (None: the classifier files every paper in `taxonomy`)."""
    if not use_declared:
        declared_from = None
    elif declared_from is None and declares_areas(papers):
        declared_from = papers
    if declared_from is None:
        return taxonomy, None
    return declared_taxonomy(pd.concat([declared_from, papers])[["declared_area", "declared_subarea"]], taxonomy)


def with_declared(
    papers: pd.DataFrame, filed: pd.DataFrame, entry_of: dict[tuple[str, str], str] | None
) -> pd.DataFrame:
    """`file_papers`' table from the classifier's (`filed`, in `filing_taxonomy`'s taxonomy): each
    paper with a declared area filed there when `entry_of` is given."""
    if entry_of is None:
        return filed.assign(subfield_inferred=True, inferred_area=filed["area"]).astype(FILED_COLUMNS)
    inferred_area = filed["area"].to_numpy()
    has = (papers["declared_area"] != "").to_numpy()
    entries = [entry_of.get((a, s), a) for a, s in zip(papers["declared_area"], papers["declared_subarea"])]
    filed.loc[has, "area"] = papers["declared_area"].to_numpy()[has]
    filed.loc[has, "subfield"] = np.asarray(entries, dtype=object)[has]
    filed.loc[has, ["subfield_score", "subfield_runner_up", "subfield_runner_up_score", "subfield_confident"]] = [
        1.0,
        "",
        0.0,
        True,
    ]
    return filed.assign(subfield_inferred=~has, inferred_area=inferred_area).astype(FILED_COLUMNS)
