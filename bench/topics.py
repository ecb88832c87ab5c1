"""Topic quality on one paper list: PaperMap's two levels beside BERTopic's topics on the same vectors.

    python bench/topics.py DATA.json [--sample N] [--seed 0] [--labels 15] [--runs 3] [--embedder tfidf-svd]

Both get the same vectors: TF-IDF + SVD (lib.stages.embed's default) unless --embedder says otherwise.
PaperMap clusters its 2D map (lib.stages.project's UMAP); BERTopic runs its own pipeline on those vectors
(UMAP to 5 dimensions with a fixed seed, HDBSCAN, c-TF-IDF labels from a stop-word
CountVectorizer) as documented, then as its docs suggest for outliers (`reduce_outliers` by
embeddings) and for fewer topics (`reduce_topics` to PaperMap's coarse count).

Printed: topic counts and sizes, the share left in BERTopic's outlier topic -1 (PaperMap has
none; it marks its strays), label distinctness (unique labels / topics), labels holding a generic
word (lib.stages.phrases.GENERIC_WORDS) or only broad words (each used by over 10% of papers), and
adjusted mutual information with `primary_area` over the labelled papers where the list has
areas (BERTopic's -1 counts as one cluster, as it is one).
With --runs R, both methods run again with R - 1 other seeds (UMAP's and the clusterings'; the
vectors stay) and the AMI column shows the mean and the range over the R runs: differences
smaller than that range are noise. The other columns are from the first run (seed 42).
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from _data import area_labels, load

from lib.stages.embed import EMBEDDERS, make_embedder
from lib.stages.phrases import GENERIC_WORDS, candidate_phrases
from lib.stages.project import project
from lib.stages.topic_labels import label_levels
from lib.stages.topics import find_topics

SEED = 42
BROAD_SHARE = 0.10  # a word in over a tenth of all papers ("learning", "models") says little on its own


def label_words(label: str) -> list[str]:
    return [w for w in label.lower().replace(",", " ").split() if w]


def corpus_word_share(texts: list[str]) -> dict[str, float]:
    from collections import Counter

    counts: Counter = Counter()
    for text in texts:
        counts.update({w for phrase in candidate_phrases(text) for w in phrase.split()})
    return {w: c / len(texts) for w, c in counts.items()}


def ami(truth, topics) -> float:
    from sklearn.metrics import adjusted_mutual_info_score

    return float(adjusted_mutual_info_score(truth, topics))


def row(
    method: str,
    topics: np.ndarray,
    labels: dict[int, str],
    areas: pd.Series | None,
    shares: dict[str, float],
    seconds: float,
    outlier: int | None = None,
    marked: np.ndarray | None = None,
) -> dict:
    ids = sorted(set(int(t) for t in topics) - ({outlier} if outlier is not None else set()))
    sizes = np.array([(topics == t).sum() for t in ids])
    names = [labels[t] for t in ids]
    words = [label_words(n) for n in names]
    result = {
        "method": method,
        "topics": len(ids),
        "min / median / max size": f"{sizes.min()} / {int(np.median(sizes))} / {sizes.max()}",
        "largest": f"{sizes.max() / len(topics):.1%}",
        "outlier bucket": f"{(topics == outlier).mean():.1%}" if outlier is not None else "none",
        "marked nearest": f"{marked.mean():.1%}" if marked is not None else "-",
        "unique labels / topics": f"{len(set(n.lower() for n in names)) / len(ids):.2f}",
        "labels with a generic word": sum(any(w in GENERIC_WORDS for w in ws) for ws in words),
        "labels of broad words only": sum(all(shares.get(w, 0) > BROAD_SHARE for w in ws) for ws in words),
        "words per label": f"{np.mean([len(ws) for ws in words]):.1f}",
        "AMI with primary_area": "-",
        "seconds": f"{seconds:.1f}",
    }
    if areas is not None:
        labelled = (areas != "").to_numpy()
        result["AMI with primary_area"] = f"{ami(areas[labelled], topics[labelled]):.3f}"
    return result


def bertopic_runs(texts: list[str], vectors: np.ndarray, n_coarse: int, seed: int = SEED):
    """(name, topics, labels, outlier id, seconds) for BERTopic as documented, then with its outlier and topic reductions."""
    try:
        from bertopic import BERTopic
    except ImportError:
        if seed == SEED:
            print("\nBERTopic is not installed (pip install -r requirements-bench.txt): its rows are left out.\n")
        return []
    from sklearn.feature_extraction.text import CountVectorizer
    from umap import UMAP

    def labels_of(model) -> dict[int, str]:
        names = model.generate_topic_labels(nr_words=3, separator=" ", topic_prefix=False)
        return dict(zip(sorted(model.get_topics()), names))

    start = time.perf_counter()
    model = BERTopic(
        embedding_model=None,
        umap_model=UMAP(n_neighbors=15, n_components=5, min_dist=0.0, metric="cosine", random_state=seed),
        vectorizer_model=CountVectorizer(stop_words="english"),
    )
    topics, _ = model.fit_transform(texts, embeddings=vectors)
    topics = np.asarray(topics)
    fit_seconds = time.perf_counter() - start
    runs = [("BERTopic", topics, labels_of(model), -1, fit_seconds)]

    start = time.perf_counter()
    if (topics == -1).any():  # reduce_outliers refuses a fit that left none
        reassigned = np.asarray(model.reduce_outliers(texts, list(topics), strategy="embeddings", embeddings=vectors))
    else:
        reassigned = topics
    runs.append(
        ("BERTopic + reduce_outliers", reassigned, labels_of(model), -1, fit_seconds + time.perf_counter() - start)
    )

    start = time.perf_counter()
    model.reduce_topics(texts, nr_topics=n_coarse + 1)  # +1: the outlier topic counts as one
    runs.append(
        (
            f"BERTopic reduce_topics({n_coarse + 1})",
            np.asarray(model.topics_),
            labels_of(model),
            -1,
            fit_seconds + time.perf_counter() - start,
        )
    )
    return runs


def markdown(rows: list[dict]) -> str:
    columns = list(rows[0])
    lines = [
        "| " + " | ".join(columns) + " |",
        "|" + "|".join("---" if c == "method" else "---:" for c in columns) + "|",
    ]
    lines += ["| " + " | ".join(str(r[c]) for c in columns) + " |" for r in rows]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--sample", type=int, default=None, help="use a seeded sample of this many papers")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--labels", type=int, default=15, help="how many labels of each level to list")
    parser.add_argument("--runs", type=int, default=3, help="seeds to run each method with, for the AMI's spread")
    parser.add_argument("--embedder", choices=EMBEDDERS, default="tfidf-svd", help="the vectors both methods get")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", message=".*n_jobs value 1 overridden.*")

    papers, texts, name = load(args.data, args.sample, args.seed)
    areas = area_labels(papers)
    start = time.perf_counter()
    embedder = make_embedder(args.embedder, random_state=SEED)
    vectors = embedder.embed(texts)
    coords = project(vectors, random_state=SEED)
    shared_seconds = time.perf_counter() - start
    start = time.perf_counter()
    levels = find_topics(coords, random_state=SEED)
    coarse_labels, fine_labels = label_levels(levels, texts)
    seconds = time.perf_counter() - start
    shares = corpus_word_share(texts)

    print(
        f"## Topics: {name}, {len(papers):,} papers"
        + (
            f", {int((areas != '').sum()):,} with a primary_area in {areas[areas != ''].nunique()} areas"
            if areas is not None
            else ", no primary_area"
        )
    )
    print(
        f"\n{embedder.name} vectors shared by every row (embedding and PaperMap's UMAP map: {shared_seconds:.1f} s, not counted below).\n"
    )
    rows = [
        row("PaperMap coarse", levels.coarse, coarse_labels, areas, shares, seconds, marked=levels.assigned_nearest),
        row("PaperMap fine", levels.fine, fine_labels, areas, shares, seconds, marked=levels.assigned_nearest),
    ]
    runs = bertopic_runs(texts, vectors, len(coarse_labels))
    rows += [
        row(method, topics, labels, areas, shares, secs, outlier=outlier)
        for method, topics, labels, outlier, secs in runs
    ]
    if areas is not None and args.runs > 1:
        labelled = (areas != "").to_numpy()
        scores = {r["method"]: [float(r["AMI with primary_area"])] for r in rows}
        for seed in range(SEED + 1, SEED + args.runs):
            other = find_topics(project(vectors, random_state=seed), random_state=seed)
            scores["PaperMap coarse"].append(ami(areas[labelled], other.coarse[labelled]))
            scores["PaperMap fine"].append(ami(areas[labelled], other.fine[labelled]))
            for method, topics, _, _, _ in bertopic_runs(texts, vectors, len(coarse_labels), seed):
                scores[method].append(ami(areas[labelled], topics[labelled]))
        for r in rows:
            values = scores[r["method"]]
            r["AMI with primary_area"] = f"{np.mean(values):.3f} ({min(values):.3f}-{max(values):.3f})"
    print(markdown(rows))
    parents = pd.Series(levels.coarse).groupby(levels.fine).nunique()
    print(f"\nPaperMap's levels nest: {bool((parents == 1).all())} (every fine topic inside one coarse topic).")

    print(f"\n### Largest topics and their labels (up to {args.labels} per method)\n")
    listing = {
        "PaperMap coarse": (levels.coarse, coarse_labels, None),
        "PaperMap fine": (levels.fine, fine_labels, None),
    }
    listing.update({method: (topics, labels, outlier) for method, topics, labels, outlier, _ in runs[:1] + runs[2:]})
    columns = {}
    for method, (topics, labels, outlier) in listing.items():
        counts = pd.Series(topics)[pd.Series(topics) != outlier].value_counts()
        columns[method] = [f"{labels[int(t)]} ({n})" for t, n in counts.head(args.labels).items()]
    depth = max(len(c) for c in columns.values())
    print("| # | " + " | ".join(columns) + " |")
    print("|---:|" + "|".join("---" for _ in columns) + "|")
    for i in range(depth):
        print(f"| {i + 1} | " + " | ".join(c[i] if i < len(c) else "" for c in columns.values()) + " |")


if __name__ == "__main__":
    main()
