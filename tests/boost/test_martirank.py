"""MartiRank (paper 001, §4-5): the branching program, freezing, and label noise."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from _sklearn_checks import expected_failed_checks
from sklearn.utils.estimator_checks import parametrize_with_checks

from pauc.boost import MartiRank
from pauc.boost._coins import coins, row_keys


def gaussian(n, rng, d=2, shift=3.0):
    """Two spherical Gaussians, ‖μ+ − μ−‖ = shift, balanced classes."""
    y = (rng.random(n) < 0.5).astype(int)
    X = rng.standard_normal((n, d)) + shift / np.sqrt(d) * y[:, None]
    return X, y


@parametrize_with_checks([MartiRank(n_levels=4, random_state=0),
                          MartiRank(n_levels=3, noise_rate=0.1, random_state=0)],
                         expected_failed_checks=lambda est: expected_failed_checks())
def test_check_estimator(estimator, check):
    check(estimator)


@pytest.mark.parametrize("params, message", [
    ({"n_levels": 0}, "n_levels must be an integer >= 1"),
    ({"noise_rate": 0.5}, r"noise_rate must be a number in \[0.0, 0.5\)"),
    ({"noise_rate": -0.1}, r"noise_rate must be a number in \[0.0, 0.5\)"),
    ({"epsilon": 0.0}, r"epsilon must be a number in \(0.0, 1.0\)"),
    ({"min_class_count": 0}, "min_class_count must be a number >= 1"),
    ({"weak_ranker": 3}, "weak_ranker must be None"),
])
def test_bad_parameters(params, message):
    X, y = gaussian(60, np.random.default_rng(0))
    with pytest.raises(ValueError, match=message):
        MartiRank(**params).fit(X, y)


def test_one_class_is_refused():
    X, _ = gaussian(30, np.random.default_rng(0))
    with pytest.raises(ValueError, match="only one class"):
        MartiRank().fit(X, np.zeros(30))


def test_program_shape_and_routing():
    rng = np.random.default_rng(1)
    X, y = gaussian(1500, rng, d=4, shift=1.5)
    T = 8
    est = MartiRank(n_levels=T, random_state=0).fit(X, y)
    # T(T+1)/2 internal nodes v_{i,t}, 0 ≤ i < t, in layer-major order.
    assert len(est.nodes_) == T * (T + 1) // 2
    assert [(nd.layer, nd.index) for nd in est.nodes_] == \
        [(t, i) for t in range(1, T + 1) for i in range(t)]
    # Conditioning, not reweighting: a layer's nodes share the sample that
    # reached that layer (what froze before it is gone).
    frozen_so_far = 0
    for t in range(1, T + 1):
        layer = [nd for nd in est.nodes_ if nd.layer == t]
        assert sum(nd.n_samples for nd in layer) == 1500 - frozen_so_far
        frozen_so_far += sum(nd.n_samples for nd in layer if nd.frozen)
    bins = est.apply(X)
    assert bins.min() >= 0 and bins.max() <= T
    # decision_function is the bin plus a tie-breaker in (0, 1), shifted by ⌈T/2⌉.
    score = est.decision_function(X) + (T + 1) // 2
    np.testing.assert_array_equal(np.floor(score).astype(int), bins)
    # The paper's H: +1 iff j ≥ T/2 (frozen nodes send +1 to bin T, −1 to bin 0).
    np.testing.assert_array_equal(est.predict(X), (2 * bins >= T).astype(int))
    # Optimal AUC Φ(1.5/√2) ≈ 0.86; stumps at 36 nodes get most of it.
    assert roc_auc_score(y, est.decision_function(X)) > 0.75


def test_reproducible_and_row_wise():
    rng = np.random.default_rng(2)
    X, y = gaussian(800, rng)
    a = MartiRank(n_levels=6, random_state=3).fit(X, y)
    b = MartiRank(n_levels=6, random_state=3).fit(X, y)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    # Hash coins: a row's score does not depend on the batch it comes in.
    np.testing.assert_array_equal(a.decision_function(X[::7]), a.decision_function(X)[::7])
    # Training rows are routed at predict time exactly as during fit.
    assert sum(nd.n_samples for nd in a.nodes_ if nd.layer == 1) == 800


def test_sparse_and_dense_agree():
    rng = np.random.default_rng(4)
    X, y = gaussian(600, rng, d=5, shift=2.0)
    X[np.abs(X) < 0.5] = 0.0
    dense = MartiRank(n_levels=5, random_state=0).fit(X, y)
    sparse = MartiRank(n_levels=5, random_state=0).fit(sp.csr_matrix(X), y)
    np.testing.assert_array_equal(dense.decision_function(X),
                                  sparse.decision_function(sp.csc_matrix(X)))


def test_coins_are_uniform_and_shared_by_dense_and_sparse_rows():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((20000, 3))
    keys = row_keys(X)
    u = coins(keys, 3, 11)
    assert abs(u.mean() - 0.5) < 0.01 and abs((u < 0.25).mean() - 0.25) < 0.01
    # Another node or seed gives unrelated coins.
    assert abs(np.corrcoef(u, coins(keys, 4, 11))[0, 1]) < 0.03
    assert abs(np.corrcoef(u, coins(keys, 3, 12))[0, 1]) < 0.03
    X[X < 0] = 0                   # zeros are not stored in the sparse rows
    np.testing.assert_array_equal(row_keys(X), row_keys(sp.csr_matrix(X)))


def test_generic_weak_ranker_and_pickle():
    rng = np.random.default_rng(6)
    X, y = gaussian(600, rng, d=3, shift=2.0)
    est = MartiRank(n_levels=4, weak_ranker=LogisticRegression(), random_state=0).fit(X, y)
    assert any(isinstance(nd.ranker, LogisticRegression) for nd in est.nodes_)
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(again.decision_function(X), est.decision_function(X))
    assert clone(est).get_params()["n_levels"] == 4


def test_freezing_rule_bounds_the_frozen_mass():
    # Rule (2), sample form (§5): a node freezes with label −b when its class-b
    # count is ≤ ε/(4T(T+1)) · m_b.  Over at most T(T+1)/2 such nodes, the class-b
    # examples it stops on the wrong side total ≤ ε/8 · m_b (Theorem 9's proof).
    rng = np.random.default_rng(7)
    X, y = gaussian(3000, rng, d=2, shift=3.0)
    eps, T = 0.9, 3
    m = {1: int(y.sum()), -1: int((1 - y).sum())}
    est = MartiRank(n_levels=T, epsilon=eps, min_class_count=1, random_state=0).fit(X, y)
    by_rule = [nd for nd in est.nodes_ if nd.freeze_reason == "rule (2)"]
    assert by_rule, [nd.freeze_reason for nd in est.nodes_]
    lost = {1: 0, -1: 0}
    for nd in by_rule:
        b = -nd.label
        count_b = nd.n_positive if b == 1 else nd.n_samples - nd.n_positive
        assert count_b <= eps / (4 * T * (T + 1)) * m[b]
        lost[b] += count_b
    assert lost[1] <= eps / 8 * m[1] and lost[-1] <= eps / 8 * m[-1]
    assert roc_auc_score(y, est.decision_function(X)) > 0.9


def test_noise_tolerant_variant_beats_the_plain_one_under_label_noise():
    """Issue 7 acceptance: 20% symmetric label noise on the training labels of a
    Gaussian problem; clean-test AUC of MartiRank(noise_rate=0.2) ≥ the same program
    with noise_rate=0 + 0.02, averaged over 5 seeds."""
    gains = []
    for seed in range(5):
        rng = np.random.default_rng(seed)
        X, y = gaussian(2000, rng)
        Xt, yt = gaussian(20000, rng)
        noisy = np.where(rng.random(y.shape[0]) < 0.2, 1 - y, y)
        aucs = [roc_auc_score(yt, MartiRank(n_levels=10, noise_rate=eta, random_state=seed)
                              .fit(X, noisy).decision_function(Xt)) for eta in (0.2, 0.0)]
        gains.append(aucs[0] - aucs[1])
    assert np.mean(gains) >= 0.02, gains
