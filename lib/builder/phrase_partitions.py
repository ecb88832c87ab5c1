"""The phrase counts the subfields and the topics' labels share, on a runner's workers (a Dask
cluster) a partition of the texts per task: the steps of `lib.stages.phrase_partitions`, the same
matrix and phrases as `lib.stages.phrases.phrase_counts` over the whole list in one process, from
the texts already on the workers (`lib.builder.text_partitions`). They stay there: the topics sum
each partition's (`lib.builder.topic_partitions`) and the subfields score them
(`lib.builder.subfield_partitions`); neither a task nor the build's process holds them all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lib.builder.parallel import Handle, Runner, passed
from lib.builder.text_partitions import SentParts, bucket_count


@dataclass(frozen=True)
class ClusterPhrases:
    """The shared phrase counts on a runner (handles): each partition's rows in the list's columns,
    and the list's `phrases`."""

    rows: list[Handle]
    phrases: Handle


def phrase_counts_in_partitions(runner: Runner, texts: SentParts) -> ClusterPhrases:
    """The `phrase_counts` of the `texts` on `runner`, counted a partition per task and kept there,
    each partition's rows renumbered into the list's columns (its phrases' strings then let go)."""
    from lib.stages import phrase_partitions as steps

    parts = runner.map([(steps.partition_phrases, (passed(runner, part),)) for part in texts.parts])
    if len(parts) < 2:  # one partition, or none for an empty list: its phrases are the list's
        parts = parts or runner.map([(steps.partition_phrases, ([],))])
        phrases = runner.map([(steps.own_phrases, (passed(runner, parts[0]),))])[0]
        columns = list(runner.map([(steps.own_columns, (passed(runner, parts[0]),))]))
    else:
        phrases, columns = _agreed_columns(runner, parts, texts)
    n_phrases = runner.map([(len, (passed(runner, phrases),))])[0].result()
    rows = runner.map(
        [
            (steps.renumbered, (passed(runner, part), passed(runner, column), n_phrases))
            for part, column in zip(parts, columns)
        ]
    )
    return ClusterPhrases(list(rows), phrases)


def _agreed_columns(runner: Runner, parts: Sequence[Handle], texts: SentParts) -> tuple[Handle, list[Handle]]:
    """The list's phrases (a handle) and each partition's phrases' columns among them (handles):
    the partitions' phrases (of the `texts`) merged in buckets by their hash (`bucket_count`)."""
    from lib.stages import phrase_partitions as steps

    n_buckets = bucket_count(texts)
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
    orders = runner.map([(steps.bucket_order, (passed(runner, agreed), bucket)) for bucket in range(n_buckets)])
    by_bucket = runner.map(
        [(steps.bucket_columns, (passed(runner, m), passed(runner, order))) for m, order in zip(merged, orders)]
    )
    shared = tuple(passed(runner, columns) for columns in by_bucket)
    columns = runner.map(
        [(steps.partition_columns, (passed(runner, of_part), i, *shared)) for i, of_part in enumerate(buckets)]
    )
    return phrases, list(columns)
