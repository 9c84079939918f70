"""tpr_at_fpr_ci: the stratified bootstrap of the TPR at an FPR, known in law.

The law is checked against brute force: every stratified bootstrap resample of a
tiny sample enumerated (each class a multiset, with its multinomial
probability), tpr_at_fpr computed on each, compared to 1e-12 (both sides are
sums of a few hundred floating-point products).
"""

import itertools
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom, norm

from pauc.inference._tpr_interval import TPRLaw, allowed_negatives
from pauc.metrics import tpr_at_fpr, tpr_at_fpr_ci


def _law_pmf(law):
    """P(m TPR* = i), i = 0..m, from the law."""
    i = np.arange(law.m + 1)
    return sum(w * binom.pmf(i, law.m, p) for w, p in zip(law.weight, law.p))


def _multisets(size):
    """Every multiset of ``size`` draws among ``size`` rows (indices), with its
    probability under uniform draws with replacement (multinomial)."""
    for draw in itertools.combinations_with_replacement(range(size), size):
        counts = np.bincount(draw, minlength=size)
        ways = math.factorial(size) / np.prod([math.factorial(c) for c in counts])
        yield np.array(draw), ways / size ** size


def _brute_force_pmf(pos, neg, fpr):
    """Every stratified resample (as a multiset of each class, with its probability):
    the distribution of tpr_at_fpr over them."""
    m, n = pos.shape[0], neg.shape[0]
    pmf = np.zeros(m + 1)
    labels = np.r_[np.ones(m, dtype=int), np.zeros(n, dtype=int)]
    for neg_draw, neg_prob in _multisets(n):
        for pos_draw, pos_prob in _multisets(m):
            tpr = tpr_at_fpr(labels, np.r_[pos[pos_draw], neg[neg_draw]], fpr)
            pmf[round(tpr * m)] += neg_prob * pos_prob
    return pmf


@pytest.mark.parametrize("pos, neg", [
    ([0.5, 2.0, 3.0], [1.0, 2.0, 2.0, 4.0]),          # a positive tied with negatives
    ([1.0, 1.0, 5.0], [0.0, 1.0, 3.0, 3.0]),          # tied positives, tied top negatives
    ([0.0, 6.0, 7.0], [1.0, 2.0, 3.0, 4.0]),
])
@pytest.mark.parametrize("fpr", [0.0, 0.3, 0.5, 1.0])
def test_law_equals_enumerated_bootstrap(pos, neg, fpr):
    pos, neg = np.array(pos), np.array(neg)
    law = TPRLaw(pos, neg, fpr)
    np.testing.assert_allclose(_law_pmf(law), _brute_force_pmf(pos, neg, fpr), atol=1e-12)


@settings(max_examples=80, deadline=None)
@given(st.integers(2, 30), st.integers(2, 60), st.integers(1, 6),
       st.floats(0.0, 1.0), st.integers(0, 2 ** 32 - 1))
def test_estimate_is_tpr_at_fpr(m, n, levels, fpr, seed):
    rng = np.random.default_rng(seed)
    y = np.r_[np.ones(m, dtype=int), np.zeros(n, dtype=int)]
    s = rng.integers(0, levels + 1, m + n).astype(float)      # many ties
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for method in ("exact", "bootstrap"):
            draws = {} if method == "exact" else {"n_resamples": 20, "random_state": 0}
            ci = tpr_at_fpr_ci(y, s, fpr, method=method, **draws)
            assert ci.estimate == tpr_at_fpr(y, s, fpr)
            assert ci.low <= ci.high


def test_allowed_negatives_is_roc_curves_rule():
    for n in (1, 3, 7, 10, 100, 1000):
        for fpr in np.r_[np.linspace(0, 1, 101), np.arange(n + 1) / n]:
            k = allowed_negatives(n, fpr)
            assert k / n <= fpr and (k == n or (k + 1) / n > fpr)


def test_exact_interval_is_the_laws_quantiles():
    rng = np.random.default_rng(3)
    y = np.r_[np.ones(300, dtype=int), np.zeros(3000, dtype=int)]
    s = rng.normal(size=3300) + 1.5 * y
    ci = tpr_at_fpr_ci(y, s, 0.01, confidence_level=0.9)
    law = TPRLaw(s[:300], s[300:], 0.01)
    cdf = np.cumsum(_law_pmf(law))
    # the smallest TPR whose distribution function reaches 5 % (95 %)
    assert ci.low == np.argmax(cdf >= 0.05 - 1e-12) / 300
    assert ci.high == np.argmax(cdf >= 0.95 - 1e-12) / 300
    mean = np.dot(np.arange(301) / 300, _law_pmf(law))
    sd = np.sqrt(np.dot((np.arange(301) / 300 - mean) ** 2, _law_pmf(law)))
    assert ci.standard_error == pytest.approx(sd, rel=1e-9)
    # Monte Carlo draws of the same law: its quantiles, to within a step or two
    boot = tpr_at_fpr_ci(y, s, 0.01, confidence_level=0.9, method="bootstrap",
                         n_resamples=20000, random_state=0)
    assert abs(boot.low - ci.low) <= 2 / 300 and abs(boot.high - ci.high) <= 2 / 300
    assert boot.standard_error == pytest.approx(ci.standard_error, rel=0.05)


