"""pauc.surrogates: brute force on pairs, Figure 3's chain, Theorem 2, subgradients."""

import doctest

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import pauc.surrogates
from pauc._validation import empirical_indices
from pauc.surrogates import surrogate, surrogate_at_scores


@st.composite
def problems(draw):
    m = draw(st.integers(1, 6))
    n = draw(st.integers(2, 8))
    scores = draw(st.lists(st.integers(-6, 6), min_size=m + n, max_size=m + n))
    s = np.array(scores, dtype=np.float64) / 2.0         # ties and margins of 1 both occur
    y = np.array([1] * m + [0] * n)
    a = draw(st.integers(0, n - 1))
    b = draw(st.integers(a + 1, n))
    return s, y, (a / n, b / n)


def _pairs_reference(s, y, fpr_range):
    """eq. (8) and eq. (9) summed over explicit pairs with the window's negatives."""
    pos, neg = s[y == 1], np.sort(s[y == 0])[::-1]
    j_alpha, j_beta = empirical_indices(neg.shape[0], fpr_range)
    window = neg[j_alpha:j_beta]
    norm = pos.shape[0] * (j_beta - j_alpha)
    zero_one = sum(float(p <= q) for p in pos for q in window) / norm
    hinge = sum(max(0.0, 1.0 - (p - q)) for p in pos for q in window) / norm
    return zero_one, hinge


@settings(max_examples=500, deadline=None)
@given(problems())
def test_zero_one_and_hinge_equal_pairwise_sums(problem):
    s, y, window = problem
    zero_one, hinge = _pairs_reference(s, y, window)
    assert surrogate_at_scores("zero_one", s, y, fpr_range=window)[0] == pytest.approx(
        zero_one, abs=1e-12)
    assert surrogate_at_scores("hinge", s, y, fpr_range=window)[0] == pytest.approx(
        hinge, abs=1e-12)


@settings(max_examples=500, deadline=None)
@given(problems())
def test_figure_3_chain(problem):
    """zero_one <= hinge, zero_one <= tight <= naive; hinge = tight when alpha = 0 (Thm 5)."""
    s, y, window = problem
    v = {k: surrogate_at_scores(k, s, y, fpr_range=window)[0]
         for k in ("zero_one", "hinge", "tight", "naive")}
    assert v["zero_one"] <= v["hinge"] + 1e-12
    assert v["zero_one"] <= v["tight"] + 1e-12
    assert v["tight"] <= v["naive"] + 1e-12
    if empirical_indices(int((y == 0).sum()), window)[0] == 0:
        assert v["hinge"] == pytest.approx(v["tight"], abs=1e-12)


@settings(max_examples=500, deadline=None)
@given(problems())
def test_hinge_below_tight_when_margins_are_at_least_one(problem):
    """Figure 3(c)'s hinge <= tight, in Theorem 7's equality case (|s+ - s-| >= 1)."""
    s, y, window = problem
    s = np.where(y == 1, 2 * np.round(s), 2 * np.round(s) + 1)   # differences are odd
    hinge = surrogate_at_scores("hinge", s, y, fpr_range=window)[0]
    tight = surrogate_at_scores("tight", s, y, fpr_range=window)[0]
    assert hinge <= tight + 1e-12


def test_figure_3c_hinge_below_tight_fails_without_margin():
    """The erratum documented in pauc.surrogates: hinge > tight is possible for alpha > 0."""
    s, y = np.array([0.0, -0.5, -0.5]), np.array([1, 0, 0])
    assert surrogate_at_scores("hinge", s, y, fpr_range=(0.5, 1.0))[0] == pytest.approx(0.5)
    assert surrogate_at_scores("tight", s, y, fpr_range=(0.5, 1.0))[0] == pytest.approx(0.0)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["tight", "naive"]),
       st.sampled_from([(0.0, 1.0), (0.0, 0.3), (0.1, 0.5)]))
