"""The Paper page's choice of a paper: a select box of the map's titles, or on a large map a search
for one (a select box of a million titles would be sent to every visitor)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from lib.views.map.detail import is_large

from .map_view import open_paper, open_paper_id, text_matches

_PAPER_CHOICE = "paper_choice"
_PAPER_QUERY = "paper_query"
PAPER_CHOICES = 100  # a large map's papers listed for its search, at most


def url_paper_choice(papers: pd.DataFrame, map_dir: str) -> str | None:
    """A select box of the map's papers by title, showing the open paper (see `url_paper`); on a
    large map (`lib.views.map.detail.is_large`), of the first `PAPER_CHOICES` papers its search box
    finds (`lib.views.search.text_matches`) and the open paper.

    Returns the open paper's id, which may name no paper of the map (the page says so), or None.
    """
    paper_id = open_paper_id()
    offered = papers
    if is_large(papers):
        query = st.text_input(
            "Find a paper", key=_PAPER_QUERY, placeholder="Words of its title, authors, abstract or keywords"
        ).strip()
        found = papers[text_matches(map_dir, query)].head(PAPER_CHOICES) if query else papers.iloc[:0]
        offered = pd.concat([papers[papers["paper_id"] == paper_id], found]).drop_duplicates("paper_id")
        if query:
            st.caption(f"The first {len(found):,} papers found: choose one below." if len(found) else "No paper found.")
    titles = dict(zip(offered["paper_id"], offered["title"]))
    st.session_state[_PAPER_CHOICE] = paper_id if paper_id in titles else None
    st.selectbox(
        "Paper",
        list(titles),
        index=None,
        format_func=lambda v: str(titles.get(v)),
        key=_PAPER_CHOICE,
        on_change=_choose_paper,
        placeholder="Choose a paper by its title",
    )
    return paper_id or None


def _choose_paper() -> None:
    # A callback runs before the rerun, so the page already reads the new choice.
    open_paper(st.session_state[_PAPER_CHOICE])
