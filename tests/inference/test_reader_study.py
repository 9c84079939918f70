"""pauc.metrics.reader_study: the Obuchowski-Rockette analysis of reader studies (issue #47).

The checks: the published Van Dyke figures (Hillis 2007); every covariance and
every analysis against a direct implementation of the formulas written here
(K refits of the figure for the jackknife, the m x n kernel matrix for DeLong);
the one-reader analysis against compare_rankers; the O(K log K) leave-one-out
against K refits for every metric, ties included; the single-modality design;
the refusals; and the coverage of the interval under the Roe-Metz model.
"""

import math

import numpy as np
import pytest
from scipy import stats

from hypothesis import given, settings
from hypothesis import strategies as st

from pauc.inference._leave_one_out import (PlacedScores, auc_kernel, interpolated_tpr_kernel,
                                 jackknife_into, kernel_scores, partial_area_kernel,
                                 threshold_tpr_kernel)
from pauc.inference._reader_kernels import auc_jackknife
from pauc.datasets import load_vandyke
from pauc.metrics import compare_rankers, partial_auc, reader_study, roc_auc, tpr_at_fpr


@pytest.fixture(scope="module")
def vandyke():
    return load_vandyke()


# ---------------------------------------------------------------- a direct implementation

def _table(data):
    """ratings (t, r, K) and truth (K,) of a fully crossed table, by loops."""
    modalities = sorted(set(data["modality"].tolist()))
    readers = sorted(set(data["reader"].tolist()))
    cases = sorted(set(data["case"].tolist()))
    ratings = np.full((len(modalities), len(readers), len(cases)), np.nan)
    truth = np.zeros(len(cases), dtype=bool)
    for mod, rdr, case, y, x in zip(data["modality"], data["reader"], data["case"],
                                    data["truth"], data["rating"]):
        i, j, k = modalities.index(mod), readers.index(rdr), cases.index(case)
        ratings[i, j, k] = x
        truth[k] = y == 1
    assert not np.isnan(ratings).any()
    return ratings, truth


def _refit_jackknife(figure, truth, vectors):
    """K refits: the (K − 1)/K-scaled covariance of the leave-one-out figures."""
    k = truth.shape[0]
    left = np.array([[figure(np.delete(truth, c), np.delete(v, c)) for c in range(k)]
                     for v in vectors])
    centred = left - left.mean(axis=1, keepdims=True)
    return (k - 1) / k * centred @ centred.T


def _pairwise_delong(truth, vectors):
    """DeLong et al. (1988) from the m x n kernel ψ(X_i, Y_j) matrix."""
    v10, v01 = [], []
    for v in vectors:
        psi = (v[truth][:, None] > v[~truth][None, :]) + 0.5 * (
            v[truth][:, None] == v[~truth][None, :])
        v10.append(psi.mean(axis=1))
        v01.append(psi.mean(axis=0))
    v10, v01 = np.array(v10), np.array(v01)
    return np.cov(v10) / v10.shape[1] + np.cov(v01) / v01.shape[1]


def _or_by_hand(theta, cov, analysis):
    """Obuchowski-Rockette with Hillis's ddf for t = 2 modalities, written out."""
    t, r = theta.shape
    idx = [(i, j) for i in range(t) for j in range(r)]
    var, c1, c2, c3 = [], [], [], []
    for a, (i, j) in enumerate(idx):
        for b, (i2, j2) in enumerate(idx):
            if i == i2 and j == j2:
                var.append(cov[a, b])
            elif j == j2:
                c1.append(cov[a, b])
            elif i == i2:
                c2.append(cov[a, b])
            else:
                c3.append(cov[a, b])
    var, c1, c2, c3 = map(np.mean, (var, c1, c2, c3))
    mean_t, mean_r, grand = theta.mean(1), theta.mean(0), theta.mean()
    ms_t = r * np.sum((mean_t - grand) ** 2) / (t - 1)
    ms_tr = np.sum((theta - mean_t[:, None] - mean_r[None, :] + grand) ** 2) / (
        (t - 1) * (r - 1))
    if analysis == "random":
        den = ms_tr + r * max(c2 - c3, 0)
        ddf = den ** 2 / (ms_tr ** 2 / ((t - 1) * (r - 1)))
        return ms_t / den, ddf, stats.f.sf(ms_t / den, t - 1, ddf)
    if analysis == "fixed_readers":
        chi2 = (t - 1) * ms_t / (var - c1 + (r - 1) * (c2 - c3))
        return chi2 / (t - 1), math.inf, stats.chi2.sf(chi2, t - 1)
    f = ms_t / ms_tr
    return f, (t - 1) * (r - 1), stats.f.sf(f, t - 1, (t - 1) * (r - 1))


