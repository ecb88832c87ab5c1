"""Topics at two levels: fine regions of the 2D map found by k-means, grouped into coarse ones,
and each topic's summary (keywords, label evidence, representative papers). The labels come from
`lib.stages.topic_labels`."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.spatial import KDTree

from lib.errors import ParameterError
from lib.schema import SUMMARY_COLUMNS, analysis_texts
from lib.stages.kmeans import kmeans
from lib.stages.topic_labels import PhraseUse, dense_row, fewest_users

MAX_TOPICS = 15
MAX_FINE_TOPICS = 60
# A paper whose 10th-nearest neighbour on the map is this many times farther than is typical lies
# outside every dense region: it is given its nearest topic and marked. At most
# `MAX_NEAREST_SHARE` of the papers are (the sparsest), so the marked set never becomes a bucket.
SPARSE_NEIGHBOUR = 10
SPARSE_FACTOR = 3.0
MAX_NEAREST_SHARE = 0.05
LEVELS = ("coarse", "fine")


def default_n_topics(n_papers: int) -> int:
    """Coarse topics: about sqrt(n/2), at most `MAX_TOPICS`: 3 for 19 papers, 15 for a 3,000-paper conference."""
    return max(1, min(MAX_TOPICS, n_papers, round(math.sqrt(n_papers / 2))))


def default_n_fine_topics(n_papers: int, n_topics: int | None = None) -> int:
    """Fine topics: about sqrt(n), at least two per coarse topic, at most `MAX_FINE_TOPICS`: 55 for 3,000 papers."""
    coarse = default_n_topics(n_papers) if n_topics is None else n_topics
    return max(1, min(max(MAX_FINE_TOPICS, coarse), n_papers, max(2 * coarse, round(math.sqrt(n_papers)))))


@dataclass(frozen=True)
class TopicLevels:
    """Per paper: its coarse topic, its fine topic (always inside that coarse one), and whether it
    was given its nearest topic from outside every dense region. Ids are numbered 0.. by decreasing size."""

    coarse: np.ndarray
    fine: np.ndarray
    assigned_nearest: np.ndarray


def find_topics(
    coords: np.ndarray, n_topics: int | None = None, random_state: int = 42, *, n_fine_topics: int | None = None
) -> TopicLevels:
    """Fine and coarse topics of the map points `coords` (n, 2).

    Fine topics are k-means regions of the map's dense points; each sparse point (see
    `sparse_points`) joins the fine topic of its nearest dense point and is marked. Coarse topics
    group whole fine topics (k-means over their centres, weighted by size), so the two levels nest.
    Clustering the map, not the full vectors, keeps each topic one contiguous region that its label
    can sit on (bench/topics.py: refining topics in the embedding space agreed more with venue
    areas but scattered them across the map).
    """
    coords = np.asarray(coords, dtype=np.float64)
    n = len(coords)
    k_coarse = default_n_topics(n) if n_topics is None else n_topics
    if k_coarse < 1:
        raise ParameterError(f"n_topics must be at least 1; got {n_topics}")
    k_fine = default_n_fine_topics(n, k_coarse) if n_fine_topics is None else n_fine_topics
    if k_fine < k_coarse:
        raise ParameterError(
            f"n_fine_topics must be at least n_topics ({k_coarse}) so each coarse topic holds a fine one; got {n_fine_topics}"
        )
    if n == 0:
        empty = np.zeros(0, dtype=np.int64)
        return TopicLevels(empty, empty, np.zeros(0, dtype=bool))
    sparse_mask = sparse_points(coords)
    dense = coords[~sparse_mask]
    k_fine = min(k_fine, len(np.unique(dense, axis=0)))
    k_coarse = min(k_coarse, k_fine)
    if k_fine == 1:
        fine, centres = np.zeros(n, dtype=np.int64), coords.mean(axis=0, keepdims=True)
    else:
        model = kmeans(dense, k_fine, random_state)
        centres = model.centres
        fine = np.empty(n, dtype=np.int64)
        fine[~sparse_mask] = model.labels
        if sparse_mask.any():
            # The topic of the nearest dense point: on the map a stray takes its neighbours' colour.
            nearest = KDTree(dense).query(coords[sparse_mask], k=1)[1]
            fine[sparse_mask] = model.labels[nearest]
    sizes = np.bincount(fine, minlength=k_fine)
    if k_coarse == 1:
        coarse_of_fine = np.zeros(k_fine, dtype=np.int64)
    elif k_coarse == k_fine:
        coarse_of_fine = np.arange(k_fine)
    else:
        coarse_of_fine = kmeans(centres, k_coarse, random_state, sample_weight=sizes).labels
    coarse = coarse_of_fine[fine]
    return TopicLevels(_by_size(coarse, coords), _by_size(fine, coords), sparse_mask)


def sparse_points(coords: np.ndarray) -> np.ndarray:
    """Points outside every dense region of the map: their `SPARSE_NEIGHBOUR`th-nearest neighbour is
    more than `SPARSE_FACTOR` times as far as the median point's, and they are among the sparsest
    `MAX_NEAREST_SHARE` of points. Below 2 x `SPARSE_NEIGHBOUR` points, density says nothing: none are."""
    n = len(coords)
    if n < 2 * SPARSE_NEIGHBOUR:
        return np.zeros(n, dtype=bool)
    # A k-d tree measures distances element by element; brute force would use BLAS (lib.exact).
    reach = KDTree(coords).query(coords, k=[SPARSE_NEIGHBOUR + 1])[0][:, 0]
    typical = np.median(reach)
    if typical == 0:
        return np.zeros(n, dtype=bool)
    candidates = reach > SPARSE_FACTOR * typical
    allowed = int(MAX_NEAREST_SHARE * n)
    if candidates.sum() > allowed:
        keep = np.lexsort((np.arange(n), -reach))[:allowed]  # the sparsest first; ties by position in the input
        candidates = np.zeros(n, dtype=bool)
        candidates[keep] = True
    return candidates


def _by_size(raw: np.ndarray, coords: np.ndarray) -> np.ndarray:
    """Renumber cluster ids 0.. by decreasing size, ties by centre position."""
    ids, raw = np.unique(raw, return_inverse=True)
    sizes = np.bincount(raw)
    centres = [coords[raw == t].mean(axis=0) for t in range(len(ids))]
    order = sorted(range(len(ids)), key=lambda t: (-sizes[t], centres[t][0], centres[t][1]))
    renumber = np.empty(len(ids), dtype=np.int64)
    renumber[order] = np.arange(len(ids))
    return renumber[raw]


def topics_table(
    papers: pd.DataFrame, levels: TopicLevels, labels: dict[int, str], fine_labels: dict[int, str]
) -> pd.DataFrame:
    """`paper_id`, `topic`, `topic_label`, `topic_fine`, `topic_fine_label` and `topic_assigned_nearest`, in the papers' order."""
    return pd.DataFrame(
        {
            "paper_id": papers["paper_id"].to_numpy(),
            "topic": levels.coarse.astype(np.int64),
            "topic_label": pd.Series([labels[int(t)] for t in levels.coarse], dtype="str"),
            "topic_fine": levels.fine.astype(np.int64),
            "topic_fine_label": pd.Series([fine_labels[int(t)] for t in levels.fine], dtype="str"),
            "topic_assigned_nearest": levels.assigned_nearest.astype(bool),
        }
    )


