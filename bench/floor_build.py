"""The floor of a build: read a JSON paper list and compute TF-IDF + SVD-128 vectors, nothing else.

    python bench/floor_build.py LIST.json [--ngram-max N]

Run by bench/build.py as a fresh process. It does what any map of the list must do at least, with
lib.stages.embed.TfidfSvdEmbedder's settings (tests/test_bench_build.py checks they match), and imports
nothing from lib. `--ngram-max 1` is the plain floor (TF-IDF over words), 2 adds word pairs; the
default is PaperMap's own (`NGRAM_MAX`). Prints one JSON line: the seconds of each step after
interpreter start-up.
"""

from __future__ import annotations

import json
import sys
import time

START = time.perf_counter()

import numpy as np  # noqa: E402
from sklearn.decomposition import TruncatedSVD  # noqa: E402
from sklearn.feature_extraction.text import TfidfVectorizer  # noqa: E402
from sklearn.preprocessing import normalize  # noqa: E402

TFIDF_SETTINGS = {"stop_words": "english", "sublinear_tf": True, "dtype": np.float32}
NGRAM_MAX = 2  # the longest terms PaperMap's default embedder uses, in words
N_COMPONENTS = 128
RANDOM_STATE = 42


def read_texts(path: str) -> list[str]:
    """Each record's "title. abstract", or its title alone, as PaperMap analyses it."""
    with open(path, encoding="utf-8") as handle:
        records = json.load(handle)
    texts = []
    for record in records:
        title, abstract = (record.get("title") or "").strip(), (record.get("abstract") or "").strip()
        texts.append(f"{title}. {abstract}".strip(". ") if abstract else title)
    return texts


def embed(texts: list[str], ngram_max: int = NGRAM_MAX) -> np.ndarray:
    """L2-normalised TF-IDF + SVD-128 rows (float32), as lib.stages.embed.TfidfSvdEmbedder makes them."""
    big = len(texts) >= 50
    vectorizer = TfidfVectorizer(
        **TFIDF_SETTINGS, ngram_range=(1, ngram_max), min_df=2 if big else 1, max_df=0.5 if big else 1.0
    )
    tfidf = vectorizer.fit_transform(texts)
    n_components = min(N_COMPONENTS, tfidf.shape[0] - 1, tfidf.shape[1] - 1)
    svd = TruncatedSVD(n_components=n_components, algorithm="randomized", random_state=RANDOM_STATE)
    components = svd.fit(tfidf).components_.astype(np.float32)
    return normalize(np.asarray(tfidf @ components.T)).astype(np.float32)


class Steps:
    """Seconds per named step, from the previous mark (the first from this module's import)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {"imports": time.perf_counter() - START}
        self._last = time.perf_counter()

    def mark(self, name: str) -> None:
        now = time.perf_counter()
        self.seconds[name] = now - self._last
        self._last = now

    def print(self, **extra) -> None:
        print(json.dumps({"stages": self.seconds, **extra}), flush=True)


def floor(path: str, ngram_max: int = NGRAM_MAX) -> tuple[Steps, list[str], np.ndarray]:
    """The floor's work, timed: read the list, then TF-IDF + SVD; the other contenders start from it."""
    steps = Steps()
    texts = read_texts(path)
    steps.mark("read")
    vectors = embed(texts, ngram_max)
    steps.mark("tfidf+svd")
    return steps, texts, vectors


def main(argv: list[str]) -> None:
    ngram_max = int(argv[argv.index("--ngram-max") + 1]) if "--ngram-max" in argv else NGRAM_MAX
    steps, texts, vectors = floor(argv[0], ngram_max)
    steps.print(rows=len(texts), dim=int(vectors.shape[1]))


if __name__ == "__main__":
    main(sys.argv[1:])
