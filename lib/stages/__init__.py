"""The pipeline's stages, one module per step of the data flow, each a function over tables and arrays:

readers (raw file -> records) -> load (records -> the papers table, with titles, latex and its report)
-> keywords, subfields -> embed (texts -> vectors) -> project (vectors -> the 2D map; umap_np) -> topics.

Stages import only each other (upstream), `lib.schema` and `lib.errors`: never build, views, store or ui_state.
"""
