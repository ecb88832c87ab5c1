"""Run every stage through the on-disk cache: file -> papers -> keywords, subfields -> vectors -> map -> topics.

(That is the data flow; keywords need only the papers and subfields the papers and their vectors, for
the neighbours; both run beside the others, or last.)

Each stage's cache key is made of its upstream keys and its own parameters, so changing one
parameter recomputes that stage and what depends on it, nothing else.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import asdict, dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lib.build.cache import ArtifactCache, file_digest, make_key
from lib.build.lock import build_lock
from lib.build.output import (
    OUTPUT_FILES,
    PAPERS_FILE,
    copy_output,
    finish_output,
    finished,
    map_counts,
    read_papers,
    reuse_output,
    summary_records,
    write_model_files,
)
from lib.build.parallel import (
    SIDE_STAGE_NAMES,
    InProcess,
    Runner,
    WorkerProcess,
    start_keywords,
    start_subfields,
)
from lib.errors import InputError, read_error
from lib.paths import DEFAULT_CACHE_DIR, DEFAULT_OUT_ROOT, DEFAULT_TAXONOMY
from lib.schema import OUTPUT_COLUMNS
from lib.stages.report import LoadReport

logger = logging.getLogger(__name__)

# The stages' modules (pandas, scikit-learn, UMAP) are imported inside `build`, when a stage must
# run: a build that finds its output already made answers without them.
if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from lib.stages.embed import Embedder


# In run order. Keywords need only the papers and subfields the papers and their vectors, so on a
# large list they are computed in worker processes (or on a Dask cluster), keywords from the start and
# subfields once embed is done, while this one embeds, projects and finds topics; they are collected last.
STAGES = ("load", "embed", "project", "topics", "subfields", "keywords", "write")
SIDE_STAGES_FROM = 1000  # papers; below this a second process costs more than it saves
# Part of each stage's cache key: bump a stage's number when a change alters what it outputs, so
# old artifacts are never reused. Kept here, not in the stage modules, so keys need no heavy import.
# project 3: UMAP in NumPy (lib.stages.umap_np) instead of umap-learn, fitted on a sample past 20,000 papers;
# 4: exact ties among a small list's neighbours go to the lower index, as on large lists; 5: the PCA
# of lists under 10 papers is umap_np's (covariance eigenvectors) instead of scikit-learn's SVD;
# 6: min_dist 0.2 and spread 2.0 (were 0.02, 1.0), so papers can be told apart (bench/map_quality.py).
# load 4 and subfields 4: declared areas, institutions, links and sessions; subfields 5: declared
# entries take the description and terms of the taxonomy's entries of their names; subfields 6: a paper's
# neighbours tied at the k-th similarity are the lower rows (lib.neighbours.knn_graph; were arbitrary);
# subfields 7: profiles and neighbours from the embed stage's vectors (were its own TF-IDF and SVD-100).
# topics 6: its record holds both levels' topic summaries (the output's topics.json).
# topics 7: auxiliaries ("Does") name no topic. embed 3: the SVD is lib.stages.sparse_svd's, a block of terms
# at a time (was scikit-learn's TruncatedSVD). subfields 8: TF-IDF weighed by `lib.stages.subfields.tfidf_rows`
# (equal to scikit-learn's but for the last bit of a float). embed 4, project 7, topics 8, subfields 9: the
# same bits on any BLAS kernel and CPU (lib.exact): vectors snapped to a grid, exact neighbours, UMAP's
# initial layout by subspace iteration, k-means of lib.stages.kmeans.
STAGE_VERSIONS = {"load": 4, "keywords": 5, "subfields": 10, "embed": 5, "project": 7, "topics": 9}

# progress(stage, stages done, stages in all): called before each stage and once at the end.
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class BuildParams:
    """Every setting that changes the map; each stage's cache key takes the ones it uses."""

    input_format: str = "auto"
    top_keywords: int = 10
    subfield_min_score: float = 0.03
    n_neighbors: int = 12  # lib.stages.project's defaults; see bench/map_quality.py
    min_dist: float = 0.2
    spread: float = 2.0
    n_topics: int | None = None
    n_fine_topics: int | None = None
    random_state: int = 42
    declared_areas: bool = True  # file papers under the areas their list declares (lib.stages.declared_areas)


