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

    from lib.builder.text_partitions import SentTexts


def keywords_in_partitions(
    papers: pd.DataFrame, texts: SentTexts, scored: Sequence[int], top_n: int, runner: Runner
) -> list[Handle]:
    """Handles on the keywords tables of the partitions numbered `scored` of the `texts` on `runner`
    (all of them counted for the list's statistics; `papers` in the same order), a partition per task."""
    from lib.stages.keywords import partitions as steps

    def each(step: Callable[..., Any], parts: Sequence[Handle], *shared: Any) -> list[Handle]:
        return list(runner.map([(step, (passed(runner, part), *shared)) for part in parts]))

    def agreed(agree: Callable[..., Any], tallies: Sequence[Handle], *before: Any) -> Any:
        return passed(runner, runner.map([(agree, (*before, *[passed(runner, t) for t in tallies]))])[0])

    lexicon = agreed(steps.agree_lexicon, each(steps.first_counts, texts.parts))
    units = each(steps.partition_units, texts.parts, lexicon)
    roles = agreed(steps.agree_roles, each(steps.role_counts, units))
    gerunds = agreed(steps.agree_gerunds, each(steps.gerund_counts, units, roles))
    phrases = each(steps.count_phrases, units, roles, gerunds)
    del units  # let go once the next round's calls hold them: a cluster then frees them as phrases are counted
    statistics = agreed(steps.agree_statistics, each(steps.totals_of, phrases), len(texts), lexicon, roles, gerunds)
    paper_ids = papers["paper_id"].to_numpy()
    ranges = texts.ranges
    calls = [
        (steps.scored, (paper_ids[slice(*ranges[i])], passed(runner, phrases[i]), statistics, top_n)) for i in scored
    ]
    return list(runner.map(calls))
