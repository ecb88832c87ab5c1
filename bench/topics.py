"""Topic quality on one paper list: PaperMap's two levels beside BERTopic's topics on the same vectors.

    python bench/topics.py DATA.json [--sample N] [--seed 0] [--labels 15] [--runs 3] [--embedder tfidf-svd]

Both get the same vectors: TF-IDF + SVD (lib.stages.embed's default) unless --embedder says otherwise.
PaperMap clusters its 2D map (lib.stages.project's UMAP); BERTopic runs its own pipeline on those vectors
(UMAP to 5 dimensions with a fixed seed, HDBSCAN, c-TF-IDF labels from a stop-word
CountVectorizer) as documented, then as its docs suggest for outliers (`reduce_outliers` by
embeddings) and for fewer topics (`reduce_topics` to PaperMap's coarse count).

Then, per PaperMap topic (`--audit` of them, largest first, every coarse topic by default), its label
beside the c-TF-IDF words BERTopic's formula gives the same papers, the label's coverage
(share of the topic's papers using the label's phrase or a close variant: its plural, a phrase holding
it, or a distinctive phrase inside it that the label accounts for at least half the uses of), the
coverage of the topic's commonest distinctive theme (the most used phrase at least twice as common
in the topic as in the rest, naming a thing, not a whole-field phrase), the label's lift, and the
rules it breaks: `comma` (two phrases joined that most of the topic's papers do not both use),
`generic` (a whole-field phrase, "machine learning", "models", "AI", "data", "training", unless most of the topic's
papers use it, at most 5% of the rest do and its region holds most of the papers that do), `vague`
(one word, "Inference", "Networks", used by more papers than sqrt(n), a fine topic's typical size,
most of them outside the topic's region: a word many parts of the map use names none of them),
`loses` (a lower coverage than the commonest theme, which is itself neither generic nor vague; marked
"another label" where that theme is the label of a topic more of whose papers use it, so labels being
distinct is why this one could not have it).
A topic's region is the topic at the coarse level and the coarse topic holding it at the fine level.
A table of the counts of labels breaking each rule, coarse and fine, ends the audit.
`--audit-only` skips BERTopic's runs.

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
from lib.stages.phrases import GENERIC_WORDS, candidate_phrases, singular
from lib.stages.project import project
from lib.stages.topic_labels import PhraseUse, dense_row, label_levels
from lib.stages.topics import find_topics

SEED = 42
BROAD_SHARE = 0.10  # a word in over a tenth of all papers ("learning", "models") says little on its own
# The audit's own judgement (not lib's): distinctive = used this many times more in the topic than in the rest.
AUDIT_LIFT = 2.0
AUDIT_FIELD_WORDS = frozenset(
    "machine learning deep neural network networks model models ai artificial intelligence research "
    "method methods approach approaches data dataset datasets algorithm algorithms analysis training".split()
)
RULES = ("comma", "generic", "vague", "loses")


def _is_field(phrase: str) -> bool:
    return all(w in AUDIT_FIELD_WORDS for w in phrase.lower().replace("-", " ").split())


def _sub_phrases(phrase: str) -> list[str]:
    """The phrases inside `phrase`: its runs of words, and the parts of a hyphenated word ("long-context": "context")."""
    words = phrase.lower().split()
    runs = [" ".join(words[i:j]) for i in range(len(words)) for j in range(i + 1, len(words) + 1)]
    return runs + [part for word in words if "-" in word for part in word.split("-")]


def c_tf_idf_words(texts: list[str], topics: np.ndarray, top: int = 4) -> dict[int, str]:
    """Per topic, the `top` words of BERTopic's c-TF-IDF (tf per class x log(1 + mean words per class / word's
    frequency)) from a stop-word CountVectorizer, as BERTopic labels topics; no BERTopic needed."""
    from sklearn.feature_extraction.text import CountVectorizer

    ids = sorted(set(int(t) for t in topics))
    docs = [" ".join(t for t, k in zip(texts, topics) if k == i) for i in ids]
    counter = CountVectorizer(stop_words="english")
    counts = counter.fit_transform(docs).toarray().astype(float)
    tf = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1)
    idf = np.log(1 + counts.sum(axis=1).mean() / np.maximum(counts.sum(axis=0), 1))
    words = counter.get_feature_names_out()
    return {i: " ".join(words[j] for j in np.argsort(-(tf * idf)[r])[:top]) for r, i in enumerate(ids)}


def _label_columns(
    parts: list[str], part_cols: list[int | None], column: dict[str, int], distinct: np.ndarray, users: np.ndarray
) -> list[int]:
    """The phrase columns that count as a label's: each part's own, and the distinctive phrases
    inside a part that mostly mean it here (the part used by at least half as many papers)."""
    variant_cols = set()
    for part, col in zip(parts, part_cols):
        if col is None:
            continue
        variant_cols.add(col)
        for sub in _sub_phrases(part):
            c = column.get(singular(sub))
            if c is not None and distinct[c] and 2 * users[col] >= users[c] and not _is_field(sub):
                variant_cols.add(c)
    return sorted(variant_cols)


def label_audit(
    texts: list[str], topics: np.ndarray, labels: dict[int, str], regions: np.ndarray | None = None
) -> list[dict]:
    """Per topic, largest first: its label, coverage, lift, commonest distinctive theme and the rules it breaks.

    `regions` (the coarse topics, when auditing fine ones) give each topic's region; by default the topic."""
    use = PhraseUse(texts)
    topic_ids, sizes, per_topic = use.by_topic(topics)
    totals = np.asarray(per_topic.sum(axis=0)).ravel()
    column = {k: i for i, k in enumerate(use.keys)}
    one_word = np.array([" " not in k for k in use.keys], dtype=bool)
    common = totals > np.sqrt(len(texts))
    if regions is not None:
        region_ids, _, per_region = use.by_topic(regions)
    rows = []
    for r, topic in enumerate(topic_ids):
        size, users = sizes[r], dense_row(per_topic, r)
        rest = max(len(texts) - size, 0)
        lift = (users / size) / ((totals - users + 1) / (rest + 1))
        if regions is None:
            region_users = users
        else:
            region = np.bincount(regions[topics == topic]).argmax()
            region_users = dense_row(per_region, region_ids.index(int(region)))
        owned = 2 * region_users > totals
        vague = one_word & common & ~owned
        distinct = (lift >= AUDIT_LIFT) & (users >= min(2, size))
        in_topic = use.used[np.flatnonzero(topics == topic)] if use.used is not None else None
        parts = labels[topic].split(", ")
        part_cols = [column.get(singular(p.lower())) for p in parts]
        cols = _label_columns(parts, part_cols, column, distinct, users)
        coverage = float(in_topic[:, cols].max(axis=1).toarray().mean()) if cols and in_topic is not None else 0.0
        themes = [c for c in np.flatnonzero(distinct & use.nameable & ~vague) if not _is_field(use.keys[c])]
        theme = max(themes, key=lambda c: (users[c], lift[c]), default=None)
        theme_cov = float(users[theme] / size) if theme is not None else 0.0
        known = [c for c in part_cols if c is not None]
        both = (
            float((in_topic[:, known].sum(axis=1) == len(known)).mean())
            if len(known) > 1 and in_topic is not None
            else 1.0
        )
        breaks = []
        if len(parts) > 1 and both <= 0.5:
            breaks.append("comma")
        if any(
            _is_field(p)
            and not (
                c is not None and users[c] / size > 0.5 and (totals[c] - users[c]) / max(rest, 1) <= 0.05 and owned[c]
            )
            for p, c in zip(parts, part_cols)
        ):
            breaks.append("generic")
        if any(c is not None and vague[c] and not _is_field(p) for p, c in zip(parts, part_cols)):
            breaks.append("vague")
        if coverage < theme_cov:
            breaks.append("loses")
        rows.append(
            {
                "topic": topic,
                "papers": int(size),
                "label": labels[topic],
                "coverage": coverage,
                "lift": float(lift[part_cols[0]]) if part_cols[0] is not None else 0.0,
                "theme": use.shown[theme] if theme is not None else "",
                "theme coverage": theme_cov,
                "breaks": breaks,
            }
        )
    # A label loses to a theme it could not have: another topic's label, where more of the papers use it.
    labelled = {singular(r["label"].lower()): r for r in rows}
    for r in rows:
        holder = labelled.get(singular(r["theme"].lower()))
        r["theme taken"] = (
            "loses" in r["breaks"]
            and holder is not None
            and holder is not r
            and holder["coverage"] >= r["theme coverage"]
        )
    return sorted(rows, key=lambda row: -row["papers"])


