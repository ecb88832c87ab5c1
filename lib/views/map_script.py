"""The map's script in the browser: labels by zoom, and the open paper's ring, for a `map_figure`
in the dashboard (the map page's chart, `lib.ui_state.map_chart`) and in the exported HTML map.

Plotly has no zoom-dependent text, and Streamlit sends the server no zoom events; a rerun per zoom
would also redraw the whole map. So the figure carries every label (the fine ones transparent,
`map_figure.label_annotations`) and this script shows the ones the view calls for after each
redraw. The open paper's ring is drawn by the script too, over the chart: opening a paper then
leaves the figure as it was, and Streamlit neither resends nor redraws a 1.4 MB map for a click.
The script only sets the opacity of labels Plotly drew and places one empty ring: no text from the
data passes through it, so nothing in a label can become markup.
"""

from __future__ import annotations

import json

from lib.views.map_figure import FULL_RANGE_META, ZOOM_LEVELS, ZOOM_REVEALED

# Zoomed in this many times (the whole map's width, or height, over the view's), the fine labels
# take over: about where a coarse region fills the view and its fine topics have room.
FINE_ZOOM = 1.8
RING_PX = 20  # the open paper's ring: a gold disc ringed in black, larger than any point

# `papermapMap(gd, ringAt)` watches one Plotly graph div; `ringAt()` gives the open paper's map
# position [x, y] or null. It returns {refresh, stop}. Labels named "coarse" show at the full view;
# those named "zoom" show once zoomed past FINE_ZOOM, when they lie wholly inside the plot area and
# overlap no label shown before them (they come largest topic first). Plotly redraws annotations on
# every zoom, pan and update, dropping any style set on them, so the choice is re-applied on each
# redraw of the layer that holds them; the ring follows the axes the same way.
_SETTINGS = {
    "FINE_ZOOM": FINE_ZOOM,
    "COARSE": ZOOM_LEVELS["topic_label"],
    "ZOOM": ZOOM_REVEALED,
    "META": FULL_RANGE_META,
    "RING": RING_PX,
}
MAP_SCRIPT_JS = (
    f"const PAPERMAP_MAP_SETTINGS = {json.dumps(_SETTINGS)};\n"
    + """
function papermapMap(gd, ringAt) {
    const { FINE_ZOOM, COARSE, ZOOM, META, RING } = PAPERMAP_MAP_SETTINGS;
    let frame = 0, watched = null;
    const schedule = () => { if (!frame) frame = requestAnimationFrame(apply); };
    const observer = new MutationObserver(schedule);
    const overlaps = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    const ring = document.createElement("div");
    ring.className = "papermap-ring";
    ring.style.cssText = `position: absolute; width: ${RING}px; height: ${RING}px; margin: -${RING / 2}px 0 0 -${RING / 2}px;
        box-sizing: border-box; border-radius: 50%; background: #FFD700; border: 3px solid #111;
        box-shadow: 0 0 0 2px #fff; pointer-events: none; z-index: 5; display: none;`;
    if (getComputedStyle(gd).position === "static") gd.style.position = "relative";
    gd.appendChild(ring);
    function placeRing(layout) {
        const at = ringAt();
        const x = at && layout.xaxis._offset + layout.xaxis.l2p(at[0]);
        const y = at && layout.yaxis._offset + layout.yaxis.l2p(at[1]);
        const inside = at && x >= layout.xaxis._offset && x <= layout.xaxis._offset + layout.xaxis._length
            && y >= layout.yaxis._offset && y <= layout.yaxis._offset + layout.yaxis._length;
        ring.style.display = inside ? "block" : "none";
        if (inside) { ring.style.left = `${x}px`; ring.style.top = `${y}px`; }
        if (ring.parentNode !== gd) gd.appendChild(ring);
    }
    function apply() {
        frame = 0;
        const layout = gd._fullLayout, full = gd.layout && gd.layout.meta && gd.layout.meta[META];
        if (!layout || !layout.xaxis || !layout.yaxis || !full) return;
        const layer = gd.querySelector(".infolayer");
        if (layer && layer !== watched) {
            observer.disconnect();
            observer.observe(layer, { childList: true, subtree: true });
            watched = layer;
        }
        placeRing(layout);
        const [x0, x1] = layout.xaxis.range, [y0, y1] = layout.yaxis.range;
        const zoomed = Math.max((full[1] - full[0]) / Math.abs(x1 - x0), (full[3] - full[2]) / Math.abs(y1 - y0)) >= FINE_ZOOM;
        const notes = gd.layout.annotations || [];
        const area = gd.querySelector(".nsewdrag");  // the plot area: a label cut by its edge is not shown
        const plot = area ? area.getBoundingClientRect() : gd.getBoundingClientRect();
        const shown = [];
        gd.setAttribute("data-label-level", zoomed ? "fine" : "coarse");
        for (const group of gd.querySelectorAll("g.annotation[data-index]")) {
            const note = notes[Number(group.getAttribute("data-index"))];
            if (!note) continue;
            if (note.name === COARSE) {
                group.style.opacity = zoomed ? "0" : "";
                continue;
            }
            if (note.name !== ZOOM) continue;
            let show = zoomed;
            if (show) {
                const box = group.getBoundingClientRect();
                show = box.width > 0 && box.left >= plot.left && box.right <= plot.right && box.top >= plot.top
                    && box.bottom <= plot.bottom && !shown.some((other) => overlaps(box, other));
                if (show) shown.push(box);
            }
            group.style.opacity = show ? "1" : "0";
        }
    }
    if (gd.on) {
        gd.on("plotly_afterplot", schedule);
        gd.on("plotly_relayout", schedule);
    }
    schedule();
    return {
        refresh: schedule,
        stop: () => {
            observer.disconnect();
            ring.remove();
            if (frame) cancelAnimationFrame(frame);
            if (gd.removeListener) {
                gd.removeListener("plotly_afterplot", schedule);
                gd.removeListener("plotly_relayout", schedule);
            }
        },
    };
}
"""
)

# For `go.Figure.to_html(post_script=...)`: Plotly puts the div's id in place of {plot_id}. An
# exported map rings its open paper in the figure itself (`map_figure`'s highlight), not here.
EXPORT_SCRIPT = MAP_SCRIPT_JS + "\npapermapMap(document.getElementById('{plot_id}'), () => null);\n"
