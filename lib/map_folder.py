"""The output folder of a map, the contract other tools read: its file names, and writing, checking,
copying and reading it. The build (`lib.builder`) writes it, the dashboard and the stored lists read it.

A folder holds `papers.parquet` (lib.schema.OUTPUT_COLUMNS), `embeddings.npy` (one float32 row per
paper), `query_model.npz` (what embeds new text into the same space), `topics.json` (each level's
`lib.stages.topics.topic_summaries`) and the `papers.json` sidecar, written last, with each file's
SHA-256, the build's parameters and its load report.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from lib.errors import InputError
from lib.files import (
    StreamWriter,
    atomic_write,
    atomic_write_bytes,
    file_digest,
    read_arrays,
    write_array,
    write_arrays,
    write_frame,
    write_frames,
)
from lib.schema import MAP_COLUMNS, OUTPUT_COLUMNS, PAPER_COLUMNS, SUMMARY_COLUMNS, column_names, conform

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    import pyarrow as pa

    from lib.stored_table import StoredTable

# What a build writes into its output folder; the sidecar, written last, lists the others.
PAPERS_FILE = "papers.parquet"
EMBEDDINGS_FILE = "embeddings.npy"
QUERY_MODEL_FILE = "query_model.npz"
TOPICS_FILE = "topics.json"
SIDECAR_FILE = "papers.json"
OUTPUT_FILES = {
    "papers": PAPERS_FILE,
    "embeddings": EMBEDDINGS_FILE,
    "query_model": QUERY_MODEL_FILE,
    "topics": TOPICS_FILE,
}

# One level's topic summaries as JSON: a list of rows, each a dict of `lib.schema.SUMMARY_COLUMNS`.
SummaryRecords = list[dict[str, Any]]


def map_counts(table: pd.DataFrame) -> dict[str, int]:
    """What a finished map holds, as its sidecar and summary line give it: papers, topics, fine topics,
    subfields; from its table, or its `map_columns`."""
    return {
        "papers": len(table),
        "topics": int(table["topic"].nunique()),
        "fine_topics": int(table["topic_fine"].nunique()),
        "subfields": int(table["subfield"].nunique()),
    }


def map_columns(
    keywords: pd.DataFrame, subfields: pd.DataFrame, topics: pd.DataFrame, coords: np.ndarray
) -> pd.DataFrame:
    """The columns a build adds to its papers (MAP_COLUMNS, in their order), from the stages' tables,
    all in the papers' order: their keyphrases, the columns of `subfields`
    (`lib.stages.declared_areas.FILED_COLUMNS`) and of `topics`, and map coordinates (`coords`)."""
    import pandas as pd

    # Each column as it is (`.array`): `conform` then copies no paper's values (docs/cluster.md).
    columns = pd.DataFrame(
        {
            "keywords": keywords["keywords"].array,
            **{
                name: column.array
                for part in (subfields, topics)
                for name, column in part.items()
                if name != "paper_id"
            },
            "x": coords[:, 0],
            "y": coords[:, 1],
        }
    )
    return conform(columns, MAP_COLUMNS)


def output_table(
    papers: pd.DataFrame, keywords: pd.DataFrame, subfields: pd.DataFrame, topics: pd.DataFrame, coords: np.ndarray
) -> pd.DataFrame:
    """The table `papers.parquet` holds (OUTPUT_COLUMNS, in their order): `papers` (PAPER_COLUMNS)
    with the `map_columns` of the stages' tables."""
    return with_map_columns(papers, map_columns(keywords, subfields, topics, coords))


def with_map_columns(papers: pd.DataFrame, columns: pd.DataFrame) -> pd.DataFrame:
    """`papers` (PAPER_COLUMNS, as read from Parquet or conformed) and their `map_columns` as one
    table of OUTPUT_COLUMNS."""
    return conform(papers.assign(**{name: column.array for name, column in columns.items()}), OUTPUT_COLUMNS)


def write_stored_papers(stream: BinaryIO, papers: StoredTable, columns: pd.DataFrame) -> None:
    """The table of `output_table` written as Parquet to `stream` a row group of `papers` (a stored
    PAPER_COLUMNS table) at a time, with its `map_columns`: the bytes of `write_frame` of the whole,
    when every row group of `papers` but the last has `lib.files.ROW_GROUP_ROWS` rows."""
    import pyarrow as pa

    # Each column's type as the whole table gives it: the file's are the whole stored table's.
    types = [pa.field(c.name, _as_inferred(papers.schema.field(c.name).type)) for c in PAPER_COLUMNS] + [
        pa.field(name, _column_type(column)) for name, column in columns.items()
    ]
    write_frames(stream, _output_slices(papers, columns), pa.schema(types))


