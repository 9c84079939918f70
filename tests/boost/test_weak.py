"""The ranking stump's Cython sweeps against brute force on tiny data (spec §7)."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from pauc.boost import RankingStump
from pauc.boost._learners import StumpLearner
from pauc.boost._stump import ColumnStore
from pauc.boost._weak import youden_threshold


def weighted_auc_by_pairs(h, is_pos, w):
    """Σ_{i∈P} Σ_{k∈N} w_i w_k [1(h_i > h_k) + ½·1(h_i = h_k)] / (W+ W−), pair by pair."""
    num = 0.0
    for i in np.flatnonzero(is_pos):
        for k in np.flatnonzero(~is_pos):
            num += w[i] * w[k] * ((h[i] > h[k]) + 0.5 * (h[i] == h[k]))
    return num / (w[is_pos].sum() * w[~is_pos].sum())


@st.composite
def weighted_problems(draw, max_rows=9, max_cols=4):
    n = draw(st.integers(2, max_rows))
    q = draw(st.integers(1, max_cols))
    # Few distinct values (zeros included) so that ties and sparse zeros occur.
    X = np.array(draw(st.lists(st.sampled_from([-2.0, -1.0, 0.0, 0.0, 0.5, 1.0, 3.0]),
                               min_size=n * q, max_size=n * q))).reshape(n, q)
    is_pos = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    is_pos[0], is_pos[1] = True, False
    w = np.array(draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0]),
                               min_size=n, max_size=n)))
    w[0], w[1] = 1.0, 1.0        # both classes keep a positive weight
    return X, is_pos, w


@settings(max_examples=500, deadline=None)
@given(weighted_problems(), st.booleans())
def test_stump_equals_brute_force_weighted_auc_search(problem, sparse):
    X, is_pos, w = problem
    best = max(max(a, 1.0 - a) for a in
               (weighted_auc_by_pairs(X[:, j], is_pos, w) for j in range(X.shape[1])))
    stump = RankingStump().fit(sp.csr_matrix(X) if sparse else X, is_pos, sample_weight=w)
    assert stump.auc_ == pytest.approx(best, abs=1e-12)
    # The chosen feature and orientation achieve it.
    h = stump.sign_ * X[:, stump.feature_]
    assert weighted_auc_by_pairs(h, is_pos, w) == pytest.approx(best, abs=1e-12)


@settings(max_examples=500, deadline=None)
@given(weighted_problems())
def test_column_aucs_dense_sparse_and_subset_agree(problem):
    X, is_pos, w = problem
    pos = is_pos.astype(np.uint8)
    tp, tn = w[is_pos].sum(), w[~is_pos].sum()
    dense = ColumnStore.from_matrix(X).aucs(w, pos, tp, tn)
    sparse = ColumnStore.from_matrix(sp.csr_matrix(X)).aucs(w, pos, tp, tn)
    expected = [weighted_auc_by_pairs(X[:, j], is_pos, w) for j in range(X.shape[1])]
    np.testing.assert_allclose(dense, expected, atol=1e-12)
    np.testing.assert_allclose(sparse, expected, atol=1e-12)
    # A node's subset (MartiRank) is the filtered store with the node's totals.
    mask = np.arange(X.shape[0]) % 2 == 0
    mask[0] = mask[1] = True
    sub = ColumnStore.from_matrix(sp.csc_matrix(X)).subset(mask)
    got = sub.aucs(w, pos, w[is_pos & mask].sum(), w[~is_pos & mask].sum())
    expected = [weighted_auc_by_pairs(X[mask, j], is_pos[mask], w[mask])
                for j in range(X.shape[1])]
    np.testing.assert_allclose(got, expected, atol=1e-12)


@settings(max_examples=500, deadline=None)
@given(weighted_problems(max_cols=1))
def test_youden_threshold_equals_brute_force(problem):
    X, is_pos, w = problem
    h = X[:, 0]
    order = np.argsort(h, kind="stable")
    theta, tpr, fpr = youden_threshold(h[order], is_pos[order].astype(np.uint8), w[order])
    tot_p, tot_n = w[is_pos].sum(), w[~is_pos].sum()

    def rates(t):
        return w[is_pos & (h >= t)].sum() / tot_p, w[~is_pos & (h >= t)].sum() / tot_n

    best = max(0.0, max(np.subtract(*rates(t)) for t in np.unique(h)))
    assert tpr - fpr == pytest.approx(best, abs=1e-12)
    # The returned rates are those of the rule h ≥ θ.
    np.testing.assert_allclose(rates(theta), (tpr, fpr), atol=1e-12)


def test_youden_threshold_lies_between_distinct_scores():
    h = np.array([0.0, 1.0, 1.0, 2.0])
    theta, tpr, fpr = youden_threshold(h, np.array([0, 0, 1, 1], np.uint8), np.ones(4))
    assert theta == 1.5 and (tpr, fpr) == (0.5, 0.0)
    # Everything tied: no threshold helps; the rule accepts everything.
    theta, tpr, fpr = youden_threshold(np.zeros(3), np.array([0, 1, 1], np.uint8), np.ones(3))
    assert theta == -np.inf and (tpr, fpr) == (1.0, 1.0)


def test_stump_errors_and_api():
    X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0]])
    with pytest.raises(ValueError, match="only one class"):
        RankingStump().fit(X, [1, 1, 1])
    with pytest.raises(ValueError, match="non-negative"):
        RankingStump().fit(X, [0, 1, 1], sample_weight=[1, -1, 1])
    with pytest.raises(ValueError, match="total weight of zero"):
        RankingStump().fit(X, [0, 1, 1], sample_weight=[0, 1, 1])
    with pytest.raises(ValueError, match="pos_label"):
        RankingStump().fit(X, ["a", "b", "b"])
    stump = RankingStump(pos_label="b").fit(X, ["a", "b", "b"])
    assert (stump.feature_, stump.sign_, stump.auc_) == (0, 1.0, 1.0)
    np.testing.assert_array_equal(stump.decision_function(X), X[:, 0])


def best_split_by_brute_force(X, is_pos, w):
    """max over j, s, θ of TPR − FPR for the rule s·x_j ≥ θ, θ running over the data."""
    tot_p, tot_n = w[is_pos].sum(), w[~is_pos].sum()
    best = 0.0
    for j in range(X.shape[1]):
        for s in (1.0, -1.0):
            h = s * X[:, j]
            for t in np.unique(h):
                best = max(best, w[is_pos & (h >= t)].sum() / tot_p
                           - w[~is_pos & (h >= t)].sum() / tot_n)
    return best


@settings(max_examples=500, deadline=None)
@given(weighted_problems(), st.booleans())
def test_split_stump_equals_brute_force_search(problem, sparse):
    X, is_pos, w = problem
    best = best_split_by_brute_force(X, is_pos, w)
    stump = RankingStump(criterion="split_auc").fit(sp.csr_matrix(X) if sparse else X,
                                                    is_pos, sample_weight=w)
    # A two-valued ranker has AUC ½ + J/2 (Lemma 5) ...
    assert stump.auc_ == pytest.approx(0.5 + best / 2, abs=1e-12)
    h = stump.decision_function(X)
    assert weighted_auc_by_pairs(h, is_pos, w) == pytest.approx(stump.auc_, abs=1e-12)
    # ... and the split is its rule s·x_j ≥ θ, θ strictly between data values.
    v = stump.sign_ * X[:, stump.feature_]
    np.testing.assert_array_equal(h, (v >= stump.threshold_).astype(float))
    assert not np.isin(stump.threshold_, v)


@settings(max_examples=500, deadline=None)
@given(weighted_problems())
def test_split_stump_on_a_node_subset_equals_brute_force(problem):
    # The boosters' oracle on a subset of rows (MartiRank's nodes): implicit
    # zeros of the subset only, class totals of the subset only.
    X, is_pos, w = problem
    mask = np.arange(X.shape[0]) % 2 == 0
    mask[0] = mask[1] = True
    learner = StumpLearner(sp.csr_matrix(X), is_pos.astype(np.uint8), np.array([0, 1]),
                           criterion="split_auc")
    stump, _, h = learner.fit(w, np.flatnonzero(mask))
    best = best_split_by_brute_force(X[mask], is_pos[mask], w[mask])
    assert stump.auc_ == pytest.approx(0.5 + best / 2, abs=1e-12)
    assert weighted_auc_by_pairs(h, is_pos[mask], w[mask]) == pytest.approx(stump.auc_,
                                                                             abs=1e-12)


def test_split_stump_placement_ties_and_errors():
    # Variance-only feature: positives in the middle, negatives in both tails.
    x = np.array([-3.0, -1.0, 0.0, 1.0, 4.0])
    y = np.array([0, 1, 1, 1, 0])
    stump = RankingStump(criterion="split_auc").fit(x[:, None], y)
    # Both tails cut one negative (J = ½); orientation +1 wins the tie, and the
    # threshold sits midway between the distinct values -3 and -1.
    assert (stump.sign_, stump.threshold_, stump.auc_) == (1.0, -2.0, 0.75)
    # The raw score x has AUC exactly ½ here: the AUC stump sees no signal.
    assert RankingStump().fit(x[:, None], y).auc_ == 0.5
    # No split separates anything: h ≡ 1, AUC ½, θ = -inf.
    flat = RankingStump(criterion="split_auc").fit(np.ones((4, 2)), [0, 1, 0, 1])
    assert flat.auc_ == 0.5 and flat.threshold_ == -np.inf
    np.testing.assert_array_equal(flat.decision_function(np.ones((2, 2))), [1.0, 1.0])
    with pytest.raises(ValueError, match="criterion must be"):
        RankingStump(criterion="gini").fit(x[:, None], y)
