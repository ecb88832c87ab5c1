"""The phrase counts the subfields and the topics' labels share, on a runner's workers (a Dask
cluster) a partition of the texts per task: the steps of `lib.stages.phrase_partitions`, the same
matrix and phrases as `lib.stages.phrases.phrase_counts` over the whole list in one process, from
the texts already on the workers (`lib.builder.text_partitions`). One task stacks them, and they
stay there: the subfields' and the topics' tasks take them whole, the build's process never.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lib.builder.parallel import Handle, Runner, passed

if TYPE_CHECKING:
    from lib.builder.text_partitions import SentTexts


def phrase_counts_in_partitions(runner: Runner, texts: SentTexts) -> Handle:
    """A handle on the `phrase_counts` of the `texts` on `runner`, counted a partition per task and
    kept where they were stacked (a `PartitionPhrases`: `as_phrase_counts` reads it)."""
    from lib.stages import phrase_partitions as steps

    parts = runner.map([(steps.partition_phrases, (passed(runner, part),)) for part in texts.parts])
    if len(parts) < 2:  # one partition, or none for an empty list
        return parts[0] if parts else runner.map([(steps.partition_phrases, ([],))])[0]
    lists = runner.map([(steps.phrases_of, (passed(runner, part),)) for part in parts])
    (agreed,) = runner.map([(steps.agree_phrases, tuple(passed(runner, phrases) for phrases in lists))])
    del lists
    (phrases,) = runner.map([(steps.agreed_phrases, (passed(runner, agreed),))])
    n_phrases = runner.map([(len, (passed(runner, phrases),))])[0].result()
    columns = runner.map([(steps.partition_columns, (passed(runner, agreed), i)) for i in range(len(parts))])
    rows = runner.map(
        [
            (steps.renumbered, (passed(runner, part), passed(runner, column), n_phrases))
            for part, column in zip(parts, columns)
        ]
    )
    del parts, columns, agreed
    return runner.map([(steps.stacked, (passed(runner, phrases), *[passed(runner, block) for block in rows]))])[0]
