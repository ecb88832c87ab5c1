"""Fetch a whole conference (ICML, NeurIPS or ICLR of a year) from every public source that answers,
merged into one paper list in the data folder.

The sources, each read by the loader as the user would read its file saved by hand:

- `virtual-site`: the conference site's events, `https://icml.cc/static/virtual/data/icml-2025-orals-posters.json`
  (titles, authors with institutions, abstracts, ICML's own `Area->Subarea`, sessions, rooms, times);
- `openreview`: OpenReview API v2, `GET /notes?content.venueid=ICML.cc/2025/Conference`, pages of
  1,000 (abstracts, keywords, `primary_area`, PDF); bulk reads need an account, logged in from
  `OPENREVIEW_USERNAME` and `OPENREVIEW_PASSWORD`;
- `paperlists`: Paper Copilot's `icml/icml2025.json` (whatever fields it has).

A source that fails is reported in one line and the others still make the list (`lib.store.merge`).
Every request goes through `lib.store.fetch.request`, the one way to the network.
"""

from __future__ import annotations

import json
import os
import re
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lib.errors import FetchError, HTTPStatusError, InputError, OfflineError, PaperMapError, ParameterError
from lib.files import atomic_write_bytes
from lib.store.datasets import human_size
from lib.store.fetch import request
from lib.store.fetch_settings import DEFAULT_TIMEOUT, SOURCES

# Reading and merging need pandas, imported when a fetch runs: `python -m lib` answers without it.
if TYPE_CHECKING:
    from lib.stages.load import LoadResult
    from lib.store.merge import MergeReport

# Conference names as `python -m lib fetch` takes them (`icml2025`), and how the venue is written.
VENUES = {"icml": "ICML", "neurips": "NeurIPS", "iclr": "ICLR"}
OPENREVIEW_API = "https://api2.openreview.net"
PAPERLISTS_BASE = "https://raw.githubusercontent.com/papercopilot/paperlists/main"
OPENREVIEW_PAGE = 1000  # the most notes the API sends per request
MAX_OPENREVIEW_PAGES = 100  # 100,000 papers: a server that never sends an empty page still stops
MAX_EVENT_PAGES = 100
NEEDS_ACCOUNT = (
    "OpenReview needs an account for bulk reads: set OPENREVIEW_USERNAME and OPENREVIEW_PASSWORD to fetch from it."
)

# progress(message): one line saying what the fetch is doing now; what it returns is ignored.
Progress = Callable[[str], object]


@dataclass(frozen=True)
class Conference:
    """One conference of one year, as its sources name it."""

    venue: str  # as written: "ICML", "NeurIPS", "ICLR"
    year: int

    @property
    def name(self) -> str:
        return f"{self.venue.lower()}{self.year}"

    @property
    def label(self) -> str:
        return f"{self.venue} {self.year}"

    @property
    def host(self) -> str:
        return f"{self.venue.lower()}.cc"

    @property
    def openreview_venue_ids(self) -> tuple[str, ...]:
        main = f"{self.venue}.cc/{self.year}/Conference"
        # ICML accepts position papers in a track of their own since 2024.
        return (
            (main, f"ICML.cc/{self.year}/Position_Paper_Track")
            if self.venue == "ICML" and self.year >= 2024
            else (main,)
        )


def conference(name: str) -> Conference:
    """The conference `name` names (`icml2025`, `NeurIPS-2024`, `iclr 2025`); `ParameterError` otherwise."""
    match = re.fullmatch(r"\s*([A-Za-z]+)[\s_\-]*((?:19|20)\d\d)\s*", name)
    if not match or match.group(1).lower() not in VENUES:
        known = ", ".join(f"{v}2025" for v in VENUES)
        raise ParameterError(f"{name!r} is not a conference PaperMap can fetch; give one such as {known}.")
    return Conference(VENUES[match.group(1).lower()], int(match.group(2)))


@dataclass(frozen=True)
class SourceAddresses:
    """Where each source lives: the public servers, or mirrors (and the tests' local servers)."""

    virtual_site: str = ""  # base URL; "" means the conference's own site (https://icml.cc)
    openreview: str = OPENREVIEW_API
    paperlists: str = PAPERLISTS_BASE

    @classmethod
    def from_env(cls) -> SourceAddresses:
        """Addresses from PAPERMAP_VIRTUAL_SITE_URL, PAPERMAP_OPENREVIEW_URL and PAPERMAP_PAPERLISTS_URL, else the public ones."""
        return cls(
            os.environ.get("PAPERMAP_VIRTUAL_SITE_URL", ""),
            os.environ.get("PAPERMAP_OPENREVIEW_URL") or OPENREVIEW_API,
            os.environ.get("PAPERMAP_PAPERLISTS_URL") or PAPERLISTS_BASE,
        )

    def url(self, source: str, conf: Conference) -> str:
        """The address of `source`'s list of `conf` (for OpenReview, the API's root)."""
        venue = conf.venue.lower()
        if source == "virtual-site":
            base = self.virtual_site or f"https://{conf.host}"
            return f"{base.rstrip('/')}/static/virtual/data/{venue}-{conf.year}-orals-posters.json"
        if source == "paperlists":
            return f"{self.paperlists.rstrip('/')}/{venue}/{venue}{conf.year}.json"
        return self.openreview.rstrip("/")


