"""Where the map's topic labels go, for `lib.views.map.figure`: on their topic's region (or its
papers), apart from each other and off the papers the reader must see. Pure; no Streamlit.

A label's box is centred on a spot of its own topic: a cell inside the topic's region
(`lib.views.map.regions`), or one of its papers when it has no region. When every such spot
would make its box overlap another label or a paper to keep clear of, the box goes beside the
region, joined to it by a leader line. Boxes and leader lines are placed in map units, so zooming
in only moves boxes apart; zooming out, the map's script (`lib.views.map.script`) hides the
smaller topic's label of two that meet.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.ndimage import binary_erosion

from lib.views.map.ranges import map_ranges
from lib.views.map.regions import Region
from lib.views.markup import html_literal

LABEL_LEVELS = {"topic_label": "Topics", "topic_fine_label": "Fine topics"}
ZOOM_LEVELS = {"topic_label": "coarse", "topic_fine_label": "fine"}  # an annotation's name: its level
ZOOM_REVEALED = "zoom"  # fine labels carried hidden under coarse ones, for the script to show zoomed in
LABEL_FONT = {"topic_label": 18, "topic_fine_label": 14}  # px: a coarse label reads from the back of a room
# Zoomed in this many times (the whole map's width, or height, over the view's), the fine labels
# take over (`lib.views.map.script`): about where a coarse region fills the view and its fine topics have room.
FINE_ZOOM = 1.8
LABEL_MIN_SHOWN = 0.2  # a topic's label shows while at least this share of its papers is in view
FEW_SHOWN = 60  # a filter to this many papers or fewer: each is named and kept clear of, as a selection's
AVOID_PIXELS = 10  # how near a label's box may come to a paper it keeps clear of
AVOID_CELL_PIXELS = 2  # the grid the papers to keep clear of are counted on; a box errs away from them by less
# A label's box, estimated in px from its text: bold sans-serif averages under 0.62 em a character,
# and Plotly pads the text by `_BORDER_PAD` and a border on each side.
CHAR_EM = 0.62
_BORDER_PAD = 4
BOX_PAD = 2 * (_BORDER_PAD + 3)
# px between a leader line's end on the region and its box, tried in turn; the far ones only when no
# box fits nearer around any tip (a search's many matches can fill a region's surroundings).
LEADER_GAPS = ((12, 40, 68), (110, 160))
MAX_SPOTS = 400  # spots of a topic tried for its box, nearest its papers' middle first
LEADER_TIPS = 8  # spots of a topic tried as a leader line's end


@dataclass(frozen=True)
class PlacedLabel:
    """A label's box centred at `x`, `y` (map units); `tip` is the spot on its topic a leader line
    joins it to, or None when the box sits on its topic."""

    text: str
    x: float
    y: float
    tip: tuple[float, float] | None = None


def box_size(text: str, font_size: int) -> tuple[float, float]:
    """The estimated width and height in px of a label's box for `text` at `font_size`."""
    return CHAR_EM * font_size * len(text) + BOX_PAD, font_size + BOX_PAD


def region_spots(region: Region) -> np.ndarray:
    """The map positions (n, 2) of the cell centres well inside `region`'s outline: cells whose
    four neighbours are inside too, or, for a region too thin to have any, every cell inside."""
    inside = region.density >= region.level
    core = binary_erosion(inside)
    rows, columns = np.nonzero(core if core.any() else inside)
    return np.column_stack([region.x[columns], region.y[rows]]).astype(np.float64)


def topic_positions(
    papers: pd.DataFrame, context: pd.DataFrame | None = None, label_column: str = "topic_label"
) -> pd.DataFrame:
    """Median map position of each topic's papers in view, and how many are, indexed by label.

    With a `context` (the whole map), topics with less than `LABEL_MIN_SHOWN` of their papers in
    view are dropped, their label would name a few points among many, unless the papers in view are
    few (`FEW_SHOWN` or fewer): then each one's topic is named. A label sits among the papers
    shown, so a filter that leaves a topic's far end takes its label there.
    """
    if papers.empty:
        return pd.DataFrame(columns=["x", "y", "papers"])
    grouped = papers.groupby(label_column, sort=True)
    positions = grouped[["x", "y"]].median().assign(papers=grouped.size())
    if context is None or len(papers) <= FEW_SHOWN:
        return positions
    whole = context.groupby(label_column, sort=True).size().reindex(positions.index)
    return positions[positions["papers"] >= LABEL_MIN_SHOWN * whole]


