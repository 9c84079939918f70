"""pauc's oblivious-tree booster against brute force and its own invariants."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from pauc import objectives
from pauc.gbm.engines import _oblivious
from pauc.gbm.engines import held_out_logloss
from pauc.gbm.engines._oblivious import OBLIVIOUS_DEFAULTS, ObliviousBooster, Quantizer, boost
from pauc.gbm.engines._oblivious_tree import (Grower, HeldOut, Random, best_split, descend,
                                        leaves_of, mvs_threshold)
from pauc.gbm._stopping import ValidationCriterion
from pauc.metrics import partial_auc


def brute_force_split(codes, leaf, wg, w, n_bins, n_leaves, l2, cosine, noise, offsets):
    """Every (feature, border): the leaves' sums recomputed from the rows."""
    best = (-np.inf, -1, -1)
    for f in range(codes.shape[0]):
        for b in range(n_bins[f] - 1):
            num = den = 0.0
            for node in range(n_leaves):
                for side in (codes[f] <= b, codes[f] > b):
                    rows = (leaf == node) & side
                    G, W = wg[rows].sum(), w[rows].sum()
                    num += G * G / (W + l2)
                    den += G * G * W / (W + l2) ** 2
            score = (num / np.sqrt(den) if den > 0 else 0.0) if cosine else num
            score += noise[offsets[f] + b]
            if score > best[0]:
                best = (score, f, b)
    return best


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), n_rows=st.integers(2, 40), n_features=st.integers(1, 4),
       depth=st.integers(0, 3), cosine=st.booleans(), l2=st.sampled_from([0.0, 0.5, 3.0]),
       with_noise=st.booleans())
def test_best_split_equals_brute_force(seed, n_rows, n_features, depth, cosine, l2, with_noise):
    rng = np.random.default_rng(seed)
    n_bins = rng.integers(1, 6, size=n_features).astype(np.int32)
    codes = np.stack([rng.integers(0, nb, size=n_rows) for nb in n_bins]).astype(np.uint8)
    n_leaves = 1 << depth
    leaf = rng.integers(0, n_leaves, size=n_rows).astype(np.int32)
    w = rng.exponential(size=n_rows) * (rng.random(n_rows) < 0.8)
    wg = w * rng.normal(size=n_rows)
    offsets = np.concatenate([[0], np.cumsum(n_bins - 1)]).astype(np.int64)
    noise = rng.normal(size=int(offsets[-1])) * (0.1 if with_noise else 0.0)
    f, b, score, l2_score = best_split(codes, leaf, wg, w, n_bins, offsets, n_leaves, l2 + 1e-12 * (l2 == 0),
                             cosine, noise)
    want = brute_force_split(codes, leaf, wg, w, n_bins, n_leaves, l2 + 1e-12 * (l2 == 0),
                             cosine, noise, offsets)
    if want[1] < 0:
        assert (f, b) == (-1, -1)
        return
    assert score == pytest.approx(want[0], rel=1e-9, abs=1e-12)
    plain = brute_force_split(codes[f:f + 1], leaf, wg, w, n_bins[f:f + 1], n_leaves,
                              l2 + 1e-12 * (l2 == 0), False,
                              np.r_[np.full(b, -np.inf), 0.0, np.full(n_bins[f] - 2 - b, -np.inf)],
                              np.array([0]))
    assert l2_score == pytest.approx(plain[0], rel=1e-9, abs=1e-12)
    # ties between borders: the kernel's choice must score as high as brute force's
    mine = brute_force_split(codes[f:f + 1], leaf, wg, w, n_bins[f:f + 1], n_leaves,
                             l2 + 1e-12 * (l2 == 0), cosine,
                             np.r_[np.full(b, -np.inf), noise[offsets[f] + b],
                                   np.full(n_bins[f] - 2 - b, -np.inf)], np.array([0]))
    assert mine[0] == pytest.approx(want[0], rel=1e-9, abs=1e-12)


def test_descend_and_leaves_of_agree():
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 5, size=(3, 50)).astype(np.uint8)
    features, borders = np.array([2, 0, 2], np.int32), np.array([1, 3, 0], np.int32)
    leaf = np.zeros(50, np.int32)
    for f, b in zip(features, borders):
        descend(codes, leaf, int(f), int(b))
    want = sum((codes[f] > b).astype(int) << (2 - d)
               for d, (f, b) in enumerate(zip(features, borders)))
    np.testing.assert_array_equal(leaf, want)
    np.testing.assert_array_equal(leaves_of(codes, features, borders), want)


