import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from conftest import REPO, SEED_SAMPLE, HashingEmbedder, planted_records
from sklearn.metrics import adjusted_rand_score

import lib.builder.pipeline
import lib.stages.topics
from lib.builder.pipeline import STAGES, BuildParams, build
from lib.errors import InputError, TaxonomyError
from lib.files import read_arrays
from lib.map_folder import OUTPUT_FILES, is_built, read_papers, read_topic_summaries
from lib.schema import OUTPUT_COLUMNS, analysis_texts


def run(path, tmp_path, cache="cache", **kwargs):
    kwargs.setdefault("embedder", HashingEmbedder())
    return build(path, cache_dir=tmp_path / cache, **kwargs)


def test_build_writes_the_documented_table_and_its_parameters(planted_file, tmp_path):
    result = run(planted_file, tmp_path, out_dir=tmp_path / "out")
    table = read_papers(tmp_path / "out" / "papers.parquet")
    assert list(table.columns) == [c.name for c in OUTPUT_COLUMNS]
    raw = pd.read_parquet(tmp_path / "out" / "papers.parquet")
    for column in OUTPUT_COLUMNS:
        if column.dtype not in ("list", "sessions"):
            assert str(raw[column.name].dtype) == column.dtype, column.name
    assert len(table) == 36 and table["paper_id"].is_unique
    assert np.isfinite(table[["x", "y", "subfield_score"]].to_numpy()).all()
    assert all(1 <= len(k) <= 10 for k in table["keywords"])
    # Parquet gives the list columns back as NumPy arrays: read as lists of Python strings again.
    lists = [table[c.name] for c in OUTPUT_COLUMNS if c.dtype == "list"]
    assert all(type(v) is list and all(type(s) is str for s in v) for column in lists for v in column)
    assert (table["topic_label"] != "").all() and table["topic"].min() == 0
    meta = json.loads((tmp_path / "out" / "papers.json").read_text())
    assert meta["rows"] == 36 and set(meta["keys"]) == set(STAGES) - {"write"} | {"output"}
    assert meta["params"]["random_state"] == 42 and meta["embedder"]["name"] == "test-hashing"
    assert result.summary().startswith("Built a map of 36 papers")


def test_planted_topics_come_out_as_topics(planted_file, tmp_path):
    table = run(planted_file, tmp_path, params=BuildParams(n_topics=3)).papers
    assert adjusted_rand_score(table["primary_area"], table["topic"]) > 0.8
    assert table["topic_label"].nunique() == 3


def test_second_build_is_a_cache_hit_with_the_same_result(planted_file, tmp_path):
    first = run(planted_file, tmp_path)
    second = run(planted_file, tmp_path)
    assert not any(s.cached for s in first.stages)
    assert [s.name for s in second.stages if s.cached] == list(STAGES[:-1])
    pd.testing.assert_frame_equal(first.papers, second.papers)


def test_changing_one_parameter_recomputes_only_what_depends_on_it(planted_file, tmp_path):
    run(planted_file, tmp_path)
    result = run(planted_file, tmp_path, params=BuildParams(n_topics=2))
    recomputed = {s.name for s in result.stages if not s.cached}
    assert recomputed == {"topics", "write"}
    assert result.papers["topic"].nunique() == 2


def test_subfields_follow_the_embedding_and_keywords_do_not(planted_file, tmp_path):
    # The subfields compare papers by their vectors; the keyphrases read the texts alone.
    run(planted_file, tmp_path)
    result = build(planted_file, cache_dir=tmp_path / "cache", embedder=HashingEmbedder(n_features=128))
    recomputed = {s.name for s in result.stages if not s.cached}
    assert recomputed == {"embed", "project", "topics", "subfields", "write"}


def test_edited_input_is_rebuilt(planted_file, tmp_path):
    run(planted_file, tmp_path)
    planted_file.write_text(json.dumps(planted_records()[:20]))
    result = run(planted_file, tmp_path)
    assert len(result.papers) == 20 and not result.stages[0].cached


def test_interrupted_build_then_rerun_equals_a_clean_build(planted_file, tmp_path, monkeypatch):
    def killed(*args, **kwargs):
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(lib.stages.topics, "find_topics", killed)
        with pytest.raises(KeyboardInterrupt):
            run(planted_file, tmp_path, cache="interrupted")
    resumed = run(planted_file, tmp_path, cache="interrupted", out_dir=tmp_path / "a")
    assert [s.name for s in resumed.stages if not s.cached] == ["topics", "subfields", "keywords", "write"]
    clean = run(planted_file, tmp_path, cache="clean", out_dir=tmp_path / "b")
    pd.testing.assert_frame_equal(resumed.papers, clean.papers)
    assert (tmp_path / "a" / "papers.parquet").read_bytes() == (tmp_path / "b" / "papers.parquet").read_bytes()


