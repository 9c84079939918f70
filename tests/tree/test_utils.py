"""The tools shared by the tree family's Cython modules (``pauc.tree._utils``).

* The random stream is splitmix64 (Steele, Lea and Flood, OOPSLA 2014): its
  words are checked against a pure-Python transcription of the generator, and
  the bounded and uniform draws against their definitions from those words.
* The introsort (three-way partition, heapsort fallback) sorts values with
  their indices: against ``np.sort`` on tie-heavy, adversarial and large inputs.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pauc.tree import _utils

MASK = 2**64 - 1


def splitmix64(seed, size):
    """The generator in Python integers, step by step."""
    state, out = seed, []
    for _ in range(size):
        state = (state + 0x9E3779B97F4A7C15) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        out.append(z ^ (z >> 31))
    return out


@settings(max_examples=50, deadline=None)
@given(st.integers(0, MASK))
def test_random_words_are_splitmix64(seed):
    words = _utils.random_stream(seed, 20)
    assert words.dtype == np.uint64
    assert [int(x) for x in words] == splitmix64(seed, 20)


def test_random_words_known_values():
    # The first word of splitmix64 from seed 0, as published with the generator.
    assert int(_utils.random_stream(0, 1)[0]) == 0xE220A8397B1DCDAF


@settings(max_examples=50, deadline=None)
@given(st.integers(0, MASK), st.integers(1, 10**6))
def test_bounded_and_uniform_draws_follow_from_the_words(seed, below):
    words = splitmix64(seed, 30)
    assert _utils.random_stream(seed, 30, below).tolist() == [w % below for w in words]
    uniform = _utils.random_stream(seed, 30, -1)
    np.testing.assert_array_equal(uniform, [(w >> 11) / 2.0**53 for w in words])
    assert ((uniform >= 0.0) & (uniform < 1.0)).all()


def test_bounded_draws_are_roughly_uniform():
    draws = _utils.random_stream(12345, 60_000, 6)
    counts = np.bincount(draws, minlength=6)
    # Chi-square with 5 degrees of freedom: P(> 20.5) < 0.001.
    chi2 = ((counts - 10_000) ** 2 / 10_000).sum()
    assert chi2 < 20.5


def test_random_stream_arguments():
    with pytest.raises(ValueError, match="below"):
        _utils.random_stream(0, 3, -2)
    with pytest.raises(ValueError, match="size"):
        _utils.random_stream(0, -1)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-5, 5), max_size=200))
def test_sort_with_indices(values):
    v = np.array(values, dtype=np.float64)
    ix = np.arange(v.shape[0], dtype=np.intp)
    orig = v.copy()
    _utils.sort_with_indices(v, ix)
    np.testing.assert_array_equal(v, np.sort(orig))
    np.testing.assert_array_equal(orig[ix], v)
    np.testing.assert_array_equal(np.sort(ix), np.arange(v.shape[0]))


def test_sort_large_with_many_ties():
    rng = np.random.default_rng(1)
    v = rng.integers(0, 3, 100_000).astype(np.float64)
    ix = np.arange(v.shape[0], dtype=np.intp)
    orig = v.copy()
    _utils.sort_with_indices(v, ix)
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
    _utils.sort_with_indices(v, ix)
    np.testing.assert_array_equal(v, np.sort(orig))
    np.testing.assert_array_equal(orig[ix], v)


def test_sort_refuses_mismatched_lengths():
    with pytest.raises(ValueError, match="differ in length"):
        _utils.sort_with_indices(np.zeros(3), np.zeros(2, dtype=np.intp))
