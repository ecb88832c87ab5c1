"""The subfields stage on a runner's workers (a Dask cluster): each partition's own-word scores
made where its phrase counts are, against the IDF of the list's phrase users summed in a tree of
small tasks (`lib.builder.reductions`); each partition's papers' nearest among the graph's seeded
sample found a partition per task, and the graph made of them in a task; then one task spreads
the scores over the graph and files the papers (`lib.stages.subfields.filed_by_scores`). No task
holds the list's texts or phrase counts; the table is `lib.stages.declared_areas.file_papers`'
(`tests/test_subfield_partitions.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from lib.builder.parallel import Handle, Runner, passed
from lib.builder.reductions import FAN_IN, added_up, total
from lib.builder.text_partitions import SentParts, held

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    import scipy.sparse as sp

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
    from lib.neighbours import knn_graph, normalize_rows
    from lib.stages.declared_areas import filing_taxonomy
    from lib.stages.embed import sample_rows
    from lib.stages.subfields import (
        GRAPH_SAMPLE,
        MIN_PAPERS,
        N_NEIGHBORS,
        EntryScorer,
        entry_counts,
        entry_scorer,
        phrase_users,
    )

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
    # Each whole-list array the filing reads is joined in a task of its own: the filing task then
    # holds it once, not beside the partitions it came from.
    every_own = one(joined_scores, len(filing.entries), *[passed(runner, part) for part in own])
    units = graph = None
    if len(papers) >= MIN_PAPERS:
        units = one(joined_units, *[passed(runner, part) for part in sent.parts])
        sample = sample_rows(len(papers), graph_sample or GRAPH_SAMPLE, SEED)
        if sample is None:  # the list is its own sample: the exact graph
            graph = one(knn_graph, units, N_NEIGHBORS)
        else:
            candidates = one(held, Candidates(sample, normalize_rows(vectors[sample])))
            pick_calls = [
                (picks_of, (passed(runner, part), a, candidates)) for part, (a, _) in zip(sent.parts, sent.ranges)
            ]
            picks = [passed(runner, part) for part in runner.map(pick_calls, background=True)]
            graph = one(graph_of_picks, len(papers), *picks)
    call = (filed_table, (papers, filing, entry_of, min_score, every_own, units, graph))
    return runner.map([call], background=True)[0]


def joined_scores(n_entries: int, *parts: np.ndarray) -> np.ndarray:
    """A task: the partitions' own-word scores as one array (`n_entries` columns, also when none)."""
    import numpy as np

    return np.concatenate([np.zeros((0, n_entries)), *parts])


def joined_units(*parts: np.ndarray) -> np.ndarray:
    """A task: consecutive partitions' vectors as one array of unit rows, made a partition at a time
    (`lib.neighbours.normalize_rows` scales each row on its own: the same rows as all at once)."""
    import numpy as np

    from lib.neighbours import normalize_rows

    units = np.empty((sum(len(part) for part in parts), parts[0].shape[1]), dtype=np.float32)
    start = 0
    for part in parts:
        units[start : start + len(part)] = normalize_rows(part)
        start += len(part)
    return units


def graph_of_picks(n_papers: int, *picks: tuple[np.ndarray, np.ndarray]) -> sp.csr_matrix:
    """A task: the neighbour graph of the list's `n_papers` from its partitions' picks, in order."""
    import numpy as np

    from lib.neighbours import picks_graph

    nearest, similarities = (np.concatenate(part) for part in zip(*picks))
    return picks_graph((nearest, similarities), n_papers)


def picks_of(vectors: np.ndarray, first_row: int, candidates: Candidates) -> tuple[np.ndarray, np.ndarray]:
    """The neighbour graph's picks of a partition's papers (`vectors`, the list's rows from `first_row`)."""
    from lib.neighbours import nearest_candidates, normalize_rows
    from lib.stages.subfields import N_NEIGHBORS

    return nearest_candidates(normalize_rows(vectors), first_row, candidates.units, candidates.rows, N_NEIGHBORS)


def filed_table(
    papers: pd.DataFrame,
    taxonomy: Taxonomy,
    entry_of: dict[tuple[str, str], str] | None,
    min_score: float,
    own: np.ndarray,
    units: np.ndarray | None,
    graph: sp.csr_matrix | None,
) -> pd.DataFrame:
    """`file_papers`' table from the papers' own-word scores, unit vectors and neighbour graph (None
    both: too few papers for them)."""
    from lib.stages.declared_areas import with_declared
    from lib.stages.subfields import ALPHA, MIN_PAPERS, filed_by_scores

    corpus = None if units is None or graph is None else (units, graph)
    return with_declared(papers, filed_by_scores(taxonomy, own, corpus, min_score, ALPHA, MIN_PAPERS), entry_of)
