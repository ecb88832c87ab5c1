"""Growing a map: place the papers of a later list (or one uploaded paper) on a finished map.

Nothing already on the map moves: the new papers are embedded with the map's own query model,
placed among their nearest papers by `lib.stages.project.place_new`, and given the topic most of those
neighbours share; keyphrases and subfields are found for them as in a build. Refitting the
projection instead would redraw the whole map the readers already know.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from lib.builder.cache import make_key
from lib.builder.pipeline import BuildParams, BuildResult, StageRun
from lib.errors import InputError
from lib.files import file_digest
from lib.map_folder import (
    PAPERS_FILE,
    is_built,
    load_map_embeddings,
    map_counts,
    output_table,
    read_papers,
    read_sidecar,
    summary_records,
    write_output,
)
from lib.neighbours import ranked_rows
from lib.paths import DEFAULT_TAXONOMY
from lib.schema import OUTPUT_COLUMNS, PAPER_COLUMNS, analysis_texts, conform
from lib.stages.declared_areas import file_papers
from lib.stages.embed import query_embedder
from lib.stages.keywords import keywords_table
from lib.stages.load import load_papers
from lib.stages.project import place_new
from lib.stages.report import LoadReport, RecordIssue
from lib.stages.taxonomy import load_taxonomy
from lib.stages.topics import level_summaries


def extend_map(
    map_dir: str | Path,
    input_path: str | Path,
    *,
    out_dir: str | Path,
    taxonomy_path: str | Path = DEFAULT_TAXONOMY,
    params: BuildParams = BuildParams(),
) -> BuildResult:
    """Write to `out_dir` the map of `map_dir` with the papers of `input_path` added, old papers unmoved.

    Papers whose id is already on the map are skipped and reported. Raises `InputError` (one
    sentence) when `map_dir` holds no finished build or no new paper can be added.
    """
    map_dir, out_dir = Path(map_dir), Path(out_dir)
    if not is_built(map_dir):
        raise InputError(f"{map_dir}: holds no finished map to add papers to (build one with `python -m lib build`)")
    started = time.perf_counter()
    base = read_papers(map_dir / PAPERS_FILE)
    embeddings = load_map_embeddings(map_dir)
    base_vectors, query_model = embeddings.vectors, embeddings.query_model
    papers, report = _new_papers(base, input_path, params.input_format)
    texts = analysis_texts(papers)
    vectors = query_embedder(query_model).embed(texts)
    coords = place_new(vectors, base_vectors, base[["x", "y"]].to_numpy(), n_neighbors=params.n_neighbors)
    # New papers are filed the way the map's were: under its declared areas when it used them.
    subfields = file_papers(
        papers,
        texts,
        load_taxonomy(taxonomy_path),
        params.subfield_min_score,
        vectors=vectors,
        declared_from=None if base["subfield_inferred"].all() else base,
        use_declared=params.declared_areas,
    )
    added = output_table(
        papers,
        keywords_table(papers, texts, params.top_keywords),
        subfields,
        _neighbour_topics(vectors, base_vectors, base, params.n_neighbors),
        coords,
    )
    table = conform(pd.concat([base, added], ignore_index=True), OUTPUT_COLUMNS)
    counts = map_counts(table)
    out_path = write_output(
        out_dir,
        table,
        np.vstack([base_vectors, vectors]),
        query_model,
        summary_records(level_summaries(table)),  # the new papers count in their topics' summaries
        {
            **_grown_sidecar(map_dir, input_path, taxonomy_path, len(papers)),
            "counts": counts,
            "load_report": report.to_dict(),
        },
    )
    return BuildResult(report, counts, [StageRun("extend", time.perf_counter() - started, False)], out_path, table)


def _new_papers(base: pd.DataFrame, input_path: str | Path, input_format: str) -> tuple[pd.DataFrame, LoadReport]:
    """The papers of `input_path` not on the map `base` (PAPER_COLUMNS), and the load report, which
    names those skipped as already there; `InputError` when none is left."""
    loaded = load_papers(input_path, input_format)
    report = loaded.report
    fresh = ~loaded.papers["paper_id"].isin(set(base["paper_id"]))
    report.skipped += [RecordIssue(f"paper {pid!r}", "already on the map") for pid in loaded.papers["paper_id"][~fresh]]
    papers = conform(loaded.papers[fresh], PAPER_COLUMNS)
    if papers.empty:
        raise InputError(f"{input_path}: no paper to add: {report.loaded} read, all already on the map")
    return papers, report


def _grown_sidecar(map_dir: Path, input_path: str | Path, taxonomy_path: str | Path, n_added: int) -> dict[str, Any]:
    """What a grown map's `papers.json` records of its making: the map's build, what was added, and its key."""
    base_sidecar = read_sidecar(map_dir)
    return {
        **{k: base_sidecar[k] for k in ("input", "input_sha256", "taxonomy", "taxonomy_sha256", "embedder", "params")},
        "added": {
            "input": str(input_path),
            "input_sha256": file_digest(input_path),
            "papers": n_added,
            "from": str(map_dir),
            "taxonomy": str(taxonomy_path),
            "taxonomy_sha256": file_digest(taxonomy_path),
        },
        "keys": {"output": make_key("extend", base_sidecar["keys"], file_digest(input_path))},
    }


def _neighbour_topics(vectors: np.ndarray, base_vectors: np.ndarray, base: pd.DataFrame, k: int) -> pd.DataFrame:
    """Each new paper's topic columns: its fine topic the one most of its `k` nearest map papers share
    (ties: the nearest's), its coarse topic that fine topic's, so the two levels still nest, each
    labelled as on the map."""
    nearest = ranked_rows(vectors, base_vectors, k)
    fine_of = base["topic_fine"].to_numpy()
    coarse_of_fine = dict(zip(base["topic_fine"], base["topic"]))
    fine = np.array([Counter(fine_of[row]).most_common(1)[0][0] for row in nearest], dtype=np.int64)
    coarse = np.array([coarse_of_fine[f] for f in fine], dtype=np.int64)
    return pd.DataFrame(
        {
            "topic": coarse,
            "topic_label": _labels(base, "topic", coarse),
            "topic_fine": fine,
            "topic_fine_label": _labels(base, "topic_fine", fine),
            "topic_assigned_nearest": False,
        }
    )


def _labels(base: pd.DataFrame, level: str, topics: np.ndarray) -> np.ndarray:
    """The map's label of each of `topics` at `level` ("topic" or "topic_fine")."""
    return base.set_index(level)[f"{level}_label"].groupby(level=0).first().reindex(topics).to_numpy()
