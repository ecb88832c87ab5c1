"""The one lib module that imports Streamlit: cached wrappers over the pipeline and the view pages share."""
from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import streamlit as st

from .cache import make_key
from .errors import PaperMapError
from .filters import choices_from_query
from .load import LoadReport
from .pipeline import DEFAULT_CACHE_DIR, DEFAULT_DATA, DEFAULT_TAXONOMY, build, is_built, read_load_report, read_papers
from .topics import topic_summaries as summarise_topics

_VIEW_KEY = "papermap_view"
# What each pipeline stage does, in a reader's words, for the first build's progress bar.
STAGE_DESCRIPTIONS = {
    "load": "reading the papers",
    "keywords": "finding each paper's keyphrases",
    "subfields": "filing papers under subfields",
    "embed": "comparing the texts",
    "project": "laying out the map (the slowest step; up to a minute on a first run)",
    "topics": "finding and naming topics",
    "write": "saving the map",
    "done": "drawing the map",
}


@dataclass(frozen=True)
class DataSource:
    """What the dashboard maps; set by `--data` / `--taxonomy` or PAPERMAP_* environment variables."""

    data: Path
    taxonomy: Path
    cache: Path


@dataclass(frozen=True)
class View:
    """The corpus and the filtered slice every page draws from on this run."""

    source: DataSource
    papers: pd.DataFrame  # the whole map, OUTPUT_COLUMNS
    shown: pd.DataFrame  # the papers that pass the sidebar filters
    report: LoadReport
    map_dir: str  # the build's output folder: a key for caches derived from the map


def data_source(argv: Sequence[str]) -> DataSource:
    """Read `-- --data PATH [--taxonomy FILE]` from the script's arguments, then the environment."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--taxonomy", type=Path, default=None)
    args, _ = parser.parse_known_args(list(argv))
    return DataSource(
        data=args.data or Path(os.environ.get("PAPERMAP_DATA") or DEFAULT_DATA),
        taxonomy=args.taxonomy or Path(os.environ.get("PAPERMAP_TAXONOMY") or DEFAULT_TAXONOMY),
        cache=Path(os.environ.get("PAPERMAP_CACHE") or DEFAULT_CACHE_DIR),
    )


def load_map(source: DataSource) -> tuple[pd.DataFrame, LoadReport, str]:
    """The built map of `source`, its load report and output folder; a progress bar while a first build runs.

    A build's output goes to a folder in the cache named for the files' paths, sizes and times, so
    a rerun (every click) only checks that folder exists and reads it through `st.cache_data`;
    an edited file gets a new folder, and the pipeline's own content-hash cache decides what to
    recompute. Raises `PaperMapError` (one sentence) when the data or taxonomy cannot be used.
    """
    try:
        stamps = [(str(p.resolve()), p.stat().st_size, p.stat().st_mtime_ns) for p in (source.data, source.taxonomy)]
    except OSError as error:
        raise PaperMapError(f"{error.filename}: cannot be read ({error.strerror})") from None
    out_dir = source.cache / "maps" / make_key("dashboard", stamps)
    if not is_built(out_dir):
        bar = st.progress(0.0, text=f"Building the map of {source.data.name}…")

        def progress(stage: str, done: int, total: int) -> None:
            step = STAGE_DESCRIPTIONS.get(stage, stage)
            bar.progress(done / total, text=f"Building the map of {source.data.name} (step {min(done + 1, total)} of {total}): {step}")

        build(source.data, taxonomy_path=source.taxonomy, out_dir=out_dir, cache_dir=source.cache, progress=progress)
        bar.empty()
    papers, report = _read_map(str(out_dir))
    return papers, LoadReport.from_dict(report), str(out_dir)


@st.cache_data(show_spinner=False, max_entries=4)
def _read_map(out_dir: str) -> tuple[pd.DataFrame, dict]:
    # Keyed by the folder alone: a folder's name changes whenever its inputs do.
    return read_papers(Path(out_dir) / "papers.parquet"), read_load_report(Path(out_dir))


def set_view(view: View) -> None:
    st.session_state[_VIEW_KEY] = view


def current_view() -> View:
    """The view the entry script prepared on this run; pages call this instead of loading data."""
    view = st.session_state.get(_VIEW_KEY)
    if view is None:
        st.error("Open PaperMap through dashboard.py: `streamlit run dashboard.py`.")
        st.stop()
    return view


def url_multiselect(label: str, options: dict[str, int], key: str, placeholder: str) -> list[str]:
    """A multiselect of `options` (value -> count) whose choice lives in the URL as `?key=a&key=b`.

    The URL seeds the widget on a session's first run, so a shared link reopens the same view; the
    widget writes its choice back on every run, which also restores the URL after a page switch.
    """
    if key not in st.session_state:
        query = {key: st.query_params.get_all(key)}
        st.session_state[key] = choices_from_query(query, key, options)
    else:  # options can shrink (another filter narrowed them): keep only choices still offered
        st.session_state[key] = [v for v in st.session_state[key] if v in options]
    chosen = st.multiselect(label, list(options), format_func=lambda v: f"{v} ({options.get(v, 0)})", key=key, placeholder=placeholder)
    if chosen:
        st.query_params[key] = chosen
    elif key in st.query_params:
        del st.query_params[key]
    return chosen


PAPER_COLUMN_CONFIG = {
    "title": st.column_config.TextColumn("Title", width="large"),
    "link": st.column_config.LinkColumn("Link", display_text="open", width="small"),
    "authors": st.column_config.TextColumn("Authors", width="medium"),
    "subfield": st.column_config.TextColumn("Subfield", width="medium"),
    "topic": st.column_config.TextColumn("Topic", width="medium"),
    "keywords": st.column_config.TextColumn("Keywords", width="large"),
}

TOPIC_COLUMN_CONFIG = {
    "topic": st.column_config.TextColumn("Topic", width="medium"),
    "papers": st.column_config.NumberColumn("Papers", width="small"),
    "in view": st.column_config.NumberColumn("In view", width="small"),
    "within": st.column_config.TextColumn("Within", width="medium"),
    "keyphrases": st.column_config.TextColumn("Keyphrases", width="large"),
    "representative papers": st.column_config.TextColumn("Representative papers", width="large"),
}


def table_height(rows: int, most: int = 20) -> int:
    """Pixels for a table that shows up to `most` rows without an inner scroll bar."""
    return 38 + 35 * min(rows, most)


@st.cache_data(show_spinner="Summarising topics…", max_entries=8)
def topic_summaries(map_dir: str, level: str) -> pd.DataFrame:
    """`lib.topics.topic_summaries` of the whole map in `map_dir`, computed once per map and level."""
    return summarise_topics(_read_map(map_dir)[0], level)