@pytest.mark.parametrize("n", [1, 2, 3])
def test_tiny_lists_build(tmp_path, n):
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(planted_records()[:n]))
    table = run(path, tmp_path).papers
    assert len(table) == n and np.isfinite(table[["x", "y"]].to_numpy()).all()


def test_seed_sample_builds_with_the_default_embedder(tmp_path):
    first = build(SEED_SAMPLE, cache_dir=tmp_path / "one")
    second = build(SEED_SAMPLE, cache_dir=tmp_path / "two")
    table = first.papers
    assert len(table) == 19 and table["title_is_derived"].all()
    assert (table["venue"] == "ICML").all() and (table["year"] == 2025).all()
    assert 2 <= table["topic"].nunique() <= 5 and table["area"].nunique() >= 4
    pd.testing.assert_frame_equal(table, second.papers)  # same input, same map


def test_bad_inputs_raise_named_errors_before_any_work(tmp_path):
    empty = tmp_path / "empty.json"
    empty.write_text("")
    with pytest.raises(InputError, match="empty.json"):
        run(empty, tmp_path)
    with pytest.raises(InputError, match="nowhere.json"):
        run(tmp_path / "nowhere.json", tmp_path)
    with pytest.raises(TaxonomyError, match="nope.yaml"):
        run(SEED_SAMPLE, tmp_path, taxonomy_path=tmp_path / "nope.yaml")
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").rglob("*.json"))


def test_a_list_with_no_usable_paper_is_an_error_not_an_empty_map(tmp_path):
    unusable = tmp_path / "titleless.json"
    unusable.write_text(json.dumps([{"id": "a", "title": ""}, {"id": "b"}]))
    with pytest.raises(
        InputError, match="titleless.json: no paper could be read from its 2 records; the first: record 1"
    ):
        run(unusable, tmp_path)


def test_progress_is_reported_for_every_stage_in_order(planted_file, tmp_path):
    calls = []
    run(planted_file, tmp_path, progress=lambda stage, done, total: calls.append((stage, done, total)))
    assert [c[0] for c in calls] == [*STAGES, "done"]
    assert [c[1] for c in calls] == list(range(len(STAGES) + 1)) and {c[2] for c in calls} == {len(STAGES)}


def test_build_writes_the_papers_embeddings_in_table_order_and_the_query_model(planted_file, tmp_path):
    run(planted_file, tmp_path, out_dir=tmp_path / "out")
    table = read_papers(tmp_path / "out" / "papers.parquet")
    vectors = np.load(tmp_path / "out" / "embeddings.npy", allow_pickle=False)
    assert vectors.dtype == np.float32
    assert np.array_equal(vectors, HashingEmbedder().embed(analysis_texts(table)))  # row i is paper i
    assert str(read_arrays(tmp_path / "out" / "query_model.npz")["embedder"]) == "test-hashing"
    meta = json.loads((tmp_path / "out" / "papers.json").read_text())
    assert meta["files"] == OUTPUT_FILES and meta["embedding_dim"] == vectors.shape[1]
    assert is_built(tmp_path / "out")


def test_the_build_lets_go_of_the_vectors_once_their_file_is_written(planted_file, tmp_path, monkeypatch):
    # A million papers' are half a gigabyte, which the build's process held through the map's write.
    import gc
    import weakref

    seen = {}
    write_model_files = lib.builder.pipeline.write_model_files

    def noting_the_vectors(out, vectors, *others):
        seen["vectors"] = weakref.ref(vectors)
        return write_model_files(out, vectors, *others)

    def at(stage, done, total):
        if stage == "write":
            gc.collect()
            seen["held at the write"] = seen["vectors"]() is not None

    monkeypatch.setattr(lib.builder.pipeline, "write_model_files", noting_the_vectors)
    run(planted_file, tmp_path, out_dir=tmp_path / "out", progress=at)
    assert seen["held at the write"] is False
    assert json.loads((tmp_path / "out" / "papers.json").read_text())["embedding_dim"] == HashingEmbedder().n_features