@dataclass(frozen=True)
class StageRun:
    name: str
    seconds: float
    cached: bool


@dataclass
class BuildResult:
    """What a build made: its load report, counts, per-stage times and output folder.

    `papers` (OUTPUT_COLUMNS) is the table the build computed, or, when the output was already
    made, read from `out_path` on first use.
    """

    report: LoadReport
    counts: dict[str, int]  # papers, topics, fine_topics, subfields
    stages: list[StageRun] = field(default_factory=list)
    out_path: Path | None = None
    table: pd.DataFrame | None = None

    @property
    def papers(self) -> pd.DataFrame:
        if self.table is None:
            assert self.out_path is not None  # a result without its table is one reused from its output folder
            self.table = read_papers(self.out_path)
        return self.table

    @property
    def seconds(self) -> float:
        return sum(s.seconds for s in self.stages)

    def summary(self) -> str:
        where = f" into {self.out_path}" if self.out_path else ""
        cached = sum(s.cached for s in self.stages)
        skipped = f", skipped {len(self.report.skipped)}" if self.report.skipped else ""
        # A build that reused a finished output, or grew one (lib.build.extend), has that one step.
        made = {"reuse": "Found the map", "extend": "Grew the map"}.get(
            self.stages[0].name if len(self.stages) == 1 else "", "Built a map"
        )
        return (
            f"{made} of {self.counts['papers']} papers{skipped}{where}: {self.counts['topics']} topics "
            f"({self.counts['fine_topics']} fine), {self.counts['subfields']} subfields, in {self.seconds:.1f} s "
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
    runner: Runner | None = None,
    partition_size: int | None = None,
) -> BuildResult:
    """Build the map of one paper list; when `out_dir` is given, write `papers.parquet` there with
    its rows' embeddings (`embeddings.npy`), the query model (`query_model.npz`) and `papers.json`.

    Every stage's key is known from the files' digests and the parameters before any stage runs,
    so when `out_dir`, or the cache's copy of a finished output, already holds this very build, it
    is reused (checked against its SHA-256 digests) without loading a stage or importing one.
    Raises `InputError` or `TaxonomyError` (one sentence each) when the inputs cannot be used.

    `runner` runs keywords and subfields (lib.build.parallel; default: a worker process on a large
    list, else this process), the keywords in partitions of `partition_size` papers (default: one);
    neither changes the output, so neither is in a key.
    """
    from lib.stages.embed import TfidfSvdEmbedder

    embedder = embedder or TfidfSvdEmbedder(random_state=params.random_state)
    report_progress = progress or (lambda stage, done, total: None)
    try:
        input_digest = file_digest(input_path)
    except OSError as error:
        raise InputError(read_error(input_path, error)) from None
    try:
        taxonomy_digest = file_digest(taxonomy_path)
    except OSError:
        taxonomy_digest = ""  # load_taxonomy below says what is wrong with it, in one sentence
    specs = _stage_specs(Path(input_path).name, input_digest, taxonomy_digest, embedder, params)
    keys = _stage_keys(specs)
    output_store = Path(cache_dir) / "output" / keys["output"]

    def reused(copy_from_cache: bool) -> BuildResult | None:
        if out_dir is None or not taxonomy_digest:
            return None
        start = time.perf_counter()
        if copy_from_cache:
            sidecar = reuse_output(Path(out_dir), output_store, keys["output"])
        else:
            sidecar = finished(Path(out_dir), keys["output"])
        if sidecar is None:
            return None
        report_progress("done", len(STAGES), len(STAGES))
        return BuildResult(
            recorded_report(sidecar["load_report"], input_path),
            sidecar["counts"],
            [StageRun("reuse", time.perf_counter() - start, True)],
            Path(out_dir) / PAPERS_FILE,
        )

    found = reused(copy_from_cache=False)  # reads only, so no lock: answered at once, even during another build
    if found is not None:
        return found
    waiting = partial(report_progress, "wait", 0, len(STAGES))
    with build_lock(None if out_dir is None else Path(out_dir), Path(cache_dir), waiting):
        # Writes the folder, so under the lock: the cache's copy, or what the build we waited for made.
        found = reused(copy_from_cache=True)
        if found is not None:
            return found
        result = _run_stages(
            input_path,
            taxonomy_path,
            embedder,
            params,
            specs,
            keys,
            ArtifactCache(cache_dir),
            report_progress,
            runner,
            partition_size,
            None if out_dir is None else Path(out_dir),
        )
        table, vectors, model_files, report, stages = result

        report_progress("write", len(stages.runs), len(STAGES))
        start = time.perf_counter()
        out_path = None
        counts = map_counts(table)
        if out_dir is not None:
            from lib.exact import environment

            meta = {
                "input": str(input_path),
                "input_sha256": input_digest,
                "taxonomy": str(taxonomy_path),
                "taxonomy_sha256": taxonomy_digest,
                "embedder": {"name": embedder.name, **embedder.params()},
                "params": asdict(params),
                "keys": keys,
                "counts": counts,
                "load_report": report.to_dict(),
                "environment": environment(),  # what to compare when two maps of one list differ
            }
            out_path = finish_output(Path(out_dir), table, vectors, meta, model_files.digests)
            try:
                copy_output(Path(out_dir), output_store)  # so a build into another folder reuses it too
            except OSError as error:  # only a shortcut for later builds; this one is done
                logger.warning(
                    "Could not keep a copy of the map in the cache (%s); later builds will make it again.", error
                )
        stages.runs.append(StageRun("write", model_files.seconds + time.perf_counter() - start, False))
        report_progress("done", len(stages.runs), len(STAGES))
        return BuildResult(report, counts, stages.runs, out_path, table)


