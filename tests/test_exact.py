"""lib.exact: exact products and machine-independent exp, log and power, checked against NumPy
and against the properties the map relies on."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lib import exact


def test_exp_log_and_power_agree_with_numpy_to_a_few_ulps():
    rng = np.random.default_rng(0)
    x = rng.uniform(-700, 700, 100_000)
    assert np.allclose(exact.exp(x), np.exp(x), rtol=4e-16, atol=0)
    positive = np.exp(rng.uniform(-700, 700, 100_000))
    assert np.allclose(exact.log(positive), np.log(positive), rtol=4e-16, atol=1e-300)
    assert np.allclose(exact.power(positive[:1000] % 1e6, 0.79), (positive[:1000] % 1e6) ** 0.79, rtol=4e-15)


def test_edges_of_exp_log_and_power():
    assert list(exact.exp(np.array([-800.0, 0.0, 800.0]))) == [0.0, 1.0, math.inf]
    assert exact.log(np.array([0.0]))[0] == -math.inf and np.isnan(exact.log(np.array([-1.0]))[0])
    assert list(exact.log(np.array([1.0, 2.0]))) == [0.0, math.log(2)]
    assert list(exact.power(np.array([0.0, 4.0]), 0.5)) == [0.0, 2.0]


# No deadline: the test is of exactness, and a busy machine took 287 ms over Hypothesis' 200 ms.
@settings(deadline=None)
@given(st.integers(2, 300), st.integers(1, 40), st.integers(0, 2**32 - 1))
def test_products_of_unit_rows_are_exact_in_any_summation_order(dim, rows, seed):
    rng = np.random.default_rng(seed)
    left = exact.unit_rows(rng.standard_normal((rows, dim)))
    right = exact.unit_rows(rng.standard_normal((rows, dim)))
    found = exact.products(left, right)
    # Integers on the grid, summed in Python's exact integer arithmetic, in reverse order: the same.
    scale = 2**exact.SNAP_BITS
    as_ints = (exact.snap(left) * scale).astype(np.int64), (exact.snap(right) * scale).astype(np.int64)
    expected = np.array(
        [[int(sum(int(a) * int(b) for a, b in zip(row[::-1], r[::-1]))) for r in as_ints[1]] for row in as_ints[0]]
    )
    assert np.array_equal(found * scale * scale, expected.astype(np.float64))


@pytest.mark.parametrize("block", [1, 3, 7, 1000])
def test_products_a_block_of_rows_at_a_time_are_the_one_products_bits(block, monkeypatch):
    rng = np.random.default_rng(block)
    left, right = exact.unit_rows(rng.standard_normal((20, 64))), exact.unit_rows(rng.standard_normal((5, 64)))
    whole = exact.snap(left) @ exact.snap(right).T
    monkeypatch.setattr(exact, "PRODUCT_ROWS", block)
    assert np.array_equal(exact.products(left, right), whole)
    assert exact.products(left[:0], right).shape == (0, 5)


def test_snap_is_idempotent_and_symmetric():
    values = np.random.default_rng(1).uniform(-1, 1, 10_000)
    snapped = exact.snap(values)
    assert np.array_equal(exact.snap(snapped), snapped) and np.array_equal(exact.snap(-values), -snapped)
    assert np.abs(snapped - values).max() <= 2.0 ** -(exact.SNAP_BITS + 1)


@pytest.mark.parametrize("rows", [np.zeros((2, 3)), np.array([[3.0, 4.0]])])
def test_unit_rows_scale_rows_and_keep_zero_rows(rows):
    scaled = exact.unit_rows(rows)
    norms = np.sqrt((scaled**2).sum(axis=1))
    assert np.allclose(norms, (np.abs(rows).sum(axis=1) > 0).astype(float))
