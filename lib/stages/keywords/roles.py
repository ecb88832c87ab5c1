"""What the corpus uses each word as: a verb or at times one (`_word_roles`), a break between runs
(`_inside`), a gerund that cuts a run (`_gerunds`, `_kept`), a relational noun, an adjective or
participle.

Each is decided once per distinct word and marked at its uses by `_Units`: a loop over a corpus's
tens of millions of units in Python was the stage's largest cost."""

from __future__ import annotations

from collections.abc import Sequence, Set

import numpy as np

from .units import _Units
from .words import _ADJECTIVE_ENDINGS, _AUXILIARIES, _BEFORE_VERB, _DETERMINERS, _NOUNS_IN_LY, BREAK_WORDS

# The word roles' thresholds: bench/keywords.py measures them as exact F1@5 against YAKE's in the
# same run, bench/meaning.py as `key F1@5` (docs/meaning.md).
# A word in a verb's place (before a determiner, after `to`/`we`/a modal) in over this share of its
# uses is a verb; in over half of it, a verb only there (`_word_roles`). Chosen by hand;
# bench/keywords.py measures it.
VERB_SHARE = 0.35
# An -ing word is a gerund, cutting its run (`_kept`), when under this share of its uses follow
# another word of their run. Chosen by hand; bench/keywords.py measures it.
GERUND_HEAD_SHARE = 0.2
# A word is a relational noun, no keyphrase alone, when over this share of its uses (and at least
# two) come right before "of". Chosen by hand; bench/keywords.py measures it.
RELATIONAL_SHARE = 0.5


def _word_roles(units: _Units) -> tuple[set[str], set[str], set[str]]:
    """The words the corpus uses as verbs, those it uses as verbs at times, and its relational nouns.

    A verb comes before a determiner or after `to`/`we`/a modal (a participle: after `has`/`been`)
    in over `VERB_SHARE` of its uses ("address", "reveal"); its -s form is one too unless a
    determiner ever precedes it ("offers", not "the conditions"). A word in such places in over
    half that share is a verb only there ("to approximate the", not "approximate inference"); so
    is a verb the corpus also writes after a determiner ("the estimate"). A relational noun is
    mostly followed by `of` ("number", "variety", "kind"): it needs its complement, so it is no
    keyphrase alone.
    """
    return _roles_of(units.vocab, _role_counts(units))


def _role_counts(units: _Units) -> np.ndarray:
    """Per distinct unit (columns, by number), what `_word_roles` decides from: its uses as a word,
    in a verb's place, before "of" and after a determiner (rows); sums over slices of a list."""
    word = units.at(lambda w: w != "" and " " not in w)  # not punctuation, a number or a long form
    determiner = units.at(_DETERMINERS.__contains__)
    as_verb = word & (
        units.after(determiner)
        | units.before(units.at(_BEFORE_VERB.__contains__))
        | (units.after(units.at(_is_long_form)) & units.at(_ends_in_ing))
        | (units.before(units.at(_AUXILIARIES.__contains__)) & units.at(_ends_in_ed))
    )
    before_of = word & units.after(units.at("of".__eq__))
    after_determiner = word & units.before(determiner)
    return np.stack([units.counts(marks) for marks in (word, as_verb, before_of, after_determiner)])


def _roles_of(words: Sequence[str], counts: np.ndarray) -> tuple[set[str], set[str], set[str]]:
    """`_word_roles` from the `_role_counts` of `words`."""
    uses, as_verb, before_of, after_determiner = counts
    maybe = as_verb >= VERB_SHARE / 2 * (uses + 1)
    verbs = _named(words, maybe & (as_verb >= VERB_SHARE * (uses + 1)) & (after_determiner == 0))
    verbs |= {
        w
        for w in _named(words, (uses > 0) & (after_determiner == 0))
        if w.endswith("s") and (w[:-1] in verbs or (w.endswith("es") and w[:-2] in verbs))
    }
    relational = _named(words, (before_of >= 2) & (before_of >= RELATIONAL_SHARE * (uses + 1)))
    return verbs, _named(words, maybe) - verbs, relational


def _named(words: Sequence[str], chosen: np.ndarray) -> set[str]:
    """The `words` `chosen` (a mark per word) marks."""
    return {words[i] for i in np.flatnonzero(chosen).tolist()}


def _inside(units: _Units, verbs: Set[str], maybe_verbs: Set[str]) -> np.ndarray:
    """Per position, whether its unit is inside a run of content units: what lies between stop words,
    punctuation, verbs and adverbs (`_word_roles` tells the verbs)."""
    stop = units.at(lambda w: " " not in w and (_is_break(w) or w in verbs))
    # "to approximate the", not "approximate inference"
    stop |= units.at(maybe_verbs.__contains__) & (
        units.before(units.at(_BEFORE_VERB.__contains__)) | units.after(units.at(_DETERMINERS.__contains__))
    )
    return ~stop


def _gerunds(units: _Units, inside: np.ndarray) -> set[str]:
    """The -ing words the corpus uses as verbs: they rarely follow another word of their run
    ("evaluating", against "mathematical reasoning")."""
    return _gerunds_of(units.vocab, _gerund_counts(units, inside))


def _gerund_counts(units: _Units, inside: np.ndarray) -> np.ndarray:
    """Per distinct unit (columns), its uses as an -ing word inside a run and those after another
    word of the run (rows): what `_gerunds` decides from; sums over slices of a list."""
    ing = inside & units.at(_is_ing_word)
    return np.stack([units.counts(ing), units.counts(ing & units.before(inside))])


def _gerunds_of(words: Sequence[str], counts: np.ndarray) -> set[str]:
    """`_gerunds` from the `_gerund_counts` of `words`."""
    uses, heads = counts
    return _named(words, (uses > 0) & ((heads + 1) / (uses + 2) < GERUND_HEAD_SHARE))


def _kept(units: _Units, inside: np.ndarray, gerunds: Set[str]) -> np.ndarray:
    """Per position, whether its unit is in a piece of a run (`_inside`): runs are cut at their verbs
    in -ing, which belong to no piece: a gerund, or one that opens the text or a title's part
    ("Evaluating ...", "OCN: Learning ...") or comes right before a long form ("fine-tuning LLMs"),
    unless it ends its run."""
    run_start = inside & ~units.before(inside)
    opens = units.first | units.before(units.at(":".__eq__))
    cut = (
        inside
        & units.at(_is_ing_word)
        & (
            units.at(gerunds.__contains__)
            | (units.after(inside) & ((run_start & opens) | units.after(units.at(_is_long_form))))
        )
    )
    return inside & ~cut


def _is_long_form(unit: str) -> bool:
    return " " in unit


def _ends_in_ing(unit: str) -> bool:
    return unit.endswith("ing")


def _ends_in_ed(unit: str) -> bool:
    return unit.endswith("ed")


def _is_ing_word(unit: str) -> bool:
    return unit.endswith("ing") and " " not in unit


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