@settings(max_examples=100, deadline=None)
@given(values=st.lists(st.floats(0.0, 100.0), min_size=1, max_size=60),
       share=st.floats(0.05, 0.99))
def test_mvs_threshold_keeps_the_requested_expected_count(values, share):
    values = [v if v > 1e-100 else 0.0 for v in values]
    a = np.asarray(values)
    n_kept = share * a.shape[0]
    mu = mvs_threshold(a, n_kept)
    if mu == 0.0:
        # fewer rows with a gradient than the rows to keep: every row is kept
        assert (a > 0).sum() <= n_kept
        return
    assert np.minimum(1.0, a / mu).sum() == pytest.approx(n_kept, rel=1e-9, abs=1e-9)


def _grower(codes, params, seed=0):
    n_bins = np.array([codes[f].max() + 1 for f in range(codes.shape[0])], np.int32)
    offsets = np.concatenate([[0], np.cumsum(n_bins - 1)]).astype(np.int64)
    return Grower(codes, n_bins, offsets, params["depth"], params["learning_rate"],
                  params["l2_leaf_reg"], params["random_strength"], params["bootstrap"],
                  params["subsample"], params["bagging_temperature"],
                  params["score"] == "cosine", Random(seed), params["leaves"] == "sampled",
                  params["leaf_iterations"], params["strength_decay"]), n_bins, offsets


def test_mvs_weights_are_unbiased_and_keep_large_gradients():
    rng = np.random.default_rng(1)
    grad = np.r_[np.full(10, 0.9), rng.uniform(0.0, 0.01, 990)]
    hess = grad * (1 - grad)
    codes = np.zeros((1, 1000), np.uint8)
    grower, _, _ = _grower(codes, dict(OBLIVIOUS_DEFAULTS, subsample=0.5))
    total = np.zeros_like(grad)
    for _ in range(4000):
        w = grower.weights(grad, hess)
        assert np.all(w[:10] == 1.0)            # above the threshold: always kept, weight 1
        total += w
    # E[w_i] = 1 for every row (Ibragimov & Gusev 2019): Monte-Carlo, 4000 draws
    assert abs(total[10:].mean() / 4000 - 1.0) < 0.02
    # about subsample * n rows kept per round
    assert abs((w > 0).sum() - 500) < 60


def test_random_stream_is_uniform_and_normal_and_seeded():
    u, z = Random(7).uniform(200_000), Random(7).normal(200_000)
    assert 0.0 <= u.min() and u.max() < 1.0
    assert abs(u.mean() - 0.5) < 0.003 and abs(u.var() - 1 / 12) < 0.002
    assert abs(z.mean()) < 0.01 and abs(z.std() - 1.0) < 0.01
    assert abs(np.mean(np.abs(z) < 1.96) - 0.95) < 0.003
    np.testing.assert_array_equal(Random(7).uniform(5), u[:5])
    assert not np.array_equal(Random(8).uniform(5), u[:5])


def _libm(function, values):
    """``function`` of the C library on each value (numpy's own vectorised exp and
    log may differ from it in the last bit, and a last bit decides a tie)."""
    return np.array([function(v) for v in values])


