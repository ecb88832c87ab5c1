"""Arithmetic whose results are the same bits on any x86-64 machine, whatever its BLAS kernel,
BLAS thread count or NumPy SIMD extensions: what makes the same list give the same map everywhere.

Two things vary between machines, and both change the last bits of a float:
- BLAS (matrix products, QR, eigensolvers) sums in an order and with fused multiply-adds that
  depend on the kernel OpenBLAS picks for the CPU and on its number of threads;
- NumPy's `exp`, `log` and `power` run SIMD code chosen for the CPU (AVX-512 or AVX2 or neither),
  each correct to about an ulp but not to the same ulp.
A map amplifies such differences: UMAP's 200 epochs, k-means and every ranking turn one changed bit
into another layout. So the pipeline keeps its decisive steps to operations IEEE 754 rounds exactly
(+, -, *, /, sqrt, comparisons, sums in a fixed order), and where BLAS must do the work:
- `snap` rounds a BLAS result to a grid far coarser than its rounding noise (float64 noise is near
  1e-16, the grid 2^-16), so every machine lands on the same grid point;
- `products` multiplies snapped vectors in float64, where every product and partial sum of grid
  points is an integer multiple of the grid squared below 2^53: exact, so in any order, any kernel.
`exp`, `log` and `power` are polynomials in those exact operations (Cody-Waite reduction, then
series), correct to a few ulps of float64 and the same bits everywhere.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

# Vectors are snapped to multiples of 2^-SNAP_BITS: 1.5e-5 for unit vectors whose entries are
# about 0.1, far below what separates two papers and far above float64's rounding noise.
SNAP_BITS = 16
# `products` snaps and multiplies this many rows of its left factor at a time (exact: any split
# gives the same bits).
PRODUCT_ROWS = 65_536
_LN2_HIGH = 0.693145751953125  # ln 2 in 20 bits: k * _LN2_HIGH is exact for |k| < 2^33
_LN2_LOW = 1.4286068203094172321e-06  # ln 2 - _LN2_HIGH
_LN2 = 0.6931471805599453
_SQRT_HALF = 0.7071067811865476
_EXP_SERIES = [1 / math.factorial(n) for n in range(13, -1, -1)]


def snap(values: np.ndarray, bits: int = SNAP_BITS) -> np.ndarray:
    """`values` rounded to the nearest multiple of 2^-bits (ties to even), as float64."""
    scale = float(2**bits)
    # One new array, rounded and scaled back in place: the subfields snap a million papers' vectors.
    snapped = np.multiply(values, scale, dtype=np.float64, out=np.empty(np.shape(values)))
    np.round(snapped, out=snapped)
    snapped /= scale
    return snapped


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """float64 rows scaled to unit length in a fixed order of operations; all-zero rows stay zero."""
    vectors = np.asarray(vectors, dtype=np.float64)
    norms = np.sqrt((vectors * vectors).sum(axis=1, keepdims=True))
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


def products(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """`snap(left) @ snap(right).T` exactly, as float64: the same bits from any BLAS.

    Exact while each row's entries are at most about 1 in size and rows have fewer than 2^20
    entries (unit vectors of any embedding qualify): every partial sum is then an integer multiple
    of 2^-32 below 2^21, which float64 holds exactly.
    """
    right = snap(right)
    out = np.empty((len(left), len(right)))
    # A block of rows at a time: a million papers' snapped vectors would be a float64 copy of them all.
    for start in range(0, len(left), PRODUCT_ROWS):
        out[start : start + PRODUCT_ROWS] = snap(left[start : start + PRODUCT_ROWS]) @ right.T
    return out


def exp(x: np.ndarray) -> np.ndarray:
    """e^x for float64 `x`, within 3 ulps; 0 below -745, inf above 709."""
    x = np.asarray(x, dtype=np.float64)
    clipped = np.clip(x, -745.0, 709.0)
    k = np.rint(clipped / _LN2)
    r = (clipped - k * _LN2_HIGH) - k * _LN2_LOW  # |r| <= ln2 / 2
    # Taylor series of e^r to r^13 / 13! by Horner: the next term is below 2e-16 of the sum for |r| <= 0.35.
    total = np.full_like(r, _EXP_SERIES[0])
    for coefficient in _EXP_SERIES[1:]:
        total = total * r + coefficient
    result = np.ldexp(total, k.astype(np.int64).clip(-1100, 1100))
    return np.where(x > 709.0, np.inf, np.where(x < -745.0, 0.0, result))


def log(x: np.ndarray) -> np.ndarray:
    """ln x for positive float64 `x`, within 3 ulps; -inf at 0, nan below."""
    x = np.asarray(x, dtype=np.float64)
    mantissa, exponent = np.frexp(np.where(x > 0, x, 1.0))  # x = m 2^e, m in [0.5, 1): exact
    low = mantissa < _SQRT_HALF
    mantissa = np.where(low, mantissa * 2, mantissa)  # now in [0.707, 1.414)
    exponent = np.where(low, exponent - 1, exponent).astype(np.float64)
    # ln m = 2 atanh(s), s = (m - 1) / (m + 1), |s| <= 0.172: the series to s^21 leaves under 1e-17.
    s = (mantissa - 1) / (mantissa + 1)
    s2 = s * s
    total = np.zeros_like(s)
    for n in range(21, 0, -2):
        total = total * s2 + 1.0 / n
    result = (exponent * _LN2_HIGH + 2 * s * total) + exponent * _LN2_LOW
    return np.where(x > 0, result, np.where(x == 0, -np.inf, np.nan))


def power(x: np.ndarray, exponent: float) -> np.ndarray:
    """x ** exponent for non-negative float64 `x` and a positive `exponent` (0 ** exponent is 0)."""
    x = np.asarray(x, dtype=np.float64)
    return np.where(x > 0, exp(exponent * log(np.where(x > 0, x, 1.0))), 0.0)


def environment() -> dict[str, Any]:
    """What a map's bits rest on beside its inputs and settings, for `papers.json`: the packages
    that compute it, the BLAS each loaded and the kernel it chose, and NumPy's SIMD extensions in use."""
    import importlib.metadata
    import platform

    import scipy.linalg  # noqa: F401  loads SciPy's BLAS, so the record never depends on what a build happened to import
    from threadpoolctl import threadpool_info

    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:  # a NumPy that names them otherwise: record none rather than guess
        __cpu_dispatch__, __cpu_features__ = [], {}
    return {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "packages": {
            name: importlib.metadata.version(name) for name in ("numpy", "scipy", "scikit-learn", "pandas", "pyarrow")
        },
        "blas": sorted(  # in a fixed order, not the order the libraries were loaded in
            (
                {key: info.get(key) for key in ("filepath", "internal_api", "version", "architecture", "num_threads")}
                for info in threadpool_info()
                if info.get("user_api") == "blas"
            ),
            key=lambda library: str(library["filepath"]),
        ),
        "numpy_simd": [target for target in __cpu_dispatch__ if __cpu_features__.get(target)],
    }
