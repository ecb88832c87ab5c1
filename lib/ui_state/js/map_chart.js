const ids = (points) => [...new Set((points || []).map((p) => p.customdata).filter((id) => id !== undefined && id !== null))];

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
    const frame = host.closest(data.frame) || host;
    if (!host._fullLayout) host.textContent = "Loading the map…";
    const points = pointsEntry(data.points).promise;
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
                setStateValue("selection", chosen ? { revision: state.revision, kind: chosen, ids: ids(event.points) } : null);
            });
            host.on("plotly_deselect", () => setStateValue("selection", null));
            const resize = () => host.isConnected ? Plotly.Plots.resize(host) : document.removeEventListener("fullscreenchange", resize);
            document.addEventListener("fullscreenchange", resize);
        });
    }).then(() => state.script && state.script.refresh()).catch((error) => {
        // Before a first plot (plotly.js did not load) the reader sees why; after it, the plot stays.
        if (!host._fullLayout) host.textContent = String(error.message || error);
        console.error(error);
    });
}
