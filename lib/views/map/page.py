"""What the map page rings and lists, from a search, a similar-text query, the open paper and a lasso. Pure; no Streamlit."""

from __future__ import annotations

from collections.abc import Collection, Mapping

import pandas as pd

from lib.views.filters import FACETS
from lib.views.markup import markdown_literal
from lib.views.search import papers_with_ids


def map_highlight(
    query: str, found: pd.DataFrame | None, similar: pd.DataFrame | None, paper_id: str | None
) -> dict[str, Collection[str]]:
    """The `highlight` of `lib.views.map.figure.map_figure`: a search's matches, then the papers most
    similar to a text, then the open paper on top; each only when there is one."""
    highlight: dict[str, Collection[str]] = {}
    if found is not None:
        highlight[f"matches for {query}"] = found["paper_id"]
    if similar is not None:
        highlight["most similar"] = similar["paper_id"]
    if paper_id:
        highlight["open paper"] = [paper_id]
    return highlight


def highlighted_ids(highlight: Mapping[str, Collection[str]]) -> set[str]:
    """Every paper id of `map_highlight`'s layers: the papers a large map draws whatever their rank."""
    return {paper_id for ids in highlight.values() for paper_id in ids}


def map_focus(found: pd.DataFrame | None, similar: pd.DataFrame | None) -> list[str] | None:
    """The papers the map's view goes to (`map_figure(focus=...)`): a search's matches and the papers
    most similar to a text; None, the papers shown, without either or when they hold no paper."""
    ids = [paper_id for table in (found, similar) if table is not None for paper_id in table["paper_id"]]
    return ids or None


def paper_spot(papers: pd.DataFrame, paper_id: str | None) -> tuple[float, float] | None:
    """Where paper `paper_id` sits on the map (x, y), or None without one (or for an id not on it)."""
    rows = papers[papers["paper_id"] == paper_id] if paper_id else papers.iloc[:0]
    return (float(rows["x"].iloc[0]), float(rows["y"].iloc[0])) if len(rows) else None


def listed_papers(
    shown: pd.DataFrame,
    drawn: Collection[str],
    similar: pd.DataFrame | None,
    found: pd.DataFrame | None,
    query: str,
) -> tuple[pd.DataFrame | None, str]:
    """The papers listed under the map and their heading (Markdown): those inside a box or lasso
    (`drawn` ids, in map order), else the most similar to a text, else a search's matches; None
    and "" when there are none of these."""
    if drawn:
        return papers_with_ids(shown, drawn), "selected papers"
    if similar is not None:
        return similar, "papers most similar to your text"
    if found is not None:
        return found, f"papers match “{markdown_literal(query)}”"
    return None, ""


def export_notes(
    papers: pd.DataFrame, shown: pd.DataFrame, query: Mapping[str, list[str]], colouring: str, labels: str
) -> list[str]:
    """What a downloaded map says under its heading, so it stays readable away from the dashboard:
    the papers in view and the filters that chose them (`query`, the facets' URL values), then the
    colouring and labels. Plain text."""
    chosen = "; ".join(f"{FACETS[name]}: {', '.join(values)}" for name, values in query.items() if name in FACETS)
    shown_line = f"{len(shown):,} of {len(papers):,} papers shown" + (f", filtered by {chosen}" if chosen else "")
    return [shown_line + ".", f"Coloured by {colouring}; labels: {labels}."]


def action_line(shown: int, found: pd.DataFrame | None, query: str) -> str:
    """The line right above the map saying what a search did (Markdown), so its effect shows without
    scrolling even on a small screen: how many of the `shown` papers match `query`, or that none
    does; "" without a search."""
    if found is None:
        return ""
    if found.empty:
        return f"**0 papers match** “{markdown_literal(query)}” among the {shown:,} shown."
    return f"**{len(found):,} of {shown:,} papers match** “{markdown_literal(query)}”: ringed on the map, listed below."


def selection_line(drawn: int) -> str:
    """The line right above the map saying what a box or lasso took (Markdown): how many papers,
    listed below; "" when nothing is drawn."""
    if not drawn:
        return ""
    return f"**{drawn:,} paper{'s' if drawn > 1 else ''} in the box or lasso**, listed below the map."


def drawn_line(drawn: int, shown: int, view_complete: bool) -> str:
    """The line over the map of a large map drawn in part (Markdown): how many of the `shown` papers
    are drawn and, unless the view's papers are all drawn (`view_complete`), that zooming in draws
    every paper of a view; "" when every shown paper is drawn."""
    if drawn >= shown:
        return ""
    if view_complete:
        return f"{drawn:,} of {shown:,} papers drawn: every paper in this view."
    return f"{drawn:,} of {shown:,} papers drawn over the density of all: zoom in to see every paper of a view."
