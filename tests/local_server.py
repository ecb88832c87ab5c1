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


# path -> where it redirects ({port}: this server's); "localhost" is another host than "127.0.0.1".
REDIRECTS = {
    "/to-same-host": "http://127.0.0.1:{port}/echo-credentials",
    "/to-other-host": "http://localhost:{port}/echo-credentials",
    "/to-ftp": "ftp://127.0.0.1:{port}/icml/icml2025.json",
}
TRICKLE_SECONDS = 0.05  # between two bytes of /trickle.json: its whole body would take about a minute


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path == "/slow.json":
            time.sleep(3)
        if self.path in REDIRECTS:
            self.send_response(302)
            self.send_header("Location", REDIRECTS[self.path].format(port=self.server.server_address[1]))
            self.end_headers()
            return
        if self.path == "/echo-credentials":  # what credentials reached this host, as JSON
            sent = {name: self.headers.get(name, "") for name in ("Authorization", "Cookie")}
            body = json.dumps(sent).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        if self.path == "/trickle.json":
            self._trickle()
            return
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

    def _trickle(self) -> None:
        try:
            self.send_response(200)
            self.send_header("Content-Length", str(len(PLANTED_LIST)))
            self.end_headers()
            for byte in PLANTED_LIST[:1200]:
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                time.sleep(TRICKLE_SECONDS)
        except ConnectionError:
            pass  # the client gave up, as it should

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