@dataclass(frozen=True)
class OpenReviewAccount:
    username: str
    password: str = field(repr=False)

    @classmethod
    def from_env(cls) -> OpenReviewAccount | None:
        """The account in OPENREVIEW_USERNAME and OPENREVIEW_PASSWORD, or None when either is unset."""
        username, password = os.environ.get("OPENREVIEW_USERNAME", ""), os.environ.get("OPENREVIEW_PASSWORD", "")
        return cls(username, password) if username and password else None


@dataclass
class SourceResult:
    """What one source gave: its papers (and records it skipped), or the one sentence why it failed."""

    source: str
    url: str
    papers: int = 0
    skipped: int = 0
    error: str = ""
    offline: bool = False
    seconds: float = 0.0

    def line(self) -> str:
        if self.error:
            return f"{self.source}: failed: {self.error}"
        skipped = f", {self.skipped:,} records skipped" if self.skipped else ""
        return f"{self.source}: {self.papers:,} papers{skipped} from {self.url} ({self.seconds:.1f} s)"


@dataclass
class ConferenceFetch:
    """A conference fetched by `fetch_conference`: the saved list, and what came from where."""

    conference: Conference
    path: Path
    size: int  # bytes
    sources: list[SourceResult]
    merge: MergeReport

    @property
    def papers(self) -> int:
        return self.merge.merged

    def summary(self) -> str:
        answered = sum(not s.error for s in self.sources)
        return (
            f"Saved {self.papers:,} papers of {self.conference.label} ({human_size(self.size)}) from "
            f"{answered} of {len(self.sources)} sources as {self.path}."
        )

    def lines(self) -> list[str]:
        """The report: the summary, one line per source, then the merge's lines."""
        return [self.summary(), *(s.line() for s in self.sources), *self.merge.lines()]