# ---------------------------------------------------------------- Van Dyke

def test_vandyke_auc_jackknife_random_readers_and_cases(vandyke):
    """Hillis (2007) and RJafroc's reference output for the Van Dyke data."""
    result = reader_study(vandyke)
    assert result.analysis == "random" and result.covariance == "jackknife"
    assert result.estimates[1] == pytest.approx(0.8970370, abs=5e-8)
    assert result.estimates[2] == pytest.approx(0.9408374, abs=5e-8)
    assert result.statistic == pytest.approx(4.456319, abs=5e-7)
    assert result.df == (1.0, pytest.approx(15.25967, abs=5e-6))
    assert result.pvalue == pytest.approx(0.05166569, abs=5e-9)
    (pair,) = result.comparisons
    assert pair.difference == pytest.approx(0.8970370 - 0.9408374, abs=1e-7)
    assert pair.statistic == pytest.approx(result.statistic, rel=1e-12)
    assert pair.pvalue == pytest.approx(result.pvalue, rel=1e-12)
    # the interval is the t(ddf_H) interval of that same denominator: it touches 0 as p ~ 0.05
    assert pair.low < 0 < pair.high < 0.001


@pytest.mark.parametrize("covariance", ["jackknife", "delong"])
@pytest.mark.parametrize("analysis", ["random", "fixed_readers", "fixed_cases"])
def test_vandyke_against_the_formulas(vandyke, covariance, analysis):
    ratings, truth = _table(vandyke)
    vectors = [ratings[i, j] for i in range(2) for j in range(5)]
    theta = np.array([roc_auc(truth, v) for v in vectors]).reshape(2, 5)
    cov = (_refit_jackknife(roc_auc, truth, vectors) if covariance == "jackknife"
           else _pairwise_delong(truth, vectors))
    f, ddf, p = _or_by_hand(theta, cov, analysis)
    result = reader_study(vandyke, covariance=covariance, analysis=analysis)
    np.testing.assert_allclose(result.reader_estimates, theta, rtol=0, atol=1e-14)
    np.testing.assert_allclose(result.covariance_matrix, cov, rtol=1e-10, atol=1e-16)
    assert result.statistic == pytest.approx(f, rel=1e-10)
    assert result.df[1] == pytest.approx(ddf, rel=1e-10)
    assert result.pvalue == pytest.approx(p, rel=1e-9)


def test_vandyke_partial_auc_window_changes_the_verdict(vandyke):
    """AUC: p = 0.052; partial AUC over [0, 0.2] ("range"): p = 0.045."""
    ratings, truth = _table(vandyke)
    vectors = [ratings[i, j] for i in range(2) for j in range(5)]

    def figure(y, s):
        return partial_auc(y, s, fpr_range=(0, 0.2))

    theta = np.array([figure(truth, v) for v in vectors]).reshape(2, 5)
    f, ddf, p = _or_by_hand(theta, _refit_jackknife(figure, truth, vectors), "random")
    result = reader_study(vandyke, metric="partial_auc", fpr_range=(0, 0.2))
    np.testing.assert_allclose(result.reader_estimates, theta, atol=1e-14)
    assert result.statistic == pytest.approx(f, rel=1e-10)
    assert result.df[1] == pytest.approx(ddf, rel=1e-10)
    assert result.pvalue == pytest.approx(p, rel=1e-9)
    assert round(result.pvalue, 3) == 0.045 and result.pvalue < 0.05 < reader_study(
        vandyke).pvalue


