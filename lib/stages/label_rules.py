"""What may label a topic, judged by the words of a candidate phrase and its use: whole-field phrases
("machine learning"), phrases ending in a modifier ("robust"), words a corpus uses as verbs, and
single words too common across the map to name one region of it.

`lib.stages.topic_labels` applies these rules to the phrases `PhraseUse` counts.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import compress, filterfalse

import numpy as np

from lib.stages.phrases import singular, singular_word, written_chunks
from lib.stages.tallies import Tally, merged, tally

# Words that describe the whole field: a phrase made only of them ("deep neural networks") names no topic.
# Every paper of the field has data, an algorithm, training and an analysis, so those words are the field's too.
FIELD_WORDS = frozenset(
    "machine learning deep neural network model ai artificial intelligence research method approach "
    "data dataset algorithm analysis training".split()
)


def common_users(n_texts: int) -> float:
    """Papers a one-word phrase must exceed to count as common: as many as a fine topic typically holds
    (sqrt(n), as `lib.stages.topics.default_n_fine_topics`): 58 of 3,340 papers, 14 of 201, 4 of 19."""
    return float(np.sqrt(n_texts))


def vague_words(is_one_word: np.ndarray, region_users: np.ndarray, totals: np.ndarray, n_texts: int) -> np.ndarray:
    """Which phrases are vague as a label of one region of the map: one word ("Data", "Inference",
    "Optimization") used by more papers than a fine topic holds, most of them outside the region.

    `region_users` and `totals` count, per phrase, the region's papers and all papers using it. A word the
    whole corpus uses in many places names none of them (they say "causal inference", "variational
    inference"); a word this common that one region holds most of is that region's concept
    ("Diffusion" on a vision list). A rare word is no sign of vagueness wherever it falls.
    """
    return is_one_word & (totals > common_users(n_texts)) & (2 * region_users <= totals)


def is_field_phrase(phrase: str) -> bool:
    """Whether a phrase is made only of whole-field words ("machine learning", "neural networks", "AI")."""
    return FIELD_WORDS.issuperset(map(singular_word, phrase.lower().replace("-", " ").split()))


# A label names a thing: a phrase ending in a modifier ("Robust", "Multi-modal", "learning robust")
# does not, though a modifier is fine inside one ("robust optimization"). Judged by suffix, with the
# nouns that share one.
_MODIFIER_ENDINGS = ("ive", "al", "ic", "ous", "able", "ible", "ary", "ful", "less", "ed", "ish", "ly", "ient")
_MODIFIER_WORDS = frozenset(
    "robust deep sparse linear nonlinear online offline low high fast slow fair private hidden latent discrete "
    "continuous exact approximate accurate secure safe open closed shallow wide dense long short multi upper lower "
    "self human optimal improving enhancing understanding rethinking unlocking boosting multiple weak "
    "different consistent independent dependent equivalent frequent recent coherent transparent seen unseen "
    # comparatives ("Faster", "Larger") qualify a thing without naming one
    "faster slower larger smaller higher deeper wider longer shorter stronger weaker simpler cheaper".split()
)
_NOUNS_LIKE_MODIFIERS = frozenset(
    "logic music topic arithmetic objective incentive derivative signal interval proposal rival manual "
    "animal hospital tutorial trial mechanic graphic metal gradient coefficient client patient ingredient "
    "recipient quotient".split()
)


def _is_modifier(phrase: str) -> bool:
    """Whether a phrase ends in a modifier rather than a thing ("learning robust"; hyphenated: by its last part)."""
    last = phrase.lower().rsplit(" ", 1)[-1]
    hyphenated = "-" in last
    last = last.rsplit("-", 1)[-1]
    if hyphenated and last in ("based", "aware", "free", "level", "scale", "time", "shot", "modal", "agent", "view"):
        return True
    word = last[:-1] if last.endswith("s") and not last.endswith(("ss", "ous")) else last
    return word in _MODIFIER_WORDS or (word not in _NOUNS_LIKE_MODIFIERS and word.endswith(_MODIFIER_ENDINGS))


# Auxiliaries the stop words leave in ("Does the curvature ...?"): verbs on any list, however few
# papers it has to tell verbs by (`verb_words`). Judged as shown: the key of "does" is "doe".
_AUXILIARY_VERBS = frozenset("does did doing having shall".split())
# A word the corpus mostly writes after these ("we validate", "to explain", "has seen") is a verb there;
# so after the adverbs an abstract puts between "we" and its verb ("we then investigate", "we
# systematically study"), which rarely come before a noun.
_VERB_MARKERS = frozenset(
    "we to can cannot may might will would could should must also has have had been never there "
    "then thus therefore now still moreover furthermore additionally finally systematically empirically "
    "theoretically experimentally formally rigorously carefully explicitly jointly simultaneously".split()
)
# ... and a noun after these ("the distribution").
_ARTICLES = frozenset("the a an this these that each its their our every".split())
_ROLE = {**dict.fromkeys(_VERB_MARKERS, "marker"), **dict.fromkeys(_ARTICLES, "article")}
_WORD = re.compile(r"[a-z][a-z0-9]*(?:[-+][a-z0-9]+)*")


def verb_words(texts: Sequence[str], chunks: Counter | None = None) -> set[str]:
    """One-word phrases (singular form) the texts use mostly as verbs (`verbs_of` their `verb_counts`).

    `chunks`: `written_chunks(texts)`, when counted beforehand."""
    return verbs_of(verb_counts(texts, chunks))


def verb_counts(texts: Sequence[str], chunks: Counter | None = None) -> Tally:
    """Per lower-case word of the texts, as first met: its uses, its uses after a verb marker ("we",
    "to", "can", "has") and after an article. Sums over slices of a list (`merged`) are the list's.

    `chunks`: `written_chunks(texts)`, when counted beforehand."""
    # The words (lower-cased) are read once per distinct chunk between white space, which no word
    # spans (`written_chunks`); the texts then only tell which chunk follows one ending in a marker
    # or an article.
    uses: Counter = Counter()
    after: dict[str, Counter] = {"marker": Counter(), "article": Counter()}
    first_word: dict[str, str] = {}
    ending_in: dict[str, set[str]] = {"marker": set(), "article": set()}
    wordless: set[str] = set()
    for chunk, n in (written_chunks(texts) if chunks is None else chunks).items():
        words = _WORD.findall(chunk.lower())
        if not words:
            wordless.add(chunk)
            continue
        first_word[chunk] = words[0]
        if words[-1] in _ROLE:
            ending_in[_ROLE[words[-1]]].add(chunk)
        for word in words:
            uses[word] += n
        for before, word in zip(words, words[1:]):
            if before in _ROLE:
                after[_ROLE[before]][word] += n
    for role, following in _chunks_after(texts, ending_in, wordless).items():
        for chunk, n in following.items():
            after[role][first_word[chunk]] += n
    # Every word after a role is one of the uses: the uses' words are all the keys.
    return tally(list(uses), [list(uses.values()), *([role[word] for word in uses] for role in after.values())])


def verbs_of(counts: Tally) -> set[str]:
    """The verbs among `verb_counts`' words, singular: at least a third of their uses follow a verb
    marker, and more than follow an article. A verb names no topic. Folded into singulars once the
    uses are summed: one `singular` per distinct word, not one per word of every text."""
    singulars = merged([Tally(np.array([singular(word) for word in counts.keys], dtype=object), counts.counts)])
    total, marker, article = singulars.counts
    return {
        w
        for w, n, t, a in zip(singulars.keys, marker.tolist(), total.tolist(), article.tolist())
        if n and 3 * n >= t and n > a
    }


def _chunks_after(texts: Iterable[str], ending_in: dict[str, set[str]], wordless: set[str]) -> dict[str, Counter]:
    """Per role (`ending_in`: the chunks whose last word has it), how often each chunk of `texts`
    follows one of its chunks; `wordless` chunks, of no word, are skipped as a word's predecessor is."""
    after: dict[str, Counter] = {role: Counter() for role in ending_in}
    for text in texts:
        chunks = text.split()
        if not wordless.isdisjoint(chunks):
            chunks = list(filterfalse(wordless.__contains__, chunks))
        # The chunks after one ending in a role's word, picked in C: a generator over pairs was slow.
        for role, ending in ending_in.items():
            after[role].update(compress(chunks[1:], map(ending.__contains__, chunks)))
    return after


def nameable_phrases(keys: Iterable[str], shown: Iterable[str], verbs: set[str]) -> np.ndarray:
    """Which phrases (folded `keys`, and as `shown`) name a thing: none ending in a modifier, none
    of the list's `verbs` (`verb_words`), none ending in an auxiliary verb."""
    return np.array(
        [
            not _is_modifier(key) and key not in verbs and show.lower().rsplit(" ", 1)[-1] not in _AUXILIARY_VERBS
            for key, show in zip(keys, shown)
        ],
        dtype=bool,
    )
