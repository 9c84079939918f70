"""Many rankers at once (pauc.inference._many_rankers) and the adjusted p-values (pauc.inference._p_adjust).

The pairwise results of one k-ranker call must be those of k(k-1)/2 two-ranker
calls: DeLong to 1e-12 (the same placement values; only the order of the
covariance's sums may differ), the bootstrap of the full AUC exactly (both
calls draw every row of each class, in row order, from the same seeds); for a
partial AUC with few negatives the prefix is the whole class and the draws
agree exactly too; beyond that, the shared resamples are checked by replaying
one with its multiplicities.
"""

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pauc.inference._p_adjust import adjust_pvalues, benjamini_hochberg, holm
from pauc.inference._resampling import StratifiedBootstrap
from pauc.metrics import RankerComparisons, compare_rankers, partial_auc


def _direct_holm(p):
    """Holm (1979), step down: reject the smallest p-values while p_(i) <= q/(k-i+1);
    the adjusted p-value is the smallest q rejecting hypothesis i (tests only)."""
    k = len(p)
    order = sorted(range(k), key=lambda i: p[i])
    adjusted, running = [0.0] * k, 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (k - rank) * p[i]))
        adjusted[i] = running
    return adjusted


def _direct_bh(p):
    """Benjamini & Hochberg (1995), step up: the adjusted p-value of hypothesis i is
    the smallest q at which it is rejected, min over j >= rank of k p_(j) / j."""
    k = len(p)
    order = sorted(range(k), key=lambda i: p[i])
    adjusted = [0.0] * k
    for rank, i in enumerate(order):
        adjusted[i] = min(min(1.0, k * p[order[j]] / (j + 1)) for j in range(rank, k))
    return adjusted


pvalue_lists = st.lists(st.one_of(st.floats(0.0, 1.0), st.sampled_from([0.01, 0.05, 0.5])),
                        min_size=1, max_size=30)


@settings(max_examples=200, deadline=None)
@given(pvalue_lists)
def test_holm_and_bh_equal_direct_implementations(p):
    assert np.allclose(holm(p), _direct_holm(p), rtol=0, atol=1e-15)
    assert np.allclose(benjamini_hochberg(p), _direct_bh(p), rtol=0, atol=1e-15)


@pytest.mark.slow(seconds=20)
@settings(max_examples=50, deadline=None)
@given(pvalue_lists)
def test_holm_and_bh_equal_statsmodels(p):
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    for ours, theirs in (("holm", "holm"), ("bh", "fdr_bh")):
        expected = multitest.multipletests(p, method=theirs)[1]
        assert np.allclose(adjust_pvalues(p, ours), expected, rtol=0, atol=1e-15)


def test_adjusted_pvalues_keep_nan_out_of_the_family():
    p = [0.01, np.nan, 0.02]
    assert np.allclose(adjust_pvalues(p, "holm"), [0.02, np.nan, 0.02], equal_nan=True)
    assert np.array_equal(adjust_pvalues(p, None), p, equal_nan=True)
    with pytest.raises(ValueError, match="p_adjust"):
        adjust_pvalues(p, "bonferroni")


def _rankers(n, k, seed, levels=None):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    y[:2], y[2:4] = True, False
    shared = rng.normal(size=n)
    scores = [shared + (0.3 + 0.3 * i) * y + rng.normal(size=n) for i in range(k)]
    if levels is not None:                      # ties
        scores = [np.round(s * levels) for s in scores]
    return y, scores


@pytest.mark.parametrize("levels", [None, 2])
@pytest.mark.parametrize("groups", [False, True])
def test_delong_pairs_equal_two_ranker_calls(levels, groups):
    y, scores = _rankers(300, 4, 0, levels)
    g = np.arange(300) // 3 if groups else None
    many = compare_rankers(y, scores, groups=g, p_adjust=None)
    assert isinstance(many, RankerComparisons) and len(many) == 6
    for (i, j), c in zip(combinations(range(4), 2), many.comparisons):
        two = compare_rankers(y, scores[i], scores[j], groups=g)
        assert many[i, j] is c
        for field in ("estimate_a", "estimate_b", "difference", "low", "high",
                      "standard_error", "statistic", "pvalue"):
            assert getattr(c, field) == pytest.approx(getattr(two, field), rel=0, abs=1e-12)
        assert c.pvalue == many.pvalue_adjusted[many.pairs.index((i, j))]


