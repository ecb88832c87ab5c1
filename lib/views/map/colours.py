"""The map's colours: a hue per group (an area, a topic), a family of shades of it for its
subgroups (subfields, fine topics), told apart by lightness, hue and saturation. Pure; no Streamlit.

Differences are measured in CIELAB (CIE76 ΔE, `colour_distances`): about 2.3 is the least a
viewer notices side by side; a family of up to 9 shades keeps `FAMILY_MIN_DIFFERENCE` or more.
"""

from __future__ import annotations

import colorsys
from collections.abc import Sequence

import numpy as np
import pandas as pd
from plotly.colors import qualitative

from lib.stages.subfields import UNASSIGNED
from lib.views.filters import value_counts

# Saturated, distinct colours that survive a projector (pale ones vanish on white). Past the
# palette's size the smallest groups share one grey "Other", drawn underneath the rest.
PALETTE = [c for c in qualitative.D3 if c != "#7F7F7F"] + ["#B68100", "#511CFB", "#00A08B", "#620042", "#6C7C32"]
OTHER = "Other"
NEUTRAL = "#A0A0A0"  # Other, Unassigned, (none): groups that say nothing
NONE = "(none)"
# Two-level colourings: the column whose values are shades of their parent's hue.
PARENTS = {"subfield": "area", "topic_fine_label": "topic_label"}
# A family's shades: the parent's hue turned by up to 16 degrees, HLS lightness from dark to as
# pale as a projector still shows, the parent's saturation or 60% of it.
FAMILY_HUES = (0.0, -8.0, 8.0, -16.0, 16.0)
FAMILY_LIGHTNESS = tuple(np.linspace(0.2, 0.7, 11))
FAMILY_SATURATION = (1.0, 0.6)
MAX_LAB_LIGHTNESS = 80.0  # a paler shade (a bright yellow: 97) hardly shows on the map's white
# The least CIE76 difference between any two of a base and a family of up to 9 shades (a test
# holds the first 15 bases to it; the ICML 2025 areas have at most 9 subfields).
FAMILY_MIN_DIFFERENCE = 12.0


def category_colours(papers: pd.DataFrame, color_by: str) -> dict[str, str]:
    """Value of `color_by` -> colour, in legend order, from the whole map so filtering never repaints.

    Subfields take shades of their area's hue (`family`), and fine topics their coarse topic's, so
    the map reads by area (or topic) from the back of the room and by subfield (or fine topic) up
    close; every value has a colour, as does every topic and area. Other columns take the palette by
    count; the values past it, and `Unassigned` or missing ones, are grey (`Other`).
    """
    if color_by in PARENTS:
        # On the columns alone: slicing the whole table per parent cost a tenth of a second a run.
        groups, parents = category_values(papers, color_by), category_values(papers, PARENTS[color_by])
        colours: dict[str, str] = {}
        tops = [a for a in _ranked(parents) if a not in (NONE, UNASSIGNED)]
        children_of = {
            top: [s for s in _ranked(groups[parents == top]) if s not in (top, NONE, UNASSIGNED)] for top in tops
        }
        elsewhere = {child for children in children_of.values() for child in children}
        bases = _bases(len(tops))
        for top, base in zip(tops, bases):
            if top not in elsewhere:  # a fine topic of another topic may bear this topic's name
                colours[top] = base  # papers filed under the parent itself
            colours.update(zip(children_of[top], family(base, len(children_of[top]), bases)))
        return {**colours, NONE: NEUTRAL, UNASSIGNED: NEUTRAL}
    values = [v for v in _ranked(category_values(papers, color_by)) if v not in (NONE, UNASSIGNED)]
    if color_by in PARENTS.values():  # every topic (area) by its name, in the base its fine topics' shades take
        return {**dict(zip(values, _bases(len(values)))), NONE: NEUTRAL, UNASSIGNED: NEUTRAL}
    colours = dict(zip(values, PALETTE))
    return {**colours, **{v: NEUTRAL for v in values[len(PALETTE) :]}, NONE: NEUTRAL, UNASSIGNED: NEUTRAL}


