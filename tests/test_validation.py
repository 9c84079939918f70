"""The shared input checks of pauc._validation, tested directly."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pauc._validation import check_pos_label, check_rate, empirical_indices


@settings(max_examples=500, deadline=None)
@given(st.integers(1, 500), st.integers(0, 999), st.integers(1, 1000))
def test_empirical_indices_are_floor_and_ceil_of_exact_products(n, a, width):
    """j_alpha = floor(n alpha), j_beta = ceil(n beta) (Narasimhan & Agarwal, eq. (2)),
    against exact rational arithmetic, for windows alpha = a/1000 < beta = b/1000: most
    n alpha are not integers (the other tests computed their references with the same
    function, so a round() for floor went unnoticed)."""
    b = min(a + width, 1000)
    alpha, beta = a / 1000, b / 1000
    exact_alpha = Fraction(a, 1000) * n
    exact_beta = Fraction(b, 1000) * n
    j_alpha, j_beta = empirical_indices(n, (alpha, beta))
    assert j_alpha == math.floor(exact_alpha)
    assert j_beta == math.ceil(exact_beta)


@pytest.mark.parametrize("n, window, expected", [
    (100, (0.07, 0.2), (7, 20)),          # 100 * 0.07 = 7.000000000000001 in floats: 7
    (100, (0.0, 0.07), (0, 7)),           # ... and its ceil is 7, not 8
    (100, (0.29, 0.5), (29, 50)),         # 100 * 0.29 = 28.999999999999996: 29, not 28
    (10, (0.05, 0.15), (0, 2)),           # 0.5 -> 0, 1.5 -> 2
    (7, (0.3, 0.5), (2, 4)),              # 2.1 -> 2, 3.5 -> 4
    (3, (0.5, 0.99), (1, 3)),             # 1.5 -> 1, 2.97 -> 3
    (1, (0.0, 0.001), (0, 1)),
])
def test_empirical_indices_examples(n, window, expected):
    assert empirical_indices(n, window) == expected


def test_empirical_indices_refuse_an_empty_window():
    with pytest.raises(ValueError, match="selects no negative position"):
        empirical_indices(0, (0.0, 0.1))
    # n alpha and n beta both within float noise of 10: floor/ceil would give (10, 11)
    # from noise alone; they are read as the integer 10, and the window is empty
    with pytest.raises(ValueError, match="selects no negative position"):
        empirical_indices(100, (0.1, 0.1 + 5e-11))


@pytest.mark.parametrize("value, message", [
    (float("nan"), "in"), (-0.1, "in"), (1.5, "in"), ("0.1", "a number"), (None, "a number"),
    (True, "a number"), (np.bool_(False), "a number"), ([0.1], "a number"),
])
def test_check_rate_refuses(value, message):
    with pytest.raises(ValueError, match=f"rate must be {message}"):
        check_rate(value, "rate")


def test_check_rate_open_ends():
    assert check_rate(0, "r") == 0.0 and check_rate(np.float32(1), "r") == 1.0
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        check_rate(0.0, "r", low_open=True)
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        check_rate(1.0, "r", high_open=True)


@pytest.mark.parametrize("classes, expected", [
    ([0, 1], 1), ([-1, 1], 1), ([False, True], True), ([1], 1), ([0], 1), ([0.0, 1.0], 1),
])
def test_check_pos_label_default_rule(classes, expected):
    assert check_pos_label(np.array(classes), None) == expected


@pytest.mark.parametrize("classes", [[-1, 0], [1, 2], ["a", "b"], [0, 2], [2]])
def test_check_pos_label_refuses_to_guess(classes):
    with pytest.raises(ValueError, match="pass pos_label"):
        check_pos_label(np.array(classes), None)
