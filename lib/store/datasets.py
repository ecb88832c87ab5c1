"""The data sets PaperMap offers: the embedded sample, paper lists in a data folder, uploaded files.

A data set is one paper list and the taxonomy its papers are filed under. Its `name` is stable and
URL-safe (the dashboard's `?data=` key) and made from its file name, so a link reopens the same set
on any server holding the same files. Uploads are saved under `<data folder>/uploads/` after their
content proved to be a paper list; nothing is written outside that folder.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from lib.builder.cache import make_key
from lib.builder.pipeline import STAGE_VERSIONS
from lib.errors import DataSetError, PaperMapError
from lib.files import atomic_write_bytes, file_digest
from lib.map_folder import is_built, read_sidecar
from lib.names import safe_name
from lib.paths import DEFAULT_DATA, DEFAULT_TAXONOMY, REPO_ROOT

DEFAULT_DATA_DIR = REPO_ROOT / "data"
UPLOADS_FOLDER = "uploads"
MAX_UPLOAD_BYTES = 200 * 1024 * 1024  # Streamlit's own default upload limit
MAX_UPLOADS_TOTAL_BYTES = 1024 * 1024 * 1024  # all uploads together: uploads cannot fill the disk
MAX_NAME_CHARS = 100
# Files in a data folder offered as paper lists; other files there (taxonomies, databases) are not.
PAPER_LIST_SUFFIXES = (".txt", ".json", ".jsonl", ".csv", ".tsv", ".parquet")
# The suffix an upload is saved with, from the format its content was read as (not its name's).
FORMAT_SUFFIXES = {
    "text": ".txt",
    "json": ".json",
    "openreview": ".json",
    "virtual-site": ".json",
    "jsonl": ".jsonl",
    "csv": ".csv",
    "tsv": ".tsv",
    "parquet": ".parquet",
}
_ORIGIN_NOTES = {"embedded": " (embedded sample)", "given": " (--data)", "folder": "", "upload": " (uploaded)"}


@dataclass(frozen=True)
class DataSet:
    """One paper list on offer."""

    name: str  # URL-safe and stable: the `?data=` value
    label: str  # what the user reads
    path: Path
    taxonomy: Path
    origin: str  # "embedded", "given" (--data / PAPERMAP_DATA), "folder" or "upload"


@dataclass(frozen=True)
class Catalog:
    """The data sets on offer, the first being the default choice, and the folder they come from."""

    data_dir: Path
    sets: tuple[DataSet, ...]

    @property
    def default(self) -> DataSet:
        return self.sets[0]

    @property
    def uploads_dir(self) -> Path:
        return self.data_dir / UPLOADS_FOLDER

    def find(self, name: str) -> DataSet | None:
        """The set called `name`, or None."""
        return next((s for s in self.sets if s.name == name), None)

    def find_path(self, path: Path) -> DataSet | None:
        """The set read from `path`, or None."""
        target = path.resolve()
        return next((s for s in self.sets if s.path.resolve() == target), None)


def catalog(
    data_dir: Path = DEFAULT_DATA_DIR,
    *,
    given: Path | None = None,
    taxonomy: Path = DEFAULT_TAXONOMY,
    embedded: Path = DEFAULT_DATA,
) -> Catalog:
    """Every data set on offer: `given` first when there is one (the default choice), then the
    embedded sample, the paper lists directly in `data_dir`, and the uploads in its uploads folder.

    A file reached twice (the sample inside the data folder) is offered once, under its first origin.
    """
    candidates = [(given, "given")] if given is not None else []
    candidates.append((embedded, "embedded"))
    candidates += [(path, "folder") for path in _paper_lists(data_dir)]
    candidates += [(path, "upload") for path in _paper_lists(data_dir / UPLOADS_FOLDER)]
    sets: list[DataSet] = []
    seen: set[Path] = set()
    for path, origin in candidates:
        if path.resolve() in seen:
            continue
        seen.add(path.resolve())
        name = _unique(("upload-" if origin == "upload" else "") + url_name(path.name), {s.name for s in sets})
        sets.append(DataSet(name, path.name + _ORIGIN_NOTES[origin], path, taxonomy, origin))
    return Catalog(data_dir, tuple(sets))


def _paper_lists(folder: Path) -> list[Path]:
    """Visible files with a paper-list suffix directly in `folder`, by name.

    An empty file is offered too: opening it says that it is empty, where leaving it out of the list
    would leave whoever put it there guessing."""
    try:
        entries = sorted(folder.iterdir())
    except OSError:  # no such folder (yet), or not readable: nothing on offer from it
        return []
    found = []
    for path in entries:
        if path.name.startswith(".") or path.suffix.lower() not in PAPER_LIST_SUFFIXES:
            continue  # hidden files include atomic writes still in progress
        try:
            if path.is_file():
                found.append(path)
        except OSError:
            continue
    return found


def url_name(file_name: str) -> str:
    """`file_name` with every run of characters other than letters, digits, '.', '-' and '_' made '-'."""
    return safe_name(file_name, ascii_fold=False, fallback="data")


def _unique(name: str, taken: set[str]) -> str:
    n, candidate = 2, name
    while candidate in taken:
        candidate, n = f"{name}-{n}", n + 1
    return candidate


def safe_stem(file_name: str) -> str:
    """The stem of an uploaded file's name, made safe to save: the last path component only, ASCII
    letters, digits, '.', '-' and '_', no leading dot, at most MAX_NAME_CHARS; "" when nothing is left.

    `../../x.json`, `/etc/passwd`, `C:\\x\\y.csv` and names holding NUL can only ever name a file
    directly inside the uploads folder.
    """
    last = re.split(r"[\\/\x00]", file_name)[-1]
    stem = last.rsplit(".", 1)[0] if "." in last.lstrip(".") else last
    return safe_name(stem, joiner="_", strip="._-", most=MAX_NAME_CHARS)


def check_paper_list(content: bytes, file_name: str, fallback: str) -> tuple[str, int]:
    """The name to save a paper list under and how many papers it holds. The name is
    `safe_stem(file_name)` (or `fallback`) with the suffix of the format the content reads as,
    whatever the name claimed.

    Raises `InputError` when the content cannot be read as a paper list, and `DataSetError` when
    it holds no paper with a title or an abstract.
    """
    stem = safe_stem(file_name) or fallback
    from lib.stages.load import (
        papers_from_bytes,  # pandas: only when a file is checked, not to list data sets
    )

    result = papers_from_bytes(content, Path(stem))
    if result.report.loaded == 0:
        raise DataSetError(f"{stem} holds no paper with a title or an abstract.")
    return stem + FORMAT_SUFFIXES[result.report.format], result.report.loaded


def save_upload(
    uploads_dir: Path,
    file_name: str,
    content: bytes,
    *,
    max_bytes: int = MAX_UPLOAD_BYTES,
    max_total_bytes: int = MAX_UPLOADS_TOTAL_BYTES,
) -> Path:
    """Save an uploaded paper list into `uploads_dir` (see `check_paper_list`) and return its path.

    The same content uploaded again returns the earlier file instead of a copy; a different file
    with a name already taken is saved as `name-2`. A file that would take the folder's uploads
    past `max_total_bytes` is refused. Raises `DataSetError` or `InputError` (one sentence).
    """
    if len(content) > max_bytes:
        size, limit = human_size(len(content)), human_size(max_bytes)
        (size_value, size_unit), (limit_value, limit_unit) = size.split(), limit.split()
        if size_unit == limit_unit and float(size_value) == float(limit_value):
            # Just over: rounded alike ("2.0 KB", "2 KB"), the sizes would not say why it was refused.
            size, limit = f"{len(content):,} bytes", f"{max_bytes:,} bytes"
        raise DataSetError(f"{safe_stem(file_name) or 'The file'} is {size}; uploads are limited to {limit}.")
    name, _ = check_paper_list(content, file_name, fallback="upload")
    digest = hashlib.sha256(content).hexdigest()
    for existing in _paper_lists(uploads_dir):
        if existing.stat().st_size == len(content) and file_digest(existing) == digest:
            return existing
    held = sum(path.stat().st_size for path in _paper_lists(uploads_dir))
    if held + len(content) > max_total_bytes:
        raise DataSetError(
            f"{safe_stem(file_name) or 'The file'} was not saved: the uploads folder holds {human_size(held)} "
            f"and all uploads together are limited to {human_size(max_total_bytes)}; remove some from {uploads_dir}."
        )
    stem, suffix = name.rsplit(".", 1)
    n = 2
    while (uploads_dir / name).exists():
        name, n = f"{stem}-{n}.{suffix}", n + 1
    target = uploads_dir / name
    atomic_write_bytes(target, content)
    return target


def human_size(size: int) -> str:
    """Bytes as "812 B", "4.2 KB", "200 MB" (powers of 1024, as Streamlit counts its limit)."""
    value, unit = float(size), "B"
    for larger in ("KB", "MB", "GB"):
        if value < 1024:
            break
        value, unit = value / 1024, larger
    return f"{value:.0f} {unit}" if unit == "B" or value >= 100 or value.is_integer() else f"{value:.1f} {unit}"


def dashboard_map_dir(data: Path | Sequence[Path], taxonomy: Path, cache: Path) -> Path:
    """Where the dashboard builds the map of `data` (a paper list, or several mapped together as
    editions) filed under `taxonomy`, inside `cache`.

    Named for the files' paths, sizes and modification times, and for the pipeline's stage
    versions: reading that folder needs no hashing, an edited file gets a new folder, and so does
    a new PaperMap whose stages give other output. Raises `PaperMapError` when a file cannot be read.
    """
    files = [data] if isinstance(data, Path) else list(data)
    try:
        stamps = [(str(p.resolve()), p.stat().st_size, p.stat().st_mtime_ns) for p in (*files, taxonomy)]
    except OSError as error:
        raise PaperMapError(f"{error.filename}: cannot be read ({error.strerror})") from None
    return cache / "maps" / make_key("dashboard", stamps, STAGE_VERSIONS)


def built_papers(data_set: DataSet, cache: Path, together: Sequence[DataSet] = ()) -> int | None:
    """How many papers the dashboard's map of `data_set` (with the sets `together`, as editions of
    one map) holds, or None when it is not built yet."""
    files = (data_set.path, *(other.path for other in together)) if together else data_set.path
    try:
        folder = dashboard_map_dir(files, data_set.taxonomy, cache)
    except PaperMapError:
        return None
    if not is_built(folder):
        return None
    return int(read_sidecar(folder)["rows"])


def describe(sets: tuple[DataSet, ...] | list[DataSet], cache: Path) -> list[dict[str, object]]:
    """One row per data set for a table: name, label, papers (None until built), size, built."""
    rows: list[dict[str, object]] = []
    for data_set in sets:
        try:
            size = human_size(data_set.path.stat().st_size)
        except OSError:
            size = "missing"
        papers = built_papers(data_set, cache)
        rows.append(
            {
                "name": data_set.name,
                "data set": data_set.label,
                "papers": papers,
                "size": size,
                "built": papers is not None,
            }
        )
    return rows
