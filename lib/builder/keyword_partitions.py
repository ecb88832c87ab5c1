"""The keywords stage on a runner's workers (a Dask cluster), a partition of the papers per task: the
rounds of `lib.stages.keywords.partitions`, each partition's counting where its texts went, each of
the first rounds' agreements one small task, the last round's totals added up in trees of tasks (its
phrases' a bucket of phrases at a time), then each partition scored with the list's statistics and
its own phrases' totals. The same table as `lib.stages.keywords.keywords_table` over the whole list
in one process."""

from __future__ import annotations

import pickle
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lib.builder.parallel import Handle, Runner, passed
from lib.builder.reductions import added_up
from lib.builder.text_partitions import bucket_count

if TYPE_CHECKING:
    import pandas as pd

    from lib.builder.text_partitions import SentParts


def keywords_in_partitions(
    papers: pd.DataFrame, texts: SentParts, scored: Sequence[int], top_n: int, runner: Runner
) -> list[Handle]:
    """Handles on the keywords tables of the partitions numbered `scored` of the `texts` on `runner`
    (all of them counted for the list's statistics; `papers` in the same order), a partition per task."""
    from lib.stages.keywords import partitions as steps

    def each(step: Callable[..., Any], parts: Sequence[Handle], *shared: Any) -> list[Handle]:
        return list(runner.map([(step, (passed(runner, part), *shared)) for part in parts]))

    def agreed(agree: Callable[..., Any], tallies: Sequence[Handle], *before: Any) -> Any:
        return passed(runner, runner.map([(agree, (*before, *[passed(runner, t) for t in tallies]))])[0])

    read = each(steps.first_read, texts.parts)
    lexicon = agreed(steps.agree_lexicon, each(steps.counts_of, read))
    units = each(Pickled(steps.partition_units, gives=True), read, lexicon)
    del read  # let go once round 2's calls hold them: a cluster then frees each partition's tokens as it is read
    roles = agreed(steps.agree_roles, each(Pickled(steps.role_counts, takes=True), units))
    gerunds = agreed(steps.agree_gerunds, each(Pickled(steps.gerund_counts, takes=True), units, roles))
    phrases = each(Pickled(steps.count_phrases, takes=True, gives=True), units, roles, gerunds)
    del units  # let go once the next round's calls hold them: a cluster then frees them as phrases are counted
    tails = [passed(runner, tail) for tail in each(Pickled(steps.tail_of, takes=True), phrases)]
    tail = added_up(runner, tails, steps.added_tails)
    statistics = passed(runner, runner.map([(steps.agree_statistics, (len(texts), lexicon, roles, gerunds, tail))])[0])
    found = _found_totals(runner, each(Pickled(steps.totals_of, takes=True), phrases), scored, texts)
    paper_ids = papers["paper_id"].to_numpy()
    ranges = texts.ranges
    # Each table waits on its worker, until the build collects the keywords last, as one buffer.
    score = Pickled(steps.scored, takes=True, gives=True)
    tables = runner.map(
        [
            (score, (passed(runner, phrases[i]), paper_ids[slice(*ranges[i])], statistics, top_n, *found[j]))
            for j, i in enumerate(scored)
        ]
    )
    return [Unpickled(table) for table in tables]


def _found_totals(runner: Runner, totals: Sequence[Handle], scored: Sequence[int], texts: SentParts) -> list[list[Any]]:
    """Per partition numbered in `scored` of the `texts`, its phrases' totals in the list, a bucket of phrases (by
    hash, `bucket_count`) each: every partition's totals added up a bucket at a time, in a tree of
    tasks, then each partition's share of the bucket looked up in its sum."""
    from lib.stages.keywords import partitions as steps

    n_buckets = bucket_count(texts)
    found: list[list[Any]] = [[] for _ in scored]
    for bucket in range(n_buckets):
        shares = runner.map([(steps.bucket_totals, (passed(runner, t), bucket, n_buckets)) for t in totals])
        summed = added_up(runner, [passed(runner, share) for share in shares], steps.added_totals)
        looked_up = runner.map([(steps.found_totals, (passed(runner, shares[i]), summed)) for i in scored])
        for place, handle in zip(found, looked_up):
            place.append(passed(runner, handle))
    return found


@dataclass(frozen=True)
class Pickled:
    """`step` as a task on a partition's round result held pickled: its first argument when `takes`,
    its own result when `gives`. A partition's units and phrase table wait between rounds as one
    buffer each, not as their many short strings, which would pin Python's small-object arenas
    among the freed objects of the tasks that made them (docs/cluster.md)."""

    step: Callable[..., Any]
    takes: bool = False
    gives: bool = False

    @property
    def __name__(self) -> str:  # Dask names a task by its function's name
        return self.step.__name__

    def __call__(self, first: Any, *rest: Any) -> Any:
        value = self.step(pickle.loads(first) if self.takes else first, *rest)
        return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL) if self.gives else value


@dataclass(frozen=True)
class Unpickled:
    """A handle on a `Pickled` step's result, giving its value."""

    handle: Handle

    def result(self) -> Any:
        return pickle.loads(self.handle.result())
