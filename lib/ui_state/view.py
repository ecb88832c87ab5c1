"""The view every page draws from on a run: the corpus, its filtered slice and where they came from,
set by the entry script and read by the pages."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from lib.stages.load import LoadReport
from lib.views.filters import Filters

from .source import DataSource

_VIEW_KEY = "papermap_view"


@dataclass(frozen=True)
class View:
    """The corpus and the filtered slice every page draws from on this run."""

    source: DataSource
    papers: pd.DataFrame  # the whole map, OUTPUT_COLUMNS
    shown: pd.DataFrame  # the papers that pass the sidebar filters
    filters: Filters
    report: LoadReport
    map_dir: str  # the build's output folder: a key for caches derived from the map


def set_view(view: View) -> None:
    st.session_state[_VIEW_KEY] = view


def current_view() -> View:
    """The view the entry script prepared on this run; pages call this instead of loading data."""
    view = st.session_state.get(_VIEW_KEY)
    if view is None:
        st.error("Open PaperMap through dashboard.py: `streamlit run dashboard.py`.")
        st.stop()
    return view
