"""Who may change what the group saves: the members rule of a served dashboard, and its hashed passphrase.

Viewing is always open. Editing (reading lists, votes, uploads, fetches) is open to a session that
comes straight from the dashboard's own machine to a dashboard listening there only (the default,
127.0.0.1): decided per session from its request (`is_local_request`), so a reverse proxy, tunnel or
port forwarder in front of a loopback dashboard does not open it to whoever it forwards. Otherwise it is for
members: users logged in through Streamlit's `st.login` when the server configures an OpenID
Connect provider (`[auth]` in `.streamlit/secrets.toml`; `[papermap] members = [...]` may list
the e-mail addresses allowed), or anyone who gives the shared passphrase, stored only as its
scrypt hash (`python -m lib passphrase` makes it). A served dashboard with neither is read-only.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from lib.errors import ParameterError

PASSPHRASE_ENV = "PAPERMAP_EDITOR_PASSPHRASE"  # environment variable holding the hash
SECRETS_SECTION = "papermap"  # [papermap] in .streamlit/secrets.toml
MIN_PASSPHRASE_LENGTH = 8
# scrypt's interactive-login cost (2^14, 8, 1): ~50 ms and 16 MB per try, so guessing is slow.
_SCRYPT_N, _SCRYPT_R, _SCRYPT_P = 2**14, 8, 1

Rule = Literal["open", "members", "read-only"]


@dataclass(frozen=True)
class EditingRule:
    """Who may edit: everyone ("open"), members ("members": by login and/or passphrase), or no one ("read-only")."""

    rule: Rule
    passphrase_hash: str = ""  # members may unlock with the passphrase of this hash
    login: bool = False  # members may log in with st.login
    allowed_emails: tuple[str, ...] = ()  # if any, only these logged-in users are members

    def admits(self, *, unlocked: bool = False, logged_in_email: str | None = None) -> bool:
        """Whether a session may edit: it gave the passphrase (`unlocked`) or is logged in as `logged_in_email`."""
        if self.rule != "members":
            return self.rule == "open"
        if unlocked and self.passphrase_hash:
            return True
        if self.login and logged_in_email is not None:
            return not self.allowed_emails or logged_in_email.casefold() in self.allowed_emails
        return False


def hash_passphrase(passphrase: str, *, salt: bytes | None = None) -> str:
    """The stored form of `passphrase`: `scrypt$N$r$p$SALT$HASH` (base64), with a random salt unless given."""
    if len(passphrase) < MIN_PASSPHRASE_LENGTH:
        raise ParameterError(f"A passphrase needs at least {MIN_PASSPHRASE_LENGTH} characters.")
    salt = secrets.token_bytes(16) if salt is None else salt
    digest = hashlib.scrypt(passphrase.encode(), salt=salt, n=_SCRYPT_N, r=_SCRYPT_R, p=_SCRYPT_P)
    encode = base64.b64encode
    return f"scrypt${_SCRYPT_N}${_SCRYPT_R}${_SCRYPT_P}${encode(salt).decode()}${encode(digest).decode()}"


def passphrase_matches(passphrase: str, stored: str) -> bool:
    """Whether `passphrase` is the one `stored` (a `hash_passphrase` result) was made from; False for a malformed hash."""
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        expected = base64.b64decode(digest, validate=True)
        actual = hashlib.scrypt(
            passphrase.encode(), salt=base64.b64decode(salt, validate=True), n=int(n), r=int(r), p=int(p)
        )
    except ValueError:  # a wrong field count, bad base64 or numbers, or scrypt parameters out of range
        return False
    return hmac.compare_digest(actual, expected)


def is_loopback(address: str) -> bool:
    """Whether a server listening on `address` is reachable only from its own machine."""
    if address.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(address.strip()).is_loopback
    except ValueError:  # "" or "0.0.0.0"-like names: every interface
        return False


# Headers a proxy adds to say whom it forwards: a session carrying any of them is not local.
FORWARDING_HEADERS = (
    "forwarded",
    "x-forwarded-for",
    "x-forwarded-host",
    "x-forwarded-proto",
    "x-forwarded-server",
    "x-real-ip",
    "x-client-ip",
    "via",
    "cf-connecting-ip",
    "true-client-ip",
)


def is_local_request(server_address: str, server_port: int, peer: object, headers: Mapping[str, str] | None) -> bool:
    """Whether a session's request came from this machine straight to this loopback server.

    All must hold, else it is not (fails closed): the server listens on loopback only; the peer is
    a loopback address (None: 127.0.0.1 or ::1, as Streamlit reports them); no proxy's forwarding
    header is present; and the Host the browser asked for is this server by its own address or
    `localhost`, on its own port (a forwarder elsewhere, even on 127.0.0.2 or another port, is
    asked for by its own address). `headers` None means the session has
    no HTTP request at all (Streamlit's in-process AppTest), which no visitor can reach.
    """
    if not is_loopback(server_address):
        return False
    if headers is None:
        return True
    # Streamlit's `st.context.ip_address` is None for a peer at 127.0.0.1 or ::1, and a string otherwise.
    if peer is not None and (not isinstance(peer, str) or not is_loopback(peer)):
        return False
    lowered = {str(name).lower(): str(value) for name, value in headers.items()}
    if any(name in lowered for name in FORWARDING_HEADERS):
        return False
    host, _, port = lowered.get("host", "").strip().rpartition(":")
    return port == str(server_port) and host.strip("[]").lower() in {"localhost", server_address.strip().lower()}


def editing_rule(local: bool, secrets_: Mapping[str, object], environ: Mapping[str, str]) -> EditingRule:
    """The rule for a session (`local`: see `is_local_request`), given the server's secrets (`st.secrets`) and environment.

    A passphrase hash comes from the environment's PAPERMAP_EDITOR_PASSPHRASE, else from
    `[papermap] editor_passphrase` in the secrets; a login from an `[auth]` section.
    """
    section = secrets_.get(SECRETS_SECTION) or {}
    section = section if isinstance(section, Mapping) else {}
    passphrase_hash = str(environ.get(PASSPHRASE_ENV) or section.get("editor_passphrase") or "")
    login = "auth" in secrets_
    emails = tuple(str(email).strip().casefold() for email in section.get("members", ()) or ())
    if passphrase_hash or login:
        return EditingRule("members", passphrase_hash=passphrase_hash, login=login, allowed_emails=emails)
    return EditingRule("open" if local else "read-only")
