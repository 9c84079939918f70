"""Inference at the edges (issue 36): too few resamples, too few rows of a class, a
window no positive reaches, empty input; the percentile interval's quantiles."""

import math
import warnings

import numpy as np
import pytest

from pauc.metrics import (compare_rankers, partial_auc, partial_auc_ci, roc_auc_ci,
                          roc_confidence_band, tpr_at_fpr_ci, two_way_partial_auc,
                          two_way_partial_auc_ci)


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
        c = compare_rankers(y, s, s.copy(), method=method, n_resamples=50, random_state=0)
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
        roc_auc_ci(y, s, method="bootstrap", n_resamples=50, random_state=0)
    y, s = _binormal(200, 19)
    with pytest.warns(UserWarning, match="19 negatives"):
        roc_auc_ci(y, s, method="bootstrap", n_resamples=50, random_state=0)
    y, s = _binormal(20, 200)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        roc_auc_ci(y, s, method="bootstrap", n_resamples=41, random_state=0)


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


# ---------------------------------------------------------------- the interval's quantiles

def _type7(values, q):
    """R's type-7 quantile, written out: linear between the order statistics
    around position (B - 1) q."""
    v = np.sort(values)
    h = (v.shape[0] - 1) * q
    lo = int(np.floor(h))
    return v[lo] + (h - lo) * (v[min(lo + 1, v.shape[0] - 1)] - v[lo])


@pytest.mark.parametrize("level", [0.95, 0.8])
@pytest.mark.parametrize("name, call", [
    ("roc_auc_ci", lambda y, a, b, **kw: roc_auc_ci(y, a, method="bootstrap", **kw)),
    ("partial_auc_ci", lambda y, a, b, **kw: partial_auc_ci(y, a, fpr_range=(0.05, 0.3),
                                                            normalize="mcclish", **kw)),
    ("two_way", lambda y, a, b, **kw: two_way_partial_auc_ci(y, a, max_fpr=0.5, min_tpr=0.4,
                                                            **kw)),
    ("compare_auc", lambda y, a, b, **kw: compare_rankers(y, a, b, method="bootstrap", **kw)),
    ("compare_pauc", lambda y, a, b, **kw: compare_rankers(y, a, b, metric="partial_auc",
                                                          fpr_range=(0, 0.2), **kw)),
])
def test_percentile_interval_ends_are_the_resamples_quantiles(name, call, level):
    """The planted-bug guard: a "95 %" interval taken at 90 % fails here.  The
    resamples are those of the bootstrap (replayed with the same seed), and the
    ends are their (1 ∓ level) / 2 type-7 quantiles."""
    from pauc.inference._resampling import StratifiedBootstrap

    rng = np.random.default_rng(11)
    y = (rng.random(500) < 0.3).astype(int)
    a = rng.normal(size=500) + y
    b = rng.normal(size=500) + 0.5 * y
    out = call(y, a, b, confidence_level=level, n_resamples=301, random_state=7)
    values = out.resamples
    assert values.shape == (301,) and out.n_resamples == 301
    tail = (1 - level) / 2
    assert out.low == pytest.approx(_type7(values, tail), abs=1e-15)
    assert out.high == pytest.approx(_type7(values, 1 - tail), abs=1e-15)
    assert out.standard_error == pytest.approx(np.std(values, ddof=1), rel=1e-12)
    # and they are the bootstrap's resamples: replayed through the resampler
    if name == "roc_auc_ci":
        replay = StratifiedBootstrap(y == 1, [a], 1.0).resample(301, 7, 0.0, 1.0, 0.0)[:, 0]
        np.testing.assert_array_equal(values, replay)
    elif name == "compare_auc":
        replay = StratifiedBootstrap(y == 1, [a, b], 1.0).resample(301, 7, 0.0, 1.0, 0.0)
        np.testing.assert_array_equal(values, replay[:, 0] - replay[:, 1])


# ---------------------------------------------------------------- against chance

@pytest.mark.parametrize("normalize, chance", [
    ("range", (0.05 + 0.3) / 2), ("mcclish", 0.5), ("none", (0.3 ** 2 - 0.05 ** 2) / 2)])
def test_chance_value_and_pvalue_from_the_resamples(normalize, chance):
    y, s = _binormal(60, 300, d=0.3)
    ci = partial_auc_ci(y, s, fpr_range=(0.05, 0.3), normalize=normalize, n_resamples=999,
                        random_state=0)
    assert ci.chance == pytest.approx(chance, abs=1e-15)
    # the diagonal itself: a ROC curve of chance level has exactly that partial AUC
    diagonal_y = np.r_[np.ones(1000, dtype=int), np.zeros(1000, dtype=int)]
    diagonal_s = np.r_[np.arange(1000.0), np.arange(1000.0)]       # every pair tied
    assert partial_auc(diagonal_y, diagonal_s, fpr_range=(0.05, 0.3),
                       normalize=normalize) == pytest.approx(chance, abs=1e-12)
    below = np.count_nonzero(ci.resamples <= ci.chance)
    above = np.count_nonzero(ci.resamples >= ci.chance)
    assert ci.pvalue_chance == min(1.0, 2 * (1 + min(below, above)) / 1000)


