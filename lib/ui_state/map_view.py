"""The map page's state: colouring and labels, clicks and lassos, the open paper, search and similar papers."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import streamlit as st

from lib.map_folder import MapEmbeddings, load_map_embeddings
from lib.stages.embed import QueryEmbedder, query_embedder
from lib.views import exports, list_coverage, search
from lib.views.edition_changes import label_marks
from lib.views.map.colours import category_colours
from lib.views.map.detail import is_large, sample_papers
from lib.views.map.figure import COLOR_CHOICES, colourable, map_regions
from lib.views.map.hover import hover_labels, topic_text
from lib.views.map.labels import LABEL_LEVELS
from lib.views.map.points import map_points as build_map_points
from lib.views.map.regions import Region
from lib.views.map.stacks import stack_counts, stacked_with
from lib.views.markup import markdown_literal, safe_url
from lib.views.tables import paper_table
from lib.views.text import short_authors

from .reading import add_to_list_control
from .source import read_map
from .table_config import PAPER_COLUMN_CONFIG
from .url_widgets import write_url
from .view import View

LABEL_CHOICES = {**LABEL_LEVELS, "none": "None"}
MAP_FRAME_KEY = "map-frame"  # the container the map's chart stretches to fill
MAP_TITLE_KEY = "map-title"  # the title and its caption, kept to two short lines
MAP_NOTE_KEY = "map-note"  # a line over the map's top edge (a selection's count), out of the layout's flow
# The plot area the map's labels are spaced for: the smallest the page draws it, in a 1280x720
# window (measured in Chromium on the 3,340 ICML titles: 544 px tall, 527 px wide beside the
# subfield legend); larger windows only spread them further apart.
MAP_HEIGHT_HINT = 544
MAP_WIDTH_HINT = 527

# Static CSS, no data in it but a number of rem. The map fills the window's height less the page's
# header (the title row and the search row above it, 10rem with Streamlit's top bar, and a line more
# when a search's count shows above the map), never under 360 px; the legend sits beside it, the card
# and tables below. The header is kept short (a smaller title, its caption on one line, the search
# boxes' labels in their placeholders, closer rows, narrower side margins) so the map takes three
# quarters of a 1280x720 window.
_MAP_PAGE_CSS = """<style>
.block-container {{ padding: 2.5rem 2rem 1rem; }}
.block-container [data-testid="stVerticalBlock"] {{ gap: 0.5rem; }}
[data-testid="stWidgetLabel"] {{ min-height: 1.25rem; margin-bottom: 0.1rem; }}
[data-testid="stLayoutWrapper"]:has(> .st-key-map-frame) {{ flex: none; min-height: 360px; height: calc(100vh - {header}rem); }}
.st-key-map-frame {{ height: 100%; position: relative; }}
.st-key-map-title h3 {{ font-size: 1.4rem; padding: 0; }}
.st-key-map-title [data-testid="stCaptionContainer"] p {{ white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }}
[data-testid="stLayoutWrapper"]:has(> .st-key-map-note) {{ position: absolute; top: 0; left: 0; z-index: 3; width: 60%;
    pointer-events: none; }}
