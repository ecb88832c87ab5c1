"""Presentation mode: the presented step (this session's, mirrored in the URL), the arrow keys that
move it, the slide's two-layer map and the projector-sized style."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import plotly.graph_objects as go
import streamlit as st

from lib.views.map.detail import is_large
from lib.views.slide_map import RingPlace, slide_backdrop

from .map_view import cached_map_hover
from .source import read_map

STEP_KEY = "step"  # the presented paper, 1-based, in the URL as ?step=
SLIDE_MAP_KEY = "presented-map"  # the container of the slide's map and the ring drawn over it
SLIDE_RING_KEY = "slide-ring"  # the ring's box, laid over the map's chart
SLIDE_MAP_HEIGHT = 400  # pixels the map's labels are spaced for: its height in a 1280x720 window
SLIDE_MAP_WIDTH = 640
_STEP_STATE = "present-step"  # (list name, step) of this session's presentation
_KEYS_STATE = "present-keys-seen"  # the step keys' count the last run applied

# Static CSS, no data in it. No sidebar (filters do not apply to a talk); the slide fills the window
# and no more: the header row, the title and authors in large type, then the text beside the map,
# which is as tall as the window leaves under a title of three lines and authors of two (min. 300 px):
# the same height at every step, as a resized map is drawn again, WebGL canvas and all. A long
# abstract scrolls in its own column.
_PRESENTATION_CSS = """<style>
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], [data-testid="stExpandSidebarButton"] { display: none; }
.block-container { padding-top: 1rem; padding-bottom: 1rem;
    --title-size: clamp(2rem, 3vw, 3.4rem); --authors-size: clamp(1.35rem, 1.9vw, 2.1rem); }
[data-testid="stMarkdownContainer"] p { font-size: 1.15rem; }
.st-key-slide-text p, .st-key-slide-text li { font-size: clamp(1.3rem, 1.6vw, 1.8rem); line-height: 1.45; }
[data-testid="stWidgetLabel"] p { font-size: 0.9rem; }
h1 { font-size: var(--title-size) !important; line-height: 1.15 !important; padding: 0.25rem 0 0 0 !important; }
.st-key-slide-authors p { font-size: var(--authors-size) !important; line-height: 1.3 !important; color: inherit; }
[data-testid="stLayoutWrapper"]:has(> .st-key-slide-body) { flex: none; min-height: 300px;
    height: calc(100vh - 8.5rem - 3 * 1.15 * var(--title-size) - 2 * 1.3 * var(--authors-size)); }
.st-key-slide-body, .st-key-slide-body > [data-testid="stLayoutWrapper"], .st-key-slide-body [data-testid="stHorizontalBlock"],
.st-key-slide-body [data-testid="stColumn"], .st-key-slide-body [data-testid="stColumn"] > [data-testid="stVerticalBlock"],
[data-testid="stLayoutWrapper"]:has(> .st-key-presented-map), [data-testid="stLayoutWrapper"]:has(> .st-key-slide-text) { height: 100%; }
.st-key-slide-text { height: 100%; overflow-y: auto; }
.st-key-presented-map { position: relative; height: 100%; }
[data-testid="stLayoutWrapper"]:has(> .st-key-slide-ring), .st-key-slide-ring, .st-key-slide-ring > div {
    position: absolute; inset: 0; pointer-events: none; }
.slide-ring { position: absolute; box-sizing: border-box; width: 38px; height: 38px; margin: -19px 0 0 -19px; border-radius: 50%;
              background: #FFD700; border: 4px solid #111; box-shadow: 0 0 0 3px #fff; }
</style>"""

# Counts the presenter's arrow keys (and a clicker's Page Up / Page Down) in the browser and sends the
# running total: a value, not a click, so presses made while a step is still on its way add up
# instead of merging into one. Keys typed into a field or a select box are theirs.
_step_keys = st.components.v2.component(
    "papermap_step_keys", js=(Path(__file__).parent / "js" / "step_keys.js").read_text(encoding="utf-8")
)


def presentation_style() -> None:
    """Large fonts, no sidebar and a slide that fits the window, for presenting to a room."""
    st.html(_PRESENTATION_CSS)


def new_presses(pressed: Mapping[str, Any] | None, seen: Mapping[str, Any] | None) -> int:
    """Net steps pressed since `seen`: both are the step keys' `{"epoch": ..., "net": n}` (or None).

    `net` counts from 0 in each page load of the keys (`epoch`); a new one counts from nothing."""
    if not pressed:
        return 0
    before = int(seen["net"]) if seen and seen.get("epoch") == pressed.get("epoch") else 0
    return int(pressed["net"]) - before


def step_keys() -> int:
    """Mount the presenter's keys (Right / Page Down: next, Left / Page Up: previous) for the
    whole page; return the net steps pressed since the last run. Call it once per run, inside the
    fragment it should rerun."""
    pressed = _step_keys(key="present-keys", default={"presses": None}, on_presses_change=lambda: None).presses
    moved = new_presses(pressed, st.session_state.get(_KEYS_STATE))
    st.session_state[_KEYS_STATE] = pressed
    return moved


def _url_step() -> int:
    try:
        return int(st.query_params.get(STEP_KEY, "1"))
    except ValueError:
        return 1


def presented_step(name: str, count: int, moved: int = 0) -> int:
    """The step (1..`count`) of list `name` to show, `moved` on from this session's; written to the URL.

    The session keeps the step, not the URL: a run may start from a URL the browser has not yet
    updated. The URL's ?step= starts a presentation (a shared link, a reload, another list).
    """
    held = st.session_state.get(_STEP_STATE)
    step = held[1] if held and held[0] == name else _url_step()
    step = max(1, min(step + moved, count))
    st.session_state[_STEP_STATE] = (name, step)
    st.query_params[STEP_KEY] = str(step)
    return step


def move_step(by: int) -> None:
    """Callback for the Previous/Next buttons: `by` steps on from the step shown now, when it runs
    (a click that arrives during a step moves on from that step, not back to it)."""
    if held := st.session_state.get(_STEP_STATE):
        st.session_state[_STEP_STATE] = (held[0], held[1] + by)


def go_to_step(step: int = 1) -> None:
    """Callback for a change of list: show `step` of it on the next run."""
    st.session_state.pop(_STEP_STATE, None)
    st.query_params[STEP_KEY] = str(step)


def slide_ring(place: RingPlace | None) -> None:
    """The presented paper's ring over the slide's map, at `place` (`lib.views.slide_map.ring_place`);
    call it in the map's container, after the chart. Only numbers go into the markup."""
    with st.container(key=SLIDE_RING_KEY):
        if place is not None:
            st.html(f'<div class="slide-ring" style="{place.css()}"></div>')


# A resource, not data: st.cache_data would unpickle (and so re-validate) the whole figure at each
# step; it is only read (st.plotly_chart serialises a copy), never changed.
@st.cache_resource(show_spinner=False, max_entries=4)
def slide_map(map_dir: str) -> go.Figure:
    """`lib.views.slide_map.slide_backdrop` of the whole map in `map_dir`, built once per map (a large
    map's hover for its drawn sample only)."""
    papers = read_map(map_dir)[0]
    hover = None if is_large(papers) else cached_map_hover(map_dir, clickable=False)
    return slide_backdrop(papers, SLIDE_MAP_HEIGHT, SLIDE_MAP_WIDTH, hover=hover)
