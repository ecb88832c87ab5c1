"""The schedule: presentations in the conference's time, session and day facets, a plan's
conflicts, its iCalendar file (read back with the `icalendar` parser) and printable agenda, and
the Schedule page under AppTest. All on the fixture conference (tests/fixtures/icml2025)."""

import datetime
import json

import icalendar
import pandas as pd
import pytest
from conference_server import conference_server
from conftest import HashingEmbedder, plain, started

from lib.builder.pipeline import build
from lib.store.sources import fetch_conference
from lib.views import schedule
from lib.views.filters import Filters, facet_options, filter_papers
from lib.views.map.figure import colourable
from lib.views.plan_exports import fold, plan_agenda_html, plan_ics

VANCOUVER = datetime.timezone(datetime.timedelta(hours=-7))
STAMP = datetime.datetime(2025, 7, 1, 12, 0, tzinfo=datetime.UTC)
PAYLOAD = "<script>alert(1)</script>, a title; with\\ everything: BEGIN:VEVENT"
P1, P2, P8, P18 = "Xk3vQ9aLpT", "Bq7rT2mWeN", "Ns8aC2kRmX", "up18"  # an oral, an oral at poster time, a poster, UTC


@pytest.fixture(scope="module")
def conference(tmp_path_factory):
    """The fixture conference fetched, one title made a payload, and built into a map."""
    folder = tmp_path_factory.mktemp("schedule")
    with conference_server() as server:
        fetched = fetch_conference("icml2025", folder / "data", addresses=server.addresses, timeout=5)
    records = json.loads(fetched.path.read_text())
    next(r for r in records if r["paper_id"] == P8)["title"] = PAYLOAD
    fetched.path.write_text(json.dumps(records))
    result = build(fetched.path, out_dir=folder / "map", cache_dir=folder / "cache", embedder=HashingEmbedder())
    return {"path": fetched.path, "folder": folder, "papers": schedule.with_schedule_columns(result.papers)}


@pytest.fixture(scope="module")
def papers(conference):
    return conference["papers"]


def test_presentations_are_in_time_order_in_the_conferences_own_time(papers):
    table = schedule.presentations(papers)
    assert len(table) == 20  # 20 events: two orals with their posters, 16 more posters
    instants = [s.tz_convert("UTC") for s in table["start"]]
    assert instants == sorted(instants)
    assert schedule.conference_zone(papers) == VANCOUVER
    assert all(s.utcoffset() == datetime.timedelta(hours=-7) for s in table["start"])
    # The poster one source wrote in UTC sits in its session, at the same local time as the others.
    utc_poster = table[table["paper_id"] == P18].iloc[0]
    assert (utc_poster["day"], utc_poster["time"]) == ("Wed 16 Jul", "Wed 16 Jul 11:00–13:30 (UTC-07:00)")
    first = table[table["paper_id"] == P1]
    assert list(first["kind"]) == ["oral", "poster"] and list(first["session"]) == [
        "Oral 1A Generative Models",
        "Poster Session 1 East",
    ]


def test_the_schedule_groups_days_then_sessions(papers):
    grouped = schedule.schedule_sessions(papers, schedule.conference_zone(papers))
    assert list(dict.fromkeys(s.day for s in grouped)) == ["Tue 15 Jul", "Wed 16 Jul"]
    wednesday = [s for s in grouped if s.day == "Wed 16 Jul"]
    assert [s.heading for s in wednesday] == ["11:00–13:30 · Poster Session 3 East · East Exhibition Hall A-B"]
    ps3 = wednesday[0].presentations  # the poster written in UTC is in it
    assert wednesday[0].label == "Poster Session 3 East" and P18 in set(ps3["paper_id"])
    assert len(ps3) == 6 and list(ps3["poster_position"]) == sorted(ps3["poster_position"])


def test_sessions_and_days_are_facets_in_time_order_and_colours(papers):
    sessions = facet_options(papers, Filters(), "session")
    assert list(sessions) == [
        "Oral 1A Generative Models",
        "Poster Session 1 East",
        "Oral 2B Theory",
        "Poster Session 2 West",
        "Poster Session 3 East",
    ]
    assert sessions["Poster Session 1 East"] == 6 and sessions["Oral 1A Generative Models"] == 1
    assert list(facet_options(papers, Filters(), "day")) == ["Tue 15 Jul", "Wed 16 Jul"]
    tuesday_ps1 = filter_papers(papers, Filters(session=("Poster Session 1 East",), day=("Tue 15 Jul",)))
    assert len(tuesday_ps1) == 6 and P1 in set(tuesday_ps1["paper_id"])
    assert {"first_session", "first_day"} <= set(colourable(papers))


def test_a_list_without_sessions_has_no_schedule_parts():
    papers = schedule.with_schedule_columns(
        pd.DataFrame({"paper_id": ["a"], "sessions": [[]], "subfield": ["x"], "area": ["x"], "status": [""]})
    )
    assert not schedule.has_sessions(papers) and facet_options(papers, Filters(), "session") == {}
    assert list(papers["first_session"]) == [""] and schedule.conference_zone(papers) is None


