"""A table kept in a Parquet file (`lib.files.write_frame`: row groups of `ROW_GROUP_ROWS`), read
a few columns, or a few rows, at a time: a large list's papers table is held by no process whole
after its parse (docs/cluster.md).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from lib.errors import PaperMapError

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq


class StoredTable:
    """The table in the Parquet file at `path`, whose bytes must not change while it is read (a cache
    artifact, renamed into place whole). A file gone or damaged since raises `PaperMapError`, one sentence."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        with self._file() as file:
            metadata = file.metadata
            # The file's Arrow schema: each column's type as inferred from the whole table when written.
            self.schema: pa.Schema = file.schema_arrow
        self.rows = metadata.num_rows
        # The first row of each row group, and one past the last row.
        self.starts = [0]
        for group in range(metadata.num_row_groups):
            self.starts.append(self.starts[-1] + metadata.row_group(group).num_rows)
        self._last: tuple[tuple[int, int, tuple[str, ...]], pd.DataFrame] | None = None

    def __len__(self) -> int:
        return self.rows

    def read(self, columns: Sequence[str]) -> pd.DataFrame:
        """Every row of `columns`."""
        return self._groups(0, len(self.starts) - 1, columns)

    def slices(self, columns: Sequence[str]) -> Iterator[pd.DataFrame]:
        """`columns` a row group at a time, in order (index from 0 in each)."""
        for group in range(len(self.starts) - 1):
            yield self._groups(group, group + 1, columns)

    def rows_of(self, start: int, stop: int, columns: Sequence[str]) -> pd.DataFrame:
        """Rows `start` to `stop` of `columns` (index from 0), read from the row groups holding them;
        the last groups read are kept for the next call, which usually wants the rows after."""
        import bisect

        if stop <= start:
            return self._groups(0, 0, columns)
        first = max(bisect.bisect_right(self.starts, start) - 1, 0)
        last = max(bisect.bisect_left(self.starts, stop), first + 1)
        wanted = (first, last, tuple(columns))
        if self._last is None or self._last[0] != wanted:
            self._last = wanted, self._groups(first, last, columns)
        offset = self.starts[first]
        return self._last[1].iloc[start - offset : stop - offset].reset_index(drop=True)

    def _groups(self, first: int, last: int, columns: Sequence[str]) -> pd.DataFrame:
        with self._file() as file:
            try:
                table = file.read_row_groups(range(first, last), columns=list(columns))
            except (OSError, ValueError) as error:
                raise PaperMapError(f"{self.path}: could not be read ({error})") from None
        return table.to_pandas()

    def _file(self) -> pq.ParquetFile:
        import pyarrow.parquet as pq

        try:
            return pq.ParquetFile(self.path)
        except (OSError, ValueError) as error:
            raise PaperMapError(f"{self.path}: could not be read ({error})") from None
