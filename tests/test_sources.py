"""Fetching a whole conference from its three sources, against local servers (never the internet)."""

import json
import subprocess
import sys

import pandas as pd
import pytest
from conference_server import (
    ACCOUNT,
    OPENREVIEW_FILE,
    PAPERLISTS_FILE,
    TOKEN,
    VIRTUAL_SITE_FILE,
    VIRTUAL_SITE_PATH,
    Behaviour,
    conference_server,
    generated_notes,
)
from conftest import REPO
from local_server import closed_port_url

from lib.errors import FetchError, ParameterError
from lib.stages.load import load_papers
from lib.stages.readers import detect_format
from lib.store.datasets import check_paper_list
from lib.store.fetch import MAX_RETRIES
from lib.store.merge import json_value
from lib.store.sources import (
    NEEDS_ACCOUNT,
    OpenReviewAccount,
    SourceAddresses,
    conference,
    fetch_conference,
)

ALL_PAPERS = 20  # P1..P20 of the fixture conference: 18 on the virtual site, 17 on OpenReview, 17 on Paper Copilot


def fetched(tmp_path, behaviour=None, **kwargs):
    with conference_server(behaviour) as server:
        kwargs.setdefault("sleep", lambda seconds: None)
        result = fetch_conference("icml2025", tmp_path, addresses=server.addresses, timeout=5, **kwargs)
    return result, server


def by_title(papers, words):
    rows = papers[papers["title"].str.contains(words, case=False, regex=False)]
    assert len(rows) == 1, (words, list(rows["title"]))
    return rows.iloc[0]


def test_the_three_sources_make_one_list_with_abstracts_areas_and_sessions(tmp_path):
    result, _ = fetched(tmp_path)
    assert result.path == tmp_path / "icml2025.json" and [p.name for p in tmp_path.iterdir()] == ["icml2025.json"]
    assert [(s.source, s.papers, s.error) for s in result.sources] == [
        ("virtual-site", 18, ""),
        ("openreview", 17, ""),
        ("paperlists", 17, ""),
    ]
    papers = load_papers(result.path).papers
    assert len(papers) == result.papers == ALL_PAPERS and papers["paper_id"].is_unique
    # An oral is one paper with two sessions, earliest first, in Vancouver's time (UTC-7).
    oral = by_title(papers, "Flow Matching with Optimal Transport")
    assert [(s["kind"], s["name"], s["poster_position"]) for s in oral["sessions"]] == [
        ("oral", "Oral 1A Generative Models", ""),
        ("poster", "Poster Session 1 East", "E-1001"),
    ]
    start = oral["sessions"][0]["start"]
    assert start == pd.Timestamp("2025-07-15T17:00:00Z") and start.utcoffset() == pd.Timedelta(hours=-7)
    assert oral["status"] == "Oral" and oral["institutions"] == ["ETH Zurich", "Mila"]
    assert (oral["declared_area"], oral["declared_subarea"]) == ("Deep Learning", "Generative Models and Autoencoders")
    assert oral["openreview_url"] == "https://openreview.net/forum?id=Xk3vQ9aLpT"
    assert oral["pdf_url"] == "https://openreview.net/pdf/xk3vq9alpt.pdf"  # OpenReview's PDF comes first
    # Missing abstracts are filled by the source that has one: P4 is on OpenReview only.
    assert by_title(papers, "Differentially Private Fine-Tuning")["abstract"].startswith("We study differentially")
    assert (papers["abstract"] == "").sum() == 1  # the position paper: no source has its abstract
    # ICML's area comes first; where the virtual site has none, OpenReview's primary_area fills it.
    assert by_title(papers, "Adaptive Gradient Methods")["primary_area"] == "Optimization->Stochastic"


def test_a_title_written_differently_in_two_sources_is_one_paper(tmp_path):
    result, _ = fetched(tmp_path)
    records = json.loads(result.path.read_text())
    scaling = [r for r in records if "scaling laws" in r["title"].lower()]
    assert len(scaling) == 1 and scaling[0]["sources"] == ["virtual-site", "openreview", "paperlists"]
    assert scaling[0]["title"] == "Scaling Laws for Sparse Mixture-of-Experts Language Models"  # ICML's own
    assert result.merge.matched_by_title == 3  # this one, in OpenReview and Paper Copilot; and P17
    singles = {r["title"][:20]: r["sources"] for r in records if len(r["sources"]) == 1}
    assert sorted(singles.values()) == [["openreview"], ["paperlists"], ["virtual-site"]]


