"""Presentation mode: the presented step in the URL, and the projector-sized style."""

from __future__ import annotations

import streamlit as st

STEP_KEY = "step"  # the presented paper, 1-based, in the URL as ?step=
# Static CSS, no data in it: projector-sized text, and no sidebar (filters do not apply to a talk).
_PRESENTATION_CSS = """<style>
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], [data-testid="stExpandSidebarButton"] { display: none; }
.block-container { padding-top: 1.5rem; }
[data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li { font-size: 1.45rem; line-height: 1.45; }
[data-testid="stCaptionContainer"] p { font-size: 1.15rem; }
[data-testid="stWidgetLabel"] p { font-size: 0.9rem; }
h1 { font-size: 2.6rem !important; line-height: 1.2 !important; }
</style>"""


def presentation_style() -> None:
    """Large fonts and no sidebar, for presenting to a room."""
    st.html(_PRESENTATION_CSS)


def url_step(count: int) -> int:
    """The presentation's step from the URL (?step=), clamped to 1..`count`, and written back."""
    try:
        step = int(st.query_params.get(STEP_KEY, "1"))
    except ValueError:
        step = 1
    step = max(1, min(step, count))
    st.query_params[STEP_KEY] = str(step)
    return step


def go_to_step(step: int = 1) -> None:
    """Callback for the Previous/Next buttons (and a change of list): show `step` on the next run."""
    st.query_params[STEP_KEY] = str(step)
