"""The one module that reaches the network: HTTP requests (`request`), and downloading one paper
list from a URL into the data folder (`fetch_paper_list`). `lib.store.sources` fetches whole
conferences through `request`.

A download is read whole, checked to be a paper list PaperMap can read, and only then written
(atomically), so a broken or partial download never leaves a file behind. Every failure is a
`FetchError` whose message is one sentence naming the URL. `timeout` bounds the whole download,
not only each wait, so a server sending a byte at a time cannot hold it. Redirects are followed to
http(s) addresses only, and credentials (Authorization, Cookie) go only to the host they were given for.
"""

from __future__ import annotations

import email.utils
import http.client
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from lib.errors import FetchError, HTTPStatusError, OfflineError, PaperMapError
from lib.files import atomic_write_bytes
from lib.store.datasets import DEFAULT_DATA_DIR, check_paper_list, human_size
from lib.store.fetch_settings import DEFAULT_TIMEOUT

MAX_DOWNLOAD_BYTES = 1024 * 1024 * 1024
MAX_RETRIES = 3  # asking again after 429 Too Many Requests or 503
MAX_RETRY_WAIT = 60.0  # seconds, whatever Retry-After asks
USER_AGENT = "PaperMap (python urllib)"


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
    url: str,
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
    return request(url, timeout=timeout, max_bytes=max_bytes)


def request(
    url: str,
    *,
    data: bytes | None = None,
    headers: Mapping[str, str] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    max_bytes: int = MAX_DOWNLOAD_BYTES,
    retries: int = MAX_RETRIES,
    sleep: Callable[[float], None] = time.sleep,
) -> bytes:
    """The body of a GET (or, with `data`, a POST) of `url`, read whole.

    A server that answers 429 Too Many Requests (or 503) is asked again up to `retries` times,
    after the wait its Retry-After asks for (at most `MAX_RETRY_WAIT` seconds), else after 1, 2,
    4... seconds. Raises `HTTPStatusError` for an error status, `OfflineError` when the server
    cannot be reached and `FetchError` for anything else; each message is one sentence naming the URL.
    """
    if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
        raise FetchError(f"{url} is not an http or https address.")
    for attempt in range(retries + 1):
        try:
            return _request_once(url, data, headers or {}, timeout, max_bytes)
        except HTTPStatusError as error:
            if error.status not in (429, 503) or attempt == retries:
                raise
            sleep(_retry_wait(error.retry_after, attempt))
    raise AssertionError("unreachable: the last attempt returns or raises")


# Headers that carry credentials: dropped when a redirect leads to another host.
CREDENTIAL_HEADERS = ("authorization", "proxy-authorization", "cookie")


class _SafeRedirects(urllib.request.HTTPRedirectHandler):
    """Follows redirects to http(s) only (urllib's own also follows ftp), and lets credentials
    go only to the host, scheme and port they were sent to first."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        target = urllib.parse.urlsplit(newurl)
        if target.scheme not in ("http", "https"):
            raise urllib.error.HTTPError(newurl, code, f"redirect to a non-http address {newurl}", headers, fp)
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        origin = urllib.parse.urlsplit(req.full_url)
        if new is not None and (target.scheme, target.netloc) != (origin.scheme, origin.netloc):
            for name in list(new.headers):
                if name.lower() in CREDENTIAL_HEADERS:
                    del new.headers[name]
        return new


_OPENER = urllib.request.build_opener(_SafeRedirects)


def _request_once(url: str, data: bytes | None, headers: Mapping[str, str], timeout: float, max_bytes: int) -> bytes:
    request = urllib.request.Request(url, data=data, headers={"User-Agent": USER_AGENT, **headers})
    chunks: list[bytes] = []
    received = 0
    deadline = time.monotonic() + timeout
    try:
        with _OPENER.open(request, timeout=timeout) as response:
            declared = response.headers.get("Content-Length")
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise FetchError(f"The download of {url} took longer than {timeout:g} s; nothing was saved.")
                _wait_at_most(response, remaining)
                block = response.read1(1 << 20)  # what has come, not a whole megabyte: the deadline is checked between
                if not block:
                    break
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
        raise HTTPStatusError(
            f"{url} answered {error.code} {error.reason}; nothing was saved.",
            error.code,
            _error_body(error),
            error.headers.get("Retry-After") if error.headers else None,
        ) from None
    except http.client.HTTPException as error:
        raise FetchError(f"The download of {url} broke off ({error!r}); nothing was saved.") from None
    except TimeoutError:
        if chunks:  # it answered, then ran out of time: not an offline machine
            raise FetchError(f"The download of {url} took longer than {timeout:g} s; nothing was saved.") from None
        raise OfflineError(
            f"Could not download {url}: this machine seems to be offline or the server did not answer (timed out)."
        ) from None
    except (urllib.error.URLError, OSError) as error:  # refused, unresolvable host, reset
        reason = getattr(error, "reason", None) or error
        raise OfflineError(
            f"Could not download {url}: this machine seems to be offline or the server did not answer ({reason})."
        ) from None
    return b"".join(chunks)


def _wait_at_most(response: http.client.HTTPResponse, seconds: float) -> None:
    """Let the response's next read wait no longer than `seconds` (the time left of the deadline)."""
    sock = getattr(getattr(response.fp, "raw", None), "_sock", None)
    if sock is not None:
        sock.settimeout(max(seconds, 0.001))


def _error_body(error: urllib.error.HTTPError) -> bytes:
    try:
        return error.read(1 << 16)
    except (OSError, http.client.HTTPException):
        return b""


def _retry_wait(retry_after: str | None, attempt: int) -> float:
    """Seconds to wait before asking again: Retry-After's seconds or date, else 2**attempt; capped."""
    wait = float(2**attempt)
    if retry_after:
        if retry_after.strip().isdigit():
            wait = float(retry_after.strip())
        else:
            try:
                wait = (email.utils.parsedate_to_datetime(retry_after) - datetime.now(UTC)).total_seconds()
            except (TypeError, ValueError):
                pass
    return min(max(wait, 0.0), MAX_RETRY_WAIT)
