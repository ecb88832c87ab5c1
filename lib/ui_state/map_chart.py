"""The map page's chart: one Plotly plot that stays in the page and is updated in place.

`st.plotly_chart` keys its chart by the whole figure, so any change to it (a filter, a colouring,
a label level) replaces the chart and the browser draws it from nothing; `Plotly.react` on the plot
already drawn is several times faster. This component
keeps one plot per page and reacts it to each new figure, keeping the reader's zoom
(`layout.uirevision`). It loads the plotly.js that ships with the plotly package, served by
Streamlit from that package's folder (no network), runs `lib.views.map.script` on the plot (labels
by zoom, the open paper's ring), and sends back a click (the paper's id) and a box or lasso (the
ids inside it). Figure data reaches Plotly as JSON data only; Plotly draws text as SVG text, never
as HTML.

The map's papers (places, ids, hover: `lib.views.map.points`) go in an element of their own that is
the same on every run, so Streamlit sends it to a browser once (its message cache, keyed by the
element's hash) and the browser decodes it once; each figure names its points by row. A large map
drawn in part (`lib.ui_state.map_drawing`) sends a second element with the papers its view adds,
its rows following the first's.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pandas as pd
import plotly
import plotly.graph_objects as go
import streamlit as st
import streamlit.components.v1 as components_v1

from lib.views.map.detail import Area, in_lasso
from lib.views.map.points import LAYOUT as POINTS_LAYOUT
from lib.views.map.points import points_key
from lib.views.map.script import MAP_SCRIPT_JS

logger = logging.getLogger(__name__)

# Streamlit serves a declared component's folder at /component/<module>.<name>/: this one is the
# plotly package's own, whose plotly.min.js is the version the Python side writes figures for.
_PLOTLY_FOLDER = Path(plotly.__file__).parent / "package_data"
_PLOTLY_COMPONENT = "plotlyjs"
_POINTS_KEY_SUFFIX = "-papermap-points"  # the map's papers' element: the chart's key and this
FULLSCREEN = "Fullscreen"  # the mode bar button that shows only the map: the presenting view
# A square with open corners, Plotly's mode bar icon format (a 1000-unit box).
_FULLSCREEN_ICON = {
    "width": 1000,
    "height": 1000,
    "path": "M100 100h300v100h-200v200h-100zM600 100h300v300h-100v-200h-200zM100 600h100v200h200v100h-300z"
    "M800 600h100v300h-300v-100h200z",
}


def _script(name: str) -> str:
    """The JavaScript file `name` of this package's js/ folder."""
    return (Path(__file__).parent / "js" / name).read_text(encoding="utf-8")


# Loads plotly.js once per page: a promise of window.Plotly.
_PLOTLY_LOADER_JS = _script("plotly_loader.js")

# The map's papers by key, shared by the element that brings them and the chart that draws them: a
# promise each, settled once the papers are decoded (or could not be). The last few maps are kept.
_POINTS_JS = f"const PAPERMAP_POINTS = {json.dumps(POINTS_LAYOUT)};\n\n" + _script("points_registry.js")

# Streamlit calls the default function on every run that changes the component's data, without
# cleaning up in between, so the plot and its listeners are made once, on the first call, and each
# call after reacts the plot to its figure when the figure changed (its revision), and moves the ring.
_COMPONENT_JS = (
    MAP_SCRIPT_JS
    + _PLOTLY_LOADER_JS
    + _POINTS_JS
    + f"const PAPERMAP_CHART_SETTINGS = {json.dumps({'FULLSCREEN': FULLSCREEN, 'ICON': _FULLSCREEN_ICON})};\n\n"
    + _script("map_chart.js")
)
# Not isolated: plotly.js styles its mode bar and hover boxes from rules it adds to the document.
_map_chart = st.components.v2.component(
    "papermap_map_chart",
    js=_COMPONENT_JS,
    # The papers' element takes no room: shown, the layout's gap would push the map down. (On more than
    # one line: Streamlit takes a one-line string with "[" or "*" in it for a file's path.)
    css=".papermap-chart { width: 100%; height: 100%; }\n:fullscreen { background: #fff; }\n"
    f'.stElementContainer[class*="{_POINTS_KEY_SUFFIX}"] {{ display: none; }}\n',
    isolate_styles=False,
)
# Draws nothing: decodes the papers it is given (bytes) once per map, for the chart.
_map_points = st.components.v2.component(
    "papermap_map_points",
    js=_POINTS_JS + _script("map_points.js"),
)


