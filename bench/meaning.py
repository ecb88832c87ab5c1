"""Does the map's meaning hold? Neighbours, topics, labels, subfields and keyphrases against what
authors and venues declared, beside plain TF-IDF+SVD and all-MiniLM-L6-v2 in the same run.

    python bench/meaning.py [LIST ...] [--modes abstracts,titles] [--embedders tfidf-svd,minilm] [--cache DIR]
                            [--no-minilm]

Default lists (../shared/data): ijcai2023 (declared areas and author keywords), iclr2018 and
colm2025 (author keywords, abstracts), neurips2023 (author keywords, titles only). icml2024 has a
`keywords` field, but it is empty in all 2,610 records: a list with no gold is skipped with a note.
Each list is measured with abstracts and with titles only where it has abstracts. PaperMap builds
every list from a copy holding only `id`, `title` and `abstract` (blank for titles only), so no
declared area or author keyword reaches it; ijcai2023 is built with data/taxonomy/ijcai2023.yaml,
whose areas are its declared ones, so its subfields are scored zero-shot. `--embedders` builds
PaperMap once per embedder (lib.stages.embed's names; rows "PaperMap (minilm)"); `tfidf-svd/words`
and `tfidf-svd/pairs` are the default embedder over words alone and over words and word pairs;
`tfidf-svd/iterN` the default with N power iterations in its SVD.

Measures, over the papers with gold (a declared area, else author keywords):
- `10-NN`: share of each paper's 10 nearest papers (cosine in the embedding; Euclidean on the 2D
  map) that share its declared area, or, for lists with keywords only, at least one author keyword
  (normalised as bench/keywords.py does). `chance`: the same for 10 random papers.
- `purity` (coarse / fine): share of a topic's papers in its largest declared area, over all papers;
  `AMI`: adjusted mutual information of the coarse topics with the areas. Areas only.
- `label coverage`: median over coarse topics of the share of its papers using its label's phrase
  (bench/topics.py's audit: the phrase, its plural or a variant it accounts for); `lift`: median
  ratio of that share to the share among the other papers; `background`: the largest share of the
  87,691 abstracts of scale_corpus.json containing a coarse label, a measure of how field-wide it is;
  `placeholder`: labels such as "Topic 3".
- `subfields`: zero-shot area accuracy (ijcai2023 only).
- `key F1@5`: exact F1@5 of the papers' keyphrases against the author keywords (bench/keywords.py),
  beside YAKE's where it is installed.

Baselines get the same 2D projection (lib.stages.project) as PaperMap: `TF-IDF+SVD` is scikit-learn's
TfidfVectorizer (English stop words, sublinear tf, min_df 2) and TruncatedSVD to 100 dimensions;
`MiniLM` is the packaged all-MiniLM-L6-v2 (requirements-embed.txt), skipped when not installed.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from keywords import gold_keywords, normalise, scores, yake_baseline
from topics import label_audit

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from lib.builder.pipeline import DEFAULT_TAXONOMY, build  # noqa: E402
from lib.map_folder import EMBEDDINGS_FILE  # noqa: E402
from lib.schema import analysis_texts  # noqa: E402
from lib.stages.embed import Embedder, EmbedderUnavailable, TfidfSvdEmbedder, make_embedder  # noqa: E402
from lib.stages.load import load_papers  # noqa: E402
from lib.stages.project import project  # noqa: E402

SHARED = REPO.parent / "shared" / "data"
DEV_LISTS = ("ijcai2023.json", "iclr2018.json", "colm2025.json", "neurips2023.json")
TAXONOMIES = {"ijcai2023.json": REPO / "data" / "taxonomy" / "ijcai2023.yaml"}
BACKGROUND = SHARED / "scale_corpus.json"
K = 10
PLACEHOLDER = re.compile(r"^(topic|cluster)\s*\d+$", re.IGNORECASE)


@dataclass(frozen=True)
class Gold:
    """What the authors or the venue declared: an area per paper, or keyword sets."""

    areas: np.ndarray | None  # str per paper, "" when undeclared
    keywords: list[set[str]]

    @property
    def labelled(self) -> np.ndarray:
        if self.areas is not None:
            return self.areas != ""
        return np.array([bool(k) for k in self.keywords])

    def agree(self, rows: np.ndarray, neighbours: np.ndarray) -> float:
        """Mean share of `neighbours` (indices, one row per entry of `rows`) agreeing with their row's paper."""
        if self.areas is not None:
            return float((self.areas[neighbours] == self.areas[rows][:, None]).mean())
        keys = self.keywords
        return float(np.mean([[bool(keys[r] & keys[n]) for n in ns] for r, ns in zip(rows, neighbours)]))


def gold_of(papers: pd.DataFrame) -> Gold:
    raw = [[k for k in ks] for ks in papers["author_keywords"]] if "author_keywords" in papers else []
    keywords, _ = gold_keywords(raw) if raw else ([[] for _ in range(len(papers))], False)
    sets = [{normalise(k) for k in ks} - {""} for ks in keywords]
    areas = papers["primary_area"].to_numpy(dtype=str)
    return Gold(areas if (areas != "").any() else None, sets)


