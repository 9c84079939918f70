"""Clustered rows: Obuchowski's variance (pauc.inference._obuchowski) and the cluster
bootstrap (pauc.inference._clusters, pauc.inference._cluster_bootstrap), through groups= on every
interval and test (the chance test and tpr_at_fpr_ci included).

With one row per cluster both reduce to the row-level methods: Obuchowski's
variance to DeLong's (S11 = 0 and the sums are the placements themselves; only
the order of the floating-point sums differs: 1e-12), the cluster bootstrap to
the stratified row bootstrap given the same multiplicities (the same weighted
walk: the areas agree to the row kernel's RESAMPLE_TOL).
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import quad
from scipy.stats import norm

from pauc.inference import _cluster_bootstrap
from pauc.inference._clusters import ClusterBootstrap, check_groups
from pauc.inference._delong import delong_covariance, placement_values
from pauc.inference._obuchowski import clustered_delong_covariance
from pauc.inference._resampling import StratifiedBootstrap, kernel_state
from pauc.metrics import (compare_rankers, partial_auc, partial_auc_ci, roc_auc_ci,
                          roc_confidence_band, tpr_at_fpr, tpr_at_fpr_ci,
                          two_way_partial_auc_ci)

RESAMPLE_TOL = 1e-12


@st.composite
def clustered_scores(draw, max_size=40, n_scores=2):
    size = draw(st.integers(6, max_size))
    y = np.array(draw(st.lists(st.booleans(), min_size=size, max_size=size)))
    y[:2], y[2:4] = True, False
    levels = draw(st.integers(1, 6))                      # few levels: ties
    scores = [np.array(draw(st.lists(st.integers(0, levels), min_size=size, max_size=size)),
                       dtype=np.float64) for _ in range(n_scores)]
    n_groups = draw(st.integers(4, size))
    groups = np.array(draw(st.lists(st.integers(0, n_groups - 1), min_size=size,
                                    max_size=size)))
    groups[:4] = [0, 1, 2, 3]               # at least two groups of each class
    return y, scores, groups


def _brute_obuchowski(y, scores, groups):
    """Obuchowski (1997), Sec. 2, from the m x n matrix of pair comparisons (tests only)."""
    labels = np.unique(groups)
    m_i = np.array([np.sum(y & (groups == g)) for g in labels])
    n_i = np.array([np.sum(~y & (groups == g)) for g in labels])
    m, n = m_i.sum(), n_i.sum()
    dev10, dev01, aucs = [], [], []
    for s in scores:
        psi = (s[y][:, None] > s[~y][None, :]) + 0.5 * (s[y][:, None] == s[~y][None, :])
        auc = psi.mean()
        v10, v01 = psi.mean(axis=1), psi.mean(axis=0)
        dev10.append([v10[groups[y] == g].sum() - k * auc for g, k in zip(labels, m_i)])
        dev01.append([v01[groups[~y] == g].sum() - k * auc for g, k in zip(labels, n_i)])
        aucs.append(auc)
    dev10, dev01 = np.array(dev10), np.array(dev01)
    i10, i01, i = np.count_nonzero(m_i), np.count_nonzero(n_i), len(labels)
    cov = np.empty((len(scores), len(scores)))
    for r in range(len(scores)):
        for t in range(len(scores)):
            s10 = i10 / ((i10 - 1) * m) * np.sum(dev10[r] * dev10[t])
            s01 = i01 / ((i01 - 1) * n) * np.sum(dev01[r] * dev01[t])
            s11_rt = i / (i - 1) * np.sum(dev10[r] * dev01[t])
            s11_tr = i / (i - 1) * np.sum(dev10[t] * dev01[r])
            cov[r, t] = s10 / m + s01 / n + (s11_rt + s11_tr) / (m * n)
    return np.array(aucs), cov


@settings(max_examples=150, deadline=None)
@given(clustered_scores())
def test_obuchowski_equals_brute_force(data):
    y, scores, groups = data
    aucs, cov = clustered_delong_covariance(y, scores, check_groups(groups, y.size))
    brute_aucs, brute_cov = _brute_obuchowski(y, scores, groups)
    assert np.allclose(aucs, brute_aucs, rtol=0, atol=1e-12)
    assert np.allclose(cov, brute_cov, rtol=0, atol=1e-12)


@settings(max_examples=150, deadline=None)
@given(clustered_scores(), st.randoms(use_true_random=False))
def test_one_row_per_cluster_obuchowski_is_delong(data, random):
    y, scores, _ = data
    labels = np.arange(y.size)
    random.shuffle(labels)                       # any labelling of the singletons
    aucs, cov = clustered_delong_covariance(y, scores, check_groups(labels, y.size))
    placements = [placement_values(y, s, keep_order=True) for s in scores]
    delong = delong_covariance(np.stack([p[0] for p in placements]),
                               np.stack([p[1] for p in placements]))
    assert np.allclose(cov, delong, rtol=0, atol=1e-12)
    assert np.allclose(aucs, [p[2] for p in placements], rtol=0, atol=0)
    # and through the public functions
    plain, clustered = roc_auc_ci(y, scores[0]), roc_auc_ci(y, scores[0], groups=labels)
    assert clustered.standard_error == pytest.approx(plain.standard_error, rel=0, abs=1e-12)
    two = compare_rankers(y, scores[0], scores[1])
    two_clustered = compare_rankers(y, scores[0], scores[1], groups=labels)
    assert two_clustered.standard_error == pytest.approx(two.standard_error, rel=0, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(clustered_scores(max_size=60), st.integers(0, 2 ** 32 - 1),
       st.sampled_from([(0.0, 1.0), (0.0, 0.3), (0.1, 0.6)]))
def test_one_row_per_cluster_bootstrap_is_row_bootstrap(data, seed, window):
    """The row bootstrap's drawn multiplicities, replayed as group multiplicities
    of singleton groups, give the row bootstrap's areas."""
    y, scores, _ = data
    lo, hi = window
    labels = np.arange(y.size)[::-1]             # singletons, coded in another order
    rows = StratifiedBootstrap(y, scores, hi, track_rows=True)
    areas, counts_pos, counts_neg = rows.one_complete_resample(
        np.random.SeedSequence(seed), lo, hi, 0.0)
    codes = check_groups(labels, y.size)
    group_counts = np.zeros(y.size, dtype=np.intc)
    group_counts[codes[rows.pos_rows]] = counts_pos
    group_counts[codes[rows.neg_rows]] = counts_neg
    clusters = ClusterBootstrap(y, scores, codes)
    assert np.allclose(clusters.weighted(group_counts, lo, hi, 0.0), areas,
                       rtol=0, atol=RESAMPLE_TOL)
    # the strata are the classes: a drawn resample keeps m positives and n negatives
    _, drawn = clusters.one_block(np.random.SeedSequence(seed), 5, lo, hi, 0.0)
    assert (drawn[:, codes[y]].sum(axis=1) == y.sum()).all()
    assert (drawn[:, codes[~y]].sum(axis=1) == (~y).sum()).all()


