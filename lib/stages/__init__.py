"""The pipeline's stages, one module per step of the data flow, each a function over tables and arrays:

readers (raw file -> records; format_parsers) -> load (records -> the papers table, with titles, latex
and its report) -> keywords (a package: phrases, acronyms), subfields (taxonomy) -> embed (texts ->
vectors) -> project (vectors -> the 2D map; umap_np, umap_sgd) -> topics (clusters; topic_labels,
label_rules).

Stages import only each other and the top-level modules (errors, schema, paths, names, neighbours):
never build, views, store or ui_state.
"""