.st-key-map-note {{ width: fit-content; background: rgba(255, 255, 255, 0.9); padding: 0 0.5rem; border-radius: 0.4rem; }}
.st-key-paper-card {{ position: fixed; right: 1.25rem; bottom: 1.25rem; z-index: 100; width: min(28rem, calc(100vw - 2.5rem));
                     max-height: 55vh; overflow-y: auto; background: #fff; box-shadow: 0 4px 18px rgba(0, 0, 0, 0.25); }}
</style>"""
_HEADER_REM = 10.25  # the frame's top at 1280x720 and 1600x1000 (160 px) and a quarter rem under the map
_STATUS_LINE_REM = 2.7  # one line of text and the gap under it


def map_page_style(status_lines: int = 0) -> None:
    """Lay the map page out so its map fills the window's height under the header, with
    `status_lines` lines of text (a search's count) between the header and the map; the open
    paper's card floats in the window's corner, so a click shows it at any window size, and the
    `MAP_NOTE_KEY` line over the map's top edge."""
    st.html(_MAP_PAGE_CSS.format(header=_HEADER_REM + _STATUS_LINE_REM * status_lines))


def label_column(choice: str) -> str | None:
    """The labels column for a `LABEL_CHOICES` key; None draws no labels."""
    return choice if choice in LABEL_LEVELS else None


def colour_choices(papers: pd.DataFrame) -> dict[str, str]:
    """The colourings this map can show (`colourable`), value -> display name."""
    return {column: COLOR_CHOICES[column] for column in colourable(papers)}


PAPER_KEY = "paper"  # the open paper, in the session and the URL: ?paper=<paper_id>


def open_paper_id() -> str:
    """The open paper: the URL's when it names one (a shared link, a link from another page), else
    the session's, which goes back into the URL (a page switch clears it)."""
    if PAPER_KEY in st.query_params:
        st.session_state[PAPER_KEY] = st.query_params[PAPER_KEY]
    paper_id = st.session_state.get(PAPER_KEY, "")
    write_url(PAPER_KEY, paper_id, "")
    return paper_id


def url_paper(papers: pd.DataFrame) -> str | None:
    """The open paper's id when it is one of `papers`, else None (a stale link opens the map, not an error)."""
    paper_id = open_paper_id()
    return paper_id if paper_id and papers["paper_id"].eq(paper_id).any() else None


def open_paper(paper_id: str | None) -> None:
    """Make `paper_id` the open paper on every page (None closes it); usable as a button callback."""
    st.session_state[PAPER_KEY] = paper_id or ""
    write_url(PAPER_KEY, paper_id or "", "")


PAPER_CARD_KEY = "paper-card"  # floats in the window's corner on the map page (`map_page_style`)


def paper_card(papers: pd.DataFrame, paper_id: str) -> None:
    """A short card of one paper over the map's corner: title, authors, subfield, topic, its link, a close
    button, and the papers drawn on the same spot of the map (`map_stacks.stacked_with`), each a
    button that opens it."""
    found = search.find_paper(papers, paper_id)
    assert found is not None  # the map page opens a card only for a paper of its map (`url_paper`)
    paper = found.paper
    with st.container(border=True, key=PAPER_CARD_KEY):
        st.markdown(f"**{markdown_literal(paper['title'])}**")
        details = [
            short_authors(list(paper["authors"])),
            paper["subfield"],
            f"Topic: {topic_text(str(paper['topic_label']), str(paper['topic_fine_label']))}",
            ", ".join(list(paper["keywords"])[:5]),
        ]
        st.caption(markdown_literal(" · ".join(d for d in details if d)))
        with st.container(horizontal=True):
            link = safe_url(paper["url"])
            st.page_link("app_pages/paper.py", label="Details and similar papers", query_params={PAPER_KEY: paper_id})
            if link:
                st.link_button("Open paper", link)
            st.button("Close", key="close_paper", on_click=open_paper, args=(None,))
        add_to_list_control(found.rows, key="map-open-paper")
        stack_buttons(stacked_with(papers, paper_id), key="map-stacked")


STACK_LISTED = 15  # the stacked papers a card lists; a corpus map can pile up hundreds on one spot


def stack_buttons(stacked: pd.DataFrame, key: str) -> None:
    """The papers drawn on the open paper's spot (nearest first), as buttons that open each, the
    first `STACK_LISTED` of them, saying how many more; nothing when there are none."""
    if stacked.empty:
        return
    many = len(stacked)
    st.markdown(
        f"**{many:,} more paper{'s' if many > 1 else ''} at this spot**, drawn over each other at the full view:"
    )
    for paper in stacked.head(STACK_LISTED).itertuples(index=False):
        st.button(
            markdown_literal(paper.title),
            key=f"{key}-{paper.paper_id}",
            type="tertiary",
            on_click=open_paper,
            args=(paper.paper_id,),
            help=markdown_literal(" · ".join(p for p in (paper.subfield, str(paper.topic_label)) if p)),
        )
    if many > STACK_LISTED:
        st.caption(
            f"And {many - STACK_LISTED:,} more: zoom in on the map, or draw a box around the spot to list them all."
        )


@st.cache_data(show_spinner=False, max_entries=4)
def cached_map_hover(map_dir: str, clickable: bool = True) -> pd.DataFrame:
    """`lib.views.map.hover.hover_labels` of the whole map in `map_dir`, built once per map (seconds on a corpus),
    indexed like `read_map`'s papers; pass it to `map_figure(hover=...)`. A stacked paper's
    hover says how many others share its spot (`map_stacks.stack_counts`, the card's list) and, when
    `clickable` (a map whose click opens the card), that a click lists them."""
    papers = read_map(map_dir)[0]
    return hover_labels(papers, stack_counts(papers), clickable)


@st.cache_resource(show_spinner=False, max_entries=4)
def cached_map_regions(map_dir: str) -> list[Region]:
    """`map_regions` of the whole map in `map_dir`, once per map, shared by every session
    (never changed); pass it to `map_figure(region_shapes=...)`."""
    return map_regions(read_map(map_dir)[0])


@st.cache_resource(show_spinner=False, max_entries=4)
def cached_map_points(map_dir: str) -> bytes:
    """`lib.views.map.points.map_points` of the whole map in `map_dir` with its clickable hover, for the
    map page's chart: built once per map and shared by every session (bytes, never changed)."""
    return build_map_points(read_map(map_dir)[0], cached_map_hover(map_dir))


TABLE_ROWS = 1000  # rows a paper table under the map sends; a corpus view would send tens of megabytes


def paper_list(papers: pd.DataFrame, key: str, what: str = "papers") -> None:
    """A table of `papers` (see `tables.paper_table`), its first `TABLE_ROWS` rows only, saying so,
    with a download of all of them as CSV (built only when clicked).

    The download is `exports.table_csv`, safe to open in a spreadsheet; the tables' own CSV button
    is switched off (`client.disableDataExport` in .streamlit/config.toml) as it writes a title like
    `=HYPERLINK(...)` as a formula."""
    if len(papers) > TABLE_ROWS:
        st.caption(
            f"The first {TABLE_ROWS:,} of {len(papers):,} {what}, in map order. Narrow them with the filters, "
            "a search or a box on the map, or download them all."
        )
    st.dataframe(paper_table(papers.head(TABLE_ROWS)), hide_index=True, column_config=PAPER_COLUMN_CONFIG, key=key)
    st.download_button(
        f"Download all {len(papers):,} as CSV",
        data=lambda: exports.table_csv(paper_table(papers)),
        file_name="papers.csv",
        mime="text/csv",
        on_click="ignore",
        key=f"{key}-csv",
    )


def paper_list_on_demand(papers: pd.DataFrame, key: str, what: str = "papers") -> None:
    """`paper_list` in a collapsed expander, its rows made only once a reader opens it (session state
    `{key}-open`, kept across reruns): a table under the map held back the map's first draw."""
    opened = f"{key}-open"
    # One label whatever the count: a new label is a new expander, closed again after each filter change.
    with st.expander(f"The {what}, as a table", key=opened, on_change="rerun"):
        if st.session_state.get(opened):
            paper_list(papers, key=key, what=what)
        else:
            # An empty table, unseen in the closed expander: the table's code loads with the page, so a
            # box's table does not wait for it.
            st.dataframe(
                paper_table(papers.head(0)), hide_index=True, column_config=PAPER_COLUMN_CONFIG, key=f"{key}-code"
            )


def _paper_link(label: str, paper_id: str, key: str) -> None:
    """A link-like button (`label`, Markdown) that opens paper `paper_id`'s page."""
    st.button(label, key=f"{key}-{paper_id}", type="tertiary", on_click=open_paper, args=(paper_id,))


def paper_buttons(papers: pd.DataFrame, key: str) -> None:
    """One link-like button per paper of a ranking (opening its page), with its subfield and similarity below."""
    for number, paper in enumerate(papers.itertuples(index=False), start=1):
        _paper_link(f"{number}\\. {markdown_literal(paper.title)}", paper.paper_id, key)
        reason = getattr(paper, "reason", "")  # why it is similar: only rankings of papers like a paper have one
        st.caption(
            markdown_literal(" · ".join(p for p in (paper.subfield, f"similarity {paper.similarity:.2f}", reason) if p))
        )


def other_edition_buttons(papers: pd.DataFrame, same_as: Sequence[str], key: str) -> None:
    """The copies of one paper in other editions of the map (its `same_as` ids, rows of `papers`), one
    link-like button each under a heading, opening that copy's page; nothing when it has none."""
    copies = search.papers_with_ids(papers, list(same_as))
    if copies.empty:
        return
    st.markdown("**The same paper in other editions**")
    for paper in copies.itertuples(index=False):
        _paper_link(f"{markdown_literal(paper.edition)}: {markdown_literal(paper.title)}", paper.paper_id, key)


# Streamlit keeps the scroll position across reruns: a paper opened from the bottom of another's page
# would show its own page scrolled past its title. The page's main pane goes back to the top when the
# shown paper changes (remembered in the browser's window: a rerun of the same paper keeps the place).
_TOP_ON_NEW_PAPER_JS = """
export default function ({ data }) {
    const previous = window.papermapShownPaper;
    window.papermapShownPaper = data;
    if (previous !== undefined && previous !== data) {
        document.querySelector('[data-testid="stMain"]')?.scrollTo({ top: 0 });
    }
}
"""
_top_on_new_paper = st.components.v2.component("papermap_top_on_new_paper", js=_TOP_ON_NEW_PAPER_JS)


def scroll_to_top_on_new_paper(paper_id: str) -> None:
    """Show the page from its top when `paper_id` is not the paper this browser window showed last."""
    _top_on_new_paper(key="top-on-new-paper", data=paper_id)


@st.cache_data(show_spinner=False, max_entries=4)
def cached_map_embeddings(map_dir: str) -> MapEmbeddings:
    """The map's embeddings, read once per map for every page that compares papers by them."""
    return load_map_embeddings(map_dir)


@st.cache_resource(show_spinner="Loading the embedding model…", max_entries=2)
def cached_query_embedder(map_dir: str) -> QueryEmbedder:
    """The map's own model for embedding new text (a search, a reader's papers), loaded once."""
    # A resource, not data: a sentence-transformers model cannot be pickled (and is slow to load).
    return query_embedder(cached_map_embeddings(map_dir).query_model)


@st.cache_resource(show_spinner="Indexing the papers' words…", max_entries=2)
def cached_term_index(map_dir: str) -> search.TermIndex:
    """`lib.views.search.TermIndex` of the map's papers, made once per map."""
    return search.TermIndex.of_papers(read_map(map_dir)[0])


@st.cache_data(show_spinner=False, max_entries=16)
def cached_map_colours(map_dir: str, color_by: str) -> dict[str, str]:
    """`lib.views.map.colours.category_colours` of the whole map in `map_dir`, once per map and
    colouring; pass it to `map_figure(colours=...)`."""
    return category_colours(read_map(map_dir)[0], color_by)


@st.cache_data(show_spinner=False, max_entries=8)
def cached_label_marks(map_dir: str, labels: str | None) -> dict[str, str]:
    """`lib.views.edition_changes.label_marks` of the whole map in `map_dir` for the label level
    `labels` (a column, or None for no labels), once per map and level: {} on a map of one edition."""
    return label_marks(read_map(map_dir)[0], labels) if labels else {}


@st.cache_data(show_spinner=False, max_entries=4)
def search_example(map_dir: str) -> str:
    """`lib.views.search.search_example` of the map in `map_dir`: a search that finds some of its
    papers; on a large map, of the papers its sample draws (`lib.views.map.detail.map_sample`), which
    finds some of them too, in a fraction of the time of reading every paper's keyphrases."""
    papers = read_map(map_dir)[0]
    if is_large(papers):
        papers = sample_papers(papers)
    return search.search_example(papers)


@st.cache_data(show_spinner=False, max_entries=32)
def text_matches(map_dir: str, query: str) -> np.ndarray:
    """`lib.views.search.text_matches` over the whole map in `map_dir`: one bool per paper, in map order."""
    return search.text_matches(read_map(map_dir)[0], query)


@st.cache_data(show_spinner="Comparing the text with every paper…", max_entries=32)
def similar_to_text(map_dir: str, text: str, k: int = 10) -> pd.DataFrame:
    """The map's `k` papers most similar to `text`, best first, with a `similarity` column (0 to 1);
    empty when the text shares nothing with them. Raises `PaperMapError` (one sentence) when the
    map's embedder cannot embed a text on this machine."""
    vector = cached_query_embedder(map_dir).embed([text])[0]
    cosines = cached_term_index(map_dir).cosines(text)
    ranking = search.similar_to_text(cached_map_embeddings(map_dir).vectors, vector, k, cosines)
    return search.ranked_papers(read_map(map_dir)[0], ranking)


@st.cache_data(show_spinner=False, max_entries=64)
def similar_papers(map_dir: str, paper_id: str, k: int = 10) -> pd.DataFrame:
    """The `k` papers of the map most similar to `paper_id`, best first, with `similarity` and
    `reason` (`lib.views.search.similarity_reasons`) columns; empty when the map has no such paper."""
    papers = read_map(map_dir)[0]
    row = search.paper_row(papers, paper_id)
    if row is None:
        return papers.iloc[:0].assign(similarity=pd.Series(dtype="float64"), reason=pd.Series(dtype="str"))
    embeddings = cached_map_embeddings(map_dir)
    cosines = cached_term_index(map_dir).paper_cosines(row)
    ranked = search.ranked_papers(papers, search.similar_papers(embeddings.vectors, row, k, cosines))
    return ranked.assign(reason=search.similarity_reasons(papers, paper_id, ranked, embeddings.query_model))


def more_like_list(map_dir: str, list_ids: list[str], k: int = 10) -> pd.DataFrame:
    """`lib.views.list_coverage.more_like_list` on the map in `map_dir`: the papers nearest a list's."""
    return list_coverage.more_like_list(cached_map_embeddings(map_dir).vectors, read_map(map_dir)[0], list_ids, k)


def search_in_view(view: View, query: str) -> pd.DataFrame:
    """The papers in view that the text search `query` finds (see `lib.views.search.text_matches`)."""
    found = view.papers["paper_id"][text_matches(view.map_dir, query)]
    return search.papers_with_ids(view.shown, found)


def similar_in_view(view: View, text: str, k: int = 20) -> pd.DataFrame:
    """The `k` papers in view most similar to `text`, best first, with `similarity`; raises
    `PaperMapError` when the map's embedder cannot embed text here."""
    ranked = similar_to_text(view.map_dir, text, len(view.papers))
    return ranked[ranked["paper_id"].isin(view.shown["paper_id"])].head(k)
