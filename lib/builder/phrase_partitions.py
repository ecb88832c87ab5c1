"""The phrase counts the subfields and the topics' labels share, on a runner's workers (a Dask
cluster) a partition of the texts per task: the steps of `lib.stages.phrase_partitions`, the same
matrix and phrases as `lib.stages.phrases.phrase_counts` over the whole list in one process. The
build's process gathers the counts, which both stages take whole, from the texts already on the
workers (`lib.builder.text_partitions`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lib.builder.parallel import Runner, passed

if TYPE_CHECKING:
    from lib.builder.text_partitions import SentTexts
    from lib.stages.phrases import PhraseCounts


def phrase_counts_in_partitions(runner: Runner, texts: SentTexts) -> PhraseCounts:
    """`phrase_counts` of the `texts` on `runner`, counted a partition per task."""
    from scipy import sparse

    from lib.stages import phrase_partitions as steps

    parts = runner.map([(steps.partition_phrases, (passed(runner, part),)) for part in texts.parts])
    if len(parts) < 2:  # one partition, or none for an empty list
        whole = parts[0].result() if parts else steps.partition_phrases([])
        return whole.counts, whole.phrases.tolist()
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