@settings(max_examples=100, deadline=None)
@given(clustered_scores(max_size=50), st.integers(0, 2 ** 32 - 1))
def test_cluster_resample_equals_repeated_rows(data, seed):
    """A drawn cluster resample: its areas are partial_auc on the rows repeated as
    often as their group was drawn, and each stratum keeps its number of groups."""
    y, scores, groups = data
    codes = check_groups(groups, y.size)
    boot = ClusterBootstrap(y, scores, codes)
    areas, counts = boot.one_block(np.random.SeedSequence(seed), 4, 0.0, 0.4, 0.0)
    composition = np.stack([boot.group_pos > 0, boot.group_neg > 0], axis=1)
    for b in range(4):
        for kind in ([True, False], [False, True], [True, True]):
            in_stratum = (composition == kind).all(axis=1)
            assert counts[b, in_stratum].sum() == in_stratum.sum()
        weight = counts[b][codes]
        for k, s in enumerate(scores):
            rep_s, rep_y = np.repeat(s, weight), np.repeat(y, weight)
            expected = partial_auc(rep_y, rep_s, fpr_range=(0.0, 0.4), normalize="none")
            assert areas[b, k] == pytest.approx(expected, rel=0, abs=RESAMPLE_TOL)


def _clustered_design(rng, n_clusters=150, size=4):
    """The issue's design: u shared by a cluster lowers its positives and raises its
    negatives; marginally positives ~ N(1, 1), negatives ~ N(0, 1)."""
    g = np.repeat(np.arange(n_clusters), size)
    y = rng.random(g.size) < 0.3
    u = rng.normal(size=n_clusters)[g]
    s = y + np.sqrt(0.6) * u * (2 * y - 1) + np.sqrt(0.4) * rng.normal(size=g.size)
    return y, s, g


