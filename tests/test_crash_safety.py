"""Builds killed with SIGKILL at every stage, and stage caches damaged on disk: the next build never
trusts a partial or stale artifact and writes what a clean build writes.

The kills hit a real `python -m lib build` process. The stage it is in is read from outside, from
the CLI's progress bar, which it draws on a terminal only: its stderr is a pseudo-terminal here.
Reruns and clean builds call the same CLI in this process, which saves the interpreter start.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import random
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import termios
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest
from conftest import REPO, ended_pid, planted_records

import lib.builder.pipeline
from lib import cli
from lib.builder.cache import CACHE_VERSION, ArtifactCache
from lib.builder.pipeline import SIDE_STAGES_FROM, STAGES
from lib.map_folder import PAPERS_FILE, is_built, read_papers

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="finds the build's processes in /proc")

QUIET_LIMIT = 300.0  # seconds without progress before a build counts as stuck (a loaded 2-core CI is slow)
CACHED_STAGES = STAGES[:-1]  # "write" has no cache artifact: it writes the output folder
# A stage name at the start of a redraw of the CLI's bar: "\r<stage> <bar> n/7".
BAR_STAGE = re.compile(r"\r(\w+) ")
SEEDED = random.Random(6)
# Kill points inside a stage: (stage, fraction of the time it took in the clean build), to land mid-stage and mid-write.
SMALL_INSIDE = [(SEEDED.choice(STAGES), round(SEEDED.uniform(0.1, 0.9), 2)) for _ in range(3)]
LARGE_INSIDE = [
    (SEEDED.choice(["embed", "project", "topics"]), round(SEEDED.uniform(0.1, 0.9), 2))
]  # beside the side process


@dataclass(frozen=True)
class Built:
    """A paper list and the cache and output of its clean build."""

    papers: Path
    cache: Path
    out: Path
    seconds: dict[str, float]  # each stage's time in the clean build, from its --timings


def cli_args(papers: Path, cache: Path, out: Path) -> list[str]:
    return ["build", str(papers), "--cache", str(cache), "--out", str(out)]


def rebuild(papers: Path, cache: Path, out: Path) -> list[dict]:
    """Run the CLI's build here; its stages as --timings records them (name, seconds, cached)."""
    timings = out.parent / f"{out.name}-timings.json"
    assert cli.main([*cli_args(papers, cache, out), "--quiet", "--timings", str(timings)]) == 0
    return json.loads(timings.read_text())["stages"]


def clean_build(folder: Path, records: list[dict]) -> Built:
    papers = folder / "papers2025.json"
    papers.write_text(json.dumps(records), encoding="utf-8")
    stages = rebuild(papers, folder / "cache", folder / "out")
    return Built(papers, folder / "cache", folder / "out", {s["name"]: s["seconds"] for s in stages})


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> Built:
    return clean_build(tmp_path_factory.mktemp("small"), planted_records())


@pytest.fixture(scope="module")
def large(tmp_path_factory) -> Built:
    """Enough papers for keywords and subfields to run in a second process; titles only, to stay quick."""
    records = planted_records(per_topic=SIDE_STAGES_FROM // 3 + 1)
    return clean_build(
        tmp_path_factory.mktemp("large"), [{k: v for k, v in r.items() if k != "abstract"} for r in records]
    )


def assert_same_output(out: Path, clean: Path) -> None:
    """`out` holds the files of the clean build's output and nothing else (no temp file), each the same."""
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in clean.iterdir())
    pd.testing.assert_frame_equal(read_papers(out / PAPERS_FILE), read_papers(clean / PAPERS_FILE))
    for path in clean.iterdir():
        if path.name != PAPERS_FILE:
            # papers.json too: it holds paths, digests, keys and counts, no time, so it must match byte for byte.
            assert (out / path.name).read_bytes() == path.read_bytes(), path.name