def test_a_plans_overlaps_elsewhere_are_flagged_with_the_other_session_offered(papers):
    plan = schedule.plan_presentations(papers, [P2, P8, P1])
    by = {(r.paper_id, r.kind): r for r in plan.itertuples()}
    flow = "Flow Matching with Optimal Transport Couplings for Molecule Generation"
    provable = "Provable In-Context Learning of Linear Regression by Transformers"
    # P2's oral (11:30, West Ballroom C) overlaps P1's and P8's posters (11:00-13:30, East hall).
    assert by[(P2, "oral")].conflicts_with == [flow, PAYLOAD]
    assert by[(P8, "poster")].conflicts_with == [provable] == by[(P1, "poster")].conflicts_with
    # P2 is also a poster in their session: the same place, no conflict, so it is offered instead;
    # P1's oral, at 10:00, clashes with nothing either.
    assert by[(P2, "poster")].conflicts_with == [] == by[(P1, "oral")].conflicts_with
    assert by[(P2, "oral")].other_sessions == ["Poster Session 1 East · Tue 15 Jul 11:00–13:30 (UTC-07:00)"]
    assert by[(P1, "poster")].other_sessions == ["Oral 1A Generative Models · Tue 15 Jul 10:00–10:15 (UTC-07:00)"]
    assert by[(P8, "poster")].other_sessions == []  # its only session
    assert schedule.conflict_count(plan) == 3 and schedule.conflict_sentence(plan).startswith("3 presentations of")
    assert schedule.conflict_sentence(schedule.plan_presentations(papers, [P1])) == ""  # its two sessions never clash
    one = pd.DataFrame({"conflicts_with": [["a paper"], []]})
    assert schedule.conflict_sentence(one).startswith("1 presentation of this plan overlaps another paper's")


@pytest.mark.parametrize(
    "a, b, expected",
    [
        (("10:00", "11:00"), ("10:30", "12:00"), True),
        (("10:00", "11:00"), ("11:00", "12:00"), False),  # one ends as the other starts
        (("10:00", None), ("10:00", "10:15"), True),
        (("10:00", None), ("10:30", None), False),
    ],
)
def test_overlaps(a, b, expected):
    def stamp(clock):
        return None if clock is None else pd.Timestamp(f"2025-07-15T{clock}:00-07:00")

    assert schedule.overlaps(stamp(a[0]), stamp(a[1]), stamp(b[0]), stamp(b[1])) is expected
    assert schedule.overlaps(stamp(b[0]), stamp(b[1]), stamp(a[0]), stamp(a[1])) is expected


def test_the_calendar_reads_back_one_event_per_presentation(papers):
    plan = schedule.plan_presentations(papers, [P1, P2, P8, P18])
    data = plan_ics(plan, "My ICML; week, 2025", stamp=STAMP)
    assert all(len(line.encode()) <= 75 for line in data.decode().split("\r\n"))
    calendar = icalendar.Calendar.from_ical(data)
    assert "\r\nX-WR-CALNAME:My ICML\\; week\\, 2025\r\n" in data.decode()  # escaped as TEXT
    events = list(calendar.walk("VEVENT"))
    assert len(events) == len(plan) == 6 and len({str(e["UID"]) for e in events}) == 6
    for event, row in zip(events, plan.itertuples()):
        assert event.decoded("DTSTART") == row.start.to_pydatetime()  # the same instant, in UTC
        assert event.decoded("DTSTART").tzinfo is not None and event.decoded("DTEND") == row.end.to_pydatetime()
        assert str(event["SUMMARY"]).endswith(row.title) and str(event["DTSTAMP"].dt) == str(STAMP)
        assert str(event["DESCRIPTION"]).startswith(", ".join(row.authors))
    oral = events[0]
    assert str(oral["SUMMARY"]) == "Oral: Flow Matching with Optimal Transport Couplings for Molecule Generation"
    assert str(oral["LOCATION"]) == "West Ballroom A" and str(oral["URL"]) == "https://icml.cc/virtual/2025/oral/43001"
    assert oral.decoded("DTSTART") == datetime.datetime(2025, 7, 15, 17, 0, tzinfo=datetime.UTC)
    payload = next(e for e in events if PAYLOAD in str(e["SUMMARY"]))
    assert str(payload["SUMMARY"]) == f"Poster E-1201: {PAYLOAD}"  # text, whole: it added no property or event
    assert str(payload["LOCATION"]) == "East Exhibition Hall A-B, poster E-1201"
    assert "Poster Session 1 East · Tue 15 Jul 11:00–13:30 (UTC-07:00)" in str(payload["DESCRIPTION"])


def test_the_same_plan_gives_the_same_calendar(papers):
    plan = schedule.plan_presentations(papers, [P1, P8])
    assert plan_ics(plan, "x", stamp=STAMP) == plan_ics(plan, "x", stamp=STAMP)