def test_every_interval_and_test_takes_groups():
    y, s, g = _clustered_design(np.random.default_rng(0))
    t = s + np.random.default_rng(1).normal(size=s.size)
    kw = dict(n_resamples=200, random_state=3)
    results = [
        roc_auc_ci(y, s, groups=g), roc_auc_ci(y, s, groups=g, method="bootstrap", **kw),
        partial_auc_ci(y, s, fpr_range=(0, 0.3), groups=g, **kw),
        two_way_partial_auc_ci(y, s, groups=g, **kw),
        compare_rankers(y, s, t, groups=g), compare_rankers(y, s, t, groups=g,
                                                            method="bootstrap", **kw),
        compare_rankers(y, [s, t, -t], groups=g, metric="partial_auc", **kw),
    ]
    plain = [
        roc_auc_ci(y, s), roc_auc_ci(y, s, method="bootstrap", **kw),
        partial_auc_ci(y, s, fpr_range=(0, 0.3), **kw), two_way_partial_auc_ci(y, s, **kw),
        compare_rankers(y, s, t), compare_rankers(y, s, t, method="bootstrap", **kw),
        compare_rankers(y, [s, t, -t], metric="partial_auc", **kw),
    ]
    for clustered, rows in zip(results[:6], plain[:6]):
        assert clustered.estimate_a == rows.estimate_a if hasattr(rows, "estimate_a") \
            else clustered.estimate == rows.estimate
        # positively correlated clusters: the clustered spread is wider
        assert clustered.standard_error > rows.standard_error
    assert results[6].estimates == plain[6].estimates
    band = roc_confidence_band(y, s, groups=g, n_points=11, **kw)
    band_rows = roc_confidence_band(y, s, n_points=11, **kw)
    assert np.array_equal(band.tpr, band_rows.tpr)
    assert np.mean(band.high - band.low) > np.mean(band_rows.high - band_rows.low)
    # reproducible whatever n_jobs
    assert partial_auc_ci(y, s, groups=g, n_jobs=2, **kw) == \
        partial_auc_ci(y, s, groups=g, n_jobs=1, **kw)


def test_cluster_bootstrap_pairs_equal_two_ranker_calls_exactly():
    """Groups are drawn whatever the scores: a k-ranker call's pairs are the
    two-ranker calls' exactly, for any window."""
    rng = np.random.default_rng(5)
    y, s, g = _clustered_design(rng)
    scores = [s, s + rng.normal(size=s.size), -s + 2 * rng.normal(size=s.size)]
    kw = dict(metric="partial_auc", fpr_range=(0.0, 0.2), n_resamples=150, random_state=2,
              groups=g)
    many = compare_rankers(y, scores, **kw)
    for (i, j), comparison in zip(many.pairs, many.comparisons):
        two = compare_rankers(y, scores[i], scores[j], **kw)
        assert comparison == two and np.array_equal(comparison.resamples, two.resamples)


