"""A large list's parse in a worker process (lib.builder.load_apart): the same table and report as
a parse in the build's own process, stored in the cache by the worker, its errors as their one
sentence, and small lists parsed here."""

import logging

import pandas as pd
import pytest
from test_parallel import in_one_process, recording_worker, run  # noqa: F401 (in_one_process: a fixture)

from lib.builder import load_apart
from lib.builder.cache import ArtifactCache, StagePut
from lib.errors import InputError


@pytest.fixture
def apart(monkeypatch):
    """Every list counts as large."""
    monkeypatch.setattr(load_apart, "APART_BYTES", 0)


def loaded(files, tmp_path):
    """`load_inputs` of `files`: the table and sidecar it stored in a cache."""
    cache = ArtifactCache(tmp_path / "cache")
    load_apart.load_inputs(files, "auto", StagePut(cache, "load", "key", {"params": {}}))
    hit = cache.get("load", "key")
    return hit.value, hit.meta


def test_a_large_list_is_parsed_in_a_worker_process_into_the_same_table(
    planted_file, tmp_path, monkeypatch, caplog, apart
):
    here_papers, here_meta = load_apart.parse((planted_file,), "auto")
    mark = recording_worker(tmp_path, monkeypatch)

    def not_here(*_):
        raise AssertionError("the list was parsed in the build's process")

    monkeypatch.setattr(load_apart, "parse", not_here)  # here only: the worker is another interpreter
    with caplog.at_level(logging.WARNING):
        papers, meta = loaded((planted_file,), tmp_path)
    assert mark.exists() and not caplog.records  # stored by the worker, not parsed here after it failed
    pd.testing.assert_frame_equal(papers, here_papers)
    assert meta["report"] == here_meta["report"] and meta["report"]["loaded"] == len(papers) > 0


def test_a_small_list_is_parsed_in_the_build_process(planted_file, tmp_path, monkeypatch):
    mark = recording_worker(tmp_path, monkeypatch)
    assert planted_file.stat().st_size <= load_apart.APART_BYTES
    papers, _ = loaded((planted_file,), tmp_path)
    assert not mark.exists() and len(papers) > 0


def test_a_large_lists_error_is_its_one_sentence_from_the_worker(tmp_path, monkeypatch, caplog, apart):
    broken = tmp_path / "broken_list.json"
    broken.write_text('[{"title": "A paper", "abstract": "On things."}, {"title": ', encoding="utf-8")
    with pytest.raises(InputError) as here:
        load_apart.parse((broken,), "auto")
    mark = recording_worker(tmp_path, monkeypatch)
    with caplog.at_level(logging.WARNING), pytest.raises(InputError) as there:
        loaded((broken,), tmp_path)
    assert mark.exists() and not caplog.records and not (tmp_path / "cache").exists()
    assert str(there.value) == str(here.value) and str(broken) in str(there.value)


def test_a_build_of_a_large_list_gives_the_map_of_one_parsed_in_its_own_process(
    planted_file,
    tmp_path,
    in_one_process,  # noqa: F811 (the fixture imported above)
    monkeypatch,
    apart,
):
    mark = recording_worker(tmp_path, monkeypatch)
    pd.testing.assert_frame_equal(in_one_process, run(planted_file, tmp_path, "apart").papers)
    assert mark.exists()
