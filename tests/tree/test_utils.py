"""The tools shared by the tree family's Cython modules (``pauc.tree._utils``;
the sort they share with the package is tested in ``tests/test_sort.py``).

* The random stream is splitmix64 (Steele, Lea and Flood, OOPSLA 2014): its
  words are checked against a pure-Python transcription of the generator, and
  the bounded and uniform draws against their definitions from those words.
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