def print_audit(
    level: str,
    texts: list[str],
    topics: np.ndarray,
    labels: dict[int, str],
    limit: int | None,
    regions: np.ndarray | None = None,
) -> dict[str, int]:
    """Print the audit of one level's labels; return the counts of labels breaking each rule (and `any`, `topics`)."""
    audit = label_audit(texts, topics, labels, regions)
    words = c_tf_idf_words(texts, topics)
    print(f"\n### {level} labels audited ({len(audit)} topics)\n")
    print("| papers | label | coverage | lift | commonest theme (coverage) | c-TF-IDF words | breaks |")
    print("|---:|---|---:|---:|---|---|---|")
    for a in audit[:limit]:
        print(
            f"| {a['papers']} | {a['label']} | {a['coverage']:.0%} | {a['lift']:.1f} | {a['theme']} "
            f"({a['theme coverage']:.0%}{', another label' if a['theme taken'] else ''}) | {words[a['topic']]} | "
            f"{', '.join(a['breaks']) or '-'} |"
        )
    counts = {rule: sum(rule in a["breaks"] for a in audit) for rule in RULES}
    print(
        f"\n{level}: {sum(bool(a['breaks']) for a in audit)} of {len(audit)} labels break a rule "
        f"({', '.join(f'{rule} {counts[rule]}' for rule in RULES)}; of the losing ones, "
        f"{sum(a['theme taken'] for a in audit)} lose to a theme that is another topic's label, held by more of its papers); "
        f"median coverage {np.median([a['coverage'] for a in audit]):.0%} vs commonest theme "
        f"{np.median([a['theme coverage'] for a in audit]):.0%}"
    )
    return {
        "topics": len(audit),
        **counts,
        "taken": sum(a["theme taken"] for a in audit),
        "any": sum(bool(a["breaks"]) for a in audit),
    }


