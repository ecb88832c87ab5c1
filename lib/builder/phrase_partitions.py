"""The phrase counts the subfields and the topics' labels share, on a runner's workers (a Dask
cluster) a partition of the texts per task: the steps of `lib.stages.phrase_partitions`, the same
matrix and phrases as `lib.stages.phrases.phrase_counts` over the whole list in one process, from
the texts already on the workers (`lib.builder.text_partitions`). One task stacks them, and they
stay there: the subfields' and the topics' tasks take them whole, the build's process never.
"""

from __future__ import annotations

from collections.abc import Sequence

from lib.builder.parallel import Handle, Runner, passed
from lib.builder.text_partitions import SentTexts, bucket_count


def phrase_counts_in_partitions(runner: Runner, texts: SentTexts) -> Handle:
    """A handle on the `phrase_counts` of the `texts` on `runner`, counted a partition per task and
    kept where they were stacked (a `PartitionPhrases`: `as_phrase_counts` reads it)."""
    from lib.stages import phrase_partitions as steps

    parts = runner.map([(steps.partition_phrases, (passed(runner, part),)) for part in texts.parts])
    if len(parts) < 2:  # one partition, or none for an empty list
        return parts[0] if parts else runner.map([(steps.partition_phrases, ([],))])[0]
    phrases, n_phrases, columns = _agreed_columns(runner, parts)
    rows = runner.map(
        [
            (steps.renumbered, (passed(runner, part), passed(runner, column), n_phrases))
            for part, column in zip(parts, columns)
        ]
    )
    del parts, columns
    return runner.map([(steps.stacked, (passed(runner, phrases), *[passed(runner, block) for block in rows]))])[0]


def _agreed_columns(runner: Runner, parts: Sequence[Handle]) -> tuple[Handle, int, list[Handle]]:
    """The list's phrases (a handle), how many, and each partition's phrases' columns among them
    (handles): the partitions' phrases merged in buckets by their hash (`bucket_count`)."""
    from lib.stages import phrase_partitions as steps

    n_buckets = bucket_count(len(parts))
    buckets = runner.map([(steps.phrase_buckets, (passed(runner, part), n_buckets)) for part in parts])
    merged: list[Handle] = []
    for bucket in range(n_buckets):
        pieces = runner.map(
            [
                (steps.bucket_phrases, (passed(runner, part), passed(runner, of_part), i, bucket))
                for i, (part, of_part) in enumerate(zip(parts, buckets))
            ]
        )
        merged += runner.map([(steps.merge_bucket, tuple(passed(runner, piece) for piece in pieces))])
    (agreed,) = runner.map([(steps.agree_phrases, tuple(passed(runner, bucket) for bucket in merged))])
    (phrases,) = runner.map([(steps.agreed_phrases, (passed(runner, agreed),))])
    n_phrases = runner.map([(len, (passed(runner, phrases),))])[0].result()
    orders = runner.map([(steps.bucket_order, (passed(runner, agreed), bucket)) for bucket in range(n_buckets)])
    by_bucket = runner.map(
        [(steps.bucket_columns, (passed(runner, m), passed(runner, order))) for m, order in zip(merged, orders)]
    )
    shared = tuple(passed(runner, columns) for columns in by_bucket)
    columns = runner.map(
        [(steps.partition_columns, (passed(runner, of_part), i, *shared)) for i, of_part in enumerate(buckets)]
    )
    return phrases, n_phrases, list(columns)
