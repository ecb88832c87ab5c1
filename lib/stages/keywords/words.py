"""The keyphrase extractor's word lists (generic words, breaks, adjective endings, verb markers) and
how a text splits into words (`_tokens`)."""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Sequence
from itertools import chain

from lib.stages.phrases import NOT_PROSE, STOP_WORDS

# Generic words that still belong inside a phrase, as its modifier ("large language model") or its
# head ("inference efficiency", "case study"); never a keyphrase alone.
GENERIC_MODIFIERS = frozenset(
    "large small simple strong efficient effective real-world open-source theoretical empirical "
    "fundamental common prior wide key critical position state case paradigm fast".split()
)
GENERIC_HEADS = frozenset(
    "performance efficiency effectiveness problem problems task tasks setting settings framework "
    "capabilities capability approach approaches method methods study studies stage stages state case paradigm "
    "view views aspect aspects application applications goal goals practice year years".split()
)
# Every other generic word ends a phrase as a stop word does; so do comparatives and superlatives
# ("larger models") and a few discourse words.
BREAK_WORDS = (STOP_WORDS - GENERIC_MODIFIERS - GENERIC_HEADS) | frozenset(
    """
    state-of-the-art sota et al e.g i.e etc versus vs whereas thereby like unlike vice versa
    larger smaller faster stronger higher lower greater fewer longer shorter deeper wider cheaper easier
    harder weaker simpler richer largest smallest strongest highest lowest greatest fastest longest
    don doesn didn isn aren wasn weren won shouldn couldn wouldn hasn haven does did doing
    met made found known taken seen held led built brought thought kept sought told chosen drawn arisen
    idea ideas section sections manner fashion thing things lot lots
    """.split()
)
# Endings of adjectives that name no concept alone ("scalable", "pairwise", "training-free").
_ADJECTIVE_ENDINGS = (
    "ous",
    "ful",
    "less",
    "able",
    "ible",
    "ive",
    "ical",
    "ional",
    "ual",
    "tial",
    "wise",
    "-free",
    "-based",
    "-aware",
    "-specific",
    "-driven",
    "-agnostic",
    "-like",
    "-level",
    "-efficient",
    "-centric",
    "-optimal",
    "-box",
    "-preserving",
)
# Endings shared by adjectives and nouns ("optimal"/"signal", "convex"/"index"): such a word alone
# must be a noun in the corpus more clearly.
_MAYBE_ADJECTIVE_ENDINGS = ("al", "ic", "ar", "ent", "ant", "ex", "ete", "ust", "ate", "ine", "ian", "ed", "ing")
_NOUNS_IN_LY = frozenset(
    "anomaly family assembly supply reply monopoly butterfly italy july rally ally poly early daily weekly monthly yearly hourly".split()
)
# A word right before a determiner, or right after `to`, `we` or a modal, is used as a verb there.
_DETERMINERS = frozenset("the a an this these those its their our his her such each every both any some".split())
_BEFORE_VERB = frozenset("to we can may will also could would should might must they it not that which who".split())
_AUXILIARIES = frozenset("has have had been".split())  # before a participle: "has gained"
# "Kullback–Leibler" is one word; "Newton's method" and "Occam's razor" name one concept each.
# The dash comes first, the letter before it in a look-behind: a search for the dash alone is fast.
_JOINED_DASH = re.compile(r"[\u2010\u2011\u2013](?<=[^\W\d_].)(?=[^\W\d_])")
# Words may hold any letters ("Rényi", "Nyström"); anything else but white space is a break.
_CASED_TOKEN = re.compile(
    r"[A-Z][^\W\d_A-Z]+['\u2019]s(?![^\W\d_])|[^\W\d_][^\W_]*(?:[-+][^\W_]+)*\+?|\d+[^\W\d_][^\W_]*(?:-[^\W_]+)*|\d+(?:[.,]\d+)*|[^\w\s]|_"
)


def _tokens(texts: Sequence[str]) -> list[list[str]]:
    """Each text's cased tokens: words, numbers and punctuation marks (`_CASED_TOKEN`)."""
    # NFKC folds ligatures and superscripts ("ﬁrst" -> "first", "M²IV" -> "M2IV").
    chunks = _Chunks()
    return [list(chain.from_iterable(map(chunks.__getitem__, _prose(text).split()))) for text in texts]


class _Chunks(dict[str, tuple[str, ...]]):
    """White-space-free chunk of a text -> its tokens. No token spans white space (`_CASED_TOKEN`
    matches none, and what follows a chunk is never a letter), so a text's tokens are its chunks',
    and a corpus repeats most chunks ("the", "model,"): each is matched once."""

    def __missing__(self, chunk: str) -> tuple[str, ...]:
        # One string per distinct token, not one per use: a corpus's tokens run to tens of millions.
        self[chunk] = tokens = tuple(map(sys.intern, _CASED_TOKEN.findall(chunk)))
        return tokens


def _prose(text: str) -> str:
    """`text` in NFKC, markup cut out and joining dashes made hyphens."""
    text = NOT_PROSE.sub(" . ", unicodedata.normalize("NFKC", text))
    # The dashes are not ASCII: most texts skip the regex.
    return text if text.isascii() else _JOINED_DASH.sub("-", text)