def _stage_specs(
    input_name: str, input_digest: str, taxonomy_digest: str, embedder: Embedder, params: BuildParams
) -> dict[str, tuple[list[str], dict[str, Any]]]:
    """Each stage's upstream stages and the parameters that go into its key, in run order."""
    return {
        # The file name is a parameter too: venue and year may come from it.
        "load": ([], {"input_sha256": input_digest, "input_name": input_name, "input_format": params.input_format}),
        "keywords": (["load"], {"top_n": params.top_keywords}),
        "embed": (["load"], {"embedder": embedder.name, **embedder.params()}),
        "subfields": (
            ["load", "embed"],
            {
                "taxonomy_sha256": taxonomy_digest,
                "min_score": params.subfield_min_score,
                "declared_areas": params.declared_areas,
            },
        ),
        "project": (
            ["embed"],
            {
                "n_neighbors": params.n_neighbors,
                "min_dist": params.min_dist,
                "spread": params.spread,
                "random_state": params.random_state,
            },
        ),
        "topics": (
            ["project", "load"],
            {"n_topics": params.n_topics, "n_fine_topics": params.n_fine_topics, "random_state": params.random_state},
        ),
    }


def _stage_keys(specs: dict[str, tuple[list[str], dict[str, Any]]]) -> dict[str, str]:
    """Every stage's cache key, and the key of the finished output (all of them, and its format)."""
    keys: dict[str, str] = {}
    for name, (upstream, stage_params) in specs.items():
        keys[name] = make_key(name, STAGE_VERSIONS[name], [keys[u] for u in upstream], stage_params)
    keys["output"] = make_key("output", keys, OUTPUT_FILES, [c.name for c in OUTPUT_COLUMNS])
    return keys


