"""The scorer that files each paper under its best-fitting subfield of a taxonomy (`lib.stages.taxonomy`).

`assign_subfields` files papers in three views of the corpus: each paper's own words against each
entry's text (zero-shot), each entry's profile in this corpus (the papers the first view files
there), and each paper's nearest neighbours, over which the first two are spread.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp

from lib import exact
from lib.errors import ParameterError
from lib.neighbours import knn_graph, normalize_rows
from lib.stages.embed import TfidfSvdEmbedder, sample_rows, smoothed_idf, tfidf_weights
from lib.stages.phrases import PhraseCounts, counts_after, phrase_counts
from lib.stages.taxonomy import UNASSIGNED, Taxonomy

# The columns `assign_subfields` returns, with their dtypes (documented in lib/schema.py).
SUBFIELD_COLUMNS = {
    "area": "str",
    "subfield": "str",
    "subfield_score": "float64",
    "subfield_runner_up": "str",
    "subfield_runner_up_score": "float64",
    "subfield_confident": "bool",
}
# Without neighbours to agree or disagree, a paper's best entry is confident when it scores at
# least this many times the runner-up: clearly ahead, not a near tie.
ZERO_SHOT_LEAD = 1.5
# Past this many papers each paper's neighbours are sought among a seeded sample of this many, as
# the map's layout and SVD are fitted on one (docs/meaning.md, "A corpus's neighbour graph on a sample").
GRAPH_SAMPLE = 20_000
# The neighbour graph's and the spreading's defaults (reasoned in `assign_subfields`).
N_NEIGHBORS = 10
ALPHA = 0.5
MIN_PAPERS = 30
# Papers whose own-words scores are made, or whose rows are walked, at a time (`entry_similarity`,
# `filed_by_scores`): all at once, a million papers' rows were several float64 copies of their
# phrase counts, or of their scores.
SCORE_BLOCK = 65_536
# Vector columns the entries' profiles sum at a time (`_sparse_product`).
PRODUCT_COLUMNS = 16


def assign_subfields(
    texts: Sequence[str],
    taxonomy: Taxonomy,
    min_score: float = 0.03,
    *,
    vectors: np.ndarray | None = None,
    n_neighbors: int = N_NEIGHBORS,
    alpha: float = ALPHA,
    min_papers: int = MIN_PAPERS,
    random_state: int = 42,
    counts: PhraseCounts | None = None,
    graph_sample: int = GRAPH_SAMPLE,
) -> pd.DataFrame:
    """File each text under an area and its finest confident subfield, using the whole corpus.

    Each sibling group (the areas; the children of one entry, among the papers filed under it) is
    scored in three views:

    1. own words: TF-IDF cosine between the paper and each entry's name, description and terms; an
       entry scores at least as well as its best descendant;
    2. the corpus's profile of each entry: cosine to the centroid of the papers view 1 files there,
       each weighted by how clearly it won, so the words this corpus uses for a field count too;
    3. neighbours: the mean of views 1 and 2 is spread over the graph of each paper's `n_neighbors`
       most similar papers, score = (1 - alpha) * own + alpha * mean of the neighbours' scores;
       past `graph_sample` papers, the most similar among a seeded sample of that many, so the
       graph's work grows with the papers, not their square.

    Views 2 and 3 compare papers by the cosine of `vectors`, one row per text: the map's embeddings,
    so a build computes them once (default: `TfidfSvdEmbedder(random_state=random_state)`'s). So may
    view 1's phrase counts: `counts`, `phrase_counts(texts)` made beforehand (the topics' labels count the same).

    A group of fewer than `min_papers` papers is too small for profiles and neighbours: it uses
    view 1 alone. A paper is confident in its best entry when its own evidence and its neighbours'
    pick the same entry (without neighbours: when the best scores `ZERO_SHOT_LEAD` times the
    runner-up). The walk goes down from the area to a child only while the current entry is
    confident and the child is confident and scores at least `min_score`.

    The defaults are reasoned, not fitted to any labels: 10 neighbours outvote one stray neighbour
    yet stay inside a field of a few dozen papers; alpha 0.5 weighs a paper's own evidence and its
    neighbourhood equally; 30 papers, three times the neighbours, is the least that leaves
    neighbours to choose from.

    Returns one row per text with `SUBFIELD_COLUMNS`: `area` (or `Unassigned` when nothing
    matches), `subfield`, `subfield_score` (0 to 1), `subfield_runner_up` (the best sibling of the
    subfield, "" if none) and its score, and `subfield_confident` (False: the area is a best guess).
    """
    _check_parameters(min_score, n_neighbors, alpha, min_papers, graph_sample)
    texts = list(texts)
    if vectors is not None and len(vectors) != len(texts):
        raise ParameterError(f"vectors must have one row per text ({len(texts)}); got {len(vectors)}")
    own = entry_similarity(texts, taxonomy, counts)
    corpus = None
    if len(texts) >= min_papers:
        if vectors is None:
            vectors = TfidfSvdEmbedder(random_state=random_state).embed(texts)
        vectors = normalize_rows(vectors)
        corpus = vectors, knn_graph(vectors, n_neighbors, sample_rows(len(texts), graph_sample, random_state))
    return filed_by_scores(taxonomy, own, corpus, min_score, alpha, min_papers)


def filed_by_scores(
    taxonomy: Taxonomy,
    own: np.ndarray,
    corpus: tuple[np.ndarray, sp.csr_matrix] | None,
    min_score: float,
    alpha: float,
    min_papers: int,
) -> pd.DataFrame:
    """`assign_subfields`' table from the papers' own-word scores (`entry_similarity`) and `corpus`,
    their unit vectors and neighbour graph (None: too few papers for them)."""
    column = {e.name: i for i, e in enumerate(taxonomy.entries)}
    scores, confident = _score_tree(taxonomy, column, own, corpus, alpha, min_papers)
    names = [e.name for e in taxonomy.entries]
    children = {parent: [column[c.name] for c in taxonomy.children(parent)] for parent in (None, *names)}
    # Each paper's row as Python numbers: read one at a time, NumPy's scalars cost more.
    rows = [
        _walk(names, children, paper_scores.tolist(), paper_shown.tolist(), paper_confident.tolist(), min_score)
        for start in range(0, len(scores), SCORE_BLOCK)
        for paper_scores, paper_shown, paper_confident in zip(
            scores[start : start + SCORE_BLOCK],
            np.clip(scores[start : start + SCORE_BLOCK], 0, 1),
            confident[start : start + SCORE_BLOCK],
        )
    ]
    return pd.DataFrame(rows, columns=list(SUBFIELD_COLUMNS)).astype(SUBFIELD_COLUMNS)


def _check_parameters(min_score: float, n_neighbors: int, alpha: float, min_papers: int, graph_sample: int) -> None:
    """`assign_subfields`' settings, each in its range, or a ParameterError naming the first that is not."""
    if not 0 <= min_score < 1:
        raise ParameterError(f"min_score must be in [0, 1); got {min_score}")
    if not isinstance(n_neighbors, int) or n_neighbors < 1:
        raise ParameterError(f"n_neighbors must be a positive integer; got {n_neighbors!r}")
    if not 0 <= alpha < 1:
        raise ParameterError(f"alpha must be in [0, 1); got {alpha}")
    if not isinstance(min_papers, int) or min_papers <= n_neighbors:
        raise ParameterError(f"min_papers must be an integer above n_neighbors ({n_neighbors}); got {min_papers!r}")
    if not isinstance(graph_sample, int) or graph_sample < min_papers:
        raise ParameterError(
            f"graph_sample must be an integer of at least min_papers ({min_papers}); got {graph_sample!r}"
        )


