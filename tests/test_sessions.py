"""A paper's sessions: read from any source's fields, kept with their time zone, shown in the
conference's own time; the fixture conference's paper page lists them with its links."""

import json

import pandas as pd
import pytest
from conference_server import conference_server
from conftest import plain, started

from lib.stages.sessions import parse_sessions, session_kind
from lib.store.sources import fetch_conference
from lib.views.text import session_text, session_time


def test_sessions_are_read_from_either_sources_names_earliest_first():
    warnings = []
    sessions = parse_sessions(
        [
            {
                "eventtype": "Poster",
                "session": "Poster Session 2",
                "room_name": "Hall B",
                "starttime": "2025-07-16T11:00:00-07:00",
                "poster_position": "B-12",
            },
            {
                "kind": "Oral",
                "name": "Oral 3A",
                "room": "Ballroom",
                "start": "2025-07-15T10:00:00-07:00",
                "end": "2025-07-15T10:15:00-07:00",
            },
        ],
        warnings,
    )
    assert [s["kind"] for s in sessions] == ["oral", "poster"] and not warnings
    assert sessions[0]["start"] == pd.Timestamp("2025-07-15T17:00:00Z") and sessions[1]["end"] is None
    assert sessions[1]["poster_position"] == "B-12" and sessions[0]["poster_position"] == ""


def test_a_bad_session_is_reported_never_a_crash():
    warnings = []
    sessions = parse_sessions(
        ["Poster 1", {"kind": "poster", "start": "next Tuesday"}, {"start": "2025-07-15 10:00"}], warnings
    )
    assert len(sessions) == 2 and sessions[0]["start"] == pd.Timestamp("2025-07-15T10:00:00Z")
    assert warnings == [
        "session 1 is a str, not a session with fields; dropped",
        "session 2 start 'next Tuesday' is not a date and time; left empty",
        "session 3 start '2025-07-15 10:00' has no time zone; read as UTC",
    ]
    assert parse_sessions("Poster 1", warnings) == [] and warnings[-1].startswith("sessions is a str")


@pytest.mark.parametrize(
    "given, kind",
    [
        ("Oral", "oral"),
        ("Accept (spotlight poster)", "spotlight"),
        ("{location} Poster", "poster"),
        ("Tutorial", "tutorial"),
    ],
)
def test_session_kinds(given, kind):
    assert session_kind(given) == kind


def test_a_session_reads_in_the_conferences_own_time():
    oral = {
        "kind": "oral",
        "name": "Oral 1A",
        "room": "West Ballroom A",
        "poster_position": "",
        "start": pd.Timestamp("2025-07-15T10:00:00-07:00"),
        "end": pd.Timestamp("2025-07-15T17:15:00Z"),
    }
    assert session_text(oral) == "Oral · Oral 1A · West Ballroom A · Tue 15 Jul 10:00–10:15 (UTC-07:00)"
    poster = {
        **oral,
        "kind": "poster",
        "name": "Poster Session 1",
        "room": "Hall A",
        "poster_position": "E-101",
        "start": None,
        "end": None,
    }
    assert session_text(poster) == "Poster · Poster Session 1 · Hall A, E-101" and session_time(poster) == ""


def test_the_paper_page_shows_where_and_when_a_paper_is_presented_and_its_links(tmp_path, monkeypatch):
    with conference_server() as server:
        fetched = fetch_conference("icml2025", tmp_path / "data", addresses=server.addresses, timeout=5)
    monkeypatch.setenv("PAPERMAP_DATA", str(fetched.path))
    monkeypatch.setenv("PAPERMAP_CACHE", str(tmp_path / "cache"))
    app = started()
    app.switch_page("app_pages/paper.py")
    app.query_params["paper"] = "Xk3vQ9aLpT"
    app.run()
    assert not app.exception
    facts = plain("\n".join(m.value for m in app.markdown))
    assert (
        "**Presented:** Oral · Oral 1A Generative Models · West Ballroom A · Tue 15 Jul 10:00–10:15 (UTC-07:00); "
        "Poster · Poster Session 1 East · East Exhibition Hall A-B, E-1001 · Tue 15 Jul 11:00–13:30 (UTC-07:00)"
        in facts
    )
    assert "**Institutions:** ETH Zurich; Mila" in facts
    assert "**Subfield:** Generative Models and Autoencoders (declared by the venue)" in facts
    links = [(b.proto.label, b.proto.url) for b in app.get("link_button")]
    assert links == [
        ("Open the paper", "https://icml.cc/virtual/2025/oral/43001"),
        ("OpenReview", "https://openreview.net/forum?id=Xk3vQ9aLpT"),
        ("PDF", "https://openreview.net/pdf/xk3vq9alpt.pdf"),
    ]
    assert json.loads(fetched.path.read_text())[0]["paper_id"] == "Xk3vQ9aLpT"
