"""The phrase counts the subfields and the topics' labels share, on a runner's workers (a Dask
cluster) a partition of the texts per task: the steps of `lib.stages.phrase_partitions`, the same
matrix and phrases as `lib.stages.phrases.phrase_counts` over the whole list in one process. The
build's process sends the texts and gathers the counts, which both stages take whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from lib.builder.parallel import Runner, partition_ranges, passed

if TYPE_CHECKING:
    from lib.stages.phrases import PhraseCounts


def phrase_counts_in_partitions(texts: Sequence[str], runner: Runner, partition_size: int | None) -> PhraseCounts:
    """`phrase_counts(texts)`, counted in partitions of `partition_size` texts (None: one) on `runner`."""
    from scipy import sparse

    from lib.stages import phrase_partitions as steps

    ranges = partition_ranges(len(texts), partition_size)
    if len(ranges) < 2:
        whole = runner.map([(steps.partition_phrases, (list(texts),))])[0].result()
        return whole.counts, whole.phrases.tolist()
    parts = runner.map([(steps.partition_phrases, (list(texts[a:b]),)) for a, b in ranges])
    lists = runner.map([(steps.phrases_of, (passed(runner, part),)) for part in parts])
    (agreed,) = runner.map([(steps.agree_phrases, tuple(passed(runner, phrases) for phrases in lists))])
    del lists
    (phrases,) = runner.map([(steps.agreed_phrases, (passed(runner, agreed),))])
    phrase_list = phrases.result().tolist()
    columns = runner.map([(steps.partition_columns, (passed(runner, agreed), i)) for i in range(len(parts))])
    rows = runner.map(
        [
            (steps.renumbered, (passed(runner, part), passed(runner, column), len(phrase_list)))
            for part, column in zip(parts, columns)
        ]
    )
    del parts, columns, agreed
    return sparse.vstack([block.result() for block in rows], format="csr"), phrase_list
