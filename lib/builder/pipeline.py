"""Build a map: the stages of `lib.builder.stages_table` (the data flow) on this module's schedule (what
runs when, and where), through the cache by `lib.builder.runner`, into the output folder.
"""

from __future__ import annotations

import logging
import os
import time
from contextlib import AbstractContextManager, nullcontext
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from lib.builder.cache import ArtifactCache, make_key
from lib.builder.heap import Trimmer
from lib.builder.lock import build_lock
from lib.builder.parallel import InProcess, Runner, WorkerProcess
from lib.builder.partition_sizes import AUTO, check_partition_size, on_cluster, resolved_partition_size
from lib.builder.runner import Progress, StageRun, StageRunner
from lib.builder.stages_table import STAGE_VERSIONS as STAGE_VERSIONS  # read here by lib.store.datasets and tests
from lib.builder.stages_table import (
    Inputs,
    Values,
    import_stage_modules,
    input_files,
    inputs_name,
    recorded_report,
    stage_keys,
    stage_table,
)
from lib.builder.text_partitions import ClusterRun
from lib.errors import InputError, read_error
from lib.files import file_digest
from lib.map_folder import (
    PAPERS_FILE,
    copy_output,
    finish_output,
    finished,
    map_columns,
    map_counts,
    read_papers,
    with_map_columns,
    write_model_files,
    write_stored_papers,
)
from lib.paths import DEFAULT_CACHE_DIR, DEFAULT_OUT_ROOT, DEFAULT_TAXONOMY
from lib.schema import PAPER_COLUMNS, column_names
from lib.stages.report import LoadReport

logger = logging.getLogger(__name__)

# The stages' modules (pandas, scikit-learn, UMAP) are imported when a stage must run: a build that
# finds its output already made answers without them.
if TYPE_CHECKING:
    import pandas as pd

    from lib.stages.embed import Embedder

# The scheduling policy, all of it: which stages run beside the build, when each runs and is collected,
# what is done ahead of a stage in its time, and when the output files are written.
# Keywords need only the papers and subfields the papers and their vectors, so on a large list they
# are computed in worker processes (or on a Dask cluster) while this one embeds, projects and finds
# topics: keywords from the start, subfields once embed is done; both are collected last.
SIDE_STAGES_FROM = 1000  # papers; below this a second process costs more than it saves
RUN, START, COUNT_PHRASES, LET_GO, MODEL_FILES = "run", "start", "count phrases", "let go", "model files"
# The steps after load, in order, each (what, for which stage). Load runs first: where the side stages
# run depends on the list's size and on what the cache holds.
SCHEDULE = (
    (START, "keywords"),
    (RUN, "embed"),
    # The subfields' scorer and the topics' labels count the same phrases: counted once, for both,
    # when the subfields are to be made, in their time.
    (COUNT_PHRASES, "subfields"),
    (START, "subfields"),
    (RUN, "project"),
    (RUN, "topics"),
    # The last stage to send tasks reading the texts, vectors and phrase counts has sent them: the
    # build lets go of its own hold on them, and the tasks' hold frees each once they are done (on a
    # cluster, before the subfields' filing and the keywords' collection).
    (LET_GO, "phrase counts"),
    (RUN, "subfields"),
    # The output files the papers table does not enter, in the write's time: before waiting for the
    # keywords, which may still be being made, and not before the subfields, whose worker would
    # still be alive beside the query model.
    (MODEL_FILES, "write"),
    (RUN, "keywords"),
)
# In run order, as progress reports them; "write" has no cache artifact: it writes the output folder.
STAGES = ("load", *(name for step, name in SCHEDULE if step == RUN), "write")


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
    # Past this many papers the map is fitted on a seeded sample of this many, the others placed on it
    # (lib.stages.project's SAMPLE_THRESHOLD).
    map_sample: int = 20_000


