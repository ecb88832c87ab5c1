"""Building maps: `stages_table` is the data flow (each stage's name, version, inputs, the parameters
that key its cache, and its compute); `pipeline` is the schedule (what runs when, and where: keywords
and subfields in a `parallel` worker on large lists), run by `runner` through the content-hash `cache`
while holding the output folder's `lock`, and assembles the output table it writes into the output
folder (`lib.map_folder`); `extend` grows a finished map.

The builder imports stages and the top-level modules (errors, schema, paths, names, neighbours, files,
map_folder), never views, store or ui_state. The CLI (`lib/cli.py`) and `lib/ui_state/` are the front
ends that compose it.
"""