def _run_stages(
    input_path: str | Path,
    taxonomy_path: str | Path,
    embedder: Embedder,
    params: BuildParams,
    specs: dict[str, tuple[list[str], dict[str, Any]]],
    keys: dict[str, str],
    cache: ArtifactCache,
    progress: Progress,
    runner: Runner | None,
    partition_size: int | None,
    out_dir: Path | None,
) -> tuple[pd.DataFrame, np.ndarray, _ModelFiles, LoadReport, _StageRunner]:
    """Every stage through the cache: the papers table, its vectors, the output files written into
    `out_dir` (when given) while the last side stage ran (`lib.build.output.write_model_files`), the load report."""
    import numpy as np

    from lib.schema import PAPER_COLUMNS, analysis_texts, conform
    from lib.stages.embed import fit_embed
    from lib.stages.load import load_papers
    from lib.stages.phrases import phrase_counts
    from lib.stages.project import project
    from lib.stages.taxonomy import load_taxonomy
    from lib.stages.topic_labels import PhraseUse, fewest_users, label_levels
    from lib.stages.topics import find_topics, level_summaries, topics_table

    stages = _StageRunner(cache, progress, specs, keys)
    taxonomy = load_taxonomy(taxonomy_path)  # validated up front: a bad file fails in a second, not after UMAP

    def load_stage() -> tuple[pd.DataFrame, dict[str, Any]]:
        result = load_papers(input_path, params.input_format)
        return result.papers, {"report": result.report.to_dict()}

    papers, load_meta = stages.run("load", load_stage)
    papers = conform(papers, PAPER_COLUMNS)
    report = recorded_report(load_meta["report"], input_path)
    if papers.empty:
        first = f"; the first: {report.skipped[0].record}: {report.skipped[0].problem}" if report.skipped else ""
        raise InputError(f"{input_path}: no paper could be read from its {report.records_read} records{first}")
    texts = analysis_texts(papers)

    # On a large list, on two cores or more, worker processes (or the given runner) make the side
    # stages not in the cache while this one embeds, projects and finds topics. One the cache seems to
    # hold is computed here, only if its artifact turns out damaged when read.
    missing = [name for name in SIDE_STAGE_NAMES if not cache.has(name, keys[name])]
    side_runner: AbstractContextManager[Runner]
    if runner is None:
        in_worker = missing and len(papers) >= SIDE_STAGES_FROM and (os.cpu_count() or 1) > 1
        side_runner = WorkerProcess() if in_worker else InProcess()
    else:
        side_runner = nullcontext(runner)  # the caller's: it starts and stops it

    def embed_stage() -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        vectors, query_model = fit_embed(embedder, texts)
        return {"vectors": vectors, **query_model}, {}

    def query_model() -> dict[str, np.ndarray]:
        # Read back for the output, not held: its SVD directions over every term are 0.6 GB at 87,690
        # papers, which topics, keywords and subfields would otherwise run beside.
        embedded = stages.again("embed", embed_stage)
        embedded.pop("vectors")
        return embedded

    with side_runner as running:

        def runner_of(name: str) -> Runner:
            return running if name in missing else InProcess()

        keywords_made = start_keywords(
            papers,
            texts,
            params,
            runner_of("keywords"),
            cache,
            keys["keywords"],
            partition_size if "keywords" in missing else None,  # no statistics made for nothing
        )
        vectors = stages.run("embed", embed_stage)[0].pop("vectors")
        counts = None
        if "subfields" in missing:
            # The subfields' scorer and the topics' labels count the same phrases: counted here once, for
            # both (10 s at 87,690 papers, which the subfields' worker counted again in the build's tail).
            start = time.perf_counter()
            counts = phrase_counts(texts)
            stages.charge("subfields", time.perf_counter() - start)
        subfields_made = start_subfields(papers, texts, vectors, taxonomy, params, runner_of("subfields"), counts)
        coords, _ = stages.run("project", lambda: (project(vectors, **specs["project"][1]), {}))

        def topics_stage() -> tuple[pd.DataFrame, dict[str, Any]]:
            levels = find_topics(coords, params.n_topics, params.random_state, n_fine_topics=params.n_fine_topics)
            # The labels' phrase counts serve the Topics page's summaries too: made here once, not per server.
            use = PhraseUse(texts, fewest_users(levels.coarse, levels.fine), counts)
            topics = topics_table(papers, levels, *label_levels(levels, texts, use=use))
            mapped = topics.assign(x=coords[:, 0].astype(np.float64), y=coords[:, 1].astype(np.float64))
            return topics, {"summaries": summary_records(level_summaries(mapped, use))}

        topics, topics_meta = stages.run("topics", topics_stage)
        subfields, _ = stages.run("subfields", lambda: (subfields_made.result(), {}))
        model_files = _ModelFiles({}, 0.0)
        if out_dir is not None:
            # Written before waiting for the keywords, in case they are still being made; not before the
            # subfields, whose worker would still be alive beside the query model (0.7 GB at 87,690 papers).
            start = time.perf_counter()
            digests = write_model_files(out_dir, vectors, query_model(), topics_meta["summaries"])
            model_files = _ModelFiles(digests, time.perf_counter() - start)
        keywords, _ = stages.run("keywords", lambda: (keywords_made.result(), {}))
    table = papers.assign(
        keywords=[list(k) for k in keywords["keywords"]],
        area=subfields["area"].to_numpy(),
        subfield=subfields["subfield"].to_numpy(),
        subfield_score=subfields["subfield_score"].to_numpy(),
        subfield_runner_up=subfields["subfield_runner_up"].to_numpy(),
        subfield_runner_up_score=subfields["subfield_runner_up_score"].to_numpy(),
        subfield_confident=subfields["subfield_confident"].to_numpy(),
        subfield_inferred=subfields["subfield_inferred"].to_numpy(),
        inferred_area=subfields["inferred_area"].to_numpy(),
        topic=topics["topic"].to_numpy(),
        topic_label=topics["topic_label"].to_numpy(),
        topic_fine=topics["topic_fine"].to_numpy(),
        topic_fine_label=topics["topic_fine_label"].to_numpy(),
        topic_assigned_nearest=topics["topic_assigned_nearest"].to_numpy(),
        x=coords[:, 0],
        y=coords[:, 1],
    )

    return conform(table, OUTPUT_COLUMNS), vectors, model_files, report, stages