def test_vandyke_per_modality_intervals(vandyke):
    """A modality alone: sqrt((MS(R)_i + r max(Cov2_i, 0)) / r) with its own Hillis ddf."""
    ratings, truth = _table(vandyke)
    result = reader_study(vandyke)
    for i, estimate in enumerate(result.modality_estimates):
        vectors = list(ratings[i])
        theta = np.array([roc_auc(truth, v) for v in vectors])
        cov = _refit_jackknife(roc_auc, truth, vectors)
        r = theta.shape[0]
        ms_r = theta.var(ddof=1)
        cov2 = (cov.sum() - np.trace(cov)) / (r * (r - 1))
        den = ms_r + r * max(cov2, 0)
        ddf = den ** 2 / (ms_r ** 2 / (r - 1))
        half = stats.t.ppf(0.975, ddf) * math.sqrt(den / r)
        assert estimate.df == pytest.approx(ddf, rel=1e-10)
        assert (estimate.low, estimate.high) == pytest.approx(
            (theta.mean() - half, theta.mean() + half), rel=1e-10)


def test_tables_and_repr(vandyke):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(vandyke)
    result = reader_study(frame)
    same = reader_study(None, truth=vandyke["truth"], rating=vandyke["rating"],
                        reader=vandyke["reader"], modality=vandyke["modality"],
                        case=vandyke["case"])
    assert result.statistic == same.statistic and result.estimates == same.estimates
    pairs = result.to_frame()
    assert list(pairs[["modality_a", "modality_b"]].iloc[0]) == [1, 2]
    assert {"difference", "low", "high", "statistic", "df", "pvalue",
            "pvalue_adjusted"} <= set(pairs.columns)
    assert len(result.to_frame("modalities")) == 2 and len(result.to_frame("readers")) == 10
    assert result[(1, 2)] is result.comparisons[0]
    with pytest.raises(KeyError):
        result[(2, 1)]
    text = repr(result)
    assert "0.05167" in text and "15.26" in text


def test_renamed_columns_and_string_labels(vandyke):
    data = {"y": np.where(vandyke["truth"] == 1, "dissection", "none"),
            "score": vandyke["rating"], "who": np.array([f"R{r}" for r in vandyke["reader"]]),
            "mod": np.array(["SE", "cine"])[vandyke["modality"] - 1],
            "id": vandyke["case"]}
    result = reader_study(data, truth="y", rating="score", reader="who", modality="mod",
                          case="id", pos_label="dissection")
    assert result.estimates["SE"] == pytest.approx(0.8970370, abs=5e-8)
    assert result.pvalue == pytest.approx(0.05166569, abs=5e-9)


# ---------------------------------------------------------------- one reader, many modalities

def _correlated_ratings(rng, k, t, r, ties=False):
    truth = rng.random(k) < 0.4
    truth[:2], truth[2:4] = True, False
    case = rng.normal(size=k)
    x = np.array([[case + (0.8 + 0.2 * i + 0.1 * j) * truth + rng.normal(size=k)
                   for j in range(r)] for i in range(t)])
    if ties:
        x = np.round(x * 2)
    return truth, x


def _tidy(truth, x):
    t, r, k = x.shape
    m, j, c = np.meshgrid(np.arange(t), np.arange(r), np.arange(k), indexing="ij")
    return {"truth": truth.astype(int)[c.ravel()], "rating": x.ravel(),
            "reader": j.ravel(), "modality": m.ravel(), "case": c.ravel()}


@pytest.mark.parametrize("ties", [False, True])
def test_one_reader_two_modalities_is_delongs_paired_test(ties):
    rng = np.random.default_rng(3)
    truth, x = _correlated_ratings(rng, 150, 2, 1, ties)
    result = reader_study(_tidy(truth, x), covariance="delong")
    assert result.analysis == "fixed_readers"
    paired = compare_rankers(truth, x[0, 0], x[1, 0])
    (pair,) = result.comparisons
    for name in ("difference", "standard_error", "low", "high", "pvalue"):
        assert getattr(pair, name) == pytest.approx(getattr(paired, name), rel=1e-12,
                                                    abs=1e-12), name
    assert pair.statistic == pytest.approx(paired.statistic ** 2, rel=1e-12)
    assert result.pvalue == pytest.approx(paired.pvalue, rel=1e-12)


def test_many_modalities_pairs_are_adjusted():
    rng = np.random.default_rng(4)
    truth, x = _correlated_ratings(rng, 120, 3, 4)
    result = reader_study(_tidy(truth, x), p_adjust="bh")
    assert result.pairs == ((0, 1), (0, 2), (1, 2))
    assert result.df[0] == 2.0
    p = np.array([c.pvalue for c in result.comparisons])
    from pauc.inference._p_adjust import benjamini_hochberg
    np.testing.assert_allclose(result.pvalue_adjusted, benjamini_hochberg(p))
    # one denominator for every pair (Hillis): the same standard error and ddf
    assert len({round(c.standard_error, 14) for c in result.comparisons}) == 1