def test_the_map_table_is_made_from_the_stage_tables_without_copying_their_values(planted_file, tmp_path):
    # At a million papers the copies took 0.4 GB more in the build's process while it wrote the map.
    from lib.map_folder import output_table
    from lib.schema import PAPER_COLUMNS
    from lib.stages.declared_areas import FILED_COLUMNS

    table = run(planted_file, tmp_path).papers
    topics = [c.name for c in OUTPUT_COLUMNS if c.name.startswith("topic")]
    parts = [c.name for c in PAPER_COLUMNS], ["keywords"], list(FILED_COLUMNS), ["paper_id", *topics]
    again = output_table(*(table[names] for names in parts), table[["x", "y"]].to_numpy())
    pd.testing.assert_frame_equal(again, table)
    for name in ("authors", "keywords"):
        assert all(made is given for made, given in zip(again[name], table[name]))
    for name in ("abstract", "subfield", "topic_label"):
        made, given = (column[name].array.__arrow_array__().chunk(0).buffers()[2] for column in (again, table))
        assert made.address == given.address


def test_the_map_file_written_a_row_group_at_a_time_holds_the_whole_tables_bytes(planted_file, tmp_path, monkeypatch):
    # The build writes papers.parquet from the stored papers a row group at a time, never holding
    # them whole: the same bytes as the whole table written at once, even when a column's first
    # groups hold only empty lists (alone, Arrow would type them otherwise).
    import lib.files
    from lib.map_folder import write_stored_papers
    from lib.schema import MAP_COLUMNS, PAPER_COLUMNS, column_names, conform
    from lib.stored_table import StoredTable

    monkeypatch.setattr(lib.files, "ROW_GROUP_ROWS", 7)
    table = run(planted_file, tmp_path).papers
    late = table.index >= 16
    table["author_keywords"] = [["graphs", f"k{i}"] if later else [] for i, later in enumerate(late)]
    start = pd.Timestamp("2025-07-15 11:00", tz="America/Vancouver")
    poster = {
        "kind": "poster",
        "name": "Poster 1",
        "room": "Hall",
        "start": start,
        "end": start,
        "poster_position": "E-1",
    }
    table["sessions"] = [[dict(poster, poster_position=f"E-{i}")] if later else [] for i, later in enumerate(late)]
    table = conform(table, OUTPUT_COLUMNS)
    with open(tmp_path / "stored.parquet", "wb") as stream:
        lib.files.write_frame(stream, table[column_names(PAPER_COLUMNS)])
    with open(tmp_path / "whole.parquet", "wb") as stream:
        lib.files.write_frame(stream, table)
    with open(tmp_path / "sliced.parquet", "wb") as stream:
        stored = StoredTable(tmp_path / "stored.parquet")
        write_stored_papers(stream, stored, table[column_names(MAP_COLUMNS)])
    assert len(stored.starts) > 3  # written in several row groups
    assert (tmp_path / "sliced.parquet").read_bytes() == (tmp_path / "whole.parquet").read_bytes()
    pd.testing.assert_frame_equal(read_papers(tmp_path / "sliced.parquet"), table)


def test_a_build_into_a_folder_holds_only_the_papers_columns_its_stages_take(planted_file, tmp_path, monkeypatch):
    # The papers table stays in the cache's file: the build's process reads whole only the columns
    # its stages take, and the texts and the write a few row groups at a time (at a million papers
    # the table's abstracts alone were 1 GB of its peak).
    from lib.stored_table import StoredTable

    read_whole = []
    read = StoredTable.read
    monkeypatch.setattr(
        StoredTable, "read", lambda self, columns: read_whole.append(list(columns)) or read(self, columns)
    )
    result = run(planted_file, tmp_path, out_dir=tmp_path / "out")
    assert read_whole == [["paper_id", "declared_area", "declared_subarea"]]
    assert result.papers.equals(run(planted_file, tmp_path, cache="again").papers)  # written, and made whole


def test_build_writes_each_levels_topic_summaries_as_the_table_gives_them(planted_file, tmp_path):
    # The Topics page reads these instead of counting every paper's phrases per server.
    run(planted_file, tmp_path, out_dir=tmp_path / "out", params=BuildParams(n_topics=3))
    table = read_papers(tmp_path / "out" / "papers.parquet")
    for level in lib.stages.topics.LEVELS:
        written = read_topic_summaries(tmp_path / "out", level)
        pd.testing.assert_frame_equal(written, lib.stages.topics.topic_summaries(table, level))
    assert len(read_topic_summaries(tmp_path / "out", "coarse")) == 3
    (tmp_path / "out" / "topics.json").write_text("{")
    with pytest.raises(InputError, match=r"topics.json: no fine topic summaries"):
        read_topic_summaries(tmp_path / "out", "fine")


