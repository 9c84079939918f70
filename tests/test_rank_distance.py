"""Kendall τ and Spearman distances with ties (Ranking Forests §3.2.1) vs brute force."""

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pauc._rank_distance import labels_kendall_distance
from pauc.metrics import kendall_tau_distance, roc_auc, spearman_distance


def brute_kendall(a, b, w=None):
    """Σ_{i<j} w_i w_j U_ij, U_ij read off the paper's definition pair by pair."""
    w = np.ones(len(a)) if w is None else w
    d = 0.0
    for i, j in combinations(range(len(a)), 2):
        da, db = a[i] - a[j], b[i] - b[j]
        if da * db < 0:
            u = 1.0
        elif (da == 0) != (db == 0):
            u = 0.5
        else:
            u = 0.0
        d += w[i] * w[j] * u
    return d


def brute_midranks(a):
    """Mid-rank: #below + (#tied including itself + 1) / 2."""
    return np.array([(a < x).sum() + ((a == x).sum() + 1) / 2 for x in a])


ranking_pairs = st.integers(0, 25).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 3), min_size=n, max_size=n),
    st.lists(st.integers(0, 3), min_size=n, max_size=n),
    st.lists(st.integers(0, 4), min_size=n, max_size=n)))


@settings(max_examples=500, deadline=None)
@given(ranking_pairs)
def test_kendall_matches_brute_force_with_ties_and_weights(pair):
    a, b, w = (np.array(v, dtype=float) for v in pair)
    assert kendall_tau_distance(a, b) == pytest.approx(brute_kendall(a, b), abs=1e-9)
    assert kendall_tau_distance(a, b, sample_weight=w) == pytest.approx(
        brute_kendall(a, b, w), abs=1e-9)


@settings(max_examples=500, deadline=None)
@given(ranking_pairs)
def test_kendall_from_labels_equals_sorting_version(pair):
    a, b, _ = (np.array(v, dtype=int) for v in pair)
    assert labels_kendall_distance(a, b) == pytest.approx(kendall_tau_distance(a, b), abs=1e-9)
    if len(a) > 1:
        assert labels_kendall_distance(a, b, normalize=True) == pytest.approx(
            kendall_tau_distance(a, b, normalize=True), abs=1e-12)


@settings(max_examples=500, deadline=None)
@given(ranking_pairs)
def test_spearman_matches_brute_force_midranks(pair):
    a, b, _ = (np.array(v, dtype=float) for v in pair)
    diff = brute_midranks(a) - brute_midranks(b)
    assert spearman_distance(a, b) == pytest.approx(float((diff ** 2).sum()), abs=1e-9)
    assert spearman_distance(a, b, p=1) == pytest.approx(float(np.abs(diff).sum()), abs=1e-9)


def test_extreme_values_and_coefficients():
    a = np.arange(6.0)
    assert kendall_tau_distance(a, a) == 0
    assert kendall_tau_distance(a, -a) == 15                       # all K(K−1)/2 pairs
    assert kendall_tau_distance(a, -a, normalize=True) == 1.0
    # eq. (3): ρ = −1 for the reversal, so 1 − ρ = 2; eq. (1): τ = 1 − 2·normalised
    assert spearman_distance(a, -a, normalize=True) == pytest.approx(2.0)
    assert spearman_distance(a, a, p=1, normalize=True) == 0.0
    # all tied against strict: every pair costs ½
    assert kendall_tau_distance(np.zeros(6), a) == 7.5


def test_kendall_auc_identity_of_the_lecture():
    """½(1 − τ̃(s(X), Y)) = 2p(1−p)(1 − AUC) + ½ P{s ≠ s', Y = Y'} (Clémençon's
    lecture notes).

    With the empirical law, τ̃ = 1 − 2·d̂ over ordered pairs, i.e. d̂ with the
    n² normalisation; checked exactly on a sample with many ties.
    """
    rng = np.random.default_rng(3)
    n = 60
    y = rng.integers(0, 2, n)
    s = rng.integers(0, 5, n).astype(float)
    d_pairs = kendall_tau_distance(s, y)                   # Σ_{i<j} U_ij
    lhs = 2 * d_pairs / n ** 2                             # ½(1 − τ̃) with P over n² pairs
    p = y.mean()
    diff_same = sum(1 for i in range(n) for j in range(n) if y[i] == y[j] and s[i] != s[j])
    rhs = 2 * p * (1 - p) * (1 - roc_auc(y, s)) + 0.5 * diff_same / n ** 2
    assert lhs == pytest.approx(rhs, abs=1e-12)


def test_bad_input():
    with pytest.raises(ValueError, match="differ in length"):
        kendall_tau_distance([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="NaN"):
        spearman_distance([1, np.nan], [1, 2])
    with pytest.raises(ValueError, match="p must be"):
        spearman_distance([1, 2], [1, 2], p=3)
    with pytest.raises(ValueError, match="sample_weight"):
        kendall_tau_distance([1, 2], [1, 2], sample_weight=[1, -1])