# ---------------------------------------------------------------- leave-one-out kernels

@pytest.mark.parametrize("seed", range(6))
def test_leave_one_out_equals_refits(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(8, 50))
    truth = rng.random(k) < 0.4
    truth[:2], truth[2:4] = True, False
    score = rng.integers(0, 4, k) if seed % 2 else rng.normal(size=k)
    alpha, beta = sorted(rng.random(2))
    fpr = float(rng.random())
    cases = [(auc_kernel(), lambda y, s: roc_auc(y, s)),
             (partial_area_kernel(alpha, beta),
              lambda y, s: partial_auc(y, s, fpr_range=(alpha, beta), normalize="none")),
             (interpolated_tpr_kernel(fpr), lambda y, s: tpr_at_fpr(y, s, fpr, interpolate=True)),
             (threshold_tpr_kernel(fpr), lambda y, s: tpr_at_fpr(y, s, fpr))]
    placed = PlacedScores(truth, score)
    for h, refit in cases:
        value, left_out = placed.leave_one_out(h)
        assert value == pytest.approx(refit(truth, score), abs=1e-12)
        expected = [refit(np.delete(truth, c), np.delete(score, c)) for c in range(k)]
        np.testing.assert_allclose(left_out, expected, rtol=0, atol=1e-12)
        # a resample is the rows repeated: the weighted figure equals the refit on copies
        weights = np.zeros(k)
        for rows in (np.flatnonzero(truth), np.flatnonzero(~truth)):
            np.add.at(weights, rng.choice(rows, rows.shape[0]), 1.0)
        copies = np.repeat(np.arange(k), weights.astype(int))
        assert placed.weighted_figures(h, weights[None])[0] == pytest.approx(
            refit(truth[copies], score[copies]), abs=1e-12)


# ---------------------------------------------------------------- the compiled kernels

def _numpy_leave_one_out(truth, score, h, is_auc):
    """The numpy leave-one-out the compiled kernels replaced: codes by an argsort, the
    counts by bincount, the module's formulas on whole arrays."""
    order = np.argsort(score, kind="stable")
    ordered = score[order]
    step = np.concatenate(([0], np.cumsum(ordered[1:] != ordered[:-1])))
    codes = np.empty(score.shape[0], dtype=np.intp)
    codes[order] = step
    pos = np.bincount(codes, weights=truth, minlength=step[-1] + 1)
    neg = np.bincount(codes, minlength=step[-1] + 1) - pos
    m, n = int(round(pos.sum())), int(round(neg.sum()))
    a = n - np.cumsum(neg)
    h_full = h(a, neg, n)
    total = float((pos * h_full).sum())
    pos_out = (total - h_full) / (m - 1)
    if is_auc:
        v01 = (m - np.cumsum(pos) + 0.5 * pos) / m
        neg_out = (total / m * n - v01) / (n - 1)
    else:
        above, below = pos * h(a, neg, n - 1), pos * h(np.maximum(a - 1.0, 0.0), neg, n - 1)
        neg_out = (np.cumsum(above[::-1])[::-1] - above + np.cumsum(below) - below
                   + pos * h(a, np.maximum(neg - 1.0, 0.0), n - 1)) / m
    return (codes, pos, neg), total / m, np.where(truth, pos_out[codes], neg_out[codes])