def live_group(group: int) -> list[int]:
    """Pids of the processes of a process group that are still running (a zombie has ended)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                state, _parent, member_of = (entry / "stat").read_text().rsplit(")", 1)[1].split()[:3]
            except (OSError, ValueError):
                continue  # it ended while we looked
            if int(member_of) == group and state != "Z":
                pids.append(int(entry.name))
    return pids


def wait_until_gone(group: int, seconds: float = 5.0) -> list[int]:
    deadline = time.monotonic() + seconds
    while (alive := live_group(group)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive


@dataclass(frozen=True)
class Kill:
    stage: str  # the last stage the bar showed before the kill
    group: list[int]  # the build's processes when it was killed: itself and any side process
    left_running: list[int]  # those still running 5 s after the kill


def kill_build(args: list[str], at_stage: str, delay: float = 0.0, whole_group: bool = True) -> Kill | None:
    """Start `python -m lib` with `args` in its own process group and SIGKILL it `delay` seconds after
    its progress bar shows `at_stage`: the whole group, or (whole_group=False) the build process alone.
    None when the build ended first."""
    try:
        bar, terminal = pty.openpty()
    except OSError as error:  # a container without /dev/pts
        pytest.skip(f"no pseudo-terminal for the progress bar: {error}")
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # tqdm draws nothing 0 columns wide
    process = subprocess.Popen(
        [sys.executable, "-m", "lib", *args],
        cwd=REPO,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=terminal,
        start_new_session=True,
    )
    os.close(terminal)
    shown, deadline = "", None
    try:
        while deadline is None or time.monotonic() < deadline:
            wait = QUIET_LIMIT if deadline is None else max(0.0, deadline - time.monotonic())
            if select.select([bar], [], [], wait)[0]:
                try:
                    stages = BAR_STAGE.findall(os.read(bar, 4096).decode(errors="replace"))
                except OSError:  # the terminal closed: the build ended
                    break
                shown = stages[-1] if stages else shown
                if deadline is None and at_stage in stages:
                    deadline = time.monotonic() + delay
            elif deadline is None:
                break  # no progress for QUIET_LIMIT seconds
        group = live_group(process.pid)
        if whole_group:
            os.killpg(process.pid, signal.SIGKILL)
        else:
            os.kill(process.pid, signal.SIGKILL)
        process.wait()
        left_running = wait_until_gone(process.pid)
    finally:
        os.close(bar)
        if live_group(process.pid):  # never leave this test's processes behind, whatever failed
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    assert deadline is not None, f"the progress bar never showed {at_stage} (it showed {shown or 'nothing'})"
    if process.returncode == 0:
        return None
    assert process.returncode == -signal.SIGKILL, process.returncode
    return Kill(shown, group, left_running)


def assert_killed_build_recovers(
    built: Built, tmp_path: Path, at_stage: str, fraction: float = 0.0, whole_group: bool = True
) -> Kill:
    """Kill a cold build of `built.papers` `fraction` of `at_stage`'s clean time into that stage, then
    rerun it: it must write what the clean build wrote, and leave no temp file in the stage cache."""
    cache, out = tmp_path / "cache", tmp_path / "out"
    for halved in range(4):  # a build running faster than the clean one may end first: kill it earlier
        shutil.rmtree(cache, ignore_errors=True)
        shutil.rmtree(out, ignore_errors=True)
        kill = kill_build(
            cli_args(built.papers, cache, out), at_stage, fraction * built.seconds[at_stage] / 2**halved, whole_group
        )
        if kill is not None:
            break
    assert kill is not None, f"the build ended every time before the kill at {at_stage}"
    assert kill.left_running == [], f"killed at {kill.stage}, these processes kept running: {kill.left_running}"
    if is_built(out):  # a folder that passes as built must hold the right map
        assert_same_output(out, built.out)
    rebuild(built.papers, cache, out)
    assert_same_output(out, built.out)
    stage_temps = [p.relative_to(cache) for p in cache.glob("*/.*.tmp") if p.parent.name in CACHED_STAGES]
    assert stage_temps == [], "the rerun left a killed write's temp file in the stage cache"
    return kill


@pytest.mark.kill
@pytest.mark.parametrize("stage", STAGES)
def test_a_build_killed_as_a_stage_starts_is_rebuilt_as_a_clean_build(small, tmp_path, stage):
    assert_killed_build_recovers(small, tmp_path, stage)


@pytest.mark.kill
@pytest.mark.parametrize("stage, fraction", SMALL_INSIDE)
def test_a_build_killed_inside_a_stage_is_rebuilt_as_a_clean_build(small, tmp_path, stage, fraction):
    assert_killed_build_recovers(small, tmp_path, stage, fraction)


@pytest.mark.kill
# As embed starts the keywords' worker is starting; as project starts, the subfields'.
@pytest.mark.parametrize("stage", ["embed", "project"])
def test_a_large_build_killed_with_its_side_process_is_rebuilt_as_a_clean_build(large, tmp_path, stage):
    kill = assert_killed_build_recovers(large, tmp_path, stage)
    assert len(kill.group) >= 2, f"no side process ran beside the build at {stage}"


@pytest.mark.kill
@pytest.mark.parametrize("stage, fraction", LARGE_INSIDE)
def test_a_large_build_killed_inside_a_stage_is_rebuilt_as_a_clean_build(large, tmp_path, stage, fraction):
    kill = assert_killed_build_recovers(large, tmp_path, stage, fraction)
    assert len(kill.group) >= 2, f"no side process ran beside the build in {stage}"


@pytest.mark.kill
def test_the_side_process_ends_when_the_build_process_alone_is_killed(large, tmp_path):
    # As when the kernel's OOM killer or `kill -9 PID` picks the build: no signal reaches the side process.
    kill = assert_killed_build_recovers(large, tmp_path, "embed", whole_group=False)
    assert len(kill.group) >= 2


def test_a_temp_file_left_by_a_write_killed_mid_way_is_removed_by_the_next_build(small, tmp_path):
    # What SIGKILL inside lib.files.atomic_write_bytes leaves: part of the data in a temp file never renamed,
    # named for a writer that is gone. Made exactly here, since a kill lands in that window only by chance.
    out = tmp_path / "out"
    out.mkdir()
    partial = (small.out / PAPERS_FILE).read_bytes()[:1000]
    (out / f".{PAPERS_FILE}.{ended_pid()}.k1ll3d.tmp").write_bytes(partial)
    rebuild(small.papers, small.cache, out)
    assert_same_output(out, small.out)


# Damage to each stage's cache artifact: found, that stage computed again, the output as clean.
def stage_sidecar(cache: Path, stage: str) -> Path:
    (sidecar,) = (cache / stage).glob("*.json")
    return sidecar


def damage_artifact(cache: Path, stage: str, kind: str) -> None:
    sidecar = stage_sidecar(cache, stage)
    meta = json.loads(sidecar.read_text())
    artifact = sidecar.with_suffix(f".{meta['kind']}")
    data = artifact.read_bytes()
    if kind == "truncated":
        artifact.write_bytes(data[: len(data) // 2])
    elif kind == "garbage":
        artifact.write_bytes(random.Random(stage).randbytes(len(data)))
    elif kind == "flipped":  # one byte in the middle: the file may still parse, with other values
        artifact.write_bytes(data[: len(data) // 2] + bytes([data[len(data) // 2] ^ 0xFF]) + data[len(data) // 2 + 1 :])
    else:  # "old_cache_version": written by a PaperMap whose artifacts meant something else
        sidecar.write_text(json.dumps({**meta, "cache_version": CACHE_VERSION - 1}))


def downstream(cache: Path, stage: str) -> set[str]:
    """`stage` and the stages whose cache keys depend on it, from the upstream keys in the sidecars."""
    sidecars = [json.loads(path.read_text()) for name in CACHED_STAGES for path in (cache / name).glob("*.json")]
    found, keys = {stage}, {m["key"] for m in sidecars if m["stage"] == stage}
    while new := [m for m in sidecars if set(m["upstream"]) & keys and m["stage"] not in found]:
        found |= {m["stage"] for m in new}
        keys |= {m["key"] for m in new}
    return found


@pytest.fixture
def small_cache(small, tmp_path) -> Path:
    """A copy of the clean small build's stage cache, without its copy of the finished output."""
    cache = tmp_path / "cache"
    shutil.copytree(small.cache, cache, ignore=shutil.ignore_patterns("output"))
    return cache


