"""Topic labels: the phrases a topic's papers use far more than the rest of the corpus does.

`PhraseUse` counts which candidate phrases each paper uses; `label_topics` and `label_levels`
turn that into one short, distinct label per topic; `lib.stages.topics.topic_summaries` reuses it
for each topic's keywords. Which phrases may be a label at all is `lib.stages.label_rules`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import pandas as pd
from scipy import sparse

from lib.errors import ParameterError
from lib.stages.label_rules import is_field_phrase, nameable_phrases, vague_words, verb_words
from lib.stages.phrases import PhraseCounts, display_case, phrase_counts, shown_forms, singular, written_chunks

if TYPE_CHECKING:
    from lib.stages.topics import TopicLevels

LABEL_MAX_WORDS = 4
# A single word used by more than this share of all papers ("models", "data") names no topic.
MAX_LABEL_SHARE = 0.05
# A label's phrase is distinctive when its topic uses it at least this many times more than the rest.
DISTINCT_LIFT = 2.0


def fewest_users(*levels: np.ndarray) -> int:
    """How many papers must use a phrase for it to label or summarise any topic of these levels (topic
    per paper, one array per level): two of a topic's papers must (`PhraseUse.themes`,
    `lib.stages.topics.topic_summaries`), or its one paper in a topic of one."""
    smallest = min((np.unique(topics, return_counts=True)[1].min() for topics in levels if len(topics)), default=1)
    return int(min(2, smallest))


class TopicUse(NamedTuple):
    """A level's topics and their papers' use of `PhraseUse`'s phrases: sorted topic ids, papers per
    topic, and per topic (row) the number of its papers using each phrase and its uses in all
    (sparse, float64: the products `PhraseUse.by_topic` makes)."""

    topic_ids: list[int]
    sizes: np.ndarray
    users: sparse.csr_matrix
    occurrences: sparse.csr_matrix


class PhraseUse:
    """Which candidate phrases (plural twins folded) each paper uses; `by_topic` turns that into per-topic shares.

    Phrases fewer than `min_users` papers use are left out (`fewest_users` tells how many labels and
    summaries need): over a corpus most phrases are one paper's, and judging each (its shown form, a
    modifier or a verb, a whole-field phrase) is much of the topics stage's work. `summed` makes one
    from sums over slices of a list (`lib.stages.topic_tallies`) instead, for given topics only.
    """

    def __init__(self, texts: Sequence[str], min_users: int = 1, counts: PhraseCounts | None = None) -> None:
        """`counts`: `phrase_counts(texts)`, when made beforehand (the subfields' scorer counts the same)."""
        self.n_texts = len(texts)
        self.levels: list[tuple[np.ndarray, TopicUse]] = []
        self.counts: sparse.csr_matrix | None = None
        used, phrases = phrase_counts(texts) if counts is None else counts
        if not phrases:
            self._describe(np.array([], dtype=object), [], np.zeros(0), set())
            return
        # Fold plural twins into one column; show each as its most used form and the corpus's casing.
        column_of_phrase, keys = phrase_keys(phrases)
        phrase_uses = np.asarray(used.sum(axis=0)).ravel()
        per_paper = folded_counts(used, column_of_phrase, len(keys))  # how often each paper uses each phrase
        del used, counts  # the topics stage's peak: both side workers are alive then
        kept = kept_columns(keys, per_paper.getnnz(axis=0), min_users)  # a stored count is a paper using it
        self.counts = per_paper[:, kept].tocsr()
        del per_paper
        chunks = written_chunks(texts)  # read for the casing and for the verbs
        shown = shown_forms(phrases, phrase_uses, column_of_phrase, kept, display_case(texts, chunks))
        self._describe(
            keys[kept], shown, np.bincount(self.counts.indices, minlength=len(kept)), verb_words(texts, chunks)
        )

    @classmethod
    def summed(
        cls,
        n_texts: int,
        keys: np.ndarray,
        shown: list[str],
        users: np.ndarray,
        verbs: set[str],
        levels: Sequence[tuple[np.ndarray, TopicUse]],
    ) -> PhraseUse:
        """A `PhraseUse` of `n_texts` papers from sums: its `keys` (sorted), their `shown` forms and
        `users` (papers using each), the list's `verbs`, and for each topic array of `levels` (a
        topic per paper) its `TopicUse`. It answers `by_topic` for those topics only."""
        use = cls.__new__(cls)
        use.n_texts, use.levels, use.counts = n_texts, list(levels), None
        use._describe(keys, shown, users, verbs)
        return use

    def _describe(self, keys: np.ndarray, shown: list[str], users: np.ndarray, verbs: set[str]) -> None:
        """What the labels judge of each kept phrase: `keys`, `shown` forms, share of papers using it
        (`users` per key), length, and whether it may name a topic."""
        self.keys, self.shown = keys, shown
        self.overall = users / self.n_texts
        self.words = np.array([k.count(" ") + 1 for k in self.keys])
        self.multiword = self.words > 1
        self.one_word = ~self.multiword  # hyphenated words ("fine-tuning") count as one: one token of the text
        # "time series" over "series": a phrase a little rarer than the word inside it is the concept.
        self.length_bonus = 1 + 1.0 * (self.words - 1)
        self.nameable = nameable_phrases(self.keys, self.shown, verbs)
        self.field = np.array([is_field_phrase(k) for k in self.keys], dtype=bool)

    @property
    def used(self) -> sparse.csr_matrix | None:
        """Whether each paper uses each phrase, 0 or 1: the counts' own rows, each count a 1. Made when
        asked, not held: a corpus's are as large as its counts."""
        return None if self.counts is None else uses_of(self.counts)

    def by_topic(self, topics: np.ndarray) -> tuple[list[int], np.ndarray, sparse.csr_matrix]:
        """Sorted topic ids, papers per topic, and per topic (row) the number of its papers using each
        phrase, sparse: dense, the fine topics by a corpus's 2 million phrases are too large
        (`dense_row` gives one topic's)."""
        summed = self._summed(topics)
        if summed is not None:
            return summed.topic_ids, summed.sizes, summed.users
        topic_ids, membership = topic_membership(topics)
        sizes = np.asarray(membership.sum(axis=1)).ravel()
        used = self.used
        per_topic = (membership @ used).tocsr() if used is not None else sparse.csr_matrix((len(topic_ids), 0))
        return topic_ids, sizes, per_topic

    def ranked(self, users: np.ndarray, size: float, min_share: float) -> tuple[np.ndarray, np.ndarray]:
        """Phrase columns distinctive of a topic of `size` papers (`users` of them use each phrase),
        best first, and the topic's share per column.

        A phrase scores share x log(share / overall share): common to the topic, rare elsewhere.
        Phrases used by fewer than `min_share` of the topic's papers or by one paper only, and single
        words used across the corpus, come after the well-covered ones.
        """
        share = users / size
        # Only the phrases the topic uses can score above 0: a corpus has 100 times as many.
        used = np.flatnonzero(share > 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            score = share[used] * np.log(share[used] / self.overall[used]) * self.length_bonus[used]
        well_covered = (
            (share[used] >= min_share)
            & (users[used] >= min(2, size))
            & ((self.overall[used] <= MAX_LABEL_SHARE) | self.multiword[used])
        )
        # Covered phrases first, then the rest; within each by score, ties alphabetical: the columns
        # run in the keys' alphabetical order, and lexsort keeps the order of ties.
        order = np.lexsort((-score, ~well_covered))
        return used[order[np.isfinite(score[order]) & (score[order] > 0)]], share

    def occurrences_by_topic(self, topics: np.ndarray) -> sparse.csr_matrix:
        """Per topic (sorted ids, as `by_topic`, sparse), how many times its papers use each phrase in all."""
        summed = self._summed(topics)
        if summed is not None:
            return summed.occurrences
        topic_ids, membership = topic_membership(topics)
        if self.counts is None:
            return sparse.csr_matrix((len(topic_ids), 0))
        return (membership @ self.counts).tocsr()

    def _summed(self, topics: np.ndarray) -> TopicUse | None:
        """The `TopicUse` summed for `topics`, if it was (`summed`); None when the counts answer any."""
        for level, use in self.levels:
            if np.array_equal(level, topics):
                return use
        if self.counts is None and len(self.keys):
            raise ParameterError("this PhraseUse was summed for other topics; it has no paper's counts to count these")
        return None

    def lift(self, users: np.ndarray, size: float, totals: np.ndarray) -> np.ndarray:
        """How many times more often a topic of `size` papers (`users` per phrase) uses each phrase
        than the rest of the corpus (`totals` users in all), with one pseudo-paper in the rest so a
        phrase no other paper uses gets a finite lift."""
        rest = max(self.n_texts - size, 0)
        return (users / size) / ((totals - users + 1) / (rest + 1))

    def themes(
        self,
        users: np.ndarray,
        size: float,
        totals: np.ndarray,
        min_share: float,
        occurrences: np.ndarray | None = None,
        region_users: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Label candidates of a topic, best first, and the topic's share per column.

        A candidate names a thing, is used by two papers or more of the topic and by at least
        `min_share` of them, is distinctive (`DISTINCT_LIFT` times more common in the topic than in the
        rest), is no vague word (`vague_words`: a common word most of whose papers lie outside the
        topic's region, `region_users` per phrase, by default the topic's own) and is no whole-field
        phrase ("machine learning") unless the topic is about it (most of its papers use it, at most
        `MAX_LABEL_SHARE` of the other papers do and it holds most of those that do). Candidates are
        ranked by coverage, the share of the topic's papers using them (a word counts the phrases
        holding it), ties by length ("language models" over "language") and then lift: among
        distinctive phrases the plurality's theme wins, not the most distinctive minority word.
        """
        share = users / size
        lift = self.lift(users, size, totals)
        rest_share = (totals - users) / max(self.n_texts - size, 1)
        region_users = users if region_users is None else region_users
        # About a field phrase: most of the topic's papers use it, and the topic holds most of those that do.
        about_itself = (share > 0.5) & (rest_share <= MAX_LABEL_SHARE) & (2 * users > totals)
        ok = (
            self.nameable
            & (users >= min(2, size))
            & (share >= min_share)
            & (lift >= DISTINCT_LIFT)
            & ~vague_words(self.one_word, region_users, totals, self.n_texts)
            & (~self.field | about_itself)
        )
        columns = np.flatnonzero(ok)
        words = self.words[columns]
        often = occurrences[columns] if occurrences is not None else np.zeros(len(columns))
        order = columns[np.lexsort((-often, -lift[columns], -words, -users[columns]))]  # ties alphabetical, as above
        return order, share


def phrase_keys(phrases: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Each phrase's key's number and the keys (an object array), as first met: plural twins share
    one key, the phrase with its last word singular."""
    # As Python strings: a fixed-width array of them takes its longest phrase's width for every one
    # of a corpus's 2 million. Numbered as first met (a hash table in C; np.unique sorted all 2
    # million of a corpus). A phrase not ending in "s" is its own singular (`phrase_counts` gives
    # none ending in a space).
    column_of_phrase, keys = pd.factorize(
        np.array([singular(p) if p.endswith("s") else p for p in phrases], dtype=object)
    )
    return column_of_phrase, np.asarray(keys, dtype=object)


def kept_columns(keys: np.ndarray, users: np.ndarray, min_users: int) -> np.ndarray:
    """The key columns at least `min_users` papers use (`users` per key), in alphabetical order of their keys."""
    enough = np.flatnonzero(users >= min_users)
    # Keys are distinct: Python's sort of strings gives NumPy's order of them, in a third of its time.
    enough_keys = keys[enough].tolist()
    return enough[np.array(sorted(range(len(enough_keys)), key=enough_keys.__getitem__), dtype=np.intp)]


def uses_of(counts: sparse.csr_matrix) -> sparse.csr_matrix:
    """`counts` (papers x phrases) as 0 or 1, whether each paper uses each phrase: its own rows, each count a 1."""
    return sparse.csr_matrix((np.ones_like(counts.data), counts.indices, counts.indptr), shape=counts.shape)


def dense_row(matrix: sparse.csr_matrix, row: int) -> np.ndarray:
    """Row `row` of a per-topic matrix (`PhraseUse.by_topic`) as a dense vector, one value per phrase."""
    return matrix[row].toarray().ravel()


def folded_counts(used: sparse.csr_matrix, column_of: np.ndarray, n_columns: int) -> sparse.csr_matrix:
    """`used` (papers x phrases) in `n_columns` columns, each phrase's in its `column_of` (plural twins
    in one, their counts added). Renumbered, not multiplied by a 0/1 fold matrix: SciPy's product
    made a float64 copy of a corpus's counts, and a float64 result, each twice their size."""
    return folded_entries(used, column_of[used.indices], n_columns)


def folded_entries(used: sparse.csr_matrix, columns: np.ndarray, n_columns: int) -> sparse.csr_matrix:
    """`folded_counts` given each of `used`'s entries' column (`columns`, in storage order)."""
    folded = sparse.csr_matrix(
        (used.data.copy(), columns.astype(np.int32), used.indptr.copy()), shape=(used.shape[0], n_columns)
    )
    folded.sum_duplicates()  # sorts each row's entries in place: hence the copies, `used` is shared
    return folded


def topic_membership(topics: np.ndarray, topic_ids: list[int] | None = None) -> tuple[list[int], sparse.csr_matrix]:
    """Sorted topic ids (`topic_ids`, by default those of `topics`) and the topics-by-papers 0/1 matrix of `topics`."""
    topic_ids = sorted(set(int(t) for t in topics)) if topic_ids is None else topic_ids
    rows = np.searchsorted(topic_ids, topics)
    membership = sparse.csr_matrix(
        (np.ones(len(topics)), (rows, np.arange(len(topics)))), shape=(len(topic_ids), len(topics))
    )
    return topic_ids, membership


def label_topics(topics: np.ndarray, texts: Sequence[str], min_share: float = 0.05) -> dict[int, str]:
    """A short, distinct label per topic: the phrase most of its papers use that the rest use far less.

    Candidates are ranked as in `PhraseUse.themes`, so a label describes the topic's plurality rather
    than one paper or a minority in it; a one-word label gives way to a well-used phrase holding it
    (`_compose_label`), and two topics wanting one label settle it by share (`_assign`).
    """
    topics = np.asarray(topics)
    return _labels(PhraseUse(texts, fewest_users(topics)), topics, min_share)


def label_levels(
    levels: TopicLevels, texts: Sequence[str], min_share: float = 0.05, use: PhraseUse | None = None
) -> tuple[dict[int, str], dict[int, str]]:
    """`label_topics` for the coarse and the fine level, reading the texts once (none at all when
    their `PhraseUse` is given)."""
    use = PhraseUse(texts, fewest_users(levels.coarse, levels.fine)) if use is None else use
    return _labels(use, levels.coarse, min_share), _labels(use, levels.fine, min_share, levels.coarse)


def _labels(use: PhraseUse, topics: np.ndarray, min_share: float, regions: np.ndarray | None = None) -> dict[int, str]:
    """Labels of `topics`; a word is vague or a topic about it judged within its region of `regions`
    (the coarse topic holding a fine one), by default the topic itself."""
    topic_ids, sizes, per_topic = use.by_topic(topics)
    if len(use.keys) == 0:
        return {t: f"Topic {t}" for t in topic_ids}
    totals = np.asarray(per_topic.sum(axis=0)).ravel()
    occurrences = use.occurrences_by_topic(topics)
    if regions is None:
        region_rows = per_topic
    else:
        region_ids, _, per_region = use.by_topic(regions)
        rows = np.searchsorted(topic_ids, topics)
        # The region of a topic: the one most of its papers are in (all of them, as the levels nest).
        region_of = [
            np.bincount(np.searchsorted(region_ids, regions[rows == r])).argmax() for r in range(len(topic_ids))
        ]
        region_rows = per_region[region_of]
    candidates = []
    for row in range(len(topic_ids)):
        order, share = use.themes(
            dense_row(per_topic, row),
            sizes[row],
            totals,
            min_share,
            dense_row(occurrences, row),
            region_users=dense_row(region_rows, row),
        )
        candidates.append([(use.shown[i], float(share[i])) for i in order[:200]])
    return _assign(topic_ids, candidates)


def _assign(topic_ids: Sequence[int], candidates: Sequence[Sequence[tuple[str, float]]]) -> dict[int, str]:
    """One distinct label per topic from its (phrase, share) candidates, best first.

    Two topics wanting one label: the one whose papers use it more gets it ("Language models" goes to
    the topic 88% of whose papers say it, not to a larger one where 23% do), and the other moves on.
    Topics claim in turn, the strongest remaining claim (its best free label's share) first.
    """
    labels: dict[int, str] = {}
    taken: set[str] = set()
    waiting = list(range(len(topic_ids)))
    while waiting:
        claims = []
        for row in waiting:
            label = _compose_label(candidates[row], taken)
            share = next((s for p, s in candidates[row] if p == label), 0.0) if label else -1.0
            claims.append((share, -row, label))
        _, row, label = max(claims)
        row = -row
        topic = topic_ids[row]
        labels[topic] = label[:1].upper() + label[1:] if label else f"Topic {topic}"
        taken.add(labels[topic].lower())
        waiting.remove(row)
    return dict(sorted(labels.items()))


def _compose_label(ranked: Sequence[tuple[str, float]], taken: set[str]) -> str:
    """The first free label from (phrase, share) candidates, best first.

    A single word gives way to the best phrase holding it that at least half as many papers use
    ("Gaussian" -> "Gaussian processes"). A label is one concept: no second phrase is appended.
    """
    for i, (first, share) in enumerate(ranked[:50]):
        label = first
        if " " not in first:
            word = f" {first.lower().replace('-', ' ')} "
            holds = [
                (p, s)
                for p, s in ranked[i + 1 :]
                if word in f" {p.lower().replace('-', ' ')} " and len(set(p.lower().split())) == p.count(" ") + 1
            ]  # a phrase repeating a word ("privacy privacy") is no concept
            if (
                holds
                and 2 * holds[0][1] >= share
                and holds[0][0].count(" ") < LABEL_MAX_WORDS
                and holds[0][0].lower() not in taken
            ):
                label = holds[0][0]
        if label.lower() not in taken:
            return label
    return ""
