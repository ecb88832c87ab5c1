"""PaperMap: `streamlit run dashboard.py [-- [--data PATH] [--data-dir DIR] [--taxonomy FILE]]`.

Builds (or reads from cache) the map of one paper list, applies the shared sidebar filters and
hands the resulting view to the page the user chose.
"""

import sys

import streamlit as st

# No page or page_icon icons: Streamlit turns a Material icon into a favicon fetched from the internet.
st.set_page_config(page_title="PaperMap", layout="wide")

# Navigation comes first so the sidebar shows these pages while a first build runs. The page files
# live in app_pages/, not pages/: a pages/ folder beside this file turns on Streamlit's legacy
# file-based navigation for the server's first run, and a first visit to a deep link then showed
# "Page not found" over the right page (streamlit/streamlit#9992).
# The Schedule page shows in the sidebar for a list with sessions (known once its map is read,
# below); hidden, it still answers its URL.
_SCHEDULE_SHOWN = "papermap_schedule_shown"
page = st.navigation(
    [
        map_page := st.Page("app_pages/map.py", title="Map", url_path="topic-map", default=True),
        st.Page("app_pages/topics.py", title="Topics", url_path="topic-breakdown"),
        st.Page("app_pages/subfields.py", title="Subfields", url_path="subfield-breakdown"),
        st.Page("app_pages/paper.py", title="Paper", url_path="paper-details"),
        st.Page(
            "app_pages/schedule.py",
            title="Schedule",
            url_path="conference-schedule",
            visibility="visible" if st.session_state.get(_SCHEDULE_SHOWN) else "hidden",
        ),
        st.Page("app_pages/for_me.py", title="Papers for me", url_path="papers-for-me"),
        st.Page("app_pages/reading_lists.py", title="Reading lists", url_path="reading-lists"),
        st.Page("app_pages/present.py", title="Present", url_path="presentation"),
        datasets_page := st.Page("app_pages/datasets.py", title="Data sets", url_path="data-sets"),
    ]
)

# Imported after the navigation is declared: pandas and scikit-learn take seconds to import on a
# cold start, and until then the sidebar would show Streamlit's default page list.
from lib import ui_state  # noqa: E402
from lib.errors import PaperMapError  # noqa: E402
from lib.views.filters import filter_papers  # noqa: E402
from lib.views.markup import markdown_literal  # noqa: E402
from lib.views.schedule import has_sessions  # noqa: E402

if (unchosen := ui_state.unchosen_address()) is not None:
    st.error(unchosen)
    st.stop()

source = ui_state.chosen_source(sys.argv[1:])
overview = None
try:
    # A large map's first read on this server takes most of a minute: the map page shows its overview
    # meanwhile, once the map is built (or copied from the cache, where `python -m lib build` put it).
    built = ui_state.built_map_dir(source)
    if page is map_page:
        overview = ui_state.map_overview(built)
    papers, report = ui_state.load_map(source, built)
    map_dir = str(built)
except PaperMapError as error:
    if overview is not None:
        overview.empty()
    st.error(markdown_literal(str(error)))  # the message may quote the file's own text
    if page is datasets_page:  # the way out of a data set that cannot be mapped: choose another
        page.run()
    else:
        st.page_link(datasets_page, label="Choose another data set")
    st.stop()

schedule_was_shown = st.session_state.get(_SCHEDULE_SHOWN, False)
st.session_state[_SCHEDULE_SHOWN] = has_sessions(papers)
if st.session_state[_SCHEDULE_SHOWN] != schedule_was_shown:
    st.rerun()  # once per data set: the navigation above is drawn again with the Schedule page shown or hidden

ui_state.apply_map_link()  # a "show on map" link from another page sets the facets below
with st.sidebar:
    summary = st.empty()
    filters = ui_state.sidebar_filters(papers, map_dir)
shown = filter_papers(papers, filters)
summary.markdown(f"**{len(shown):,} of {len(papers):,} papers** from {markdown_literal(source.name)}")
ui_state.set_view(
    ui_state.View(source=source, papers=papers, shown=shown, filters=filters, report=report, map_dir=map_dir)
)
ui_state.note_page(page.url_path)
if overview is not None:
    overview.empty()  # the page draws the map itself now
page.run()
