"""Finding papers: text search over their fields, and ranking by embedding similarity.

`text_matches` needs only the papers table. The similarity rankings take the map's embeddings
(`embeddings.npy`, one L2-normalised row per paper in `papers.parquet` order) and, for a free text,
its vector from the map's query model (`lib.map_folder.load_map_embeddings` reads both).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse

from lib.neighbours import cosine_similarity
from lib.schema import analysis_texts
from lib.stages.embed import TfidfSvdEmbedder, TfidfSvdModel, tfidf_weights
from lib.stages.label_rules import is_field_phrase
from lib.stages.phrases import content_words, word_counts

# Share of a text's or a paper's similarity that comes from the words it shares with a paper, the
# rest from the embedding (`similar_to_text`, `similar_papers`): chosen on ijcai2023 and colm2025,
# checked on iclr2018 and neurips2023 (docs/meaning.md).
TERM_WEIGHT = 0.7
# The fields a text search looks in; list fields are joined with commas.
SEARCH_FIELDS = ("title", "abstract", "authors", "keywords", "author_keywords")
# A quoted phrase, or a run of non-space characters.
_QUERY_TERM = re.compile(r'"([^"]*)"|(\S+)')


def query_terms(query: str) -> list[str]:
    """The lower-cased terms of a search query: its words, and its "quoted phrases" whole.

    >>> query_terms('Privacy "membership  inference" attacks')
    ['privacy', 'membership inference', 'attacks']
    """
    terms = (" ".join((phrase or word.strip('"')).split()).casefold() for phrase, word in _QUERY_TERM.findall(query))
    return [term for term in terms if term]


def text_matches(papers: pd.DataFrame, query: str) -> np.ndarray:
    """A boolean array, one per paper: True when every term of `query` (see `query_terms`) starts a
    word in the paper's title, abstract, authors or keywords, ignoring case ("bandit" finds
    "bandits", "art" does not find "start"). An empty query matches every paper."""
    terms = query_terms(query)
    if not terms:
        return np.ones(len(papers), dtype=bool)
    texts = pd.Series(_searchable_texts(papers), dtype=object)
    matches = np.ones(len(papers), dtype=bool)
    for term in terms:
        # Lookbehind rather than \b: a term may begin with a symbol ("c++", "-shot").
        matches &= texts.str.contains(r"(?<!\w)" + re.escape(term), regex=True).to_numpy(dtype=bool)
    return matches


def search_example(papers: pd.DataFrame) -> str:
    """A search that finds papers of this list, to show in the search box: its most used specific
    keyphrase of several words, quoted, after the word most used beside it in those papers'
    keyphrases (`privacy "membership inference"`; a paper with both among its keyphrases matches),
    the phrase alone when it has no such word, and "" for a list without keyphrases. Whole-field
    phrases ("neural networks") are passed over.
    """
    keywords = [[str(k).casefold() for k in ks] for ks in papers["keywords"]] if "keywords" in papers else []
    # Counted first, then judged once per distinct phrase or word: a corpus repeats them thousands of times.
    counted = Counter(k for ks in keywords for k in set(ks) if len(k.split()) > 1)
    phrases = {k: n for k, n in counted.items() if not is_field_phrase(k)}
    if not phrases:
        return ""
    phrase = min(phrases, key=lambda p: (-phrases[p], p))  # the commonest; ties by spelling, so it never varies
    beside = Counter(
        word
        for ks in keywords
        if phrase in ks
        for word in {w for k in ks if k != phrase for w in k.split()}
        if word not in phrase.split() and len(word) > 3
    )
    words = {w: n for w, n in beside.items() if not is_field_phrase(w)}
    if not words:
        return f'"{phrase}"'
    return f'{min(words, key=lambda w: (-words[w], w))} "{phrase}"'


def _searchable_texts(papers: pd.DataFrame) -> list[str]:
    """Each paper's searchable fields, lower-cased, one per line so that no phrase spans two fields."""
    columns = [papers[field] for field in SEARCH_FIELDS]
    return [
        "\n".join(", ".join(value) if isinstance(value, list) else str(value) for value in values).casefold()
        for values in zip(*columns)
    ]


def paper_row(papers: pd.DataFrame, paper_id: str) -> int | None:
    """The row of `papers` holding `paper_id`, or None when the map has no such paper."""
    rows = np.flatnonzero(papers["paper_id"].to_numpy() == paper_id)
    return int(rows[0]) if len(rows) else None


def papers_with_ids(papers: pd.DataFrame, ids: Collection[str] | pd.Series) -> pd.DataFrame:
    """The rows of `papers` whose `paper_id` is one of `ids`, in the order of `papers`."""
    return papers[papers["paper_id"].isin(ids)]


@dataclass(frozen=True)
class FoundPaper:
    """One paper of a map, as a row and as a one-row table (what "add to a list" takes)."""

    paper: pd.Series
    rows: pd.DataFrame


def find_paper(papers: pd.DataFrame, paper_id: str) -> FoundPaper | None:
    """The paper of `papers` with `paper_id` (see `paper_row`), or None when the map has no such paper."""
    row = paper_row(papers, paper_id)
    if row is None:
        return None
    return FoundPaper(paper=papers.iloc[row], rows=papers.iloc[[row]])


def ranked_papers(papers: pd.DataFrame, ranking: pd.DataFrame) -> pd.DataFrame:
    """The papers of a ranking (`similar_to_text`, `similar_papers`), best first, with its `similarity` column."""
    ranked = papers.iloc[ranking["row"].to_numpy()].reset_index(drop=True)
    return ranked.assign(similarity=ranking["similarity"].to_numpy())


