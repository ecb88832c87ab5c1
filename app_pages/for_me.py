"""Papers for me: paste or upload your own papers; the map rings and ranks the papers nearest them,
ready to save as a reading list. What you paste stays in this session's memory, never on disk."""

import streamlit as st

from lib import ui_state
from lib.errors import PaperMapError
from lib.views.map.figure import map_figure
from lib.views.markup import markdown_literal
from lib.views.profile import profile_highlight, profile_notes, profile_table, ring_caption

view = ui_state.current_view()

st.subheader("Papers for me", anchor=False)
st.caption(
    "Paste a few of your own papers, or upload them as BibTeX or a paper list: the papers in view nearest "
    "them are ranked and ringed on the map. Nothing you paste or upload is saved, unless you save the ranking "
    "as a reading list."
)
pasted_box, file_box = st.columns([3, 2])
with pasted_box:
    text = st.text_area(
        "Your papers",
        key="profile_text",
        height=172,
        placeholder="One paper per paragraph: its title on the first line, its abstract (if you like) below.\n\n"
        "A title alone works too; so does pasted BibTeX.",
    )
with file_box:
    uploaded = st.file_uploader(
        "Or upload them",
        type=ui_state.PROFILE_FILE_TYPES,
        key="profile_file",
        max_upload_size=ui_state.MAX_PROFILE_FILE_MB,
        help="BibTeX (.bib) with titles and abstracts, or any paper list the Data sets page reads.",
    )
    with st.container(horizontal=True, vertical_alignment="bottom"):
        top = st.number_input(
            "How many papers", min_value=5, max_value=100, value=20, step=5, key="profile_top", width=150
        )
        if st.button("Rank papers", type="primary", key="rank_profile", width="stretch"):
            ui_state.keep_profile(text, uploaded)

profile = ui_state.kept_profile()
if profile is None:
    st.info("Paste or upload your papers, then press **Rank papers**.")
    st.stop()
if not profile.papers:
    st.warning("No paper to rank by: paste at least one title, or upload a file with titles.")
    st.stop()
try:
    ranked, scores = ui_state.papers_for_me(view, profile, int(top))
except PaperMapError as error:
    st.error(markdown_literal(str(error)))
    st.stop()

for note in profile_notes(profile, scores, ranked):
    st.caption(markdown_literal(note))
if ranked.empty:
    st.warning("No paper in view shares a word with yours. Clear the sidebar's filters, or add abstracts.")
    st.stop()

figure = map_figure(
    view.shown,
    "subfield",
    "topic_label",
    context=view.papers,
    highlight=profile_highlight(ranked, scores.own),
    hover=ui_state.cached_map_hover(view.map_dir, clickable=False),
    region_shapes=ui_state.cached_map_regions(view.map_dir),  # its labels sit on them
    height=460,
    legend=False,  # the subfields' legend would push the ranking off the screen; the caption names the rings
)
st.caption(markdown_literal(ring_caption(ranked, scores.own)))
st.plotly_chart(figure, key="profile_map", theme=None, config={"scrollZoom": False, "displaylogo": False})
ui_state.save_ranking_control(ranked)
st.dataframe(
    profile_table(ranked),
    hide_index=True,
    column_config=ui_state.PROFILE_COLUMN_CONFIG,
    height=ui_state.table_height(len(ranked)),
    key="profile_table",
)
