"""The package's sort of values with their indices (``pauc._sort``): the introsort
(three-way partition, heapsort fallback) against ``np.sort`` on tie-heavy,
adversarial and large inputs."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pauc import _sort


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-5, 5), max_size=200))
def test_sort_with_indices(values):
    v = np.array(values, dtype=np.float64)
    ix = np.arange(v.shape[0], dtype=np.intp)
    orig = v.copy()
    _sort.sort_with_indices(v, ix)
    np.testing.assert_array_equal(v, np.sort(orig))
    np.testing.assert_array_equal(orig[ix], v)
    np.testing.assert_array_equal(np.sort(ix), np.arange(v.shape[0]))


def test_sort_large_with_many_ties():
    rng = np.random.default_rng(1)
    v = rng.integers(0, 3, 100_000).astype(np.float64)
    ix = np.arange(v.shape[0], dtype=np.intp)
    orig = v.copy()
    _sort.sort_with_indices(v, ix)
    assert (np.diff(v) >= 0).all()
    np.testing.assert_array_equal(orig[ix], v)


@pytest.mark.parametrize("kind", ["ascending", "descending", "organ-pipe", "sawtooth",
                                  "distinct"])
def test_sort_adversarial_orders(kind):
    """Orders that degrade a plain quicksort (the depth limit hands them to the
    heapsort) come out sorted with their indices."""
    n = 20_000
    base = np.arange(n, dtype=np.float64)
    v = {"ascending": base, "descending": base[::-1].copy(),
         "organ-pipe": np.concatenate((base[: n // 2], base[n // 2:][::-1])),
         "sawtooth": base % 97,
         "distinct": np.random.default_rng(3).permutation(n).astype(np.float64)}[kind]
    ix = np.arange(n, dtype=np.intp)
    orig = v.copy()
    _sort.sort_with_indices(v, ix)
    np.testing.assert_array_equal(v, np.sort(orig))
    np.testing.assert_array_equal(orig[ix], v)


def test_sort_refuses_mismatched_lengths():
    with pytest.raises(ValueError, match="differ in length"):
        _sort.sort_with_indices(np.zeros(3), np.zeros(2, dtype=np.intp))