def test_sampled_resamples_follow_the_law():
    rng = np.random.default_rng(5)
    pos, neg = rng.normal(1, 1, 40), rng.normal(0, 1, 200).round(1)     # ties
    law = TPRLaw(pos, neg, 0.05)
    draws = law.sample(200_000, np.random.default_rng(0))
    counts = np.bincount(np.round(draws * 40).astype(int), minlength=41) / 200_000
    pmf = _law_pmf(law)
    # each frequency within 5 binomial standard deviations of its probability
    assert np.all(np.abs(counts - pmf) <= 5 * np.sqrt(pmf * (1 - pmf) / 200_000) + 1e-9)


def test_errors_and_warnings():
    rng = np.random.default_rng(0)
    y = np.r_[np.ones(100, dtype=int), np.zeros(1000, dtype=int)]
    s = rng.normal(size=1100) + y
    with pytest.raises(ValueError, match="fpr"):
        tpr_at_fpr_ci(y, s, 1.5)
    with pytest.raises(ValueError, match="method"):
        tpr_at_fpr_ci(y, s, 0.1, method="bca")
    with pytest.raises(ValueError, match="n_resamples"):
        tpr_at_fpr_ci(y, s, 0.1, method="bootstrap", n_resamples=1)
    with pytest.raises(ValueError, match="draws nothing"):
        tpr_at_fpr_ci(y, s, 0.1, random_state=0)
    with pytest.raises(ValueError, match="draws nothing"):
        tpr_at_fpr_ci(y, s, 0.1, n_resamples=500)
    with pytest.raises(ValueError, match="at least 2 positives"):
        tpr_at_fpr_ci(np.r_[1, np.zeros(50)], np.arange(51.0), 0.1)
    with pytest.warns(UserWarning, match="threshold lies among the 2 highest"):
        tpr_at_fpr_ci(y, s, 0.001)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tpr_at_fpr_ci(y, s, 0.05)
    same = tpr_at_fpr_ci(y, s, 0.05, method="bootstrap", random_state=4)
    assert same == tpr_at_fpr_ci(y, s, 0.05, method="bootstrap", random_state=4)


@pytest.mark.slow(seconds=2)
def test_coverage_binormal_at_fpr_001():
    """Binormal, d = 1.5: the true TPR at FPR 0.01 is 1 - Φ(Φ⁻¹(0.99) - d).  500
    positives, 5,000 negatives (50 in the window), 300 replications: measured 0.95
    (400 replications); 0.92-0.98 is about ±2.5 binomial standard deviations."""
    d = 1.5
    true = 1.0 - norm.cdf(norm.ppf(0.99) - d)
    rng = np.random.default_rng(1)
    y = np.r_[np.ones(500, dtype=int), np.zeros(5000, dtype=int)]
    hits = 0
    for _ in range(300):
        ci = tpr_at_fpr_ci(y, rng.normal(size=5500) + d * y, 0.01)
        hits += ci.low <= true <= ci.high
    assert 0.92 <= hits / 300 <= 0.98


@pytest.mark.parametrize("groups", [None, np.arange(1100) // 4])
def test_bootstrap_interval_keeps_resamples_and_chance(groups):
    """As every bootstrap interval (issue 46): ``resamples`` (whose quantiles are the
    interval), ``chance`` (a random ranking's TPR at FPR f is f) and its p-value
    read off the same resamples."""
    from pauc.inference._intervals import _percentile_pvalue
    rng = np.random.default_rng(3)
    y = np.r_[np.ones(100, dtype=int), np.zeros(1000, dtype=int)]
    for s, strong in ((rng.normal(size=1100) + 1.5 * y, True),
                      (rng.normal(size=1100), False)):
        ci = tpr_at_fpr_ci(y, s, 0.05, method="bootstrap", n_resamples=500, random_state=1,
                           groups=groups)
        assert ci.resamples.shape == (500,) and ci.n_resamples == 500
        assert (ci.low, ci.high) == tuple(np.quantile(ci.resamples, [0.025, 0.975]))
        assert ci.standard_error == pytest.approx(np.std(ci.resamples, ddof=1), rel=1e-12)
        assert ci.chance == 0.05
        assert ci.pvalue_chance == _percentile_pvalue(ci.resamples, 0.05)
        if strong:
            assert ci.pvalue_chance == 2 / 501
        else:
            assert ci.pvalue_chance > 0.05
    exact = tpr_at_fpr_ci(y, s, 0.05)
    assert exact.resamples is None and exact.n_resamples is None
