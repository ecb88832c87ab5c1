"""The floor for bench/app.py: the least a Streamlit page can do to show a PaperMap map.

`streamlit run bench/floor_app.py -- --papers PATH/papers.parquet` (or FLOOR_PAPERS=PATH). It reads
the built map's points and titles once (st.cache_data, as any sensible app would), offers one
subfield multiselect in the sidebar (so a filter-change rerun can be timed the same way as the
dashboard's) and draws one Plotly WebGL scatter with the titles on hover. Nothing else: no labels,
colours, legend, tables or facet counts. The multiselect shows `name (count)` like the dashboard's,
so the bench drives both the same way.
"""

import argparse
import html
import os
import sys

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

st.set_page_config(page_title="Floor", layout="wide")


def _papers_path() -> str:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--papers", default=os.environ.get("FLOOR_PAPERS"))
    path = parser.parse_known_args(sys.argv[1:])[0].papers
    if not path:
        st.error("Pass `-- --papers PATH/papers.parquet` or set FLOOR_PAPERS.")
        st.stop()
    return path


@st.cache_data(show_spinner=False)
def read(path: str) -> tuple[pd.DataFrame, dict[str, int]]:
    papers = pd.read_parquet(path, columns=["x", "y", "title", "subfield"])
    papers["title"] = [html.escape(t, quote=False) for t in papers["title"]]  # Plotly renders HTML in hover
    return papers, papers["subfield"].value_counts().to_dict()


papers, counts = read(_papers_path())
with st.sidebar:
    chosen = st.multiselect(
        "Subfield", list(counts), format_func=lambda v: f"{v} ({counts[v]})", placeholder="Any subfield"
    )
shown = papers[papers["subfield"].isin(chosen)] if chosen else papers
figure = go.Figure(
    go.Scattergl(
        x=shown["x"].to_numpy(),
        y=shown["y"].to_numpy(),
        mode="markers",
        name="papers",
        marker={"size": 5},
        hovertext=shown["title"].to_numpy(),
        hoverinfo="text",
    )
)
figure.update_layout(height=620, margin={"l": 0, "r": 0, "t": 30, "b": 0})
st.plotly_chart(figure)
