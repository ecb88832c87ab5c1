"""Topics: regions of the 2D map found by k-means, labelled by their most distinctive keyphrases."""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import numpy as np
import pandas as pd
from sklearn.cluster import KMeans

from .errors import ParameterError
from .keywords import singular

# Part of this stage's cache key: bump it when a change alters what the stage outputs.
VERSION = 1

MAX_TOPICS = 15
LABEL_MAX_WORDS = 4


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


def label_topics(topics: np.ndarray, keywords: Sequence[Sequence[str]]) -> dict[int, str]:
    """A short, distinct label per topic from the keyphrases its papers share and others lack.

    Each phrase scores (papers in the topic that have it, weighted by its rank in each) x
    log(1 + topics / topics that have it), a class-based TF-IDF. The label is the best phrase, with the next best appended when the first
    is a single word, up to `LABEL_MAX_WORDS` words; a label already taken moves on to the next phrase.
    """
    topic_ids = sorted(set(int(t) for t in topics))
    counts: dict[int, Counter] = {t: Counter() for t in topic_ids}
    surface: dict[str, Counter] = {}  # "diffusion model" -> {"diffusion models": 7, "diffusion model": 2}
    for topic, phrases in zip(topics, keywords):
        for rank, phrase in enumerate(phrases):
            key = singular(phrase.lower())
            surface.setdefault(key, Counter())[phrase] += 1
            # A paper's best keyphrase says more about it than its tenth.
            counts[int(topic)][key] += 1 / (1 + 0.2 * rank)
    spread = Counter(phrase for c in counts.values() for phrase in c)
    labels: dict[int, str] = {}
    taken: set[str] = set()
    for topic in topic_ids:
        ranked = sorted(
            counts[topic],
            key=lambda p: (-counts[topic][p] * math.log(1 + len(topic_ids) / spread[p]), p),
        )
        shown = [surface[p].most_common(1)[0][0] for p in ranked]
        label = _compose_label(shown, taken)
        labels[topic] = label[:1].upper() + label[1:] if label else f"Topic {topic}"
        taken.add(labels[topic])
    return labels


def _compose_label(ranked: Sequence[str], taken: set[str]) -> str:
    for i, first in enumerate(ranked):
        words = first.split()
        label = first
        if len(words) == 1:
            partner = next((p for p in ranked[i + 1 :] if len(p.split()) + 1 <= LABEL_MAX_WORDS and first not in p.split()), None)
            if partner:
                label = f"{first}, {partner}"
        if label not in taken:
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