def topic_summaries(
    papers: pd.DataFrame,
    level: str = "coarse",
    *,
    n_keywords: int = 8,
    n_representatives: int = 5,
    vectors: np.ndarray | None = None,
    min_share: float = 0.05,
    use: PhraseUse | None = None,
) -> pd.DataFrame:
    """One row per topic of `level` ("coarse" or "fine") of a papers table (`lib.schema.OUTPUT_COLUMNS`), largest first.

    Columns (`SUMMARY_COLUMNS`): `topic` id, `label`, `papers` (count), `share` of all papers,
    `parent` and `parent_label` (the coarse topic holding a fine one; the topic itself at the coarse
    level), `assigned_nearest` (how many papers were only given the topic as their nearest),
    `keywords` (up to `n_keywords` distinctive phrases that at least two of its papers use and that
    do not end in a modifier, best first, as the corpus writes them) with
    `keyword_shares` (the share of the topic's papers whose title or abstract uses each) and
    `keyword_overall_shares` (the share of all papers that do), `label_evidence` (for each phrase of
    the label, "A, B" holding two: `(phrase, share of the topic's papers, share of all papers)`),
    `representatives` (up to `n_representatives` paper ids nearest the topic's centre, papers that
    fall clearly in the topic first) and `x`, `y` (the median map position of its papers).
    The centre is taken on the map, or in `vectors` (rows aligned with `papers`) by cosine when given.
    `use` is `PhraseUse` of the papers' texts computed beforehand (the slow part on a corpus, the
    same for both levels), by default here.
    """
    if level not in LEVELS:
        raise ParameterError(f"level must be one of {', '.join(LEVELS)}; got {level!r}")
    if n_keywords < 0 or n_representatives < 0:
        raise ParameterError("n_keywords and n_representatives must be at least 0")
    if papers.empty:
        return pd.DataFrame({c: [] for c in SUMMARY_COLUMNS})
    id_column, label_column = ("topic", "topic_label") if level == "coarse" else ("topic_fine", "topic_fine_label")
    topics = papers[id_column].to_numpy(dtype=np.int64)
    nearest = (
        papers["topic_assigned_nearest"].to_numpy(dtype=bool)
        if "topic_assigned_nearest" in papers
        else np.zeros(len(papers), bool)
    )
    space = _centre_space(papers, vectors)
    use = PhraseUse(analysis_texts(papers), fewest_users(topics)) if use is None else use
    topic_ids, sizes, per_topic = use.by_topic(topics)
    column_of_shown = {shown.lower(): column for column, shown in enumerate(use.shown)}
    rows = []
    for row, topic in enumerate(topic_ids):
        members = np.flatnonzero(topics == topic)
        first = members[0]
        users = dense_row(per_topic, row)
        keywords, shares, overall = _topic_keywords(use, users, sizes[row], min_share, n_keywords)
        label = papers[label_column].iloc[first]
        rows.append(
            {
                "topic": topic,
                "label": label,
                "papers": len(members),
                "share": len(members) / len(papers),
                "parent": int(papers["topic"].iloc[first]),
                "parent_label": papers["topic_label"].iloc[first],
                "assigned_nearest": int(nearest[members].sum()),
                "keywords": keywords,
                "keyword_shares": shares,
                "keyword_overall_shares": overall,
                "label_evidence": _label_evidence(label, users, sizes[row], use, column_of_shown),
                "representatives": _representatives(
                    papers["paper_id"].to_numpy()[members],
                    space[members],
                    nearest[members],
                    n_representatives,
                    vectors is not None,
                ),
                "x": float(papers["x"].iloc[members].median()),
                "y": float(papers["y"].iloc[members].median()),
            }
        )
    frame = pd.DataFrame(rows, columns=list(SUMMARY_COLUMNS))
    return frame.sort_values(["papers", "topic"], ascending=[False, True], ignore_index=True)


