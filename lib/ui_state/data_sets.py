"""Which paper list the dashboard maps: the catalog, `?data=`, uploads and fetching, and what its load skipped."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path

import streamlit as st
from streamlit.runtime.uploaded_file_manager import UploadedFile

from lib.errors import DataSetError, PaperMapError
from lib.paths import DEFAULT_CACHE_DIR, DEFAULT_TAXONOMY
from lib.stages.report import LoadReport
from lib.store.datasets import DEFAULT_DATA_DIR, Catalog, DataSet, built_papers, catalog, save_upload, url_name
from lib.store.sources import ConferenceFetch, OpenReviewAccount, SourceAddresses, conference, fetch_conference
from lib.views.markup import markdown_literal

from .members import may_edit, refusal
from .source import DataSource

_DATA_SET_KEY = "papermap_data_set"  # the set this session opened last: the URL loses `?data=` on a page switch
_WITH_KEY = "papermap_data_with"  # the sets mapped together with it (`?with=`), kept the same way
MAX_TOGETHER = 6  # data sets on one map: past it a build is tens of thousands of papers a visitor can ask for
FETCH_TIMEOUT = 15.0  # seconds the page waits for each server (the CLI waits a minute)
# The conferences the data sets page offers to fetch, by `fetch_conference` name.
FETCHABLE = ("icml2025", "neurips2025", "iclr2025", "icml2024", "neurips2024", "iclr2024")
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
        assert asked is not None  # only a name asked for can be missing: the default is always there
        # url_name keeps the echoed name to letters, digits and ".-_": URL text is never markup.
        st.warning(
            f"There is no data set called `{url_name(asked)}` here; showing {markdown_literal(available.default.label)} instead."
        )
        chosen = available.default
    st.session_state[_DATA_SET_KEY] = st.query_params["data"] = chosen.name
    together = _together_with(available, chosen.name)
    st.session_state[_WITH_KEY] = [data_set.name for data_set in together]
    if together:
        st.query_params["with"] = st.session_state[_WITH_KEY]
    else:
        st.query_params.pop("with", None)
    return DataSource(
        data=chosen.path, taxonomy=chosen.taxonomy, cache=cache_folder(), also=tuple(s.path for s in together)
    )


def _together_with(available: Catalog, chosen: str) -> list[DataSet]:
    """The data sets `?with=` (or this session's last choice) maps together with the set `chosen`:
    each once, in the order given, at most `MAX_TOGETHER - 1`; a name not on offer warns and is left out."""
    asked = st.query_params.get_all("with") if "data" in st.query_params else st.session_state.get(_WITH_KEY, [])
    together: list[DataSet] = []
    for name in dict.fromkeys(asked):
        data_set = available.find(name)
        if data_set is None:
            st.warning(f"There is no data set called `{url_name(name)}` here to map with it; left out.")
        elif name != chosen and len(together) < MAX_TOGETHER - 1:
            together.append(data_set)
    return together


def opened_data_set() -> str | None:
    """The name of the data set this session maps (set by `chosen_source`)."""
    return st.session_state.get(_DATA_SET_KEY)


_CHOICE_KEY = "data_set_choice"  # the data sets page's select box


def data_set_choice(available: Catalog) -> str:
    """A select box of the data sets on offer, by label; it starts at the one offered last
    (`offer_data_set`), else the open one, else the default. Returns the chosen set's name."""
    labels = {s.name: s.label for s in available.sets}
    opened = opened_data_set()
    if st.session_state.get(_CHOICE_KEY) not in labels:
        st.session_state[_CHOICE_KEY] = opened if opened in labels else available.default.name
    return st.selectbox("Data set", list(labels), format_func=lambda v: str(labels.get(v)), key=_CHOICE_KEY)


_TOGETHER_KEY = "data_set_together"  # the data sets page's "map together with" box


def together_choice(available: Catalog, chosen: str) -> list[str]:
    """A multiselect of the other data sets to map with the set `chosen`, as editions of one map
    (at most `MAX_TOGETHER` in all); it starts at those open with it now. Returns their names."""
    labels = {s.name: s.label for s in available.sets if s.name != chosen}
    if _TOGETHER_KEY not in st.session_state:
        opened = st.session_state.get(_WITH_KEY, []) if chosen == opened_data_set() else []
        st.session_state[_TOGETHER_KEY] = [name for name in opened if name in labels]
    st.session_state[_TOGETHER_KEY] = [name for name in st.session_state[_TOGETHER_KEY] if name in labels]
    return st.multiselect(
        "Map together with (each list an edition of one map)",
        list(labels),
        format_func=lambda v: str(labels.get(v)),
        key=_TOGETHER_KEY,
        max_selections=MAX_TOGETHER - 1,
        placeholder="No other data set",
    )


def offer_data_set(available: Catalog, path: Path) -> None:
    """Make the data set of file `path` (just uploaded or fetched) the choice of `data_set_choice`."""
    offered = available.find_path(path)
    assert offered is not None  # the file was just saved in the folders `available` lists
    st.session_state[_CHOICE_KEY] = offered.name


REPORT_LINES = 200  # a load report's lines a page shows; a list with 10^4 renamed ids has as many


def load_report(report: LoadReport) -> None:
    """What loading the open data set skipped or changed, with each reason, in a closed expander
    labelled with the report's summary; nothing when every record was read as it is."""
    if not (report.skipped or report.warnings):
        return
    with st.expander(f"Load report: {markdown_literal(report.summary())}"):
        lines = report.lines()  # skipped records first
        st.text("\n".join(lines[:REPORT_LINES]))
        if len(lines) > REPORT_LINES:
            st.caption(f"The first {REPORT_LINES} of {len(lines):,} lines; `python -m lib build` prints them all.")


def may_open(available: Catalog, name: str, together: Sequence[str] = ()) -> bool:
    """Whether this session may open the data set called `name` (with the sets called `together`):
    its map is built, or the session may edit (opening an unbuilt map starts a build, which is for members)."""
    data_set = available.find(name)
    others = [found for found in map(available.find, together) if found is not None]
    return may_edit() or (data_set is not None and built_papers(data_set, cache_folder(), others) is not None)


def open_data_set(name: str, together: Sequence[str] = ()) -> None:
    """Show the map of the data set called `name`, with the sets called `together` as editions of
    the same map (ends this run)."""
    st.session_state[_DATA_SET_KEY] = name
    st.session_state[_WITH_KEY] = list(together)
    st.switch_page("app_pages/map.py", query_params={"data": name, "with": list(together)})


def saved_upload(uploaded: UploadedFile, uploads_dir: Path) -> tuple[Path, bool]:
    """`datasets.save_upload` of a `st.file_uploader` file, once per file, and whether this run saved
    it (reruns while the file stays in the uploader reuse the saved path).

    Raises `PaperMapError` (one sentence) when the file is too large or not a paper list, or this
    session may not add to the data folder (`may_edit`).
    """
    key = f"papermap_upload_{uploaded.file_id}"
    if key in st.session_state:
        return st.session_state[key], False
    _check_may_edit()
    st.session_state[key] = save_upload(uploads_dir, uploaded.name, uploaded.getvalue())
    return st.session_state[key], True


def _check_may_edit() -> None:
    # Here, not only in the page's disabled widgets: a request can come from a page drawn before the rule.
    if not may_edit():
        raise DataSetError(refusal())


def conference_label(name: str) -> str:
    """How the page names conference `name`: `ICML 2025`."""
    return conference(name).label


def fetch_conference_list(name: str, data_dir: Path) -> ConferenceFetch:
    """`sources.fetch_conference` of conference `name` into `data_dir`, from the sources the
    PAPERMAP_*_URL variables name (else the public ones), each step shown in a status box, waiting
    FETCH_TIMEOUT seconds for each server. Raises `FetchError` (one sentence), or `DataSetError`
    when this session may not add to the data folder (`may_edit`)."""
    _check_may_edit()
    label = conference(name).label
    with st.status(f"Fetching {label}…", expanded=True) as status:
        try:
            fetched = fetch_conference(
                name,
                data_dir,
                addresses=SourceAddresses.from_env(),
                account=OpenReviewAccount.from_env(),
                timeout=FETCH_TIMEOUT,
                progress=status.text,  # plain text: URLs and messages are never markup
            )
        except PaperMapError:
            status.update(label=f"Could not fetch {label}", state="error", expanded=False)
            raise
        status.update(label=f"Fetched {label}: {fetched.papers:,} papers", state="complete", expanded=False)
    return fetched
