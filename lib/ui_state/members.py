"""Members: the session's name (for votes and the change log), and whether it may edit under the server's rule."""

from __future__ import annotations

import json
import os
from urllib.parse import unquote

import streamlit as st

from lib.store import members, reading_lists

MEMBER_NAME_KEY = "papermap_member_name"  # "Your name", kept for the whole session
NAME_COOKIE = "papermap_member_name"  # and in the browser, across reloads and visits
NAME_COOKIE_SECONDS = 365 * 24 * 3600
NAME_LENGTH = reading_lists.MAX_VOTER_LENGTH  # the longest name a vote keeps
_REMEMBER_KEY = "papermap_remember_name"
_UNLOCKED_KEY = "papermap_editing_unlocked"
_PASSPHRASE_KEY = "papermap_passphrase"
_REFUSED_KEY = "papermap_passphrase_refused"


def unchosen_address() -> str | None:
    """Why this server must show nothing, or None: started outside PaperMap's folder, Streamlit read
    no `.streamlit/config.toml` and listens on every network interface, which nobody chose."""
    if st.get_option("server.address"):
        return None
    return (
        "PaperMap was started outside its project folder, so Streamlit did not read its settings and listens on "
        "every network interface; nothing is shown. Start it from the project folder, or choose with "
        "`--server.address 127.0.0.1` (this machine only) or `--server.address 0.0.0.0` (a reading group's network)."
    )


def local_session() -> bool:
    """Whether this session's request came from this machine straight to this loopback server (`members.is_local_request`)."""
    headers = dict(st.context.headers)
    return members.is_local_request(
        str(st.get_option("server.address") or ""),
        int(st.get_option("server.port")),
        st.context.ip_address,
        headers or None,  # a served session always has its request's headers; none means an in-process AppTest
    )


def editing_rule() -> members.EditingRule:
    """The members rule for this session, from its request, `st.secrets` and the environment."""
    try:
        secrets = st.secrets.to_dict()
    except FileNotFoundError:  # none, or one that does not parse: no rule, so a served dashboard is read-only
        secrets = {}
    return members.editing_rule(local_session(), secrets, os.environ)


def _logged_in_email() -> str | None:
    if not st.user.get("is_logged_in"):
        return None
    return str(st.user.get("email") or "")


def may_edit() -> bool:
    """Whether this session may change reading lists and the data folder."""
    return editing_rule().admits(
        unlocked=st.session_state.get(_UNLOCKED_KEY, False), logged_in_email=_logged_in_email()
    )


def refusal() -> str:
    """The sentence that says why this session may not edit, and how it could."""
    rule = editing_rule()
    if rule.rule == "read-only":
        return (
            "This dashboard is reached from another machine or through a proxy and has no members rule, so it is "
            "read-only here: its owner can set a passphrase (`python -m lib passphrase`) or a login to allow members to edit."
        )
    ways = [way for way, on in (("log in", rule.login), ("give the group's passphrase", rule.passphrase_hash)) if on]
    return f"Only members can change this; {' or '.join(ways)} on the Reading lists page."


def member_name() -> str:
    """The name this session gave ("Your name"), else its login's name; "" when neither."""
    typed = " ".join(str(st.session_state.get(MEMBER_NAME_KEY, "")).split())
    if typed or _logged_in_email() is None:
        return typed
    return str(st.user.get("name") or st.user.get("email") or "")


def _unlock() -> None:
    stored = editing_rule().passphrase_hash
    given = st.session_state.get(_PASSPHRASE_KEY, "")
    st.session_state[_PASSPHRASE_KEY] = ""  # never kept in the session
    accepted = bool(stored) and members.passphrase_matches(given, stored)
    st.session_state[_UNLOCKED_KEY] = accepted
    st.session_state[_REFUSED_KEY] = not accepted


def _clean_name(text: str) -> str:
    return " ".join(str(text).split())[:NAME_LENGTH]


def _remember_name() -> None:
    st.session_state[_REMEMBER_KEY] = _clean_name(st.session_state.get(MEMBER_NAME_KEY, ""))


def _name_cookie_script(name: str) -> str:
    """A script that keeps `name` in this browser's `NAME_COOKIE` for a year (an empty name clears it).
    The name is JSON in the script, with `<` escaped, so no name can end the script or add markup."""
    value = json.dumps(name).replace("<", "\\u003c")
    age = 0 if not name else NAME_COOKIE_SECONDS
    return (
        f"<script>document.cookie = '{NAME_COOKIE}=' + encodeURIComponent({value}) + "
        f"'; path=/; max-age={age}; SameSite=Strict';</script>"
    )


def member_name_box() -> None:
    """The "Your name" box: the name votes are given in and changes are logged with. It is kept in
    a cookie of this browser (`NAME_COOKIE`), so a reload, or the next visit, starts with it."""
    if MEMBER_NAME_KEY not in st.session_state:
        remembered = dict(st.context.cookies).get(NAME_COOKIE)  # a dict first: AppTest's cookies answer any name
        st.session_state[MEMBER_NAME_KEY] = _clean_name(unquote(remembered)) if isinstance(remembered, str) else ""
    st.text_input(
        "Your name",
        key=MEMBER_NAME_KEY,
        max_chars=NAME_LENGTH,
        placeholder="for votes and the history",
        help="Votes are by name, one per name per paper; changes you make are logged with it. "
        "This browser remembers it.",
        on_change=_remember_name,
    )
    if (name := st.session_state.pop(_REMEMBER_KEY, None)) is not None:
        st.html(_name_cookie_script(name), unsafe_allow_javascript=True)


def member_access() -> None:
    """Under a members rule, the passphrase box and/or the login button, or why the dashboard is read-only;
    nothing where everyone may edit."""
    rule = editing_rule()
    if rule.rule == "read-only":
        st.caption(refusal())
    elif rule.rule == "members" and not may_edit():
        with st.container(horizontal=True, vertical_alignment="bottom"):
            if rule.passphrase_hash:
                with st.form("unlock_editing", border=False, enter_to_submit=True):
                    st.text_input("Group passphrase", type="password", key=_PASSPHRASE_KEY)
                    st.form_submit_button("Unlock editing", on_click=_unlock)
            if rule.login:
                st.button("Log in to edit", on_click=st.login)
        if st.session_state.pop(_REFUSED_KEY, False):
            st.error("That is not the group's passphrase.")
        else:
            st.caption("Viewing is open; changing lists is for members.")
    elif rule.rule == "members":
        with st.container(horizontal=True, vertical_alignment="center"):
            st.caption("You can edit: a member of this group.")
            if _logged_in_email() is not None:
                st.button("Log out", on_click=st.logout)
