"""Shared by the browser benches and tests: Debian's Chromium, a Streamlit server on 127.0.0.1, the map built
beforehand, and in-page waits for a finished render."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from lib.map_folder import is_built  # noqa: E402
from lib.paths import DEFAULT_TAXONOMY  # noqa: E402
from lib.store.datasets import dashboard_map_dir  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")  # Debian's: the browser Playwright would download cannot be fetched here
# The background-networking flags stop Chromium from reaching for Google services on a closed network.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1920, "height": 1080}  # a projector
STARTUP_SECONDS = 300
HOLD_MS = 400  # a finished state must hold this long; its start is the time reported

# Resolves with performance.now() at the start of the first HOLD_MS-long stretch in which `ready`
# holds. `want` is a point count (papers plotted: traces with customdata, or the floor's one trace),
# "selection" (the dashboard's "N selected papers" heading and a table under it) or {paper: id} (the
# paper opened by a click: in the URL, its card under the map).
# Whether Streamlit is idle: its app element's own script state (1.67 shows its status widget only
# after 500 ms of a run, and never with "Running"), connected, no element stale from the run
# before or still loading its code. A JS function expression, for the scripts below and the benches'.
IDLE_JS = """() => { const app = document.querySelector('[data-testid="stApp"]');
    return !!app && app.dataset.testScriptState === 'notRunning' && app.dataset.testConnectionState === 'CONNECTED'
        && !document.querySelector('[data-testid="stSkeleton"], [data-stale="true"]'); }"""


def held_js(params: str, body: str, failure: str, result: str = "since") -> str:
    """An async JS function of `[*params, hold, timeout]` for `page.evaluate`: `body` defines `ready()`
    (with `idle()`, IDLE_JS, at hand); it resolves with the JS expression `result` (by default
    `since`: performance.now() at the start of the first `hold`-ms stretch in which `ready()` holds)
    once that stretch has lasted, and after `timeout` ms rejects with the JS expression `failure`.
    `params` are the leading names, each followed by a comma ("want, "), or ""."""
    return (
        f"async ([{params}hold, timeout]) => {{\n    const idle = {IDLE_JS};\n{body}\n"
        """    const start = performance.now();
    return await new Promise((resolve, reject) => {
        let since = null;
        const tick = () => {
            const now = performance.now();
            if (ready()) { if (since === null) since = now; if (now - since >= hold) return resolve("""
        + result
        + """); }
            else since = null;
            if (now - start > timeout) return reject(new Error("""
        + failure
        + """));
            requestAnimationFrame(tick);
        };
        tick();
    });
}"""
    )


WAIT_JS = held_js(
    "want, ",
    """    const points = () => {
        const gd = document.querySelector('.js-plotly-plot');
        const traces = gd && (gd._fullData || gd.data);
        if (!traces) return -1;
        return traces.reduce((n, t) => n + (t.visible === false || !t.x || !(t.customdata || t.name === 'papers') ? 0 : t.x.length), 0);
    };
    const selected = () => Array.from(document.querySelectorAll('[data-testid="stHeading"], h4'))
        .some(h => /selected papers/.test(h.innerText)) && !!document.querySelector('[data-testid="stDataFrame"]');
    const opened = (id) => new URL(location.href).searchParams.get('paper') === id
        && !!document.querySelector('[data-testid="stPageLink"]');
    const ready = () => idle() && (want === 'selection' ? selected() : want.paper ? opened(want.paper) : points() === want);""",
    "'timed out waiting for ' + JSON.stringify(want) + ', points ' + points()",
)
# Page time of the first event of `type` from now on (the user's action, not Playwright's bookkeeping).
MARK_JS = """(type) => { window.__benchMark = null;
    document.addEventListener(type, () => { if (window.__benchMark === null) window.__benchMark = performance.now(); },
                              {capture: true, once: true}); }"""
# Screen position of paper `id`'s point on the map, and its id; with null, the first paper of the
# first coloured trace.
POINT_JS = """(id) => {
    const gd = document.querySelector('.js-plotly-plot');
    const trace = gd._fullData.find(t => t.customdata && t.x.length && (id === null || Array.from(t.customdata).includes(id)));
    const i = id === null ? 0 : Array.from(trace.customdata).indexOf(id);
    const area = gd.querySelector('.nsewdrag').getBoundingClientRect();
    return [area.left + gd._fullLayout.xaxis.l2p(trace.x[i]), area.top + gd._fullLayout.yaxis.l2p(trace.y[i]), trace.customdata[i]];
}"""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


@contextmanager
def streamlit(script: str, args: list[str], env: dict[str, str], log: Path, startup_seconds: float = STARTUP_SECONDS):
    """`streamlit run script -- args` on a free 127.0.0.1 port; yields its base URL, stops it after.

    Raises RuntimeError with the log's tail when it exits or is not healthy within `startup_seconds`."""
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        script,
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
        "--server.headless",
        "true",
        "--server.fileWatcherType",
        "none",
        "--browser.gatherUsageStats",
        "false",
        "--",
        *args,
    ]
    with open(log, "wb") as out:
        process = subprocess.Popen(
            command,
            cwd=REPO,
            env={**os.environ, **env, "PYTHONUNBUFFERED": "1"},
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, so stopping it ends its children
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + startup_seconds
        while not healthy(f"{base}/_stcore/health"):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{script} did not start:\n{log.read_text(errors='replace')[-3000:]}")
            time.sleep(0.3)
        yield base
    finally:
        _stop(process)


def _stop(process: subprocess.Popen) -> None:
    for sig, wait in ((signal.SIGTERM, 15), (signal.SIGKILL, 10)):
        try:
            os.killpg(process.pid, sig)
            process.wait(timeout=wait)
            return
        except ProcessLookupError:
            return
        except subprocess.TimeoutExpired:
            continue


def ensure_map(data: Path, cache: Path) -> Path:
    """The dashboard's map folder of `data` under `cache`, built now (untimed) if it is not yet."""
    folder = dashboard_map_dir(data, DEFAULT_TAXONOMY, cache)
    if not is_built(folder):
        print(f"building the map of {data.name} into {folder} (once; untimed)…", file=sys.stderr, flush=True)
        started = time.monotonic()
        subprocess.run(
            [sys.executable, "-m", "lib", "build", str(data), "--cache", str(cache), "--out", str(folder), "--quiet"],
            cwd=REPO,
            check=True,
        )
        print(f"  built in {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
    return folder