@dataclass(frozen=True)
class TermIndex:
    """Which words a free text shares with each paper: the papers' TF-IDF rows over their
    `content_words`, every word kept, rare ones too, whatever the map's embedder."""

    columns: dict[str, int]  # word -> column of `rows`
    idf: np.ndarray  # (n_words,) float64
    rows: sparse.csr_matrix  # one unit row per paper, in `papers.parquet` order

    @classmethod
    def of_papers(cls, papers: pd.DataFrame) -> TermIndex:
        """The index of `papers`' titles and abstracts (`analysis_texts`)."""
        counts, words = word_counts(analysis_texts(papers))
        rows, idf = tfidf_weights(counts)
        return cls({word: column for column, word in enumerate(words)}, idf, rows)

    def cosines(self, text: str) -> np.ndarray:
        """(n_papers,) float64: the TF-IDF cosine of `text` with each paper, 0 where they share no word."""
        used = Counter(self.columns[word] for word in content_words(text) if word in self.columns)
        counts = sparse.csr_matrix(
            (list(used.values()), (np.zeros(len(used), dtype=np.int64), list(used))), shape=(1, len(self.idf))
        )
        query, _ = tfidf_weights(counts, self.idf)
        return self._cosines_with(query)

    def paper_cosines(self, row: int) -> np.ndarray:
        """(n_papers,) float64: the TF-IDF cosine of paper `row` with each paper (1 with itself, unless it has no word)."""
        return self._cosines_with(self.rows[row])

    def _cosines_with(self, unit_row: sparse.csr_matrix) -> np.ndarray:
        return np.asarray((self.rows @ unit_row.T).todense(), dtype=np.float64).ravel()


def similar_to_text(
    vectors: np.ndarray, query_vector: np.ndarray, k: int = 10, term_cosines: np.ndarray | None = None
) -> pd.DataFrame:
    """The `k` rows of `vectors` most similar to a free text, best first: its vector's cosine with
    each, blended with `term_cosines` (`TermIndex.cosines`) when given.

    An embedding blurs a rare word into its common neighbours: a pasted abstract about language
    models that call tools ranks titles about "language model agents" above the few that say "tool
    use". The words themselves find those; `TERM_WEIGHT` of the score is theirs.
    Returns columns `row` (int, a row of `vectors`) and `similarity` (float, -1 to 1); rows with no
    similarity at all (0 or less, e.g. a query with no word the papers use) are left out. Ties keep
    row order, so the ranking is deterministic.
    """
    return _ranked(blended(cosine_similarity(vectors, query_vector), term_cosines), k)


def blended(cosines: np.ndarray, term_cosines: np.ndarray | None, weight: float = TERM_WEIGHT) -> np.ndarray:
    """Embedding `cosines` with `weight` of the score taken from `term_cosines` (`TermIndex`); the
    cosines alone when there are none."""
    if term_cosines is None:
        return cosines
    return (1 - weight) * cosines + weight * term_cosines


def similar_papers(
    vectors: np.ndarray, index: int, k: int = 10, term_cosines: np.ndarray | None = None
) -> pd.DataFrame:
    """The `k` papers most similar to the paper in row `index`, best first, without that paper:
    their vectors' cosine, blended with `term_cosines` (`TermIndex.paper_cosines`) as in
    `similar_to_text` when given; same columns."""
    if not 0 <= index < len(vectors):
        raise IndexError(f"paper row {index} is outside the {len(vectors)} rows of the embeddings")
    scores = blended(cosine_similarity(vectors, vectors[index]), term_cosines)
    scores[index] = -np.inf
    return _ranked(scores, k)


def _ranked(scores: np.ndarray, k: int) -> pd.DataFrame:
    if k < 1:
        raise ValueError(f"k must be at least 1; got {k}")
    order = np.argsort(-scores, kind="stable")[:k]
    order = order[scores[order] > 0]
    return pd.DataFrame({"row": order.astype(np.int64), "similarity": scores[order].astype(np.float64)})


def similarity_reasons(
    papers: pd.DataFrame, paper_id: str, ranked: pd.DataFrame, query_model: Mapping[str, np.ndarray]
) -> list[str]:
    """Why each paper of `ranked` (rows of `papers`) is like paper `paper_id`, as one line each:
    the keyphrases they share, and, on a TF-IDF map, the terms the cosine rests on most
    (`TfidfSvdModel.shared_terms`); "" when neither says anything."""
    row = paper_row(papers, paper_id)
    if row is None or ranked.empty:
        return ["" for _ in range(len(ranked))]
    paper = papers.iloc[row]
    mine = set(paper["keywords"])
    terms: list[list[str]] = [[] for _ in range(len(ranked))]
    if str(query_model.get("embedder", "")) == TfidfSvdEmbedder.name and "terms" in query_model:
        model = TfidfSvdModel.from_arrays(query_model)
        terms = model.shared_terms(analysis_texts(papers.iloc[[row]], papers)[0], analysis_texts(ranked, papers))
    reasons = []
    for keywords, rests_on in zip(ranked["keywords"], terms):
        shared = [k for k in keywords if k in mine][:3]
        parts = [f"shares {', '.join(shared)}" if shared else "", f"rests on {', '.join(rests_on)}" if rests_on else ""]
        reasons.append("; ".join(part for part in parts if part))
    return reasons
