"""The pipeline's stages, one module per step of the data flow, each a function over tables and arrays:

readers (raw file -> records) -> load (records -> the papers table, with titles, latex and its report)
-> keywords (phrases, acronyms), subfields (taxonomy) -> embed (texts -> vectors) -> project
(vectors -> the 2D map; umap_np) -> topics (clusters; topic_labels).

Stages import only each other and the top-level modules (errors, schema, paths, names, neighbours):
never build, views, store or ui_state.
"""
