"""The members rule: who may edit a dashboard, and the passphrase kept only as its hash."""

import subprocess
import sys

import pytest
from conftest import REPO

from lib.errors import ParameterError
from lib.store.members import EditingRule, editing_rule, hash_passphrase, is_loopback, passphrase_matches

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
    assert editing_rule("127.0.0.1", {}, {}).rule == "open"
    assert editing_rule("0.0.0.0", {}, {}).rule == "read-only"  # served without a rule: nobody edits
    by_env = editing_rule("0.0.0.0", {}, {"PAPERMAP_EDITOR_PASSPHRASE": stored})
    by_secrets = editing_rule("127.0.0.1", {"papermap": {"editor_passphrase": stored}}, {})
    assert by_env == by_secrets == EditingRule("members", passphrase_hash=stored)
    login = editing_rule("0.0.0.0", {"auth": {"client_id": "x"}, "papermap": {"members": ["Ada@Example.org"]}}, {})
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