def nn_agreement(points: np.ndarray, gold: Gold, metric: str) -> float:
    """Share of each labelled paper's K nearest labelled papers that agree with it (see Gold.agree)."""
    from sklearn.neighbors import NearestNeighbors

    rows = np.flatnonzero(gold.labelled)
    found = NearestNeighbors(n_neighbors=K + 1, metric=metric).fit(points[rows]).kneighbors(return_distance=False)
    return gold.agree(rows, rows[found[:, 1:]])


def chance(gold: Gold, seed: int = 0) -> float:
    rows = np.flatnonzero(gold.labelled)
    rng = np.random.default_rng(seed)
    return gold.agree(rows, rng.choice(rows, size=(len(rows), K)))


def purity(topics: np.ndarray, areas: np.ndarray) -> float:
    labelled = areas != ""
    table = pd.crosstab(topics[labelled], areas[labelled])
    return float(table.max(axis=1).sum() / labelled.sum())


def ami(topics: np.ndarray, areas: np.ndarray) -> float:
    from sklearn.metrics import adjusted_mutual_info_score

    labelled = areas != ""
    return float(adjusted_mutual_info_score(areas[labelled], topics[labelled]))


def plain_tfidf_svd(texts: list[str]) -> np.ndarray:
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.preprocessing import normalize

    counts = TfidfVectorizer(stop_words="english", sublinear_tf=True, min_df=2).fit_transform(texts)
    dims = min(100, counts.shape[1] - 1, len(texts) - 1)
    return normalize(TruncatedSVD(dims, random_state=42).fit_transform(counts))


def minilm(texts: list[str]) -> np.ndarray | None:
    try:
        return np.asarray(make_embedder("sentence-transformers").embed(texts))
    except EmbedderUnavailable:
        return None


class Background:
    """How many of the scale corpus's abstracts use a phrase: what a whole field says, not one topic."""

    def __init__(self, path: Path = BACKGROUND) -> None:
        records = json.loads(path.read_text(encoding="utf-8")) if path.exists() else []
        self.texts = pd.Series([f"{r.get('title', '')} {r.get('abstract', '')}".lower() for r in records])

    def share(self, phrase: str) -> float:
        if self.texts.empty:
            return float("nan")
        pattern = r"\b" + r"\s+".join(re.escape(w) for w in phrase.lower().split()) + r"s?\b"
        return float(self.texts.str.contains(pattern, regex=True).mean())


def label_rows(texts: list[str], topics: np.ndarray, labels: dict[int, str], background: Background) -> dict:
    audit = label_audit(texts, topics, labels)
    shares = [max(background.share(part) for part in row["label"].split(", ")) for row in audit]
    return {
        "label coverage": statistics.median(r["coverage"] for r in audit),
        "lift": statistics.median(r["lift"] for r in audit),
        "background": max(shares) if shares else float("nan"),
        "placeholder": sum(bool(PLACEHOLDER.match(r["label"])) for r in audit),
        "labels": [r["label"] for r in audit],
    }


def scrubbed_copy(papers: pd.DataFrame, titles_only: bool, folder: Path, name: str) -> Path:
    """The list as PaperMap gets it here: id, title and abstract (blank for titles only), nothing declared."""
    records = [
        {"id": pid, "title": title, "abstract": "" if titles_only else abstract}
        for pid, title, abstract in zip(papers["paper_id"], papers["title"], papers["abstract"])
    ]
    path = folder / name
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


def measure(
    path: Path, titles_only: bool, cache: Path, background: Background, use_minilm: bool, embedders: list[str]
) -> list[dict]:
    papers = load_papers(path).papers
    gold = gold_of(papers)
    mode = "titles" if titles_only else "abstracts"
    texts = analysis_texts(papers.assign(abstract="") if titles_only else papers)
    rows = [papermap_row(path, papers, gold, texts, titles_only, cache, background, name) for name in embedders]
    for method, embed in (("TF-IDF+SVD", plain_tfidf_svd), ("MiniLM", minilm if use_minilm else None)):
        baseline = embed(texts) if embed else None
        if baseline is None:
            continue
        coords = project(baseline)
        rows.append(
            {
                "list": path.stem,
                "mode": mode,
                "method": method,
                "10-NN": nn_agreement(baseline, gold, "cosine"),
                "10-NN 2D": nn_agreement(coords, gold, "euclidean"),
            }
        )
    rows.append({"list": path.stem, "mode": mode, "method": "chance", "10-NN": chance(gold)})
    return rows