@pytest.mark.parametrize("metric, n", [("roc_auc", 300), ("partial_auc", 60)])
def test_bootstrap_pairs_equal_two_ranker_calls_exactly(metric, n):
    """The full AUC (every row drawn) and a window whose prefix is the whole class
    (few negatives): each pair's resamples are those of the two-ranker call."""
    y, scores = _rankers(n, 4, 1, levels=3)
    kwargs = dict(metric=metric, method="bootstrap", n_resamples=120, random_state=7)
    if metric == "partial_auc":
        kwargs["fpr_range"] = (0.0, 0.5)
    many = compare_rankers(y, {f"r{i}": s for i, s in enumerate(scores)}, **kwargs)
    pairs = list(combinations(range(4), 2))
    assert many.pairs == tuple((f"r{i}", f"r{j}") for i, j in pairs)
    for (i, j), c in zip(pairs, many.comparisons):
        two = compare_rankers(y, scores[i], scores[j], **kwargs)
        assert c == two and np.array_equal(c.resamples, two.resamples)


def test_shared_resample_scores_every_ranker_on_the_same_rows():
    """Beyond the prefix's reach (pAUC, many negatives) the draws differ from a
    two-ranker call's; what holds is that one resample's multiplicities score
    every ranker: the areas equal partial_auc on the repeated rows."""
    y, scores = _rankers(2000, 5, 2)
    boot = StratifiedBootstrap(y, scores, 0.1, track_rows=True)
    areas, counts_pos, counts_neg = boot.one_complete_resample(
        np.random.SeedSequence(3), 0.0, 0.1, 0.0)
    for k, s in enumerate(scores):
        pos = np.repeat(s[boot.pos_rows], counts_pos)
        neg = np.repeat(s[boot.neg_rows], counts_neg)
        labels = np.r_[np.ones(pos.size, bool), np.zeros(neg.size, bool)]
        expected = partial_auc(labels, np.r_[pos, neg], fpr_range=(0, 0.1), normalize="none")
        assert areas[k] == pytest.approx(expected, rel=0, abs=1e-12)


def test_reference_compares_each_ranker_with_it():
    y, scores = _rankers(200, 3, 3)
    named = dict(zip("abc", scores))
    many = compare_rankers(y, named, reference="b", p_adjust="bh")
    assert many.pairs == (("a", "b"), ("c", "b"))
    assert many["c", "b"].difference == pytest.approx(
        compare_rankers(y, named["c"], named["b"]).difference, abs=1e-12)
    assert np.allclose(many.pvalue_adjusted,
                       benjamini_hochberg([c.pvalue for c in many.comparisons]))
    with pytest.raises(KeyError):
        many["b", "c"]


def test_two_d_array_and_table_output():
    y, scores = _rankers(200, 3, 4)
    many = compare_rankers(y, np.column_stack(scores))
    assert many.names == (0, 1, 2)
    text = str(many)
    assert "adj. Holm" in text and len(text.splitlines()) == 2 + 3
    rows = many.to_dicts()
    assert [(r["ranker_a"], r["ranker_b"]) for r in rows] == [(0, 1), (0, 2), (1, 2)]
    assert rows[0]["pvalue_adjusted"] == many.pvalue_adjusted[0]
    pd = pytest.importorskip("pandas")
    frame = many.to_frame()
    assert isinstance(frame, pd.DataFrame) and frame.shape[0] == 3
    assert frame["difference"].tolist() == [c.difference for c in many.comparisons]


def test_many_rankers_bad_input():
    y, scores = _rankers(100, 3, 5)
    with pytest.raises(ValueError, match="at least 2"):
        compare_rankers(y, [scores[0]])
    with pytest.raises(ValueError, match="score_b"):
        compare_rankers(y, scores[0])
    with pytest.raises(ValueError, match="reference"):
        compare_rankers(y, scores, reference="zz")
    with pytest.raises(ValueError, match="reference"):
        compare_rankers(y, scores[0], scores[1], reference=0)
    with pytest.raises(ValueError, match="p_adjust"):
        compare_rankers(y, scores, p_adjust="bonferroni")
    with pytest.raises(ValueError, match="p_adjust"):
        compare_rankers(y, scores[0], scores[1], p_adjust="bonferroni")
    with pytest.raises(ValueError, match="differ in length"):
        compare_rankers(y, [scores[0], scores[1][:-1]])
    with pytest.raises(ValueError, match="NaN"):
        compare_rankers(y, [scores[0], np.full(100, np.nan)])


