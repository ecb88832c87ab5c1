"""Vectors -> a 2D map: UMAP with a fixed seed, PCA where a corpus is too small for UMAP."""
from __future__ import annotations

import warnings

import numpy as np
from sklearn.decomposition import PCA

from .errors import ParameterError

# Below this many papers UMAP's neighbour graph is too thin to mean anything; PCA is exact and stable.
MIN_UMAP_POINTS = 10


def project(
    vectors: np.ndarray,
    n_neighbors: int = 12,
    min_dist: float = 0.02,
    metric: str = "cosine",
    random_state: int = 42,
) -> np.ndarray:
    """An (n, 2) float64 array of map coordinates for (n, d) `vectors`, centred and scaled to unit spread.

    The defaults keep local neighbourhoods (bench/map_quality.py): a dozen neighbours and points
    allowed to sit close give trustworthiness@10 of 0.94 on 3,000 abstracts where n_neighbors=15,
    min_dist=0.1 gave 0.92; more neighbours or spread trade local faithfulness for global layout.

    Small inputs are handled: 0 points give an empty map, 1 point sits at the origin, fewer than
    `MIN_UMAP_POINTS` are laid out by PCA, and `n_neighbors` shrinks to fit the corpus.
    """
    if n_neighbors < 2:
        raise ParameterError(f"n_neighbors must be at least 2; got {n_neighbors}")
    if not 0 <= min_dist <= 1:
        raise ParameterError(f"min_dist must be in [0, 1]; got {min_dist}")
    vectors = np.asarray(vectors, dtype=np.float32)
    n = len(vectors)
    if n < MIN_UMAP_POINTS:
        coords = _pca_2d(vectors)
    else:
        import umap  # costly import (numba); only the stage that needs it pays

        reducer = umap.UMAP(
            n_neighbors=min(n_neighbors, n - 1),
            min_dist=min_dist,
            metric=metric,
            random_state=random_state,
            # Spectral init needs a connected graph of a decent size; random init is safe when small.
            init="spectral" if n > 50 else "random",
        )
        with warnings.catch_warnings():
            # A seed makes UMAP single-threaded and it says so each call; that trade is intended.
            warnings.filterwarnings("ignore", message=".*n_jobs value 1 overridden.*")
            coords = reducer.fit_transform(vectors)
    return _standardize(np.asarray(coords, dtype=np.float64))


def _pca_2d(vectors: np.ndarray) -> np.ndarray:
    n = len(vectors)
    coords = np.zeros((n, 2))
    if n >= 2 and vectors.shape[1] >= 1 and np.ptp(vectors, axis=0).max() > 0:  # identical points stay put
        k = min(2, n, vectors.shape[1])
        reduced = PCA(n_components=k, svd_solver="full").fit_transform(vectors)
        # PCA's sign is arbitrary; fix it so the same input always gives the same picture.
        signs = np.sign(reduced[np.argmax(np.abs(reduced), axis=0), range(k)])
        coords[:, :k] = reduced * np.where(signs == 0, 1, signs)
    return coords


def _standardize(coords: np.ndarray) -> np.ndarray:
    if len(coords) == 0:
        return coords.reshape(0, 2)
    centred = coords - coords.mean(axis=0)
    spread = np.abs(centred).max()
    return centred / spread if spread > 0 else centred
