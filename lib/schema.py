"""The papers table: its columns, dtypes and meaning, written down once.

Every stage reads and writes DataFrames that follow these columns. docs/output.md documents the same
table (a test checks that every column here is named there).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, overload

if TYPE_CHECKING:  # pandas is imported where a table is made: the column list alone needs none
    import pandas as pd

    from lib.stored_table import StoredTable


@dataclass(frozen=True)
class Column:
    name: str
    # A pandas dtype name; "list" means an object column of Python lists of str, "sessions" one of
    # lists of session dicts (`SESSION_FIELDS`).
    dtype: str
    meaning: str


PAPER_COLUMNS: tuple[Column, ...] = (
    Column("paper_id", "str", "Stable id: the source's id, else a hash of title and abstract."),
    Column("title", "str", "Display title; derived from the abstract when the source has none."),
    Column("title_is_derived", "bool", "True when `title` was derived from the abstract."),
    Column("abstract", "str", "Abstract text, whitespace-normalised; empty when the source has none."),
    Column("authors", "list", "Author names in source order; may be empty."),
    Column("venue", "str", "Venue name such as `ICML`; from the record, else the file name or heading."),
    Column("year", "Int64", "Publication year; missing when unknown."),
    Column("status", "str", "Decision or presentation type (`Poster`, `Oral`, `Spotlight`); may be empty."),
    Column("url", "str", "Link to the paper page; may be empty."),
    Column("author_keywords", "list", "Keywords the authors gave; may be empty."),
    Column(
        "primary_area", "str", "Area the venue filed the paper under, as it wrote it (`Area->Subarea`); may be empty."
    ),
    Column("declared_area", "str", "The area of `primary_area` (before `->`), readably cased; may be empty."),
    Column("declared_subarea", "str", "The subarea of `primary_area` (after `->`); may be empty."),
    Column("institutions", "list", "The authors' institutions, each once, in author order; may be empty."),
    Column("openreview_url", "str", "The paper's OpenReview forum; may be empty."),
    Column("pdf_url", "str", "Link to the paper's PDF; may be empty."),
    Column(
        "sessions",
        "sessions",
        "Where and when the paper is presented, earliest first: a list of `{kind, name, room, start, end, "
        "poster_position}` (`kind` is `oral`, `spotlight` or `poster`; `start` and `end` time-zone-aware); may be empty.",
    ),
    Column(
        "edition",
        "str",
        "The list's edition the paper belongs to: the record's `edition`, else `venue year` (`ICML 2025`); with "
        "several lists built together, a list whose edition an earlier one has adds its file name (`ICML 2025 (b)`).",
    ),
    Column(
        "same_as",
        "list",
        "Ids of the same paper (the same title, case and punctuation aside) in other editions of the map; usually empty.",
    ),
)

MAP_COLUMNS: tuple[Column, ...] = (
    Column("keywords", "list", "Up to 10 extracted keyphrases, best first."),
    Column(
        "area",
        "str",
        "The paper's declared area, else the top-level taxonomy entry that fits best, or `Unassigned` when none matches.",
    ),
    Column("subfield", "str", "Finest taxonomy entry that fits confidently: a child, or the area itself."),
    Column("subfield_score", "float64", "Similarity of the paper to its subfield, 0 to 1; 1 when declared."),
    Column(
        "subfield_runner_up",
        "str",
        "Second-best entry at the subfield's depth (a sibling of `subfield`), or empty if none.",
    ),
    Column("subfield_runner_up_score", "float64", "Similarity of the paper to the runner-up, 0 to 1 (0 if none)."),
    Column(
        "subfield_confident", "bool", "False when the area is a low-confidence best guess; `subfield` is then the area."
    ),
    Column(
        "subfield_inferred",
        "bool",
        "True when `area` and `subfield` are the classifier's; False when they are the paper's declared ones.",
    ),
    Column(
        "inferred_area",
        "str",
        "The area the classifier picks for the paper, declared area or not (equals `area` where inferred).",
    ),
    Column("topic", "int64", "Coarse topic id, 0 to n_topics - 1, numbered by decreasing size."),
    Column("topic_label", "str", "Short label of the topic from its distinctive keyphrases."),
    Column(
        "topic_fine",
        "int64",
        "Fine topic id, 0 to n_fine_topics - 1, numbered by decreasing size; each lies inside one `topic`.",
    ),
    Column("topic_fine_label", "str", "Short label of the fine topic, distinct among fine topics."),
    Column(
        "topic_assigned_nearest",
        "bool",
        "True when the paper lies outside every dense region of the map and was given its nearest topic.",
    ),
    Column("x", "float64", "Map coordinate."),
    Column("y", "float64", "Map coordinate."),
)

# The fields of one session in the `sessions` column; `start` and `end` are time-zone-aware
# `pd.Timestamp`s (or None when the source gives no time), the others text.
SESSION_FIELDS = ("kind", "name", "room", "start", "end", "poster_position")

# The columns of `papers.parquet`, in order: the contract other tools rely on.
OUTPUT_COLUMNS: tuple[Column, ...] = PAPER_COLUMNS + MAP_COLUMNS

# The columns of one level's topic summaries (`lib.stages.topics.topic_summaries`), in order, as
# `topics.json` in a map's folder holds them (`lib.map_folder`).
SUMMARY_COLUMNS = (
    "topic",
    "label",
    "papers",
    "share",
    "parent",
    "parent_label",
    "assigned_nearest",
    "keywords",
    "keyword_shares",
    "keyword_overall_shares",
    "label_evidence",
    "representatives",
    "x",
    "y",
)


def column_names(columns: tuple[Column, ...]) -> list[str]:
    """The `columns`' names, in order."""
    return [c.name for c in columns]