@pytest.mark.parametrize("groups, match", [
    (np.arange(99), "differ in length"),
    (np.arange(100).reshape(50, 2), "1-D"),
    (np.r_[np.nan, np.arange(99.0)], "NaN"),
    (np.zeros(100, dtype=int), "at least 2 groups"),
    (np.array([object()] * 100), "sortable"),
])
def test_bad_groups_refused(groups, match):
    rng = np.random.default_rng(0)
    y = np.arange(100) % 3 == 0
    s = rng.normal(size=100) + y
    for call in (lambda: roc_auc_ci(y, s, groups=groups),
                 lambda: roc_auc_ci(y, s, groups=groups, method="bootstrap"),
                 lambda: partial_auc_ci(y, s, fpr_range=(0, 0.5), groups=groups),
                 lambda: two_way_partial_auc_ci(y, s, groups=groups),
                 lambda: compare_rankers(y, s, -s, groups=groups),
                 lambda: compare_rankers(y, [s, -s, s ** 3], groups=groups),
                 lambda: roc_confidence_band(y, s, fpr_range=(0, 0.5), groups=groups)):
        with pytest.raises(ValueError, match=match):
            call()


def test_all_positives_in_one_group_refused():
    y = np.arange(40) < 10
    s = np.arange(40.0)
    groups = np.where(y, 0, np.arange(40))       # every positive in group 0
    with pytest.raises(ValueError, match="2 groups holding positives"):
        roc_auc_ci(y, s, groups=groups)


@pytest.mark.slow(seconds=10)
def test_clustered_intervals_cover_where_row_intervals_do_not():
    """150 clusters of 4 rows (issue 36): the row-level intervals ignore the clusters
    and under-cover (measured over these 300 replications: DeLong 0.77, the row
    bootstrap of the pAUC 0.80); the clustered ones cover 0.92-0.98 (measured:
    Obuchowski's DeLong 0.957, the cluster bootstrap of the AUC 0.960, of the
    partial AUC over FPR [0, 0.3] 0.937, of the TPR at FPR 0.1 0.957 where the
    exact row interval covers 0.85; true values of the binormal model with
    d = 1: the pAUC the integral of Phi(1 + Phi^-1(x)) over the window, the TPR
    Phi(1 - Phi^-1(0.9)))."""
    true_auc = norm.cdf(1.0 / np.sqrt(2.0))
    beta = 0.3
    true_pauc = quad(lambda x: norm.cdf(1.0 + norm.ppf(x)), 0.0, beta)[0] / beta
    true_tpr = norm.cdf(1.0 - norm.ppf(0.9))
    replications = 300
    covered = dict(rows=0, obuchowski=0, cluster_bootstrap=0, cluster_pauc=0, rows_pauc=0,
                   cluster_tpr=0, rows_tpr=0)
    for r in range(replications):
        y, s, g = _clustered_design(np.random.default_rng(r))
        intervals = dict(
            rows=(roc_auc_ci(y, s), true_auc),
            obuchowski=(roc_auc_ci(y, s, groups=g), true_auc),
            cluster_bootstrap=(roc_auc_ci(y, s, groups=g, method="bootstrap",
                                          n_resamples=500, random_state=r), true_auc),
            cluster_pauc=(partial_auc_ci(y, s, fpr_range=(0, beta), groups=g,
                                         n_resamples=500, random_state=r), true_pauc),
            rows_pauc=(partial_auc_ci(y, s, fpr_range=(0, beta), n_resamples=500,
                                      random_state=r), true_pauc),
            cluster_tpr=(tpr_at_fpr_ci(y, s, 0.1, method="bootstrap", groups=g,
                                       n_resamples=500, random_state=r), true_tpr),
            rows_tpr=(tpr_at_fpr_ci(y, s, 0.1), true_tpr))
        for name, (ci, truth) in intervals.items():
            covered[name] += ci.low <= truth <= ci.high
    coverage = {name: count / replications for name, count in covered.items()}
    assert coverage["rows"] < 0.85, coverage
    assert coverage["rows_pauc"] < 0.88 and coverage["rows_tpr"] < 0.9, coverage
    for name in ("obuchowski", "cluster_bootstrap", "cluster_pauc", "cluster_tpr"):
        assert 0.92 <= coverage[name] <= 0.98, coverage


@settings(max_examples=100, deadline=None)
@given(clustered_scores(max_size=50, n_scores=1), st.integers(0, 2 ** 32 - 1),
       st.sampled_from([0.0, 0.05, 0.2, 0.5, 1.0]))
