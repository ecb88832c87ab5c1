"""The sidebar's facet filters: one widget per facet, seeded from the URL, offering counted values."""

from __future__ import annotations

from dataclasses import replace
from typing import TypedDict

import pandas as pd
import streamlit as st

from lib.views.edition_changes import editions_in_order
from lib.views.filters import (
    FACETS,
    Filters,
    facet_counts,
    facet_options,
    filter_papers,
    most_common,
    offer_scope,
    offered_with_counts,
)

from .url_widgets import url_multiselect, url_text

EDITION_STEP_KEY = "edition_step"  # the slider that shows one edition at a time
ALL_EDITIONS = "All"
# Keyword and author facets of a large conference hold tens of thousands of values; a widget offers
# the common ones (authors are matched by a typed name fragment instead).
KEYWORD_OPTIONS = 1500


@st.cache_data(show_spinner=False, max_entries=512)
def _facet_counts(map_dir: str, scope: dict[str, list[str]], name: str, _papers: pd.DataFrame) -> dict[str, int]:
    # Keyed by the map's folder and the filters counted over (the table itself is not hashed: at 87k
    # papers that alone would take longer than counting). Each facet's two tallies are cached
    # apart (`filters.offered_with_counts`): a new choice in one facet recounts only what it changes,
    # and where both count the same papers (no other facet chosen) they are counted once.
    return facet_counts(filter_papers(_papers, Filters.from_query(scope)), name)


@st.cache_data(show_spinner=False, max_entries=512)
def _offered_values(map_dir: str, scope: dict[str, list[str]], name: str, _papers: pd.DataFrame) -> dict[str, int]:
    # Cached apart from the whole tally, which for keywords and authors is far larger than the offer.
    return most_common(_facet_counts(map_dir, scope, name, _papers), **_offer_limits(_papers, name))


class _OfferLimits(TypedDict, total=False):
    """The arguments of `facet_counts` and `facet_options` that limit a facet's values; one left out keeps its default."""

    limit: int | None
    min_count: int


def _offer_limits(papers: pd.DataFrame, name: str) -> _OfferLimits:
    # Keywords: the common ones only, and on a large map none used by a single paper.
    return {
        "limit": KEYWORD_OPTIONS if name == "keyword" else None,
        "min_count": 2 if name == "keyword" and len(papers) > 200 else 1,
    }


def _options(papers: pd.DataFrame, chosen: Filters, name: str, map_dir: str | None) -> dict[str, int]:
    if map_dir is None:
        return facet_options(papers, chosen, name, **_offer_limits(papers, name))
    offered = _offered_values(map_dir, offer_scope(chosen, name).to_query(), name, papers)
    counts = _facet_counts(map_dir, chosen.without(name).to_query(), name, papers)
    return offered_with_counts(offered, counts, chosen, name)


def sidebar_filters(papers: pd.DataFrame, map_dir: str | None = None) -> Filters:
    """The facet widgets of the sidebar, seeded from the URL; each offers its values with the
    number of papers they would show given the other facets' choices. Returns the choice.

    With `map_dir` (the folder `papers` was read from), the counts are cached per map and choice."""
    # Before the widgets exist, their choices are the session's, or on a first run the URL's.
    chosen = Filters.from_query(
        {
            name: st.session_state[name] if name in st.session_state else st.query_params.get_all(name)
            for name in FACETS
            if name != "author"
        }
    )
    edition_steps(papers, chosen)
    for name, label in FACETS.items():
        if name == "author":
            author = url_text(label, key="author", placeholder="Name or part of one")
            chosen = replace(chosen, author=(author,) if author else ())
            continue
        options = _options(papers, chosen, name, map_dir)
        if len(options) < (2 if name == "edition" else 1) and not getattr(chosen, name):
            continue  # the data has no such values (no statuses, no primary areas), or one edition only
        values = url_multiselect(label, options, key=name, placeholder=f"Any {label.lower()}")
        chosen = replace(chosen, **{name: tuple(values)})
    if chosen.active():
        st.button("Clear filters", on_click=_clear_filters, width="stretch")
    return chosen


def edition_steps(papers: pd.DataFrame, chosen: Filters) -> None:
    """On a map of several editions, a slider over them, earliest first: each step sets the Edition
    filter to that edition alone (its papers in colour, the others grey, the map kept where it is), or
    to all. It follows the filter when the reader sets that by hand."""
    if "edition" not in papers or papers["edition"].nunique() < 2:
        return
    st.session_state[EDITION_STEP_KEY] = chosen.edition[0] if len(chosen.edition) == 1 else ALL_EDITIONS
    st.select_slider(
        "Step through the editions",
        [ALL_EDITIONS, *editions_in_order(papers)],
        key=EDITION_STEP_KEY,
        on_change=_step_to_edition,
    )


def _step_to_edition() -> None:
    step = st.session_state.get(EDITION_STEP_KEY, ALL_EDITIONS)
    st.session_state["edition"] = [] if step == ALL_EDITIONS else [step]


def _clear_filters() -> None:
    for name in FACETS:
        st.session_state[name] = "" if name == "author" else []
