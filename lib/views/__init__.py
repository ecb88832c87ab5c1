"""What the pages show, made from a built map: DataFrames in, figures, tables, text or files out.

`filters` (sidebar state <-> mask <-> URL), `map_figure` and `map_hover` (the map), `charts` (the
breakdown charts), `tables`, `text` (author lines), `breakdowns`, `search`, `exports` and `markup`
(data text made inert). Views import stages and
`lib.schema`, never build, store's internals or Streamlit.
"""