def test_lines_are_folded_between_characters():
    line = "SUMMARY:" + "é" * 80
    folded = fold(line)
    assert all(len(part.encode()) <= 75 for part in folded.split("\r\n"))
    assert folded.replace("\r\n ", "") == line


def test_the_printable_agenda_is_one_escaped_page_by_day(papers):
    plan = schedule.plan_presentations(papers, [P1, P2, P8])
    page = plan_agenda_html(plan, "<b>Plan</b>", "ICML 2025")
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;b&gt;Plan&lt;/b&gt;" in page and page.count("<h2>") == 1  # all on Tuesday
    assert page.count('class="conflict"') == 3 and "@page" in page


def test_schedule_page_lists_the_day_s_sessions_and_builds_a_plan(conference, tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERMAP_DATA", str(conference["path"]))
    monkeypatch.setenv("PAPERMAP_CACHE", str(conference["folder"] / "page-cache"))
    monkeypatch.setenv("PAPERMAP_DB", str(tmp_path / "lists.sqlite"))
    app = started()
    assert app.session_state["papermap_schedule_shown"] is True  # the page shows in the sidebar
    app.switch_page("app_pages/schedule.py").run()
    assert not app.exception
    assert app.radio(key="schedule_day").options == ["Tue 15 Jul", "Wed 16 Jul"]
    headings = [plain(m.value) for m in app.markdown if m.value.startswith("#### ")]
    assert headings[:2] == [
        "#### 10:00–10:15 · Oral 1A Generative Models · West Ballroom A",
        "#### 11:00–13:30 · Poster Session 1 East · East Exhibition Hall A-B",
    ]
    assert "UTC-07:00" in plain(app.caption[0].value)
    # A plan: three papers chosen, added to a new list.
    app.multiselect(key="schedule_papers").set_value([P1, P2, P8]).run()
    app.text_input(key="schedule-new-name").input("ICML week").run()
    app.button(key="schedule-add").click().run()
    assert not app.exception and "ICML week" in app.selectbox(key="list").options
    plan = next(plain(m.value) for m in app.markdown if "##### Tue 15 Jul" in m.value)
    assert plan.count("\n- **") == 5 and plan.count("Overlaps, elsewhere") == 3
    assert "**11:30–11:45** · Oral 2B Theory · West Ballroom C" in plan
    assert "Go instead to: Poster Session 1 East · Tue 15 Jul 11:00–13:30 (UTC-07:00)" in plan
    assert any("overlap another paper" in w.value for w in app.warning)
    ics = next(b for b in app.get("download_button") if b.proto.label == "Download calendar (.ics)")
    poster_session_1 = [d.value for d in app.dataframe if "in plan" in d.value.columns][1]
    assert ics.proto.label and poster_session_1["in plan"].sum() == 3  # P1, P2 and P8 are all there
    # Wednesday; and a session's papers on the map.
    app.radio(key="schedule_day").set_value("Wed 16 Jul").run()
    assert [plain(m.value) for m in app.markdown if m.value.startswith("#### ")] == [
        "#### 11:00–13:30 · Poster Session 3 East · East Exhibition Hall A-B"
    ]
    app.button(key="schedule_map_4").click().run()
    assert not app.exception and app.multiselect(key="session").value == ["Poster Session 3 East"]


def test_the_schedule_is_absent_for_a_list_without_sessions(monkeypatch, tmp_path):
    monkeypatch.setenv("PAPERMAP_CACHE", str(tmp_path / "cache"))
    app = started()  # the embedded sample: abstracts only
    assert not app.session_state["papermap_schedule_shown"]
    assert "session" not in [m.key for m in app.multiselect] and "day" not in [m.key for m in app.multiselect]
    app.switch_page("app_pages/schedule.py").run()
    assert not app.exception and "has no sessions" in app.info[0].value


def test_a_late_session_written_in_utc_is_offered_under_the_conferences_day():
    late = {"kind": "poster", "room": "Hall", "poster_position": "", "end": None}
    papers = schedule.with_schedule_columns(
        pd.DataFrame(
            {
                "sessions": [
                    [{**late, "name": "Thursday", "start": pd.Timestamp("2025-07-17T10:00:00-07:00")}],
                    [{**late, "name": "Friday", "start": pd.Timestamp("2025-07-18T10:00:00-07:00")}],
                    # 06:30 UTC on the 16th is 23:30 on the 15th in Vancouver, the conference's zone.
                    [{**late, "name": "Late", "start": pd.Timestamp("2025-07-16T06:30:00+00:00")}],
                ]
            }
        )
    )
    assert facet_options(papers, Filters(), "day") == {"Tue 15 Jul": 1, "Thu 17 Jul": 1, "Fri 18 Jul": 1}
    assert list(facet_options(papers, Filters(), "session")) == ["Late", "Thursday", "Friday"]