def test_strong_ranker_is_far_from_chance():
    y, s = _binormal(100, 400, d=2.0)
    for normalize in ("range", "mcclish", "none"):
        ci = partial_auc_ci(y, s, fpr_range=(0, 0.1), normalize=normalize, n_resamples=999,
                            random_state=0)
        assert ci.pvalue_chance == 2 / 1000          # the smallest a 999-resample test gives
    assert roc_auc_ci(y, s).pvalue_chance < 1e-20        # DeLong's z test of 0.5
    assert roc_auc_ci(y, s).chance == 0.5
    two_way = two_way_partial_auc_ci(y, s, max_fpr=0.5, min_tpr=0.3, n_resamples=999,
                                     random_state=0)
    assert two_way.chance == pytest.approx(0.5 * 0.2 ** 2 / (0.5 * 0.7))
    assert two_way.pvalue_chance == 2 / 1000


@pytest.mark.slow(seconds=3)
def test_random_ranker_pvalues_against_chance_are_uniform_ish():
    """300 random rankers (600 rows, 30 % positives), window [0, 0.1]: rejections at
    5 % and the median p-value as a uniform law gives them (binomial spread: 5 % of
    300 is 15 ± 3.8; measured 0.02-0.08 over several windows, 200 draws each)."""
    rng = np.random.default_rng(7)
    pvalues = {n: [] for n in ("range", "mcclish", "none")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for r in range(300):
            y = (rng.random(600) < 0.3).astype(int)
            s = rng.normal(size=600)
            for normalize, p in pvalues.items():
                p.append(partial_auc_ci(y, s, fpr_range=(0, 0.1), normalize=normalize,
                                        n_resamples=500, random_state=r).pvalue_chance)
    for normalize, p in pvalues.items():
        p = np.array(p)
        assert 0.015 <= np.mean(p <= 0.05) <= 0.09, normalize
        assert 0.4 <= np.median(p) <= 0.6, normalize
    # increasing affine maps of the same areas: the same test
    np.testing.assert_allclose(pvalues["range"], pvalues["none"], atol=0.01)


# ---------------------------------------------------------------- few resamples (issue 46)

_RESAMPLED = [
    lambda y, s, **kw: roc_auc_ci(y, s, method="bootstrap", **kw),
    lambda y, s, **kw: partial_auc_ci(y, s, **kw),
    lambda y, s, **kw: two_way_partial_auc_ci(y, s, **kw),
    lambda y, s, **kw: roc_confidence_band(y, s, **kw),
    lambda y, s, **kw: compare_rankers(y, s, s ** 3, method="bootstrap", **kw),
    lambda y, s, **kw: compare_rankers(y, s, s ** 3, metric="partial_auc", **kw),
    lambda y, s, **kw: compare_rankers(y, [s, s ** 3, -s], **kw, method="bootstrap"),
    lambda y, s, **kw: tpr_at_fpr_ci(y, s, 0.1, method="bootstrap", **kw),
]


@pytest.mark.parametrize("level, limit", [(0.95, 41), (0.9, 21), (0.99, 201)])
@pytest.mark.parametrize("call", _RESAMPLED)
def test_fewer_resamples_than_the_level_needs_warn(call, level, limit):
    """At the limit 1 + 2 / (1 - level) no warning; one below, a warning (with 40
    resamples at 95 % no resampled value lies beyond the interval's lower end:
    its type-7 position, 39 x 0.025, is below 1)."""
    y, s = _binormal(100, 300)
    kw = dict(confidence_level=level, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        call(y, s, n_resamples=limit, **kw)
    with pytest.warns(UserWarning, match=f"{limit - 1} resamples: below {limit} "):
        call(y, s, n_resamples=limit - 1, **kw)


def test_the_resample_limit_is_where_interval_and_chance_test_first_mean_something():
    from pauc.inference._intervals import _percentile_pvalue, min_resamples
    for level in (0.8, 0.9, 0.95, 0.98, 0.99, 0.999):
        b = min_resamples(level)
        tail = (1 - level) / 2
        # the interval's lower end has a resample beyond it from b on, not at b - 1
        assert (b - 1) * tail >= 1 - 1e-9 and (b - 2) * tail < 1
        # the chance test of a ranker beyond every resample can reject at 1 - level
        assert _percentile_pvalue(np.ones(b), 0.0) <= 1 - level + 1e-12


def test_delong_ignores_n_resamples():
    y, s = _binormal(100, 300)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        roc_auc_ci(y, s, n_resamples=2)
        compare_rankers(y, s, s ** 3, n_resamples=2)
        compare_rankers(y, [s, s ** 3, -s], n_resamples=2)