def test_cluster_tpr_equals_tpr_at_fpr_on_repeated_rows(data, seed, fpr):
    """The cluster bootstrap's TPR at FPR: all ones is tpr_at_fpr itself; drawn
    multiplicities give tpr_at_fpr of the repeated rows, exactly."""
    y, (s,), groups = data
    codes = check_groups(groups, y.size)
    boot = ClusterBootstrap(y, [s], codes)
    assert boot.weighted_tpr(np.ones(boot.group_pos.shape[0], dtype=np.intc), fpr) == \
        tpr_at_fpr(y, s, fpr)
    _, counts = boot.one_block(np.random.SeedSequence(seed), 3, 0.0, 1.0, 0.0)
    for b in range(3):
        weight = counts[b][codes]
        expected = tpr_at_fpr(np.repeat(y, weight), np.repeat(s, weight), fpr)
        assert boot.weighted_tpr(counts[b], fpr) == expected


def test_tpr_at_fpr_ci_with_groups():
    y, s, g = _clustered_design(np.random.default_rng(0))
    clustered = tpr_at_fpr_ci(y, s, 0.1, method="bootstrap", groups=g, n_resamples=300,
                              random_state=1)
    rows = tpr_at_fpr_ci(y, s, 0.1, method="bootstrap", n_resamples=300, random_state=1)
    assert clustered.estimate == tpr_at_fpr(y, s, 0.1) == rows.estimate
    assert clustered.standard_error > rows.standard_error
    assert clustered == tpr_at_fpr_ci(y, s, 0.1, method="bootstrap", groups=g,
                                      n_resamples=300, random_state=1)
    with pytest.raises(ValueError, match="method='bootstrap'"):
        tpr_at_fpr_ci(y, s, 0.1, groups=g)
    with pytest.raises(ValueError, match="differ in length"):
        tpr_at_fpr_ci(y, s, 0.1, method="bootstrap", groups=g[1:])


def test_chance_test_with_groups():
    """The chance p-value comes from the clustered spread: Obuchowski's z test of
    0.5, and the cluster bootstrap's own resamples."""
    from scipy.special import ndtr
    from pauc.inference._intervals import _percentile_pvalue
    y, s, g = _clustered_design(np.random.default_rng(1))
    s = s * 0.15 + np.random.default_rng(2).normal(size=s.size)        # a weak ranker
    delong = roc_auc_ci(y, s, groups=g)
    z = (delong.estimate - 0.5) / delong.standard_error
    assert delong.pvalue_chance == pytest.approx(2 * ndtr(-abs(z)), rel=1e-12)
    assert delong.pvalue_chance > roc_auc_ci(y, s).pvalue_chance
    boot = partial_auc_ci(y, s, fpr_range=(0, 0.3), groups=g, n_resamples=300,
                          random_state=0)
    assert boot.pvalue_chance == _percentile_pvalue(boot.resamples, boot.chance)


@settings(max_examples=100, deadline=None)
@given(clustered_scores(max_size=60), st.integers(0, 2 ** 32 - 1),
       st.sampled_from([(0.0, 0.2), (0.1, 0.5), (0.0, 1.0)]))
def test_cluster_walk_past_its_prefix_is_exact(data, seed, window):
    """A walk that runs out of the runs it was given (here one per score) redoes
    itself over every run: the same areas and heights as with every run given."""
    y, scores, groups = data
    lo, hi = window
    boot = ClusterBootstrap(y, scores, check_groups(groups, y.size))
    state = kernel_state(np.random.Generator(np.random.PCG64(seed)))
    everything = np.diff(boot.run_start)
    one = np.ones_like(everything)
    results = []
    for prefix in (everything, one):
        results.append(_cluster_bootstrap.cluster_resample_areas(
            boot.pos_group32, boot.neg_group32, boot.run_of_pos_entry, boot.run_of_neg_entry,
            boot.pos_end, boot.neg_end, boot.run_start, prefix, boot.group_pos, boot.group_neg,
            boot.stratum_groups, boot.stratum_start, 5, state.copy(), lo, hi, 0.0))
    assert np.array_equal(results[0], results[1])
    one_score = ClusterBootstrap(y, scores[:1], check_groups(groups, y.size))
    grid = np.linspace(lo, hi, 6)
    heights = [_cluster_bootstrap.cluster_resample_areas(
        one_score.pos_group32, one_score.neg_group32, one_score.run_of_pos_entry,
        one_score.run_of_neg_entry, one_score.pos_end, one_score.neg_end, one_score.run_start,
        prefix, one_score.group_pos, one_score.group_neg, one_score.stratum_groups,
        one_score.stratum_start, 5, state.copy(), lo, hi, 0.0, grid)[1]
        for prefix in (np.diff(one_score.run_start), np.ones(1, dtype=np.int64))]
    assert np.array_equal(heights[0], heights[1])


