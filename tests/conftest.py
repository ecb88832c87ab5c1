"""Shared fixtures: the shipped sample, the real paper lists when present, planted-topic corpora."""

from __future__ import annotations

import importlib.util
import json
import random
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.preprocessing import normalize

REPO = Path(__file__).resolve().parents[1]
DASHBOARD = str(REPO / "dashboard.py")
SEED_SAMPLE = REPO / "data" / "icml2025_seed.txt"
SHARED_DATA = REPO.parent / "shared" / "data"
BENCH = REPO / "bench"

# Three research topics with their own vocabulary, so a correct pipeline must separate them.
PLANTED_TOPICS = {
    "privacy": "differential privacy privacy budget private mechanism membership inference noise calibration privacy guarantees".split(
        " "
    ),
    "diffusion": "diffusion models denoising score matching image generation sampling steps noise schedule generative".split(
        " "
    ),
    "bandits": "multi-armed bandits regret bound exploration arms upper confidence bound online decision making".split(
        " "
    ),
}
FILLER = "we study this setting and show that the proposed analysis gives results on benchmarks".split()


def planted_records(per_topic: int = 12, seed: int = 0) -> list[dict]:
    """Paper Copilot-style records whose abstracts are drawn from one planted topic each."""
    rng = random.Random(seed)
    records = []
    for topic, words in PLANTED_TOPICS.items():
        for i in range(per_topic):
            abstract = " ".join(rng.choice(words) if rng.random() < 0.6 else rng.choice(FILLER) for _ in range(60))
            records.append(
                {
                    "id": f"{topic}-{i}",
                    "title": f"On {rng.choice(words)} {rng.choice(words)} number {i}",
                    "author": "Ada Lovelace, Alan Turing",
                    "abstract": abstract + ".",
                    "status": "Poster",
                    "site": f"https://example.org/{topic}/{i}",
                    "primary_area": topic,
                }
            )
    return records


class HashingEmbedder:
    """A fast deterministic embedder for tests: hashed word counts, L2-normalised."""

    name = "test-hashing"

    def __init__(self, n_features: int = 256) -> None:
        self.n_features = n_features

    def params(self) -> dict:
        return {"n_features": self.n_features}

    def embed(self, texts):
        if len(texts) == 0:
            return np.zeros((0, self.n_features), dtype=np.float32)
        vectorizer = HashingVectorizer(n_features=self.n_features, alternate_sign=False, norm=None)
        return normalize(vectorizer.transform(texts).toarray()).astype(np.float32)


# Families of tests that take seconds to minutes each (registered in pyproject.toml): every test of
# one is also `slow`, so `python -m pytest -m "not slow"` is the quick subset.
SLOW_FAMILIES = ("browser", "kill", "many_users", "shared_data")


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by these markers
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "shared_data" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.shared_data)
        if any(item.get_closest_marker(family) for family in SLOW_FAMILIES):
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def planted_file(tmp_path: Path) -> Path:
    path = tmp_path / "planted2025.json"
    path.write_text(json.dumps(planted_records()), encoding="utf-8")
    return path


@pytest.fixture
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not present")
    return SHARED_DATA


def ended_pid() -> int:
    """The pid of a process that has ended (and been reaped): what a writer killed earlier leaves behind."""
    import subprocess

    return int(
        subprocess.run(
            [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
        ).stdout
    )


@pytest.fixture(scope="session")
def hostile_cache(tmp_path_factory) -> Path:
    """One stage cache for the CLI's and the dashboard's tests of tests/hostile_lists.py: the 10^4-paper
    list is mapped once, and the other test reuses the map."""
    return tmp_path_factory.mktemp("hostile-cache")


def plain(markdown: str) -> str:
    """What a `lib.views.markup.markdown_literal` string displays: the text without its escapes."""
    return re.sub(r"\\(.)", r"\1", markdown)


# Reading groups: the pages' AppTests share one planted map per module and get a private database each.
@pytest.fixture(scope="module")
def planted_module_data(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("planted") / "planted2025.json"
    path.write_text(json.dumps(planted_records()), encoding="utf-8")
    return path


@pytest.fixture
def lists_db(planted_module_data: Path, tmp_path: Path, monkeypatch) -> Path:
    """The dashboard on the planted map (built once per module) with an empty reading-lists database."""
    monkeypatch.setenv("PAPERMAP_DATA", str(planted_module_data))
    monkeypatch.setenv("PAPERMAP_CACHE", str(planted_module_data.parent / "cache"))
    path = tmp_path / "lists.sqlite"
    monkeypatch.setenv("PAPERMAP_DB", str(path))
    return path


def app_env_with(folder: Path, name: str, records: list[dict]) -> dict[str, str]:
    """The dashboard's environment for the paper list `records`, written to `folder/name`, with its cache there."""
    data = folder / name
    data.write_text(json.dumps(records))
    return {"PAPERMAP_DATA": str(data), "PAPERMAP_CACHE": str(folder / "cache")}


@pytest.fixture
def env(app_env, monkeypatch):
    """The module's `app_env` (a module-scoped fixture: the list and cache its dashboard maps) set for one test."""
    for key, value in app_env.items():
        monkeypatch.setenv(key, value)


def started(**query):
    """The dashboard under AppTest, run once with `query` in its URL, without an exception."""
    from streamlit.testing.v1 import AppTest

    app = AppTest.from_file(DASHBOARD, default_timeout=300)
    for key, value in query.items():
        app.query_params[key] = value
    app.run()
    assert not app.exception, app.exception
    return app


def map_chart_data(app) -> dict:
    """What the map page's chart (`lib.ui_state.map_chart`) was given: `figure` (the Plotly figure,
    parsed, its traces given their papers from the page's `map_points` as the chart's script does),
    `ring` (the open paper's map x, y, or None) and `revision`."""
    from lib.views.map.points import with_points

    data = json.loads(map_chart_element(app).proto.json)
    parts = [c.proto.bytes for c in app.get("bidi_component") if c.proto.component_name.endswith("papermap_map_points")]
    return {**data, "figure": with_points(json.loads(data["figure"]), *parts)}


def map_chart_element(app):
    """The map page's chart (`lib.ui_state.map_chart`) as AppTest holds it."""
    [chart] = [c for c in app.get("bidi_component") if c.proto.component_name.endswith("papermap_map_chart")]
    return chart


def bench_module(name: str):
    """bench/<name>.py imported as module `bench_<name>` (bench/ is scripts, not a package)."""
    if f"bench_{name}" in sys.modules:
        return sys.modules[f"bench_{name}"]
    sys.path.insert(0, str(BENCH))  # the scripts import their neighbours (floor_build, _browser) as scripts do
    try:
        spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCH))


@pytest.fixture(scope="module")
def browser():
    """Debian's headless Chromium through Playwright, one per test module (the browser tests skip
    without either before they ask for it)."""
    from playwright.sync_api import sync_playwright

    chromium = bench_module("_browser")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(chromium.CHROMIUM), headless=True, args=chromium.CHROMIUM_ARGS
        )
        try:
            yield launched
        finally:
            launched.close()
