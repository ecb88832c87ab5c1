"""Run every stage through the on-disk cache: file -> papers -> keywords, subfields -> vectors -> map -> topics.

Each stage's cache key is made of its upstream keys and its own parameters, so changing one
parameter recomputes that stage and what depends on it, nothing else.
"""
from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .cache import ArtifactCache, array_bytes, arrays_bytes, atomic_write_bytes, file_digest, frame_bytes, make_key
from . import embed as _embed, keywords as _keywords, load as _load, project as _project, subfields as _subfields, topics as _topics
from .embed import Embedder, TfidfSvdEmbedder, fit_embed
from .errors import InputError
from .keywords import keywords_table
from .load import LoadReport, load_papers
from .project import project
from .schema import OUTPUT_COLUMNS, PAPER_COLUMNS, analysis_texts, conform
from .subfields import assign_subfields, load_taxonomy
from .topics import find_topics, label_levels, topics_table

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = REPO_ROOT / "data" / "icml2025_seed.txt"
DEFAULT_TAXONOMY = REPO_ROOT / "data" / "taxonomy" / "icml2025.yaml"
DEFAULT_CACHE_DIR = REPO_ROOT / "data" / "cache"
DEFAULT_OUT_ROOT = REPO_ROOT / "data" / "build"
# What a build writes into its output folder; the sidecar, written last, lists the others.
PAPERS_FILE = "papers.parquet"
EMBEDDINGS_FILE = "embeddings.npy"
QUERY_MODEL_FILE = "query_model.npz"
SIDECAR_FILE = "papers.json"
OUTPUT_FILES = {"papers": PAPERS_FILE, "embeddings": EMBEDDINGS_FILE, "query_model": QUERY_MODEL_FILE}

STAGES = ("load", "keywords", "subfields", "embed", "project", "topics", "write")
# Each stage module's VERSION goes into its cache key, so a changed stage never reuses old artifacts.
STAGE_VERSIONS = {
    module.__name__.rpartition(".")[2]: module.VERSION
    for module in (_load, _keywords, _subfields, _embed, _project, _topics)
}

# progress(stage, stages done, stages in all): called before each stage and once at the end.
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class BuildParams:
    """Every setting that changes the map; each stage's cache key takes the ones it uses."""

    input_format: str = "auto"
    top_keywords: int = 10
    subfield_min_score: float = 0.03
    n_neighbors: int = 12  # lib.project's defaults; see bench/map_quality.py
    min_dist: float = 0.02
    n_topics: int | None = None
    n_fine_topics: int | None = None
    random_state: int = 42


@dataclass(frozen=True)
class StageRun:
    name: str
    seconds: float
    cached: bool


@dataclass
class BuildResult:
    papers: pd.DataFrame  # OUTPUT_COLUMNS
    report: LoadReport
    stages: list[StageRun] = field(default_factory=list)
    out_path: Path | None = None

    @property
    def seconds(self) -> float:
        return sum(s.seconds for s in self.stages)

    def summary(self) -> str:
        papers = self.papers
        where = f" into {self.out_path}" if self.out_path else ""
        cached = sum(s.cached for s in self.stages)
        skipped = f", skipped {len(self.report.skipped)}" if self.report.skipped else ""
        return (
            f"Built a map of {len(papers)} papers{skipped}{where}: {papers['topic'].nunique()} topics "
            f"({papers['topic_fine'].nunique()} fine), "
            f"{papers['subfield'].nunique()} subfields, in {self.seconds:.1f} s "
            f"({cached} of {len(self.stages)} stages from cache)"
        )


def default_out_dir(input_path: str | Path) -> Path:
    return DEFAULT_OUT_ROOT / Path(input_path).stem


