"""Labels by zoom: the script that swaps a `map_figure`'s coarse topic labels for its fine ones as
the reader zooms in, in the dashboard (`lib.ui_state.zoom_labels`) and in the exported HTML map.

Plotly has no zoom-dependent text, and Streamlit sends the server no zoom events; a rerun per zoom
would also redraw the whole map. So the figure carries every label (the fine ones transparent,
`map_figure.label_annotations`) and this script, in the browser, shows the ones the view calls for
after each redraw. It only changes the opacity of labels Plotly drew: no text from the data passes
through it, so nothing in a label can become markup.
"""

from __future__ import annotations

from lib.views.map_figure import FULL_RANGE_META, ZOOM_LEVELS, ZOOM_REVEALED

# Zoomed in this many times (the whole map's width, or height, over the view's), the fine labels
# take over: about where a coarse region fills the view and its fine topics have room.
FINE_ZOOM = 1.8

# `papermapZoomLabels(gd)` watches one Plotly graph div and returns a function that stops watching.
# Labels named "coarse" show at the full view; those named "zoom" show once zoomed past FINE_ZOOM,
# when they lie wholly inside the plot area and overlap no label shown before them (they come
# largest topic first). Plotly redraws annotations on every zoom, pan and update, dropping any style set
# on them, so the choice is re-applied on each redraw of the layer that holds them.
ZOOM_LABELS_JS = (
    """
function papermapZoomLabels(gd) {
    const FINE_ZOOM = %(fine_zoom)s, COARSE = "%(coarse)s", ZOOM = "%(zoom)s", META = "%(meta)s";
    let frame = 0, watched = null;
    const schedule = () => { if (!frame) frame = requestAnimationFrame(apply); };
    const observer = new MutationObserver(schedule);
    const overlaps = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
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
    return () => {
        observer.disconnect();
        if (frame) cancelAnimationFrame(frame);
        if (gd.removeListener) {
            gd.removeListener("plotly_afterplot", schedule);
            gd.removeListener("plotly_relayout", schedule);
        }
    };
}
"""
    % {
        "fine_zoom": FINE_ZOOM,
        "coarse": ZOOM_LEVELS["topic_label"],
        "zoom": ZOOM_REVEALED,
        "meta": FULL_RANGE_META,
    }
)

# For `go.Figure.to_html(post_script=...)`: Plotly puts the div's id in place of {plot_id}.
EXPORT_SCRIPT = ZOOM_LABELS_JS + "\npapermapZoomLabels(document.getElementById('{plot_id}'));\n"
