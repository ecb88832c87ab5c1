"""The keywords stage on a runner's workers (a Dask cluster), a partition of the papers per task: the
rounds of `lib.stages.keywords.partitions`, each partition's counting where its texts went and each
round's agreement one small task, then each partition scored with the list's statistics. The same
table as `lib.stages.keywords.keywords_table` over the whole list in one process.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lib.builder.parallel import Handle, Runner, passed

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

    lexicon = agreed(steps.agree_lexicon, each(steps.first_counts, texts.parts))
    units = each(Pickled(steps.partition_units, gives=True), texts.parts, lexicon)
    roles = agreed(steps.agree_roles, each(Pickled(steps.role_counts, takes=True), units))
    gerunds = agreed(steps.agree_gerunds, each(Pickled(steps.gerund_counts, takes=True), units, roles))
    phrases = each(Pickled(steps.count_phrases, takes=True, gives=True), units, roles, gerunds)
    del units  # let go once the next round's calls hold them: a cluster then frees them as phrases are counted
    totals = each(Pickled(steps.totals_of, takes=True), phrases)
    statistics = agreed(steps.agree_statistics, totals, len(texts), lexicon, roles, gerunds)
    paper_ids = papers["paper_id"].to_numpy()
    ranges = texts.ranges
    score = Pickled(steps.scored, takes=True)
    return list(
        runner.map(
            [(score, (passed(runner, phrases[i]), paper_ids[slice(*ranges[i])], statistics, top_n)) for i in scored]
        )
    )


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
