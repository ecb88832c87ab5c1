"""A fixture conference's three sources on 127.0.0.1, for the fetch tests: never the internet.

`conference_server(...)` serves the hand-written files in `tests/fixtures/icml2025/` in each
source's layout: ICML's virtual site (`/static/virtual/data/icml-2025-orals-posters.json`), Paper
Copilot (`/paperlists/icml/icml2025.json`) and the OpenReview API v2 (`/openreview/notes`, pages
by `limit` and `offset`, `/openreview/login`), with the awkward behaviours a test switches on.
"""

from __future__ import annotations

import json
import threading
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from lib.store.sources import SourceAddresses

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "icml2025"
VIRTUAL_SITE_FILE = FIXTURES / "icml-2025-orals-posters.json"
OPENREVIEW_FILE = FIXTURES / "openreview-notes.json"
PAPERLISTS_FILE = FIXTURES / "icml2025.json"
VIRTUAL_SITE_PATH = "/static/virtual/data/icml-2025-orals-posters.json"
PAPERLISTS_PATH = "/paperlists/icml/icml2025.json"
ACCOUNT = ("reader@example.org", "correct horse")
TOKEN = "token-for-reader"
CHALLENGE = json.dumps(
    {"name": "ChallengeRequiredError", "message": "Please complete the challenge", "status": 403}
).encode()


@dataclass
class Behaviour:
    """What the server does; every field's default is a well-behaved source."""

    openreview_needs_login: bool = False  # notes answer 403 ChallengeRequiredError without the token
    rate_limited: int = 0  # the first this many notes requests answer 429 with `retry_after`
    retry_after: str = "2"
    notes: list | None = None  # the ICML.cc/2025/Conference notes; default: the fixture file's
    failing: dict[str, int] = field(default_factory=dict)  # path -> status it answers instead
    truncated: set[str] = field(default_factory=set)  # paths whose body stops halfway (declared length whole)
    cut_json: set[str] = field(default_factory=set)  # paths whose body is half a JSON document, length matching


@dataclass
class ConferenceServer:
    base: str
    behaviour: Behaviour
    requests: list[tuple[str, str, dict]] = field(default_factory=list)  # (method, path with query, headers)

    @property
    def addresses(self) -> SourceAddresses:
        return SourceAddresses(self.base, f"{self.base}/openreview", f"{self.base}/paperlists")

    def environment(self) -> dict[str, str]:
        """The environment variables that point `python -m lib fetch` and the dashboard here."""
        return {
            "PAPERMAP_VIRTUAL_SITE_URL": self.base,
            "PAPERMAP_OPENREVIEW_URL": f"{self.base}/openreview",
            "PAPERMAP_PAPERLISTS_URL": f"{self.base}/paperlists",
        }

    def offsets(self, venue_id: str = "ICML.cc/2025/Conference") -> list[int]:
        """The `offset` of each notes request for `venue_id`, in order (retries included)."""
        found = []
        for _, path, _ in self.requests:
            query = urllib.parse.parse_qs(urllib.parse.urlsplit(path).query)
            if urllib.parse.urlsplit(path).path == "/openreview/notes" and query.get("content.venueid") == [venue_id]:
                found.append(int(query["offset"][0]))
        return found


def generated_notes(n: int) -> list[dict]:
    """`n` distinct accepted notes in API v2's layout, for the paging tests."""
    return [
        {
            "id": f"Gen{i:06d}xx",
            "forum": f"Gen{i:06d}xx",
            "content": {
                "title": {"value": f"Generated paper number {i} on sparse attention"},
                "abstract": {"value": f"Paper {i} studies sparse attention for long sequences."},
                "authors": {"value": ["A. Author"]},
                "venue": {"value": "ICML 2025 poster"},
                "venueid": {"value": "ICML.cc/2025/Conference"},
            },
        }
        for i in range(n)
    ]


@contextmanager
def conference_server(behaviour: Behaviour | None = None) -> Iterator[ConferenceServer]:
    """Serve the fixture conference on a free port of 127.0.0.1 until the block ends."""
    behaviour = behaviour or Behaviour()
    notes = behaviour.notes if behaviour.notes is not None else json.loads(OPENREVIEW_FILE.read_text())["notes"]
    files = {VIRTUAL_SITE_PATH: VIRTUAL_SITE_FILE.read_bytes(), PAPERLISTS_PATH: PAPERLISTS_FILE.read_bytes()}
    lock = threading.Lock()
    limited = [behaviour.rate_limited]

    class Handler(BaseHTTPRequestHandler):
        def send(self, status: int, body: bytes, headers: dict | None = None, length: int | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(length if length is not None else len(body)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            try:
                self.wfile.write(body)
            except ConnectionError:
                pass

        def answer(self, path: str, body: bytes) -> None:
            if path in behaviour.truncated:
                self.send(200, body[: len(body) // 2], length=len(body))
            elif path in behaviour.cut_json:
                self.send(200, body[: len(body) // 2])
            else:
                self.send(200, body)

        def do_GET(self) -> None:
            server.requests.append(("GET", self.path, dict(self.headers)))
            path = urllib.parse.urlsplit(self.path).path
            if path in behaviour.failing:
                return self.send(behaviour.failing[path], b'{"message": "failing on purpose"}')
            if path in files:
                return self.answer(path, files[path])
            if path == "/openreview/notes":
                return self.notes()
            self.send(404, b'{"message": "Not Found"}')

        def notes(self) -> None:
            with lock:
                if limited[0] > 0:
                    limited[0] -= 1
                    return self.send(429, b'{"name": "RateLimitError"}', {"Retry-After": behaviour.retry_after})
            if behaviour.openreview_needs_login and self.headers.get("Authorization") != f"Bearer {TOKEN}":
                return self.send(403, CHALLENGE)
            query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
            offset, limit = int(query["offset"][0]), min(int(query["limit"][0]), 1000)
            venue = query["content.venueid"][0]
            listed = notes if venue == "ICML.cc/2025/Conference" else []
            page = listed[offset : offset + limit]
            self.answer("/openreview/notes", json.dumps({"notes": page, "count": len(listed)}).encode())

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            server.requests.append(("POST", self.path, dict(self.headers)))
            if self.path != "/openreview/login":
                return self.send(404, b'{"message": "Not Found"}')
            given = json.loads(body or b"{}")
            if (given.get("id"), given.get("password")) != ACCOUNT:
                return self.send(403, b'{"name": "ForbiddenError", "message": "Invalid username or password"}')
            self.send(200, json.dumps({"token": TOKEN, "user": {"id": "~Reader1"}}).encode())

        def log_message(self, *args) -> None:
            pass

    http_server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    http_server.daemon_threads = True
    server = ConferenceServer(f"http://127.0.0.1:{http_server.server_address[1]}", behaviour)
    thread = threading.Thread(target=http_server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        http_server.shutdown()
        http_server.server_close()
