"""The map's script in the browser: labels and points by zoom, and the open paper's ring, for a `map_figure`
in the dashboard (the map page's chart, `lib.ui_state.map_chart`) and in the exported HTML map.

Plotly has no zoom-dependent text, and Streamlit sends the server no zoom events; a rerun per zoom
would also redraw the whole map. So the figure carries every label (the fine ones transparent,
`map_labels.label_annotations`) and this script shows the ones the view calls for after each
redraw. The open paper's ring is drawn by the script too, over the chart: opening a paper then
leaves the figure as it was, and Streamlit neither resends nor redraws a 1.4 MB map for a click.
The script only sets the opacity of labels Plotly drew and the points' size, and places one empty
ring: no text from the data passes through it, so nothing in a label can become markup.
"""

from __future__ import annotations

import json
from pathlib import Path

from lib.views.map.figure import AVOID_META, FULL_RANGE_META
from lib.views.map.labels import AVOID_PIXELS, FINE_ZOOM, ZOOM_LEVELS, ZOOM_REVEALED

RING_PX = 20  # the open paper's ring: a gold disc ringed in black, larger than any point
# Zoomed in k times, points grow by the root of k, in quarter steps (a redraw per step, not per
# frame), at most this many times and, unless drawn larger already, to at most `GROWN_MAX_PX`.
MAX_GROWTH = 2.5
GROWN_MAX_PX = 16

# `papermapMap(gd, ringAt)` watches one Plotly graph div; `ringAt()` gives the open paper's map
# position [x, y] or null. It returns {refresh, stop}. Labels named "coarse" show at the full view;
# those named "zoom" show once zoomed past FINE_ZOOM. Either shows only when its box lies wholly
# inside the plot area, overlaps no label shown before it (they come largest topic first) and
# covers none of the papers in the layout's meta AVOID or in the reader's box or lasso selection. Plotly redraws annotations on every zoom,
# pan and update, dropping any style set on them, so the choice is re-applied on each redraw of
# the layer that holds them; the ring follows the axes the same way, and the points' size the zoom.
_SETTINGS = {
    "FINE_ZOOM": FINE_ZOOM,
    "COARSE": ZOOM_LEVELS["topic_label"],
    "ZOOM": ZOOM_REVEALED,
    "META": FULL_RANGE_META,
    "AVOID": AVOID_META,
    "AVOID_PX": AVOID_PIXELS,
    "RING": RING_PX,
    "MAX_GROWTH": MAX_GROWTH,
    "GROWN_MAX_PX": GROWN_MAX_PX,
}
MAP_SCRIPT_JS = f"const PAPERMAP_MAP_SETTINGS = {json.dumps(_SETTINGS)};\n\n" + (
    Path(__file__).parent / "js" / "map_script.js"
).read_text(encoding="utf-8")
EXPORT_SCRIPT = MAP_SCRIPT_JS + "\npapermapMap(document.getElementById('{plot_id}'), () => null);\n"
