"""The one lib module that imports Streamlit: cached wrappers over the pipeline and the view pages share."""
from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import streamlit as st
from streamlit.runtime.uploaded_file_manager import UploadedFile

from .datasets import DEFAULT_DATA_DIR, Catalog, catalog, map_folder, save_upload, url_name
from .fetch import ICML2025_URL, Fetched, fetch_paper_list
from .filters import choices_from_query
from .load import LoadReport
from .pipeline import DEFAULT_CACHE_DIR, DEFAULT_TAXONOMY, build, is_built, read_load_report, read_papers
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
    """What the dashboard maps: the data set `chosen_source` picked, its taxonomy and the cache folder."""

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


def load_map(source: DataSource) -> tuple[pd.DataFrame, LoadReport, str]:
    """The built map of `source`, its load report and output folder; a progress bar while a first build runs.

    A build's output goes to a folder in the cache named for the files' paths, sizes and times, so
    a rerun (every click) only checks that folder exists and reads it through `st.cache_data`;
    an edited file gets a new folder, and the pipeline's own content-hash cache decides what to
    recompute. Raises `PaperMapError` (one sentence) when the data or taxonomy cannot be used.
    """
    out_dir = map_folder(source.data, source.taxonomy, source.cache)
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


# ---- Data sets: which paper list the dashboard maps, uploads and fetching (issue 4) ----

_DATA_SET_KEY = "papermap_data_set"  # the set this session opened last: the URL loses `?data=` on a page switch
FETCH_TIMEOUT = 15.0  # seconds the page waits for the server (the CLI waits a minute)
DATA_SET_COLUMN_CONFIG = {
    "name": st.column_config.TextColumn("Name (?data=)", width="medium"),
    "data set": st.column_config.TextColumn("Data set", width="large"),
    "papers": st.column_config.NumberColumn("Papers", width="small", help="Empty until the data set is first opened"),
    "size": st.column_config.TextColumn("File size", width="small"),
    "built": st.column_config.CheckboxColumn("Mapped", width="small"),
}


def data_catalog(argv: Sequence[str]) -> Catalog:
    """The data sets on offer, from `-- [--data PATH] [--data-dir DIR] [--taxonomy FILE]` in the
    script's arguments, else PAPERMAP_DATA, PAPERMAP_DATA_DIR and PAPERMAP_TAXONOMY.

    `--data` is the default choice when given; `--data-dir` (default `data/`) is the folder whose
    paper lists and `uploads/` are offered, and where fetched lists are saved.
    """
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--taxonomy", type=Path, default=None)
    args, _ = parser.parse_known_args(list(argv))
    given = args.data or (Path(os.environ["PAPERMAP_DATA"]) if os.environ.get("PAPERMAP_DATA") else None)
    return catalog(
        args.data_dir or Path(os.environ.get("PAPERMAP_DATA_DIR") or DEFAULT_DATA_DIR),
        given=given,
        taxonomy=args.taxonomy or Path(os.environ.get("PAPERMAP_TAXONOMY") or DEFAULT_TAXONOMY),
    )


def cache_folder() -> Path:
    """The stage and map cache: PAPERMAP_CACHE, else `data/cache/`."""
    return Path(os.environ.get("PAPERMAP_CACHE") or DEFAULT_CACHE_DIR)


def chosen_source(argv: Sequence[str]) -> DataSource:
    """The data set to map on this run: the one `?data=<name>` names, else the one this session
    opened last, else the default choice of `data_catalog(argv)`.

    The choice is written back to the URL, so a copied link reopens the same data set. A name not
    on offer shows one warning and maps the default.
    """
    available = data_catalog(argv)
    asked = st.query_params.get("data") or st.session_state.get(_DATA_SET_KEY)
    chosen = available.find(asked) if asked else available.default
    if chosen is None:
        # url_name keeps the echoed name to letters, digits and ".-_": URL text is never markup.
        st.warning(f"There is no data set called `{url_name(asked)}` here; showing `{available.default.label}` instead.")
        chosen = available.default
    st.session_state[_DATA_SET_KEY] = st.query_params["data"] = chosen.name
    return DataSource(data=chosen.path, taxonomy=chosen.taxonomy, cache=cache_folder())


def opened_data_set() -> str | None:
    """The name of the data set this session maps (set by `chosen_source`)."""
    return st.session_state.get(_DATA_SET_KEY)


def open_data_set(name: str) -> None:
    """Show the map of the data set called `name` (ends this run)."""
    st.session_state[_DATA_SET_KEY] = name
    st.switch_page("pages/map.py", query_params={"data": name})


def saved_upload(uploaded: UploadedFile, uploads_dir: Path) -> tuple[Path, bool]:
    """`datasets.save_upload` of a `st.file_uploader` file, once per file, and whether this run saved
    it (reruns while the file stays in the uploader reuse the saved path).

    Raises `PaperMapError` (one sentence) when the file is too large or not a paper list.
    """
    key = f"papermap_upload_{uploaded.file_id}"
    if key in st.session_state:
        return st.session_state[key], False
    st.session_state[key] = save_upload(uploads_dir, uploaded.name, uploaded.getvalue())
    return st.session_state[key], True


def fetch_icml2025(data_dir: Path) -> Fetched:
    """Download ICML 2025's list (PAPERMAP_FETCH_URL overrides the address) into `data_dir` under a
    spinner, waiting FETCH_TIMEOUT seconds for the server. Raises `FetchError` (one sentence)."""
    url = os.environ.get("PAPERMAP_FETCH_URL") or ICML2025_URL
    with st.spinner(f"Downloading {url}…"):
        return fetch_paper_list(url, data_dir, timeout=FETCH_TIMEOUT)