def _column_type(column: pd.Series) -> pa.DataType:
    """The Arrow type of `column` (of `map_columns`) as inferred whole, without converting it whole: a
    list column's is its first non-empty list's (every list holds text), or a list of nulls."""
    import pyarrow as pa

    if column.dtype != object:
        return pa.array(column.iloc[:0], from_pandas=True).type
    return pa.array([next((value for value in column if len(value)), [])]).type


def _as_inferred(type_: pa.DataType) -> pa.DataType:
    """`type_` as Arrow infers it from pandas: Parquet gives lists' items back named "element", not "item"."""
    import pyarrow as pa

    if pa.types.is_list(type_):
        return pa.list_(_as_inferred(type_.value_type))
    if pa.types.is_struct(type_):
        return pa.struct([pa.field(field.name, _as_inferred(field.type)) for field in type_])
    return type_


def _output_slices(papers: StoredTable, columns: pd.DataFrame) -> Iterator[pd.DataFrame]:
    """The output table of `papers` and their `columns`, a row group of `papers` at a time."""
    start = 0
    for part in papers.slices(column_names(PAPER_COLUMNS)):
        stop = start + len(part)
        yield with_map_columns(part, columns.iloc[start:stop].reset_index(drop=True))
        start = stop


def summary_records(summaries: Mapping[str, pd.DataFrame]) -> dict[str, SummaryRecords]:
    """Topic summaries by level (`lib.stages.topics.level_summaries`) as plain JSON values, as
    `topics.json` and the topics stage's cache record hold them; `summary_frame` reads one back."""
    return {level: frame.to_dict("records") for level, frame in summaries.items()}


def summary_frame(records: SummaryRecords) -> pd.DataFrame:
    """One level's summaries as `lib.stages.topics.topic_summaries` gives them, from `summary_records`."""
    import pandas as pd

    frame = pd.DataFrame(records, columns=list(SUMMARY_COLUMNS))
    # JSON has no tuples: each (phrase, share of the topic, share of all papers) comes back as a list.
    frame["label_evidence"] = [[tuple(item) for item in evidence] for evidence in frame["label_evidence"]]
    return frame


def read_topic_summaries(out_dir: str | Path, level: str) -> pd.DataFrame:
    """The `level` topic summaries (`lib.stages.topics.topic_summaries`) a build wrote into `out_dir/topics.json`."""
    path = Path(out_dir) / TOPICS_FILE
    try:
        return summary_frame(json.loads(path.read_text(encoding="utf-8"))[level])
    except (OSError, ValueError, KeyError) as error:
        raise InputError(f"{path}: no {level} topic summaries ({error})") from None


def write_output(
    out_dir: Path,
    table: pd.DataFrame,
    vectors: np.ndarray,
    query_model: dict[str, np.ndarray],
    topic_summaries: Mapping[str, SummaryRecords],
    meta: dict[str, Any],
) -> Path:
    """`papers.parquet`, its rows' embeddings, the query model, the topic summaries by level
    (`summary_records`) and the `papers.json` sidecar, each written atomically, the sidecar last;
    it records each file's SHA-256."""
    model_files = write_model_files(out_dir, vectors, query_model, topic_summaries)
    return finish_output(out_dir, partial(write_frame, frame=table), len(table), vectors.shape[1], meta, model_files)


def write_model_files(
    out_dir: Path,
    vectors: np.ndarray,
    query_model: dict[str, np.ndarray],
    topic_summaries: Mapping[str, SummaryRecords],
) -> dict[str, str]:
    """The output files the papers table does not enter: its rows' embeddings, the query model and the
    topic summaries, each written atomically, the old sidecar removed first (until `finish_output` writes
    the new one, nothing may pass the folder as built). Their SHA-256 by file name.

    A build writes them while its last side stage runs: on a large list the query model is large
    (docs/performance.md)."""
    import numpy as np

    (out_dir / SIDECAR_FILE).unlink(missing_ok=True)
    # Each file made as it is written, none held beside another.
    writers: dict[str, StreamWriter] = {
        EMBEDDINGS_FILE: partial(write_array, array=np.asarray(vectors, dtype=np.float32)),
        QUERY_MODEL_FILE: partial(write_arrays, arrays=query_model),
        # Keys sorted: the records come from the cache's sidecar (sorted) or fresh, the bytes the same.
        TOPICS_FILE: lambda stream: stream.write(json.dumps(topic_summaries, sort_keys=True).encode()),
    }
    return {name: atomic_write(out_dir / name, write)[0] for name, write in writers.items()}