def topic_spots(
    papers: pd.DataFrame, label_column: str, regions: Sequence[Region] = ()
) -> tuple[dict[str, np.ndarray], set[str]]:
    """Label -> the map positions (n, 2) its label may sit on or point to, and the labels with a
    region: those sit inside it (`region_spots`); the others point to one of their papers in `papers`."""
    spots = {region.label: region_spots(region) for region in regions}
    on_region = {label for label, inside in spots.items() if len(inside)}
    for label, rows in papers.groupby(label_column, sort=True)[["x", "y"]]:
        if str(label) not in on_region:
            spots[str(label)] = rows.to_numpy(dtype=np.float64)
    return spots, on_region


def place_labels(
    positions: pd.DataFrame,
    spots: Mapping[str, np.ndarray],
    unit: float,
    x_range: Sequence[float],
    y_range: Sequence[float],
    font_size: int = LABEL_FONT["topic_label"],
    avoid: Sequence[tuple[float, float]] = (),
    on_spot: Collection[str] | None = None,
    beside: bool = True,
    marks: Mapping[str, str] | None = None,
) -> list[PlacedLabel]:
    """Labels of `positions` (median x, y and `papers` per label), largest topic first, each on one
    of its `spots` nearest its median, else beside the nearest by a leader line, else left out.
    Labels not `on_spot` (by default all are) always go beside: their spots are papers, which a
    box would hide. Without `beside`, a label with no free spot is left out instead. A label's text
    ends with its `marks` entry, if any (" (new)").

    `unit` is pixels per map unit on both axes. No two boxes overlap, every box lies inside the
    ranges, and none comes within `AVOID_PIXELS` of a point in `avoid` (papers the reader must see, any number).
    A leader line crosses no other leader line and no other label's box, and no box covers another
    label's leader line.
    """
    low, high = np.array([x_range[0], y_range[0]]), np.array([x_range[1], y_range[1]])
    clear = _ClearOf.points(np.asarray(avoid, dtype=np.float64).reshape(-1, 2), low, high, unit)
    taken = np.empty((0, 4))  # the boxes placed: centre x, centre y, half width, half height, in map units
    leaders = np.empty((0, 4))  # the leader lines drawn: x0, y0, x1, y1
    placed = []
    for label, row in positions.sort_values("papers", ascending=False, kind="stable").iterrows():
        text = f"{label}{(marks or {}).get(str(label), '')}"
        half = np.array(box_size(text, font_size)) / unit / 2
        candidates = np.asarray(spots.get(str(label), np.empty((0, 2))), dtype=np.float64)
        candidates = candidates[((candidates >= low) & (candidates <= high)).all(axis=1)]
        if not len(candidates):
            continue
        distance = np.hypot(candidates[:, 0] - row["x"], candidates[:, 1] - row["y"])
        candidates = candidates[np.lexsort((candidates[:, 1], candidates[:, 0], distance))][:MAX_SPOTS]
        centre, tip = None, None
        if on_spot is None or str(label) in on_spot:
            free = _free(candidates, half, _Placed(taken, leaders, clear), low, high)
            centre = candidates[free[0]] if len(free) else None
        if centre is None and beside:
            tip, centre = _beside(candidates, half, unit, _Placed(taken, leaders, clear), low, high)
        if centre is None:
            continue
        taken = np.vstack([taken, [*centre, *half]])
        if tip is not None:
            leaders = np.vstack([leaders, [*tip, *centre]])
        placed.append(
            PlacedLabel(
                text, float(centre[0]), float(centre[1]), None if tip is None else (float(tip[0]), float(tip[1]))
            )
        )
    return placed


