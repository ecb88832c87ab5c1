"""The floor of the projection stage: the floor's TF-IDF + SVD-128 vectors, then plain `umap.UMAP().fit_transform`.

    python bench/floor_umap.py LIST.json

Run by bench/build.py as a fresh process: umap-learn with its defaults, as a user would call it
(import, numba compilation and the fit all count). Prints one JSON line of seconds per step.
"""

from __future__ import annotations

import sys

from floor_build import floor  # this folder is on sys.path when run as a script


def main(path: str) -> None:
    steps, texts, vectors = floor(path)
    import umap

    steps.mark("import umap")
    coords = umap.UMAP().fit_transform(vectors)
    steps.mark("UMAP fit_transform")
    steps.print(rows=len(texts), shape=list(coords.shape))


if __name__ == "__main__":
    main(sys.argv[1])