def empty_table(columns: tuple[Column, ...] = PAPER_COLUMNS) -> pd.DataFrame:
    """A zero-row DataFrame with the given columns and dtypes."""
    import pandas as pd

    return conform(pd.DataFrame({c.name: [] for c in columns}), columns)


def conform(frame: pd.DataFrame, columns: tuple[Column, ...] = PAPER_COLUMNS) -> pd.DataFrame:
    """Return `frame` restricted to `columns`, in order, with the documented dtypes.

    List columns come back from Parquet as NumPy arrays; they are turned back into lists, and lists
    are kept as they are, not copied (a large map's table is made while its stages' tables are held).
    Text columns are one Arrow array each (`one_array`). Raises KeyError naming the first missing column.
    """
    import numpy as np
    import pandas as pd

    missing = [c.name for c in columns if c.name not in frame.columns]
    if missing:
        raise KeyError(f"papers table lacks column {missing[0]!r}")
    out = pd.DataFrame(index=pd.RangeIndex(len(frame)))
    for column in columns:
        values = frame[column.name].reset_index(drop=True)
        if column.dtype == "list":
            # Parquet gives NumPy arrays: `tolist` builds their lists in C, faster than iterating them.
            lists = [v if type(v) is list else v.tolist() if isinstance(v, np.ndarray) else list(v) for v in values]
            out[column.name] = pd.Series(lists, dtype=object)
        elif column.dtype == "sessions":
            out[column.name] = pd.Series([[_session(s) for s in v] for v in values], dtype=object)
        else:
            out[column.name] = one_array(values.astype(column.dtype))
    return out


def one_array(values: pd.Series) -> pd.Series:
    """`values`, an Arrow-backed text column made of several arrays (tables concatenated: lists,
    blocks), as one; any other column as it is. Parquet writes a column in other bytes when it comes
    in other arrays, and pickling joins them: so the same table is written in the same bytes whichever
    process made it, and whether it was pickled on its way."""
    import pandas as pd
    import pyarrow as pa

    array = values.array
    if not isinstance(array, pd.arrays.ArrowStringArray):
        return values
    arrow = array.__arrow_array__()
    if arrow.num_chunks <= 1:
        return values
    whole = pd.arrays.ArrowStringArray(pa.chunked_array([arrow.combine_chunks()]), dtype=array.dtype)
    return pd.Series(whole, index=values.index, name=values.name)


def _session(session: dict) -> dict:
    """One session as `SESSION_FIELDS`; Parquet gives its times back as `datetime`s, made `pd.Timestamp`s."""
    import pandas as pd

    return {
        name: (None if pd.isna(session.get(name)) else pd.Timestamp(session[name]))
        if name in ("start", "end")
        else str(session.get(name) or "")
        for name in SESSION_FIELDS
    }


# A title's leading "X:" or trailing "(X)" that at least this share of a list's titles (and at least
# MARKER_MIN_TITLES) share is a track or format marker ("Position:", "(Extended Abstract)"), not a subject.
MARKER_MIN_SHARE = 0.01
MARKER_MIN_TITLES = 3
_LEADING_MARKER = re.compile(r"^\s*([^:()]{1,40}):\s+(?=\S)")
_TRAILING_MARKER = re.compile(r"(?<=\S)\s*\(([^()]{1,40})\)\s*$")


def _marker_matches(title: str) -> list[tuple[str, re.Match[str]]]:
    """`title`'s leading "x:" and trailing "(x)", each as its lower-cased, space-folded key and match."""
    found = []
    for pattern, form in ((_LEADING_MARKER, "{}:"), (_TRAILING_MARKER, "({})")):
        if match := pattern.search(title):
            found.append((form.format(" ".join(match.group(1).lower().split())), match))
    return found


