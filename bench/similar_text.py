"""Do "Similar to this text" and a paper's similar papers find what they are about?

    python bench/similar_text.py [LIST ...] [--weights 0.5,0.6,0.7] [--embedder tfidf-svd]

Default lists (../shared/data): ijcai2023, colm2025 (dev), iclr2018 (held out), with abstracts, and
neurips2023 (held out, titles only). Queries:
- `abstract -> titles`: the map is made from the titles only, as ICML 2025's list is, and each
  paper's abstract is pasted as the query. `MRR`: mean reciprocal rank of the paper's own title;
  `top 10`: share of queries whose own title ranks in the first ten.
- `paper -> papers`: each paper's ten most similar other papers, as the Paper page lists them, on
  the list with abstracts and on its titles only.
`agree`: share of the ten best other papers that share the paper's declared area (ijcai2023) or one
author keyword (the others), as bench/meaning.py's 10-NN; `chance` for ten random papers.
Rows: `embedding only` is landed main's ranking (cosine in the map's embedding); `blend w` adds
`lib.views.search.TermIndex`'s word cosines weighed `w` (`similar_to_text`, `similar_papers`).
The weight was chosen on ijcai2023 and colm2025.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from _data import load
from meaning import SHARED, chance, gold_of, markdown

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from lib.neighbours import cosine_similarity  # noqa: E402
from lib.schema import analysis_texts  # noqa: E402
from lib.stages.embed import fit_embed, make_embedder, query_embedder  # noqa: E402
from lib.views import search  # noqa: E402

LISTS = ("ijcai2023.json", "colm2025.json", "iclr2018.json", "neurips2023.json")
K = 10
COLUMNS = ("list", "query", "method", "MRR", "top 10", "agree")


def rankings(scores: np.ndarray, own: int) -> tuple[float, np.ndarray]:
    """The own paper's reciprocal rank and the K best other rows, ties in row order as the page."""
    order = np.argsort(-scores, kind="stable")
    rank = int(np.flatnonzero(order == own)[0]) + 1
    return 1 / rank, order[order != own][:K]


def text_queries(path: Path, weights: list[float], embedder: str) -> list[dict]:
    """Each paper's abstract pasted against the list's titles."""
    papers, _, name = load(path)
    papers = papers[papers["abstract"].str.strip() != ""].reset_index(drop=True)
    if papers.empty:
        return []
    gold = gold_of(papers)
    titles = papers.assign(abstract="")
    vectors, query_model = fit_embed(make_embedder(embedder), analysis_texts(titles))
    queries = list(papers["abstract"])
    query_vectors = query_embedder(query_model).embed(queries)
    terms = search.TermIndex.of_papers(titles)
    term_cosines = [terms.cosines(text) for text in queries]
    rows = []
    for weight in [0.0, *weights]:
        reciprocal, best = [], []
        for own, (vector, words) in enumerate(zip(query_vectors, term_cosines)):
            rr, others = rankings(search.blended(cosine_similarity(vectors, vector), words, weight), own)
            reciprocal.append(rr)
            best.append(others)
        labelled = np.flatnonzero(gold.labelled)
        reciprocal = np.array(reciprocal)
        row = {"list": name, "query": "abstract -> titles", "method": method_name(weight), "MRR": reciprocal.mean()}
        rows.append(
            row | {"top 10": (reciprocal >= 1 / K).mean(), "agree": gold.agree(labelled, np.array(best)[labelled])}
        )
    return rows + [{"list": name, "query": "abstract -> titles", "method": "chance", "agree": chance(gold)}]


def paper_queries(path: Path, weights: list[float], embedder: str, titles_only: bool) -> list[dict]:
    """Each paper's ten most similar papers (the Paper page's list), titles only or with abstracts."""
    papers, _, name = load(path)
    if not titles_only and not (papers["abstract"].str.strip() != "").any():
        return []
    listed = papers.assign(abstract="") if titles_only else papers
    gold = gold_of(papers)
    vectors, _ = fit_embed(make_embedder(embedder), analysis_texts(listed))
    terms = search.TermIndex.of_papers(listed)
    labelled = np.flatnonzero(gold.labelled)
    query = "paper -> papers" + (" (titles)" if titles_only else "")
    rows = []
    for weight in [0.0, *weights]:
        best = [
            rankings(search.blended(cosine_similarity(vectors, vectors[own]), terms.paper_cosines(own), weight), own)[1]
            for own in labelled
        ]
        rows.append(
            {"list": name, "query": query, "method": method_name(weight), "agree": gold.agree(labelled, np.array(best))}
        )
    return rows


def method_name(weight: float) -> str:
    return "embedding only" if weight == 0 else f"blend {weight:g}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "lists", nargs="*", type=Path, help="paper lists with abstracts (default: three in ../shared/data)"
    )
    parser.add_argument("--weights", default=f"0.5,{search.TERM_WEIGHT:g},0.8", help="word weights to try")
    parser.add_argument("--embedder", default="tfidf-svd", help="the map's embedder (lib.stages.embed's names)")
    args = parser.parse_args()
    paths = args.lists or [SHARED / name for name in LISTS]
    weights = sorted({float(w) for w in args.weights.split(",")})
    rows = []
    for path in paths:
        rows += text_queries(path, weights, args.embedder)
        for titles_only in (False, True):
            rows += paper_queries(path, weights, args.embedder, titles_only)
    print(markdown(rows, COLUMNS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
