"""What persists or comes from outside: `reading_lists` (SQLite), `datasets` (the data folder and its
maps' folders) and `fetch` (the one module that reaches the network)."""
