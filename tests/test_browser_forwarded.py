"""A loopback dashboard behind a port forwarder, in headless Chromium: the forwarder's visitors view
but cannot edit; the machine's own browser, asking the dashboard directly, can (issue 34)."""

from __future__ import annotations

import socket
import threading
from contextlib import contextmanager

import pytest
from test_browser import RENDER_MS, _wait_until_idle, running_app

pytestmark = pytest.mark.browser


def _pump(source: socket.socket, target: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            target.sendall(data)
    except OSError:
        pass
    finally:
        for end in (source, target):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


@contextmanager
def forwarder(target_port: int, address: str = "127.0.0.2"):
    """A plain TCP forwarder (as socat or `ssh -L` would be) on `address`, to 127.0.0.1:`target_port`; yields its port."""
    listener = socket.create_server((address, 0))
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                client, _ = listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", target_port))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=_pump, args=(a, b), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        listener.close()


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    folder = tmp_path_factory.mktemp("forwarded")
    with running_app(folder / "cache", folder / "streamlit.log", folder / "lists.sqlite") as base:
        yield base


def data_sets_page(browser, url):
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(RENDER_MS)
    page.goto(f"{url}/data-sets")
    _wait_until_idle(page)
    page.get_by_text("Upload a paper list").wait_for()
    return context, page


def test_through_a_forwarder_the_dashboard_is_read_only_and_directly_it_is_not(browser, app_url):
    port = int(app_url.rsplit(":", 1)[1])
    context, direct = data_sets_page(browser, app_url)
    try:
        assert direct.get_by_role("button", name="Fetch ICML 2025").is_enabled()
        assert "read-only here" not in direct.inner_text("body")
    finally:
        context.close()
    with forwarder(port) as forwarded_port:
        context, forwarded = data_sets_page(browser, f"http://127.0.0.2:{forwarded_port}")
        try:
            assert forwarded.get_by_role("button", name="Fetch ICML 2025").is_disabled()
            assert "read-only here" in forwarded.inner_text("body")
        finally:
            context.close()
