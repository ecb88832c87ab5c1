"""What `python -m lib fetch` asks by default: apart from the network code (`lib.store.fetch`,
`lib.store.sources`), so the command line's parser reads it without importing HTTP modules, a cost
every command, a build's cache hit too, would otherwise pay."""

DEFAULT_TIMEOUT = 60.0  # seconds for a whole request: connecting, waiting and reading
SOURCES = ("virtual-site", "openreview", "paperlists")  # the public sources of a whole conference, asked in this order