@settings(max_examples=150, deadline=None)
@given(st.integers(6, 400), st.integers(2, 5), st.integers(0, 2 ** 32 - 1),
       st.sampled_from([None, 1, 3]), st.sampled_from([(0.0, 0.05), (0.0, 0.3), (0.1, 0.5),
                                                       (0.0, 1.0)]),
       st.sampled_from([0.0, 0.0, 0.4]))
def test_gathering_kernel_equals_scattering_kernel(n, k, seed, levels, window, floor):
    """Several scores: the gathering kernel gives the scattering kernel's resamples
    and areas exactly (the same draws in the same order, the same runs and walk),
    including resamples that run out of the prefix."""
    from pauc.inference import _bootstrap
    y, scores = _rankers(n, k, seed % 1000, levels)
    lo, hi = window
    boot = StratifiedBootstrap(y, scores, hi)
    in_pos, in_neg, state = boot.block_inputs(np.random.SeedSequence(seed), 30)
    if boot.k_neg < boot.n:
        # force a few resamples out of the prefix: too few draws land in it
        in_neg[:5] = np.minimum(in_neg[:5], int(hi * boot.n * 0.5))
    gathered = _bootstrap.gather_resample_areas(
        boot.pos_slot32, boot.neg_slot32, boot.run_of_pos_entry, boot.run_of_neg_entry,
        boot.pos_end, boot.neg_end, boot.run_start,
        boot.prefix_runs, boot.m, boot.n, boot.k_pos, boot.k_neg, in_pos, in_neg,
        state.copy(), lo, hi, floor)
    scattered, _, n_done = _bootstrap.resample_areas(*boot._kernel_inputs(), in_pos, in_neg,
                                                     state.copy(), lo, hi, floor)
    assert n_done == 30
    assert np.array_equal(gathered, scattered)


@pytest.mark.parametrize("method", ["delong", "bootstrap"])
def test_dataframe_of_rankers_named_by_its_columns(method):
    """Issue 46: a pandas DataFrame, a column per ranker, is the dict of its columns."""
    pd = pytest.importorskip("pandas")
    y, scores = _rankers(200, 3, 4)
    named = {"logit": scores[0], "forest": scores[1], 7: scores[2]}
    frame = pd.DataFrame(named, index=np.arange(200)[::-1])     # the index plays no part
    kw = dict(method=method, n_resamples=100, random_state=0, reference="forest")
    many = compare_rankers(y, frame, **kw)
    assert many.names == ("logit", "forest", 7)
    assert many.pairs == (("logit", "forest"), (7, "forest"))
    assert many.comparisons == compare_rankers(y, named, **kw).comparisons
    duplicated = pd.DataFrame(np.column_stack(scores), columns=["a", "b", "a"])
    with pytest.raises(ValueError, match="column names must be unique.*'a'"):
        compare_rankers(y, duplicated)


def test_errors_name_the_ranker():
    """An error about one ranker's scores names that ranker (issue 46)."""
    y, scores = _rankers(100, 3, 5)
    nan = scores[1].copy()
    nan[3] = np.nan
    with pytest.raises(ValueError, match="ranker 'b'.*NaN"):
        compare_rankers(y, {"a": scores[0], "b": nan, "c": scores[2]})
    with pytest.raises(ValueError, match="ranker 'c'.*differ in length"):
        compare_rankers(y, {"a": scores[0], "b": scores[1], "c": scores[2][:-1]},
                        method="bootstrap")
    with pytest.raises(ValueError, match="ranker 1.*NaN"):
        compare_rankers(y, [scores[0], nan])
    with pytest.raises(ValueError, match="score_b.*NaN"):
        compare_rankers(y, scores[0], nan)
    with pytest.raises(ValueError, match="score_a.*differ in length"):
        compare_rankers(y, scores[0][1:], scores[1], metric="partial_auc")
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"a": scores[0], "b": nan})
    with pytest.raises(ValueError, match="ranker 'b'.*NaN"):
        compare_rankers(y, frame)