def test_every_field_of_the_list_is_traced_to_a_source_that_has_that_value(tmp_path):
    result, _ = fetched(tmp_path)
    sources = {
        "virtual-site": load_papers(VIRTUAL_SITE_FILE).papers,
        "openreview": load_papers(OPENREVIEW_FILE).papers,
        "paperlists": load_papers(PAPERLISTS_FILE).papers,
    }
    for record in json.loads(result.path.read_text()):
        for name, source in record["field_sources"].items():
            if name == "paper_id":
                continue
            table = sources[source]
            values = [json_value(v) for v in table[name]]  # as the list holds them
            assert record[name] in values, (record["title"], name, source)


def test_the_report_says_what_came_from_where(tmp_path):
    result, _ = fetched(tmp_path)
    text = "\n".join(result.lines())
    assert text.startswith(f"Saved {ALL_PAPERS} papers of ICML 2025 (") and "from 3 of 3 sources" in text
    assert "virtual-site: 18 papers" in text and "openreview: 17 papers" in text and "paperlists: 17 papers" in text
    assert "matched across sources: 29 by OpenReview id, 3 by title" in text
    assert "only in: virtual-site 1, openreview 1, paperlists 1" in text
    assert "sessions: 18 of 20 (virtual-site 18)" in text
    assert "abstract: 19 of 20 (openreview 17, virtual-site 1, paperlists 1)" in text


def test_each_source_file_saved_by_hand_opens_as_its_own_format():
    assert detect_format(VIRTUAL_SITE_FILE.read_bytes()) == "virtual-site"
    assert detect_format(OPENREVIEW_FILE.read_bytes()) == "openreview"
    assert detect_format(PAPERLISTS_FILE.read_bytes()) == "json"
    events = load_papers(VIRTUAL_SITE_FILE)
    # 20 events, 18 papers: two orals with their posters, one joined by parent and uid alone.
    assert events.report.records_read == 18 and len(events.papers) == 18 and not events.report.warnings
    two = events.papers[events.papers["sessions"].map(len) == 2]
    assert sorted(two["paper_id"]) == ["Bq7rT2mWeN", "Xk3vQ9aLpT"]
    notes = load_papers(OPENREVIEW_FILE).papers
    assert set(notes["status"]) == {"Oral", "Spotlight", "Poster"}  # "ICML 2025 spotlightposter" too


def test_posters_of_one_session_are_different_papers():
    # Posters share their session's parent id; an id not in the file links nothing.
    events = json.loads(VIRTUAL_SITE_FILE.read_text())
    for event in events["results"]:
        event["parent_id"] = 99999 if event["eventtype"] == "Poster" else event["parent_id"]
    from lib.stages.load import papers_from_bytes

    papers = papers_from_bytes(json.dumps(events).encode(), VIRTUAL_SITE_FILE).papers
    assert len(papers) == 18


def test_openreview_without_an_account_says_so_and_the_others_still_make_the_list(tmp_path):
    result, _ = fetched(tmp_path, Behaviour(openreview_needs_login=True))
    failed = {s.source: s.error for s in result.sources if s.error}
    assert failed == {"openreview": NEEDS_ACCOUNT}
    assert "OPENREVIEW_USERNAME" in NEEDS_ACCOUNT and "OPENREVIEW_PASSWORD" in NEEDS_ACCOUNT
    papers = load_papers(result.path).papers
    assert len(papers) == ALL_PAPERS - 1  # the paper only OpenReview lists is missing, nothing else
    assert "openreview: failed: OpenReview needs an account" in "\n".join(result.lines())


def test_with_an_account_it_logs_in_and_sends_the_token(tmp_path):
    account = OpenReviewAccount(*ACCOUNT)
    result, server = fetched(tmp_path, Behaviour(openreview_needs_login=True), account=account)
    assert all(not s.error for s in result.sources) and result.papers == ALL_PAPERS
    logins = [r for r in server.requests if r[0] == "POST"]
    assert len(logins) == 1 and logins[0][1] == "/openreview/login"
    notes = [r for r in server.requests if r[1].startswith("/openreview/notes")]
    assert notes and all(r[2].get("Authorization") == f"Bearer {TOKEN}" for r in notes)
    assert ACCOUNT[1] not in repr(account)  # the password never lands in a message or log


def test_a_wrong_password_names_the_variables_to_check(tmp_path):
    result, _ = fetched(tmp_path, Behaviour(openreview_needs_login=True), account=OpenReviewAccount(ACCOUNT[0], "no"))
    error = next(s.error for s in result.sources if s.source == "openreview")
    assert "did not log in reader@example.org (403)" in error and "OPENREVIEW_PASSWORD" in error
    assert "\n" not in error and "no" not in error.split("(")[0].split()


