"""The floor for bench/present_step.py: the least a Streamlit page can do to step through a reading list.

`streamlit run bench/present_floor_app.py -- --db PATH/lists.sqlite`. It reads the database's first
list once, then shows one paper's title (h1) and authors with Previous/Next buttons on the Left and
Right keys, the step kept in session state and moved relative to it. No dashboard, sidebar or map.
"""

import argparse
import sys
from pathlib import Path

import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from lib.store import reading_lists
from lib.views.markup import markdown_literal

st.set_page_config(page_title="Floor", layout="wide")


@st.cache_data(show_spinner=False)
def titles_and_authors(path: str) -> list[tuple[str, str]]:
    db = reading_lists.connect(path)
    try:
        return [(e.title, ", ".join(e.authors)) for e in reading_lists.entries(db, reading_lists.list_names(db)[0])]
    finally:
        db.close()


def move(by: int) -> None:
    st.session_state.step = max(0, min(st.session_state.step + by, len(papers) - 1))


parser = argparse.ArgumentParser(add_help=False)
parser.add_argument("--db", required=True)
papers = titles_and_authors(parser.parse_known_args(sys.argv[1:])[0].db)
st.session_state.setdefault("step", 0)
left, right = st.columns(2)
left.button("Previous", on_click=move, args=(-1,), shortcut="Left")
right.button("Next", on_click=move, args=(1,), shortcut="Right")
title, authors = papers[st.session_state.step]
st.title(markdown_literal(title), anchor=False)
st.markdown(markdown_literal(authors))
