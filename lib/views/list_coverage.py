"""What a reading list misses on the map: the topics none of its papers is in, each with its most
representative paper, and the papers nearest the list as a whole. Pure; no Streamlit."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

import numpy as np
import pandas as pd

from lib.neighbours import normalize_rows


@dataclass(frozen=True)
class MissingTopic:
    """A topic of the map with no paper of a reading list, and its most representative paper."""

    topic: int
    label: str
    papers: int
    paper_id: str
    title: str


def missing_topics(summaries: pd.DataFrame, papers: pd.DataFrame, list_ids: Collection[str]) -> list[MissingTopic]:
    """The topics of `summaries` (`lib.stages.topics.topic_summaries`, coarse) that hold no paper of
    the list, largest first, each with its most representative paper (nearest the topic's centre) to add."""
    covered = set(papers.loc[papers["paper_id"].isin(set(list_ids)), "topic"])
    titles = dict(zip(papers["paper_id"], papers["title"]))
    return [
        MissingTopic(
            int(row.topic), row.label, int(row.papers), row.representatives[0], titles.get(row.representatives[0], "")
        )
        for row in summaries.itertuples(index=False)
        if row.topic not in covered and len(row.representatives)
    ]


def more_like_list(vectors: np.ndarray, papers: pd.DataFrame, list_ids: Collection[str], k: int = 10) -> pd.DataFrame:
    """The `k` papers nearest the list as a whole (cosine to the mean of its papers' unit vectors)
    that are not on it, best first, as rows of `papers` with a `similarity` column; none when no
    paper of the list is on this map."""
    on_list = papers["paper_id"].isin(set(list_ids)).to_numpy()
    if not on_list.any():
        return papers.iloc[:0].assign(similarity=pd.Series(dtype="float64"))
    centre = normalize_rows(vectors[on_list].mean(axis=0, keepdims=True))[0]
    scores = vectors @ centre
    scores[on_list] = -np.inf
    best = [i for i in np.argsort(-scores, kind="stable")[:k] if np.isfinite(scores[i])]
    return papers.iloc[best].assign(similarity=scores[best].astype("float64")).reset_index(drop=True)
