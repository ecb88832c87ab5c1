function papermapMap(gd, ringAt) {
    const { FINE_ZOOM, COARSE, ZOOM, META, AVOID, AVOID_PX, RING, MAX_GROWTH, GROWN_MAX_PX } = PAPERMAP_MAP_SETTINGS;
    let frame = 0, watched = null;
    const schedule = () => { if (!frame) frame = requestAnimationFrame(apply); };
    const observer = new MutationObserver(schedule);
    const overlaps = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    // The map positions of the papers in the reader's box or lasso: labels covering them are hidden, like AVOID's.
    let selected = [];
    const onSelected = (event) => {
        selected = ((event && event.points) || []).map((point) => [point.x, point.y]);
        schedule();
    };
    const onDeselect = () => { selected = []; schedule(); };
    const grown = new WeakMap();  // a points trace -> its size as drawn by the figure, and the growth applied
    const ring = document.createElement("div");
    ring.className = "papermap-ring";
    ring.style.cssText = `position: absolute; width: ${RING}px; height: ${RING}px; margin: -${RING / 2}px 0 0 -${RING / 2}px;
        box-sizing: border-box; border-radius: 50%; background: #FFD700; border: 3px solid #111;
        box-shadow: 0 0 0 2px #fff; pointer-events: none; z-index: 5; display: none;`;
    if (getComputedStyle(gd).position === "static") gd.style.position = "relative";
    gd.appendChild(ring);
    // The page positions of map points [x, y].
    const onPage = (layout, points) => {
        const origin = gd.getBoundingClientRect();
        const left = origin.left + layout.xaxis._offset, top = origin.top + layout.yaxis._offset;
        return points.map(([x, y]) => [left + layout.xaxis.l2p(x), top + layout.yaxis.l2p(y)]);
    };
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
    function growPoints(zoom) {
        const growth = Math.min(MAX_GROWTH, Math.max(1, Math.round(Math.sqrt(zoom) * 4) / 4));
        const traces = [], sizes = [];
        (gd.data || []).forEach((trace, index) => {
            const size = trace.marker && trace.marker.size;
            if (typeof size !== "number" || !String(trace.type || "scatter").startsWith("scatter")) return;
            if (!grown.has(trace)) grown.set(trace, { size, growth: 1 });
            const drawn = grown.get(trace);
            if (drawn.growth === growth) return;
            drawn.growth = growth;
            traces.push(index);
            sizes.push(Math.min(drawn.size * growth, Math.max(drawn.size, GROWN_MAX_PX)));
        });
        if (traces.length && window.Plotly) window.Plotly.restyle(gd, { "marker.size": sizes }, traces);
    }
    function apply() {
        frame = 0;
        const layout = gd._fullLayout, meta = (gd.layout && gd.layout.meta) || {}, full = meta[META];
        if (!layout || !layout.xaxis || !layout.yaxis || !full) return;
        const layer = gd.querySelector(".infolayer");
        if (layer && layer !== watched) {
            observer.disconnect();
            observer.observe(layer, { childList: true, subtree: true });
            watched = layer;
        }
        placeRing(layout);
        const [x0, x1] = layout.xaxis.range, [y0, y1] = layout.yaxis.range;
        const zoom = Math.max((full[1] - full[0]) / Math.abs(x1 - x0), (full[3] - full[2]) / Math.abs(y1 - y0));
        const zoomed = zoom >= FINE_ZOOM;
        const notes = gd.layout.annotations || [];
        const area = gd.querySelector(".nsewdrag");  // the plot area: a label cut by its edge is not shown
        const plot = area ? area.getBoundingClientRect() : gd.getBoundingClientRect();
        const avoided = onPage(layout, [...(meta[AVOID] || []), ...selected]);
        const covers = (box) => avoided.some(([x, y]) => x > box.left - AVOID_PX && x < box.right + AVOID_PX
            && y > box.top - AVOID_PX && y < box.bottom + AVOID_PX);
        const shown = [];
        gd.setAttribute("data-label-level", zoomed ? "fine" : "coarse");
        const groups = [...gd.querySelectorAll("g.annotation[data-index]")]
            .sort((a, b) => Number(a.getAttribute("data-index")) - Number(b.getAttribute("data-index")));
        for (const group of groups) {
            const note = notes[Number(group.getAttribute("data-index"))];
            if (!note || (note.name !== COARSE && note.name !== ZOOM)) continue;
            let show = note.name === COARSE ? !zoomed : zoomed;
            if (show) {
                // The label's box, not its leader line: a line may cross the plot's edge or another line.
                const box = (group.querySelector(".annotation-text-g") || group).getBoundingClientRect();
                show = box.width > 0 && box.left >= plot.left && box.right <= plot.right && box.top >= plot.top
                    && box.bottom <= plot.bottom && !shown.some((other) => overlaps(box, other)) && !covers(box);
                if (show) shown.push(box);
            }
            group.style.opacity = show ? "1" : "0";
        }
        growPoints(zoom);
    }
    if (gd.on) {
        gd.on("plotly_afterplot", schedule);
        gd.on("plotly_relayout", schedule);
        gd.on("plotly_selected", onSelected);
        gd.on("plotly_deselect", onDeselect);
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
                gd.removeListener("plotly_selected", onSelected);
                gd.removeListener("plotly_deselect", onDeselect);
            }
        },
    };
}