def test_structural_subgradient_inequality(seed, name, window):
    """Convex surrogates: f(w') >= f(w) + g(w)·(w' − w) for every w'."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(30, 4))
    y = (rng.random(30) < 0.4).astype(int)
    y[:2] = [0, 1]
    w, w2 = rng.normal(size=4), rng.normal(size=4)
    f, g = surrogate(name, w, X, y, fpr_range=window)
    f2, _ = surrogate(name, w2, X, y, fpr_range=window)
    assert f2 >= f + g @ (w2 - w) - 1e-10


@pytest.mark.parametrize("name", ["hinge", "tight", "naive"])
@pytest.mark.parametrize("window", [(0.0, 0.2), (0.05, 0.3)])
def test_gradient_matches_finite_differences(name, window):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(80, 5))
    y = (X[:, 0] + rng.normal(size=80) > 0.5).astype(int)
    w = rng.normal(size=5)           # continuous data: differentiable at w almost surely
    f, g = surrogate(name, w, X, y, fpr_range=window)
    h = 1e-7
    numeric = [(surrogate(name, w + h * e, X, y, fpr_range=window)[0] - f) / h
               for e in np.eye(5)]
    np.testing.assert_allclose(g, numeric, atol=1e-5)


def test_theorem_2_hinge_is_not_convex_for_alpha_above_zero():
    """Appendix A.2's construction: window [(n−1)/n, 1] keeps the lowest negative only.

    One positive at x = 0, negatives at x = +1 and −1: hinge(w) = (1 − |w|)₊,
    a tent, so the midpoint of w = −1 and w = 1 lies above the chord.
    """
    X = np.array([[0.0], [1.0], [-1.0]])
    y = np.array([1, 0, 0])
    f = [surrogate("hinge", [w], X, y, fpr_range=(0.5, 1.0))[0] for w in (-1.0, 0.0, 1.0)]
    assert f == pytest.approx([0.0, 1.0, 0.0])
    assert f[1] > (f[0] + f[2]) / 2
    # the tight surrogate of the same window is convex: it lies above the hinge one
    t = [surrogate("tight", [w], X, y, fpr_range=(0.5, 1.0))[0] for w in (-1.0, 0.0, 1.0)]
    assert t[1] <= (t[0] + t[2]) / 2 + 1e-12 and all(a >= b for a, b in zip(t, f))


def test_full_auc_surrogates_coincide():
    """Theorem 1: on [0, 1] hinge = tight = naive (= mean pairwise hinge)."""
    rng = np.random.default_rng(5)
    s = rng.normal(size=40)
    y = (rng.random(40) < 0.3).astype(int)
    y[:2] = [0, 1]
    values = [surrogate_at_scores(k, s, y)[0] for k in ("hinge", "tight", "naive")]
    assert values == pytest.approx([values[0]] * 3, abs=1e-12)


def test_sparse_and_dense_agree():
    rng = np.random.default_rng(6)
    X = sp.random(60, 7, density=0.3, random_state=6, format="csr")
    y = (rng.random(60) < 0.3).astype(int)
    y[:2] = [0, 1]
    w = rng.normal(size=7)
    for name in ("hinge", "tight", "naive", "zero_one"):
        f_s, g_s = surrogate(name, w, X, y, fpr_range=(0.0, 0.25))
        f_d, g_d = surrogate(name, w, X.toarray(), y, fpr_range=(0.0, 0.25))
        assert f_s == pytest.approx(f_d, abs=1e-12)
        np.testing.assert_allclose(g_s, g_d, atol=1e-12)


def test_bad_input():
    with pytest.raises(ValueError, match="surrogate must be one of"):
        surrogate_at_scores("logistic", [0.0, 1.0], [0, 1])
    with pytest.raises(ValueError, match="features"):
        surrogate("tight", np.ones(3), np.ones((4, 2)), [0, 1, 0, 1])
    with pytest.raises(ValueError, match="one class"):
        surrogate_at_scores("tight", [0.0, 1.0], [1, 1])
    with pytest.raises(ValueError, match="fpr_range"):
        surrogate_at_scores("tight", [0.0, 1.0, 2.0], [0, 1, 0], fpr_range=(0.2, 0.1))


def test_docstring_example():
    failures, tried = doctest.testmod(pauc.surrogates)
    assert tried > 0 and failures == 0