@dataclass(frozen=True)
class _ClearOf:
    """The papers labels keep clear of, counted on a grid of `cell` map units from `origin` and summed
    (`counts[i, j]`: the papers in the cells below row i and left of column j), so whether a box comes
    near any of them is four look-ups, for a search's thousands of matches as for one open paper."""

    origin: np.ndarray
    cell: float
    margin: float
    counts: np.ndarray

    @classmethod
    def points(cls, points: np.ndarray, low: np.ndarray, high: np.ndarray, unit: float) -> _ClearOf:
        """`points` (n, 2) in the view `low`-`high` (and `AVOID_PIXELS` around it), at `unit` px per map unit."""
        cell, margin = AVOID_CELL_PIXELS / unit, AVOID_PIXELS / unit
        origin = low - margin
        shape = np.ceil((high + margin - origin) / cell).astype(int) + 1
        cells = np.floor((points - origin) / cell).astype(int)
        cells = cells[((cells >= 0) & (cells < shape)).all(axis=1)]
        grid = np.zeros((shape[1] + 1, shape[0] + 1), dtype=np.int64)
        np.add.at(grid, (cells[:, 1] + 1, cells[:, 0] + 1), 1)
        return cls(origin, cell, margin, grid.cumsum(axis=0).cumsum(axis=1))

    def near(self, centres: np.ndarray, half: np.ndarray) -> np.ndarray:
        """Whether each box at `centres` (n, 2) of half sizes `half` comes within the margin of a
        point: every cell the widened box touches is counted, so a box errs away from them."""
        if not self.counts[-1, -1]:
            return np.zeros(len(centres), dtype=bool)
        last = np.array(self.counts.shape[::-1]) - 1
        start = np.clip(np.floor((centres - half - self.margin - self.origin) / self.cell), 0, last).astype(int)
        stop = np.clip(np.floor((centres + half + self.margin - self.origin) / self.cell) + 1, 0, last).astype(int)
        c = self.counts
        inside = c[stop[:, 1], stop[:, 0]] - c[start[:, 1], stop[:, 0]] - c[stop[:, 1], start[:, 0]]
        return inside + c[start[:, 1], start[:, 0]] > 0


@dataclass(frozen=True)
class _Placed:
    """What a new label's box and leader line must keep clear of: the boxes `taken` (centre, half
    sizes), the `leaders` drawn (x0, y0, x1, y1), and the papers in `clear`."""

    taken: np.ndarray
    leaders: np.ndarray
    clear: _ClearOf


