"""Topics at two levels: fine regions of the 2D map found by k-means, grouped into coarse ones,
each labelled by its most distinctive phrases and summarised by keywords and representative papers."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.cluster import KMeans
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.neighbors import NearestNeighbors

from lib.errors import ParameterError
from lib.schema import analysis_texts
from lib.stages.phrases import candidate_phrases, display_case, singular

MAX_TOPICS = 15
MAX_FINE_TOPICS = 60
LABEL_MAX_WORDS = 4
# A single word used by more than this share of all papers ("models", "data") names no topic.
MAX_LABEL_SHARE = 0.05
# A paper whose 10th-nearest neighbour on the map is this many times farther than is typical lies
# outside every dense region: it is given its nearest topic and marked. At most
# `MAX_NEAREST_SHARE` of the papers are (the sparsest), so the marked set never becomes a bucket.
SPARSE_NEIGHBOUR = 10
SPARSE_FACTOR = 3.0
MAX_NEAREST_SHARE = 0.05
LEVELS = ("coarse", "fine")

# A label names a thing: a phrase ending in a modifier ("Robust", "Multi-modal", "learning robust")
# does not, though a modifier is fine inside one ("robust optimization"). Judged by suffix, with the
# nouns that share one.
_MODIFIER_ENDINGS = ("ive", "al", "ic", "ous", "able", "ible", "ary", "ful", "less", "ed", "ish", "ly")
_MODIFIER_WORDS = frozenset(
    "robust deep sparse linear nonlinear online offline low high fast slow fair private hidden latent discrete "
    "continuous exact approximate accurate secure safe open closed shallow wide dense long short multi "
    "self human optimal improving enhancing understanding rethinking unlocking boosting".split()
)
_NOUNS_LIKE_MODIFIERS = frozenset(
    "logic music topic arithmetic objective incentive derivative signal interval proposal rival manual "
    "animal hospital tutorial trial mechanic graphic metal".split()
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
        model = KMeans(n_clusters=k_fine, n_init=10, random_state=random_state).fit(dense)
        centres = model.cluster_centers_
        fine = np.empty(n, dtype=np.int64)
        fine[~sparse_mask] = model.labels_
        if sparse_mask.any():
            # The topic of the nearest dense point: on the map a stray takes its neighbours' colour.
            nearest = (
                NearestNeighbors(n_neighbors=1).fit(dense).kneighbors(coords[sparse_mask], return_distance=False)[:, 0]
            )
            fine[sparse_mask] = model.labels_[nearest]
    sizes = np.bincount(fine, minlength=k_fine)
    if k_coarse == 1:
        coarse_of_fine = np.zeros(k_fine, dtype=np.int64)
    elif k_coarse == k_fine:
        coarse_of_fine = np.arange(k_fine)
    else:
        grouping = KMeans(n_clusters=k_coarse, n_init=10, random_state=random_state)
        coarse_of_fine = grouping.fit(centres, sample_weight=sizes).labels_
    coarse = coarse_of_fine[fine]
    return TopicLevels(_by_size(coarse, coords), _by_size(fine, coords), sparse_mask)


def sparse_points(coords: np.ndarray) -> np.ndarray:
    """Points outside every dense region of the map: their `SPARSE_NEIGHBOUR`th-nearest neighbour is
    more than `SPARSE_FACTOR` times as far as the median point's, and they are among the sparsest
    `MAX_NEAREST_SHARE` of points. Below 2 x `SPARSE_NEIGHBOUR` points, density says nothing: none are."""
    n = len(coords)
    if n < 2 * SPARSE_NEIGHBOUR:
        return np.zeros(n, dtype=bool)
    distances, _ = NearestNeighbors(n_neighbors=SPARSE_NEIGHBOUR + 1).fit(coords).kneighbors(coords)
    reach = distances[:, -1]
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


class _PhraseUse:
    """Which candidate phrases (plural twins folded) each paper uses; `by_topic` turns that into per-topic shares."""

    def __init__(self, texts: Sequence[str]) -> None:
        self.n_texts = len(texts)
        counter = CountVectorizer(analyzer=candidate_phrases, binary=True)
        try:
            used = counter.fit_transform(texts).tocsr()
        except ValueError:  # no phrase in any text
            self.keys, self.shown, self.used = np.array([], dtype=str), [], None
            return
        phrases = counter.get_feature_names_out()
        # Fold plural twins into one column; show each as its most used form and the corpus's casing.
        self.keys, column_of_phrase = np.unique([singular(p) for p in phrases], return_inverse=True)
        self.shown = _shown_forms(
            phrases, np.asarray(used.sum(axis=0)).ravel(), column_of_phrase, len(self.keys), display_case(texts)
        )
        fold = sparse.csr_matrix((np.ones(len(phrases)), (np.arange(len(phrases)), column_of_phrase)))
        self.used = (used @ fold).sign().tocsr()
        self.overall = np.asarray(self.used.sum(axis=0)).ravel() / len(texts)
        words = np.array([k.count(" ") + 1 for k in self.keys])
        self.multiword = words > 1
        # "time series" over "series": a phrase a little rarer than the word inside it is the concept.
        self.length_bonus = 1 + 1.0 * (words - 1)
        self.nameable = np.array([not _is_modifier(k) for k in self.keys], dtype=bool)

    def by_topic(self, topics: np.ndarray) -> tuple[list[int], np.ndarray, np.ndarray]:
        """Sorted topic ids, papers per topic, and per topic (row) the number of its papers using each phrase."""
        topic_ids = sorted(set(int(t) for t in topics))
        rows = np.searchsorted(topic_ids, topics)
        membership = sparse.csr_matrix(
            (np.ones(len(topics)), (rows, np.arange(len(topics)))), shape=(len(topic_ids), len(topics))
        )
        sizes = np.asarray(membership.sum(axis=1)).ravel()
        per_topic = (
            np.asarray((membership @ self.used).todense()) if self.used is not None else np.zeros((len(topic_ids), 0))
        )
        return topic_ids, sizes, per_topic

    def ranked(self, users: np.ndarray, size: float, min_share: float) -> tuple[np.ndarray, np.ndarray]:
        """Phrase columns distinctive of a topic of `size` papers (`users` of them use each phrase),
        best first, and the topic's share per column.

        A phrase scores share x log(share / overall share): common to the topic, rare elsewhere.
        Phrases used by fewer than `min_share` of the topic's papers or by one paper only, and single
        words used across the corpus, come after the well-covered ones.
        """
        share = users / size
        with np.errstate(divide="ignore", invalid="ignore"):
            score = np.where(share > 0, share * np.log(share / self.overall), -np.inf) * self.length_bonus
        well_covered = (
            (share >= min_share) & (users >= min(2, size)) & ((self.overall <= MAX_LABEL_SHARE) | self.multiword)
        )
        # Covered phrases first, then the rest; within each by score, ties alphabetical.
        order = np.lexsort((self.keys, -score, ~well_covered))
        return order[np.isfinite(score[order]) & (score[order] > 0)], share


def label_topics(topics: np.ndarray, texts: Sequence[str], min_share: float = 0.05) -> dict[int, str]:
    """A short, distinct label per topic: the phrases its papers use far more than the rest do.

    Phrases are ranked as in `_PhraseUse.ranked`, so a label describes the topic rather than one
    paper in it. The label is the best phrase, with the next best appended when the first is a
    single word; a label already taken moves on to the next phrase.
    """
    return _labels(_PhraseUse(texts), np.asarray(topics), min_share)


def label_levels(
    levels: TopicLevels, texts: Sequence[str], min_share: float = 0.05
) -> tuple[dict[int, str], dict[int, str]]:
    """`label_topics` for the coarse and the fine level, reading the texts once."""
    use = _PhraseUse(texts)
    return _labels(use, levels.coarse, min_share), _labels(use, levels.fine, min_share)


def _labels(use: _PhraseUse, topics: np.ndarray, min_share: float) -> dict[int, str]:
    topic_ids, sizes, per_topic = use.by_topic(topics)
    if len(use.keys) == 0:
        return {t: f"Topic {t}" for t in topic_ids}
    labels: dict[int, str] = {}
    taken: set[str] = set()
    for row, topic in enumerate(topic_ids):
        order, share = use.ranked(per_topic[row], sizes[row], min_share)
        label = _compose_label([(use.shown[i], share[i]) for i in order[use.nameable[order]][:200]], taken)
        labels[topic] = label[:1].upper() + label[1:] if label else f"Topic {topic}"
        taken.add(labels[topic].lower())
    return labels


def _shown_forms(
    phrases: np.ndarray, uses: np.ndarray, column_of_phrase: np.ndarray, n_keys: int, cased: dict[str, str]
) -> list[str]:
    """Per folded column, its most used variant ("diffusion models" or "diffusion model"), cased as the corpus writes it."""
    best: list[tuple[float, str]] = [(-1, "")] * n_keys
    for phrase, count, column in zip(phrases, uses, column_of_phrase):
        best[column] = max(best[column], (count, phrase))
    return [" ".join(cased.get(w, w) for w in phrase.split(" ")) for _, phrase in best]


def _compose_label(ranked: Sequence[tuple[str, float]], taken: set[str]) -> str:
    """The first free label from (phrase, share) candidates, best first.

    A single word gives way to the best phrase holding it that at least half as many papers use
    ("Gaussian" -> "Gaussian processes"); failing that, it takes the next phrase after a comma.
    """
    for i, (first, share) in enumerate(ranked[:50]):
        label = first
        if " " not in first:
            word = f" {first.lower().replace('-', ' ')} "
            holds = [(p, s) for p, s in ranked[i + 1 :] if word in f" {p.lower().replace('-', ' ')} "]
            partner = next(
                (
                    p
                    for p, _ in ranked[i + 1 : 50]
                    if word not in f" {p.lower().replace('-', ' ')} " and p.count(" ") < LABEL_MAX_WORDS - 1
                ),
                None,
            )
            if (
                holds
                and 2 * holds[0][1] >= share
                and holds[0][0].count(" ") < LABEL_MAX_WORDS
                and holds[0][0].lower() not in taken
            ):
                label = holds[0][0]
            elif partner:
                label = f"{first}, {partner}"
        if label.lower() not in taken:
            return label
    return ""


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


SUMMARY_COLUMNS = (
    "topic",
    "label",
    "papers",
    "share",
    "parent",
    "parent_label",
    "assigned_nearest",
    "keywords",
    "keyword_shares",
    "keyword_overall_shares",
    "label_evidence",
    "representatives",
    "x",
    "y",
)


def topic_summaries(
    papers: pd.DataFrame,
    level: str = "coarse",
    *,
    n_keywords: int = 8,
    n_representatives: int = 5,
    vectors: np.ndarray | None = None,
    min_share: float = 0.05,
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
    space = (
        np.asarray(vectors, dtype=np.float64) if vectors is not None else papers[["x", "y"]].to_numpy(dtype=np.float64)
    )
    if vectors is not None:
        if len(space) != len(papers):
            raise ParameterError(f"vectors must have one row per paper ({len(papers)}); got {len(space)}")
        space = space / np.maximum(np.linalg.norm(space, axis=1, keepdims=True), 1e-12)
    use = _PhraseUse(analysis_texts(papers))
    topic_ids, sizes, per_topic = use.by_topic(topics)
    column_of_shown = {shown.lower(): column for column, shown in enumerate(use.shown)}
    rows = []
    for row, topic in enumerate(topic_ids):
        members = np.flatnonzero(topics == topic)
        first = members[0]
        if len(use.keys):
            order, share = use.ranked(per_topic[row], sizes[row], min_share)
            # One paper's phrase describes that paper, and a modifier names nothing.
            shared = order[(per_topic[row][order] >= min(2, sizes[row])) & use.nameable[order]]
            chosen = _distinct_phrases(shared, use.keys, n_keywords)
            keywords, shares = [use.shown[i] for i in chosen], [round(float(share[i]), 4) for i in chosen]
            overall = [round(float(use.overall[i]), 4) for i in chosen]
        else:
            keywords, shares, overall = [], [], []
        label = papers[label_column].iloc[first]
        # A label is one phrase or two joined by ", " (see `_compose_label`); "Topic 3" has none.
        label_columns = [
            (part, column_of_shown[part.lower()]) for part in label.split(", ") if part.lower() in column_of_shown
        ]
        evidence = [
            (part, round(float(per_topic[row][c] / sizes[row]), 4), round(float(use.overall[c]), 4))
            for part, c in label_columns
        ]
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
                "label_evidence": evidence,
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
