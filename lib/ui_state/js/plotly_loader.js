const plotlyReady = (url) => {
    if (!window.__papermapPlotly) {
        window.__papermapPlotly = window.Plotly ? Promise.resolve(window.Plotly) : new Promise((resolve, reject) => {
            const script = document.createElement("script");
            script.src = url;
            script.onload = () => resolve(window.Plotly);
            script.onerror = () => { window.__papermapPlotly = null; reject(new Error("plotly.js did not load from " + url)); };
            document.head.appendChild(script);
        });
    }
    return window.__papermapPlotly;
};
