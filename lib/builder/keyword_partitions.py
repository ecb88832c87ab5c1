"""The keywords stage on a runner's workers (a Dask cluster), a partition of the papers per task: the
rounds of `lib.stages.keywords.partitions`, each partition's counting where its texts went and each
round's agreement one small task, then each partition scored with the list's statistics. The same
table as `lib.stages.keywords.keywords_table` over the whole list in one process.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from lib.builder.parallel import Handle, Runner, passed

if TYPE_CHECKING:
    import pandas as pd


def keywords_in_partitions(
    papers: pd.DataFrame,
    texts: Sequence[str],
    ranges: Sequence[tuple[int, int]],
    scored: Sequence[int],
    top_n: int,
    runner: Runner,
) -> list[Handle]:
    """Handles on the keywords tables of the partitions numbered `scored` among `ranges` (slices of
    `papers` and `texts`, all of them counted for the list's statistics), a partition per task."""
    import numpy as np

    from lib.stages.keywords import partitions as steps

    def each(step: Callable[..., Any], parts: Sequence[Handle], *shared: Any) -> list[Handle]:
        return list(runner.map([(step, (passed(runner, part), *shared)) for part in parts]))

    def agreed(agree: Callable[..., Any], tallies: Sequence[Handle], *before: Any) -> Any:
        return passed(runner, runner.map([(agree, (*before, *[passed(runner, t) for t in tallies]))])[0])

    first = runner.map([(steps.first_counts, (np.array(texts[a:b], dtype=object),)) for a, b in ranges])
    lexicon = agreed(steps.agree_lexicon, each(steps.counts_of, first))
    units = each(steps.partition_units, first, lexicon)
    # Each round's handles are let go once the next round's calls hold them: a cluster then frees a
    # partition's texts once its units are read, and its units once its phrases are counted.
    del first
    roles = agreed(steps.agree_roles, each(steps.role_counts, units))
    gerunds = agreed(steps.agree_gerunds, each(steps.gerund_counts, units, roles))
    phrases = each(steps.count_phrases, units, roles, gerunds)
    del units
    statistics = agreed(steps.agree_statistics, each(steps.counts_of, phrases), len(texts), lexicon, roles, gerunds)
    paper_ids = papers["paper_id"].to_numpy()
    calls = [
        (steps.scored, (paper_ids[slice(*ranges[i])], passed(runner, phrases[i]), statistics, top_n)) for i in scored
    ]
    return list(runner.map(calls))
