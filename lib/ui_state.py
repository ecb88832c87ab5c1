"""The one lib module that imports Streamlit: cached wrappers over the pipeline and the view pages share."""
from __future__ import annotations

import argparse
import os
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st
from streamlit.runtime.uploaded_file_manager import UploadedFile

from . import figures, reading_lists, search
from .breakdowns import topic_breakdown as breakdown_topics
from .datasets import DEFAULT_DATA_DIR, Catalog, catalog, map_folder, save_upload, url_name
from .embed import QueryEmbedder, query_embedder
from .errors import ReadingListError
from .fetch import ICML2025_URL, Fetched, fetch_paper_list
from .figures import short_authors
from .filters import FACETS, Filters, choices_from_query, facet_options
from .load import LoadReport
from .markup import markdown_literal, safe_url
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


PAPER_KEY = "paper"  # the open paper, in the session and the URL: ?paper=<paper_id>


def _open_paper_id() -> str:
    """The open paper: the URL's when it names one (a shared link, a link from another page), else
    the session's, which goes back into the URL (a page switch clears it)."""
    if PAPER_KEY in st.query_params:
        st.session_state[PAPER_KEY] = st.query_params[PAPER_KEY]
    paper_id = st.session_state.get(PAPER_KEY, "")
    _write_url(PAPER_KEY, paper_id, "")
    return paper_id


def url_paper(papers: pd.DataFrame) -> str | None:
    """The open paper's id when it is one of `papers`, else None (a stale link opens the map, not an error)."""
    paper_id = _open_paper_id()
    return paper_id if paper_id and papers["paper_id"].eq(paper_id).any() else None


def open_paper(paper_id: str | None) -> None:
    """Make `paper_id` the open paper on every page (None closes it); usable as a button callback."""
    st.session_state[PAPER_KEY] = paper_id or ""
    _write_url(PAPER_KEY, paper_id or "", "")


def paper_card(papers: pd.DataFrame, paper_id: str) -> None:
    """A short card of one paper under the map: title, authors, subfield, its link, a close button."""
    paper = papers[papers["paper_id"] == paper_id].iloc[0]
    with st.container(border=True):
        st.markdown(f"**{markdown_literal(paper['title'])}**")
        details = [short_authors(list(paper["authors"])), paper["subfield"], paper["topic_label"], ", ".join(list(paper["keywords"])[:5])]
        st.caption(markdown_literal(" · ".join(d for d in details if d)))
        with st.container(horizontal=True):
            link = safe_url(paper["url"])
            st.page_link("pages/paper.py", label="Details and similar papers", query_params={PAPER_KEY: paper_id})
            if link:
                st.link_button("Open paper", link)
            st.button("Close", key="close_paper", on_click=open_paper, args=(None,))
        add_to_list_control(papers[papers["paper_id"] == paper_id], key="map-open-paper")


