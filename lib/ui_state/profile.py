"""Papers for me: the reader's profile kept for the session (never on disk) and the map's papers ranked by it."""

from __future__ import annotations

import pandas as pd
import streamlit as st
from streamlit.runtime.uploaded_file_manager import UploadedFile

from lib.errors import PaperMapError
from lib.views import profile as profiles
from lib.views.markup import markdown_literal

from .map_view import cached_map_embeddings, cached_query_embedder
from .reading import NEW_LIST, add_to_list_control
from .source import read_map
from .table_config import PAPER_COLUMN_CONFIG
from .view import View

PROFILE_KEY = "papers_for_me_profile"
_PROFILE_ERROR = "papers_for_me_error"
# The formats a profile file may be: BibTeX, and every paper-list format.
PROFILE_FILE_TYPES = ["bib", "txt", "json", "jsonl", "csv", "tsv", "parquet"]
MAX_PROFILE_FILE_MB = 20
SAVED_LIST_NAME = "Papers for me"

PROFILE_COLUMN_CONFIG = {
    "rank": st.column_config.NumberColumn("#", width="small"),
    **PAPER_COLUMN_CONFIG,
    "why": st.column_config.TextColumn("Why", width="large"),
    "nearest": st.column_config.TextColumn("Nearest of your papers", width="medium"),
}


def keep_profile(text: str, uploaded: UploadedFile | None) -> None:
    """Read the pasted `text` and the `uploaded` file into one profile and keep it for this session,
    in memory only, for `kept_profile`; a file that cannot be read keeps its one-sentence error instead."""
    try:
        parts = [profiles.parse_pasted(text)]
        if uploaded is not None:
            parts.append(profiles.read_profile_file(uploaded.getvalue(), uploaded.name))
        st.session_state[PROFILE_KEY] = profiles.combined(*parts)
        st.session_state.pop(_PROFILE_ERROR, None)
    except PaperMapError as error:
        st.session_state.pop(PROFILE_KEY, None)
        st.session_state[_PROFILE_ERROR] = str(error)


def kept_profile() -> profiles.Profile | None:
    """The profile the last "Rank papers" kept, after showing what it could not use; None before one,
    or after an error (shown here)."""
    if message := st.session_state.get(_PROFILE_ERROR):
        st.error(markdown_literal(message))  # it may quote the file's own text
    profile = st.session_state.get(PROFILE_KEY)
    if profile is not None and profile.skipped:
        with st.expander(f"{len(profile.skipped)} of your records were left out"):
            for line in profile.skipped:
                st.markdown(f"- {markdown_literal(line)}")
    return profile


@st.cache_data(show_spinner="Comparing your papers with every paper on the map…", max_entries=16)
def profile_scores(map_dir: str, profile: profiles.Profile) -> profiles.ProfileScores:
    """`lib.views.profile.profile_scores` on the map in `map_dir`, its papers embedded with the map's
    own query model. Raises `PaperMapError` when that model cannot embed text on this machine.
    Kept in memory (st.cache_data's default), so a profile is never written to disk."""
    papers = read_map(map_dir)[0]
    return profiles.profile_scores(
        papers, cached_map_embeddings(map_dir).vectors, cached_query_embedder(map_dir), profile
    )


@st.cache_data(show_spinner=False, max_entries=16)
def _top(map_dir: str, profile: profiles.Profile, shown_ids: tuple[str, ...], k: int) -> pd.DataFrame:
    scores = profile_scores(map_dir, profile)
    query_model = cached_map_embeddings(map_dir).query_model
    return profiles.top_for_profile(read_map(map_dir)[0], scores, profile, k, shown_ids, query_model)


def papers_for_me(view: View, profile: profiles.Profile, k: int = 20) -> tuple[pd.DataFrame, profiles.ProfileScores]:
    """The `k` papers in view nearest the profile, best first (`lib.views.profile.top_for_profile`),
    and the scores they come from (with the map's papers that are the profile's own). Raises
    `PaperMapError` when the map's embedder cannot embed text here."""
    scores = profile_scores(view.map_dir, profile)
    return _top(view.map_dir, profile, tuple(view.shown["paper_id"]), k), scores


def save_ranking_control(ranked: pd.DataFrame, key: str = "for-me") -> None:
    """`add_to_list_control` for a ranking, offering a new list named "Papers for me" at first;
    the papers go in in rank order."""
    st.session_state.setdefault(f"{key}-list", NEW_LIST)
    st.session_state.setdefault(f"{key}-new-name", SAVED_LIST_NAME)
    add_to_list_control(ranked, key=key)