def finish_output(
    out_dir: Path,
    write_papers: StreamWriter,
    rows: int,
    embedding_dim: int,
    meta: dict[str, Any],
    model_files: Mapping[str, str],
) -> Path:
    """`papers.parquet` (its `rows` of OUTPUT_COLUMNS written by `write_papers`), then the `papers.json`
    sidecar, beside the files `write_model_files` wrote (`model_files`: their SHA-256, the embeddings'
    rows `embedding_dim` wide); the sidecar records every file's."""
    digests = {**model_files, PAPERS_FILE: atomic_write(out_dir / PAPERS_FILE, write_papers)[0]}
    sidecar = {
        **meta,
        "rows": rows,
        "columns": column_names(OUTPUT_COLUMNS),
        "embedding_dim": int(embedding_dim),
        "files": OUTPUT_FILES,
        "sha256": {name: digests[name] for name in OUTPUT_FILES.values()},
    }
    atomic_write_bytes(out_dir / SIDECAR_FILE, json.dumps(sidecar, indent=1, default=str).encode())
    return out_dir / PAPERS_FILE


def finished(folder: Path, output_key: str) -> dict[str, Any] | None:
    """The sidecar of `folder` when it holds the output `output_key` names, every file intact; else None."""
    try:
        sidecar = json.loads((folder / SIDECAR_FILE).read_text(encoding="utf-8"))
        if sidecar.get("keys", {}).get("output") != output_key or not is_built(folder):
            return None
        for name, digest in sidecar["sha256"].items():
            if file_digest(folder / name) != digest:
                return None
    except (OSError, ValueError, KeyError, AttributeError, TypeError):
        return None
    return sidecar


def copy_output(source: Path, target: Path) -> None:
    """Copy a finished output folder's files, each atomically, its sidecar last."""
    if source.resolve() == target.resolve():
        return
    (target / SIDECAR_FILE).unlink(missing_ok=True)  # as in write_output: never a mix of old and new
    for name in (*OUTPUT_FILES.values(), SIDECAR_FILE):
        with open(source / name, "rb") as original:
            atomic_write(target / name, partial(shutil.copyfileobj, original))  # a block at a time


def read_papers(path: str | Path) -> pd.DataFrame:
    """Read a `papers.parquet` written by `build`, with list columns as lists."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such papers table")
    import pandas as pd

    return conform(pd.read_parquet(path), OUTPUT_COLUMNS)


def is_built(out_dir: str | Path) -> bool:
    """Whether `out_dir` holds a finished build with today's columns and files: its sidecar is written
    last, so it proves the others, and it lists the table's columns and the files, so a build from
    before a column or file was added is built again (from the stage cache) rather than read and found short."""
    out_dir = Path(out_dir)
    try:
        sidecar = json.loads((out_dir / SIDECAR_FILE).read_text(encoding="utf-8"))
        columns, files = sidecar.get("columns"), sidecar.get("files")
    except (OSError, ValueError, AttributeError):
        return False
    return (
        columns == column_names(OUTPUT_COLUMNS)
        and files == OUTPUT_FILES
        and all((out_dir / name).is_file() for name in files.values())
    )


def read_sidecar(out_dir: str | Path) -> dict[str, Any]:
    """The `papers.json` sidecar of a finished build in `out_dir`."""
    return json.loads((Path(out_dir) / SIDECAR_FILE).read_text(encoding="utf-8"))


def read_load_report(out_dir: str | Path) -> dict[str, Any]:
    """The load report a build recorded in `out_dir/papers.json`."""
    return read_sidecar(out_dir)["load_report"]


@dataclass(frozen=True)
class MapEmbeddings:
    """A built map's embeddings and query model, as plain arrays.

    vectors: (n_papers, dim) float32, rows in `papers.parquet` order;
    query_model: the arrays `lib.stages.embed.fit_embed` returned, for `lib.stages.embed.query_embedder`.
    """

    vectors: np.ndarray
    query_model: dict[str, np.ndarray]


def load_map_embeddings(map_dir: str | Path) -> MapEmbeddings:
    """The embeddings and query model a build wrote into `map_dir`, read without pickle; `InputError` when missing."""
    import numpy as np

    map_dir = Path(map_dir)
    try:
        vectors = np.load(map_dir / EMBEDDINGS_FILE, allow_pickle=False)
        query_model = read_arrays(map_dir / QUERY_MODEL_FILE)
    except (OSError, ValueError) as error:
        raise InputError(f"{map_dir}: no readable embeddings ({error}); build the map again") from None
    return MapEmbeddings(vectors, query_model)
