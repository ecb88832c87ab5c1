"""Area accuracy and macro-F1 of PaperMap's subfields against a list's `primary_area`, beside baselines.

    python bench/subfields.py DATA.json TAXONOMY

The taxonomy's top-level names must be the list's `primary_area` values; each paper's `area` is
compared with its label by name. Papers with a blank `primary_area` are unlabelled: they are part
of the corpus every method sees but are not scored. Every method classifies from title and
abstract only: the label, the author keywords (IJCAI's start with the area name) and every other
field are dropped first.

Rows, all in the same run on the same texts:
- PaperMap, with the taxonomy as given and with its `terms` removed (names and descriptions only),
  and, as an ablation, its own-words step alone (no corpus profiles, no neighbours);
- majority class (the most frequent label; it needs the labels);
- nearest area description: TF-IDF + SVD fitted on the papers' texts, each area's name and
  description projected into the same space, the nearest by cosine (with and without terms);
- supervised reference: logistic regression over TF-IDF, 5-fold cross-validation on the labels.

Everything runs on one BLAS thread, as PaperMap's neighbour graph does, so the seconds compare.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, f1_score
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import normalize
from threadpoolctl import threadpool_limits

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from lib.builder.pipeline import BuildParams  # noqa: E402
from lib.errors import PaperMapError  # noqa: E402
from lib.schema import analysis_texts  # noqa: E402
from lib.stages.load import load_papers  # noqa: E402
from lib.stages.subfields import assign_subfields  # noqa: E402
from lib.stages.taxonomy import Taxonomy, load_taxonomy  # noqa: E402


def blind_texts(papers: pd.DataFrame) -> list[str]:
    """Title and abstract only: nothing that carries the label reaches a classifier."""
    return analysis_texts(papers[["title", "title_is_derived", "abstract"]])


def without_terms(taxonomy: Taxonomy) -> Taxonomy:
    return Taxonomy(taxonomy.name, tuple(replace(e, terms=()) for e in taxonomy.entries))


def papermap(texts: list[str], taxonomy: Taxonomy, **options) -> pd.DataFrame:
    params = BuildParams()
    return assign_subfields(texts, taxonomy, params.subfield_min_score, random_state=params.random_state, **options)


def nearest_description(texts: list[str], taxonomy: Taxonomy, with_terms: bool, random_state: int = 42) -> np.ndarray:
    """Each paper's nearest area (name + description [+ terms]) by cosine in the papers' TF-IDF + SVD space."""
    vectorizer = TfidfVectorizer(stop_words="english", ngram_range=(1, 2), sublinear_tf=True, min_df=2, max_df=0.5)
    svd = TruncatedSVD(n_components=min(128, len(texts) - 1), random_state=random_state)
    papers = normalize(svd.fit_transform(vectorizer.fit_transform(texts)))
    areas = taxonomy.children(None)
    descriptions = [" . ".join([a.name, a.description, *(a.terms if with_terms else ())]) for a in areas]
    centres = normalize(svd.transform(vectorizer.transform(descriptions)))
    return np.array([a.name for a in areas])[(papers @ centres.T).argmax(axis=1)]


def supervised(texts: list[str], labels: np.ndarray, folds: int = 5) -> np.ndarray:
    """Out-of-fold predictions of TF-IDF + logistic regression trained on the labels (a reference, not zero-shot)."""
    model = make_pipeline(
        TfidfVectorizer(stop_words="english", ngram_range=(1, 2), sublinear_tf=True, min_df=2),
        LogisticRegression(C=10.0, max_iter=2000),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # classes with fewer papers than folds
        return cross_val_predict(model, texts, labels, cv=StratifiedKFold(folds, shuffle=True, random_state=0))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "data", type=Path, help="paper list with a primary_area field, e.g. ../shared/data/ijcai2023.json"
    )
    parser.add_argument("taxonomy", type=Path, help="taxonomy whose top-level names are the list's primary areas")
    args = parser.parse_args()
    try:
        papers = load_papers(args.data).papers
        taxonomy = load_taxonomy(args.taxonomy)
    except PaperMapError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    labels = papers["primary_area"].to_numpy(dtype=str)
    labelled = labels != ""
    areas = {a.name for a in taxonomy.children(None)}
    if not labelled.any():
        print(f"error: {args.data.name}: no paper has a primary_area to score against", file=sys.stderr)
        return 2
    found = {str(label) for label in labels[labelled]}
    if found != areas:
        missing, extra = sorted(found - areas), sorted(areas - found)
        print(
            f"error: the taxonomy's areas must be the list's primary areas; not in the taxonomy: {missing}, "
            f"not in the list: {extra}",
            file=sys.stderr,
        )
        return 2
    texts = blind_texts(papers)
    truth = labels[labelled]

    rows = []

    def row(method: str, predicted: np.ndarray, seconds: float | None = None, note: str = "") -> None:
        guess = predicted[labelled]
        rows.append(
            (
                method,
                accuracy_score(truth, guess),
                f1_score(truth, guess, average="macro", zero_division=0),
                seconds,
                note,
            )
        )

    results = {}
    for name, tax in (
        ("PaperMap (names, descriptions, terms)", taxonomy),
        ("PaperMap (names, descriptions only)", without_terms(taxonomy)),
    ):
        start = time.perf_counter()
        result = papermap(texts, tax)
        seconds = time.perf_counter() - start
        confident = result["subfield_confident"].to_numpy()[labelled]
        right = result["area"].to_numpy()[labelled] == truth
        results[name] = result
        row(
            name,
            result["area"].to_numpy(),
            seconds,
            f"confident on {confident.mean():.0%}: accuracy {right[confident].mean():.3f} there, {right[~confident].mean():.3f} elsewhere",
        )
    start = time.perf_counter()
    own_words = papermap(
        texts, taxonomy, min_papers=len(texts) + 1
    )  # as if the list were too small for the corpus stage
    row(
        "PaperMap, own words only (no profiles, no neighbours)",
        own_words["area"].to_numpy(),
        time.perf_counter() - start,
        "ablation: step 1 alone, the taxonomy as given",
    )
    values, counts = np.unique(truth, return_counts=True)
    row(
        "Majority class", np.full(len(labels), values[counts.argmax()]), note=f"always {str(values[counts.argmax()])!r}"
    )
    for with_terms in (False, True):
        start = time.perf_counter()
        predicted = nearest_description(texts, taxonomy, with_terms)
        row(
            f"Nearest area description, TF-IDF+SVD ({'with terms' if with_terms else 'descriptions only'})",
            predicted,
            time.perf_counter() - start,
        )
    start = time.perf_counter()
    reference = np.full(len(labels), "", dtype=object)
    reference[labelled] = supervised([t for t, keep in zip(texts, labelled) if keep], truth)
    row(
        "Reference: supervised logistic regression, TF-IDF, 5-fold CV",
        reference.astype(str),
        time.perf_counter() - start,
        "trained on the labels: context, not a baseline",
    )

    print(f"## Subfields: {args.data.name} against primary_area, taxonomy {args.taxonomy.name}\n")
    print(
        f"{len(papers):,} papers, {labelled.sum():,} labelled in {len(areas)} areas; classified from title + abstract only "
        "(primary_area, keywords and all other fields dropped).\n"
    )
    print("| method | accuracy | macro-F1 | seconds | note |")
    print("|---|---:|---:|---:|---|")
    for method, accuracy, f1, seconds, note in rows:
        print(f"| {method} | {accuracy:.3f} | {f1:.3f} | {'' if seconds is None else f'{seconds:.1f}'} | {note} |")
    n_terms = sum(len(e.terms) for e in taxonomy.entries)
    print(
        f"\nThe taxonomy has {len(taxonomy.entries)} entries and {n_terms} terms; 'descriptions only' removes every term. "
        "Terms and descriptions are written by hand (for the shipped IJCAI 2023 file: from general knowledge "
        "of each field, not from the papers)."
    )
    _child_agreement(papers, results["PaperMap (names, descriptions, terms)"], labelled)
    return 0


def _child_agreement(papers: pd.DataFrame, result: pd.DataFrame, labelled: np.ndarray) -> None:
    """Where author keywords name sub-areas as `Area: Sub-area` (IJCAI), how often a child subfield is the first one."""
    first = np.array([k[0].split(": ", 1)[1] if k and ": " in k[0] else "" for k in papers["author_keywords"]])
    child = (result["subfield"] != result["area"]).to_numpy() & labelled
    if not child.any() or not np.isin(result["subfield"].to_numpy()[child], first).any():
        return
    same = result["subfield"].to_numpy()[child] == first[child]
    print(
        f"Sub-area check (keywords used only here, after classifying): {child.sum() / labelled.sum():.0%} of labelled "
        f"papers get a child subfield; it is the paper's first listed sub-area for {same.mean():.0%} of them."
    )


if __name__ == "__main__":
    with threadpool_limits(limits=1, user_api="blas"):
        status = main()
    sys.exit(status)