def test_default_build_writes_a_query_model_without_pickle(planted_file, tmp_path):
    build(planted_file, cache_dir=tmp_path / "cache", out_dir=tmp_path / "out")
    query_model = read_arrays(tmp_path / "out" / "query_model.npz")  # allow_pickle=False inside
    assert str(query_model["embedder"]) == "tfidf-svd"
    dim = np.load(tmp_path / "out" / "embeddings.npy").shape[1]
    assert query_model["components"].shape == (dim, len(query_model["terms"])) == (dim, len(query_model["idf"]))


def test_a_rebuild_from_cache_writes_identical_files(planted_file, tmp_path):
    run(planted_file, tmp_path, out_dir=tmp_path / "a")
    again = run(planted_file, tmp_path, out_dir=tmp_path / "b")
    assert all(s.cached for s in again.stages if s.name != "write")
    for name in [*OUTPUT_FILES.values()]:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name


def test_the_query_model_is_written_even_when_the_cache_lost_it_during_the_build(planted_file, tmp_path):
    # The build reads the query model back from the cache at write time instead of holding it.
    run(planted_file, tmp_path, cache="clean", out_dir=tmp_path / "clean")

    def lose_embeddings(stage, done, total):
        if stage == "topics":
            for path in (tmp_path / "cache" / "embed").iterdir():
                path.unlink()

    run(planted_file, tmp_path, out_dir=tmp_path / "out", progress=lose_embeddings)
    for name in OUTPUT_FILES.values():
        assert (tmp_path / "out" / name).read_bytes() == (tmp_path / "clean" / name).read_bytes(), name
    assert any((tmp_path / "cache" / "embed").iterdir())  # stored again, for the next build


def test_a_build_from_before_the_embeddings_were_written_is_built_again(planted_file, tmp_path):
    out = tmp_path / "out"
    run(planted_file, tmp_path, out_dir=out)
    sidecar = json.loads((out / "papers.json").read_text())
    del sidecar["files"]  # as an earlier version wrote it
    (out / "papers.json").write_text(json.dumps(sidecar))
    assert not is_built(out)
    run(planted_file, tmp_path, out_dir=out)
    assert is_built(out)
    (out / "embeddings.npy").unlink()
    assert not is_built(out)


def test_a_finished_build_is_found_not_rebuilt_and_copied_to_a_new_folder(planted_file, tmp_path):
    first = run(planted_file, tmp_path, out_dir=tmp_path / "a")
    again = run(planted_file, tmp_path, out_dir=tmp_path / "a")
    assert [s.name for s in again.stages] == ["reuse"] and again.summary().startswith("Found the map of 36 papers")
    pd.testing.assert_frame_equal(again.papers, first.papers)
    elsewhere = run(planted_file, tmp_path, out_dir=tmp_path / "b")  # the cache keeps a copy of the output
    assert [s.name for s in elsewhere.stages] == ["reuse"]
    for name in [*OUTPUT_FILES.values(), "papers.json"]:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    assert elsewhere.report.records_read == 36 and elsewhere.counts == first.counts


def test_a_report_from_the_cache_names_the_file_read_this_time(planted_file, tmp_path):
    # The cache is keyed by content: a copy elsewhere reused the first path's report, naming it.
    copy = tmp_path / "elsewhere" / planted_file.name
    copy.parent.mkdir()
    copy.write_bytes(planted_file.read_bytes())
    run(planted_file, tmp_path, out_dir=tmp_path / "a")
    for out_dir in (None, tmp_path / "b"):  # from the stage cache, then from the cache's copy of the output
        assert run(copy, tmp_path, out_dir=out_dir).report.source == str(copy)


def test_a_damaged_output_is_never_reused(planted_file, tmp_path):
    first = run(planted_file, tmp_path, out_dir=tmp_path / "a")
    clean = (tmp_path / "a" / "papers.parquet").read_bytes()
    (tmp_path / "a" / "papers.parquet").write_bytes(clean[:-100])  # a truncated file, its sidecar intact
    for store in (tmp_path / "cache" / "output").iterdir():
        (store / "embeddings.npy").write_bytes(b"junk")  # and the cache's copy damaged too
    rebuilt = run(planted_file, tmp_path, out_dir=tmp_path / "a")
    assert "reuse" not in [s.name for s in rebuilt.stages] and all(
        s.cached for s in rebuilt.stages if s.name != "write"
    )
    assert (tmp_path / "a" / "papers.parquet").read_bytes() == clean
    pd.testing.assert_frame_equal(rebuilt.papers, first.papers)


