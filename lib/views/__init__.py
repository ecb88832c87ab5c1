"""What the pages show, made from a built map: DataFrames in, figures, tables, text or files out.

`filters` (sidebar state <-> mask <-> URL), `map_figure` and `map_hover` (the map), `charts` (the
breakdown charts), `breakdowns` (their numbers), `breakdown_text` (what those mean, in words),
`map_links` (a chart's click -> the map's filters), `tables`, `text` (author lines), `search`,
`exports` and `markup` (data text made inert). Views import stages, `lib.schema`, `lib.errors` and
`lib.names`, never build, store's internals or Streamlit.
"""