PAPER_COLUMN_CONFIG = {
    "similarity": st.column_config.ProgressColumn("Similarity", format="%.2f", min_value=0.0, max_value=1.0, width="small"),
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


# --- Search, similar papers and the paper page (issue 4) ---

_PAPER_CHOICE = "paper_choice"


@st.cache_data(show_spinner=False, max_entries=4)
def _map_embeddings(map_dir: str) -> search.MapEmbeddings:
    return search.load_map_embeddings(map_dir)


@st.cache_resource(show_spinner="Loading the embedding model…", max_entries=2)
def _query_embedder(map_dir: str) -> QueryEmbedder:
    # A resource, not data: a sentence-transformers model cannot be pickled (and is slow to load).
    return query_embedder(_map_embeddings(map_dir).query_model)


@st.cache_data(show_spinner=False, max_entries=32)
def text_matches(map_dir: str, query: str) -> np.ndarray:
    """`lib.search.text_matches` over the whole map in `map_dir`: one bool per paper, in map order."""
    return search.text_matches(_read_map(map_dir)[0], query)


@st.cache_data(show_spinner="Comparing the text with every paper…", max_entries=32)
def similar_to_text(map_dir: str, text: str, k: int = 10) -> pd.DataFrame:
    """The map's `k` papers most similar to `text`, best first, with a `similarity` column (0 to 1);
    empty when the text shares nothing with them. Raises `PaperMapError` (one sentence) when the
    map's embedder cannot embed a text on this machine."""
    vector = _query_embedder(map_dir).embed([text])[0]
    ranking = search.similar_to_text(_map_embeddings(map_dir).vectors, vector, k)
    return search.ranked_papers(_read_map(map_dir)[0], ranking)


@st.cache_data(show_spinner=False, max_entries=64)
def similar_papers(map_dir: str, paper_id: str, k: int = 10) -> pd.DataFrame:
    """The `k` papers of the map most similar to `paper_id`, best first, with a `similarity` column;
    empty when the map has no such paper."""
    papers = _read_map(map_dir)[0]
    row = search.paper_row(papers, paper_id)
    if row is None:
        return papers.iloc[:0].assign(similarity=pd.Series(dtype="float64"))
    return search.ranked_papers(papers, search.similar_papers(_map_embeddings(map_dir).vectors, row, k))


def search_in_view(view: View, query: str) -> pd.DataFrame:
    """The papers in view that the text search `query` finds (see `lib.search.text_matches`)."""
    found = view.papers["paper_id"][text_matches(view.map_dir, query)]
    return view.shown[view.shown["paper_id"].isin(found)]


def similar_in_view(view: View, text: str, k: int = 20) -> pd.DataFrame:
    """The `k` papers in view most similar to `text`, best first, with `similarity`; raises
    `PaperMapError` when the map's embedder cannot embed text here."""
    ranked = similar_to_text(view.map_dir, text, len(view.papers))
    return ranked[ranked["paper_id"].isin(view.shown["paper_id"])].head(k)


def url_paper_choice(papers: pd.DataFrame) -> str | None:
    """A select box of the map's papers by title, showing the open paper (see `url_paper`).

    Returns the open paper's id, which may name no paper of the map (the page says so), or None.
    """
    titles = dict(zip(papers["paper_id"], papers["title"]))
    paper_id = _open_paper_id()
    st.session_state[_PAPER_CHOICE] = paper_id if paper_id in titles else None
    st.selectbox("Paper", list(titles), index=None, format_func=titles.get, key=_PAPER_CHOICE, on_change=_choose_paper,
                 placeholder="Choose a paper by its title")
    return paper_id or None


def _choose_paper() -> None:
    # A callback runs before the rerun, so the page already reads the new choice.
    open_paper(st.session_state[_PAPER_CHOICE])


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
        st.warning(f"There is no data set called `{url_name(asked)}` here; showing {markdown_literal(available.default.label)} instead.")
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


# --- Reading groups (issue 4): the shared reading-lists database, the chosen list, "add to a list" ---

LIST_KEY = "list"  # the chosen reading list, in the URL as ?list=
_LIST_ERROR = "reading_list_error"


def reading_lists_path() -> Path:
    """The reading-lists database: PAPERMAP_DB, else `data/reading_lists.sqlite`."""
    return Path(os.environ.get("PAPERMAP_DB") or reading_lists.DEFAULT_DB)


@contextmanager
def reading_lists_db() -> Iterator[sqlite3.Connection]:
    """A connection to the reading-lists database for one run (or callback), closed afterwards."""
    with closing(reading_lists.connect(reading_lists_path())) as db:
        yield db


def read_lists(action: Callable[..., object], *args: object) -> object:
    """`action(db, *args)` on the reading-lists database; a ReadingListError stops the page with one sentence."""
    try:
        with reading_lists_db() as db:
            return action(db, *args)
    except ReadingListError as error:
        st.error(str(error))
        st.stop()


def change_lists(action: Callable[..., object], *args: object, **kwargs: object) -> object:
    """`action(db, *args, **kwargs)` as a widget callback; returns its result, or None after an error.

    The error's sentence is kept for `show_list_error`, which the page calls when it next runs.
    """
    try:
        with reading_lists_db() as db:
            return action(db, *args, **kwargs)
    except ReadingListError as error:
        st.session_state[_LIST_ERROR] = str(error)
        return None


def show_list_error() -> None:
    """Show (once) the error a reading-list callback ran into."""
    if message := st.session_state.pop(_LIST_ERROR, None):
        st.error(message)


def list_choice(names: list[str], on_change: Callable[[], None] | None = None) -> str | None:
    """A select box of the reading lists `names`, its choice in the URL as ?list=; None when there are none.

    The URL seeds it on a first visit; a callback that creates or renames a list selects it by setting
    `st.session_state[LIST_KEY]`; a choice that no longer exists falls back to the first list.
    `on_change` runs when the user picks another list.
    """
    if not names:
        _write_url(LIST_KEY, "", "")
        return None
    if st.session_state.get(LIST_KEY) not in names:
        wanted = st.query_params.get(LIST_KEY)
        st.session_state[LIST_KEY] = wanted if wanted in names else names[0]
    name = st.selectbox("Reading list", names, key=LIST_KEY, on_change=on_change, persist_state="session")
    st.query_params[LIST_KEY] = name
    return name


def add_to_list_control(papers: pd.DataFrame, key: str) -> None:
    """A compact row that adds `papers` to a reading list: list choice, new-list name, "Add N papers".

    `papers` are rows of the papers table (`view.papers` / `view.shown` columns), added in their
    order after the list's last paper; papers already in the list are left where they are. The
    select box offers the existing lists (starting at the one chosen on the reading-lists page) and
    "New list…", which enables a name box. After a click, a confirmation links to the list. `key`
    must be unique on the page (e.g. "map-selection", "paper"): it prefixes the widgets' keys.
    The button is disabled while `papers` is empty. Call it in the page body or in a fragment.
    """
    try:
        with reading_lists_db() as db:
            names = reading_lists.list_names(db)
    except ReadingListError as error:
        st.error(str(error))
        return
    choice_key, name_key, done_key = f"{key}-list", f"{key}-new-name", f"{key}-added"
    if st.session_state.get(choice_key) not in names:
        chosen = st.session_state.get(LIST_KEY)
        st.session_state[choice_key] = chosen if chosen in names else names[0] if names else None
    choice, name, button = st.columns([2, 2, 1], vertical_alignment="bottom")
    target = choice.selectbox("Add to reading list", [*names, None], format_func=lambda v: "New list…" if v is None else v, key=choice_key)
    name.text_input("New list's name", key=name_key, disabled=target is not None, placeholder="e.g. Theory reading group")
    count = len(papers)
    button.button(
        f"Add {count} paper{'' if count == 1 else 's'}", key=f"{key}-add", disabled=count == 0, type="primary", width="stretch",
        on_click=_add_papers_to_list, args=(papers, key),
    )
    show_list_error()
    if done := st.session_state.pop(done_key, None):
        list_name, message = done
        st.success(message)
        st.page_link("pages/reading_lists.py", label=f"Open {markdown_literal(list_name)}", query_params={LIST_KEY: list_name})


def _add_papers_to_list(papers: pd.DataFrame, key: str) -> None:
    target, new_name = st.session_state.get(f"{key}-list"), st.session_state.get(f"{key}-new-name", "")
    dataset = current_view().source.data.name

    def add(db: sqlite3.Connection) -> tuple[str, int]:
        name = target if target is not None else reading_lists.create_list(db, new_name)
        return name, reading_lists.add_papers(db, name, papers, dataset)

    result = change_lists(add)
    if result is None:
        return
    name, added = result
    st.session_state[f"{key}-list"] = name
    st.session_state[f"{key}-new-name"] = ""
    skipped = len(papers) - added
    already = f" ({skipped} already there)" if skipped else ""
    st.session_state[f"{key}-added"] = (name, f"Added {added} paper{'' if added == 1 else 's'} to {markdown_literal(name)}{already}.")


STEP_KEY = "step"  # the presented paper, 1-based, in the URL as ?step=
# Static CSS, no data in it: projector-sized text, and no sidebar (filters do not apply to a talk).
_PRESENTATION_CSS = """<style>
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], [data-testid="stExpandSidebarButton"] { display: none; }
.block-container { padding-top: 1.5rem; }
[data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li { font-size: 1.45rem; line-height: 1.45; }
[data-testid="stCaptionContainer"] p { font-size: 1.15rem; }
[data-testid="stWidgetLabel"] p { font-size: 0.9rem; }
h1 { font-size: 2.6rem !important; line-height: 1.2 !important; }
</style>"""


def presentation_style() -> None:
    """Large fonts and no sidebar, for presenting to a room."""
    st.html(_PRESENTATION_CSS)


def url_step(count: int) -> int:
    """The presentation's step from the URL (?step=), clamped to 1..`count`, and written back."""
    try:
        step = int(st.query_params.get(STEP_KEY, "1"))
    except ValueError:
        step = 1
    step = max(1, min(step, count))
    st.query_params[STEP_KEY] = str(step)
    return step


def go_to_step(step: int = 1) -> None:
    """Callback for the Previous/Next buttons (and a change of list): show `step` on the next run."""
    st.query_params[STEP_KEY] = str(step)


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
