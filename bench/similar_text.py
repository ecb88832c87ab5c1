"""Does "Similar to this text" find what a pasted abstract is about on a titles-only map?

    python bench/similar_text.py [LIST ...] [--weights 0.5,0.6,0.7] [--embedder tfidf-svd]

For each list with abstracts (default: ijcai2023, colm2025, iclr2018 from ../shared/data), the map is
made from the titles only, as ICML 2025's list is; then each paper's abstract is the query, as a
researcher pastes one. Measures, over all papers:
- `MRR`: mean reciprocal rank of the paper's own title (how surely the text finds its own paper);
  `top 10`: share of queries whose own title ranks in the first ten.
- `agree`: share of the ten best other papers that share the query paper's declared area (ijcai2023)
  or one author keyword (the others), as bench/meaning.py's 10-NN; `chance` for ten random papers.
Rows: `embedding only` is landed main's ranking (the query's cosine in the map's embedding);
`blend w` is `lib.views.search.similar_to_text` with `TermIndex` word cosines weighed `w`.
The weight was chosen on ijcai2023 and colm2025; iclr2018 is the held-out check.
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

LISTS = ("ijcai2023.json", "colm2025.json", "iclr2018.json")
K = 10
COLUMNS = ("list", "method", "MRR", "top 10", "agree")


def rankings(scores: np.ndarray, own: int) -> tuple[float, np.ndarray]:
    """The own paper's reciprocal rank and the K best other rows, ties in row order as the page."""
    order = np.argsort(-scores, kind="stable")
    rank = int(np.flatnonzero(order == own)[0]) + 1
    return 1 / rank, order[order != own][:K]


def measure(path: Path, weights: list[float], embedder: str) -> list[dict]:
    papers, _, name = load(path)
    papers = papers[papers["abstract"].str.strip() != ""].reset_index(drop=True)
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
            scores = (1 - weight) * cosine_similarity(vectors, vector) + weight * words
            rr, others = rankings(scores, own)
            reciprocal.append(rr)
            best.append(others)
        labelled = np.flatnonzero(gold.labelled)
        agree = gold.agree(labelled, np.array(best)[labelled])
        method = "embedding only" if weight == 0 else f"blend {weight:g}"
        rows.append(
            {
                "list": name,
                "method": method,
                "MRR": float(np.mean(reciprocal)),
                "top 10": float(np.mean(np.array(reciprocal) >= 1 / K)),
                "agree": agree,
            }
        )
    rows.append({"list": name, "method": "chance", "agree": chance(gold)})
    return rows


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
    rows = [row for path in paths for row in measure(path, weights, args.embedder)]
    print(markdown(rows, COLUMNS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