@dataclass
class BuildResult:
    """What a build made: its load report, counts, per-stage times and output folder.

    `papers` (OUTPUT_COLUMNS) is the table the build computed, or, when it wrote the table into a
    folder or found it there already made, read from `out_path` on first use.
    """

    report: LoadReport
    counts: dict[str, int]  # papers, topics, fine_topics, subfields
    stages: list[StageRun] = field(default_factory=list)
    out_path: Path | None = None
    table: pd.DataFrame | None = None

    @property
    def papers(self) -> pd.DataFrame:
        if self.table is None:
            assert self.out_path is not None  # without its table: written into, or reused from, a folder
            self.table = read_papers(self.out_path)
        return self.table

    @property
    def seconds(self) -> float:
        return sum(s.seconds for s in self.stages)

    def summary(self) -> str:
        where = f" into {self.out_path}" if self.out_path else ""
        cached = sum(s.cached for s in self.stages)
        skipped = f", skipped {len(self.report.skipped)}" if self.report.skipped else ""
        # A build that reused a finished output, or grew one (lib.builder.extend), has that one step.
        made = {"reuse": "Found the map", "extend": "Grew the map"}.get(
            self.stages[0].name if len(self.stages) == 1 else "", "Built a map"
        )
        return (
            f"{made} of {self.counts['papers']} papers{skipped}{where}: {self.counts['topics']} topics "
            f"({self.counts['fine_topics']} fine), {self.counts['subfields']} subfields, in {self.seconds:.1f} s "
            f"({cached} of {len(self.stages)} stages from cache)"
        )


def default_out_dir(input_path: Inputs) -> Path:
    """data/build/<the list's name>, or <each list's name joined by +> for several."""
    return DEFAULT_OUT_ROOT / "+".join(path.stem for path in input_files(input_path))


def build(
    input_path: Inputs,
    *,
    taxonomy_path: str | Path = DEFAULT_TAXONOMY,
    out_dir: str | Path | None = None,
    cache_dir: str | Path = DEFAULT_CACHE_DIR,
    embedder: Embedder | None = None,
    params: BuildParams = BuildParams(),
    progress: Progress | None = None,
    runner: Runner | None = None,
    partition_size: int | Literal["auto"] | None = AUTO,
) -> BuildResult:
    """Build the map of one paper list, or of several as one map of their editions
    (`lib.stages.editions`); when `out_dir` is given, write `papers.parquet` there with
    its rows' embeddings (`embeddings.npy`), the query model (`query_model.npz`) and `papers.json`.

    Every stage's key is known from the files' digests and the parameters before any stage runs,
    so when `out_dir`, or the cache's copy of a finished output, already holds this very build, it
    is reused (checked against its SHA-256 digests) without loading a stage or importing one.
    Raises `InputError` or `TaxonomyError` (one sentence each) when the inputs cannot be used.

    `runner` runs keywords and subfields (lib.builder.parallel; default: a worker process on a large
    list, else this process), the keywords in partitions of `partition_size` papers (None: one; "auto":
    `lib.builder.partition_sizes`); on a cluster (lib.builder.cluster) every spread stage, in
    partitions of as many papers. Neither changes the output, so neither is in a key.
    """
    from lib.stages.embed import TfidfSvdEmbedder

    check_partition_size(partition_size)
    embedder = embedder or TfidfSvdEmbedder(random_state=params.random_state)
    report_progress = progress or (lambda stage, done, total: None)
    input_digest, taxonomy_digest = _digests(input_path, taxonomy_path)
    table = stage_table(input_path, input_digest, taxonomy_digest, embedder, params)
    job = _Job(input_path, input_digest, taxonomy_path, taxonomy_digest, embedder, params, stage_keys(table))
    out = None if out_dir is None else Path(out_dir)
    store = Path(cache_dir) / "output" / job.keys["output"]

    # Reads only, so no lock: answered at once, even during another build.
    found = _reused(job, out, store, report_progress, copy_from_cache=False)
    if found is not None:
        return found
    waiting = partial(report_progress, "wait", 0, len(STAGES))
    with build_lock(out, Path(cache_dir), waiting):
        # Writes the folder, so under the lock: the cache's copy, or what the build we waited for made.
        found = _reused(job, out, store, report_progress, copy_from_cache=True)
        if found is not None:
            return found
        import_stage_modules()  # in no stage's time, as a cost of the build's start
        from lib.stages.taxonomy import load_taxonomy

        # The taxonomy is read before any stage runs: a bad one stops the build first.
        values = {"taxonomy": load_taxonomy(taxonomy_path), "counts": None}
        stages = StageRunner(table, job.keys, ArtifactCache(cache_dir), report_progress, len(STAGES), values)
        model_files = _run_schedule(stages, runner, partition_size, out)
        return _write(job, stages, model_files, out, store)


