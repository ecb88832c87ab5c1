"""Topics: how big each topic is, why it is named as it is, and what it holds; each one a click from the map."""

import streamlit as st

from lib import ui_state
from lib.views import breakdown_text, breakdowns, charts
from lib.views.edition_changes import compared_editions
from lib.views.map.links import clicked_value, map_filters
from lib.views.markup import markdown_literal
from lib.views.tables import corpus_caption, paper_table, topic_table

view = ui_state.current_view()
papers, shown = view.papers, view.shown

st.subheader("Topics")
st.caption(markdown_literal(corpus_caption(papers, view.source.name)))
level = ui_state.url_select(
    "Level", {"coarse": "Coarse topics", "fine": "Fine topics"}, key="topic_level", default="coarse", horizontal=True
)

_, label_column = breakdowns.level_columns(level)
sizes = breakdowns.topic_sizes(papers, shown, level)
filtered = len(shown) < len(papers)
size_note = (
    "Bars are whole topics of the map; blue: papers passing the sidebar filters, grey: filtered out."
    if filtered
    else "Papers per topic, whole map."
)
bars = ui_state.clickable_chart(
    charts.topic_size_bar(sizes, f"Papers per {'fine ' if level == 'fine' else ''}topic"),
    key="topic_sizes",
)
st.caption(f"{size_note} Click a bar to open the map filtered to that topic.")
clicked_topic = clicked_value(bars)
if clicked_topic:
    ui_state.open_map(map_filters({label_column: clicked_topic}, view.filters.to_query()))

if shown.empty:
    st.info("No paper matches the filters. Clear the filters in the sidebar to see the topics.")
    st.stop()

summaries = ui_state.topic_summaries(view.map_dir, level)
table = topic_table(summaries, papers, shown, level)
st.markdown("#### Every topic" + (" with papers in view" if filtered else ""))
st.caption(
    "Keyphrases: the share of the topic's papers using each. Representative papers: nearest the topic's centre on the map."
)
st.dataframe(
    table,
    hide_index=True,
    column_config=ui_state.TOPIC_COLUMN_CONFIG,
    height=ui_state.table_height(len(table)),
    key="topics_table",
)

changes = ui_state.edition_changes(view.map_dir, level)
if not changes.empty:
    first, last = compared_editions(changes)
    st.markdown(f"#### What changed from {markdown_literal(first)} to {markdown_literal(last)}")
    st.caption(
        "New topics, then the most grown and the most shrunk of the others, whole map. A change counts when "
        "Fisher's exact test on the two editions' papers in and out of the topic gives q < 0.05 after "
        'Benjamini-Hochberg over all topics; the others say "within chance". Newest papers: the latest '
        "edition's nearest the topic's centre."
    )
    st.dataframe(changes, hide_index=True, key="edition_changes", height=ui_state.table_height(len(changes)))
    newest = ui_state.newest_of_changed_topics(view.map_dir, level)
    if not newest.empty:
        with st.expander(f"New in {markdown_literal(last)}: {len(newest)} papers of the new and grown topics"):
            st.caption(
                "Three of each topic's newest papers, nearest its centre: add them to a list to read or present."
            )
            st.dataframe(
                paper_table(newest), hide_index=True, column_config=ui_state.PAPER_COLUMN_CONFIG, key="newest_papers"
            )
            ui_state.add_to_list_control(newest, key="newest-papers")

st.markdown("#### One topic in detail")
breakdown = ui_state.topic_breakdown(view.map_dir, level)
choices = breakdown_text.topic_choices(breakdown, sizes)
chosen = ui_state.url_select("Topic", choices, key=f"topic_detail_{level}", default=next(iter(choices)))
topic_id = int(chosen)
row = breakdowns.topic_row(breakdown, topic_id)

with st.container(border=True):
    heading, button = st.columns([4, 1], vertical_alignment="center")
    heading.markdown(f"### {markdown_literal(row['label'])}")
    with button:
        ui_state.map_button(
            "Show on map",
            map_filters({label_column: row["label"]}, view.filters.to_query()),
            key="show_topic_on_map",
        )
    st.caption(markdown_literal(breakdown_text.topic_facts(row, level, sizes, filtered)))
    st.markdown(f"**Why this label.** {markdown_literal(breakdown_text.label_reason(row, len(papers)))}")

    st.markdown("**Distinctive keyphrases** (by share of the topic's papers against all papers)")
    keywords = breakdown_text.keyword_table(row)
    st.dataframe(
        keywords,
        hide_index=True,
        column_config=ui_state.KEYWORD_COLUMN_CONFIG,
        height=ui_state.table_height(len(keywords)),
        key="topic_keywords",
    )

    st.markdown(f"**Subfields:** {markdown_literal(breakdown_text.mix_line(row['subfield_mix']))}")
    if breakdowns.has_values(papers, "status"):
        st.markdown(f"**Statuses:** {markdown_literal(breakdown_text.mix_line(row['status_mix']))}")
    if row["neighbours"]:
        st.markdown(f"**Neighbouring topics on the map:** {markdown_literal(breakdown_text.neighbour_line(row))}")
        st.caption("Ranked by how many of this topic's papers have their nearest papers on the map in the other topic.")

    st.markdown("**Representative papers** (nearest the topic's centre on the map)")
    representatives = paper_table(breakdowns.papers_by_id(papers, list(row["representatives"])))
    st.dataframe(
        representatives, hide_index=True, column_config=ui_state.PAPER_COLUMN_CONFIG, key="topic_representatives"
    )

    members = breakdowns.topic_papers(shown, level, topic_id)
    with st.expander(f"All {len(members):,} of its papers" + (" that pass the filters" if filtered else "")):
        st.dataframe(
            paper_table(members), hide_index=True, column_config=ui_state.PAPER_COLUMN_CONFIG, key="topic_members"
        )

ui_state.load_report(view.report)
