"""Where the dashboard's data comes from, the view every page draws from, and widgets whose state lives in the URL."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd
import streamlit as st

from lib.build.pipeline import PAPERS_FILE, build, is_built, read_load_report, read_papers, recorded_report
from lib.stages.load import LoadReport
from lib.stages.topics import topic_summaries as summarise_topics
from lib.store.datasets import map_folder
from lib.views.filters import FACETS, Filters, choices_from_query, facet_options

_VIEW_KEY = "papermap_view"
# What each pipeline stage does, in a reader's words, for the first build's progress bar.
STAGE_DESCRIPTIONS = {
    "wait": "waiting for another session's build of this map",
    "load": "reading the papers",
    "keywords": "finding each paper's keyphrases",
    "subfields": "filing papers under subfields",
    "embed": "comparing the texts",
    "project": "laying out the map",
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
    filters: Filters
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
            bar.progress(
                done / total,
                text=f"Building the map of {source.data.name} (step {min(done + 1, total)} of {total}): {step}",
            )

        try:
            build(
                source.data, taxonomy_path=source.taxonomy, out_dir=out_dir, cache_dir=source.cache, progress=progress
            )
        finally:
            bar.empty()  # a build that fails leaves its one-sentence error, not a bar stuck at its last step
    papers, report = read_map(str(out_dir))
    return papers, recorded_report(report, source.data), str(out_dir)


@st.cache_data(show_spinner=False, max_entries=4)
def read_map(out_dir: str) -> tuple[pd.DataFrame, dict]:
    """The papers table and load report of the build in `out_dir`, read once per folder and session
    cache (keyed by the folder alone: a folder's name changes whenever its inputs do)."""
    return read_papers(Path(out_dir) / PAPERS_FILE), read_load_report(Path(out_dir))


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
    chosen = st.multiselect(
        label, list(options), format_func=lambda v: f"{v} ({options.get(v, 0)})", key=key, placeholder=placeholder
    )
    write_url(key, chosen, [])
    return chosen


def url_select(label: str, options: dict[str, str], key: str, default: str, horizontal: bool = False) -> str:
    """A choice among `options` (value -> display name) kept in the URL as `?key=value`.

    A radio when `horizontal`, else a select box. The choice also survives visits to other pages.
    """
    if key not in st.session_state:
        wanted = st.query_params.get(key)
        st.session_state[key] = wanted if wanted in options else default
    if horizontal:
        value = st.radio(
            label, list(options), format_func=options.get, key=key, horizontal=True, persist_state="session"
        )
    else:
        value = st.selectbox(label, list(options), format_func=options.get, key=key, persist_state="session")
    write_url(key, value, default)
    return value


def url_text(label: str, key: str, placeholder: str, area: bool = False) -> str:
    """A text box (a text area when `area`) kept in the URL as `?key=text`; returns the stripped text."""
    if key not in st.session_state:
        st.session_state[key] = st.query_params.get(key, "")
    widget = st.text_area if area else st.text_input
    value = widget(label, key=key, placeholder=placeholder, persist_state="session").strip()
    write_url(key, value, "")
    return value


def write_url(key: str, value: str | list[str], default: str | list[str]) -> None:
    """Put `value` in the URL as `?key=`, or take `key` out when `value` is the default (a plain link stays plain)."""
    if value != default:
        st.query_params[key] = value
    elif key in st.query_params:
        del st.query_params[key]


# Keyword and author facets of a large conference hold tens of thousands of values; a widget offers
# the common ones (authors are matched by a typed name fragment instead).
KEYWORD_OPTIONS = 1500


@st.cache_data(show_spinner=False, max_entries=256)
def _facet_options(map_dir: str, chosen: dict[str, list[str]], name: str, _papers: pd.DataFrame) -> dict[str, int]:
    # Keyed by the map's folder and the choice (the table itself is not hashed: at 87k papers that
    # alone would take longer than counting): a rerun that changes no filter counts nothing again.
    return facet_options(
        _papers,
        Filters.from_query(chosen),
        name,
        limit=KEYWORD_OPTIONS if name == "keyword" else None,
        min_count=2 if name == "keyword" and len(_papers) > 200 else 1,
    )


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
    for name, label in FACETS.items():
        if name == "author":
            author = url_text(label, key="author", placeholder="Name or part of one")
            chosen = replace(chosen, author=(author,) if author else ())
            continue
        if map_dir is None:
            options = facet_options(
                papers,
                chosen,
                name,
                limit=KEYWORD_OPTIONS if name == "keyword" else None,
                min_count=2 if name == "keyword" and len(papers) > 200 else 1,
            )
        else:
            options = _facet_options(map_dir, chosen.to_query(), name, papers)
        if not options and not getattr(chosen, name):
            continue  # the data has no such values (no statuses, no primary areas)
        values = url_multiselect(label, options, key=name, placeholder=f"Any {label.lower()}")
        chosen = replace(chosen, **{name: tuple(values)})
    if chosen.active():
        st.button("Clear filters", on_click=_clear_filters, width="stretch")
    return chosen


def _clear_filters() -> None:
    for name in FACETS:
        st.session_state[name] = "" if name == "author" else []


PAPER_COLUMN_CONFIG = {
    "similarity": st.column_config.ProgressColumn(
        "Similarity", format="%.2f", min_value=0.0, max_value=1.0, width="small"
    ),
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
    """`lib.stages.topics.topic_summaries` of the whole map in `map_dir`, computed once per map and level."""
    return summarise_topics(read_map(map_dir)[0], level)
