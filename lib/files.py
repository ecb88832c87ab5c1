"""Files written so that no reader sees half of one: atomic writes, file locks, digests, and tables
and arrays streamed to them.

A file is written to a temp file beside it, then renamed over it; the temp file is named for its
writer and locked until the rename, so a writer killed at any point leaves nothing a reader trusts
and nothing the next writer cannot clear. The build's cache (`lib.builder.cache`), the output folder
(`lib.map_folder`) and the stored lists (`lib.store`) all write through here.
"""

from __future__ import annotations

import glob
import hashlib
import os
import re
import tempfile
import zipfile
from collections.abc import Callable, Iterable, Mapping
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, TypeAlias

# NumPy and pandas are imported where used: a digest or a file copy needs neither, and the CLI's
# answer to "already built" should not wait for them.
if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    import pyarrow as pa


def file_digest(path: str | Path) -> str:
    """SHA-256 of a file's bytes, read in chunks."""
    with open(path, "rb") as handle:
        return stream_digest(handle)


def stream_digest(handle: BinaryIO) -> str:
    digest = hashlib.sha256()
    for block in iter(lambda: handle.read(1 << 20), b""):
        digest.update(block)
    return digest.hexdigest()


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

    closed = False  # pyarrow asks before it writes a Parquet file to a Python stream


# zlib's fastest level: fixed-width text shrinks many-fold at any level, and at the default one a
# corpus's terms take several times as long, twice a build (docs/performance.md).
TEXT_DEFLATE_LEVEL = 1

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


# Rows per Parquet row group: a table's file can be read a group at a time (`lib.stored_table`).
ROW_GROUP_ROWS = 16_384
PARQUET_COMPRESSION = "snappy"  # pandas' default, so that `write_frame` and `write_frames` agree


def write_frame(stream: BinaryIO | _DigestingWriter, frame: pd.DataFrame) -> None:
    """A DataFrame as Parquet, without its index, in row groups of `ROW_GROUP_ROWS`, written to `stream` as made.

    Straight to the stream, not through a buffer: the bytes are the same, and a large map's file is
    not held in memory beside its table (docs/cluster.md)."""
    frame.to_parquet(stream, index=False, compression=PARQUET_COMPRESSION, row_group_size=ROW_GROUP_ROWS)


def write_frames(stream: BinaryIO | _DigestingWriter, frames: Iterable[pd.DataFrame], schema: pa.Schema) -> None:
    """Consecutive slices of one table as Parquet, a slice at a time, each of at most `ROW_GROUP_ROWS`
    rows and of columns of `schema`'s types (the whole table's: a slice of empty lists alone would
    give another): the bytes `write_frame` writes of the whole table, when every slice but the last
    has `ROW_GROUP_ROWS` rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    tables = (pa.Table.from_pandas(frame, schema=schema, preserve_index=False) for frame in frames)
    first = next(tables)
    # The file's schema is the first slice's as converted: `schema`'s types, with pandas' record of the columns.
    with pq.ParquetWriter(stream, first.schema, compression=PARQUET_COMPRESSION) as writer:
        for table in chain([first], tables):
            writer.write_table(table, row_group_size=ROW_GROUP_ROWS)


def write_array(stream: BinaryIO | _DigestingWriter, array: np.ndarray) -> None:
    """An array in NumPy's `.npy` format, without pickle, written to `stream` a block at a time."""
    import numpy as np

    np.save(stream, array, allow_pickle=False)


def write_arrays(stream: BinaryIO | _DigestingWriter, arrays: Mapping[str, np.ndarray]) -> None:
    """Named arrays as an `.npz` file that `np.load` reads without pickle, written to `stream` as made.

    Unlike `np.savez`, which stamps each member with the current time, the same arrays always give
    the same bytes, so a rebuild from cache writes what a clean build writes; and no array's bytes
    are copied whole in memory (a corpus's SVD directions are large). Text arrays are deflated, fast
    (fixed-width strings shrink many-fold at any level); numbers are stored as they are: SVD
    directions barely deflate, and deflating the query model's alone would slow a corpus build noticeably.
    """
    import numpy as np

    if not isinstance(stream, _DigestingWriter):  # one layout (front to back) for files and buffers alike
        stream = _DigestingWriter(stream)
    with zipfile.ZipFile(stream, "w") as archive:  # type: ignore[call-overload]  # stub wants close(), never called on a given file
        for name in sorted(arrays):
            array = np.asarray(arrays[name])
            member = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            member.compress_type = zipfile.ZIP_STORED if array.dtype.kind in "biufc" else zipfile.ZIP_DEFLATED
            # ZipInfo takes no level, nor does typeshed know this attribute (Python 3.13 keeps it as an alias).
            member._compresslevel = TEXT_DEFLATE_LEVEL  # type: ignore[attr-defined]
            with archive.open(member, "w", force_zip64=array.nbytes > 1 << 30) as entry:
                np.lib.format.write_array(entry, array, allow_pickle=False)


def read_arrays(source: str | Path | BinaryIO) -> dict[str, np.ndarray]:
    """The named arrays of an `.npz` file (a path or an open binary file), read without pickle."""
    import numpy as np

    with np.load(source, allow_pickle=False) as archive:
        return {name: archive[name] for name in archive.files}