def test_too_many_requests_is_honoured_politely_and_boundedly(tmp_path):
    waits = []
    result, _ = fetched(tmp_path, Behaviour(rate_limited=2, retry_after="2"), sleep=waits.append)
    assert waits == [2.0, 2.0] and result.papers == ALL_PAPERS  # asked again after the wait it asked for
    waits.clear()
    result, server = fetched(tmp_path, Behaviour(rate_limited=100, retry_after="3600"), sleep=waits.append)
    assert len(waits) == MAX_RETRIES and max(waits) == 60.0  # capped, then that source gives up
    error = next(s.error for s in result.sources if s.source == "openreview")
    assert "429" in error and result.papers == ALL_PAPERS - 1


@pytest.mark.parametrize("n, offsets", [(1000, [0, 1000]), (1001, [0, 1000, 2000]), (999, [0, 1000])])
def test_openreview_pages_run_until_one_comes_back_empty(tmp_path, n, offsets):
    result, server = fetched(tmp_path, Behaviour(notes=generated_notes(n)), sources=("openreview",))
    assert server.offsets() == offsets and result.papers == n
    assert server.offsets("ICML.cc/2025/Position_Paper_Track") == [0]  # the position papers' track, empty here


@pytest.mark.parametrize("how", ["truncated", "cut_json"])
def test_a_body_cut_short_fails_its_source_only(tmp_path, how):
    result, _ = fetched(tmp_path, Behaviour(**{how: {VIRTUAL_SITE_PATH}}))
    error = next(s.error for s in result.sources if s.source == "virtual-site")
    assert ("broke off" if how == "truncated" else "did not send a paper list") in error
    assert "\n" not in error and VIRTUAL_SITE_PATH in error
    assert result.papers == ALL_PAPERS - 1  # the paper only the virtual site lists


def test_when_no_source_answers_it_stops_with_one_sentence_and_saves_nothing(tmp_path):
    closed = closed_port_url().rsplit("/", 2)[0]
    offline = SourceAddresses(closed, f"{closed}/openreview", f"{closed}/paperlists")
    with pytest.raises(FetchError) as raised:
        fetch_conference("icml2025", tmp_path, addresses=offline, timeout=5)
    assert "this machine seems to be offline" in str(raised.value) and "\n" not in str(raised.value)
    everything = {"/static/virtual/data/icml-2025-orals-posters.json": 500, "/paperlists/icml/icml2025.json": 404}
    with pytest.raises(FetchError) as raised:
        fetched(tmp_path, Behaviour(openreview_needs_login=True, failing=everything))
    message = str(raised.value)
    assert message.startswith("No source of ICML 2025 answered with papers (virtual-site: ") and "\n" not in message
    assert "answered 500" in message and NEEDS_ACCOUNT.rstrip(".") in message and "answered 404" in message
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "name, expected", [("icml2025", "ICML 2025"), ("NeurIPS-2024", "NeurIPS 2024"), ("iclr 2025", "ICLR 2025")]
)
def test_conferences_are_named_as_the_sources_name_them(name, expected):
    conf = conference(name)
    assert conf.label == expected
    urls = SourceAddresses()
    assert urls.url("virtual-site", conf).startswith(f"https://{conf.venue.lower()}.cc/static/virtual/data/")
    assert urls.url("paperlists", conf).endswith(f"/{conf.venue.lower()}/{conf.name}.json")
    assert conf.openreview_venue_ids[0] == f"{conf.venue}.cc/{conf.year}/Conference"


def test_an_unknown_conference_is_one_sentence():
    with pytest.raises(ParameterError, match="give one such as icml2025"):
        conference("cvpr2025")


def test_fetch_command_prints_the_report_and_the_list_builds(tmp_path):
    with conference_server() as server:
        env = {**__import__("os").environ, **server.environment()}
        done = subprocess.run(
            [sys.executable, "-m", "lib", "fetch", "icml2025", "--out", str(tmp_path), "--timeout", "5"],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("Saved 20 papers of ICML 2025") and any(line.startswith("openreview:") for line in lines)
    assert len(load_papers(tmp_path / "icml2025.json").papers) == ALL_PAPERS


def test_a_source_file_uploaded_by_hand_is_accepted_as_a_paper_list():
    for path, papers in ((VIRTUAL_SITE_FILE, 18), (OPENREVIEW_FILE, 17), (PAPERLISTS_FILE, 17)):
        name, read = check_paper_list(path.read_bytes(), path.name, fallback="upload")
        assert read == papers and name.endswith(".json")
