// The last few maps' points by key, the most recently asked for last: a large map's points that stay
// the same at every view outlive the parts its views add.
const pointsEntry = (key) => {
    const registry = window.__papermapPoints = window.__papermapPoints || new Map();
    if (registry.has(key)) {
        const entry = registry.get(key);
        registry.delete(key);
        registry.set(key, entry);
    } else {
        let resolve, reject;
        const promise = new Promise((done, fail) => { resolve = done; reject = fail; });
        registry.set(key, { promise, resolve, reject, decoding: false });
        while (registry.size > 3) registry.delete(registry.keys().next().value);
    }
    return registry.get(key);
};
// The format of lib/views/map/points.py, read with its names (PAPERMAP_POINTS: its LAYOUT).
const decodePoints = async (bytes) => {
    const { KEY_CHARS, COORDINATES, TEXTS } = PAPERMAP_POINTS;
    const stream = new Blob([bytes.subarray(KEY_CHARS)]).stream().pipeThrough(new DecompressionStream("gzip"));
    const body = await new Response(stream).arrayBuffer();
    const n = new DataView(body).getUint32(0, true);
    const points = { n };
    let offset = 4;
    for (const name of COORDINATES) { points[name] = new Float32Array(body, offset, n); offset += 4 * n; }
    const text = JSON.parse(new TextDecoder().decode(new Uint8Array(body, offset)));
    for (const name of Object.keys(TEXTS)) points[name] = text[name];
    return points;
};
// Parts of points as one, their rows in turn.
const joinedPoints = (parts) => {
    if (parts.length === 1) return parts[0];
    const points = { n: parts.reduce((total, part) => total + part.n, 0) };
    for (const name of PAPERMAP_POINTS.COORDINATES) {
        points[name] = new Float32Array(points.n);
        let offset = 0;
        for (const part of parts) { points[name].set(part[name], offset); offset += part.n; }
    }
    for (const name of Object.keys(PAPERMAP_POINTS.TEXTS)) points[name] = parts.flatMap((part) => part[name]);
    return points;
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
        for (const name of PAPERMAP_POINTS.COORDINATES) trace[name] = Float32Array.from(rows, (row) => points[name][row]);
        if (trace.hovertemplate) {
            for (const [name, column] of Object.entries(PAPERMAP_POINTS.TEXTS)) trace[column] = rows.map((row) => points[name][row]);
        }
        const runs = meta[PAPERMAP_POINTS.RUNS];
        if (runs) trace.marker.color = runs.flatMap(([colour, count]) => Array(count).fill(colour));
        delete trace.meta;
    }
    return figure;
};
