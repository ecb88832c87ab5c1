"""What the corpus uses each word as: a verb or at times one (`_word_roles`), a gerund that cuts a run
(`_chunks`, `_pieces`), a relational noun, an adjective or participle, and how readily it ends a
run (`_tail_share`: nouns do, adjectives rarely)."""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Sequence, Set
from functools import lru_cache

from .words import _ADJECTIVE_ENDINGS, _AUXILIARIES, _BEFORE_VERB, _DETERMINERS, _NOUNS_IN_LY, BREAK_WORDS

# The word roles' thresholds: bench/keywords.py measures them as exact F1@5 against YAKE's in the
# same run, bench/meaning.py as `key F1@5` (docs/meaning.md).
# A word in a verb's place (before a determiner, after `to`/`we`/a modal) in over this share of its
# uses is a verb; in over half of it, a verb only there (`_word_roles`). Chosen by hand;
# bench/keywords.py measures it.
VERB_SHARE = 0.35
# An -ing word is a gerund, cutting its run (`_pieces`), when under this share of its uses follow
# another word of their run. Chosen by hand; bench/keywords.py measures it.
GERUND_HEAD_SHARE = 0.2
# A word is a relational noun, no keyphrase alone, when over this share of its uses (and at least
# two) come right before "of". Chosen by hand; bench/keywords.py measures it.
RELATIONAL_SHARE = 0.5


def _word_roles(docs: Sequence[Sequence[tuple[str, int]]]) -> tuple[set[str], set[str], set[str]]:
    """The words the corpus uses as verbs, those it uses as verbs at times, and its relational nouns.

    A verb comes before a determiner or after `to`/`we`/a modal (a participle: after `has`/`been`)
    in over `VERB_SHARE` of its uses ("address", "reveal"); its -s form is one too unless a
    determiner ever precedes it ("offers", not "the conditions"). A word in such places in over
    half that share is a verb only there ("to approximate the", not "approximate inference"); so
    is a verb the corpus also writes after a determiner ("the estimate"). A relational noun is
    mostly followed by `of` ("number", "variety", "kind"): it needs its complement, so it is no
    keyphrase alone.
    """
    uses: Counter = Counter()
    as_verb: Counter = Counter()
    before_of: Counter = Counter()
    after_determiner: Counter = Counter()
    for units in docs:
        words = [u for u, _ in units]
        triples = [t for t in zip([""] + words[:-1], words, words[1:] + [""]) if t[1] and " " not in t[1]]
        uses.update(w for _, w, _ in triples)
        as_verb.update(
            w
            for b, w, a in triples
            if a in _DETERMINERS
            or b in _BEFORE_VERB
            or (" " in a and w.endswith("ing"))
            or (b in _AUXILIARIES and w.endswith("ed"))
        )
        before_of.update(w for _, w, a in triples if a == "of")
        after_determiner.update(w for b, w, _ in triples if b in _DETERMINERS)
    maybe_verbs = {w for w, c in as_verb.items() if c >= VERB_SHARE / 2 * (uses[w] + 1)}
    verbs = {w for w in maybe_verbs if as_verb[w] >= VERB_SHARE * (uses[w] + 1) and not after_determiner[w]}
    verbs |= {
        w
        for w in uses
        if w.endswith("s") and (w[:-1] in verbs or (w.endswith("es") and w[:-2] in verbs)) and not after_determiner[w]
    }
    relational = {w for w, c in before_of.items() if c >= 2 and c >= RELATIONAL_SHARE * (uses[w] + 1)}
    return verbs, maybe_verbs - verbs, relational


def _chunks(
    docs: Sequence[Sequence[tuple[str, int]]], verbs: Set[str], maybe_verbs: Set[str]
) -> tuple[list[array], set[str]]:
    """Per text, its runs of content units: what lies between stop words, punctuation, verbs and
    adverbs (`_word_roles` tells the verbs), as (start, stop) positions in its units, flat. Also the
    -ing words the corpus uses as verbs: they rarely follow another word of their run ("evaluating",
    against "mathematical reasoning").

    Positions, not lists of units: a corpus's runs as lists held much memory; `_pieces`
    spells one text's out when its phrases are counted."""
    breaks = {"": True, ":": True}
    ing: dict[str, bool] = {}
    gerund_uses: Counter = Counter()
    gerund_heads: Counter = Counter()
    runs = []
    for units in docs:
        bounds = array("i")
        start = -1  # the open run's first position, or none open
        for i, unit in enumerate(units):
            word = unit[0]
            stop = breaks.get(word)
            if stop is None:
                stop = breaks[word] = " " not in word and (_is_break(word) or word in verbs)
            if not stop and word in maybe_verbs:  # "to approximate the", not "approximate inference"
                stop = (i > 0 and units[i - 1][0] in _BEFORE_VERB) or (
                    i + 1 < len(units) and units[i + 1][0] in _DETERMINERS
                )
            if not stop:
                is_ing = ing.get(word)
                if is_ing is None:
                    is_ing = ing[word] = word.endswith("ing") and " " not in word
                if is_ing:
                    gerund_uses[word] += 1
                    if start >= 0:
                        gerund_heads[word] += 1
                if start < 0:
                    start = i
            elif start >= 0:
                bounds.extend((start, i))
                start = -1
        if start >= 0:
            bounds.extend((start, len(units)))
        runs.append(bounds)
    gerunds = {w for w, c in gerund_uses.items() if (gerund_heads[w] + 1) / (c + 2) < GERUND_HEAD_SHARE}
    return runs, gerunds


def _pieces(units: Sequence[tuple[str, int]], runs: array, gerunds: Set[str]) -> list[list[tuple[str, int]]]:
    """One text's runs (`_chunks`), cut at their verbs in -ing: a gerund, or one that opens the text
    or a title's part ("Evaluating ...", "OCN: Learning ...") or comes right before a long form
    ("fine-tuning LLMs")."""
    pieces = []
    for start, stop in zip(runs[0::2], runs[1::2]):
        if stop - start == 1:  # most runs: cut only by a gerund, which leaves nothing
            if units[start][0] not in gerunds:
                pieces.append([units[start]])
            continue
        opens = start == 0 or units[start - 1][0] == ":"
        run: list[tuple[str, int]] = []
        for j in range(start, stop):
            unit = units[j]
            word = unit[0]
            if (
                word.endswith("ing")
                and " " not in word
                and (word in gerunds or (j + 1 < stop and ((j == start and opens) or " " in units[j + 1][0])))
            ):
                if run:
                    pieces.append(run)
                run = []
            else:
                run.append(unit)
        if run:
            pieces.append(run)
    return pieces


@lru_cache(maxsize=1 << 16)
def _is_break(unit: str) -> bool:
    if " " in unit:  # an acronym's long form
        return False
    return (
        len(unit) < 2
        or unit in BREAK_WORDS
        or (unit.endswith("ly") and len(unit) > 4 and unit not in _NOUNS_IN_LY)  # adverbs
        or (len(unit) > 5 and unit.endswith(("ize", "izes", "ify", "ifies")))  # verbs
    )


def _is_participle(word: str) -> bool:
    return len(word) > 4 and word.endswith("ed") and not word.endswith("eed")


def _is_adjective(word: str) -> bool:
    return word.endswith(_ADJECTIVE_ENDINGS)


def _tail_share(words: Counter, tails: Counter) -> dict[str, float]:
    """Per word, how readily the corpus ends a run with it (nouns do, adjectives rarely), from the
    uses of each word inside runs and at their ends (`_count_phrases`)."""
    return {w: (tails[w] + 0.5) / (n + 1) for w, n in words.items()}
