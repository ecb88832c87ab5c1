"""Short display titles for papers whose source gives only an abstract."""

from __future__ import annotations

import re

MAX_TITLE_WORDS = 12
# Text without spaces (Chinese, a URL) is one "word": cap characters too, or the title is the abstract.
MAX_TITLE_CHARS = 120

# A name as abstracts write it: "VistaDPO", "CS+", "F-RG", "Aligned Multi-Objective Optimization".
_NAME_TOKEN = r"[A-Z][\w+\-]*(?:-[\w+]+)*"
_CONNECTORS = ("of", "for", "and", "with", "in", "on", "to")
# Connectors join the words of a name but never end it: "Deep Sets on graphs" names "Deep Sets".
_NAME = (
    rf"{_NAME_TOKEN}(?:\s+(?:{_NAME_TOKEN}|{'|'.join(_CONNECTORS)}))*"
    + "".join(rf"(?<!\s{c})" for c in _CONNECTORS)  # as words: "Plug-in" ends with a name part
)
_INTRO = r"\b(?:we\s+)?(?:propose|introduce|present|develop|call|term|name|dub)s?\b"
_ARTICLE = r"(?:(?:a|an|the)\s+)?(?:(?:novel|new|simple|general|practical|unified|principled)\s+)*"

# Explicit naming wins: "coined CS+", "named X", "dubbed X", "which we call X".
_NAMED = re.compile(rf"\b(?:coined|named|dubbed|termed|called|call)\s+[*_`\"']*({_NAME})")
# "we introduce **VistaDPO**" / "we propose the Aligned Multi-Objective Optimization framework".
_INTRODUCED = re.compile(rf"{_INTRO}\s+{_ARTICLE}[*_`\"']*({_NAME})")
# Mixed case or 2+ capitals: ends in one ("VistaDPO", "CS+") or has one right after a letter or digit
# ("LLMNodeBed", "GPT-4o"); a capital after a hyphen alone ("Self-Supervised") does not count.
_ACRONYM = re.compile(r"[A-Z].*[A-Z0-9+]|.*[A-Za-z0-9][A-Z].*")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9$\\(])|(?<=[。！？])")
_MARKUP = re.compile(r"[*_`]+")


def derive_title(abstract: str) -> str:
    """The method name an abstract introduces, else its first sentence shortened.

    >>> derive_title("We introduce **VistaDPO**, a framework for video alignment.")
    'VistaDPO'
    """
    text = abstract.strip()
    if not text:
        return ""
    name = _method_name(text)
    if name:
        return _cap(name)
    # An abstract of markup only ("***") has no words in its first sentence; keep it rather than "".
    return _cap(_shorten(_SENTENCE_END.split(text, maxsplit=1)[0]) or text)


def _method_name(text: str) -> str:
    for pattern in (_NAMED, _INTRODUCED):
        for match in pattern.finditer(text):
            name = _MARKUP.sub("", match.group(1)).strip(" -")
            words = name.split()
            # One capitalised word ("We", "Transformers") is rarely a name; an acronym or a
            # multi-word proper name ("Aligned Multi-Objective Optimization") is.
            if len(words) >= 2 or _ACRONYM.fullmatch(name):
                return " ".join(words[:MAX_TITLE_WORDS])
    return ""


def _cap(title: str) -> str:
    """`title` cut to MAX_TITLE_CHARS, with an ellipsis when cut."""
    if len(title) <= MAX_TITLE_CHARS:
        return title
    return title[: MAX_TITLE_CHARS - 1].rstrip() + "…"


def _shorten(sentence: str) -> str:
    words = _MARKUP.sub("", sentence).split()
    if len(words) <= MAX_TITLE_WORDS:
        return " ".join(words).rstrip(".")
    return " ".join(words[:MAX_TITLE_WORDS]).rstrip(",;:") + "…"