def reference_round(codes, n_bins, offsets, grad, hess, params, rng, t=0, y=None,
                    scores=None):
    """One round read off the module docstring of pauc.gbm.engines._oblivious, in numpy,
    drawing from ``rng`` in the Grower's order, summing in its order (left to
    right): (features, borders, values, leaf).  Round ``t`` (from 0) of log-loss
    on labels ``y`` at ``scores`` for the options the kernel's docstring gives: the
    strength's decay, leaves on every row, Newton steps per leaf."""
    n, depth, l2 = grad.shape[0], params["depth"], params["l2_leaf_reg"]
    if params["bootstrap"] == "bayesian":
        w = _libm(lambda u: math.pow(-math.log(1.0 - u), params["bagging_temperature"]),
                  rng.uniform(n))
    else:
        mu = 0.0
        if params["bootstrap"] == "mvs":
            reg = (sum(abs(g) for g in grad) / n) ** 2
            g_hat = np.sqrt(grad * grad + reg * hess * hess)
            mu = mvs_threshold(g_hat, params["subsample"] * n)
        if mu <= 0.0:
            w = np.ones(n)
        else:
            p = np.minimum(1.0, g_hat / mu)
            w = np.where(rng.uniform(n) < p, 1.0 / p, 0.0)
    sd = params["random_strength"] * math.sqrt(sum(g * g for g in grad) / n)
    if params["strength_decay"]:
        sd = sd / (1.0 + math.exp(t * params["learning_rate"] - math.log(n)))
    leaf = np.zeros(n, np.int32)
    features, borders = [], []
    for d in range(depth):
        noise = rng.normal(int(offsets[-1])) * sd if sd > 0 else np.zeros(int(offsets[-1]))
        f, b, _, _ = best_split(codes, leaf, w * grad, w, n_bins, offsets, 1 << d, l2,
                                params["score"] == "cosine", noise)
        f, b = (0, 0) if f < 0 else (f, b)
        leaf = (2 * leaf + (codes[f] > b)).astype(np.int32)
        features.append(f)
        borders.append(b)
    if params["leaves"] == "all":
        w = np.ones(n)
    if params["leaf_iterations"] > 1:
        # a <- a - G(a) / (H(a) + l2), the derivatives at scores + a, l2 not in G
        a = np.zeros(1 << depth)
        for _ in range(params["leaf_iterations"]):
            p = 1.0 / (1.0 + _libm(math.exp, -(scores + a[leaf])))
            a = a - (np.bincount(leaf, w * (p - y), 1 << depth)
                     / (np.bincount(leaf, w * p * (1 - p), 1 << depth) + l2))
        return features, borders, params["learning_rate"] * a, leaf
    G = np.bincount(leaf, w * grad, 1 << depth)
    H = np.bincount(leaf, w * hess, 1 << depth)
    return features, borders, -params["learning_rate"] * G / (H + l2), leaf


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n_rows=st.integers(5, 60), depth=st.integers(1, 4),
       bootstrap=st.sampled_from(["mvs", "bayesian", "none"]), score=st.sampled_from(["cosine", "l2"]),
       strength=st.sampled_from([0.0, 1.0]), leaves=st.sampled_from(["sampled", "all"]),
       leaf_iterations=st.sampled_from([1, 3, 10]), decay=st.booleans())
