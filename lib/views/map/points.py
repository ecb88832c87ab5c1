"""The map's points as the map page's chart holds them: every paper's place, id and hover, sent once. Pure; no Streamlit.

A corpus map's whole figure, sent on every rerun, is large and almost all of it the same each time:
hover text, titles, ids and coordinates. The chart (`lib.ui_state.map_chart`) is given those once per
map as `map_points` (compressed), and each figure names its points by row (`map_figure(by_row=True)`):
a filter sends the rows it shows, not the papers again.

Format, defined here once (`map_points` writes it, `read_points` and `with_points` read it; the
chart's JavaScript, `lib/ui_state/js/points_registry.js`, reads it with these names and `LAYOUT`, and
a browser test holds it to `read_points`): `KEY_CHARS` ASCII hex characters (`points_key`, a
fingerprint of the rest), then a gzip stream of: the number of papers n (uint32, little-endian), each
of `COORDINATES` (n float32, little-endian), and UTF-8 JSON of `TEXTS` (`map.hover.hover_labels`'
columns, escaped there). A figure's trace names its rows in its `meta` (Plotly keeps any value
there) with `ROWS` (positions, drawn in that order), or `MASK` (the rows whose bit is set, least
significant bit first, base64: the backdrop, a set with no order, 11 kB at 87k papers against 500 kB
as numbers), and its points' colours with `COLOUR_RUNS` ([colour, count] pairs in row order).
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import struct
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

KEY_CHARS = 24
ROWS, MASK, COLOUR_RUNS = "papermap_rows", "papermap_mask", "papermap_colour_runs"
COORDINATES = ("x", "y")
TEXTS = {"ids": "customdata", "titles": "text", "details": "hovertext"}  # -> the trace property each fills
# For the JavaScript reader: the constants above under the names it uses.
LAYOUT = {
    "KEY_CHARS": KEY_CHARS,
    "ROWS": ROWS,
    "MASK": MASK,
    "RUNS": COLOUR_RUNS,
    "COORDINATES": COORDINATES,
    "TEXTS": TEXTS,
}
_COUNT = struct.Struct("<I")
# Level 6, not 1: markedly smaller for every session that opens the map; the extra time is paid once per map.
_GZIP_LEVEL = 6


def map_points(papers: pd.DataFrame, hover: pd.DataFrame) -> bytes:
    """Every paper of `papers` (the whole map, in its order) for the chart: place, id and hover
    (`hover_labels(papers)`, indexed like it), in the module's format."""
    coordinates = [papers[name].to_numpy(dtype="<f4").tobytes() for name in COORDINATES]
    text = {
        "ids": papers["paper_id"].astype(str).tolist(),
        "titles": hover["title"].reindex(papers.index).tolist(),
        "details": hover["details"].reindex(papers.index).tolist(),
    }
    body = b"".join((_COUNT.pack(len(papers)), *coordinates, json.dumps(text, ensure_ascii=False).encode()))
    key = hashlib.blake2b(body, digest_size=KEY_CHARS // 2).hexdigest()
    return key.encode("ascii") + gzip.compress(body, compresslevel=_GZIP_LEVEL, mtime=0)


def points_key(points: bytes) -> str:
    """The fingerprint `map_points` put at the start of `points`: the same papers and hover, the same key."""
    return points[:KEY_CHARS].decode("ascii")


def row_mask(selected: np.ndarray) -> str:
    """`selected` (one bool per row) as `MASK` writes it: bits least significant first, base64."""
    return base64.b64encode(np.packbits(np.asarray(selected, dtype=bool), bitorder="little").tobytes()).decode("ascii")


def read_points(points: bytes) -> dict[str, Any]:
    """`map_points`' bytes read back: `n`, each of `COORDINATES` (float32 arrays) and each of `TEXTS` (lists)."""
    body = gzip.decompress(points[KEY_CHARS:])
    (n,) = _COUNT.unpack_from(body)
    read: dict[str, Any] = {"n": n}
    offset = _COUNT.size
    for name in COORDINATES:
        read[name] = np.frombuffer(body, dtype="<f4", count=n, offset=offset)
        offset += 4 * n
    return {**read, **json.loads(body[offset:])}


def joined_points(parts: Sequence[bytes]) -> dict[str, Any]:
    """`read_points` of several parts of `map_points` as one, their rows in turn (a large map's
    points in the chart: the same at every view, then those the view adds)."""
    read = [read_points(part) for part in parts]
    joined: dict[str, Any] = {"n": sum(part["n"] for part in read)}
    for name in COORDINATES:
        joined[name] = np.concatenate([part[name] for part in read])
    for name in TEXTS:
        joined[name] = [value for part in read for value in part[name]]
    return joined


def with_points(figure: dict, *parts: bytes) -> dict:
    """A `map_figure(by_row=True)` figure (as a dict) as the chart draws it: each trace's rows
    replaced by their papers' coordinates and texts from `parts` (`map_points`, rows in turn), its
    colour runs by one colour a point; the trace's `meta` removed. Changes and returns `figure`."""
    papers = joined_points(parts)
    for trace in figure["data"]:
        meta = trace.pop("meta", {})
        rows = meta.get(ROWS)
        if MASK in meta:
            bits = np.unpackbits(np.frombuffer(base64.b64decode(meta[MASK]), dtype=np.uint8), bitorder="little")
            rows = np.flatnonzero(bits[: papers["n"]]).tolist()
        if rows is None:
            continue
        for name in COORDINATES:
            trace[name] = papers[name][rows].tolist()
        if "hovertemplate" in trace:
            for name, column in TEXTS.items():
                trace[column] = [papers[name][row] for row in rows]
        if COLOUR_RUNS in meta:
            trace["marker"]["color"] = [colour for colour, count in meta[COLOUR_RUNS] for _ in range(count)]
    return figure