def print_rule_counts(name: str, counts: dict[str, dict[str, int]]) -> None:
    """The table of labels breaking each rule, one row per level."""
    print(f"\n### Labels breaking each rule: {name}\n")
    print("| level | topics | " + " | ".join(RULES) + " | of which loses to another label | any rule |")
    print("|---|---:|" + "---:|" * (len(RULES) + 2))
    for level, c in counts.items():
        print(
            f"| {level} | {c['topics']} | "
            + " | ".join(str(c[rule]) for rule in RULES)
            + f" | {c['taken']} | {c['any']} |"
        )


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
    parser.add_argument("--audit", type=int, default=None, help="list this many topics per level in the label audit")
    parser.add_argument("--audit-only", action="store_true", help="print the label audit only, without BERTopic")
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
    if args.audit_only:
        print(f"## Label audit: {name}, {len(papers):,} papers")
        counts = {
            "coarse": print_audit("PaperMap coarse", texts, levels.coarse, coarse_labels, args.audit),
            "fine": print_audit("PaperMap fine", texts, levels.fine, fine_labels, args.audit or 15, levels.coarse),
        }
        print_rule_counts(name, counts)
        return

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
    counts = {
        "coarse": print_audit("PaperMap coarse", texts, levels.coarse, coarse_labels, args.audit),
        "fine": print_audit("PaperMap fine", texts, levels.fine, fine_labels, args.audit or args.labels, levels.coarse),
    }
    print_rule_counts(name, counts)


if __name__ == "__main__":
    main()