def category_values(papers: pd.DataFrame, color_by: str) -> pd.Series:
    """The `color_by` column as the legend's values: text, a missing one `NONE`."""
    return papers[color_by].astype(str).replace("", NONE)


def family(base: str, n: int, kept_apart: Sequence[str] = ()) -> list[str]:
    """`n` shades of `base`'s hue (`FAMILY_HUES`, `FAMILY_LIGHTNESS`, `FAMILY_SATURATION`), each in
    turn the one farthest in CIELAB from `base`, from `kept_apart` (the other groups' colours) and
    from the shades taken before it; none paler than `MAX_LAB_LIGHTNESS`."""
    hue, _, saturation = _hls(base)
    shades = sorted(
        {
            _rgb_hex(colorsys.hls_to_rgb((hue + turn / 360) % 1.0, lightness, saturation * share))
            for turn in FAMILY_HUES
            for lightness in FAMILY_LIGHTNESS
            for share in FAMILY_SATURATION
        }
    )
    shades = [shade for shade, lab in zip(shades, to_lab(shades)) if lab[0] <= MAX_LAB_LIGHTNESS]
    lab = to_lab(shades)
    nearest = colour_distances(shades, [base, *kept_apart]).min(axis=1)
    taken = []
    for _ in range(n):
        k = int(np.argmax(nearest))  # the first of equals: the same shades on every machine
        taken.append(shades[k])
        nearest = np.minimum(nearest, np.linalg.norm(lab - lab[k], axis=1))
    return taken


def to_lab(colours: Sequence[str]) -> np.ndarray:
    """CIELAB (D65) coordinates, (n, 3), of "#RRGGBB" sRGB `colours`."""
    rgb = np.array([[int(c[i : i + 2], 16) / 255 for i in (1, 3, 5)] for c in colours], dtype=np.float64).reshape(-1, 3)
    linear = np.where(rgb > 0.04045, ((rgb + 0.055) / 1.055) ** 2.4, rgb / 12.92)
    to_xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    xyz = linear @ to_xyz.T / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 216 / 24389, np.cbrt(xyz), (24389 / 27 * xyz + 16) / 116)
    return np.column_stack([116 * f[:, 1] - 16, 500 * (f[:, 0] - f[:, 1]), 200 * (f[:, 1] - f[:, 2])])


def colour_distances(colours: Sequence[str], others: Sequence[str]) -> np.ndarray:
    """CIE76 ΔE between each of `colours` (rows) and each of `others` (columns)."""
    return np.linalg.norm(to_lab(colours)[:, None, :] - to_lab(others)[None, :, :], axis=2)


def _ranked(values: pd.Series) -> list[str]:
    """The distinct `values`, most common first, ties alphabetical (`filters.value_counts`' order)."""
    return list(value_counts(values.to_frame("value"), "value"))


def _hls(colour: str) -> tuple[float, float, float]:
    return colorsys.rgb_to_hls(*(int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)))


def _bases(n: int) -> list[str]:
    """`n` distinct base colours: the palette, then, one at a time, the hue (of 36, at the palette's
    depth) farthest in RGB from every colour taken so far, so the 15th topic is no twin of the 5th."""
    bases = list(PALETTE)
    candidates = [_rgb_hex(colorsys.hls_to_rgb(k / 36, 0.42, 0.7)) for k in range(36)]
    while len(bases) < n:
        taken = np.array([_rgb(c) for c in bases])
        bases.append(max(candidates, key=lambda c: np.abs(taken - _rgb(c)).sum(axis=1).min()))
    return bases[:n]


def _rgb(colour: str) -> np.ndarray:
    return np.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)], dtype=np.int64)


def _rgb_hex(rgb: tuple[float, float, float]) -> str:
    return "#" + "".join(f"{round(c * 255):02X}" for c in rgb)
