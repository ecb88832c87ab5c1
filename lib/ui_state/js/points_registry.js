const pointsEntry = (key) => {
    const registry = window.__papermapPoints = window.__papermapPoints || new Map();
    if (!registry.has(key)) {
        let resolve, reject;
        const promise = new Promise((done, fail) => { resolve = done; reject = fail; });
        registry.set(key, { promise, resolve, reject, decoding: false });
        while (registry.size > 3) registry.delete(registry.keys().next().value);
    }
    return registry.get(key);
};
const decodePoints = async (bytes) => {
    const stream = new Blob([bytes.subarray(PAPERMAP_POINTS.KEY_CHARS)]).stream().pipeThrough(new DecompressionStream("gzip"));
    const body = await new Response(stream).arrayBuffer();
    const n = new DataView(body).getUint32(0, true);
    const text = JSON.parse(new TextDecoder().decode(new Uint8Array(body, 4 + 8 * n)));
    return { n, x: new Float32Array(body, 4, n), y: new Float32Array(body, 4 + 4 * n, n), ...text };
};
// A figure's traces name their papers by row: give them their places, ids, titles and hover, and colours.
const withPoints = (figure, points) => {
    for (const trace of figure.data) {
        const meta = trace.meta || {};
        let rows = meta[PAPERMAP_POINTS.ROWS];
        if (meta[PAPERMAP_POINTS.MASK] !== undefined) {
            const bits = Uint8Array.from(atob(meta[PAPERMAP_POINTS.MASK]), (c) => c.charCodeAt(0));
            rows = [];
            for (let row = 0; row < points.n; row++) if (bits[row >> 3] & (1 << (row & 7))) rows.push(row);
        }
        if (!rows) continue;
        trace.x = Float32Array.from(rows, (row) => points.x[row]);
        trace.y = Float32Array.from(rows, (row) => points.y[row]);
        if (trace.hovertemplate) {
            trace.customdata = rows.map((row) => points.ids[row]);
            trace.text = rows.map((row) => points.titles[row]);
            trace.hovertext = rows.map((row) => points.details[row]);
        }
        const runs = meta[PAPERMAP_POINTS.RUNS];
        if (runs) trace.marker.color = runs.flatMap(([colour, count]) => Array(count).fill(colour));
        delete trace.meta;
    }
    return figure;
};
