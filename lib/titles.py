"""Short display titles for papers whose source gives only an abstract."""
from __future__ import annotations

import re

MAX_TITLE_WORDS = 12

# A name as abstracts write it: "VistaDPO", "CS+", "F-RG", "Aligned Multi-Objective Optimization".
_NAME_TOKEN = r"[A-Z][\w+\-]*(?:-[\w+]+)*"
_NAME = rf"{_NAME_TOKEN}(?:\s+(?:{_NAME_TOKEN}|of|for|and|with|in|on|to))*(?<!\bof)(?<!\bfor)(?<!\band)"
_INTRO = r"\b(?:we\s+)?(?:propose|introduce|present|develop|call|term|name|dub)s?\b"
_ARTICLE = r"(?:(?:a|an|the)\s+)?(?:(?:novel|new|simple|general|practical|unified|principled)\s+)*"

# Explicit naming wins: "coined CS+", "named X", "dubbed X", "which we call X".
_NAMED = re.compile(rf"\b(?:coined|named|dubbed|termed|called|call)\s+[*_`\"']*({_NAME})")
# "we introduce **VistaDPO**" / "we propose the Aligned Multi-Objective Optimization framework".
_INTRODUCED = re.compile(rf"{_INTRO}\s+{_ARTICLE}[*_`\"']*({_NAME})")
_ACRONYM = re.compile(r"[A-Z].*[A-Z0-9+]|[A-Z][a-z]+[A-Z]\w*")  # mixed case or 2+ capitals
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9$\\(])")
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
        return name
    return _shorten(_SENTENCE_END.split(text, maxsplit=1)[0])


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


def _shorten(sentence: str) -> str:
    words = _MARKUP.sub("", sentence).split()
    if len(words) <= MAX_TITLE_WORDS:
        return " ".join(words).rstrip(".")
    return " ".join(words[:MAX_TITLE_WORDS]).rstrip(",;:") + "…"