# ---------------------------------------------------------------- issue 46

def _lonely_design(seed=0, swap=False):
    """Issue 46's reproducer: 15 positives in cluster 0, 15 positives and 5
    negatives in cluster 1, 40 clusters of 5 negatives.  Cluster 0 is alone in
    the stratum "positives only", cluster 1 alone in "both": every cluster
    resample draws both once, the same 30 positives every time.  ``swap``
    exchanges the classes (the negatives are then the fixed ones)."""
    rng = np.random.default_rng(seed)
    g = np.r_[np.zeros(15, dtype=int), np.ones(20, dtype=int), np.repeat(np.arange(2, 42), 5)]
    y = np.r_[np.ones(30, dtype=bool), np.zeros(205, dtype=bool)]
    s = y + np.sqrt(0.6) * rng.normal(size=42)[g] + np.sqrt(0.4) * rng.normal(size=y.size)
    return (~y, -s, g) if swap else (y, s, g)


@pytest.mark.parametrize("swap", [False, True])
def test_class_whose_clusters_are_each_alone_in_their_stratum_is_refused(swap):
    """As the row bootstrap refuses one row of a class: nothing of that class varies
    between cluster resamples (issue 46: standard error 0.019 where Obuchowski's
    is 0.086, coverage 0.435); Obuchowski's variance still answers."""
    y, s, g = _lonely_design(swap=swap)
    kw = dict(groups=g, n_resamples=100, random_state=0)
    calls = [lambda: roc_auc_ci(y, s, method="bootstrap", **kw),
             lambda: partial_auc_ci(y, s, fpr_range=(0, 0.5), **kw),
             lambda: two_way_partial_auc_ci(y, s, **kw),
             lambda: roc_confidence_band(y, s, fpr_range=(0, 0.5), **kw),
             lambda: compare_rankers(y, s, s ** 3 + s, method="bootstrap", **kw),
             lambda: compare_rankers(y, [s, -s, s ** 3], metric="partial_auc", **kw),
             lambda: tpr_at_fpr_ci(y, s, 0.2, method="bootstrap", **kw)]
    name = "negatives" if swap else "positives"
    for call in calls:
        with pytest.raises(ValueError, match=f"every cluster holding {name} is alone in its "
                                             "stratum"):
            call()
    obuchowski = roc_auc_ci(y, s, groups=g)
    assert obuchowski.standard_error > roc_auc_ci(y, s).standard_error


def test_class_with_a_redrawn_cluster_is_not_refused():
    """One more cluster of positives only: the stratum "positives only" holds two
    clusters, which the resamples redraw; not refused (warned: few clusters)."""
    y, s, g = _lonely_design()
    y, s, g = np.r_[y, np.ones(5, dtype=bool)], np.r_[s, np.ones(5)], np.r_[g, np.full(5, 99)]
    with pytest.warns(UserWarning, match="2 clusters holding positives"):
        ci = roc_auc_ci(y, s, groups=g, method="bootstrap", n_resamples=100, random_state=0)
    assert ci.standard_error > 0