@dataclass(frozen=True)
class _Job:
    """One build's files, settings and keys."""

    input_path: Inputs
    input_digest: str
    taxonomy_path: str | Path
    taxonomy_digest: str
    embedder: Embedder
    params: BuildParams
    keys: dict[str, str]

    def sidecar(self, counts: dict[str, int], report: LoadReport) -> dict[str, Any]:
        """What the output's `papers.json` records of this build, beside its files."""
        from lib.exact import environment

        return {
            "input": inputs_name(self.input_path),
            "input_sha256": self.input_digest,
            "taxonomy": str(self.taxonomy_path),
            "taxonomy_sha256": self.taxonomy_digest,
            "embedder": {"name": self.embedder.name, **self.embedder.params()},
            "params": asdict(self.params),
            "keys": self.keys,
            "counts": counts,
            "load_report": report.to_dict(),
            "environment": environment(),  # what to compare when two maps of one list differ
        }


def _digests(input_path: Inputs, taxonomy_path: str | Path) -> tuple[str, str]:
    """The SHA-256 of the input file, or a key of several's (`InputError` when one cannot be read), and
    of the taxonomy file ("" when it cannot be read: loading it says what is wrong with it, in one sentence)."""
    digests = []
    for path in input_files(input_path):
        try:
            digests.append(file_digest(path))
        except OSError as error:
            raise InputError(read_error(path, error)) from None
    input_digest = digests[0] if len(digests) == 1 else make_key("editions", *digests)
    try:
        return input_digest, file_digest(taxonomy_path)
    except OSError:
        return input_digest, ""


def reuse_output(out_dir: Path, store: Path, output_key: str) -> dict[str, Any] | None:
    """The sidecar of this build's output, when `out_dir` holds it already or the cache's copy in
    `store` does (copied into `out_dir`, the sidecar last); None when it must be built."""
    sidecar = finished(out_dir, output_key)
    if sidecar is None and finished(store, output_key) is not None:
        copy_output(store, out_dir)
        sidecar = finished(out_dir, output_key)
    return sidecar


def _reused(job: _Job, out: Path | None, store: Path, progress: Progress, copy_from_cache: bool) -> BuildResult | None:
    """This build's output when `out` holds it already, or (`copy_from_cache`) the cache's copy in
    `store` does, copied into `out`; None when it must be built."""
    if out is None or not job.taxonomy_digest:
        return None
    start = time.perf_counter()
    output_key = job.keys["output"]
    sidecar = reuse_output(out, store, output_key) if copy_from_cache else finished(out, output_key)
    if sidecar is None:
        return None
    progress("done", len(STAGES), len(STAGES))
    return BuildResult(
        recorded_report(sidecar["load_report"], job.input_path),
        sidecar["counts"],
        [StageRun("reuse", time.perf_counter() - start, True)],
        out / PAPERS_FILE,
    )