def level_summaries(papers: pd.DataFrame, use: PhraseUse | None = None) -> dict[str, pd.DataFrame]:
    """`topic_summaries` (defaults) of every level in `LEVELS`, counting the papers' phrases once
    (not at all when their `PhraseUse` is given)."""
    if use is None:
        use = PhraseUse(
            analysis_texts(papers), fewest_users(papers["topic"].to_numpy(), papers["topic_fine"].to_numpy())
        )
    return {level: topic_summaries(papers, level, use=use) for level in LEVELS}


def _centre_space(papers: pd.DataFrame, vectors: np.ndarray | None) -> np.ndarray:
    """Where topic centres are taken: the papers' map positions, or `vectors` (one row per paper) scaled to unit length."""
    space = (
        np.asarray(vectors, dtype=np.float64) if vectors is not None else papers[["x", "y"]].to_numpy(dtype=np.float64)
    )
    if vectors is not None:
        if len(space) != len(papers):
            raise ParameterError(f"vectors must have one row per paper ({len(papers)}); got {len(space)}")
        space = space / np.maximum(np.linalg.norm(space, axis=1, keepdims=True), 1e-12)
    return space


def _topic_keywords(
    use: PhraseUse, users: np.ndarray, size: float, min_share: float, limit: int
) -> tuple[list[str], list[float], list[float]]:
    """Up to `limit` distinctive phrases of a topic of `size` papers (`users` of them use each phrase), best
    first, as the corpus writes them; with the share of the topic's papers and of all papers using each."""
    if not len(use.keys):
        return [], [], []
    order, share = use.ranked(users, size, min_share)
    # One paper's phrase describes that paper, and a modifier names nothing.
    shared = order[(users[order] >= min(2, size)) & use.nameable[order]]
    chosen = _distinct_phrases(shared, use.keys, limit)
    keywords, shares = [use.shown[i] for i in chosen], [round(float(share[i]), 4) for i in chosen]
    return keywords, shares, [round(float(use.overall[i]), 4) for i in chosen]


def _label_evidence(
    label: str, users: np.ndarray, size: float, use: PhraseUse, column_of_shown: dict[str, int]
) -> list[tuple[str, float, float]]:
    """For each phrase of a topic's `label`: (phrase, share of the topic's papers, share of all papers) using it."""
    # A label is one phrase or two joined by ", " (see `_compose_label`); "Topic 3" has none.
    label_columns = [
        (part, column_of_shown[part.lower()]) for part in label.split(", ") if part.lower() in column_of_shown
    ]
    return [(part, round(float(users[c] / size), 4), round(float(use.overall[c]), 4)) for part, c in label_columns]


def _distinct_phrases(order: np.ndarray, keys: np.ndarray, limit: int) -> list[int]:
    """The first `limit` columns of `order`, skipping a phrase inside one already chosen and vice versa."""
    chosen: list[int] = []
    for i in order:
        key = f" {keys[i]} "
        if any(key in f" {keys[c]} " or f" {keys[c]} " in key for c in chosen):
            continue
        chosen.append(int(i))
        if len(chosen) == limit:
            break
    return chosen


def _representatives(ids: np.ndarray, points: np.ndarray, loose: np.ndarray, limit: int, cosine: bool) -> list[str]:
    core = points[~loose] if (~loose).any() else points
    centre = core.mean(axis=0)
    if cosine:
        centre = centre / max(np.linalg.norm(centre), 1e-12)
        distance = -(points @ centre)
    else:
        distance = np.linalg.norm(points - centre, axis=1)
    order = np.lexsort((ids, distance, loose))  # clear members first, then nearest the centre, ties by id
    return [str(ids[i]) for i in order[:limit]]