def figure_revision(figure_json: str, points: str = "") -> str:
    """A short fingerprint of a figure's JSON and the key of the papers its rows name: the chart
    redraws only when it changes, and a box drawn on another figure (before a filter changed)
    selects nothing on this one."""
    return hashlib.blake2b((points + figure_json).encode(), digest_size=12).hexdigest()


def drawn_selection(state: object, revision: str, papers: pd.DataFrame | None = None) -> tuple[str, ...]:
    """The paper ids inside the box or lasso in `map_chart`'s `state` (its session state value),
    when it was drawn on the figure `revision`; () for none. Those of the points drawn, or with
    `papers` (a map drawn in part: its shown papers), those of `papers` inside the box or lasso
    itself, in their order."""
    drawn = state.get("selection") if isinstance(state, Mapping) else None
    if not isinstance(drawn, Mapping) or drawn.get("revision") != revision:
        return ()
    if papers is None:
        return tuple(str(paper_id) for paper_id in drawn.get("ids") or ())
    box, lasso = Area.of(drawn.get("range")), drawn.get("lasso")
    if box is not None:
        inside = box.holds(papers)
    elif isinstance(lasso, Mapping) and isinstance(lasso.get("x"), list) and isinstance(lasso.get("y"), list):
        try:
            inside = in_lasso(papers, lasso["x"], lasso["y"])
        except (TypeError, ValueError) as error:  # a browser's message: refused, said in the log
            logger.warning("a lasso selection was refused: %s", error)
            return ()
    else:
        return ()
    return tuple(papers["paper_id"][inside].astype(str))


def chart_view(state: object) -> Area | None:
    """The part of the map the reader's chart shows, as its `state` last reported it (a map drawn in
    part reports its view after each zoom or pan), or None before any."""
    return Area.of(state.get("view")) if isinstance(state, Mapping) else None


def clicked_paper(state: object) -> str | None:
    """The paper id a click on the map sent in `map_chart`'s `state`, or None."""
    clicked = state.get("click") if isinstance(state, Mapping) else None
    return str(clicked) if clicked else None


def _plotly_url() -> str:
    base = st.get_option("server.baseUrlPath").strip("/")
    component = components_v1.declare_component(_PLOTLY_COMPONENT, path=str(_PLOTLY_FOLDER))
    return f"{'/' + base if base else ''}/component/{component.name}/plotly.min.js"


def map_chart(
    figure: go.Figure,
    points: Sequence[bytes],
    key: str,
    frame: str,
    on_click: Callable[[str], None],
    ring: Sequence[float] | None = None,
    config: Mapping[str, object] | None = None,
    selectable: pd.DataFrame | None = None,
    selection_key: str = "",
) -> tuple[str, ...]:
    """Draw `figure` (a `map_figure(by_row=True)` of the papers in `points`, `map_points` in parts whose
    rows run on from one part to the next) as the page's map, updated in place on later runs (see
    the module's doc), filling the container `frame` (a CSS selector: the fullscreen button shows it
    alone), with the open paper at map position `ring` (x, y) ringed. A click on a paper calls
    `on_click(paper_id)` before the rerun, so the run that follows already shows it. Returns the
    ids inside the reader's box or lasso: of the papers drawn, or with `selectable` (a map drawn in
    part: every shown paper), of those; the chart then reports the reader's view after each zoom or
    pan (`chart_view`), for the next run to draw its papers. A box or lasso holds while the figure
    is the same, or with a `selection_key` while the key is."""
    for number, part in enumerate(points):
        _map_points(key=f"{key}{_POINTS_KEY_SUFFIX}-{number}", data=part, height=0)
    figure_json = figure.to_json()
    keys = [points_key(part) for part in points]
    revision = figure_revision(figure_json, "".join(keys))
    state = _map_chart(
        key=key,
        data={
            "figure": figure_json,
            "points": keys,
            "revision": revision,
            "ring": [float(ring[0]), float(ring[1])] if ring is not None else None,
            "config": dict(config or {}),
            "frame": frame,
            "plotly": _plotly_url(),
            "reportsView": selectable is not None,
            "selectionKey": selection_key,
        },
        height="stretch",
        on_click_change=lambda: _report_click(key, on_click),
        on_selection_change=lambda: None,  # a state only a callback names reaches the result
        on_view_change=lambda: None,
    )
    return drawn_selection(state, selection_key or revision, selectable)


def _report_click(key: str, on_click: Callable[[str], None]) -> None:
    clicked = clicked_paper(st.session_state.get(key))
    if clicked:
        on_click(clicked)
