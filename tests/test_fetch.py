"""Fetching a paper list over HTTP, against a local server on 127.0.0.1 (never the internet)."""

import json
import os
import subprocess
import sys
import time

import pytest
from conftest import REPO
from local_server import PLANTED_LIST, closed_port_url, paper_server

from lib.errors import FetchError
from lib.stages.load import load_papers
from lib.store.fetch import fetch_paper_list, request
from lib.store.sources import SourceAddresses, conference


@pytest.fixture(scope="module")
def server():
    with paper_server() as base:
        yield base


def files_in(folder):
    return sorted(p.name for p in folder.rglob("*")) if folder.exists() else []


def test_fetch_saves_the_list_under_its_url_name_and_it_loads(server, tmp_path):
    fetched = fetch_paper_list(f"{server}/icml/icml2025.json", tmp_path / "data", timeout=5)
    assert fetched.path == tmp_path / "data" / "icml2025.json"
    assert fetched.path.read_bytes() == PLANTED_LIST and fetched.size == len(PLANTED_LIST)
    assert fetched.papers == 18 == len(load_papers(fetched.path).papers)
    assert files_in(tmp_path / "data") == ["icml2025.json"]  # no temp file left behind
    assert "18 papers" in fetched.summary() and str(fetched.path) in fetched.summary()


def test_fetching_again_replaces_the_earlier_download(server, tmp_path):
    (tmp_path / "icml2025.json").write_text("[]")
    fetch_paper_list(f"{server}/icml/icml2025.json", tmp_path, timeout=5)
    assert (tmp_path / "icml2025.json").read_bytes() == PLANTED_LIST


@pytest.mark.parametrize(
    "path, words",
    [
        ("/missing.json", ["404", "nothing was saved"]),
        ("/not-a-list.json", ["did not send a paper list", "expected a JSON list"]),
        ("/image.json", ["did not send a paper list", "UTF-8"]),
        ("/broken-off.json", ["broke off", "nothing was saved"]),
    ],
)
def test_a_bad_answer_is_one_sentence_and_keeps_the_earlier_file(server, tmp_path, path, words):
    earlier = tmp_path / "icml2025.json"
    earlier.write_bytes(PLANTED_LIST)
    url = f"{server}{path}"
    with pytest.raises(FetchError) as raised:
        fetch_paper_list(url, tmp_path, timeout=5)
    message = str(raised.value)
    assert url in message and all(w in message for w in words), message
    assert "\n" not in message and message.endswith(".")
    assert files_in(tmp_path) == ["icml2025.json"] and earlier.read_bytes() == PLANTED_LIST


def test_a_refused_connection_says_the_machine_seems_offline(tmp_path):
    url = closed_port_url()
    with pytest.raises(FetchError) as raised:
        fetch_paper_list(url, tmp_path / "data", timeout=5)
    message = str(raised.value)
    assert url in message and "offline" in message and "did not answer" in message
    assert not (tmp_path / "data").exists()


def test_a_server_slower_than_the_timeout_did_not_answer(server, tmp_path):
    with pytest.raises(FetchError, match="did not answer"):
        fetch_paper_list(f"{server}/slow.json", tmp_path, timeout=0.5)
    assert files_in(tmp_path) == []


def test_the_timeout_bounds_a_download_that_trickles_in_a_byte_at_a_time(server, tmp_path):
    started = time.monotonic()
    with pytest.raises(FetchError, match="took longer than 1 s"):
        fetch_paper_list(f"{server}/trickle.json", tmp_path, timeout=1)
    assert time.monotonic() - started < 3  # the server would take a minute
    assert files_in(tmp_path) == []


def test_credentials_go_to_their_own_host_only(server):
    headers = {"Authorization": "Bearer secret-token", "Cookie": "session=1"}
    same = json.loads(request(f"{server}/to-same-host", headers=headers, timeout=5))
    assert same == {"Authorization": "Bearer secret-token", "Cookie": "session=1"}
    other = json.loads(request(f"{server}/to-other-host", headers=headers, timeout=5))
    assert other == {"Authorization": "", "Cookie": ""}


def test_a_redirect_to_anything_but_http_is_refused(server, tmp_path):
    with pytest.raises(FetchError, match="non-http address ftp://"):
        fetch_paper_list(f"{server}/to-ftp", tmp_path, timeout=5)
    assert files_in(tmp_path) == []


def test_a_download_larger_than_the_limit_is_refused(server, tmp_path):
    with pytest.raises(FetchError, match="sent more than"):
        fetch_paper_list(f"{server}/icml/icml2025.json", tmp_path, timeout=5, max_bytes=1000)
    assert files_in(tmp_path) == []


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://127.0.0.1/x.json", "icml2025.json"])
def test_only_http_addresses_are_fetched(tmp_path, url):
    with pytest.raises(FetchError, match="not an http or https address"):
        fetch_paper_list(url, tmp_path)


def test_the_public_sources_of_icml_2025_are_the_documented_ones():
    icml, public = conference("icml2025"), SourceAddresses()
    assert (
        public.url("paperlists", icml)
        == "https://raw.githubusercontent.com/papercopilot/paperlists/main/icml/icml2025.json"
    )
    assert public.url("virtual-site", icml) == "https://icml.cc/static/virtual/data/icml-2025-orals-posters.json"
    assert public.url("openreview", icml) == "https://api2.openreview.net"
    assert icml.openreview_venue_ids == ("ICML.cc/2025/Conference", "ICML.cc/2025/Position_Paper_Track")


def fetch_cli(*args, data_dir):
    env = {**os.environ, "PAPERMAP_DATA_DIR": str(data_dir)}
    return subprocess.run(
        [sys.executable, "-m", "lib", "fetch", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )


def test_fetch_command_saves_into_the_data_folder_and_prints_one_line(server, tmp_path):
    done = fetch_cli("--url", f"{server}/icml/icml2025.json", "--timeout", "5", data_dir=tmp_path / "data")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("\n") == 1 and done.stdout.startswith("Saved 18 papers")
    assert (tmp_path / "data" / "icml2025.json").read_bytes() == PLANTED_LIST


def test_fetch_command_offline_exits_non_zero_with_one_error_line(tmp_path):
    url = closed_port_url()
    done = fetch_cli("--url", url, "--out", tmp_path / "out", "--timeout", "5", data_dir=tmp_path / "data")
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: Could not download ") and url in lines[0]
    assert "offline" in lines[0] and "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists() and not (tmp_path / "data").exists()