@pytest.mark.parametrize("groups", [
    [1.0, np.nan, 2.0, 1.0, np.nan, 2.0, 3.0, np.nan],        # issue 46's reproducer
    [1.0, None, 2.0, 1.0, 4.0, 2.0, 3.0, 5.0],
    ["a", "b", None, "a", "c", "b", "d", "e"],
    ["a", "b", float("nan"), "a", "c", "b", "d", "e"],
    [1, 2, 3, 1, 4, 2, 3, np.datetime64("NaT")],
    [1, 2, 3, 1, 4, 2, 3, np.float32("nan")],
])
def test_missing_group_ids_of_any_dtype_are_refused(groups):
    """An object array (a pandas object column) with missing ids: refused as a float
    array with NaN is, not coded (NaN scrambles np.unique's codes of objects)."""
    labels = np.empty(len(groups), dtype=object)
    labels[:] = groups
    with pytest.raises(ValueError, match="missing"):
        check_groups(labels, labels.size)


def test_missing_group_ids_of_pandas_are_refused():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    y, s = np.arange(60) % 3 == 0, rng.normal(size=60)
    ids = np.arange(60) // 4
    for column in (pd.Series(ids, dtype="Int64").where(ids != 5),          # pandas.NA
                   pd.Series(ids.astype(str), dtype="string").where(ids != 5),
                   pd.Series(ids.astype(str), dtype=object).where(ids != 5),   # NaN
                   pd.Series(pd.Categorical(ids)).where(ids != 5),
                   pd.Series(pd.to_datetime(ids, unit="D").astype(object)).where(ids != 5)):
        with pytest.raises(ValueError, match="missing"):
            roc_auc_ci(y, s, groups=column)
        with pytest.raises(ValueError, match="missing"):
            check_groups(column, 60)
    # without missing ids the same columns are accepted, one code per id
    for column in (pd.Series(ids, dtype="Int64"), pd.Series(ids.astype(str), dtype="string"),
                   pd.Series(pd.Categorical(ids))):
        codes = check_groups(column, 60)
        assert np.array_equal(codes[:, None] == codes[None, :], ids[:, None] == ids[None, :])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(st.integers(-3, 3), st.none(), st.just(float("nan"))),
                min_size=1, max_size=30))
def test_object_group_codes_are_the_ids_or_refused(ids):
    """Whatever the objects: refused when an id is missing, else equal ids get equal
    codes and different ids different codes."""
    labels = np.empty(len(ids), dtype=object)
    labels[:] = ids
    if any(i is None or i != i for i in ids):
        with pytest.raises(ValueError, match="missing"):
            check_groups(labels, len(ids))
        return
    codes = check_groups(labels, len(ids))
    for i in range(len(ids)):
        for j in range(len(ids)):
            assert (codes[i] == codes[j]) == (ids[i] == ids[j])


@pytest.mark.parametrize("holding", ["positives", "negatives"])
def test_few_clusters_of_a_class_warn_at_the_documented_count(holding):
    """20 clusters holding a class (FEW_CLASS_CLUSTERS, the guide's coverage table):
    no warning; 19: a warning naming the class and the count."""
    def design(k):
        rng = np.random.default_rng(k)
        y = np.r_[np.ones(4 * k, dtype=bool), np.zeros(200, dtype=bool)]
        g = np.repeat(np.arange(k + 50), 4)
        s = y + rng.normal(size=k + 50)[g] + rng.normal(size=y.size)
        return (y, s, g) if holding == "positives" else (~y, -s, g)

    y, s, g = design(20)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        roc_auc_ci(y, s, groups=g, method="bootstrap", n_resamples=100, random_state=0)
        partial_auc_ci(y, s, fpr_range=(0, 0.5), groups=g, n_resamples=100, random_state=0)
    y, s, g = design(19)
    with pytest.warns(UserWarning, match=f"19 clusters holding {holding} are redrawn"):
        roc_auc_ci(y, s, groups=g, method="bootstrap", n_resamples=100, random_state=0)
    with pytest.warns(UserWarning, match=f"19 clusters holding {holding}"):
        compare_rankers(y, s, s ** 3, groups=g, metric="partial_auc", fpr_range=(0, 0.5),
                        n_resamples=100, random_state=0)
    with warnings.catch_warnings():                 # Obuchowski's variance: no strata
        warnings.simplefilter("error")
        roc_auc_ci(y, s, groups=g)
