"""Untrusted text made inert for the places that interpret it: Markdown widgets and links."""

from __future__ import annotations

import html
import re
from urllib.parse import urlsplit

# CommonMark lets a backslash escape any ASCII punctuation; Streamlit's Markdown adds $…$ maths,
# :emoji: shortcodes and :colour[…] directives, all made of these characters.
_MARKDOWN_SPECIAL = re.compile(r"([!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])")


def markdown_literal(text: object) -> str:
    """`text` as Markdown that displays exactly that text on one line: no markup, link, HTML or maths.

    >>> markdown_literal("**Bold** <img src=x> $x$")
    '\\\\*\\\\*Bold\\\\*\\\\* \\\\<img src\\\\=x\\\\> \\\\$x\\\\$'
    """
    return _MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def html_literal(text: object) -> str:
    """`text` with `&`, `<` and `>` escaped, for Plotly's hover, labels and titles (which render a subset of HTML).

    Quotes stay as they are: Plotly shows "&quot;" literally, and quotes cannot open a tag anyway.
    """
    return html.escape(str(text), quote=False)


def safe_url(url: object) -> str:
    """`url` when it is an absolute http(s) link, else "": a data file's `javascript:` or `data:` link is never offered."""
    text = str(url).strip()
    try:
        parts = urlsplit(text)
    except ValueError:
        return ""
    return text if parts.scheme.lower() in ("http", "https") and parts.netloc else ""