def fetch_conference(
    name: str,
    out_dir: Path,
    *,
    addresses: SourceAddresses | None = None,
    account: OpenReviewAccount | None = None,
    sources: tuple[str, ...] = SOURCES,
    timeout: float = DEFAULT_TIMEOUT,
    progress: Progress | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> ConferenceFetch:
    """Fetch conference `name` from each of `sources` that answers, merge them, and save the list
    as `out_dir/<name>.json` (atomically, replacing an earlier one).

    Raises `ParameterError` for an unknown conference and `FetchError` (one sentence) when no
    source answers with papers; nothing is written then.
    """
    from lib.store.merge import merge_tables

    conf = conference(name)
    addresses = addresses or SourceAddresses()
    say = progress or (lambda message: None)
    tables = {}
    results = []
    for source in sources:
        url = addresses.url(source, conf)
        result = SourceResult(source, url)
        started = time.perf_counter()
        say(f"{conf.label}: asking {source} ({url})")
        try:
            if source == "openreview":
                content = openreview_notes(conf, url, account, timeout=timeout, progress=say, sleep=sleep)
            elif source == "virtual-site":
                content = virtual_site_events(url, timeout=timeout, sleep=sleep)
            else:
                content = request(url, timeout=timeout, sleep=sleep)
            loaded = _read(content, url, Path(f"{conf.name}-{source}.json"))
        except PaperMapError as error:
            result.error, result.offline = str(error), isinstance(error, OfflineError)
        else:
            tables[source] = loaded.papers
            result.papers, result.skipped = len(loaded.papers), len(loaded.report.skipped)
        result.seconds = time.perf_counter() - started
        say(result.line())
        results.append(result)
    if not tables:
        raise FetchError(_none_answered(conf, results))
    records, report = merge_tables(tables)
    content = json.dumps(records, ensure_ascii=False).encode()
    path = Path(out_dir) / f"{conf.name}.json"
    atomic_write_bytes(path, content)
    return ConferenceFetch(conf, path, len(content), results, report)


def _read(content: bytes, url: str, name: Path) -> LoadResult:
    """The papers a source sent, read as its file would be (`name` gives the venue and year)."""
    from lib.stages.load import papers_from_bytes

    try:
        loaded = papers_from_bytes(content, name)
    except InputError as error:
        raise FetchError(f"{url} did not send a paper list PaperMap can read ({error}).") from None
    if loaded.papers.empty:
        raise FetchError(f"{url} sent no paper ({loaded.report.summary()}).")
    return loaded


def virtual_site_events(
    url: str, *, timeout: float = DEFAULT_TIMEOUT, sleep: Callable[[float], None] = time.sleep
) -> bytes:
    """A virtual site's events document at `url`, with the events of every further page its
    `next` links to (the site sends one document; a paginated mirror would not) appended."""
    content = request(url, timeout=timeout, sleep=sleep)
    try:
        data = json.loads(content)
    except (ValueError, RecursionError):
        return content  # the reader says what is wrong with it
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        return content
    pages = 1
    while isinstance(data.get("next"), str) and data["next"] and pages < MAX_EVENT_PAGES:
        next_url = urllib.parse.urljoin(url, data["next"])
        page = _json_of(request(next_url, timeout=timeout, sleep=sleep), next_url)
        if not isinstance(page, dict) or not isinstance(page.get("results"), list):
            raise FetchError(f'{next_url} did not send events ({{"results": [...]}}); nothing was saved.')
        data["results"] += page["results"]
        data["next"] = page.get("next")
        pages += 1
    return json.dumps(data).encode() if pages > 1 else content


def _none_answered(conf: Conference, results: list[SourceResult]) -> str:
    if results and all(r.offline for r in results):
        return (
            f"Could not download {conf.label} from any source: this machine seems to be offline or the servers "
            f"did not answer ({', '.join(r.url for r in results)}); nothing was saved."
        )
    reasons = "; ".join(f"{r.source}: {r.error.rstrip('.')}" for r in results)
    return f"No source of {conf.label} answered with papers ({reasons}); nothing was saved."


def openreview_notes(
    conf: Conference,
    api: str,
    account: OpenReviewAccount | None,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    progress: Progress | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> bytes:
    """Every accepted paper of `conf` from the OpenReview API v2 at `api`, as one notes document
    (`{"notes": [...], "count": N}`, the loader's `openreview` format).

    Pages of `OPENREVIEW_PAGE` notes are asked for until one comes back empty. With `account`,
    it logs in first and sends the token; without, a refusal says in one sentence that OpenReview
    needs an account (`NEEDS_ACCOUNT`).
    """
    say = progress or (lambda message: None)
    headers = {"Authorization": f"Bearer {openreview_token(api, account, timeout)}"} if account else {}
    notes: list = []
    for venue_id in conf.openreview_venue_ids:
        for page in range(MAX_OPENREVIEW_PAGES):
            query = urllib.parse.urlencode(
                {"content.venueid": venue_id, "limit": OPENREVIEW_PAGE, "offset": page * OPENREVIEW_PAGE}
            )
            url = f"{api}/notes?{query}"
            try:
                body = request(url, headers=headers, timeout=timeout, sleep=sleep)
            except HTTPStatusError as error:
                if error.status in (401, 403):
                    raise FetchError(
                        NEEDS_ACCOUNT
                        if account is None
                        else f"OpenReview refused the account {account.username} ({error.status}) at {url}."
                    ) from None
                raise
            page_notes = _notes_of(body, url)
            if not page_notes:
                break
            notes += page_notes
            say(f"openreview: {len(notes):,} papers so far ({venue_id})")
    return json.dumps({"notes": notes, "count": len(notes)}).encode()


def _json_of(body: bytes, url: str) -> Any:
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        raise FetchError(f"{url} did not send JSON (it may have been cut off); nothing was saved.") from None


def _notes_of(body: bytes, url: str) -> list:
    data = _json_of(body, url)
    if not isinstance(data, dict) or not isinstance(data.get("notes"), list):
        raise FetchError(f'{url} did not send OpenReview notes ({{"notes": [...]}}); nothing was saved.')
    return data["notes"]


def openreview_token(api: str, account: OpenReviewAccount, timeout: float = DEFAULT_TIMEOUT) -> str:
    """Log in to the OpenReview API at `api` (`POST /login`) and return the bearer token."""
    url = f"{api}/login"
    body = json.dumps({"id": account.username, "password": account.password}).encode()
    try:
        answer = request(url, data=body, headers={"Content-Type": "application/json"}, timeout=timeout)
    except HTTPStatusError as error:
        raise FetchError(
            f"OpenReview did not log in {account.username} ({error.status}): check OPENREVIEW_USERNAME and "
            "OPENREVIEW_PASSWORD."
        ) from None
    try:
        token = json.loads(answer)["token"]
    except (ValueError, KeyError, TypeError):
        token = None
    if not isinstance(token, str) or not token:
        raise FetchError(f"{url} answered the login without a token; nothing was fetched from OpenReview.")
    return token