@st.composite
def _labelled_ratings(draw, max_cases=60):
    """Truth (two of each class at least) and ratings of one of the kernels' roads:
    integers on a short scale (counted), integers far apart (sorted), doubles with
    ties and signed zeros, doubles a few ulps apart (their keys' high bits agree)."""
    k = draw(st.integers(4, max_cases))
    truth = np.array(draw(st.lists(st.booleans(), min_size=k, max_size=k)))
    truth[:2], truth[2:4] = True, False
    kind = draw(st.sampled_from(["short", "wide", "ties", "ulps", "normal"]))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    if kind == "short":
        score = rng.integers(-3, 4, k)
    elif kind == "wide":
        score = rng.integers(-4, 5, k) * 2 ** 40 + rng.integers(0, 2, k)
    elif kind == "ties":
        score = rng.choice([-1.5, -0.0, 0.0, 0.25, 2.0], k)
    elif kind == "ulps":
        score = 1.0 + np.spacing(1.0) * rng.integers(0, max(2, k // 3), k)
    else:
        score = rng.normal(size=k) + truth
    return truth, score


def _kernels(rng):
    alpha, beta = sorted(rng.random(2))
    fpr = float(rng.random())
    return [(auc_kernel(), True), (partial_area_kernel(alpha, beta), False),
            (interpolated_tpr_kernel(fpr), False), (threshold_tpr_kernel(fpr), False)]


@settings(max_examples=200, deadline=None)
@given(_labelled_ratings(), st.integers(0, 2 ** 32 - 1))
def test_compiled_kernels_equal_the_numpy_path(labelled, seed):
    """Grouping, the fused AUC pass and the expansion of the other figures against
    the numpy code they replaced, ties and signed zeros included."""
    truth, score = labelled
    placed = PlacedScores(truth, score)
    flags = truth.view(np.uint8)
    for h, is_auc in _kernels(np.random.default_rng(seed)):
        (codes, pos, neg), value, expected = _numpy_leave_one_out(truth, score, h, is_auc)
        np.testing.assert_array_equal(placed.codes, codes)
        np.testing.assert_array_equal(placed.pos, pos)
        np.testing.assert_array_equal(placed.neg, neg)
        figure, left_out = placed.leave_one_out(h)
        assert figure == pytest.approx(value, abs=1e-13)
        np.testing.assert_allclose(left_out, expected, rtol=0, atol=1e-13)
        centred = np.empty(truth.shape[0])
        assert jackknife_into(truth, score, h, centred) == pytest.approx(value, abs=1e-13)
        np.testing.assert_allclose(centred, expected - expected.mean(), rtol=0, atol=1e-13)
        if is_auc:
            fused = np.empty(truth.shape[0])
            m = int(truth.sum())
            assert auc_jackknife(kernel_scores(score), flags, m, truth.shape[0] - m, fused,
                                 False) == pytest.approx(value, abs=1e-13)
            np.testing.assert_allclose(fused, expected, rtol=0, atol=1e-13)


@settings(max_examples=60, deadline=None)
@given(_labelled_ratings(max_cases=25))
def test_fused_auc_jackknife_equals_refits(labelled):
    truth, score = labelled
    k = truth.shape[0]
    refits = np.array([roc_auc(np.delete(truth, c), np.delete(score, c)) for c in range(k)])
    centred = np.empty(k)
    assert jackknife_into(truth, score, auc_kernel(), centred) == pytest.approx(
        roc_auc(truth, score), abs=1e-13)
    np.testing.assert_allclose(centred, refits - refits.mean(), rtol=0, atol=1e-13)


@pytest.mark.parametrize("k", [50, 3000])
def test_scores_ulps_apart_are_ordered_by_their_full_keys(k):
    """Doubles a few ulps apart share their keys' high bits: the sort leaves them to the
    walk, by insertion (short runs) or heapsort (a run of thousands)."""
    rng = np.random.default_rng(k)
    truth = rng.random(k) < 0.5
    truth[:2], truth[2:4] = True, False
    score = 1.0 + np.spacing(1.0) * rng.permutation(k) // 2
    (codes, pos, neg), value, expected = _numpy_leave_one_out(truth, score, auc_kernel(), True)
    placed = PlacedScores(truth, score)
    np.testing.assert_array_equal(placed.codes, codes)
    out = np.empty(k)
    m = int(truth.sum())
    assert auc_jackknife(score, truth.view(np.uint8), m, k - m, out, False) == pytest.approx(
        value, abs=1e-13)
    np.testing.assert_allclose(out, expected, rtol=0, atol=1e-13)


def test_kernel_scores_keep_order_and_ties():
    big = np.array([2 ** 64 - 1, 0, 2 ** 63, 2 ** 63 - 1, 2 ** 63], dtype=np.uint64)
    coded = kernel_scores(big)
    assert coded.dtype == np.int64
    np.testing.assert_array_equal(np.argsort(coded, kind="stable"),
                                  np.argsort(big, kind="stable"))
    assert coded[2] == coded[4]
    assert kernel_scores(np.array([True, False])).dtype == np.int64
    half = np.array([0.1, 0.2], dtype=np.float32)
    np.testing.assert_array_equal(kernel_scores(half), half.astype(np.float64))


def test_table_in_any_row_order_gives_the_same_study():
    """The table in cell order is used without a copy; shuffled, string-labelled, with
    boolean or float truths, or through the checking path, the study is the same."""
    rng = np.random.default_rng(5)
    truth, x = _correlated_ratings(rng, 80, 2, 3, ties=True)
    data = _tidy(truth, x)
    reference = reader_study(data)
    from pauc.inference._reader_study import _design
    design = _design(data["truth"], data["rating"], data["reader"], data["modality"],
                     data["case"], None)
    assert np.shares_memory(design[1], data["rating"])
    perm = rng.permutation(data["rating"].shape[0])
    # the first and last rows swapped: their labels are no longer the ranges; two rows
    # swapped in the middle: the pass finds them out of order after half the table
    ends, middle = np.arange(perm.shape[0]), np.arange(perm.shape[0])
    ends[[0, -1]], middle[[300, 301]] = ends[[-1, 0]], middle[[301, 300]]
    variants = [{k: v[perm] for k, v in data.items()},
                {k: v[ends] for k, v in data.items()},
                {k: v[middle] for k, v in data.items()},
                {**data, "truth": data["truth"] == 1},
                {**data, "truth": data["truth"].astype(float)},
                {**data, "reader": np.array([f"r{j}" for j in data["reader"]])},
                {**data, "rating": data["rating"].astype(np.int32)},
                {**data, "case": data["case"].astype(np.int32) * 7 - 3}]
    for variant in variants:
        result = reader_study(variant)
        np.testing.assert_allclose(result.covariance_matrix, reference.covariance_matrix,
                                   rtol=0, atol=1e-15)
        np.testing.assert_allclose(result.reader_estimates, reference.reader_estimates,
                                   rtol=0, atol=1e-15)
    one = {k: v[data["modality"] == 0] for k, v in data.items() if k != "modality"}
    single = reader_study(one, modality=None)
    np.testing.assert_allclose(single.reader_estimates, reference.reader_estimates[:1],
                               rtol=0, atol=1e-15)


def test_bootstrap_covariance_is_seeded_and_close_to_the_jackknife(vandyke):
    a = reader_study(vandyke, covariance="bootstrap", n_resamples=400, random_state=0)
    b = reader_study(vandyke, covariance="bootstrap", n_resamples=400, random_state=0)
    jack = reader_study(vandyke)
    assert a.statistic == b.statistic and a.n_resamples == 400
    assert a.variance_components["var"] == pytest.approx(jack.variance_components["var"],
                                                         rel=0.25)


# ---------------------------------------------------------------- a model against readers

def test_model_against_the_readers_average(vandyke):
    """The single-modality design, against D_j = θ_model − θ_j analysed by hand."""
    rng = np.random.default_rng(0)
    one = {key: v[vandyke["modality"] == 2] for key, v in vandyke.items()}
    ratings, truth = _table(one)
    model_scores = truth + rng.normal(scale=0.7, size=truth.shape[0])
    k = truth.shape[0]
    data = {key: np.concatenate((v, np.full(k, 99) if key == "reader" else
                                 (np.arange(1, k + 1) if key == "case" else
                                  (np.full(k, 2) if key == "modality" else
                                   (truth.astype(int) if key == "truth" else model_scores)))))
            for key, v in one.items()}
    result = reader_study(data, model=99)
    vectors = [model_scores] + list(ratings[0])
    theta = np.array([roc_auc(truth, v) for v in vectors])
    cov = _refit_jackknife(roc_auc, truth, vectors)
    contrast = np.hstack((np.ones((5, 1)), -np.eye(5)))
    d, dcov = contrast @ theta, contrast @ cov @ contrast.T
    ms_r = d.var(ddof=1)
    cov2 = (dcov.sum() - np.trace(dcov)) / 20
    den = ms_r + 5 * max(cov2, 0)
    ddf = den ** 2 / (ms_r ** 2 / 4)
    t_stat = d.mean() / math.sqrt(den / 5)
    (pair,) = result.comparisons
    assert result.modalities == (99, "readers") and pair.modality_a == 99
    assert pair.difference == pytest.approx(theta[0] - theta[1:].mean(), abs=1e-14)
    assert pair.df == pytest.approx(ddf, rel=1e-10)
    assert pair.statistic == pytest.approx(t_stat ** 2, rel=1e-10)
    assert pair.pvalue == pytest.approx(2 * stats.t.sf(abs(t_stat), ddf), rel=1e-9)
    assert result.estimates[99] == pytest.approx(theta[0], abs=1e-14)


# ---------------------------------------------------------------- refusals

def _drop(data, row):
    return {key: np.delete(v, row) for key, v in data.items()}


@pytest.mark.parametrize("change, message", [
    (lambda d: _drop(d, 7), "not fully crossed"),
    (lambda d: {k: np.concatenate((v, v[:1])) for k, v in d.items()}, "rated case"),
    (lambda d: {**d, "rating": np.where(np.arange(1140) == 3, np.nan, d["rating"])},
     "NaN"),
    (lambda d: {**d, "truth": np.zeros(1140, dtype=int)}, "one class"),
    (lambda d: {**d, "truth": np.where(np.arange(1140) == 0, 1 - d["truth"], d["truth"])},
     "two different truths"),
    (lambda d: {**d, "truth": np.where(np.arange(1140) == 0, np.nan, d["truth"])}, "NaN"),
    (lambda d: {k: v for k, v in d.items() if k != "case"}, "no column 'case'"),
])
def test_bad_tables_are_refused(vandyke, change, message):
    with pytest.raises(ValueError, match=message):
        reader_study(change(vandyke))


@pytest.mark.parametrize("kwargs, message", [
    ({"metric": "partial_auc", "covariance": "delong"}, "AUC's"),
    ({"metric": "pauc"}, "metric must be"),
    ({"metric": "auc", "fpr_range": (0, 0.2)}, "takes neither"),
    ({"covariance": "loo"}, "covariance must be"),
    ({"analysis": "mixed"}, "analysis must be"),
    ({"model": 1}, "one modality"),
    ({"metric": "partial_auc", "fpr_range": (0.3, 0.2)}, "fpr_range"),
])
def test_bad_arguments_are_refused(vandyke, kwargs, message):
    with pytest.raises(ValueError, match=message):
        reader_study(vandyke, **kwargs)


def test_random_readers_need_two_readers():
    rng = np.random.default_rng(0)
    truth, x = _correlated_ratings(rng, 60, 2, 1)
    with pytest.raises(ValueError, match="at least 2 readers"):
        reader_study(_tidy(truth, x), analysis="random")


# ---------------------------------------------------------------- coverage (Roe-Metz)

def _roe_metz(rng, readers, cases, separation=1.2):
    """One study under the null (two modalities alike) of Roe & Metz (1997): each truth
    state's ratings sum independent reader, modality x reader, case, modality x case,
    reader x case and pure-error effects (variances 0.03, 0.03, 0.3, 0.1, 0.2, 0.34)."""
    truth = np.zeros(cases, dtype=bool)
    truth[: cases // 2] = True
    x = np.empty((2, readers, cases))
    for state in (True, False):
        rows = np.flatnonzero(truth == state)
        n = rows.shape[0]
        reader = rng.normal(scale=math.sqrt(0.03), size=(1, readers, 1))
        mod_reader = rng.normal(scale=math.sqrt(0.03), size=(2, readers, 1))
        case = rng.normal(scale=math.sqrt(0.3), size=(1, 1, n))
        mod_case = rng.normal(scale=math.sqrt(0.1), size=(2, 1, n))
        reader_case = rng.normal(scale=math.sqrt(0.2), size=(1, readers, n))
        error = rng.normal(scale=math.sqrt(0.34), size=(2, readers, n))
        x[:, :, rows] = (separation * state + reader + mod_reader + case + mod_case
                         + reader_case + error)
    return truth, x


@pytest.mark.slow(seconds=25)
def test_roe_metz_coverage_of_the_difference():
    """Random readers and cases: the 95 % interval of the modality difference covers the
    true 0 in 0.93-0.97 of 1,000 studies; ignoring the readers (fixed readers) under-covers."""
    rng = np.random.default_rng(2026)
    covered = {"random": 0, "fixed_readers": 0}
    n_studies = 1000
    for _ in range(n_studies):
        data = _tidy(*_roe_metz(rng, readers=5, cases=60))
        for analysis in covered:
            (pair,) = reader_study(data, analysis=analysis).comparisons
            covered[analysis] += pair.low <= 0.0 <= pair.high
    assert 0.93 <= covered["random"] / n_studies <= 0.97, covered
    assert covered["fixed_readers"] / n_studies < 0.90, covered


# ---------------------------------------------------------------- the command line

def _write_csv(path, data, columns=None):
    columns = list(data) if columns is None else columns
    lines = [",".join(columns)] + [",".join(str(data[c][i]) for c in columns)
                                   for i in range(len(data[columns[0]]))]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_cli_reads_a_reader_study_table(vandyke, tmp_path, capsys):
    import json

    from pauc.__main__ import main

    path = _write_csv(tmp_path / "vandyke.csv", vandyke)
    assert main(["reader-study", str(path)]) == 0
    out = capsys.readouterr().out
    assert "F = 4.4563 on (1, 15.26) df, p = 0.05167" in out
    assert main(["reader-study", str(path), "--metric", "partial_auc", "--fpr-range", "0",
                 "0.2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["pvalue"] == pytest.approx(
        reader_study(vandyke, metric="partial_auc", fpr_range=(0, 0.2)).pvalue, rel=1e-12)
    assert [m["modality"] for m in report["modalities"]] == [1, 2]
    assert main(["reader-study", str(path), "--analysis", "fixed_readers", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["df"] == [1.0, "inf"]


def test_cli_model_against_readers_and_errors(vandyke, tmp_path, capsys):
    from pauc.__main__ import main

    one = {k: v[vandyke["modality"] == 1] for k, v in vandyke.items()}
    path = _write_csv(tmp_path / "one.csv", one, ["truth", "rating", "reader", "case"])
    assert main(["reader-study", str(path), "--model", "3"]) == 0
    expected = reader_study(one, model=3, modality=None)
    assert f"p = {expected.pvalue:.4g}" in capsys.readouterr().out
    assert main(["reader-study", str(path), "--truth-column", "y"]) == 2
    assert "no column 'y'" in capsys.readouterr().err
    assert main(["reader-study", str(path), "--metric", "partial_auc",
                 "--covariance", "delong"]) == 2
    assert "AUC's" in capsys.readouterr().err


def test_docstring_examples_run():
    import doctest

    import pauc.inference._reader_study

    failures, tried = doctest.testmod(pauc.inference._reader_study, verbose=False)
    assert tried >= 2 and failures == 0


def test_negative_covariance_terms_are_clipped_at_zero():
    """Hillis's max(Cov2 − Cov3, 0) and max(Cov2, 0): a negative estimate (sampling noise)
    must not shrink the denominator below MS(T*R), nor raise the ddf above (t−1)(r−1)."""
    from pauc.inference._reader_study import _difference_scale, single_modality

    comp = {"ms_tr": 0.002, "cov2": 0.0001, "cov3": 0.0003, "var": 0.001, "cov1": 0.0004}
    variance, ddf, denominator = _difference_scale(comp, "random", 2, 5)
    assert denominator == 0.002 and ddf == pytest.approx(4.0) and variance == 2 * 0.002 / 5
    comp["cov3"] = 0.0
    _, ddf, denominator = _difference_scale(comp, "random", 2, 5)
    assert denominator == pytest.approx(0.002 + 5 * 0.0001)
    assert ddf == pytest.approx(denominator ** 2 / (0.002 ** 2 / 4))
    values = np.array([0.80, 0.85, 0.90])
    cov = np.full((3, 3), -0.0001) + np.eye(3) * 0.0011
    estimate, se, df, low, high = single_modality(values, cov, "random", 0.95)
    assert se == pytest.approx(math.sqrt(values.var(ddof=1) / 3)) and df == pytest.approx(2.0)
    # readers in perfect agreement: only the cases vary, a normal interval
    _, se, df, _, _ = single_modality(np.full(3, 0.9), np.eye(3) * 0.001 + 0.0005, "random",
                                      0.95)
    assert math.isinf(df) and se == pytest.approx(math.sqrt(0.0005))