def papermap_row(
    path: Path,
    papers: pd.DataFrame,
    gold: Gold,
    texts: list[str],
    titles_only: bool,
    cache: Path,
    background: Background,
    embedder: str,
) -> dict:
    """PaperMap's measures on the list, built with `embedder` from the scrubbed copy."""
    with tempfile.TemporaryDirectory() as scratch:
        copy = scrubbed_copy(papers, titles_only, Path(scratch), path.name)
        out = Path(scratch) / "map"
        taxonomy = TAXONOMIES.get(path.name, DEFAULT_TAXONOMY)
        result = build(copy, taxonomy_path=taxonomy, out_dir=out, cache_dir=cache, embedder=bench_embedder(embedder))
        built = result.papers
        vectors = np.load(out / EMBEDDINGS_FILE)
    coords = built[["x", "y"]].to_numpy()
    method = "PaperMap" if embedder == "tfidf-svd" else f"PaperMap ({embedder})"
    row = {"list": path.stem, "mode": "titles" if titles_only else "abstracts", "method": method}
    row |= {"10-NN": nn_agreement(vectors, gold, "cosine"), "10-NN 2D": nn_agreement(coords, gold, "euclidean")}
    if gold.areas is not None:
        topics, fine = built["topic"].to_numpy(), built["topic_fine"].to_numpy()
        row |= {"purity": purity(topics, gold.areas), "purity fine": purity(fine, gold.areas)}
        row |= {"AMI": ami(topics, gold.areas), "topics": int(topics.max()) + 1}
        if path.name in TAXONOMIES:
            labelled = gold.labelled
            row["subfields"] = float((built["inferred_area"].to_numpy()[labelled] == gold.areas[labelled]).mean())
    labels = dict(zip(built["topic"], built["topic_label"]))
    row |= label_rows(texts, built["topic"].to_numpy(), labels, background)
    if any(gold.keywords):
        row["key F1@5"] = scores(list(built["keywords"]), [sorted(k) for k in gold.keywords])["exact F1@5"]
        row["YAKE F1@5"] = yake_f1(texts, gold)
    return row


# `--embedders` names beyond lib.stages.embed's: the default embedder with other terms or fewer SVD
# power iterations, to weigh what word pairs and iterations add to the map against their cost
# (bench/build.py).
VARIANTS: dict[str, dict[str, int]] = {
    "tfidf-svd/words": {"ngram_max": 1},
    "tfidf-svd/pairs": {"ngram_max": 2},
    **{f"tfidf-svd/iter{n}": {"n_iter": n} for n in range(1, 9)},
}


def bench_embedder(name: str) -> Embedder:
    """lib.stages.embed's embedder called `name`, or the default one with the settings `VARIANTS` names."""
    if name in VARIANTS:
        return TfidfSvdEmbedder(**VARIANTS[name])
    return make_embedder(name)


def yake_f1(texts: list[str], gold: Gold) -> float | None:
    try:
        extract = yake_baseline()
    except ImportError:
        return None
    return scores(extract(texts), [sorted(k) for k in gold.keywords])["exact F1@5"]


COLUMNS = (
    "list", "mode", "method", "10-NN", "10-NN 2D", "purity", "purity fine", "AMI", "topics",
    "label coverage", "lift", "background", "placeholder", "subfields", "key F1@5", "YAKE F1@5",
)  # fmt: skip


def markdown(rows: list[dict], columns: tuple[str, ...] = COLUMNS) -> str:
    def cell(value) -> str:
        if value is None or (isinstance(value, float) and np.isnan(value)):
            return "-"
        return f"{value:.3f}" if isinstance(value, float) else str(value)

    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(r.get(c)) for c in columns) + " |" for r in rows]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lists", nargs="*", type=Path, help="paper lists (default: the dev lists in ../shared/data)")
    parser.add_argument("--modes", default="abstracts,titles", help="abstracts, titles or both (default both)")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "papermap_meaning_cache")
    parser.add_argument("--no-minilm", action="store_true", help="leave the MiniLM baseline out")
    parser.add_argument("--embedders", default="tfidf-svd", help="PaperMap's embedders, comma-separated")
    args = parser.parse_args()
    lists = args.lists or [SHARED / name for name in DEV_LISTS]
    missing = [str(p) for p in lists if not p.exists()]
    if missing:
        print(f"error: no such list: {', '.join(missing)}", file=sys.stderr)
        return 2
    background = Background()
    rows = []
    for path in lists:
        papers = load_papers(path).papers
        if not gold_of(papers).labelled.any():
            print(f"{path.name}: no paper has a declared area or author keywords to measure against; skipped\n")
            continue
        has_abstracts = (papers["abstract"] != "").mean() > 0.5
        for mode in args.modes.split(","):
            if mode == "abstracts" and not has_abstracts:
                continue
            measured = measure(
                path, mode == "titles", args.cache, background, not args.no_minilm, args.embedders.split(",")
            )
            rows += measured
            print(markdown(measured), flush=True)
            for row in measured:
                if row.get("labels"):
                    print(f"{path.stem} ({mode}, {row['method']}) coarse labels: {'; '.join(row['labels'])}")
            print(flush=True)
    print(markdown(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
