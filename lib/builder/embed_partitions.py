"""The embed stage on a runner's workers (a Dask cluster), a partition of the papers per task: the
steps of `lib.stages.tfidf_partitions`, each partition's work where its texts went, the vocabulary
counted a bucket of terms per task, the two small global fits (the kept terms, the SVD on its
sample) as single tasks. The build's process only collects the vectors and the query model, the
same bits as `TfidfSvdEmbedder.fit_embed` in one process, from the texts already on the workers
(`lib.builder.text_partitions`); the vectors stay where they were made as well, for the steps that
read them there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from lib.builder.parallel import Handle, Runner, passed
from lib.builder.text_partitions import SentParts, bucket_count

if TYPE_CHECKING:
    import numpy as np

    from lib.stages.embed import TfidfSvdEmbedder, TfidfSvdModel


def fit_embed_in_partitions(
    embedder: TfidfSvdEmbedder, texts: Sequence[str], runner: Runner, sent: SentParts
) -> tuple[np.ndarray, TfidfSvdModel, SentParts | None]:
    """`embedder.fit_embed(texts)`, its work a partition of the texts `sent` to `runner` at a time, and
    the vectors as made on the runner, a partition of `sent` each (None: made here, a tiny list's)."""
    import numpy as np

    from lib.stages import tfidf_partitions as steps

    ranges = sent.ranges
    parts = runner.map([(steps.partition_terms, (passed(runner, part), embedder.ngram_max)) for part in sent.parts])
    vocabulary = _vocabulary(runner, parts, sent)
    (n_terms,) = runner.map([(steps.vocabulary_size, (passed(runner, vocabulary),))])
    n_components, sample = steps.svd_plan(embedder, len(texts), n_terms.result())
    if n_components < 2:  # no usable word, or too few texts or terms for an SVD: a tiny list
        return (*embedder.fit_embed(texts), None)
    (lookup,) = runner.map([(steps.term_lookup, (passed(runner, vocabulary),))])
    tfidf = runner.map([(steps.partition_tfidf, (passed(runner, part), passed(runner, lookup))) for part in parts])
    # Each step's handles are let go once the next step's calls hold them: a cluster then frees the
    # partitions' counts as their TF-IDF rows are made, and those as their vectors are.
    del parts, lookup
    sampled = runner.map(
        [(steps.sampled_rows, (passed(runner, t), steps.sampled_in(sample, a, b))) for t, (a, b) in zip(tfidf, ranges)]
    )
    (fitted,) = runner.map([(steps.fit_sample, (embedder, n_components, *[passed(runner, rows) for rows in sampled]))])
    shared = passed(runner, fitted)
    vectors = runner.map([(steps.partition_vectors, (passed(runner, t), shared)) for t in tfidf])
    del tfidf, sampled
    (model,) = runner.map([(steps.model_of, (passed(runner, vocabulary), shared, embedder.ngram_max))])
    return np.concatenate([v.result() for v in vectors]), model.result(), SentParts(ranges, list(vectors))


def _vocabulary(runner: Runner, parts: Sequence[Handle], sent: SentParts) -> Handle:
    """A handle on the `Vocabulary` of the texts `sent`, from their partitions' terms `parts`,
    counted in buckets by their hash (`bucket_count`)."""
    from lib.stages import tfidf_partitions as steps

    n_texts, n_buckets = len(sent), bucket_count(sent)
    kept: list[Handle] = []
    for bucket in range(n_buckets):
        pieces = runner.map(
            [(steps.bucket_terms, (passed(runner, part), i, bucket, n_buckets)) for i, part in enumerate(parts)]
        )
        kept += runner.map([(steps.bucket_vocabulary, (n_texts, *[passed(runner, piece) for piece in pieces]))])
    return runner.map([(steps.agree_vocabulary, (n_texts, *[passed(runner, bucket) for bucket in kept]))])[0]
