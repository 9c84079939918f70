"""Lemma 4 (Long & Servedio (2007), §3): weak ranker → balanced two-sided weak classifier."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pauc.boost._lemma4 import BalancedClassifier, convert, denoise_rates, noise_contraction
from pauc.metrics import roc_auc


def expected_class_errors(g, h, is_pos, w):
    """E_r of the weighted error on each class, from Pr[g = +1] point by point."""
    p = g.prob_positive(h)
    return (w[is_pos] * (1 - p[is_pos])).sum() / w[is_pos].sum(), \
        (w[~is_pos] * p[~is_pos]).sum() / w[~is_pos].sum()


def test_spec_arithmetic():
    # Spec §9: p+ = .5, p− = .1 ⇒ ζ = .4/1.4, ε+ = ε− = .5/1.4.
    g = BalancedClassifier(theta=0.0, p_pos=0.5, p_neg=0.1)
    assert g.randomize_low
    assert g.zeta == pytest.approx(0.285714, abs=1e-6)
    assert g.error == pytest.approx(0.357143, abs=1e-6)
    # Bound check at p− = 0, γ = .2: ε = .8/1.8 ≤ ½ − γ/4.
    eps = BalancedClassifier(0.0, 0.8, 0.0).error
    assert eps == pytest.approx(0.444444, abs=1e-6) and eps <= 0.5 - 0.2 / 4


@settings(max_examples=500, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.booleans(), st.sampled_from([0.5, 1.0, 2.0])),
                min_size=2, max_size=30))
def test_lemma4_on_random_scores(rows):
    h = np.array([r[0] for r in rows], dtype=float)
    is_pos = np.array([r[1] for r in rows])
    w = np.array([r[2] for r in rows])
    if is_pos.all() or not is_pos.any():
        return
    gamma = roc_auc(is_pos, h, sample_weight=w) - 0.5
    if gamma < 0:                     # a weak ranker with AUC < ½ is used as −h
        h, gamma = -h, -gamma
    g = convert(h, is_pos, w)
    err_pos, err_neg = expected_class_errors(g, h, is_pos, w)
    # Equal error on both classes (Lemma 4), equal to eq. (1) ...
    assert err_pos == pytest.approx(err_neg, abs=1e-12)
    assert err_pos == pytest.approx(g.error, abs=1e-12)
    # ... and at most ½ − γ/4.
    assert err_pos <= 0.5 - gamma / 4 + 1e-12
    # The closed form of the advantage (spec §2): ½ − ε = J / (2(1 + |p+ − p−|)).
    assert 0.5 - g.error == pytest.approx(
        g.youden / (2 * (1 + abs(g.p_pos - g.p_neg))), abs=1e-12)


def test_counterexample_no_deterministic_threshold_helps():
    # Spec §2: ROC (0,0)→(0,.5)→(.5,.5)→(.5,1)→(1,1), AUC = ¾.
    h = np.array([4.0, 3.0, 2.0, 1.0])
    is_pos = np.array([True, False, True, False])
    w = np.ones(4)
    assert roc_auc(is_pos, h) == 0.75
    # Every deterministic threshold: two-sided advantage min(TPR, 1 − FPR) − ½ ≤ 0.
    for t in [-np.inf, *h, np.inf]:
        tpr, tnr = (h[is_pos] >= t).mean(), (h[~is_pos] < t).mean()
        assert min(tpr, tnr) - 0.5 <= 0
    # Lemma 4 with θ at (0, .5): p− = 0, p+ = .5, ζ = 1/3, ε = 1/3 → advantage 1/6.
    g = convert(h, is_pos, w)
    assert (g.p_neg, g.p_pos) == (0.0, 0.5)
    assert g.zeta == pytest.approx(1 / 3)
    err_pos, err_neg = expected_class_errors(g, h, is_pos, w)
    assert 0.5 - err_pos == pytest.approx(1 / 6) and 0.5 - err_neg == pytest.approx(1 / 6)


def test_randomized_draws_match_expected_errors():
    rng = np.random.default_rng(0)
    n = 200_000
    is_pos = rng.random(n) < 0.3
    h = rng.normal(size=n) + 0.8 * is_pos
    g = convert(h, is_pos, np.ones(n))
    vote = g.draw(h, rng.random(n))
    # Monte-Carlo errors of the randomized classifier, within 4 standard errors.
    se = np.sqrt(g.error * (1 - g.error) / is_pos.sum())
    assert abs((vote[is_pos] == -1).mean() - g.error) < 4 * se
    assert abs((vote[~is_pos] == 1).mean() - g.error) < 4 * se
    assert np.allclose(g.expected_vote(h), 2 * g.prob_positive(h) - 1)


@settings(max_examples=500, deadline=None)
@given(st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.floats(0.05, 0.95), st.floats(0.0, 0.45))
def test_denoise_inverts_the_noise_mixture(tpr, fpr, pi, eta):
    # Spec §7: D̃+ = a·D+ + (1−a)·D−, D̃− = b·D+ + (1−b)·D−.
    pi_noisy = eta + (1 - 2 * eta) * pi
    a, b = (1 - eta) * pi / pi_noisy, eta * pi / (1 - pi_noisy)
    noisy = (a * tpr + (1 - a) * fpr, b * tpr + (1 - b) * fpr)
    np.testing.assert_allclose(denoise_rates(*noisy, pi_noisy, eta), (tpr, fpr), atol=1e-9)
    # TPR − FPR of any set shrinks by the contraction a − b.
    assert noise_contraction(pi_noisy, eta) == pytest.approx(a - b, abs=1e-9)
    assert noisy[0] - noisy[1] == pytest.approx((a - b) * (tpr - fpr), abs=1e-9)


def test_denoise_recovers_clean_rates_from_noisy_labels():
    rng = np.random.default_rng(1)
    n, eta = 400_000, 0.2
    y = rng.random(n) < 0.3
    h = rng.normal(size=n) + y
    noisy = y ^ (rng.random(n) < eta)
    clean = convert(h, y, np.ones(n))
    naive = convert(h, noisy, np.ones(n))
    fixed = convert(h, noisy, np.ones(n), noise_rate=eta)
    # θ maximises J on noisy labels too (J shrinks by a − b > 0), so it barely moves.
    assert abs(fixed.theta - clean.theta) < 0.15
    # Rates at the same θ: de-biased ones are close to the clean truth, naive ones are not.
    at_theta = BalancedClassifier(fixed.theta, 0, 0)
    high = h >= at_theta.theta
    truth = (1 - high[y].mean(), high[~y].mean())
    assert np.allclose((fixed.p_pos, fixed.p_neg), truth, atol=0.01)
    assert not np.allclose((naive.p_pos, naive.p_neg), truth, atol=0.05)


def test_every_threshold_case_is_balanced():
    for p_pos, p_neg in itertools.product([0.0, 0.1, 0.3, 0.5], repeat=2):
        g = BalancedClassifier(0.0, p_pos, p_neg)
        # Randomized side on the weaker class; errors from the paper's formulas.
        if g.randomize_low:
            e_pos, e_neg = (1 - g.zeta) * p_pos, p_neg + g.zeta * (1 - p_neg)
        else:
            e_pos, e_neg = p_pos + g.zeta * (1 - p_pos), (1 - g.zeta) * p_neg
        assert e_pos == pytest.approx(g.error) and e_neg == pytest.approx(g.error)
