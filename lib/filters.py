"""Filter state -> DataFrame mask, and the option lists (with counts) that filter widgets show."""
from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping

import pandas as pd


def value_counts(papers: pd.DataFrame, column: str) -> dict[str, int]:
    """Each value of `column` with its number of papers, most common first, ties alphabetical."""
    counts = papers[column].astype(str).value_counts()
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def filter_papers(papers: pd.DataFrame, areas: Collection[str] = (), subfields: Collection[str] = ()) -> pd.DataFrame:
    """The papers in any of `areas` and in any of `subfields`; an empty choice does not filter.

    A subfield matches the `subfield` column exactly: choosing the subfield "Deep Learning" means
    the papers filed under the area itself, the count its option shows.
    """
    mask = pd.Series(True, index=papers.index)
    if areas:
        mask &= papers["area"].isin(set(areas))
    if subfields:
        mask &= papers["subfield"].isin(set(subfields))
    return papers[mask]


def choices_from_query(query: Mapping[str, list[str]], key: str, options: Iterable[str]) -> list[str]:
    """The values of URL parameter `key` that are valid `options`, in URL order, without repeats.

    Unknown values (a stale link, a hand-edited URL) are dropped rather than failing the page.
    """
    valid = set(options)
    return list(dict.fromkeys(v for v in query.get(key, []) if v in valid))
