"""Inference at the edges (issue 36): too few resamples, too few rows of a class, a
window no positive reaches, empty input; the percentile interval's quantiles."""

import math
import warnings

import numpy as np
import pytest

from pauc.metrics import (compare_rankers, partial_auc, partial_auc_ci, roc_auc_ci,
                          roc_confidence_band, two_way_partial_auc, two_way_partial_auc_ci)


def _binormal(n_pos, n_neg, d=1.0, seed=0):
    rng = np.random.default_rng(seed)
    y = np.r_[np.ones(n_pos, dtype=int), np.zeros(n_neg, dtype=int)]
    return y, rng.normal(size=n_pos + n_neg) + d * y


# ---------------------------------------------------------------- too few resamples

@pytest.mark.parametrize("call", [
    lambda y, s: roc_auc_ci(y, s, method="bootstrap", n_resamples=1),
    lambda y, s: partial_auc_ci(y, s, n_resamples=1),
    lambda y, s: two_way_partial_auc_ci(y, s, n_resamples=1),
    lambda y, s: roc_confidence_band(y, s, n_resamples=1),
    lambda y, s: compare_rankers(y, s, -s, method="bootstrap", n_resamples=1),
])
def test_one_resample_is_refused(call):
    y, s = _binormal(100, 300)
    with pytest.raises(ValueError, match="n_resamples must be"):
        call(y, s)


def test_zero_spread_gives_nan_test_not_certainty():
    # 3 positives ranked last by A, first by B: every resample's AUC difference is -1
    y = np.r_[np.ones(3, dtype=int), np.zeros(40, dtype=int)]
    a, b = -y + 0.0, y + 0.0
    with pytest.warns(UserWarning, match="3 positives"):
        boot = compare_rankers(y, a, b, method="bootstrap", n_resamples=50, random_state=0)
    assert boot.difference == -1.0 and boot.low == boot.high == -1.0
    assert math.isnan(boot.statistic) and math.isnan(boot.pvalue)
    # DeLong: the placement values are constant per class, zero variance too
    delong = compare_rankers(y, a, b)
    assert delong.standard_error == 0.0
    assert math.isnan(delong.statistic) and math.isnan(delong.pvalue)


def test_zero_spread_with_zero_difference_is_no_evidence():
    y, s = _binormal(30, 100)
    for method in ("delong", "bootstrap"):
        c = compare_rankers(y, s, s.copy(), method=method, n_resamples=20, random_state=0)
        assert (c.difference, c.statistic, c.pvalue) == (0.0, 0.0, 1.0)


# ---------------------------------------------------------------- too few rows of a class

@pytest.mark.parametrize("n_pos, n_neg", [(1, 200), (200, 1)])
@pytest.mark.parametrize("call", [
    lambda y, s: roc_auc_ci(y, s, method="bootstrap", n_resamples=20),
    lambda y, s: partial_auc_ci(y, s, fpr_range=(0, 1), n_resamples=20),
    lambda y, s: two_way_partial_auc_ci(y, s, max_fpr=1.0, n_resamples=20),
    lambda y, s: roc_confidence_band(y, s, fpr_range=(0, 1), n_resamples=20),
    lambda y, s: compare_rankers(y, s, -s, method="bootstrap", n_resamples=20),
    lambda y, s: compare_rankers(y, s, -s, metric="partial_auc", fpr_range=(0, 1),
                                 n_resamples=20),
])
def test_one_row_of_a_class_is_refused_by_every_bootstrap(call, n_pos, n_neg):
    y, s = _binormal(n_pos, n_neg)
    with pytest.raises(ValueError, match="bootstrap needs at least 2 positives and 2 negatives"):
        call(y, s)


def test_few_rows_of_a_class_warn_and_enough_do_not():
    y, s = _binormal(5, 200)
    with pytest.warns(UserWarning, match="5 positives.*below 20"):
        roc_auc_ci(y, s, method="bootstrap", n_resamples=20, random_state=0)
    y, s = _binormal(200, 19)
    with pytest.warns(UserWarning, match="19 negatives"):
        roc_auc_ci(y, s, method="bootstrap", n_resamples=20, random_state=0)
    y, s = _binormal(20, 200)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        roc_auc_ci(y, s, method="bootstrap", n_resamples=20, random_state=0)


def test_delong_one_positive_names_what_would_work():
    y, s = _binormal(1, 200)
    with pytest.raises(ValueError, match="label more rows") as info:
        roc_auc_ci(y, s)
    assert "method='bootstrap'" not in str(info.value)


# ---------------------------------------------------------------- no positive in the window

def _flipped(n=400, seed=0):
    """A sign-flipped ranker: every positive below (almost) every negative."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return y, -(3 * y + rng.normal(size=n))


@pytest.mark.parametrize("normalize", ["range", "mcclish", "none"])
def test_no_positive_in_the_window_gives_a_point_interval(normalize):
    y, s = _flipped()
    with pytest.warns(UserWarning):          # the window holds few negatives
        ci = partial_auc_ci(y, s, fpr_range=(0.0, 0.05), normalize=normalize, n_resamples=50,
                            random_state=0)
    expected = partial_auc(y, s, fpr_range=(0.0, 0.05), normalize=normalize)
    # no positive above the window's negatives, in the sample or any resample
    assert ci.estimate == ci.low == ci.high == expected and ci.standard_error == 0.0
    assert expected == (0.5 * (1 - 0.05 / 1.95) if normalize == "mcclish" else 0.0)


def test_no_positive_in_the_window_band_and_two_way():
    y, s = _flipped()
    with pytest.warns(UserWarning):
        band = roc_confidence_band(y, s, fpr_range=(0.0, 0.05), n_resamples=50,
                                   random_state=0)
        two_way = two_way_partial_auc_ci(y, s, max_fpr=0.05, n_resamples=50, random_state=0)
    assert not band.tpr.any() and not band.low.any() and not band.high.any()
    assert two_way.low == two_way.high == two_way.estimate == two_way_partial_auc(
        y, s, max_fpr=0.05) == 0.0
