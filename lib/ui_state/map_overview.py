"""A large map's first look on the map page while this server reads its whole table
(`lib.views.map.overview`): its density and sample of points in seconds, where the page would stay
blank for most of a minute."""

from __future__ import annotations

import logging
from pathlib import Path

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from lib.map_folder import PAPERS_FILE, read_sidecar
from lib.views.map import detail
from lib.views.map.overview import overview_figure, read_overview

from .map_view import MAP_HEIGHT_HINT, MAP_WIDTH_HINT
from .source import is_read

logger = logging.getLogger(__name__)


def map_overview(map_dir: Path) -> DeltaGenerator | None:
    """When the map in `map_dir` (`source.built_map_dir`) is large (`lib.views.map.detail.is_large`)
    and not yet read by this server: its overview, drawn in a placeholder the caller empties once
    the page can draw the map itself. Else (or when the overview cannot be read: the whole read
    then says why) None."""
    out_dir = str(map_dir)
    if is_read(out_dir):  # most reruns: read already, no sidecar to open
        return None
    try:
        count = int(read_sidecar(out_dir)["rows"])
        if count <= detail.LARGE_MAP:
            return None
        overview = read_overview(Path(out_dir) / PAPERS_FILE)
    except (OSError, ValueError, KeyError) as error:
        logger.warning("No overview of the map in %s (%s); reading it whole", out_dir, error)
        return None
    place = st.empty()
    with place.container():
        st.subheader(f"Topic map: {count:,} papers")
        st.caption(
            f"Reading all {count:,} papers for search, filters and each paper's details. Until then the map "
            f"shows {len(overview.sample):,} of them over the density of all."
        )
        figure = overview_figure(overview, height=MAP_HEIGHT_HINT, width_hint=MAP_WIDTH_HINT)
        st.plotly_chart(figure, config={"scrollZoom": False, "displaylogo": False})
    return place
