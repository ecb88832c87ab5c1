"""PaperMap runs offline: a build, every dashboard page and every export reach nothing outside this
machine; the fetch command alone tries, with a timeout, and says the machine seems offline.

`network_guard` refuses and records every connection and name look-up except to this machine, in
the test process or, through a sitecustomize.py, in a `python -m lib` child process. How the fetch
behaves against a real server (slow, broken, refused) is in test_fetch.py.
"""

import re
import socket
import subprocess
import sys
from contextlib import closing

import pytest
from conftest import REPO, started
from network_guard import install, sitecustomize_env

from lib.builder.pipeline import build
from lib.errors import FetchError
from lib.store import reading_lists
from lib.store.fetch import fetch_paper_list
from lib.views import exports
from lib.views.map.figure import map_figure
from lib.views.tables import paper_table

OUTSIDE_IP = "192.0.2.1"  # TEST-NET-1: reserved for documentation, routed nowhere
PAGES = sorted(f"app_pages/{path.name}" for path in (REPO / "app_pages").glob("*.py"))
LIST_NAME = "Offline club"


@pytest.fixture
def attempts(monkeypatch) -> list[str]:
    """The network blocked in this process for the test; the attempts it refused."""
    refused: list[str] = []
    install(refused.append, monkeypatch.setattr)
    return refused


def test_the_guard_refuses_and_records_the_outside_and_lets_this_machine_through(attempts):
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        for host in ("127.0.0.1", "localhost"):
            socket.create_connection((host, port), timeout=5).close()
    with pytest.raises(OSError):
        socket.create_connection(("example.org", 80), timeout=5)
    with pytest.raises(OSError), socket.socket() as sock:
        sock.settimeout(5)
        sock.connect((OUTSIDE_IP, 80))
    with pytest.raises(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.sendto(b"x", (OUTSIDE_IP, 53))
    assert attempts == [
        "look up example.org",
        f"connect to {OUTSIDE_IP}:80 (timeout 5 s)",
        f"connect to {OUTSIDE_IP}:53 (no timeout)",
    ]


@pytest.mark.parametrize(
    "url, attempt",
    [
        (
            "https://raw.githubusercontent.com/papercopilot/paperlists/main/icml/icml2025.json",
            "look up raw.githubusercontent.com",
        ),
        (f"http://{OUTSIDE_IP}/icml2025.json", f"connect to {OUTSIDE_IP}:80 (timeout 5 s)"),
    ],
)
def test_fetch_alone_reaches_out_with_a_timeout_and_says_it_is_offline(attempts, tmp_path, url, attempt):
    with pytest.raises(FetchError, match="this machine seems to be offline"):
        fetch_paper_list(url, tmp_path / "data", timeout=5)
    assert attempts == [attempt]
    assert not (tmp_path / "data").exists()


def test_a_build_every_page_and_every_export_stay_on_this_machine(attempts, planted_file, tmp_path, monkeypatch):
    data = planted_file
    papers = build(
        data, cache_dir=tmp_path / "cache", out_dir=tmp_path / "out"
    ).papers  # every stage, from an empty cache
    db_path = tmp_path / "lists.sqlite"
    with closing(reading_lists.connect(db_path)) as db:
        reading_lists.create_list(db, LIST_NAME)
        reading_lists.add_papers(db, LIST_NAME, papers.head(5), data.name)
        entries = reading_lists.entries(db, LIST_NAME)
    for name, value in {"PAPERMAP_DATA": data, "PAPERMAP_CACHE": tmp_path / "cache", "PAPERMAP_DB": db_path}.items():
        monkeypatch.setenv(name, str(value))

    app = started(paper="privacy-0")  # the map, with a paper's card open
    for page in PAGES:
        app.switch_page(page)
        app.query_params["paper"], app.query_params["list"] = (
            "privacy-0",
            LIST_NAME,
        )  # the paper and list pages show one
        app.run()
        assert not app.exception, (page, app.exception)
    assert set(PAGES) == set(
        re.findall(r'st\.Page\(\s*"(app_pages/[^"]+)"', (REPO / "dashboard.py").read_text())
    )  # every page

    downloads = [
        exports.markdown_agenda(LIST_NAME, entries),
        exports.bibtex(entries),
        exports.csv_text(entries),
        exports.table_csv(paper_table(papers)),
        exports.map_html(map_figure(papers, "subfield", "topic_label")),
    ]
    assert all(downloads) and attempts == []


def test_the_build_command_makes_no_outside_connection(planted_file, tmp_path):
    """In a child process, as people run it; the same guard refuses the fetch command there."""
    data = planted_file
    log = tmp_path / "attempts.log"
    env = sitecustomize_env(tmp_path / "site", log)

    def lib_command(*args):
        return subprocess.run(
            [sys.executable, "-m", "lib", *map(str, args)],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )

    built = lib_command("build", data, "--out", tmp_path / "out", "--cache", tmp_path / "cache")
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "out" / "papers.parquet").exists()
    assert not log.exists()
    fetched = lib_command(
        "fetch", "--url", f"http://{OUTSIDE_IP}/icml2025.json", "--timeout", 5, "--out", tmp_path / "data"
    )
    assert fetched.returncode == 2 and "this machine seems to be offline" in fetched.stderr
    assert log.read_text().splitlines() == [f"connect to {OUTSIDE_IP}:80 (timeout 5 s)"]  # the guard works in a child


def test_fetching_a_conference_offline_asks_each_source_once_and_stops_with_one_sentence(tmp_path):
    log = tmp_path / "attempts.log"
    env = sitecustomize_env(tmp_path / "site", log)
    for variable in ("PAPERMAP_VIRTUAL_SITE_URL", "PAPERMAP_OPENREVIEW_URL", "PAPERMAP_PAPERLISTS_URL"):
        env.pop(variable, None)
    done = subprocess.run(
        [sys.executable, "-m", "lib", "fetch", "icml2025", "--out", str(tmp_path / "data"), "--quiet"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("error: Could not download ICML 2025 from any source: this machine seems to be offline")
    assert log.read_text().splitlines() == [
        "look up icml.cc",
        "look up api2.openreview.net",
        "look up raw.githubusercontent.com",
    ]
    assert not (tmp_path / "data").exists()
