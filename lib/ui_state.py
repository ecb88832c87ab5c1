"""The one lib module that imports Streamlit: cached wrappers over the pipeline and the view pages share."""
from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd
import streamlit as st

from . import figures
from .breakdowns import topic_breakdown as breakdown_topics
from .cache import make_key
from .errors import PaperMapError
from .figures import short_authors
from .markup import markdown_literal, safe_url
from .filters import FACETS, Filters, choices_from_query, facet_options
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
    filters: Filters
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
    _write_url(key, chosen, [])
    return chosen


def url_select(label: str, options: dict[str, str], key: str, default: str, horizontal: bool = False) -> str:
    """A choice among `options` (value -> display name) kept in the URL as `?key=value`.

    A radio when `horizontal`, else a select box. The choice also survives visits to other pages.
    """
    if key not in st.session_state:
        wanted = st.query_params.get(key)
        st.session_state[key] = wanted if wanted in options else default
    if horizontal:
        value = st.radio(label, list(options), format_func=options.get, key=key, horizontal=True, persist_state="session")
    else:
        value = st.selectbox(label, list(options), format_func=options.get, key=key, persist_state="session")
    _write_url(key, value, default)
    return value


def url_text(label: str, key: str, placeholder: str, area: bool = False) -> str:
    """A text box (a text area when `area`) kept in the URL as `?key=text`; returns the stripped text."""
    if key not in st.session_state:
        st.session_state[key] = st.query_params.get(key, "")
    widget = st.text_area if area else st.text_input
    value = widget(label, key=key, placeholder=placeholder, persist_state="session").strip()
    _write_url(key, value, "")
    return value


def _write_url(key: str, value: str | list[str], default: str | list[str]) -> None:
    # Defaults stay out of the URL, so a plain link stays plain.
    if value != default:
        st.query_params[key] = value
    elif key in st.query_params:
        del st.query_params[key]


# Keyword and author facets of a large conference hold tens of thousands of values; a widget offers
# the common ones (authors are matched by a typed name fragment instead).
KEYWORD_OPTIONS = 1500


def sidebar_filters(papers: pd.DataFrame) -> Filters:
    """The facet widgets of the sidebar, seeded from the URL; each offers its values with the
    number of papers they would show given the other facets' choices. Returns the choice."""
    # Before the widgets exist, their choices are the session's, or on a first run the URL's.
    chosen = Filters.from_query({
        name: st.session_state[name] if name in st.session_state else st.query_params.get_all(name) for name in FACETS if name != "author"
    })
    for name, label in FACETS.items():
        if name == "author":
            author = url_text(label, key="author", placeholder="Name or part of one")
            chosen = replace(chosen, author=(author,) if author else ())
            continue
        options = facet_options(papers, chosen, name, limit=KEYWORD_OPTIONS if name == "keyword" else None,
                                min_count=2 if name == "keyword" and len(papers) > 200 else 1)
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


LABEL_CHOICES = {**figures.LABEL_LEVELS, "none": "None"}


def label_column(choice: str) -> str | None:
    """The labels column for a `LABEL_CHOICES` key; None draws no labels."""
    return choice if choice in figures.LABEL_LEVELS else None


def colour_choices(papers: pd.DataFrame) -> dict[str, str]:
    """The colourings this map can show (`figures.colourable`), value -> display name."""
    return {column: figures.COLOR_CHOICES[column] for column in figures.colourable(papers)}


@dataclass(frozen=True)
class MapSelection:
    """What a reader picked on the map: one clicked paper, or the papers inside a box or lasso."""

    clicked: str | None
    drawn: tuple[str, ...]


def map_selection(event: object) -> MapSelection:
    """Paper ids from `st.plotly_chart`'s selection event (ids travel in each point's `customdata`)."""
    selection = getattr(event, "selection", None) or {}
    ids = tuple(dict.fromkeys(str(p["customdata"]) for p in selection.get("points", []) if p.get("customdata") is not None))
    if selection.get("box") or selection.get("lasso"):
        return MapSelection(None, ids)
    return MapSelection(ids[0] if len(ids) == 1 else None, ())


_PAPER_KEY = "paper"


def url_paper(papers: pd.DataFrame) -> str | None:
    """The open paper: `?paper=<id>` on a first run, then the last one clicked; None when it is not in `papers`."""
    if _PAPER_KEY not in st.session_state:
        st.session_state[_PAPER_KEY] = st.query_params.get(_PAPER_KEY, "")
    paper_id = st.session_state[_PAPER_KEY]
    if paper_id and not papers["paper_id"].eq(paper_id).any():
        paper_id = ""
    _write_url(_PAPER_KEY, paper_id, "")
    return paper_id or None


def open_paper(paper_id: str | None) -> None:
    """Make `paper_id` the open paper (None closes it), in the session and the URL."""
    st.session_state[_PAPER_KEY] = paper_id or ""
    _write_url(_PAPER_KEY, paper_id or "", "")


def paper_card(papers: pd.DataFrame, paper_id: str) -> None:
    """A short card of one paper under the map: title, authors, subfield, its link, a close button."""
    paper = papers[papers["paper_id"] == paper_id].iloc[0]
    with st.container(border=True):
        st.markdown(f"**{markdown_literal(paper['title'])}**")
        details = [short_authors(list(paper["authors"])), paper["subfield"], paper["topic_label"], ", ".join(list(paper["keywords"])[:5])]
        st.caption(markdown_literal(" · ".join(d for d in details if d)))
        buttons = st.columns([1, 1, 4])
        link = safe_url(paper["url"])
        if link:
            buttons[0].link_button("Open paper", link)
        buttons[1].button("Close", key="close_paper", on_click=open_paper, args=(None,))


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


# --- Per-topic and per-subfield breakdowns (pages/topics.py, pages/subfields.py) ---

_MAP_PAGE = "pages/map.py"
_MAP_LINK_KEY = "papermap_map_link"


@st.cache_data(show_spinner="Breaking topics down…", max_entries=8)
def topic_breakdown(map_dir: str, level: str) -> pd.DataFrame:
    """`lib.breakdowns.topic_breakdown` of the whole map in `map_dir`, computed once per map and level."""
    return breakdown_topics(_read_map(map_dir)[0], level)


def open_map(query: dict[str, list[str]]) -> None:
    """Switch to the map page filtered by `query` (facet -> values, as `lib.breakdowns.map_filters` gives).

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


def map_button(label: str, query: dict[str, list[str]], key: str) -> None:
    """A button that opens the map filtered by `query` (see `open_map`)."""
    if st.button(label, key=key):
        open_map(query)


KEYWORD_COLUMN_CONFIG = {
    "keyphrase": st.column_config.TextColumn("Keyphrase", width="medium"),
    "in topic": st.column_config.ProgressColumn("Share of the topic's papers", format="percent", min_value=0, max_value=1),
    "whole map": st.column_config.NumberColumn("Share of all papers", format="percent"),
    "lift": st.column_config.NumberColumn("Times as common in the topic", format="%.1f×"),
}
