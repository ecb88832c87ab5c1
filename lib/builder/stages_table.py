"""The build's stages as a table: each stage's cache key and how it is computed from the build's values.

This is the data flow, and only that: file -> papers -> vectors -> map -> topics, with keywords (from
the papers) and subfields (from the papers and their vectors). When and where each stage runs is the
schedule's (`lib.builder.pipeline`); `lib.builder.runner` runs one stage at a time through the cache.

Each stage's cache key is made of its upstream keys and its own parameters, so changing one
parameter recomputes that stage and what depends on it, nothing else.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from lib.builder.cache import make_key
from lib.builder.load_apart import load_inputs
from lib.builder.parallel import SIDE_COLUMNS, start_keywords, start_subfields
from lib.builder.text_partitions import ClusterRun
from lib.errors import InputError
from lib.map_folder import OUTPUT_FILES
from lib.schema import OUTPUT_COLUMNS, column_names
from lib.stages.report import LoadReport

Inputs: TypeAlias = str | Path | Sequence[str | Path]  # one paper list's path, or several's

# The stages' modules (pandas, scikit-learn, UMAP) are imported when a stage is computed: keys alone need none.
if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from lib.builder.cache import ArtifactCache
    from lib.builder.parallel import Handle, Runner
    from lib.builder.pipeline import BuildParams
    from lib.stages.embed import Embedder
    from lib.stages.topic_labels import PhraseUse
    from lib.stages.topics import TopicLevels
    from lib.stored_table import StoredTable

# Part of each stage's cache key: bump a stage's number when a change alters what it outputs, so
# old artifacts are never reused (each bump's reason is in its commit). Kept here, not in the stage
# modules, so keys need no heavy import.
STAGE_VERSIONS = {"load": 8, "keywords": 5, "subfields": 11, "embed": 6, "project": 8, "topics": 10}

# The modules the stages' compute functions import (pandas, scikit-learn, UMAP among what they import).
STAGE_MODULES = (
    "numpy",
    "lib.schema",
    "lib.stages.embed",
    "lib.stages.load",
    "lib.stages.phrases",
    "lib.stages.project",
    "lib.stages.taxonomy",
    "lib.stages.topic_labels",
    "lib.stages.topics",
)

# The build's values by name: what stages take and provide ("papers", "texts", "vectors", ...).
Values = dict[str, Any]


@dataclass(frozen=True)
class Stage:
    """One cached stage of the build.

    name, version: the first parts of its cache key (the version from `STAGE_VERSIONS`);
    upstream: the stages whose keys go into its key, in order;
    params: the parameters that go into its key, in order (its sidecar records them too);
    inputs: the build's values `compute` takes, by name, in order;
    compute: inputs -> (value, extra sidecar fields); a `side` stage's takes a `SideRun` first and
      returns a handle on its value instead (`lib.builder.parallel`), so it can run beside the build;
      a `stores` stage's takes a `StagePut` last and stores its value (a table) itself, returning nothing;
    provides: (value, sidecar) -> the values the stage adds to the build's; a `stores` stage's value
      is the stored file (`lib.stored_table.StoredTable`), read only as asked.
    """

    name: str
    version: int
    upstream: tuple[str, ...]
    params: dict[str, Any]
    inputs: tuple[str, ...]
    compute: Callable[..., Any]
    provides: Callable[[Any, dict[str, Any]], Values]
    side: bool = False
    stores: bool = False


@dataclass(frozen=True)
class SideRun:
    """Where a side stage's work goes: `runner`, its partial results kept in `cache` under its `key`
    (the keywords' partitions, of `partition_size` papers; None: one), and the build's `cluster` when
    `runner` is one."""

    runner: Runner
    cache: ArtifactCache
    key: str
    partition_size: int | None = None
    cluster: ClusterRun | None = None


def input_files(inputs: Inputs) -> tuple[Path, ...]:
    """The paper lists of a build: one path, or several built as one map of their editions."""
    return (Path(inputs),) if isinstance(inputs, (str, Path)) else tuple(Path(path) for path in inputs)


def inputs_name(inputs: Inputs) -> str:
    """The build's paper lists as messages and the sidecar name them: `a.json`, or `a.json + b.json`."""
    return " + ".join(str(path) for path in input_files(inputs))


def stage_table(
    input_path: Inputs, input_digest: str, taxonomy_digest: str, embedder: Embedder, params: BuildParams
) -> tuple[Stage, ...]:
    """The build's stages in key order (each after the stages its key takes), keyed by the files' SHA-256
    digests and the parameters each uses."""
    name = " + ".join(path.name for path in input_files(input_path))
    keyed = _key_params(name, input_digest, taxonomy_digest, embedder, params)
    return (
        Stage(
            "load",
            STAGE_VERSIONS["load"],
            upstream=(),
            params=keyed["load"],
            inputs=(),
            compute=partial(load_inputs, input_files(input_path), params.input_format),
            provides=partial(_loaded, input_path),
            stores=True,
        ),
        Stage(
            "keywords",
            STAGE_VERSIONS["keywords"],
            upstream=("load",),
            params=keyed["keywords"],
            inputs=("papers", "texts"),
            compute=partial(_start_keywords, params),
            provides=partial(_as, "keywords"),
            side=True,
        ),
        Stage(
            "embed",
            STAGE_VERSIONS["embed"],
            upstream=("load",),
            params=keyed["embed"],
            inputs=("texts", "cluster"),
            compute=partial(_embed, embedder),
            provides=_embedded,
        ),
        Stage(
            "subfields",
            STAGE_VERSIONS["subfields"],
            upstream=("load", "embed"),
            params=keyed["subfields"],
            inputs=("papers", "texts", "vectors", "taxonomy", "counts"),
            compute=partial(_start_subfields, params),
            provides=partial(_as, "subfields"),
            side=True,
        ),
        Stage(
            "project",
            STAGE_VERSIONS["project"],
            upstream=("embed",),
            params=keyed["project"],
            inputs=("vectors", "cluster"),
            compute=partial(_project, keyed["project"]),
            provides=partial(_as, "coords"),
        ),
        Stage(
            "topics",
            STAGE_VERSIONS["topics"],
            upstream=("project", "load"),
            params=keyed["topics"],
            inputs=("papers", "texts", "coords", "counts", "cluster"),
            compute=partial(_topics, params),
            provides=_topics_found,
        ),
    )


def _key_params(
    input_name: str, input_digest: str, taxonomy_digest: str, embedder: Embedder, params: BuildParams
) -> dict[str, dict[str, Any]]:
    """The parameters that go into each stage's key, in order."""
    return {
        # The file name is a parameter too: venue and year may come from it.
        "load": {"input_sha256": input_digest, "input_name": input_name, "input_format": params.input_format},
        "keywords": {"top_n": params.top_keywords},
        "embed": {"embedder": embedder.name, **embedder.params()},
        "subfields": {
            "taxonomy_sha256": taxonomy_digest,
            "min_score": params.subfield_min_score,
            "declared_areas": params.declared_areas,
        },
        # Also the projection's arguments, as they are named.
        "project": {
            "n_neighbors": params.n_neighbors,
            "min_dist": params.min_dist,
            "spread": params.spread,
            "random_state": params.random_state,
            "sample_threshold": params.map_sample,
        },
        "topics": {
            "n_topics": params.n_topics,
            "n_fine_topics": params.n_fine_topics,
            "random_state": params.random_state,
        },
    }


def stage_keys(table: tuple[Stage, ...]) -> dict[str, str]:
    """Every stage's cache key, and the key of the finished output (all of them, and its format)."""
    keys: dict[str, str] = {}
    for stage in table:
        keys[stage.name] = make_key(stage.name, stage.version, [keys[u] for u in stage.upstream], stage.params)
    keys["output"] = make_key("output", keys, OUTPUT_FILES, column_names(OUTPUT_COLUMNS))
    return keys


def import_stage_modules() -> None:
    """Import `STAGE_MODULES` now, ahead of the stages that use them."""
    for name in STAGE_MODULES:
        importlib.import_module(name)


def recorded_report(recorded: dict[str, Any], input_path: Inputs) -> LoadReport:
    """A load report the cache recorded, naming `input_path`: the cache is keyed by content, so the
    same file may have been read at another path (a copy, a CLI build of a dashboard's file)."""
    return replace(LoadReport.from_dict(recorded), source=inputs_name(input_path))


def _as(name: str, value: Any, meta: dict[str, Any]) -> Values:
    return {name: value}


def _loaded(input_path: Inputs, stored: StoredTable, meta: dict[str, Any]) -> Values:
    """The papers table as the stages take it (`SIDE_COLUMNS`; the whole table stays in the cache's file,
    `stored`, for the write), its texts to analyse (each read from the file when asked) and the load
    report; `InputError` when no paper could be read."""
    from lib.schema import PAPER_COLUMNS, PaperTexts, TextReading, conform

    report = recorded_report(meta["report"], input_path)
    if not len(stored):
        first = f"; the first: {report.skipped[0].record}: {report.skipped[0].problem}" if report.skipped else ""
        raise InputError(
            f"{inputs_name(input_path)}: no paper could be read from its {report.records_read} records{first}"
        )
    held = tuple(column for column in PAPER_COLUMNS if column.name in SIDE_COLUMNS)
    texts = PaperTexts(stored, TextReading.from_dict(meta["reading"]))
    return {
        "papers": conform(stored.read(SIDE_COLUMNS), held),
        "texts": texts,
        "paper_texts": texts,  # "texts" may be made a list, and let go (`lib.builder.pipeline`)
        "stored_papers": stored,
        "report": report,
    }


def _embed(
    embedder: Embedder, texts: Sequence[str], cluster: ClusterRun | None
) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    from lib.stages.embed import TfidfSvdEmbedder, fit_embed, query_model_of

    if cluster is not None and isinstance(embedder, TfidfSvdEmbedder):
        from lib.builder.embed_partitions import fit_embed_in_partitions

        sent = cluster.texts_on_workers(texts)
        vectors, fitted, cluster.sent_vectors = fit_embed_in_partitions(embedder, texts, cluster.runner, sent)
        return {"vectors": vectors, **query_model_of(embedder, fitted)}, {}
    vectors, query_model = fit_embed(embedder, texts)
    return {"vectors": vectors, **query_model}, {}


def _embedded(value: dict[str, np.ndarray], meta: dict[str, Any]) -> Values:
    # The vectors only: the query model is read back from the cache when the output is written.
    return {"vectors": value.pop("vectors")}


def _project(
    params: dict[str, Any], vectors: np.ndarray, cluster: ClusterRun | None
) -> tuple[np.ndarray, dict[str, Any]]:
    if cluster is not None:
        from lib.builder.project_partitions import project_in_partitions

        return project_in_partitions(vectors, cluster.vectors_on_workers(vectors), cluster.runner, **params), {}
    from lib.stages.project import project

    return project(vectors, **params), {}


def _topics(
    params: BuildParams,
    papers: pd.DataFrame,
    texts: Sequence[str],
    coords: np.ndarray,
    counts: Any,
    cluster: ClusterRun | None,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    if cluster is None:
        return topics_of(params, papers, coords, counts, texts)
    # On a cluster, partition by partition where the texts and the phrase counts already are: the
    # build's process neither holds the counts nor spends its time on the labels, and no worker
    # holds every paper's.
    from lib.builder.phrase_partitions import ClusterPhrases, phrase_counts_in_partitions
    from lib.builder.topic_partitions import topics_in_partitions

    sent = cluster.texts_on_workers(texts)
    counted = counts if isinstance(counts, ClusterPhrases) else phrase_counts_in_partitions(cluster.runner, sent)
    return topics_in_partitions(params, papers[["paper_id"]], coords, counted, sent, cluster.runner)


def topics_of(
    params: BuildParams, papers: pd.DataFrame, coords: np.ndarray, counts: Any, texts: Sequence[str]
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The topics table of `papers` (their `paper_id`s) at `coords` and the levels' summaries (`counts`:
    the texts' phrase counts, when made beforehand)."""
    from lib.stages.topic_labels import PhraseUse, fewest_users

    levels = found_topics(params, coords)
    # The labels' phrase counts serve the Topics page's summaries too: made here once, not per server.
    return labelled_topics(papers, coords, levels, PhraseUse(texts, fewest_users(levels.coarse, levels.fine), counts))


def found_topics(params: BuildParams, coords: np.ndarray) -> TopicLevels:
    """The topics of the map's points `coords` at the build's settings."""
    from lib.stages.topics import find_topics

    return find_topics(coords, params.n_topics, params.random_state, n_fine_topics=params.n_fine_topics)


def labelled_topics(
    papers: pd.DataFrame, coords: np.ndarray, levels: TopicLevels, use: PhraseUse
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The topics table of `papers` (their `paper_id`s) at `coords` in topics `levels`, and the levels'
    summaries, labelled from the papers' phrase `use`."""
    import numpy as np

    from lib.map_folder import summary_records
    from lib.stages.topic_labels import label_levels
    from lib.stages.topics import level_summaries, topics_table

    topics = topics_table(papers, levels, *label_levels(levels, [], use=use))
    mapped = topics.assign(x=coords[:, 0].astype(np.float64), y=coords[:, 1].astype(np.float64))
    return topics, {"summaries": summary_records(level_summaries(mapped, use))}


def _topics_found(topics: pd.DataFrame, meta: dict[str, Any]) -> Values:
    return {"topics": topics, "summaries": meta["summaries"]}


def _start_keywords(params: BuildParams, where: SideRun, papers: pd.DataFrame, texts: Sequence[str]) -> Handle:
    sent = where.cluster.texts_on_workers(texts) if where.cluster is not None else None
    return start_keywords(papers, texts, params, where.runner, where.cache, where.key, where.partition_size, sent)


def _start_subfields(
    params: BuildParams,
    where: SideRun,
    papers: pd.DataFrame,
    texts: Sequence[str],
    vectors: np.ndarray,
    taxonomy: Any,
    counts: Any,
) -> Handle:
    if where.cluster is None:
        return start_subfields(papers, texts, vectors, taxonomy, params, where.runner, counts)
    from lib.builder.phrase_partitions import ClusterPhrases, phrase_counts_in_partitions
    from lib.builder.subfield_partitions import subfields_in_partitions

    sent = where.cluster.texts_on_workers(texts)
    counted = counts if isinstance(counts, ClusterPhrases) else phrase_counts_in_partitions(where.runner, sent)
    min_score, declared = params.subfield_min_score, params.declared_areas
    side = papers[SIDE_COLUMNS]
    on_workers = where.cluster.vectors_on_workers(vectors)
    return subfields_in_partitions(side, vectors, on_workers, taxonomy, min_score, declared, counted, where.runner)
