"""Topics: regions of the 2D map found by k-means, labelled by their most distinctive keyphrases."""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.cluster import KMeans
from sklearn.feature_extraction.text import CountVectorizer

from .errors import ParameterError
from .keywords import candidate_phrases, display_case, singular

# Part of this stage's cache key: bump it when a change alters what the stage outputs.
VERSION = 2

MAX_TOPICS = 15
LABEL_MAX_WORDS = 4
# A single word used by more than this share of all papers ("models", "data") names no topic.
MAX_LABEL_SHARE = 0.05


def default_n_topics(n_papers: int) -> int:
    """About sqrt(n/2) topics, at most `MAX_TOPICS`: 3 for 19 papers, 15 for a 3,000-paper conference."""
    return max(1, min(MAX_TOPICS, n_papers, round(math.sqrt(n_papers / 2))))


def find_topics(coords: np.ndarray, n_topics: int | None = None, random_state: int = 42) -> np.ndarray:
    """Topic id per map point, numbered 0.. by decreasing topic size (ties by centre position).

    Clustering the 2D map, not the full vectors, keeps each topic one contiguous region, so its
    label can sit on it.
    """
    n = len(coords)
    k = default_n_topics(n) if n_topics is None else n_topics
    if k < 1:
        raise ParameterError(f"n_topics must be at least 1; got {n_topics}")
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    k = min(k, len(np.unique(coords, axis=0)))
    if k == 1:
        return np.zeros(n, dtype=np.int64)
    raw = KMeans(n_clusters=k, n_init=10, random_state=random_state).fit_predict(coords)
    sizes = np.bincount(raw, minlength=k)
    centres = np.array([coords[raw == t].mean(axis=0) for t in range(k)])
    order = sorted(range(k), key=lambda t: (-sizes[t], centres[t][0], centres[t][1]))
    renumber = np.empty(k, dtype=np.int64)
    renumber[order] = np.arange(k)
    return renumber[raw]


def label_topics(topics: np.ndarray, texts: Sequence[str], min_share: float = 0.05) -> dict[int, str]:
    """A short, distinct label per topic: the phrases its papers use far more than the rest do.

    A phrase scores share x log(share / overall share), where share is the fraction of the topic's
    papers whose text uses it: common to the topic and rare elsewhere. Phrases used by fewer than
    `min_share` of a topic's papers (or by one paper only) are passed over while better-covered
    ones exist, so a label describes the topic rather than one paper in it. The label is the best
    phrase, with the next best appended when the first is a single word; a label already taken
    moves on to the next phrase.
    """
    topic_ids = sorted(set(int(t) for t in topics))
    if not topic_ids:
        return {}
    counter = CountVectorizer(analyzer=candidate_phrases, binary=True)
    try:
        used = counter.fit_transform(texts).tocsr()
    except ValueError:  # no phrase in any text
        return {t: f"Topic {t}" for t in topic_ids}
    phrases = counter.get_feature_names_out()
    # Fold plural twins into one column; show each as its most used form and the corpus's casing.
    keys, column_of_phrase = np.unique([singular(p) for p in phrases], return_inverse=True)
    shown = _shown_forms(phrases, np.asarray(used.sum(axis=0)).ravel(), column_of_phrase, len(keys), display_case(texts))
    fold = sparse.csr_matrix((np.ones(len(phrases)), (np.arange(len(phrases)), column_of_phrase)))
    used = (used @ fold).sign()
    frequency = np.asarray(used.sum(axis=0)).ravel()
    membership = sparse.csr_matrix((np.ones(len(topics)), (np.searchsorted(topic_ids, topics), np.arange(len(topics)))))
    per_topic = np.asarray((membership @ used).todense())
    sizes = np.asarray(membership.sum(axis=1)).ravel()
    overall = frequency / len(texts)
    words = np.array([k.count(" ") + 1 for k in keys])
    multiword = words > 1
    # "time series" over "series": a phrase a little rarer than the word inside it is the concept.
    length_bonus = 1 + 1.0 * (words - 1)

    labels: dict[int, str] = {}
    taken: set[str] = set()
    for row, topic in enumerate(topic_ids):
        share = per_topic[row] / sizes[row]
        with np.errstate(divide="ignore", invalid="ignore"):
            score = np.where(share > 0, share * np.log(share / overall), -np.inf) * length_bonus
        well_covered = (share >= min_share) & (per_topic[row] >= min(2, sizes[row])) & ((overall <= MAX_LABEL_SHARE) | multiword)
        # Covered phrases first, then the rest; within each by score, ties alphabetical.
        order = np.lexsort((keys, -score, ~well_covered))
        ranked = [shown[i] for i in order if np.isfinite(score[i]) and score[i] > 0]
        label = _compose_label(ranked, taken)
        labels[topic] = label[:1].upper() + label[1:] if label else f"Topic {topic}"
        taken.add(labels[topic])
    return labels


def _shown_forms(phrases: np.ndarray, uses: np.ndarray, column_of_phrase: np.ndarray, n_keys: int, cased: dict[str, str]) -> list[str]:
    """Per folded column, its most used variant ("diffusion models" or "diffusion model"), cased as the corpus writes it."""
    best: list[tuple[float, str]] = [(-1, "")] * n_keys
    for phrase, count, column in zip(phrases, uses, column_of_phrase):
        best[column] = max(best[column], (count, phrase))
    return [" ".join(cased.get(w, w) for w in phrase.split(" ")) for _, phrase in best]


def _compose_label(ranked: Sequence[str], taken: set[str]) -> str:
    for i, first in enumerate(ranked[:50]):
        label = first
        if " " not in first:
            partner = next((p for p in ranked[i + 1 : 50] if first.lower() not in p.lower().split() and p.count(" ") < LABEL_MAX_WORDS - 1), None)
            if partner:
                label = f"{first}, {partner}"
        if label.lower() not in {t.lower() for t in taken}:
            return label
    return ""


def topics_table(papers: pd.DataFrame, topics: np.ndarray, labels: dict[int, str]) -> pd.DataFrame:
    """`paper_id`, `topic` and `topic_label` columns, in the papers' order."""
    return pd.DataFrame(
        {
            "paper_id": papers["paper_id"].to_numpy(),
            "topic": topics.astype(np.int64),
            "topic_label": pd.Series([labels[int(t)] for t in topics], dtype="str"),
        }
    )


def topic_summary(papers: pd.DataFrame, top_keywords: int = 6) -> pd.DataFrame:
    """One row per topic: `topic`, `topic_label`, `papers` and its most frequent `keywords`, largest first."""
    rows = []
    for (topic, label), group in papers.groupby(["topic", "topic_label"], sort=True):
        counts = Counter(phrase for phrases in group["keywords"] for phrase in phrases)
        ranked = sorted(counts, key=lambda p: (-counts[p], p))[:top_keywords]
        rows.append({"topic": int(topic), "topic_label": label, "papers": len(group), "keywords": ", ".join(ranked)})
    frame = pd.DataFrame(rows, columns=["topic", "topic_label", "papers", "keywords"])
    return frame.sort_values(["papers", "topic"], ascending=[False, True], ignore_index=True)