def _run_schedule(
    stages: StageRunner, runner: Runner | None, partition_size: int | Literal["auto"] | None, out: Path | None
) -> dict[str, str]:
    """Run the stages on `SCHEDULE`; the SHA-256 of the output files it wrote into `out` (when given), by name.

    After each step the memory it freed goes back to the system (`Trimmer`): parsing a list leaves
    much of its peak free inside this process's heap, which it would otherwise keep to the end."""
    trim = Trimmer()
    stages.run("load")
    trim()
    partition_size = resolved_partition_size(partition_size, runner, len(stages.values["papers"]))
    cluster = ClusterRun(runner, partition_size) if on_cluster(runner) else None
    stages.values["cluster"] = cluster
    if cluster is None:  # read over and over here, so made once (on a cluster: a partition at a time, sent)
        stages.values["texts"] = list(stages.values["texts"])
    # Side stages the cache seems to hold are not started: one is computed here only if its artifact
    # turns out damaged when read.
    side = {name for step, name in SCHEDULE if step == START and stages.missing(name)}
    model_files: dict[str, str] = {}
    with _side_runner(runner, side, len(stages.values["papers"])) as running:
        for step, name in SCHEDULE:
            if step == RUN:
                stages.run(name)
            elif step == START and name in side:
                stages.start(name, running, partition_size)
            elif step == COUNT_PHRASES and name in side:
                stages.charge(name, partial(_count_phrases, stages.values))
            elif step == LET_GO:
                _let_go(stages)
            elif step == MODEL_FILES and out is not None:
                model_files = stages.charge(name, partial(_write_model_files, stages, out))
            trim()
    return model_files


def _side_runner(runner: Runner | None, side: set[str], n_papers: int) -> AbstractContextManager[Runner]:
    """Where the side stages to make run: on `runner` when given (the caller starts and stops it), else
    in worker processes on a large list and two cores or more, else here when their values are asked for."""
    if runner is not None:
        return nullcontext(runner)
    in_worker = bool(side) and n_papers >= SIDE_STAGES_FROM and (os.cpu_count() or 1) > 1
    return WorkerProcess() if in_worker else InProcess()


def _count_phrases(values: Values) -> None:
    cluster = values["cluster"]
    if cluster is not None:
        from lib.builder.phrase_partitions import phrase_counts_in_partitions

        values["counts"] = phrase_counts_in_partitions(cluster.runner, cluster.texts_on_workers(values["texts"]))
        return
    from lib.stages.phrases import phrase_counts

    values["counts"] = phrase_counts(values["texts"])


def _let_go(stages: StageRunner) -> None:
    values = stages.values
    values["counts"] = None  # a subfields stage computed here after all counts its own
    # The texts went where the side stages are made: one made here after all makes them again.
    stages.let_go("texts", lambda values: values["paper_texts"])
    if values["cluster"] is not None:
        values["cluster"].let_go()


def _write_model_files(stages: StageRunner, out: Path) -> dict[str, str]:
    # The query model is read back from the cache, not held since embed: topics, keywords and subfields
    # would run beside it.
    query_model = stages.again("embed")
    query_model.pop("vectors")
    written = write_model_files(out, stages.values["vectors"], query_model, stages.values["summaries"])
    # No stage after this one takes the vectors: the write needs only their width.
    stages.values["embedding_dim"] = stages.values["vectors"].shape[1]
    stages.let_go("vectors", lambda values: stages.again("embed")["vectors"])
    return written


def _write(job: _Job, stages: StageRunner, model_files: dict[str, str], out: Path | None, store: Path) -> BuildResult:
    """The "write" stage: the papers table, and when `out` is given, the table and the sidecar written
    there beside the `model_files` already written, and a copy of the folder kept in the cache at
    `store`. Written into `out`, the table is made a row group of the stored papers at a time, and
    the result reads it from there when asked; else it is made whole."""
    values = stages.values
    columns = map_columns(values["keywords"], values["subfields"], values["topics"], values["coords"])
    counts = map_counts(columns)

    def write() -> tuple[Path | None, pd.DataFrame | None]:
        stored = values["stored_papers"]
        if out is None:
            return None, with_map_columns(stored.read(column_names(PAPER_COLUMNS)), columns)
        write_papers = partial(write_stored_papers, papers=stored, columns=columns)
        meta = job.sidecar(counts, values["report"])
        out_path = finish_output(out, write_papers, len(columns), values["embedding_dim"], meta, model_files)
        try:
            copy_output(out, store)  # so a build into another folder reuses it too
        except OSError as error:  # only a shortcut for later builds; this one is done
            logger.warning(
                "Could not keep a copy of the map in the cache (%s); later builds will make it again.", error
            )
        return out_path, None

    out_path, table = stages.run_step("write", write)
    stages.progress("done", len(stages.runs), len(STAGES))
    return BuildResult(values["report"], counts, stages.runs, out_path, table)
