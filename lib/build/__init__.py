"""Building maps: `pipeline` runs the stages through the content-hash `cache`, with keywords and
subfields in a `parallel` worker on large lists; `extend` grows a finished map; `cli` is `python -m lib`.

Build imports stages, views' pure helpers never, store only for data sets and fetch in the CLI.
"""