def _score_tree(
    taxonomy: Taxonomy,
    column: dict[str, int],
    own: np.ndarray,
    corpus: tuple[np.ndarray, sp.csr_matrix] | None,
    alpha: float,
    min_papers: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Each paper's score and confidence per entry (`column`: entry name -> column of `own`), group by
    group from the areas down, each group among the papers filed under its parent (see
    `assign_subfields`); `corpus` is the unit vectors and their neighbour weights, or None."""
    entries = taxonomy.entries
    scores = np.zeros_like(own)
    confident = np.zeros(own.shape, dtype=bool)

    def score_group(parent: str | None, members: np.ndarray) -> None:
        group = [column[c.name] for c in taxonomy.children(parent)]
        if not group or len(members) == 0:
            return
        group_own = own[np.ix_(members, group)]  # type: ignore[arg-type]  # numpy's stub: all arrays or all lists, no mix
        if corpus is not None and len(members) >= min_papers:
            unit_vectors, weights = corpus
            if len(members) < len(own):  # the areas' group is every paper: no copy of a million rows
                unit_vectors, weights = unit_vectors[members], weights[members][:, members]
            group_scores, group_confident = _spread(group_own, unit_vectors, weights, alpha)
        else:
            group_scores, group_confident = group_own, _clear_lead(group_own)
        scores[np.ix_(members, group)] = group_scores  # type: ignore[arg-type]  # numpy's stub: all arrays or all lists, no mix
        best = group_scores.argmax(axis=1)
        confident[members, np.asarray(group)[best]] = group_confident
        for j, index in enumerate(group):
            filed = members[(best == j) & (group_scores.max(axis=1) > 0)]
            score_group(entries[index].name, filed)

    score_group(None, np.arange(len(own)))
    return scores, confident


def entry_similarity(texts: Sequence[str], taxonomy: Taxonomy, counts: PhraseCounts | None = None) -> np.ndarray:
    """(n_texts, n_entries) TF-IDF cosine of each text with each entry; an entry scores at least its
    best descendant. `counts`: `phrase_counts(texts)`, when made beforehand."""
    paper_counts, phrases = phrase_counts(texts) if counts is None else counts
    scorer = entry_scorer(phrase_users(paper_counts), len(texts), entry_counts(phrases, taxonomy), taxonomy)
    return scorer.scores(paper_counts)


def phrase_users(*counts: sp.csr_matrix) -> np.ndarray:
    """How many texts use each phrase (column) of these (texts x phrases) counts, all of one width."""
    return np.bincount(np.concatenate([part.indices for part in counts]), minlength=counts[0].shape[1])


def entry_counts(phrases: Sequence[str], taxonomy: Taxonomy) -> sp.csr_matrix:
    """The `taxonomy` entries' texts' phrase counts (a row each) in the columns of a list's `phrases`
    and, after them, the phrases only the entries use."""
    return counts_after(phrases, [e.text for e in taxonomy.entries])


@dataclass(frozen=True)
class EntryScorer:
    """Scores papers' phrase counts against a taxonomy's entries (`scores`): the IDF over a list's
    papers and the entries, the entries' TF-IDF rows, and each entry's parent's column, deepest first."""

    idf: np.ndarray
    entry_weights: sp.csr_matrix
    parents: list[tuple[int, int]]  # (entry, its parent)

    def scores(self, paper_counts: sp.csr_matrix) -> np.ndarray:
        """(papers, entries) cosines of the papers whose counts these are (in the list's columns)."""
        width = self.entry_weights.shape[1]
        scores = np.empty((paper_counts.shape[0], self.entry_weights.shape[0]))
        # Each paper's row is weighed and scored on its own, so a block of rows at a time (and a
        # partition of the list at a time) gives the same bits as all at once, without float64
        # copies of a corpus's counts.
        for start in range(0, len(scores), SCORE_BLOCK):
            stop = min(start + SCORE_BLOCK, len(scores))
            block = tfidf_rows(_row_block(paper_counts, start, stop, width), self.idf)
            scores[start:stop] = (block @ self.entry_weights.T).toarray()
        # An entry fits as well as its best-fitting descendant: an area with many varied children
        # would be diluted if its words were pooled into one vector.
        for entry, parent in self.parents:
            scores[:, parent] = np.maximum(scores[:, parent], scores[:, entry])
        return scores


def entry_scorer(users: np.ndarray, n_texts: int, entry_counts: sp.csr_matrix, taxonomy: Taxonomy) -> EntryScorer:
    """The `EntryScorer` of a list of `n_texts` papers, `users` of each of its phrases
    (`phrase_users`), and its `entry_counts`."""
    entries = taxonomy.entries
    # Weighted over papers and entries together so that IDF reflects this corpus's own vocabulary.
    users = np.bincount(entry_counts.indices, minlength=entry_counts.shape[1]) + np.pad(
        users, (0, entry_counts.shape[1] - len(users))
    )
    idf = smoothed_idf(users, n_texts + len(entries))
    column = {e.name: i for i, e in enumerate(entries)}
    # Children come after parents: the deepest first, so a grandchild's score reaches its grandparent.
    parents = [(column[e.name], column[e.parent]) for e in reversed(entries) if e.parent is not None]
    return EntryScorer(idf, tfidf_rows(entry_counts, idf), parents)


def _row_block(counts: sp.csr_matrix, start: int, stop: int, width: int) -> sp.csr_matrix:
    """Rows `start` to `stop` of `counts` in `width` columns (at least its own), on its arrays."""
    first, last = counts.indptr[start], counts.indptr[stop]
    return sp.csr_matrix(
        (counts.data[first:last], counts.indices[first:last], counts.indptr[start : stop + 1] - first),
        shape=(stop - start, width),
    )


def tfidf_rows(counts: sp.csr_matrix, idf: np.ndarray | None = None) -> sp.csr_matrix:
    """The TF-IDF weights of a (texts x phrases) counts matrix (`lib.stages.embed.tfidf_weights`;
    `idf`: its own when None). Counted by `phrase_counts`, not the vectorizer: it sorted all of a
    corpus's phrases, millions, and was slower."""
    return tfidf_weights(counts, idf)[0]


def _spread(
    own: np.ndarray, vectors: np.ndarray, weights: sp.csr_matrix, alpha: float
) -> tuple[np.ndarray, np.ndarray]:
    """Scores of one sibling group from own words, corpus profiles and neighbours; and whether each paper's best is confident."""
    evidence = (own + _profile_similarity(own, vectors)) / 2
    degree = np.asarray(weights.sum(axis=1)).ravel()
    isolated = degree == 0
    # Row-stochastic: each paper's score is a weighted mean of its own evidence and its
    # neighbours' scores, so it stays a 0-1 similarity. A paper with no neighbour keeps its own.
    walk = sp.diags(np.where(isolated, 0, 1 / np.where(isolated, 1, degree))) @ weights + sp.diags(
        isolated.astype(float)
    )
    scores = evidence.copy()
    for _ in range(_iterations(alpha)):
        scores = (1 - alpha) * evidence + alpha * (walk @ scores)
    neighbours = walk @ scores
    agree = (evidence.argmax(axis=1) == neighbours.argmax(axis=1)) & (evidence.max(axis=1) > 0)
    return scores, np.where(isolated, _clear_lead(scores), agree)


def _profile_similarity(own: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """Cosine of each paper to each entry's profile: the centroid of the papers `own` files there, weighted by their lead."""
    best = own.argmax(axis=1)
    ordered = np.sort(own, axis=1)
    top = ordered[:, -1]
    second = ordered[:, -2] if own.shape[1] > 1 else np.zeros_like(top)
    # A paper that barely prefers its best entry says little about that entry's vocabulary.
    lead = np.where(top > 0, (top - second) / np.where(top > 0, top, 1), 0.0)
    membership = sp.csr_matrix((lead, (best, np.arange(len(own)))), shape=(own.shape[1], len(own)))
    profiles = normalize_rows(_sparse_product(membership, vectors))
    return exact.products(vectors, profiles)  # exact, so a near-tie goes the same way on any BLAS


def _sparse_product(sparse: sp.csr_matrix, dense: np.ndarray) -> np.ndarray:
    """`sparse @ dense`, a block of `dense`'s columns at a time: SciPy makes float32 `dense` a whole
    float64 copy first. Each output entry sums the same terms in the same order, so the bits are the same."""
    return np.hstack(
        [sparse @ dense[:, start : start + PRODUCT_COLUMNS] for start in range(0, dense.shape[1], PRODUCT_COLUMNS)]
    )


def _clear_lead(scores: np.ndarray) -> np.ndarray:
    """Whether each row's best score is positive and at least `ZERO_SHOT_LEAD` times its second best."""
    ordered = np.sort(scores, axis=1)
    second = ordered[:, -2] if scores.shape[1] > 1 else np.zeros(len(scores))
    return (ordered[:, -1] > 0) & (ordered[:, -1] >= ZERO_SHOT_LEAD * second)


def _iterations(alpha: float) -> int:
    # The spreading error shrinks by alpha per step: stop when it is below 1e-6 of the scores.
    return 1 if alpha == 0 else int(np.ceil(np.log(1e-6) / np.log(alpha)))


def _walk(
    names: list[str],
    children: dict[str | None, list[int]],
    scores: list[float],
    shown: list[float],
    confident: list[bool],
    min_score: float,
) -> tuple:
    """One paper's row: the best area, then down to the best child while each step is confident.
    `names`: the entries' names by column; `children`: each entry's (None: the areas') columns;
    `shown`: `scores` clipped to 0-1, as the row shows them."""

    def best(columns: list[int]) -> int:
        return max(columns, key=lambda i: (scores[i], -i))

    siblings = children[None]
    chosen = area = best(siblings)
    if scores[chosen] <= 0:
        return (UNASSIGNED, UNASSIGNED, 0.0, "", 0.0, False)
    while confident[chosen] and (below := children[names[chosen]]):
        child = best(below)
        if not confident[child] or scores[child] < min_score:
            break
        chosen, siblings = child, below
    others = [i for i in siblings if i != chosen]
    runner_up = best(others) if others else None
    return (
        names[area],
        names[chosen],
        shown[chosen],
        names[runner_up] if runner_up is not None else "",
        shown[runner_up] if runner_up is not None else 0.0,
        confident[area],
    )
