"""The map's script in the dashboard: mounts `lib.views.map_script` (labels by zoom, the open
paper's ring) on the page's maps."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from lib.views.map_script import MAP_SCRIPT_JS

# Streamlit calls the default function again whenever its data changes (the open paper), without
# cleaning up in between, so it keeps one watch per page: a timer that finds map charts (Streamlit
# may draw a chart's div anew on a rerun) and runs the script once on each, and the ring's position
# for all of them.
_COMPONENT_JS = (
    MAP_SCRIPT_JS
    + """
let ringAt = null, timer = 0;
const watching = new Map();
function watch() {
    for (const gd of document.querySelectorAll(".js-plotly-plot")) {
        if (!watching.has(gd) && gd.layout) watching.set(gd, papermapMap(gd, () => ringAt));
    }
    for (const [gd, script] of watching) {
        if (!gd.isConnected) { script.stop(); watching.delete(gd); }
    }
}
export default function ({ data }) {
    ringAt = (data && data.ring) || null;
    watch();
    for (const script of watching.values()) script.refresh();
    if (!timer) timer = setInterval(watch, 400);
    return () => {
        clearInterval(timer);
        timer = 0;
        for (const script of watching.values()) script.stop();
        watching.clear();
    };
}
"""
)
_map_script = st.components.v2.component("papermap_map_script", js=_COMPONENT_JS)


def map_script(ring: Sequence[float] | None = None) -> None:
    """Let the maps on this page show their fine topic labels as the reader zooms in, and ring the
    map position `ring` (the open paper's x, y; None for none); see `lib.views.map_script`. Call it
    once per run of the part of the page that draws them."""
    _map_script(key="map-script", data={"ring": [float(ring[0]), float(ring[1])] if ring is not None else None})