def test_the_cli_answers_a_finished_build_without_importing_the_stages(tmp_path):
    # Nor the fetch command's network modules, nor the progress bar of a quiet build: each import is
    # a share of a cache hit's time (docs/performance.md).
    args = ["build", str(SEED_SAMPLE), "--cache", str(tmp_path / "cache"), "--out", str(tmp_path / "out"), "--quiet"]
    unneeded = ("pandas", "sklearn", "umap", "numba", "http.client", "urllib.request", "tqdm")
    script = (
        "import sys; from lib.cli import main; code = main(sys.argv[1:]); "
        f"print(sorted(m for m in {unneeded!r} if m in sys.modules))"
    )
    subprocess.run([sys.executable, "-c", script, *args], cwd=REPO, check=True, capture_output=True)
    warm = subprocess.run([sys.executable, "-c", script, *args], cwd=REPO, check=True, capture_output=True, text=True)
    assert warm.stdout.splitlines()[-1] == "[]", warm.stdout
    assert warm.stdout.startswith("Found the map of 19 papers")


class _HeldEmbedder(HashingEmbedder):
    """Embeds only once `release` is set, after signalling `started`: a build held mid-way."""

    def __init__(self, started, release):
        super().__init__()
        self.started, self.release = started, release

    def embed(self, texts):
        self.started.set()
        assert self.release.wait(30)
        return super().embed(texts)


def test_a_second_build_of_the_same_folder_waits_for_the_first_and_reuses_its_map(planted_file, tmp_path):
    import threading

    started, release = threading.Event(), threading.Event()
    results, waiting = {}, threading.Event()
    first = threading.Thread(
        target=lambda: results.setdefault(
            "first", run(planted_file, tmp_path, out_dir=tmp_path / "out", embedder=_HeldEmbedder(started, release))
        )
    )
    first.start()
    assert started.wait(30)  # the first build holds the folder, inside its embed stage

    def second_progress(stage, done, total):
        if stage == "wait":
            waiting.set()

    second = threading.Thread(
        target=lambda: results.setdefault(
            "second", run(planted_file, tmp_path, out_dir=tmp_path / "out", progress=second_progress)
        )
    )
    second.start()
    assert waiting.wait(30) and "second" not in results  # it says it waits, and does wait
    release.set()
    first.join(30)
    second.join(30)
    assert [s.name for s in results["second"].stages] == ["reuse"]  # it computed nothing
    pd.testing.assert_frame_equal(results["second"].papers, results["first"].papers)


def test_a_build_whose_lock_holder_was_killed_is_not_blocked(planted_file, tmp_path):
    import threading

    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            (
                "import time\n"
                "from pathlib import Path\n"
                "from lib.builder.lock import build_lock\n"
                f"with build_lock(Path({str(tmp_path / 'out')!r}), Path({str(tmp_path / 'cache')!r}), print):\n"
                "    print('held', flush=True); time.sleep(60)\n"
            ),
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
    finally:
        holder.kill()
        holder.wait()
    stages, results = [], []
    builder = threading.Thread(
        target=lambda: results.append(
            run(planted_file, tmp_path, out_dir=tmp_path / "out", progress=lambda stage, *_: stages.append(stage))
        ),
        daemon=True,
    )
    builder.start()
    builder.join(60)
    assert results, "the build still waits for a lock whose holder is dead"
    assert "wait" not in stages and is_built(tmp_path / "out") and len(results[0].papers) == 36


def test_a_map_the_cache_cannot_keep_is_still_built_and_the_failure_logged(planted_file, tmp_path, monkeypatch, caplog):
    def disk_full(*_):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(lib.builder.pipeline, "copy_output", disk_full)
    with caplog.at_level("WARNING", logger="lib.builder.pipeline"):
        result = lib.builder.pipeline.build(
            planted_file, out_dir=tmp_path / "map", cache_dir=tmp_path / "cache", embedder=HashingEmbedder()
        )
    assert (tmp_path / "map" / "papers.parquet").is_file() and len(result.papers) == len(planted_records())
    assert "No space left on device" in caplog.text and "later builds will make it again" in caplog.text
