"""The on-disk artifact cache: content-hash keys and a JSON sidecar per artifact.

An artifact is trusted only when its sidecar exists, names the same key and cache version, and the
artifact's bytes hash to the digest the sidecar recorded. Artifacts are written before sidecars,
each by temp file then rename (`lib.files`), so a build killed at any point leaves nothing a later
build trusts.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Union

from lib.errors import PaperMapError
from lib.files import (
    StreamWriter,
    atomic_write,
    atomic_write_bytes,
    read_arrays,
    stream_digest,
    write_array,
    write_arrays,
    write_frame,
)
from lib.stored_table import StoredTable

# NumPy and pandas are imported where used: a cache hit (keys, digests, file copies) needs neither,
# and the CLI's answer to "already built" should not wait for them.
if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

# Bump when any stage's output changes meaning, so old artifacts are never reused.
CACHE_VERSION = 1


def make_key(*parts: Any) -> str:
    """A short stable key from JSON-serialisable parts and the cache version."""
    payload = json.dumps([CACHE_VERSION, *parts], sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()[:32]


ArtifactValue = Union["pd.DataFrame", "np.ndarray", "dict[str, np.ndarray]"]
# What `get_table` gives: a stored table read only as asked.
ArtifactRead = ArtifactValue | StoredTable


@dataclass(frozen=True)
class Artifact:
    value: ArtifactRead
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
        return self._checked(stage, key, _read_value)

    def get_table(self, stage: str, key: str) -> Artifact | None:
        """The table stored under `key` as its file (`StoredTable`), read only as asked; None as `get`."""
        return self._checked(stage, key, lambda handle, kind, path: StoredTable(path) if kind == "parquet" else None)

    def _checked(self, stage: str, key: str, read: Callable[[BinaryIO, str, Path], Any]) -> Artifact | None:
        """The artifact under `key` as `read` gives it (from its file open, of its kind, at its path)
        once its bytes are checked; None when absent, partial, stale, corrupt, or of a kind `read` refuses."""
        sidecar = self.root / stage / f"{key}.json"
        try:
            meta = json.loads(sidecar.read_text(encoding="utf-8"))
            if meta.get("key") != key or meta.get("cache_version") != CACHE_VERSION:
                return None
            artifact, _ = self._paths(stage, key, meta["kind"])
            # Checked and read through one open file: a writer renaming a new one in meanwhile changes nothing here.
            with open(artifact, "rb") as handle:
                if stream_digest(handle) != meta["sha256"]:
                    return None
                handle.seek(0)
                value = read(handle, meta["kind"], artifact)
        except (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile, PaperMapError):
            return None  # missing or damaged: the caller recomputes and overwrites
        return None if value is None else Artifact(value, meta)

    def put(self, stage: str, key: str, value: ArtifactValue, meta: dict[str, Any]) -> None:
        """Store `value` under `key` with `meta` (parameters, upstream keys) in its sidecar."""
        import numpy as np
        import pandas as pd

        write: StreamWriter
        if isinstance(value, dict):
            kind, write = "npz", partial(write_arrays, arrays=value)
        elif isinstance(value, pd.DataFrame):
            kind, write = "parquet", partial(write_frame, frame=value)
        else:
            kind, write = "npy", partial(write_array, array=np.asarray(value))
        artifact, sidecar = self._paths(stage, key, kind)
        digest, size = atomic_write(artifact, write)
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


def _read_value(handle: BinaryIO, kind: str, path: Path) -> ArtifactValue:
    import numpy as np
    import pandas as pd

    if kind == "parquet":
        return pd.read_parquet(handle)
    if kind == "npz":
        return read_arrays(handle)  # array by array, never the file's bytes whole
    return np.load(handle, allow_pickle=False)


@dataclass(frozen=True)
class StagePut:
    """`cache.put` of stage `stage`'s value under `key`, its sidecar holding `meta` and the fields the
    value comes with: handed to where the value is made (a worker process), which stores it there
    instead of sending it back."""

    cache: ArtifactCache
    stage: str
    key: str
    meta: dict[str, Any]

    def __call__(self, value: ArtifactValue, extra: dict[str, Any]) -> None:
        self.cache.put(self.stage, self.key, value, {**self.meta, **extra})
