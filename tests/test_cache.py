import io
import json
import subprocess
import zipfile

import numpy as np
import pandas as pd
import pytest
from conftest import ended_pid

from lib.builder.cache import CACHE_VERSION, ArtifactCache, make_key
from lib.files import (
    atomic_write,
    atomic_write_bytes,
    file_digest,
    read_arrays,
    write_array,
    write_arrays,
    write_frame,
)


def test_keys_depend_on_every_part_and_nothing_else():
    assert make_key("embed", {"a": 1, "b": 2}) == make_key("embed", {"b": 2, "a": 1})
    assert make_key("embed", {"a": 1}) != make_key("embed", {"a": 2})
    assert make_key("embed", "x") != make_key("project", "x")


def test_file_digest_follows_content(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_bytes(b"same")
    b.write_bytes(b"same")
    assert file_digest(a) == file_digest(b)
    b.write_bytes(b"other")
    assert file_digest(a) != file_digest(b)


def test_frames_and_arrays_round_trip_with_their_parameters(tmp_path):
    cache = ArtifactCache(tmp_path)
    frame = pd.DataFrame({"paper_id": ["a", "b"], "keywords": [["x", "y"], []]})
    array = np.arange(6, dtype=np.float32).reshape(3, 2)
    cache.put("keywords", "k1", frame, {"params": {"top_n": 10}})
    cache.put("embed", "k2", array, {"params": {"dim": 2}})
    hit = cache.get("keywords", "k1")
    assert list(hit.value["paper_id"]) == ["a", "b"] and hit.meta["params"] == {"top_n": 10}
    assert [list(k) for k in hit.value["keywords"]] == [["x", "y"], []]
    assert np.array_equal(cache.get("embed", "k2").value, array)
    sidecar = json.loads((tmp_path / "embed" / "k2.json").read_text())
    assert sidecar["cache_version"] == CACHE_VERSION and sidecar["stage"] == "embed"
    assert cache.get("embed", "missing") is None


def arrays_bytes(arrays):
    buffer = io.BytesIO()
    write_arrays(buffer, arrays)
    return buffer.getvalue()


def test_named_arrays_round_trip_the_same_bytes_each_time_and_deflate_only_text(tmp_path):
    arrays = {
        "terms": np.array(["graph", "neural network"] * 500),
        "components": np.random.default_rng(0).random((4, 1000)),
    }
    data = arrays_bytes(arrays)
    assert data == arrays_bytes(dict(reversed(arrays.items())))
    # Written to a file as it is made: the same bytes as in memory, and the digest and size returned are the file's.
    digest, size = atomic_write(tmp_path / "arrays.npz", lambda stream: write_arrays(stream, arrays))
    assert (tmp_path / "arrays.npz").read_bytes() == data
    assert (digest, size) == (file_digest(tmp_path / "arrays.npz"), len(data))
    back = read_arrays(io.BytesIO(data))
    assert all(np.array_equal(v, read_arrays(tmp_path / "arrays.npz")[k]) for k, v in back.items())
    assert all(np.array_equal(back[name], arrays[name]) and back[name].dtype == arrays[name].dtype for name in arrays)
    # Random numbers do not deflate, and deflating a corpus's SVD directions costs seconds: stored as is.
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        sizes = {info.filename: (info.compress_size, info.file_size) for info in archive.infolist()}
    assert sizes["components.npy"][0] == sizes["components.npy"][1]
    assert sizes["terms.npy"][0] < sizes["terms.npy"][1] / 10


def test_frames_and_arrays_stream_to_a_file_the_bytes_they_make_in_memory(tmp_path):
    # A map's table and embeddings go straight to their file: the same bytes, so the same digests.
    frame = pd.DataFrame({"paper_id": [f"p{i}" for i in range(5000)], "keywords": [["x", "y"]] * 5000})
    array = np.random.default_rng(0).random((5000, 40), dtype=np.float32)
    for name, write, value in (("papers.parquet", write_frame, frame), ("vectors.npy", write_array, array)):
        buffer = io.BytesIO()
        write(buffer, value)
        digest, size = atomic_write(tmp_path / name, lambda stream, write=write, value=value: write(stream, value))
        assert (tmp_path / name).read_bytes() == buffer.getvalue()
        assert (digest, size) == (file_digest(tmp_path / name), len(buffer.getvalue()))
    assert pd.read_parquet(tmp_path / "papers.parquet")["paper_id"].tolist() == frame["paper_id"].tolist()
    assert np.array_equal(np.load(tmp_path / "vectors.npy"), array)


@pytest.mark.parametrize(
    "damage", ["truncate", "flip", "drop_sidecar", "drop_artifact", "garble_sidecar", "old_version"]
)
def test_damaged_or_partial_artifacts_are_never_trusted(tmp_path, damage):
    cache = ArtifactCache(tmp_path)
    cache.put("embed", "key", np.ones((4, 3)), {})
    artifact, sidecar = tmp_path / "embed" / "key.npy", tmp_path / "embed" / "key.json"
    if damage == "truncate":
        artifact.write_bytes(artifact.read_bytes()[:20])
    elif damage == "flip":
        data = bytearray(artifact.read_bytes())
        data[-1] ^= 0xFF
        artifact.write_bytes(bytes(data))
    elif damage == "drop_sidecar":  # what a build killed between the two renames leaves
        sidecar.unlink()
    elif damage == "drop_artifact":
        artifact.unlink()
    elif damage == "garble_sidecar":
        sidecar.write_text("{not json")
    else:
        meta = json.loads(sidecar.read_text())
        sidecar.write_text(json.dumps({**meta, "cache_version": CACHE_VERSION - 1}))
    assert cache.get("embed", "key") is None
    cache.put("embed", "key", np.ones((4, 3)), {})  # a rebuild overwrites the damage
    assert np.array_equal(cache.get("embed", "key").value, np.ones((4, 3)))


def test_atomic_write_leaves_old_file_when_interrupted(tmp_path, monkeypatch):
    target = tmp_path / "out.bin"
    atomic_write_bytes(target, b"old")

    def fail(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr("os.replace", fail)
    with pytest.raises(KeyboardInterrupt):
        atomic_write_bytes(target, b"new contents")
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.bin"]  # no temp file left behind


def test_a_write_removes_the_temp_files_of_dead_writers_of_that_file_only(tmp_path):
    import fcntl

    target = tmp_path / "out.bin"
    killed = tmp_path / f".out.bin.{ended_pid()}.x1y2z3ab.tmp"  # a writer SIGKILLed before its rename
    other = (
        tmp_path / f".out.bin.1.{ended_pid()}.x1y2z3ab.tmp"
    )  # a dead writer of "out.bin.1": its own next write clears it
    crafted = tmp_path / ".out.bin.99999999999999999999.x1y2z3ab.tmp"  # no process has that number
    # A live writer whose pid means nothing here (another container sharing the folder): its lock says it writes.
    elsewhere = tmp_path / f".out.bin.{ended_pid()}.q9w8e7rt.tmp"
    writer = subprocess.Popen(["sleep", "60"])  # a live process here, writing
    writing = tmp_path / f".out.bin.{writer.pid}.x1y2z3ab.tmp"
    try:
        for temp in (killed, other, crafted, elsewhere, writing):
            temp.write_bytes(b"part")
        with open(elsewhere, "rb") as held:
            fcntl.flock(held, fcntl.LOCK_EX)
            atomic_write_bytes(target, b"whole")
    finally:
        writer.kill()
        writer.wait()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["out.bin", writing.name, other.name, elsewhere.name])
    assert target.read_bytes() == b"whole"
