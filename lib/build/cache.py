"""The on-disk artifact cache: content-hash keys, atomic writes, and a JSON sidecar per artifact.

An artifact is trusted only when its sidecar exists, names the same key and cache version, and the
artifact's bytes hash to the digest the sidecar recorded. Artifacts are written before sidecars,
each by temp file then rename, so a build killed at any point leaves nothing a later build trusts.
"""

from __future__ import annotations

import glob
import hashlib
import io
import json
import os
import re
import tempfile
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TypeAlias, Union

# NumPy and pandas are imported where used: a cache hit (keys, digests, file copies) needs neither,
# and the CLI's answer to "already built" should not wait for them.
if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

# Bump when any stage's output changes meaning, so old artifacts are never reused.
CACHE_VERSION = 1


def file_digest(path: str | Path) -> str:
    """SHA-256 of a file's bytes, read in chunks."""
    with open(path, "rb") as handle:
        return _stream_digest(handle)


def _stream_digest(handle: BinaryIO) -> str:
    digest = hashlib.sha256()
    for block in iter(lambda: handle.read(1 << 20), b""):
        digest.update(block)
    return digest.hexdigest()


def make_key(*parts: Any) -> str:
    """A short stable key from JSON-serialisable parts and the cache version."""
    payload = json.dumps([CACHE_VERSION, *parts], sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()[:32]


class _DigestingWriter:
    """A write-only stream into `handle` that hashes and counts what passes; it cannot seek, so a
    zip archive written to it goes front to back, whatever the file underneath."""

    def __init__(self, handle: BinaryIO) -> None:
        self.handle, self.digest, self.size = handle, hashlib.sha256(), 0

    def write(self, data: bytes) -> int:
        self.handle.write(data)
        self.digest.update(data)
        self.size += len(data)
        return len(data)

    def tell(self) -> int:
        return self.size

    def flush(self) -> None:
        self.handle.flush()


# What `atomic_write` calls with the stream it writes through.
StreamWriter: TypeAlias = Callable[[_DigestingWriter], object]


def atomic_write(path: Path, write: StreamWriter) -> tuple[str, int]:
    """Write `path` through `write(stream)` so that readers see the old file or the whole new one,
    never a part; the new file's SHA-256 and size. Nothing is held in memory but what `write` holds.

    The temp file is named for the writing process and locked (`flock`) until its rename, so the
    next write of `path` removes the temp files of writers that died (SIGKILL, power loss) before
    their rename, and never a live writer's, whether it runs here or in another container.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_abandoned_temps(path)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            exclusive_lock(handle.fileno(), wait=True)  # released when closed, after the rename
            stream = _DigestingWriter(handle)
            write(stream)
            handle.flush()
            os.fsync(handle.fileno())
            os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return stream.digest.hexdigest(), stream.size


def atomic_write_bytes(path: Path, data: bytes) -> tuple[str, int]:
    """`atomic_write` of bytes in memory."""
    return atomic_write(path, lambda stream: stream.write(data))


def exclusive_lock(fd: int, *, wait: bool) -> bool:
    """Take the exclusive `flock` of an open file, held until it is closed; whether it was taken
    (`wait=False` does not wait). It dies with its process. Without flock (Windows): True, no lock."""
    if os.name != "posix":
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        return True
    except BlockingIOError:
        return False


def _remove_abandoned_temps(path: Path) -> None:
    if os.name != "posix":
        return
    # ".<name>.<pid>.<mkstemp's letters>.tmp", exactly: not the temp file of "<name>.<something>"
    named = re.compile(rf"\.{re.escape(path.name)}\.(\d+)\.[^.]+\.tmp")
    for temp in path.parent.glob(f".{glob.escape(path.name)}.*.tmp"):
        writer = named.fullmatch(temp.name)
        # The pid check covers a writer between creating its file and locking it; the lock, a writer
        # whose pid means nothing here (another container on a shared cache folder).
        if writer is None or _process_exists(int(writer[1])):
            continue
        try:
            with open(temp, "rb") as handle:
                if exclusive_lock(handle.fileno(), wait=False):
                    temp.unlink(missing_ok=True)
        except OSError:
            continue  # gone already, or not ours to read


def _process_exists(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OverflowError, ValueError):
        return False  # no process can have that number: a name made by something else
    except OSError:
        return True  # alive, run by another user
    return True


def frame_bytes(frame: pd.DataFrame) -> bytes:
    """A DataFrame as Parquet bytes, without its index."""
    buffer = io.BytesIO()
    frame.to_parquet(buffer, index=False)
    return buffer.getvalue()


def array_bytes(array: np.ndarray) -> bytes:
    """An array in NumPy's `.npy` format, without pickle."""
    import numpy as np

    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def write_arrays(stream: BinaryIO | _DigestingWriter, arrays: Mapping[str, np.ndarray]) -> None:
    """Named arrays as an `.npz` file that `np.load` reads without pickle, written to `stream` as made.

    Unlike `np.savez`, which stamps each member with the current time, the same arrays always give
    the same bytes, so a rebuild from cache writes what a clean build writes; and no array's bytes
    are copied whole in memory (a corpus's SVD directions are large). Text arrays are deflated
    (fixed-width strings shrink many-fold); numbers are stored as they are: SVD directions barely
    deflate, and deflating the query model's alone would slow a corpus build noticeably.
    """
    import numpy as np

    if not isinstance(stream, _DigestingWriter):  # one layout (front to back) for files and buffers alike
        stream = _DigestingWriter(stream)
    with zipfile.ZipFile(stream, "w") as archive:  # type: ignore[call-overload]  # stub wants close(), never called on a given file
        for name in sorted(arrays):
            array = np.asarray(arrays[name])
            member = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            member.compress_type = zipfile.ZIP_STORED if array.dtype.kind in "biufc" else zipfile.ZIP_DEFLATED
            with archive.open(member, "w", force_zip64=array.nbytes > 1 << 30) as entry:
                np.lib.format.write_array(entry, array, allow_pickle=False)


def read_arrays(source: str | Path | BinaryIO) -> dict[str, np.ndarray]:
    """The named arrays of an `.npz` file (a path or an open binary file), read without pickle."""
    import numpy as np

    with np.load(source, allow_pickle=False) as archive:
        return {name: archive[name] for name in archive.files}


ArtifactValue = Union["pd.DataFrame", "np.ndarray", "dict[str, np.ndarray]"]


@dataclass(frozen=True)
class Artifact:
    value: ArtifactValue
    meta: dict[str, Any]


class ArtifactCache:
    """Stage artifacts under `root/<stage>/<key>.{parquet,npy,npz}` with `<key>.json` sidecars: a
    DataFrame, an array, or a dict of named arrays."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def _paths(self, stage: str, key: str, kind: str) -> tuple[Path, Path]:
        folder = self.root / stage
        return folder / f"{key}.{kind}", folder / f"{key}.json"

    def has(self, stage: str, key: str) -> bool:
        """Whether an artifact for `key` seems stored (its sidecar exists); `get` still checks it whole."""
        return (self.root / stage / f"{key}.json").is_file()

    def get(self, stage: str, key: str) -> Artifact | None:
        """The artifact stored under `key`, or None when absent, partial, stale or corrupt."""
        import numpy as np
        import pandas as pd

        sidecar = self.root / stage / f"{key}.json"
        try:
            meta = json.loads(sidecar.read_text(encoding="utf-8"))
            if meta.get("key") != key or meta.get("cache_version") != CACHE_VERSION:
                return None
            artifact, _ = self._paths(stage, key, meta["kind"])
            # Checked and read through one open file: a writer renaming a new one in meanwhile changes nothing here.
            with open(artifact, "rb") as handle:
                if _stream_digest(handle) != meta["sha256"]:
                    return None
                handle.seek(0)
                if meta["kind"] == "parquet":
                    value: ArtifactValue = pd.read_parquet(handle)
                elif meta["kind"] == "npz":
                    value = read_arrays(handle)  # array by array, never the file's bytes whole
                else:
                    value = np.load(handle, allow_pickle=False)
        except (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile):
            return None  # missing or damaged: the caller recomputes and overwrites
        return Artifact(value, meta)

    def put(self, stage: str, key: str, value: ArtifactValue, meta: dict[str, Any]) -> None:
        """Store `value` under `key` with `meta` (parameters, upstream keys) in its sidecar."""
        import numpy as np
        import pandas as pd

        if isinstance(value, dict):
            artifact, sidecar = self._paths(stage, key, kind := "npz")
            digest, size = atomic_write(artifact, partial(write_arrays, arrays=value))
        else:
            kind, data = (
                ("parquet", frame_bytes(value))
                if isinstance(value, pd.DataFrame)
                else ("npy", array_bytes(np.asarray(value)))
            )
            artifact, sidecar = self._paths(stage, key, kind)
            digest, size = atomic_write_bytes(artifact, data)
        record = {
            **meta,
            "stage": stage,
            "key": key,
            "kind": kind,
            "cache_version": CACHE_VERSION,
            "sha256": digest,
            "bytes": size,
        }
        atomic_write_bytes(sidecar, json.dumps(record, indent=1, sort_keys=True, default=str).encode())
