"""A paper-list server on 127.0.0.1 for fetch tests: the internet is never touched."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from conftest import planted_records

PLANTED_LIST = json.dumps(planted_records(per_topic=6)).encode()
# path -> (status, body, declared length or None for the body's own)
ROUTES = {
    "/icml/icml2025.json": (200, PLANTED_LIST, None),
    "/not-a-list.json": (200, b'{"message": "rate limit exceeded"}', None),
    "/image.json": (200, b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe", None),
    "/broken-off.json": (200, PLANTED_LIST[:500], len(PLANTED_LIST)),
    "/slow.json": (200, PLANTED_LIST, None),  # answers after 3 s
}


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path == "/slow.json":
            time.sleep(3)
        status, body, length = ROUTES.get(self.path, (404, b"Not Found", None))
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(length or len(body)))
            self.end_headers()
            self.wfile.write(body)
        except ConnectionError:
            # The client gave up first (the timeout tests): expected here, and a traceback printed
            # from this thread seconds later would land in whatever test runs then.
            pass

    def log_message(self, *args) -> None:  # keep test output quiet
        pass


@contextmanager
def paper_server() -> Iterator[str]:
    """Serve ROUTES on a free port; yields the base URL (`http://127.0.0.1:PORT`)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def closed_port_url() -> str:
    """A URL on 127.0.0.1 whose port nothing listens on: connecting is refused at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/icml/icml2025.json"
