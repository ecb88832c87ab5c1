"""The topics and subfields pages: cached topic summaries and breakdowns, and links that open the map filtered."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from lib.map_folder import read_topic_summaries
from lib.views.breakdowns import topic_breakdown as breakdown_topics
from lib.views.edition_changes import newest_of_changed, what_changed
from lib.views.filters import FACETS

from .source import read_map

_MAP_PAGE = "app_pages/map.py"
_MAP_LINK_KEY = "papermap_map_link"


@st.cache_data(show_spinner=False, max_entries=8)
def topic_summaries(map_dir: str, level: str) -> pd.DataFrame:
    """The `level` topic summaries (`lib.stages.topics.topic_summaries`) of the whole map in
    `map_dir`, as its build wrote them (`lib.map_folder.read_topic_summaries`): a build counts
    every paper's phrases for the labels anyway, and on a large list a server doing it again is slow."""
    return read_topic_summaries(map_dir, level)


@st.cache_data(show_spinner="Breaking topics down…", max_entries=8)
def topic_breakdown(map_dir: str, level: str) -> pd.DataFrame:
    """`lib.views.breakdowns.topic_breakdown` of the whole map in `map_dir`, computed once per map and
    level from the build's `topic_summaries`, which it would otherwise compute again."""
    return breakdown_topics(read_map(map_dir)[0], level, summaries=topic_summaries(map_dir, level))


@st.cache_data(show_spinner="Comparing the editions…", max_entries=8)
def edition_changes(map_dir: str, level: str) -> pd.DataFrame:
    """`lib.views.edition_changes.what_changed` of the whole map in `map_dir` (empty for one edition),
    once per map and level."""
    return what_changed(read_map(map_dir)[0], "topic_label" if level == "coarse" else "topic_fine_label")


@st.cache_data(show_spinner=False, max_entries=8)
def newest_of_changed_topics(map_dir: str, level: str) -> pd.DataFrame:
    """`lib.views.edition_changes.newest_of_changed` of the whole map in `map_dir`, once per map and level."""
    return newest_of_changed(read_map(map_dir)[0], "topic_label" if level == "coarse" else "topic_fine_label")


def open_map(query: dict[str, list[str]]) -> None:
    """Switch to the map page filtered by `query` (facet -> values, as `lib.views.map.links.map_filters` gives).

    The sidebar's facet widgets keep their state across pages and read the URL only on a session's
    first run, so the query also waits in the session for `apply_map_link`, which the entry script
    runs before drawing the sidebar on the next run.
    """
    st.session_state[_MAP_LINK_KEY] = query
    st.switch_page(_MAP_PAGE, query_params=query)


def apply_map_link() -> None:
    """Make a pending `open_map` query the sidebar's choice: its facets set, the others cleared.

    Call before `sidebar_filters`: a widget's state can only be set before the widget is drawn.
    """
    query = st.session_state.pop(_MAP_LINK_KEY, None)
    if query is None:
        return
    for name in FACETS:
        values = list(query.get(name, []))
        st.session_state[name] = (values[0] if values else "") if name == "author" else values


def clickable_chart(figure: go.Figure, key: str) -> object:
    """A breakdown chart (`lib.views.charts`) whose bars or cells can be clicked; returns the
    selection event (`lib.views.map.links.clicked_value`, `cell_of_selection` read it)."""
    return st.plotly_chart(
        figure,
        key=key,
        theme=None,
        on_select="rerun",
        selection_mode="points",
        config={"displaylogo": False},
    )


def map_button(label: str, query: dict[str, list[str]], key: str) -> None:
    """A button that opens the map filtered by `query` (see `open_map`)."""
    if st.button(label, key=key):
        open_map(query)


KEYWORD_COLUMN_CONFIG = {
    "keyphrase": st.column_config.TextColumn("Keyphrase", width="medium"),
    "in topic": st.column_config.ProgressColumn(
        "Share of the topic's papers", format="percent", min_value=0, max_value=1
    ),
    "whole map": st.column_config.NumberColumn("Share of all papers", format="percent"),
    "lift": st.column_config.NumberColumn("Times as common in the topic", format="%.1f×"),
}
