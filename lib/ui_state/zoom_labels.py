"""Labels by zoom in the dashboard: mounts `lib.views.zoom_labels`' script on the page's maps."""

from __future__ import annotations

import streamlit as st

from lib.views.zoom_labels import ZOOM_LABELS_JS

# Watches the page for map charts (Streamlit may draw a chart's div anew on a rerun) and runs the
# zoom script once on each; a chart's own marker keeps a second mount from running it twice.
_COMPONENT_JS = (
    ZOOM_LABELS_JS
    + """
export default function () {
    const mine = new Set();
    const attach = () => {
        for (const gd of document.querySelectorAll(".js-plotly-plot")) {
            if (!gd.__papermapZoomStop && gd.layout) {
                gd.__papermapZoomStop = papermapZoomLabels(gd);
                mine.add(gd);
            }
        }
        for (const gd of mine) {
            if (!gd.isConnected) { gd.__papermapZoomStop(); delete gd.__papermapZoomStop; mine.delete(gd); }
        }
    };
    attach();
    const timer = setInterval(attach, 400);
    return () => {
        clearInterval(timer);
        for (const gd of mine) { gd.__papermapZoomStop(); delete gd.__papermapZoomStop; }
    };
}
"""
)
_zoom_labels = st.components.v2.component("papermap_zoom_labels", js=_COMPONENT_JS)


def zoom_labels() -> None:
    """Let the maps on this page show their fine topic labels as the reader zooms in (see
    `lib.views.zoom_labels`). Call it once per run of the part of the page that draws them."""
    _zoom_labels(key="zoom-labels")
