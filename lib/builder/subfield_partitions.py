"""The subfields stage on a runner's workers (a Dask cluster): each partition's own-word scores
made where its phrase counts are, against the IDF of the list's phrase users summed in a tree of
small tasks (`lib.builder.reductions`); each partition's papers' nearest among the graph's seeded
sample found a partition per task; then one task spreads the scores over the graph and files the
papers (`lib.stages.subfields.filed_by_scores`). No task holds the list's texts or phrase counts;
the table is `lib.stages.declared_areas.file_papers`' (`tests/test_subfield_partitions.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from lib.builder.parallel import Handle, Runner, passed
from lib.builder.reductions import FAN_IN, added_up, total
from lib.builder.text_partitions import SentParts, held, joined_rows

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from lib.builder.phrase_partitions import ClusterPhrases
    from lib.stages.taxonomy import Taxonomy


# `file_papers`' seed for the graph's sample (`assign_subfields`' `random_state`).
SEED = 42


class Candidates(NamedTuple):
    """The graph's sample: its papers' rows in the list (sorted) and their unit vectors."""

    rows: np.ndarray
    units: np.ndarray


def subfields_in_partitions(
    papers: pd.DataFrame,
    vectors: np.ndarray,
    sent: SentParts,
    taxonomy: Taxonomy,
    min_score: float,
    use_declared: bool,
    counted: ClusterPhrases,
    runner: Runner,
    graph_sample: int | None = None,
) -> Handle:
    """A handle on `file_papers(papers, texts, taxonomy, min_score, vectors=vectors,
    use_declared=use_declared, counts=...)`'s table, from the texts' phrase counts `counted` and
    the `vectors` (`sent`: there, partitioned as the counts) on `runner`; `graph_sample`:
    `assign_subfields`' (None: its default)."""
    from lib.stages.declared_areas import filing_taxonomy
    from lib.stages.embed import sample_rows
    from lib.stages.subfields import GRAPH_SAMPLE, MIN_PAPERS, EntryScorer, entry_counts, entry_scorer, phrase_users

    def one(function: Callable[..., Any], *arguments: Any) -> Any:
        """A task of `function`, as the later tasks' argument; as every task here, in the background
        (`start_subfields`: the build collects the subfields last)."""
        return passed(runner, runner.map([(function, arguments)], background=True)[0])

    filing, entry_of = filing_taxonomy(papers, taxonomy, use_declared=use_declared)
    entries = one(entry_counts, passed(runner, counted.phrases), filing)
    rows = [passed(runner, part) for part in counted.rows]
    calls = [(phrase_users, tuple(rows[i : i + FAN_IN])) for i in range(0, len(rows), FAN_IN)]
    groups = [passed(runner, group) for group in runner.map(calls, background=True)]
    users = added_up(runner, groups, total, background=True)
    scorer = one(entry_scorer, users, len(papers), entries, filing)
    own = runner.map([(EntryScorer.scores, (scorer, part)) for part in rows], background=True)
    sample = sample_rows(len(papers), graph_sample or GRAPH_SAMPLE, SEED)
    picks: list[Handle] = []
    if sample is not None and len(papers) >= MIN_PAPERS:
        candidates = one(held, Candidates(sample, _units(vectors[sample])))
        pick_calls = [
            (picks_of, (passed(runner, part), a, candidates)) for part, (a, _) in zip(sent.parts, sent.ranges)
        ]
        picks = list(runner.map(pick_calls, background=True))
    parts = [passed(runner, part) for part in (*own, *picks)]
    every_vector = one(joined_rows, *[passed(runner, part) for part in sent.parts])
    call = (filed_table, (papers, every_vector, filing, entry_of, min_score, len(own), *parts))
    return runner.map([call], background=True)[0]


def _units(vectors: np.ndarray) -> np.ndarray:
    from lib.neighbours import normalize_rows

    return normalize_rows(vectors)


def picks_of(vectors: np.ndarray, first_row: int, candidates: Candidates) -> tuple[np.ndarray, np.ndarray]:
    """The neighbour graph's picks of a partition's papers (`vectors`, the list's rows from `first_row`)."""
    from lib.neighbours import nearest_candidates
    from lib.stages.subfields import N_NEIGHBORS

    return nearest_candidates(_units(vectors), first_row, candidates.units, candidates.rows, N_NEIGHBORS)


def filed_table(
    papers: pd.DataFrame,
    vectors: np.ndarray,
    taxonomy: Taxonomy,
    entry_of: dict[tuple[str, str], str] | None,
    min_score: float,
    n_parts: int,
    *parts: Any,
) -> pd.DataFrame:
    """`file_papers`' table from the partitions' own-word scores and picks (`parts`: the first
    `n_parts` the scores, then the picks, if any: none when the list is its own sample)."""
    import numpy as np

    from lib.neighbours import knn_graph, picks_graph
    from lib.stages.declared_areas import with_declared
    from lib.stages.subfields import ALPHA, MIN_PAPERS, N_NEIGHBORS, filed_by_scores

    own = np.concatenate([np.zeros((0, len(taxonomy.entries))), *parts[:n_parts]])
    corpus = None
    if len(papers) >= MIN_PAPERS:
        units = _units(vectors)
        picks = parts[n_parts:]
        if picks:
            nearest, similarities = (np.concatenate(part) for part in zip(*picks))
            graph = picks_graph((nearest, similarities), len(units))
        else:
            graph = knn_graph(units, N_NEIGHBORS)
        corpus = units, graph
    return with_declared(papers, filed_by_scores(taxonomy, own, corpus, min_score, ALPHA, MIN_PAPERS), entry_of)
