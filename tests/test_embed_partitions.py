"""The TF-IDF + SVD embedding a partition at a time (lib.stages.tfidf_partitions, run by
lib.builder.embed_partitions): the vectors and query model of the whole list's fit, bit for bit,
whatever the partitions, through the SVD's sample too."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import planted_records

from lib.builder.embed_partitions import fit_embed_in_partitions
from lib.builder.parallel import InProcess, partition_ranges
from lib.builder.text_partitions import send_texts
from lib.schema import analysis_texts
from lib.stages.embed import TfidfSvdEmbedder
from lib.stages.load import load_papers


def planted_texts(per_topic: int = 12) -> list[str]:
    return [f"{r['title']}. {r['abstract']}" for r in planted_records(per_topic)]


def assert_same_fit(
    embedder: TfidfSvdEmbedder, texts: list[str], partition_size: int | None, tiny: bool = False
) -> None:
    vectors, model = embedder.fit_embed(texts)
    runner = InProcess()
    in_parts, parts_model, on_runner = fit_embed_in_partitions(
        embedder, texts, runner, send_texts(texts, runner, partition_size)
    )
    assert in_parts.dtype == vectors.dtype and in_parts.tobytes() == vectors.tobytes()
    for name, array in model.to_arrays().items():
        assert np.array_equal(parts_model.to_arrays()[name], array), name
        assert parts_model.to_arrays()[name].dtype == array.dtype, name
    # The vectors as the partitions made them, where they were made: the same rows, a partition each.
    # Only a tiny list's may have been fitted here, as the whole list is (too few texts for an SVD).
    assert on_runner is not None or tiny
    if on_runner is not None:
        assert on_runner.ranges == partition_ranges(len(texts), partition_size)
        assert np.concatenate([part.result() for part in on_runner.parts]).tobytes() == vectors.tobytes()


@pytest.mark.parametrize("partition_size", [1, 5, 13, None])
@pytest.mark.parametrize("svd_sample", [10, 20_000])  # 10 of 48 texts: the SVD fitted on a sample
def test_partitions_give_the_whole_lists_vectors_and_model(partition_size, svd_sample):
    embedder = TfidfSvdEmbedder(n_components=8, svd_sample=svd_sample)
    assert_same_fit(embedder, planted_texts(), partition_size)


@pytest.mark.parametrize("ngram_max", [1, 2])
def test_words_alone_and_a_real_lists_terms_and_pruning_match(shared_data, ngram_max):
    # 851 abstracts: terms pruned by how many texts use them, a term first used late in a partition.
    texts = analysis_texts(load_papers(shared_data / "ijcai2023.json").papers)
    assert_same_fit(TfidfSvdEmbedder(ngram_max=ngram_max, svd_sample=300), texts, 97)


@pytest.mark.parametrize(
    "texts",
    [["graph neural networks"], ["the of and", "a an the"], ["x", "graph models", "graph nets"], []],
)
def test_lists_too_small_for_an_svd_are_fitted_as_the_whole_list_is(texts):
    assert_same_fit(TfidfSvdEmbedder(n_components=8), texts, 1, tiny=True)


def test_a_partitions_tfidf_rows_are_the_whole_lists_to_the_order_of_their_entries(shared_data):
    # The vectors, snapped to a grid, hide a last-bit difference; the order of each row's entries sets
    # its length's rounding, so the rows themselves are compared.
    from lib.stages import tfidf_partitions as steps
    from lib.stages.embed import tfidf_weights
    from lib.stages.term_counts import count_terms

    texts = analysis_texts(load_papers(shared_data / "ijcai2023.json").papers)
    counts, terms = count_terms(texts, 2, min_df=2, max_df=0.5)
    whole = tfidf_weights(counts)[0].astype(np.float32)
    parts = [steps.partition_terms(texts[a : a + 97], 2) for a in range(0, len(texts), 97)]
    kept = [
        steps.bucket_vocabulary(len(texts), *[steps.bucket_terms(part, i, bucket, 3) for i, part in enumerate(parts)])
        for bucket in range(3)
    ]
    assert all(len(bucket.terms) > 0 for bucket in kept)  # the terms did spread over the buckets
    vocabulary = steps.agree_vocabulary(len(texts), *kept)
    assert vocabulary is not None and np.array_equal(vocabulary.terms, terms)
    rows = [steps.partition_tfidf(part, steps.term_lookup(vocabulary)) for part in parts]
    for got, expected in zip(rows, [whole[a : a + 97] for a in range(0, len(texts), 97)]):
        assert got.indptr.tolist() == expected.indptr.tolist()
        assert got.indices.tobytes() == expected.indices.astype(got.indices.dtype).tobytes()
        assert got.data.tobytes() == expected.data.tobytes()


def test_a_term_is_found_by_both_its_hashes_even_when_first_hashes_collide():
    from lib.stages import tfidf_partitions as steps
    from lib.stages.key_hashes import CHECK_KEY, term_hashes

    # Planted first hashes: "a" and "b" collide, "e" shares "c"'s first hash but is not kept.
    words = np.array(["a", "b", "c", "d", "e"], dtype=object)
    checks = term_hashes(words, CHECK_KEY)
    part = steps.PartitionTerms(
        None, words, np.arange(5), np.ones(5), np.array([5, 5, 9, 7, 9], dtype=np.uint64), checks
    )
    kept = np.array(["b", "a", "c"])
    lookup = steps.TermLookup(
        np.array([5, 5, 9], dtype=np.uint64),
        term_hashes(kept, CHECK_KEY),
        np.array([1, 0, 2]),
        np.zeros(3, dtype=np.int64),
        np.ones(3),
    )
    assert steps.term_columns(part, lookup).tolist() == [0, 1, 2, -1, -1]


def test_term_hashes_are_fixed_values_not_this_processs():
    # Python's own str hash changes with each process; the buckets and lookups must not.
    import subprocess
    import sys

    from lib.stages.key_hashes import term_hashes

    code = "from lib.stages.key_hashes import term_hashes; print(term_hashes(['graph neural', 'x']).tolist())"
    elsewhere = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert elsewhere.stdout.strip() == str(term_hashes(["graph neural", "x"]).tolist())


def test_a_partition_and_its_buckets_hold_their_terms_as_keys_or_packed_not_spelled_out():
    # A cluster holds every partition's terms until the vocabulary is agreed: in memory, a spelled
    # term costs a Python string (some 60 bytes), its key, two hashes and count of texts 32.
    import tracemalloc

    from lib.stages import tfidf_partitions as steps
    from lib.stages.term_counts import spell_terms, unpacked_terms

    chosen = np.random.default_rng(0).integers(0, 400, size=(300, 40))
    texts = [" ".join(f"word{n}" for n in row) for row in chosen]
    tracemalloc.start()
    try:
        part = steps.partition_terms(texts, 2)
        held = tracemalloc.get_traced_memory()[0]
        spelled = spell_terms(part.keys, unpacked_terms(part.words)).astype(object)
        held_spelled = tracemalloc.get_traced_memory()[0] - held
        pieces = [steps.bucket_terms(part, 0, bucket, 4) for bucket in range(4)]
        held_pieces = tracemalloc.get_traced_memory()[0] - held - held_spelled
    finally:
        tracemalloc.stop()
    assert len(spelled) > 10_000 and len(set(spelled)) == len(spelled)
    assert held < held_spelled  # the whole partition, its counts too, costs less than its terms spelled
    # The pieces, which wait for their bucket's count, hold the terms packed with their counts and
    # first uses in less than the terms spelled alone; every bucket's, together, are the partition's terms.
    assert held_pieces < held_spelled
    assert sorted(np.concatenate([unpacked_terms(piece.terms) for piece in pieces])) == sorted(spelled)