@pytest.mark.parametrize("kind", ["truncated", "garbage", "flipped", "old_cache_version"])
@pytest.mark.parametrize("stage", CACHED_STAGES)
def test_a_damaged_stage_artifact_is_computed_again(small, small_cache, tmp_path, stage, kind):
    damage_artifact(small_cache, stage, kind)
    stages = rebuild(small.papers, small_cache, tmp_path / "out")
    assert {s["name"] for s in stages if not s["cached"]} == {stage, "write"}
    assert_same_output(tmp_path / "out", small.out)
    assert ArtifactCache(small_cache).get(stage, stage_sidecar(small_cache, stage).stem) is not None, (
        "the damage is still there"
    )


@pytest.mark.parametrize("stage", CACHED_STAGES)
def test_artifacts_of_an_older_stage_version_are_not_reused(small, small_cache, tmp_path, stage, monkeypatch):
    depending = downstream(small_cache, stage)
    for folder in depending:  # as a cache filled by the PaperMap before the stage's version was bumped holds them
        shutil.rmtree(small_cache / folder)
    with monkeypatch.context() as older:
        older.setitem(lib.builder.pipeline.STAGE_VERSIONS, stage, lib.builder.pipeline.STAGE_VERSIONS[stage] - 1)
        rebuild(small.papers, small_cache, tmp_path / "older")
    stages = rebuild(small.papers, small_cache, tmp_path / "out")
    assert {s["name"] for s in stages if not s["cached"]} == depending | {"write"}
    assert_same_output(tmp_path / "out", small.out)