def build(
    input_path: str | Path,
    *,
    taxonomy_path: str | Path = DEFAULT_TAXONOMY,
    out_dir: str | Path | None = None,
    cache_dir: str | Path = DEFAULT_CACHE_DIR,
    embedder: Embedder | None = None,
    params: BuildParams = BuildParams(),
    progress: Progress | None = None,
) -> BuildResult:
    """Build the map of one paper list; when `out_dir` is given, write `papers.parquet` there with
    its rows' embeddings (`embeddings.npy`), the query model (`query_model.npz`) and `papers.json`.

    Raises `InputError` or `TaxonomyError` (one sentence each) when the inputs cannot be used.
    """
    embedder = embedder or TfidfSvdEmbedder(random_state=params.random_state)
    report_progress = progress or (lambda stage, done, total: None)
    stages = _StageRunner(ArtifactCache(cache_dir), report_progress)
    taxonomy = load_taxonomy(taxonomy_path)  # validated up front: a bad file fails in a second, not after UMAP
    try:
        input_digest = file_digest(input_path)
    except FileNotFoundError:
        raise InputError(f"{input_path}: no such file") from None
    except OSError as error:
        raise InputError(f"{input_path}: cannot be read ({error.strerror or error})") from None

    def load_stage() -> tuple[pd.DataFrame, dict[str, Any]]:
        result = load_papers(input_path, params.input_format)
        return result.papers, {"report": result.report.to_dict()}

    # The file name is a parameter too: venue and year may come from it.
    load_params = {"input_sha256": input_digest, "input_name": Path(input_path).name, "input_format": params.input_format}
    papers, load_key, load_meta = stages.run("load", [], load_params, load_stage)
    papers = conform(papers, PAPER_COLUMNS)
    report = LoadReport.from_dict(load_meta["report"])
    if papers.empty:
        first = f"; the first: {report.skipped[0].record}: {report.skipped[0].problem}" if report.skipped else ""
        raise InputError(f"{input_path}: no paper could be read from its {report.records_read} records{first}")
    texts = analysis_texts(papers)

    keywords, keywords_key, _ = stages.run(
        "keywords", [load_key], {"top_n": params.top_keywords},
        lambda: (keywords_table(papers, texts, params.top_keywords), {}),
    )
    keyword_lists = [list(k) for k in keywords["keywords"]]
    taxonomy_digest = file_digest(taxonomy_path)
    subfields, subfields_key, _ = stages.run(
        "subfields", [load_key],
        {"taxonomy_sha256": taxonomy_digest, "min_score": params.subfield_min_score, "random_state": params.random_state},
        lambda: (assign_subfields(texts, taxonomy, params.subfield_min_score, random_state=params.random_state), {}),
    )
    def embed_stage() -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        vectors, query_model = fit_embed(embedder, texts)
        return {"vectors": vectors, **query_model}, {}

    embedded, embed_key, _ = stages.run("embed", [load_key], {"embedder": embedder.name, **embedder.params()}, embed_stage)
    vectors = embedded.pop("vectors")
    projection = {"n_neighbors": params.n_neighbors, "min_dist": params.min_dist, "random_state": params.random_state}
    coords, project_key, _ = stages.run("project", [embed_key], projection, lambda: (project(vectors, **projection), {}))

    def topics_stage() -> tuple[pd.DataFrame, dict[str, Any]]:
        levels = find_topics(coords, params.n_topics, params.random_state, n_fine_topics=params.n_fine_topics)
        return topics_table(papers, levels, *label_levels(levels, texts)), {}

    topic_params = {"n_topics": params.n_topics, "n_fine_topics": params.n_fine_topics, "random_state": params.random_state}
    topics, topics_key, _ = stages.run("topics", [project_key, load_key], topic_params, topics_stage)

    table = papers.assign(
        keywords=keyword_lists,
        area=subfields["area"].to_numpy(),
        subfield=subfields["subfield"].to_numpy(),
        subfield_score=subfields["subfield_score"].to_numpy(),
        subfield_runner_up=subfields["subfield_runner_up"].to_numpy(),
        subfield_runner_up_score=subfields["subfield_runner_up_score"].to_numpy(),
        subfield_confident=subfields["subfield_confident"].to_numpy(),
        topic=topics["topic"].to_numpy(),
        topic_label=topics["topic_label"].to_numpy(),
        topic_fine=topics["topic_fine"].to_numpy(),
        topic_fine_label=topics["topic_fine_label"].to_numpy(),
        topic_assigned_nearest=topics["topic_assigned_nearest"].to_numpy(),
        x=coords[:, 0],
        y=coords[:, 1],
    )
    table = conform(table, OUTPUT_COLUMNS)

    report_progress("write", len(stages.runs), len(STAGES))
    start = time.perf_counter()
    out_path = None
    if out_dir is not None:
        out_path = _write_output(Path(out_dir), table, vectors, embedded, {
            "input": str(input_path),
            "input_sha256": input_digest,
            "taxonomy": str(taxonomy_path),
            "taxonomy_sha256": taxonomy_digest,
            "embedder": {"name": embedder.name, **embedder.params()},
            "params": asdict(params),
            "keys": {"load": load_key, "keywords": keywords_key, "subfields": subfields_key,
                     "embed": embed_key, "project": project_key, "topics": topics_key},
            "load_report": report.to_dict(),
        })
    stages.runs.append(StageRun("write", time.perf_counter() - start, False))
    report_progress("done", len(stages.runs), len(STAGES))
    return BuildResult(table, report, stages.runs, out_path)


