"""Building maps: `pipeline` runs the stages through the content-hash `cache`, holding the output
folder's `lock`, with keywords and subfields in a `parallel` worker on large lists; `output` is the
output folder (file names, write, check, reuse, read); `extend` grows a finished map.

Build imports stages and the top-level modules (errors, schema, paths, names, neighbours), never
views, store or ui_state. The CLI (`lib/cli.py`) and `lib/ui_state/` are the front ends that compose it.
"""
