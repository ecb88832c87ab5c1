const ids = (points) => [...new Set((points || []).map((p) => p.customdata).filter((id) => id !== undefined && id !== null))];

// A map drawn in part draws the papers of the reader's view on the next run: the view is reported
// once a zoom or pan has settled or a figure moved it, and only when it changed (a selection
// relayouts too); the whole map's view, which the first run draws, is not reported at first.
const reportView = (host, state, setStateValue) => {
    if (!state.reportsView || !host._fullLayout) return;
    const { xaxis, yaxis } = host._fullLayout;
    const view = JSON.stringify({ x: xaxis.range, y: yaxis.range });
    const full = ((host.layout && host.layout.meta) || {})[PAPERMAP_MAP_SETTINGS.META] || [];
    if (view === (state.view || JSON.stringify({ x: full.slice(0, 2), y: full.slice(2) }))) return;
    state.view = view;
    setStateValue("view", JSON.parse(view));
};

export default function ({ data, parentElement, setStateValue, setTriggerValue }) {
    let host = parentElement.querySelector(".papermap-chart");
    if (!host) {
        host = document.createElement("div");
        host.className = "papermap-chart";
        parentElement.appendChild(host);
        host.__state = { revision: null, ring: null, script: null, config: null, drawing: Promise.resolve() };
    }
    const state = host.__state;
    state.ring = data.ring;
    state.reportsView = data.reportsView;
    state.selectionKey = data.selectionKey;
    const frame = host.closest(data.frame) || host;
    if (!host._fullLayout) host.textContent = "Loading the map…";
    // The rows of a figure run through its parts of points in turn.
    const points = Promise.all(data.points.map((key) => pointsEntry(key).promise)).then(joinedPoints);
    state.drawing = state.drawing.then(() => Promise.all([plotlyReady(data.plotly), points])).then(([Plotly, papers]) => {
        if (state.revision === data.revision) return;
        const figure = withPoints(JSON.parse(data.figure), papers);
        if (!host._fullLayout) host.textContent = "";
        // One config object for the plot's life: Plotly.react draws the plot anew when it changes. No
        // "Share chart" (an upload to Plotly's cloud), no zoom tip over the page's select boxes.
        state.config = state.config || Object.assign({ responsive: true, showSendToCloud: false, showTips: false }, data.config, {
            modeBarButtonsToAdd: [{
                name: PAPERMAP_CHART_SETTINGS.FULLSCREEN, title: PAPERMAP_CHART_SETTINGS.FULLSCREEN,
                icon: PAPERMAP_CHART_SETTINGS.ICON,
                click: () => document.fullscreenElement ? document.exitFullscreen() : frame.requestFullscreen(),
            }],
        });
        delete figure.layout.height;  // the chart fills its frame, whose height the page's style sets
        figure.layout.autosize = true;
        const first = state.revision === null;
        state.revision = data.revision;
        return Plotly.react(host, figure.data, figure.layout, state.config).then(() => {
            if (!first) return;
            state.script = papermapMap(host, () => state.ring);
            host.on("plotly_click", (event) => {
                const clicked = ids(event && event.points);
                if (clicked.length) setTriggerValue("click", clicked[0]);
            });
            host.on("plotly_selected", (event) => {
                const chosen = event && (event.range ? "box" : event.lassoPoints ? "lasso" : null);
                // A map drawn in part selects from every paper inside the box or lasso, on the server.
                const area = !state.reportsView ? {} : chosen === "box" ? { range: event.range } : { lasso: event.lassoPoints };
                const drawnOn = state.selectionKey || state.revision;  // what the selection holds for
                setStateValue("selection", chosen ? Object.assign({ revision: drawnOn, kind: chosen, ids: state.reportsView ? [] : ids(event.points) }, area) : null);
            });
            host.on("plotly_relayout", () => {
                clearTimeout(state.viewTimer);
                state.viewTimer = setTimeout(() => reportView(host, state, setStateValue), 400);
            });
            host.on("plotly_deselect", () => setStateValue("selection", null));
            const resize = () => host.isConnected ? Plotly.Plots.resize(host) : document.removeEventListener("fullscreenchange", resize);
            document.addEventListener("fullscreenchange", resize);
        });
    }).then(() => {
        if (state.script) state.script.refresh();
        reportView(host, state, setStateValue);  // a new figure may have moved the view (a filter's zoom)
    }).catch((error) => {
        // Before a first plot (plotly.js did not load) the reader sees why; after it, the plot stays.
        if (!host._fullLayout) host.textContent = String(error.message || error);
        console.error(error);
    });
}
