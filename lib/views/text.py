"""Short plain-text lines made from paper data: author lines and bylines, for tables, cards and pages."""

from __future__ import annotations


def short_authors(authors: list[str], limit: int = 3) -> str:
    """`A, B, C et al.` style author line."""
    if len(authors) <= limit:
        return ", ".join(authors)
    return ", ".join(authors[:limit]) + " et al."


def byline(*parts: str) -> str:
    """The non-empty `parts` on one line, `A, B et al. · ICML 2025`: what a paper's caption says under its title."""
    return " · ".join(part for part in parts if part)
