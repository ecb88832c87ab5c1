"""Many users: bench/load.py's load test in a small configuration, three concurrent browser sessions on the seed.

Each session chooses its own sidebar filter and clicks its own paper; afterwards every page must show
its own filter and paper, with no error. No timing is asserted (bench/load.py prints the figures).
Skips when Playwright or /usr/bin/chromium is missing, like tests/test_browser.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SEED_SAMPLE, bench_module

load = bench_module("load")

try:
    import playwright.async_api  # noqa: F401
except ImportError:
    pytest.skip("playwright is not installed (pip install -r requirements-dev.txt)", allow_module_level=True)
if not Path(load.CHROMIUM).exists():
    pytest.skip(f"{load.CHROMIUM} is missing (apt-get install chromium chromium-driver)", allow_module_level=True)

pytestmark = [pytest.mark.many_users, pytest.mark.browser]
SESSIONS = 3


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    return load.load_test(
        SEED_SAMPLE, sessions=SESSIONS, cache=tmp_path_factory.mktemp("cache"), timeout_s=120, timed=False
    )


def test_concurrent_sessions_finish_every_step_with_no_error(result):
    sessions = result.runs[0]
    assert len(sessions) == SESSIONS
    assert result.errors() == []
    assert all(set(s.times) == set(load.STEPS) for s in sessions)  # every step reached
    assert len({(s.plan.facet, s.plan.value) for s in sessions}) == SESSIONS
    assert len({s.plan.paper_id for s in sessions}) == SESSIONS


def test_each_session_shows_its_own_filter_and_paper(result):
    assert result.violations() == []
    sessions = result.runs[0]
    assert all(s.seen for s in sessions)  # every page was read


def test_the_isolation_check_names_the_session_whose_state_a_page_shows(result):
    """The check is not blind: session 1's page, judged against session 2's plan, is found to show
    session 1's choices, URL, open paper and plotted papers."""
    first, second = result.runs[0][:2]
    found = load.isolation_violations(first.seen, second.plan, [s.plan for s in result.runs[0]], result.papers)
    for part in ("the sidebar's choices", "the URL", "the open paper's card", "the map plots"):
        assert [v for v in found if v.startswith(part) and v.endswith("(session 1's)")], (part, found)