def _free(centres: np.ndarray, half: np.ndarray, placed: _Placed, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """The positions among `centres` whose box (half sizes `half`) lies within `low`-`high`, overlaps
    no box taken, covers none of the leader lines drawn and keeps clear of the papers, in order."""
    fits = ((centres - half >= low) & (centres + half <= high)).all(axis=1)
    if len(placed.taken):
        apart = (np.abs(centres[:, None, :] - placed.taken[None, :, :2]) >= half + placed.taken[None, :, 2:]).any(
            axis=2
        )
        fits &= apart.all(axis=1)
    found = np.flatnonzero(fits)
    found = found[~placed.clear.near(centres[found], half)]
    if len(placed.leaders) and len(found):
        boxes = np.column_stack([centres[found], np.broadcast_to(half, (len(found), 2))])
        found = found[~_through(placed.leaders[:, :2], placed.leaders[:, 2:], boxes).any(axis=0)]
    return found


def _beside(
    spots: np.ndarray, half: np.ndarray, unit: float, placed: _Placed, low: np.ndarray, high: np.ndarray
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """A leader line's end among `spots` (sorted nearest the topic's middle first) and its box's
    centre beside it, or (None, None). Tried in turn, at the near gaps then the far: the
    `LEADER_TIPS` nearest spots that no box covers, as many more spread over the rest of them, then
    the nearest spot.

    The line crosses none of the leader lines drawn before and passes through no box taken but
    those over its own end, which it must leave."""
    taken, leaders = placed.taken, placed.leaders
    uncovered = spots[~_covered(spots, taken).any(axis=1)]
    farther = uncovered[LEADER_TIPS :: max(1, (len(uncovered) - LEADER_TIPS) // LEADER_TIPS)]
    tried = [
        (tips, offsets)
        for offsets in _leader_offsets(half, unit)
        for tips in (uncovered[:LEADER_TIPS], farther[:LEADER_TIPS], spots[:1])
    ]
    for tips, offsets in tried:
        # Each tip's box positions at once, in the order tried: tip by tip, `_leader_offsets` within;
        # the lines checked only for the boxes that fit.
        ends = np.repeat(tips, len(offsets), axis=0)
        centres = ends + np.tile(offsets, (len(tips), 1))
        free = _free(centres, half, placed, low, high)
        if not len(free):
            continue
        ends, centres = ends[free], centres[free]
        clear = ~(_through(ends, centres, taken) & ~_covered(ends, taken)).any(axis=1)
        if len(leaders):
            clear &= ~_crossing(ends, centres, leaders[:, :2], leaders[:, 2:]).any(axis=1)
        if clear.any():
            first = int(np.argmax(clear))
            return ends[first], centres[first]
    return None, None


def _covered(points: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """Whether each of `points` (n, 2) lies inside each of `boxes` (m, 4: centre, half sizes), (n, m)."""
    return (np.abs(points[:, None, :] - boxes[None, :, :2]) < boxes[None, :, 2:]).all(axis=2)


def _through(starts: np.ndarray, ends: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """Whether each segment `starts`-`ends` (n, 2 each; a point when they are equal) passes through
    the inside of each of `boxes` (m, 4: centre, half sizes), (n, m): the part of the segment
    within the box's slab on each axis (Liang-Barsky) is not empty."""
    low, high = boxes[None, :, :2] - boxes[None, :, 2:], boxes[None, :, :2] + boxes[None, :, 2:]
    start, step = starts[:, None, :], (ends - starts)[:, None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        t_low, t_high = (low - start) / step, (high - start) / step
    moving = step != 0
    enter = np.where(moving, np.minimum(t_low, t_high), np.where((start > low) & (start < high), -np.inf, np.inf))
    leave = np.where(moving, np.maximum(t_low, t_high), np.where((start > low) & (start < high), np.inf, -np.inf))
    first, last = np.maximum(enter.max(axis=2), 0.0), np.minimum(leave.min(axis=2), 1.0)
    return first < last


def _crossing(starts: np.ndarray, ends: np.ndarray, other_starts: np.ndarray, other_ends: np.ndarray) -> np.ndarray:
    """Whether each segment `starts`-`ends` (n, 2 each) properly crosses each segment
    `other_starts`-`other_ends` (m, 2 each), (n, m)."""

    def side(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
        return np.sign(
            (b[..., 0] - a[..., 0]) * (c[..., 1] - a[..., 1]) - (b[..., 1] - a[..., 1]) * (c[..., 0] - a[..., 0])
        )

    a, b = starts[:, None, :], ends[:, None, :]
    c, d = other_starts[None, :, :], other_ends[None, :, :]
    return (side(a, b, c) * side(a, b, d) < 0) & (side(c, d, a) * side(c, d, b) < 0)


def _leader_offsets(half: np.ndarray, unit: float) -> list[np.ndarray]:
    """Box centres around a leader line's end, in map units, near then far (`LEADER_GAPS`): above,
    below, beside, then the corners, each at a gap's px from the box's nearer edge."""
    directions = np.array([(0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, 1), (1, -1), (-1, -1)], dtype=np.float64)
    return [np.vstack([directions * (half + gap / unit) for gap in gaps]) for gaps in LEADER_GAPS]


def label_annotation(label: PlacedLabel, font_size: int, level: str, opacity: float = 1.0) -> dict:
    """A Plotly annotation of `label` named `level`, its text escaped; with a leader line when it has a tip."""
    note = {
        "x": label.x,
        "y": label.y,
        "text": f"<b>{html_literal(label.text)}</b>",
        "name": level,
        "opacity": opacity,
        "showarrow": False,
        "font": {"size": font_size, "color": "#111"},
        "bgcolor": "rgba(255,255,255,0.75)",
        "bordercolor": "#888",
        "borderwidth": 1,
        "borderpad": _BORDER_PAD,
    }
    if label.tip is not None:
        # The arrow's head on the region, its tail (where the box is centred) in map units too, so
        # the box keeps its place on the map as the reader zooms.
        note.update(
            x=label.tip[0],
            y=label.tip[1],
            ax=label.x,
            ay=label.y,
            axref="x",
            ayref="y",
            showarrow=True,
            arrowhead=0,
            arrowwidth=1.5,
            arrowcolor="#555",
            standoff=0,
        )
    return note


def label_annotations(
    papers: pd.DataFrame,
    context: pd.DataFrame,
    labels: str,
    x_range: Sequence[float],
    y_range: Sequence[float],
    unit: float,
    regions: Sequence[Region] = (),
    avoid: Sequence[tuple[float, float]] = (),
    marks: Mapping[str, str] | None = None,
    whole: tuple[list[float], list[float]] | None = None,
) -> list[dict]:
    """The map's topic labels as Plotly annotations, each named for its level (`ZOOM_LEVELS`, `ZOOM_REVEALED`).

    The `labels` level's are placed on their topics (`place_labels`; `regions` are the coarse
    topics' of the whole map) at `unit` px per map unit. Under coarse labels, every fine topic in
    view gets one too, transparent: the zoom script shows those of them in view, apart from each
    other, once the reader has zoomed in. When the view itself is zoomed in that far (a search's or
    a filter's papers in part of the map; zoomed in on the map's `whole` ranges, by default
    `map_ranges(context)`), the script shows them from the start, so they are placed
    as the level shown is, off the papers to keep clear of; otherwise each sits on its paper nearest
    its papers' median. The `labels` level's texts end with their `marks` (" (new)").
    """
    font = LABEL_FONT[labels]
    spots, on_region = topic_spots(papers, labels, regions if labels == "topic_label" else ())
    positions = topic_positions(papers, context, labels)
    # Fine topics have no regions: chosen as the level shown, their labels sit on their papers, as a
    # coarse label on its region does, or are left out, so a map of some 60 labels is no thicket of
    # leader lines (zooming in shows those left out); a coarse topic without a region points to its papers.
    coarse = labels == "topic_label"
    placed = place_labels(
        positions, spots, unit, x_range, y_range, font, avoid, on_region if coarse else None, beside=coarse, marks=marks
    )
    notes = [label_annotation(label, font, ZOOM_LEVELS[labels]) for label in placed]
    if coarse and "topic_fine_label" in papers:
        fine_font = LABEL_FONT["topic_fine_label"]
        fine = topic_positions(papers, context, "topic_fine_label")
        own, _ = topic_spots(papers, "topic_fine_label")
        if _zoom(map_ranges(context) if whole is None else whole, x_range, y_range) >= FINE_ZOOM:
            revealed = place_labels(fine, own, unit, x_range, y_range, fine_font, avoid, beside=bool(len(avoid)))
        else:
            revealed = [_on_middle_paper(str(label), own[str(label)], row) for label, row in _largest_first(fine)]
        notes += [label_annotation(label, fine_font, ZOOM_REVEALED, opacity=0.0) for label in revealed]
    return notes


def _zoom(whole: tuple[list[float], list[float]], x_range: Sequence[float], y_range: Sequence[float]) -> float:
    """How many times the view `x_range`, `y_range` is zoomed in on the map's `whole` ranges, as the script measures it."""
    return max((high - low) / abs(view[1] - view[0]) for (low, high), view in zip(whole, (x_range, y_range)))


def _largest_first(positions: pd.DataFrame) -> Iterable[tuple[object, pd.Series]]:
    return positions.sort_values("papers", ascending=False, kind="stable").iterrows()


def _on_middle_paper(label: str, papers_at: np.ndarray, middle: pd.Series) -> PlacedLabel:
    """`label` on the one of its papers at `papers_at` (n, 2) nearest `middle` (its papers' median x, y)."""
    x, y = papers_at[np.argmin(np.hypot(papers_at[:, 0] - middle["x"], papers_at[:, 1] - middle["y"]))]
    return PlacedLabel(label, float(x), float(y))