def test_grower_rounds_equal_the_numpy_reading(seed, n_rows, depth, bootstrap, score, strength,
                                               leaves, leaf_iterations, decay):
    """Five log-loss rounds of the GIL-free kernel (steps 1-4 in Cython) equal the
    numpy reading of the same round, drawing the same random numbers."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 6, size=(3, n_rows)).astype(np.uint8)
    y = (rng.random(n_rows) < 0.3).astype(np.float64)
    params = dict(OBLIVIOUS_DEFAULTS, depth=depth, bootstrap=bootstrap, score=score,
                  random_strength=strength, learning_rate=0.3, subsample=0.6, leaves=leaves,
                  leaf_iterations=leaf_iterations, strength_decay=decay)
    grower, n_bins, offsets = _grower(codes, params, seed)
    twin = Random(seed)
    codes_va = rng.integers(0, 6, size=(3, 7)).astype(np.uint8)
    k = 5
    out = [np.empty((k, depth), np.int32), np.empty((k, depth), np.int32),
           np.empty((k, 1 << depth)), np.empty((k, depth))]
    pos_va = np.array([True, False, False, True, False, False, False])
    windows = [(0.0, 0.5), (0.25, 1.0)]
    held_out, losses, criteria = HeldOut(codes_va, pos_va, windows), np.empty(k), np.empty(k)
    scores = np.zeros(n_rows)
    grower.grow_logloss(y, scores, k, *out, held_out, losses, criteria)
    want_va = np.zeros(7)
    want_scores = np.zeros(n_rows)
    for t in range(k):
        p = 1.0 / (1.0 + _libm(math.exp, -want_scores))
        f, b, values, leaf = reference_round(codes, n_bins, offsets, p - y, p * (1 - p),
                                             params, twin, t, y, want_scores)
        np.testing.assert_array_equal(out[0][t], f)
        np.testing.assert_array_equal(out[1][t], b)
        np.testing.assert_allclose(out[2][t], values, rtol=1e-10, atol=1e-14)
        want_va += out[2][t][leaves_of(codes_va, out[0][t], out[1][t])]
        # the stopping rule's inputs, computed in the kernel: the held-out log-loss, and
        # the criterion -- the same walk over the same sorted scores, the same value
        assert losses[t] == pytest.approx(held_out_logloss(pos_va, want_va), rel=1e-12)
        assert criteria[t] == ValidationCriterion(windows, pos_va).value(pos_va, want_va)
        want_scores += values[leaf]
    np.testing.assert_allclose(scores, want_scores, rtol=1e-10, atol=1e-13)
    np.testing.assert_array_equal(held_out.scores, want_va)


def test_rounds_per_call_does_not_change_the_trees(monkeypatch):
    X, is_pos = _problem()
    params = dict(OBLIVIOUS_DEFAULTS, seed=5, learning_rate=0.1)

    def run():
        calls = []
        booster = boost(params, "logloss", (0.0, 0.1), 40, X[:300], is_pos[:300],
                        valid=X[300:], valid_is_pos=is_pos[300:], windows=[(0.0, 0.1)],
                        on_round=lambda loss, value: calls.append((loss, value)) or len(calls) == 21)
        return booster, calls
    chunked, calls = run()
    monkeypatch.setattr(_oblivious, "ROUNDS_PER_CALL", 1)
    single, calls_single = run()
    assert chunked.n_trees == single.n_trees == 21
    for a, b in zip(chunked.arrays(), single.arrays()):
        np.testing.assert_array_equal(a, b)
    assert calls == calls_single


def test_quantizer_codes_count_the_borders_below():
    X = np.array([[0.0, 5.0], [1.0, 5.0], [2.0, 5.0], [2.0, 5.0]])
    q = Quantizer(254).fit(X)
    np.testing.assert_allclose(q.borders_[0], [0.5, 1.5])
    assert q.borders_[1].shape == (0,)
    np.testing.assert_array_equal(q.codes(np.array([[-1.0, 0], [0.5, 0], [0.6, 0], [9, 9]])),
                                  [[0, 0, 1, 2], [0, 0, 0, 0]])
    many = np.random.default_rng(0).normal(size=(5000, 1))
    q = Quantizer(254).fit(many)
    assert q.n_bins_[0] == 255
    counts = np.bincount(q.codes(many)[0], minlength=255)
    assert counts.min() >= 5000 // 255 - 1     # quantile borders: equal-frequency bins
    with pytest.raises(ValueError, match="border_count"):
        Quantizer(255)
    with pytest.raises(ValueError, match="features"):
        q.codes(np.zeros((3, 2)))


def _problem(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    is_pos = (X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=n)) > 1.2
    return X, is_pos


def test_held_out_scores_equal_prediction_and_same_seed_same_trees():
    X, is_pos = _problem()
    params = dict(OBLIVIOUS_DEFAULTS, seed=3, learning_rate=0.1)
    seen, windows, pos_va = [], [(0.0, 0.1), (0.0, 0.4)], is_pos[300:]
    booster = boost(params, "logloss", (0.0, 0.1), 30, X[:300], is_pos[:300], valid=X[300:],
                    valid_is_pos=pos_va, windows=windows,
                    on_round=lambda loss, value: seen.append((loss, value)) and False)
    assert isinstance(booster, ObliviousBooster) and booster.n_trees == 30
    # the kernel's held-out figures after round t are those of the first t trees' scores
    for t in (1, 7, 30):
        s = booster.predict(X[300:], t)
        assert seen[t - 1][0] == pytest.approx(held_out_logloss(pos_va, s), rel=1e-12)
        assert seen[t - 1][1] == ValidationCriterion(windows, pos_va).value(pos_va, s)
    again = boost(params, "logloss", (0.0, 0.1), 30, X[:300], is_pos[:300])
    for a, b in zip(booster.arrays(), again.arrays()):
        np.testing.assert_array_equal(a, b)


def test_on_round_stops_the_boosting():
    X, is_pos = _problem()
    params = dict(OBLIVIOUS_DEFAULTS, seed=0)
    calls = []
    booster = boost(params, "logloss", (0.0, 0.1), 50, X, is_pos, valid=X[:20],
                    on_round=lambda loss, value: calls.append(np.isnan([loss, value]).all())
                    or len(calls) == 4)
    assert calls == [True] * 4           # no labels, no windows: neither figure
    assert booster.n_trees == 4


@pytest.mark.parametrize("bootstrap", ["mvs", "bayesian", "none"])
def test_logloss_falls_and_ranking_is_learnt(bootstrap):
    X, is_pos = _problem(600)
    params = dict(OBLIVIOUS_DEFAULTS, seed=0, learning_rate=0.1, bootstrap=bootstrap)
    booster = boost(params, "logloss", (0.0, 0.1), 100, X, is_pos)

    def logloss(s):
        return np.mean(np.logaddexp(0.0, np.where(is_pos, -s, s)))
    assert logloss(booster.predict(X, 100)) < logloss(booster.predict(X, 10)) < np.log(2)
    X_test, pos_test = _problem(2000, seed=1)
    assert partial_auc(pos_test, booster.predict(X_test), fpr_range=(0, 0.1)) > 0.4
    gains = booster.gains(100, 5)
    # the label needs features 0, 1, 2; six levels per tree also split the other two
    assert gains[:3].min() > 2 * gains[3:].max()


def test_window_loss_drives_the_trees():
    """The window exponential loss on oblivious trees: its objective falls."""
    X, is_pos = _problem(600)
    params = dict(OBLIVIOUS_DEFAULTS, seed=0, learning_rate=0.1)
    booster = boost(params, "exponential", (0.0, 0.1), 60, X, is_pos)
    objective = objectives.WindowObjective(is_pos, (0.0, 0.1), "exponential", 0.0)
    assert objective.value(booster.predict(X, 60)) < objective.value(booster.predict(X, 5))
    assert partial_auc(is_pos, booster.predict(X), fpr_range=(0, 0.1)) > 0.5


def test_bad_parameters_are_named():
    X, is_pos = _problem(50)
    for key, value, match in (("score", "gini", "score"), ("bootstrap", "poisson", "bootstrap")):
        with pytest.raises(ValueError, match=match):
            boost(dict(OBLIVIOUS_DEFAULTS, seed=0, **{key: value}), "logloss", (0, 0.1), 2,
                  X, is_pos)


def test_small_data_pool_by_cells_and_features():
    from pauc.gbm._candidates import LARGE_DATA, SMALL_DATA, candidates
    assert candidates("auto", (1000, 10)) is SMALL_DATA
    assert candidates("auto", (50_000, 20)) is SMALL_DATA       # 10**6 cells
    assert candidates("auto", (50_001, 20)) is LARGE_DATA
    assert candidates("auto", (200, 101)) is LARGE_DATA         # too many features
    assert candidates("auto") is LARGE_DATA                     # shape unknown (a cluster)
    assert [c.name for c in candidates("exponential", (100, 5))] == ["exponential"]
    # fewer than SELECTION_MIN_POSITIVES training positives: the reference alone
    # (on small data with the fixed budget of its trees: test_gbm_fixed_budget.py)
    assert [c.name for c in candidates("auto", (1000, 10), 99)] == ["logloss-oblivious",
                                                                    "logloss-fixed"]
    assert candidates("auto", (1000, 10), 100) is SMALL_DATA
    assert candidates("auto", (50_001, 20), 99) == LARGE_DATA[:1]
    assert [c.name for c in candidates("exponential", (100, 5), 3)] == ["exponential"]


def test_few_positives_boost_the_reference_alone():
    from pauc.gbm import GradientBoostingRanker
    from pauc.gbm._candidates import SELECTION_MIN_POSITIVES
    rng = np.random.default_rng(0)
    X = rng.normal(size=(900, 4))
    score = X[:, 0] + 0.5 * rng.normal(size=900)
    # below the rule the reference and its fixed budget (test_gbm_fixed_budget.py)
    for n_pos, want in ((SELECTION_MIN_POSITIVES - 1, ["logloss-oblivious", "logloss-fixed"]),
                        (SELECTION_MIN_POSITIVES, ["logloss-oblivious", "logloss", "exponential"])):
        y = np.zeros(900, dtype=int)
        y[np.argsort(-score)[:n_pos]] = 1
        model = GradientBoostingRanker((0.0, 0.2), n_estimators=20, n_iter_no_change=5,
                                       random_state=0).fit(X, y)
        assert [c for c in model.cv_results_["candidate"]
                if model.cv_results_["rounds"][model.cv_results_["candidate"].index(c)]] == want


def test_held_out_rows_are_checked():
    codes = np.zeros((2, 4), np.uint8)
    with pytest.raises(ValueError, match="3 labels for 4 held-out rows"):
        HeldOut(codes, np.array([True, False, False]))
    with pytest.raises(ValueError, match="both classes, got 0 positives among 4"):
        HeldOut(codes, np.zeros(4, bool), [(0.0, 0.1)])
    assert HeldOut(codes, np.zeros(4, bool)).scores.tolist() == [0.0] * 4   # log-loss only
