"""Near-duplicate keyphrases dropped (`_distinct`): phrases compared word stem by word stem
(`_stem`), one inside another or two overlapping in two words (`_overlap`)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import repeat

from lib.stages.phrases import singular_word

from .words import GENERIC_HEADS


def _distinct(
    ranked: Sequence[str],
    in_text: Sequence[int],
    score: Sequence[float],
    top_n: int,
    in_corpus: Sequence[int] | None = None,
) -> list[int]:
    """The places in `ranked` (singular keys) of its best `top_n` with no phrase inside another
    chosen one; `in_text`, `score` and `in_corpus` (uses in the corpus) are each one's, in order.

    A longer phrase takes the place of a chosen shorter one inside it ("privacy" -> "differential
    privacy") when the shorter mostly occurs inside it, in the text and in the corpus (`in_corpus`,
    uses per phrase: "deep learning" stays, though one text writes only "deep learning models"),
    the longer scores at least half as well and it does not just add a generic head ("privacy
    approach"); otherwise the longer one is a passing word run ("differential privacy needs") and
    is dropped. A phrase that adds a generic head to another candidate ("deep learning approach",
    "reasoning capabilities") gives way to it. Phrases are compared word stem by word stem, hyphens counting as spaces, so
    "fine-tuning"/"fine tuning" and "reward model"/"reward modeling" are one phrase. Two
    phrases that overlap in two words or more ("receiver operating characteristic", "operating
    characteristic curve") are one concept cut in two: only the better is kept.
    """
    chosen: list[int] = []
    spaced: list[str] = []  # the chosen phrases' stems, space-padded
    candidates: set[str] | None = None  # made once a generic head needs it
    for at, phrase in enumerate(ranked):
        rest, _, head = phrase.rpartition(" ")
        if head in GENERIC_HEADS:
            candidates = set(ranked) if candidates is None else candidates
            if rest in candidates:  # "reasoning capability": "reasoning" says it
                continue
        words = phrase.replace("-", " ").split()
        key = f" {' '.join(map(_stem, words))} "
        # Only phrases of three words or more can overlap in two without one holding the other.
        if any(map(str.__contains__, spaced, repeat(key))) or (
            len(words) > 2 and any(c.count(" ") > 3 and _overlap(key, c) for c in spaced)
        ):
            continue
        if any(map(key.__contains__, spaced)):
            inner = [i for i, c in enumerate(spaced) if c in key]
            if head not in GENERIC_HEADS and all(
                in_text[chosen[i]] < 2 * in_text[at]
                and 2 * score[at] >= score[chosen[i]]
                and (in_corpus is None or in_corpus[chosen[i]] < 2 * in_corpus[at])
                for i in inner
            ):
                chosen[inner[0]], spaced[inner[0]] = at, key
                chosen = [c for i, c in enumerate(chosen) if i not in inner[1:]]
                spaced = [c for i, c in enumerate(spaced) if i not in inner[1:]]
            continue
        chosen.append(at)
        spaced.append(key)
        if len(chosen) == top_n:
            break
    return chosen


@lru_cache(maxsize=1 << 16)
def _stem(word: str) -> str:
    """A crude stem, only to spot near-duplicates: "learners", "learning" -> "learn"; "sample", "sampling" -> "sampl"."""
    word = singular_word(word)
    for suffix in ("ing", "er", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word[:-1] if word.endswith("e") and len(word) > 4 else word


def _overlap(a: str, b: str) -> bool:
    """Whether one phrase (space-padded) ends with at least two words the other starts with."""
    x, y = a.split(), b.split()
    for first, second in ((x, y), (y, x)):
        for k in range(2, min(len(first), len(second))):
            if first[-k:] == second[:k]:
                return True
    return False