class _StageRunner:
    """Runs one stage at a time through the cache, timing it and reporting progress."""

    def __init__(self, cache: ArtifactCache, progress: Progress) -> None:
        self.cache = cache
        self.progress = progress
        self.runs: list[StageRun] = []

    def run(
        self, name: str, upstream: list[str], params: dict[str, Any], compute: Callable[[], tuple[Any, dict[str, Any]]]
    ) -> tuple[Any, str, dict[str, Any]]:
        """The stage's value, its cache key and its sidecar; `compute` returns (value, extra sidecar fields)."""
        self.progress(name, len(self.runs), len(STAGES))
        key = make_key(name, STAGE_VERSIONS[name], upstream, params)
        start = time.perf_counter()
        hit = self.cache.get(name, key)
        if hit is None:
            value, extra = compute()
            meta = {"params": params, "upstream": upstream, **extra}
            self.cache.put(name, key, value, meta)
        else:
            value, meta = hit.value, hit.meta
        self.runs.append(StageRun(name, time.perf_counter() - start, hit is not None))
        return value, key, meta


def _write_output(
    out_dir: Path, table: pd.DataFrame, vectors: np.ndarray, query_model: dict[str, np.ndarray], meta: dict[str, Any]
) -> Path:
    """`papers.parquet`, its rows' embeddings, the query model and the `papers.json` sidecar, each
    written atomically, the sidecar last."""
    out_path = out_dir / PAPERS_FILE
    atomic_write_bytes(out_path, frame_bytes(table))
    atomic_write_bytes(out_dir / EMBEDDINGS_FILE, array_bytes(vectors.astype(np.float32)))
    atomic_write_bytes(out_dir / QUERY_MODEL_FILE, arrays_bytes(query_model))
    sidecar = {
        **meta, "rows": len(table), "columns": list(table.columns), "embedding_dim": int(vectors.shape[1]),
        "files": OUTPUT_FILES,
    }
    atomic_write_bytes(out_dir / SIDECAR_FILE, json.dumps(sidecar, indent=1, default=str).encode())
    return out_path


def read_papers(path: str | Path) -> pd.DataFrame:
    """Read a `papers.parquet` written by `build`, with list columns as lists."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such papers table")
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
    return (columns == [c.name for c in OUTPUT_COLUMNS] and files == OUTPUT_FILES
            and all((out_dir / name).is_file() for name in files.values()))


def read_load_report(out_dir: str | Path) -> dict[str, Any]:
    """The load report a build recorded in `out_dir/papers.json`."""
    return json.loads((Path(out_dir) / SIDECAR_FILE).read_text(encoding="utf-8"))["load_report"]