def title_markers(titles: Sequence[str]) -> frozenset[str]:
    """The track or format markers of a list's titles, lower-cased: leading "x:" and trailing "(x)" forms
    shared by at least MARKER_MIN_SHARE of the titles and MARKER_MIN_TITLES of them."""
    counts: dict[str, int] = {}
    for title in titles:
        for key, _ in _marker_matches(title):
            counts[key] = counts.get(key, 0) + 1
    least = max(MARKER_MIN_TITLES, MARKER_MIN_SHARE * len(titles))
    return frozenset(key for key, count in counts.items() if count >= least)


def without_markers(title: str, markers: frozenset[str]) -> str:
    """`title` without its leading or trailing marker among `markers` (see `title_markers`)."""
    # The trailing one is cut first, so the leading one's offsets still hold.
    for key, match in reversed(_marker_matches(title)):
        if key in markers:
            title = title[: match.start()] + title[match.end() :]
    return title.strip()


@dataclass(frozen=True)
class TextReading:
    """How a list's papers are read for analysis (`analysis_texts`): the track or format `markers` its
    titles lose, and whether abstracts are read (`use_abstracts`)."""

    markers: frozenset[str]
    use_abstracts: bool

    def to_dict(self) -> dict[str, Any]:
        """As JSON values (a cache sidecar's); `from_dict` reads it back."""
        return {"markers": sorted(self.markers), "use_abstracts": self.use_abstracts}

    @classmethod
    def from_dict(cls, recorded: dict[str, Any]) -> TextReading:
        return cls(frozenset(recorded["markers"]), bool(recorded["use_abstracts"]))


def text_reading(papers: pd.DataFrame, whole_map: pd.DataFrame | None = None) -> TextReading:
    """How `papers` are read: their titles' markers (`title_markers`), and abstracts read unless
    `titles_only` holds of `whole_map` (the table `papers` are rows of, when they are some of its rows)."""
    markers = title_markers([t for t, derived in zip(papers["title"], papers["title_is_derived"]) if not derived])
    return TextReading(markers, not titles_only(papers if whole_map is None else whole_map))


def read_texts(papers: pd.DataFrame, reading: TextReading) -> list[str]:
    """The text each of `papers` is analysed by, read as `reading` says (see `analysis_texts`)."""
    markers, use_abstracts = reading.markers, reading.use_abstracts
    texts = []
    for title, derived, abstract in zip(papers["title"], papers["title_is_derived"], papers["abstract"]):
        title = without_markers(title, markers) if markers else title
        if derived and use_abstracts:
            texts.append(abstract)
        else:
            texts.append(f"{title}. {abstract}".strip(". ") if abstract and use_abstracts else title)
    return texts


def analysis_texts(papers: pd.DataFrame, whole_map: pd.DataFrame | None = None) -> list[str]:
    """The text each paper is analysed by: its title (unless derived) and abstract, or the title alone.

    Titles lose the markers of the table's list (`title_markers`): a format all the track's papers
    share would otherwise read as a subject they have in common. On a map of editions of which some
    have abstracts and some do not (`titles_only`, decided on `whole_map` when `papers` are some of
    its rows: a few papers of one edition would decide otherwise), every paper is analysed by its
    title alone: an abstract's words would draw its edition's papers together, away from the others."""
    return read_texts(papers, text_reading(papers, whole_map))


TEXT_BLOCK = 10_000  # papers whose texts `PaperTexts` makes at a time when iterated
TEXT_COLUMNS = ("title", "title_is_derived", "abstract")  # the papers' columns their texts are read from


class PaperTexts(Sequence[str]):
    """A list's `analysis_texts`, each made when it is read, from the papers table stored in a file,
    as the list's `reading` says: the build never holds every paper's text in its own process
    unless a stage takes them all at once (docs/cluster.md)."""

    def __init__(self, papers: StoredTable, reading: TextReading) -> None:
        self.papers = papers
        self.reading = reading

    def __len__(self) -> int:
        return len(self.papers)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                return [self[i] for i in range(start, stop, step)]
            return read_texts(self.papers.rows_of(start, max(stop, start), TEXT_COLUMNS), self.reading)
        if not -len(self) <= index < len(self):
            raise IndexError(f"paper {index} of {len(self)}")
        index %= len(self)
        return read_texts(self.papers.rows_of(index, index + 1, TEXT_COLUMNS), self.reading)[0]

    def __iter__(self) -> Iterator[str]:
        for start in range(0, len(self), TEXT_BLOCK):
            yield from self[start : start + TEXT_BLOCK]


def titles_only(papers: pd.DataFrame) -> bool:
    """Whether `papers` hold editions of which some have abstracts (most of their papers) and some do not."""
    if "edition" not in papers or papers["edition"].nunique() < 2:
        return False
    with_abstracts = (papers["abstract"] != "").groupby(papers["edition"]).mean() >= 0.5
    return bool(with_abstracts.any() and not with_abstracts.all())
