"""The members rule: who may edit a dashboard, and the passphrase kept only as its hash."""

import subprocess
import sys

import pytest
from conftest import REPO

from lib.errors import ParameterError
from lib.store.members import (
    EditingRule,
    editing_rule,
    hash_passphrase,
    is_local_request,
    is_loopback,
    passphrase_matches,
)

PASSPHRASE = "reading group 2026"


def test_a_passphrase_is_stored_salted_and_checked_against_its_hash():
    stored = hash_passphrase(PASSPHRASE)
    assert PASSPHRASE not in stored and stored.startswith("scrypt$16384$8$1$")
    assert hash_passphrase(PASSPHRASE) != stored  # a new salt each time
    assert passphrase_matches(PASSPHRASE, stored)
    assert not passphrase_matches(PASSPHRASE + " ", stored) and not passphrase_matches("", stored)
    for broken in ("", "plain text", stored.replace("scrypt", "md5"), stored[:-6] + "!!!!!!", "scrypt$1$1$1$x$y"):
        assert not passphrase_matches(PASSPHRASE, broken)
    with pytest.raises(ParameterError, match="at least 8 characters"):
        hash_passphrase("short")


@pytest.mark.parametrize(
    "address, loopback",
    [("127.0.0.1", True), ("localhost", True), ("::1", True), ("127.0.0.2", True), ("0.0.0.0", False), ("", False)]
    + [("192.168.1.20", False), ("::", False)],
)
def test_loopback_addresses(address, loopback):
    assert is_loopback(address) is loopback


def test_the_rule_follows_the_address_the_passphrase_and_the_login():
    stored = hash_passphrase(PASSPHRASE)
    assert editing_rule(True, {}, {}).rule == "open"
    assert editing_rule(False, {}, {}).rule == "read-only"  # served without a rule: nobody edits
    by_env = editing_rule(False, {}, {"PAPERMAP_EDITOR_PASSPHRASE": stored})
    by_secrets = editing_rule(True, {"papermap": {"editor_passphrase": stored}}, {})
    assert by_env == by_secrets == EditingRule("members", passphrase_hash=stored)
    login = editing_rule(False, {"auth": {"client_id": "x"}, "papermap": {"members": ["Ada@Example.org"]}}, {})
    assert (login.rule, login.login, login.allowed_emails) == ("members", True, ("ada@example.org",))


def test_who_a_rule_admits():
    stored = hash_passphrase(PASSPHRASE)
    assert EditingRule("open").admits() and not EditingRule("read-only").admits(unlocked=True)
    by_passphrase = EditingRule("members", passphrase_hash=stored)
    assert by_passphrase.admits(unlocked=True) and not by_passphrase.admits()
    assert not by_passphrase.admits(logged_in_email="ada@example.org")  # no login configured
    login = EditingRule("members", login=True, allowed_emails=("ada@example.org",))
    assert login.admits(logged_in_email="ADA@example.org") and not login.admits(logged_in_email="eve@example.org")
    assert not login.admits() and EditingRule("members", login=True).admits(logged_in_email="eve@example.org")


def test_the_passphrase_command_prints_a_setting_with_the_hash_only():
    done = subprocess.run(
        [sys.executable, "-m", "lib", "passphrase"], input=PASSPHRASE + "\n", capture_output=True, text=True, cwd=REPO
    )
    assert done.returncode == 0 and PASSPHRASE not in done.stdout + done.stderr
    section, line = done.stdout.strip().splitlines()
    assert section == "[papermap]" and line.startswith('editor_passphrase = "scrypt$')
    assert passphrase_matches(PASSPHRASE, line.split('"')[1])
    short = subprocess.run(
        [sys.executable, "-m", "lib", "passphrase"], input="short\n", capture_output=True, text=True, cwd=REPO
    )
    assert short.returncode == 2 and short.stderr.strip() == "error: A passphrase needs at least 8 characters."


LOCAL = {"Host": "127.0.0.1:8501", "User-Agent": "x"}


@pytest.mark.parametrize(
    "server, peer, headers, local",
    [
        ("127.0.0.1", "127.0.0.1", LOCAL, True),
        ("127.0.0.1", "127.0.0.1", {"Host": "localhost:8501"}, True),
        ("::1", "::1", {"Host": "[::1]:8501"}, True),
        # A forwarder on 127.0.0.2 (or any port but the server's) is asked for by its own address.
        ("127.0.0.1", "127.0.0.1", {"Host": "127.0.0.2:8501"}, False),
        ("127.0.0.1", "127.0.0.1", {"Host": "127.0.0.1:9000"}, False),
        # A reverse proxy says whom it forwards; a public name is not this machine.
        ("127.0.0.1", "127.0.0.1", {**LOCAL, "X-Forwarded-For": "203.0.113.9"}, False),
        ("127.0.0.1", "127.0.0.1", {**LOCAL, "Forwarded": "for=203.0.113.9"}, False),
        ("127.0.0.1", "127.0.0.1", {"Host": "papers.example.org"}, False),
        ("127.0.0.1", "10.0.0.5", LOCAL, False),
        ("127.0.0.1", None, LOCAL, True),  # Streamlit reports 127.0.0.1 and ::1 as None
        ("127.0.0.1", "127.0.0.2", {"Host": "127.0.0.1:8501"}, True),
        ("127.0.0.1", object(), LOCAL, False),  # not an address: closed
        ("0.0.0.0", "127.0.0.1", {"Host": "0.0.0.0:8501"}, False),  # served to the network
        ("", "127.0.0.1", LOCAL, False),
        ("127.0.0.1", object(), None, True),  # no request at all: an in-process AppTest session
    ],
)
def test_a_session_is_local_only_when_its_request_comes_straight_from_this_machine(server, peer, headers, local):
    assert is_local_request(server, 8501, peer, headers) is local


def test_a_server_that_read_no_settings_shows_nothing_and_says_why():
    from streamlit import config

    from lib.ui_state.members import unchosen_address

    before = config.get_option("server.address")
    try:
        config.set_option("server.address", None)  # as when no config.toml was read: every interface
        assert "listens on every network interface" in unchosen_address()
        config.set_option("server.address", "0.0.0.0")  # chosen on purpose: served, by the rules above
        assert unchosen_address() is None
    finally:
        config.set_option("server.address", before)


def listening_addresses(port: int) -> set[str]:
    """The addresses sockets listen on at `port`, from the kernel's tables (/proc/net/tcp, tcp6)."""
    import ipaddress
    from pathlib import Path

    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:] if Path(table).exists() else []:
            local, state = line.split()[1], line.split()[3]
            address, _, hex_port = local.partition(":")
            if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                raw = bytes.fromhex(address)
                # The kernel writes each 32-bit word in host (little-endian) order.
                ordered = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
                found.add(str(ipaddress.ip_address(ordered)))
    return found


@pytest.mark.skipif(not __import__("pathlib").Path("/proc/net/tcp").exists(), reason="reads Linux's socket tables")
def test_started_from_another_folder_the_dashboard_listens_on_this_machine_only(tmp_path):
    """Streamlit reads the settings beside dashboard.py wherever the command is typed."""
    import socket
    import subprocess
    import sys
    import time

    from conftest import DASHBOARD

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**__import__("os").environ, "PAPERMAP_CACHE": str(tmp_path / "cache")}
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        DASHBOARD,
        "--server.port",
        str(port),
        "--server.headless",
        "true",
    ]
    server = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not (addresses := listening_addresses(port)) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert addresses == {"127.0.0.1"}
    finally:
        server.terminate()
        server.wait(timeout=30)
