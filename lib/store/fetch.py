"""Download a paper list into the data folder: by default the whole of ICML 2025 from Paper Copilot.

The download is read whole, checked to be a paper list PaperMap can read, and only then written
(atomically), so a broken or partial download never leaves a file behind. Every failure is a
`FetchError` whose message is one sentence naming the URL.
"""

from __future__ import annotations

import http.client
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from lib.build.cache import atomic_write_bytes
from lib.errors import FetchError, PaperMapError
from lib.store.datasets import DEFAULT_DATA_DIR, check_paper_list, human_size

# Paper Copilot's public `paperlists`: every ICML 2025 paper with title, authors, status and link.
ICML2025_URL = "https://raw.githubusercontent.com/papercopilot/paperlists/main/icml/icml2025.json"
DEFAULT_TIMEOUT = 60.0  # seconds without an answer (connecting, or between two reads)
MAX_DOWNLOAD_BYTES = 1024 * 1024 * 1024


@dataclass(frozen=True)
class Fetched:
    """A paper list saved by `fetch_paper_list`."""

    url: str
    path: Path
    papers: int
    size: int  # bytes

    def summary(self) -> str:
        return f"Saved {self.papers:,} papers ({human_size(self.size)}) from {self.url} as {self.path}."


def fetch_paper_list(
    url: str = ICML2025_URL,
    out_dir: Path = DEFAULT_DATA_DIR,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    max_bytes: int = MAX_DOWNLOAD_BYTES,
) -> Fetched:
    """Download the paper list at `url` into `out_dir`, named after the URL's last path segment
    (with the suffix of the format its content reads as), replacing an earlier download of it.

    Raises `FetchError` when the URL cannot be reached, answers with an error, sends more than
    `max_bytes`, or sends something that is not a paper list; nothing is written then.
    """
    content = download(url, timeout=timeout, max_bytes=max_bytes)
    segment = urllib.parse.unquote(urllib.parse.urlsplit(url).path.rstrip("/").rpartition("/")[2])
    try:
        name, papers = check_paper_list(content, segment, fallback="download")
    except PaperMapError as error:
        raise FetchError(f"{url} did not send a paper list PaperMap can read ({error}); nothing was saved.") from None
    path = out_dir / name
    atomic_write_bytes(path, content)
    return Fetched(url, path, papers, len(content))


def download(url: str, *, timeout: float = DEFAULT_TIMEOUT, max_bytes: int = MAX_DOWNLOAD_BYTES) -> bytes:
    """The body at an http(s) `url`, read whole; `FetchError` (one sentence) on any failure."""
    if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
        raise FetchError(f"{url} is not an http or https address.")
    request = urllib.request.Request(url, headers={"User-Agent": "PaperMap (python urllib)"})
    chunks: list[bytes] = []
    received = 0
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            declared = response.headers.get("Content-Length")
            while block := response.read(1 << 20):
                received += len(block)
                if received > max_bytes:
                    raise FetchError(f"{url} sent more than {human_size(max_bytes)}; nothing was saved.")
                chunks.append(block)
        # Reads of a given size end quietly when the connection drops; the declared length tells.
        if declared and declared.isdigit() and received != int(declared):
            raise FetchError(
                f"The download of {url} broke off after {received:,} of {int(declared):,} bytes; nothing was saved."
            )
    except urllib.error.HTTPError as error:  # before URLError and OSError: it is both
        raise FetchError(f"{url} answered {error.code} {error.reason}; nothing was saved.") from None
    except http.client.HTTPException as error:
        raise FetchError(f"The download of {url} broke off ({error!r}); nothing was saved.") from None
    except (urllib.error.URLError, OSError) as error:  # refused, unresolvable host, timeout, reset
        reason = getattr(error, "reason", None) or error
        raise FetchError(
            f"Could not download {url}: this machine seems to be offline or the server did not answer ({reason})."
        ) from None
    return b"".join(chunks)
