"""Who may change what the group saves: the members rule of a served dashboard, and its hashed passphrase.

Viewing is always open. Editing (reading lists, votes, uploads, fetches) is open on a dashboard
that only its own machine can reach (the default, 127.0.0.1). Served to a network, it is for
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


def editing_rule(server_address: str, secrets_: Mapping[str, object], environ: Mapping[str, str]) -> EditingRule:
    """The rule for a server listening on `server_address`, given its secrets (`st.secrets`) and environment.

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
    return EditingRule("open" if is_loopback(server_address) else "read-only")