@dataclass(frozen=True)
class _ModelFiles:
    """The output files a build wrote before its papers table was whole: their SHA-256 by name, and the seconds it took."""

    digests: dict[str, str]
    seconds: float


class _StageRunner:
    """Runs one stage at a time through the cache, timing it and reporting progress."""

    def __init__(
        self,
        cache: ArtifactCache,
        progress: Progress,
        specs: dict[str, tuple[list[str], dict[str, Any]]],
        keys: dict[str, str],
    ) -> None:
        self.cache = cache
        self.progress = progress
        self.specs = specs
        self.keys = keys
        self.runs: list[StageRun] = []
        self.charged: dict[str, float] = {}

    def run(self, name: str, compute: Callable[[], tuple[Any, dict[str, Any]]]) -> tuple[Any, dict[str, Any]]:
        """The stage's value and its sidecar; `compute` returns (value, extra sidecar fields)."""
        self.progress(name, len(self.runs), len(STAGES))
        start = time.perf_counter()
        hit = self.cache.get(name, self.keys[name])
        value, meta = (hit.value, hit.meta) if hit is not None else self._compute(name, compute)
        seconds = time.perf_counter() - start + self.charged.pop(name, 0.0)
        self.runs.append(StageRun(name, seconds, hit is not None))
        return value, meta

    def charge(self, name: str, seconds: float) -> None:
        """Count `seconds` spent ahead for stage `name` (work for it done before it runs) in its time."""
        self.charged[name] = self.charged.get(name, 0.0) + seconds

    def again(self, name: str, compute: Callable[[], tuple[Any, dict[str, Any]]]) -> Any:
        """The value of a stage that has run, from the cache; computed and stored again only when the
        cache lost it since (deleted by hand). Not a stage run: neither timed nor reported."""
        hit = self.cache.get(name, self.keys[name])
        return hit.value if hit is not None else self._compute(name, compute)[0]

    def _compute(self, name: str, compute: Callable[[], tuple[Any, dict[str, Any]]]) -> tuple[Any, dict[str, Any]]:
        upstream, params = self.specs[name]
        value, extra = compute()
        meta = {"params": params, "upstream": [self.keys[u] for u in upstream], **extra}
        self.cache.put(name, self.keys[name], value, meta)
        return value, meta


def recorded_report(recorded: dict[str, Any], input_path: str | Path) -> LoadReport:
    """A load report the cache recorded, naming `input_path`: the cache is keyed by content, so the
    same file may have been read at another path (a copy, a CLI build of a dashboard's file)."""
    return replace(LoadReport.from_dict(recorded), source=str(input_path))
