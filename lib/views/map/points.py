"""The map's points as the map page's chart holds them: every paper's place, id and hover, sent once. Pure; no Streamlit.

A corpus map's whole figure, sent on every rerun, is large and almost all of it the same each time:
hover text, titles, ids and coordinates. The chart (`lib.ui_state.map_chart`) is given those once per
map as `map_points` (compressed), and each figure names its points by row (`map_figure(by_row=True)`):
a filter sends the rows it shows, not the papers again.

Format: `KEY_CHARS` ASCII hex characters (`points_key`, a fingerprint of the rest), then a gzip stream
of: the number of papers n (uint32, little-endian), x then y (n float32 each, little-endian), and
UTF-8 JSON `{"ids": [...], "titles": [...], "details": [...]}` (`map_hover.hover_labels`' columns,
escaped there). A figure's trace names its rows in its `meta` (Plotly keeps any value there) with
`ROWS` (positions, drawn in that order), or `MASK` (the rows whose bit is set, least significant bit
first, base64: the backdrop, a set with no order, 11 kB at 87k papers against 500 kB as numbers), and
its points' colours with `COLOUR_RUNS` ([colour, count] pairs in row order).
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import struct

import numpy as np
import pandas as pd

KEY_CHARS = 24
ROWS, MASK, COLOUR_RUNS = "papermap_rows", "papermap_mask", "papermap_colour_runs"
# Level 6, not 1: markedly smaller for every session that opens the map; the extra time is paid once per map.
_GZIP_LEVEL = 6


def map_points(papers: pd.DataFrame, hover: pd.DataFrame) -> bytes:
    """Every paper of `papers` (the whole map, in its order) for the chart: place, id and hover
    (`hover_labels(papers)`, indexed like it), in the module's format."""
    xs, ys = (papers[c].to_numpy(dtype="<f4") for c in ("x", "y"))
    text = {
        "ids": papers["paper_id"].astype(str).tolist(),
        "titles": hover["title"].reindex(papers.index).tolist(),
        "details": hover["details"].reindex(papers.index).tolist(),
    }
    body = b"".join(
        (struct.pack("<I", len(papers)), xs.tobytes(), ys.tobytes(), json.dumps(text, ensure_ascii=False).encode())
    )
    key = hashlib.blake2b(body, digest_size=KEY_CHARS // 2).hexdigest()
    return key.encode("ascii") + gzip.compress(body, compresslevel=_GZIP_LEVEL, mtime=0)


def points_key(points: bytes) -> str:
    """The fingerprint `map_points` put at the start of `points`: the same papers and hover, the same key."""
    return points[:KEY_CHARS].decode("ascii")


def row_mask(selected: np.ndarray) -> str:
    """`selected` (one bool per row) as `MASK` writes it: bits least significant first, base64."""
    return base64.b64encode(np.packbits(np.asarray(selected, dtype=bool), bitorder="little").tobytes()).decode("ascii")
