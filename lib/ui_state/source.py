"""Where the dashboard's data comes from: the chosen data set's map, built on a first visit (with a
progress bar) and read once per build folder."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import streamlit as st

from lib.builder.pipeline import build, recorded_report
from lib.errors import PaperMapError
from lib.map_folder import PAPERS_FILE, is_built, read_load_report, read_papers
from lib.stages.load import LoadReport
from lib.store.datasets import dashboard_map_dir
from lib.views.schedule import with_schedule_columns

from .members import may_edit, refusal

# What each pipeline stage does, in a reader's words, for the first build's progress bar.
STAGE_DESCRIPTIONS = {
    "wait": "waiting for another session's build of this map",
    "load": "reading the papers",
    "keywords": "finding each paper's keyphrases",
    "subfields": "filing papers under subfields",
    "embed": "comparing the texts",
    "project": "laying out the map",
    "topics": "finding and naming topics",
    "write": "saving the map",
    "done": "drawing the map",
}


@dataclass(frozen=True)
class DataSource:
    """What the dashboard maps: the data set `chosen_source` picked, the sets mapped together with
    it as editions of one map (`also`), its taxonomy and the cache folder."""

    data: Path
    taxonomy: Path
    cache: Path
    also: tuple[Path, ...] = ()

    @property
    def files(self) -> tuple[Path, ...]:
        return (self.data, *self.also)

    @property
    def name(self) -> str:
        """The data sets' file names, as pages name the map: `a.json`, or `a.json + b.json`."""
        return " + ".join(path.name for path in self.files)


def load_map(source: DataSource, out_dir: Path) -> tuple[pd.DataFrame, LoadReport]:
    """The map of `source` built in `out_dir` (`built_map_dir`) and its load report, read through
    `st.cache_resource`: a rerun (every click) reads nothing again."""
    papers, report = read_map(str(out_dir))
    return papers, recorded_report(report, source.files)


def built_map_dir(source: DataSource) -> Path:
    """The output folder of the map of `source`, built first when it is not: a progress bar while a
    build runs, or seconds when the cache holds the map already (built by `python -m lib build`, or
    from another checkout) and only copies it.

    A build's output goes to a folder in the cache named for the files' paths, sizes and times: an
    edited file gets a new folder, and the pipeline's own content-hash cache decides what to
    recompute. Raises `PaperMapError` (one sentence) when the data or taxonomy cannot be used, or
    when the map must be built and this session may not edit (`may_edit`).
    """
    out_dir = dashboard_map_dir(source.files, source.taxonomy, source.cache)
    if not is_built(out_dir):
        if not may_edit():  # a build is minutes of this server's time: members' to spend, not any visitor's
            raise PaperMapError(
                f"The map of {source.name} is not built yet, and only members can start a build. {refusal()}"
            )
        bar = st.progress(0.0, text=f"Building the map of {source.name}…")

        def progress(stage: str, done: int, total: int) -> None:
            step = STAGE_DESCRIPTIONS.get(stage, stage)
            bar.progress(
                done / total,
                text=f"Building the map of {source.name} (step {min(done + 1, total)} of {total}): {step}",
            )

        try:
            build(
                source.files, taxonomy_path=source.taxonomy, out_dir=out_dir, cache_dir=source.cache, progress=progress
            )
        finally:
            bar.empty()  # a build that fails leaves its one-sentence error, not a bar stuck at its last step
    return out_dir


def read_map(out_dir: str) -> tuple[pd.DataFrame, dict]:
    """The papers table (with the schedule's facet columns, `lib.views.schedule.SCHEDULE_COLUMNS`)
    and load report of the build in `out_dir`, read once per folder for every session (keyed by the
    folder alone: a folder's name changes whenever its inputs do).

    Every caller gets its own shallow copy of one shared table: pandas' copy-on-write keeps a
    caller's changes to its copy. `st.cache_data` would unpickle a fresh table on every rerun,
    a noticeable part of each click."""
    papers, report = _read_map_once(out_dir)
    return papers.copy(deep=False), copy.deepcopy(report)


def is_read(out_dir: str) -> bool:
    """Whether this server has read the map in `out_dir` (`read_map`), so a page draws at once."""
    return out_dir in _READ_FOLDERS


# The folders `_read_map_once` read; one evicted from its cache is read again, without a first look.
_READ_FOLDERS: set[str] = set()


@st.cache_resource(show_spinner=False, max_entries=4)
def _read_map_once(out_dir: str) -> tuple[pd.DataFrame, dict]:
    read = with_schedule_columns(read_papers(Path(out_dir) / PAPERS_FILE)), read_load_report(Path(out_dir))
    _READ_FOLDERS.add(out_dir)
    return read
