export default function ({ data }) {
    const key = new TextDecoder().decode(data.subarray(0, PAPERMAP_POINTS.KEY_CHARS));
    const entry = pointsEntry(key);
    if (entry.decoding) return;
    entry.decoding = true;
    // A failure reaches the chart, which says so where the map would be.
    decodePoints(data).then(entry.resolve, (error) => entry.reject(new Error("the map's papers could not be read: " + error)));
}
