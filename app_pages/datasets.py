"""Data sets: the paper lists on offer; open one, upload one, or fetch a whole conference (ICML 2025 first)."""

import sys

import streamlit as st

from lib import ui_state
from lib.errors import PaperMapError
from lib.store.datasets import MAX_UPLOAD_BYTES, describe
from lib.views.markup import markdown_literal

# Runs without the map (dashboard.py runs it even when the open data set cannot be mapped), so it
# reads the catalog itself rather than `ui_state.current_view()`.
available = ui_state.data_catalog(sys.argv[1:])

st.subheader("Data sets")
st.caption(
    f"The embedded sample, paper lists in the data folder `{available.data_dir}` and files uploaded here. "
    "A data set is mapped the first time it is opened (a minute or so for 3,000 papers), then read from the cache."
)
# Filled last, so a file uploaded or fetched on this run is already listed.
listing = st.container()

editable = ui_state.may_edit()
if not editable:
    st.caption(ui_state.refusal())
upload_column, fetch_column = st.columns(2)
with upload_column:
    uploaded = st.file_uploader(
        "Upload a paper list",
        key="upload",
        disabled=not editable,
        max_upload_size=MAX_UPLOAD_BYTES // 2**20,
        help="Paper Copilot or OpenReview JSON, JSONL, CSV, TSV, Parquet or plain text; the format is read from the content.",
    )
    if uploaded is not None:
        try:
            saved, new = ui_state.saved_upload(uploaded, available.uploads_dir)
        except PaperMapError as error:
            st.error(markdown_literal(error))  # messages may quote the file's own text
        else:
            st.success(f"Saved as {markdown_literal(saved.name)} in the uploads folder; open it above.")
            available = ui_state.data_catalog(sys.argv[1:])
            if new:  # offer it, once: later the user's own choice stands
                ui_state.offer_data_set(available, saved)
with fetch_column:
    st.markdown("**A whole conference**")
    st.caption(
        "Every accepted paper with abstracts, the conference's own subject areas and its sessions, gathered "
        "from the conference site, OpenReview and Paper Copilot; needs network access. OpenReview needs an "
        "account: set OPENREVIEW_USERNAME and OPENREVIEW_PASSWORD before starting the dashboard."
    )
    wanted = st.selectbox(
        "Conference", ui_state.FETCHABLE, format_func=ui_state.conference_label, key="fetch_conference"
    )
    if st.button(f"Fetch {ui_state.conference_label(wanted)}", key="fetch", disabled=not editable):
        try:
            fetched = ui_state.fetch_conference_list(wanted, available.data_dir)
        except PaperMapError as error:
            st.error(markdown_literal(error))  # messages may quote the servers' own text
        else:
            st.success(f"Saved {fetched.papers:,} papers as {markdown_literal(fetched.path.name)}; open it above.")
            with st.expander("What came from where"):
                st.text("\n".join(fetched.lines()))
            available = ui_state.data_catalog(sys.argv[1:])
            ui_state.offer_data_set(available, fetched.path)

with listing:
    st.dataframe(
        describe(available.sets, ui_state.cache_folder()),
        hide_index=True,
        column_config=ui_state.DATA_SET_COLUMN_CONFIG,
        height=ui_state.table_height(len(available.sets)),
    )
    choice = ui_state.data_set_choice(available)
    together = ui_state.together_choice(available, choice)
    openable = ui_state.may_open(available, choice, together)
    if st.button("Open its map", key="open_data_set", type="primary", disabled=not openable):
        ui_state.open_data_set(choice, together)
