"""Per-paper keyphrases: TF-IDF over 1-3-word phrases that never cross a stop word or punctuation."""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, CountVectorizer, TfidfTransformer

from .errors import ParameterError

# Part of this stage's cache key: bump it when a change alters what the stage outputs.
VERSION = 1

# Words that carry no topic in an abstract, on top of English stop words.
GENERIC_WORDS = frozenset(
    """
    approach approaches paper papers propose proposed proposes novel new method methods result results
    work works show shows shown demonstrate demonstrates based using use used study studies problem
    problems task tasks performance existing effective efficient effectiveness efficiency framework
    various different significant significantly key extensive experiments experimental state art
    achieve achieves achieving improve improves improved improvement outperform outperforms
    leverage leverages address addresses challenge challenges provide provides recent recently
    however furthermore specifically particular introduce introduces present presents demonstrate
    theoretical empirical empirically theoretically paradigm setting settings way ways terms
    allows enables enable aim aims given able prior previous remains remain key crucial important
    limited lack stage stages wide widely common commonly simple strong better best large small
    require requires required extend extends emerge emerges generate generates employ employs
    consider considers obtain obtains yield yields achieved despite capable possess enhance enhances
    capabilities capability potential real-world critical fundamental open-source available
    towards toward via beyond rethinking revisiting position role perspective insights case
    """.split()
)
STOP_WORDS = ENGLISH_STOP_WORDS | GENERIC_WORDS

_TOKEN = re.compile(r"[a-z][a-z0-9]*(?:[-+][a-z0-9]+)*\+?|\d+[a-z][a-z0-9-]*|[.,;:!?()\[\]{}\"]")
# URLs, LaTeX commands and inline maths are markup, not phrases.
_NOT_PROSE = re.compile(r"https?://\S+|www\.\S+|\\[a-z]+|\$[^$]*\$")
_MAX_NGRAM = 3
_CASED_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-+][A-Za-z0-9]+)*\+?")


def candidate_phrases(text: str) -> list[str]:
    """All 1-3-word phrases of `text` that neither start, end nor span a stop word or punctuation."""
    phrases: list[str] = []
    chunk: list[str] = []
    text = _NOT_PROSE.sub(" . ", text.lower())
    for token in _TOKEN.findall(text) + ["."]:
        if token in STOP_WORDS or not token[0].isalnum() or len(token) < 2:
            for n in range(1, _MAX_NGRAM + 1):
                phrases.extend(" ".join(chunk[i : i + n]) for i in range(len(chunk) - n + 1))
            chunk = []
        else:
            chunk.append(token)
    return phrases


def singular(phrase: str) -> str:
    """A crude singular of a phrase's last word, to spot `model`/`models` as the same phrase."""
    head, _, last = phrase.rpartition(" ")
    if len(last) > 3 and last.endswith("ies"):
        last = last[:-3] + "y"
    elif len(last) > 3 and last.endswith("s") and not last.endswith(("ss", "us", "is")):
        last = last[:-1]
    return f"{head} {last}".strip()


def extract_keywords(texts: Sequence[str], top_n: int = 10) -> list[list[str]]:
    """Up to `top_n` keyphrases per text, best first, scored by TF-IDF against the whole corpus.

    Phrases are lower case but for acronyms and mixed-case names, shown as the corpus writes them.
    Singular/plural twins and phrases inside a better one are dropped; a longer phrase takes the
    place of a shorter one inside it when the shorter never occurs on its own.
    """
    if top_n < 1:
        raise ParameterError(f"top_n must be at least 1; got {top_n}")
    if not any(t.strip() for t in texts):
        return [[] for _ in texts]
    counter = CountVectorizer(analyzer=candidate_phrases)
    try:
        counts = counter.fit_transform(texts).tocsr()
    except ValueError:  # every text was only stop words
        return [[] for _ in texts]
    counts.sort_indices()  # the TF-IDF matrix below has sorted indices; rows must line up entry for entry
    weights = TfidfTransformer(sublinear_tf=True, norm=None).fit_transform(counts).tocsr()
    vocabulary = counter.get_feature_names_out()
    # Multi-word phrases are rarer and so already favoured by IDF; a length bonus breaks ties
    # between a phrase and its own words in tiny corpora, where IDF says little.
    length_bonus = np.array([1.0 + 0.15 * phrase.count(" ") for phrase in vocabulary])
    document_frequency = np.bincount(counts.indices, minlength=len(vocabulary))
    keywords: list[list[str]] = []
    for row in range(counts.shape[0]):
        start, end = counts.indptr[row], counts.indptr[row + 1]
        indices, frequency = counts.indices[start:end], counts.data[start:end]
        # A phrase said once in one paper only is more often a chance word run than a concept.
        repeated = (document_frequency[indices] > 1) | (frequency > 1)
        scores = weights.data[start:end] * length_bonus[indices] * np.where(repeated, 1.0, 0.5)
        order = np.lexsort((vocabulary[indices], -scores))  # ties broken alphabetically: deterministic
        phrases = vocabulary[indices]
        keywords.append(_distinct(phrases[order], dict(zip(phrases, frequency)), dict(zip(phrases, scores)), top_n))
    cased = display_case(texts)
    return [[" ".join(cased.get(w, w) for w in phrase.split(" ")) for phrase in row] for row in keywords]


def display_case(texts: Sequence[str]) -> dict[str, str]:
    """Lower-case word -> the form to show: acronyms and mixed case ("LLMs", "CoT") as written."""
    forms: dict[str, Counter] = {}
    for text in texts:
        for word in _CASED_WORD.findall(text):
            # Title case ("Vision-Language", a sentence's first word) is how ordinary words are
            # capitalised, so it counts for the lower-case form; a shouted "VISION-LANGUAGE" in one
            # title then loses to fifty "Vision-Language" ones.
            mixed = any(c.isupper() for part in re.split(r"[-+]", word) for c in part[1:])
            forms.setdefault(word.lower(), Counter())[word if mixed else word.lower()] += 1
    shown = {lower: max(counter.items(), key=lambda item: (item[1], item[0]))[0] for lower, counter in forms.items()}
    return {lower: form for lower, form in shown.items() if form != lower}


def _distinct(ranked: Sequence[str], in_text: Mapping[str, int], score: Mapping[str, float], top_n: int) -> list[str]:
    chosen: list[str] = []
    seen_singular: set[str] = set()
    for phrase in ranked:
        key = singular(phrase)
        if key in seen_singular or any(f" {key} " in f" {singular(c)} " for c in chosen):
            continue
        seen_singular.add(key)
        inner = [i for i, c in enumerate(chosen) if f" {singular(c)} " in f" {key} "]
        if inner:
            # "privacy" gives way to "differential privacy" when it mostly occurs inside it and the
            # longer phrase scores at least half as well; otherwise the longer one is a passing
            # word run ("differential privacy needs") and is dropped.
            if all(in_text[chosen[i]] <= 2 * in_text[phrase] and 2 * score[phrase] >= score[chosen[i]] for i in inner):
                chosen[inner[0]] = phrase
                chosen = [c for i, c in enumerate(chosen) if i not in inner[1:]]
            continue
        chosen.append(phrase)
        if len(chosen) == top_n:
            break
    return chosen


def keywords_table(papers: pd.DataFrame, texts: Sequence[str], top_n: int = 10) -> pd.DataFrame:
    """`paper_id` and `keywords` columns for the papers whose texts are given, in the same order."""
    return pd.DataFrame({"paper_id": papers["paper_id"].to_numpy(), "keywords": extract_keywords(texts, top_n)})
