"""Widgets whose state lives in the URL, so a copied link reopens the same view."""

from __future__ import annotations

from typing import Literal

import streamlit as st

from lib.views.filters import choices_from_query


def url_multiselect(label: str, options: dict[str, int], key: str, placeholder: str) -> list[str]:
    """A multiselect of `options` (value -> count) whose choice lives in the URL as `?key=a&key=b`.

    The URL seeds the widget on a session's first run, so a shared link reopens the same view; the
    widget writes its choice back on every run, which also restores the URL after a page switch.
    """
    if key not in st.session_state:
        query = {key: st.query_params.get_all(key)}
        st.session_state[key] = choices_from_query(query, key, options)
    else:  # options can shrink (another filter narrowed them): keep only choices still offered
        st.session_state[key] = [v for v in st.session_state[key] if v in options]
    chosen = st.multiselect(
        label, list(options), format_func=lambda v: f"{v} ({options.get(v, 0)})", key=key, placeholder=placeholder
    )
    write_url(key, chosen, [])
    return chosen


def url_select(label: str, options: dict[str, str], key: str, default: str, horizontal: bool = False) -> str:
    """A choice among `options` (value -> display name) kept in the URL as `?key=value`.

    A radio when `horizontal`, else a select box. The choice also survives visits to other pages.
    """
    if key not in st.session_state:
        wanted = st.query_params.get(key)
        st.session_state[key] = wanted if wanted in options else default
    if horizontal:
        value = st.radio(
            label, list(options), format_func=options.get, key=key, horizontal=True, persist_state="session"
        )
    else:
        value = st.selectbox(
            label, list(options), format_func=lambda v: str(options.get(v)), key=key, persist_state="session"
        )
    write_url(key, value, default)
    return value


def url_text(label: str, key: str, placeholder: str, area: bool = False, show_label: bool = True) -> str:
    """A text box (a text area when `area`) kept in the URL as `?key=text`; returns the stripped text.
    Without `show_label` the label is only read to screen readers (the placeholder must say it)."""
    if key not in st.session_state:
        st.session_state[key] = st.query_params.get(key, "")
    widget = st.text_area if area else st.text_input
    visibility: Literal["visible", "collapsed"] = "visible" if show_label else "collapsed"
    value = widget(
        label, key=key, placeholder=placeholder, persist_state="session", label_visibility=visibility
    ).strip()
    write_url(key, value, "")
    return value


def write_url(key: str, value: str | list[str], default: str | list[str]) -> None:
    """Put `value` in the URL as `?key=`, or take `key` out when `value` is the default (a plain link stays plain)."""
    if value != default:
        st.query_params[key] = value
    elif key in st.query_params:
        del st.query_params[key]


_PAGE_KEY, _PREVIOUS_PAGE_KEY = "papermap_page", "papermap_previous_page"


def note_page(url_path: str) -> None:
    """Record the page this run shows (dashboard.py, before running it), so a page can tell a
    link that brought it here (`arrived`) from its own reruns."""
    st.session_state[_PREVIOUS_PAGE_KEY] = st.session_state.get(_PAGE_KEY)
    st.session_state[_PAGE_KEY] = url_path


def arrived() -> bool:
    """Whether this run came to its page from another page, or is the session's first: the URL's
    parameters (a link's) then win over what the page's widgets remembered."""
    return st.session_state.get(_PREVIOUS_PAGE_KEY) != st.session_state.get(_PAGE_KEY)
