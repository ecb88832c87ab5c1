"""What persists or comes from outside: `reading_lists` (SQLite), `datasets` (the data folder and its
maps' folders) and `fetch` (the one module that reaches the network).

Store imports build (the output folder, atomic writes), stages and the top-level modules; never views or ui_state.
"""
