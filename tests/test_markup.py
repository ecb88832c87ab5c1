import re

import pytest

from lib.views.markup import html_literal, markdown_literal, safe_url

HOSTILE = [
    "<img src=x onerror=alert(1)>",
    "<script>alert(1)</script>",
    "**bold** [click](javascript:alert(1))",
    "$\\frac{a}{b}$ :red[red] :smile: `code` # heading",
    "line one\nline two",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_markdown_literal_leaves_only_escaped_punctuation(text):
    out = markdown_literal(text)
    assert "\n" not in out
    assert re.sub(r"\\(.)", r"\1", out) == " ".join(text.split())  # nothing dropped or added but the escapes
    for i, char in enumerate(out):  # every special character is escaped
        if char in "<>[]()*_`$:#" and i:
            assert out[i - 1] == "\\", (char, out)


def test_safe_url_offers_only_web_links():
    assert safe_url("https://openreview.net/forum?id=x") == "https://openreview.net/forum?id=x"
    assert safe_url(" http://example.org/a ") == "http://example.org/a"
    for bad in (
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "//evil.org/x",
        "",
        "http://[::1",
    ):
        assert safe_url(bad) == ""


def test_html_literal_escapes_tags_but_not_quotes():
    assert html_literal('<img src=x> & "q"') == '&lt;img src=x&gt; &amp; "q"'
