"""Subfields: papers per subfield, and which topics each subfield's papers fall in; a click opens the map filtered."""

import streamlit as st

from lib import ui_state
from lib.views import breakdown_text, breakdowns, charts
from lib.views.map.colours import category_colours
from lib.views.map.links import cell_of_selection, clicked_value, map_filters
from lib.views.markup import markdown_literal
from lib.views.tables import corpus_caption

view = ui_state.current_view()
papers, shown = view.papers, view.shown
filtered = len(shown) < len(papers)

st.subheader(f"Subfields: {len(shown):,} of {len(papers):,} papers" if filtered else "Subfields")
st.caption(markdown_literal(corpus_caption(papers, view.source.name)))

if shown.empty:
    st.info("No paper matches the filters. Clear the filters in the sidebar to see the subfields.")
    st.stop()

current = view.filters.to_query()
scope = "the papers passing the sidebar filters" if filtered else "all papers"
counts = breakdowns.subfield_counts(shown)
bars = ui_state.clickable_chart(
    charts.subfield_bar(counts, category_colours(papers, "subfield"), "Papers per subfield, area by area"),
    key="subfield_bars",
)
st.caption(
    f"Counts of {scope}; each area in its colour on the map. Click a bar to open the map filtered to that subfield."
)
clicked_subfield = clicked_value(bars)
if clicked_subfield:
    ui_state.open_map(map_filters({"subfield": clicked_subfield}, current))

if breakdowns.uses_declared_areas(papers):
    st.markdown("#### The classifier beside the declared areas")
    st.caption(markdown_literal(breakdown_text.agreement_sentence(shown)))
    st.dataframe(
        breakdowns.classifier_agreement(shown),
        hide_index=True,
        column_config=ui_state.AGREEMENT_COLUMN_CONFIG,
        key="classifier_agreement",
    )

level = ui_state.url_select(
    "Topics", {"coarse": "Coarse topics", "fine": "Fine topics"}, key="cross_level", default="coarse", horizontal=True
)
_, topic_column = breakdowns.level_columns(level)
tables = {"subfield": ("Subfield x topic", "Subfield")}
# When the subfields are the declared areas, the primary-area table would repeat the subfield one.
if breakdowns.has_values(papers, "primary_area") and not breakdowns.uses_declared_areas(papers):
    tables["primary_area"] = ("Declared primary area x discovered topic", "Primary area")

for rows, (title, row_title) in tables.items():
    st.markdown(f"#### {title}")
    table = breakdowns.cross_table(shown, rows, topic_column)
    if table.empty:
        st.info(f"No paper in view has a {row_title.lower()}.")
        continue
    event = ui_state.clickable_chart(
        charts.cross_table_heatmap(table, row_title, "Topic"),
        key=f"cross_{rows}",
    )
    st.caption(
        f"Papers of {scope} in each cell; colour: the share of the row's papers. "
        f"Click a cell to open the map filtered to that {row_title.lower()} and topic."
    )
    cell = cell_of_selection(event)
    if cell:
        ui_state.open_map(map_filters({rows: cell[0], topic_column: cell[1]}, current))
