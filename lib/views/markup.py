"""Untrusted text made inert for the places that interpret it: Markdown widgets and links."""

from __future__ import annotations

import html
import re
import string
from html.entities import html5
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


# What CommonMark and GitHub read as markup inside a line: a backslash that escapes the next
# character (or, at the end, whatever follows the text), code spans, emphasis and strikethrough
# delimiters, link brackets, HTML and autolinks, entity references, and a heading's closing #s.
_COMMONMARK_SPECIAL = re.compile(
    rf"\\(?=[{re.escape(string.punctuation)}]|$)"
    r"|[`*~\[\]<]"
    r"|_+"
    r"|&(?=#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|([A-Za-z][A-Za-z0-9]*);)"
    r"|(?:^|(?<= ))#+$"
)


def _commonmark_escape(match: re.Match[str]) -> str:
    token, text = match[0], match.string
    if token[0] == "_":
        # A run of underscores between letters or digits (snake_case) can neither open nor close emphasis.
        before, after = text[match.start() - 1 : match.start()], text[match.end() : match.end() + 1]
        return token if before.isalnum() and after.isalnum() else "\\_" * len(token)
    if token == "&" and match[1] is not None and f"{match[1]};" not in html5:
        return token  # `&name;` is a reference only when `name` is an HTML5 entity
    return "\\" + token


def commonmark_literal(text: object) -> str:
    """`text` as CommonMark/GitHub Markdown that renders exactly that text on one line, escaping only what would be markup.

    For files people read raw as well as rendered (exports), unlike `markdown_literal`, which escapes
    all punctuation for Streamlit's own directives. Whitespace and newlines collapse to single spaces,
    so the text can start no block; it belongs inside a line after other text (a heading, a list
    item, bold), not at a line start or in a table cell. Escaped: backslashes that would escape
    something, `` ` * ~ [ ] < `` (code, emphasis, strikethrough, links, HTML, autolinks), `_` except
    between letters or digits, `&` only where it starts an entity reference, and a trailing run of
    `#` that a heading would drop. Ordinary titles, `:`, `,`, `-`, `>`, `$`, `C:\\path` and bare
    URLs stay as written (GitHub links a bare https URL; that is a link, not script).

    >>> commonmark_literal("K²VAE: Wu, Qiu -> snake_case")
    'K²VAE: Wu, Qiu -> snake_case'
    >>> commonmark_literal("**b** <script> [x](y) &amp; _e_ ~~s~~")
    '\\\\*\\\\*b\\\\*\\\\* \\\\<script> \\\\[x\\\\](y) \\\\&amp; \\\\_e\\\\_ \\\\~\\\\~s\\\\~\\\\~'
    """
    return _COMMONMARK_SPECIAL.sub(_commonmark_escape, " ".join(str(text).split()))


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
