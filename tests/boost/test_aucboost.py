"""AUCBoost (paper 001, §3, Theorem 2): AdaBoost on ½D+ + ½D− with Lemma 4."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.ensemble import AdaBoostClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GridSearchCV
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier
from _sklearn_checks import expected_failed_checks
from sklearn.utils.estimator_checks import parametrize_with_checks

from pauc.boost import AUCBoost, RankingStump
from pauc.datasets import make_ranking_forest_data


def gaussian(n, seed, d=5, shift=0.6, p=0.3):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < p).astype(int)
    X = rng.standard_normal((n, d)) + shift * y[:, None] * np.linspace(1, 0.2, d)
    return X, y


@parametrize_with_checks([AUCBoost(n_estimators=10, random_state=0),
                          AUCBoost(n_estimators=5, conversion="randomized", random_state=0),
                          AUCBoost(n_estimators=5, weak_ranker=RankingStump(criterion="auc"))],
                         expected_failed_checks=lambda est: expected_failed_checks())
def test_check_estimator(estimator, check):
    check(estimator)


@pytest.mark.parametrize("params, message", [
    ({"n_estimators": 0}, "n_estimators must be an integer >= 1"),
    ({"n_estimators": 2.5}, "n_estimators must be an integer >= 1"),
    ({"conversion": "hard"}, "conversion must be"),
    ({"weak_ranker": "stump"}, "weak_ranker must be None"),
])
def test_bad_parameters(params, message):
    X, y = gaussian(50, 0)
    with pytest.raises(ValueError, match=message):
        AUCBoost(**params).fit(X, y)


def test_one_class_and_multiclass_are_refused():
    X, _ = gaussian(30, 0)
    with pytest.raises(ValueError, match="only one class"):
        AUCBoost().fit(X, np.ones(30))
    with pytest.raises(ValueError, match="Only binary classification"):
        AUCBoost().fit(X, np.arange(30) % 3)


def test_random_state_reproducibility():
    X, y = gaussian(400, 1)
    for conversion in ("soft", "randomized"):
        a = AUCBoost(30, conversion=conversion, random_state=7).fit(X, y)
        b = AUCBoost(30, conversion=conversion, random_state=7).fit(X, y)
        np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
        np.testing.assert_array_equal(a.estimator_weights_, b.estimator_weights_)
    # Other seed, other coins: the AdaBoost weights differ.
    c = AUCBoost(30, conversion="randomized", random_state=8).fit(X, y)
    assert not np.array_equal(a.estimator_weights_, c.estimator_weights_)
    # The default (soft, stumps) draws no coin at all: the seed is irrelevant.
    d = AUCBoost(30, random_state=8).fit(X, y)
    e = AUCBoost(30, random_state=None).fit(X, y)
    np.testing.assert_array_equal(d.decision_function(X), e.decision_function(X))


def test_soft_is_freund_schapire_adaboost_on_lemma4():
    """Soft conversion = AdaBoost of ref. [5] with g_t as a [0, 1]-valued hypothesis.

    Lemma 4 gives g_t the same expected error ε_t on both classes, so its
    D_t-weighted expected error is ε_t whatever the class split of D_t, and [5]'s
    weight is ``α_t = ½ ln((1 − ε_t)/ε_t)``; the update ``w·β^{1−|h−y|}`` is
    ``w·exp(−α_t y E_r[g_t])`` up to normalisation.
    """
    X, y = gaussian(600, 11)
    est = AUCBoost(30).fit(X, y)
    eps = est.class_errors_
    np.testing.assert_allclose(est.errors_, eps, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(est.estimator_weights_, 0.5 * np.log((1 - eps) / eps),
                               rtol=1e-9)
    # Replay [5]'s update from D_1 = ½D+ + ½D− and check each round's error.
    ypm = 2 * y - 1
    w = np.where(y == 1, 0.5 / y.sum(), 0.5 / (1 - y).sum())
    for stump, g, alpha, e in zip(est.estimators_, est._classifiers,
                                  est.estimator_weights_, est.errors_):
        p_plus = g.prob_positive(stump.decision_function(X))
        err = np.where(ypm == 1, 1 - p_plus, p_plus)       # |h(x) − y| of [5]
        assert (w * err).sum() == pytest.approx(e, rel=1e-9)
        beta = e / (1 - e)
        w = w * beta ** (1 - err)
        w /= w.sum()
        assert alpha == pytest.approx(-0.5 * np.log(beta))


def test_default_weak_ranker_is_the_split_stump():
    X, y = gaussian(300, 12)
    est = AUCBoost(5).fit(X, y)
    for stump, theta in zip(est.estimators_, est.thresholds_):
        assert stump.criterion == "split_auc"
        assert set(np.unique(stump.decision_function(X))) <= {0.0, 1.0}
        assert theta == 0.5            # Lemma 4's θ on the 0/1 scores: the split itself


def test_fitted_attributes_and_staged_scores():
    X, y = gaussian(300, 2)
    est = AUCBoost(25, random_state=0).fit(X, y)
    T = len(est.estimators_)
    for name in ["orientations_", "estimator_weights_", "errors_", "class_errors_",
                 "thresholds_", "zetas_", "randomize_low_", "train_auc_"]:
        assert getattr(est, name).shape == (T,), name
    staged = list(est.staged_decision_function(X))
    assert len(staged) == T
    np.testing.assert_allclose(staged[-1], est.decision_function(X))
    np.testing.assert_allclose([roc_auc_score(y, F) for F in staged], est.train_auc_)
    # Lemma 4 class errors stay below ½ − γ_t/4 (γ_t: the stump's weighted advantage).
    gammas = np.array([s.auc_ for s in est.estimators_]) - 0.5
    assert np.all(est.class_errors_ <= 0.5 - gammas / 4 + 1e-12)
    # predict is sign(F).
    np.testing.assert_array_equal(est.predict(X), est.classes_[(staged[-1] > 0).astype(int)])


def test_soft_rounds_obey_the_adaboost_bound():
    # Spec §4: err of sign(F) under ½D+ + ½D− ≤ Σ D_1 exp(−yF) ≤ Π 2√(e_t(1 − e_t)).
    X, y = gaussian(500, 3)
    est = AUCBoost(40, conversion="soft", random_state=0).fit(X, y)
    F, ypm = est.decision_function(X), 2 * y - 1
    d1 = np.where(y == 1, 0.5 / y.sum(), 0.5 / (1 - y).sum())
    bound = np.prod(2 * np.sqrt(est.errors_ * (1 - est.errors_)))
    assert (d1 * np.exp(-ypm * F)).sum() <= bound * (1 + 1e-9)
    assert d1[ypm * F <= 0].sum() <= bound


def test_sparse_and_dense_give_the_same_model():
    X, y = gaussian(300, 4)
    X[np.abs(X) < 0.7] = 0.0
    dense = AUCBoost(20, random_state=0).fit(X, y)
    sparse = AUCBoost(20, random_state=0).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(dense.decision_function(X),
                               sparse.decision_function(sp.csr_matrix(X)))


@pytest.mark.parametrize("weak_ranker", [
    LogisticRegression(C=0.1),                 # takes sample_weight
    KNeighborsClassifier(n_neighbors=15),      # no sample_weight: weighted resampling
])
def test_any_sklearn_estimator_is_a_weak_ranker(weak_ranker):
    X, y = gaussian(400, 5)
    Xt, yt = gaussian(2000, 6)
    est = AUCBoost(5, weak_ranker=weak_ranker, random_state=0).fit(X, y)
    assert all(type(h) is type(weak_ranker) for h in est.estimators_)
    # Optimal AUC of this problem ≈ 0.74 (Φ(0.89/√2)); five thresholded rounds get most of it.
    assert roc_auc_score(yt, est.decision_function(Xt)) > 0.6


def test_treerank_as_weak_ranker():
    tree = pytest.importorskip("pauc.tree")
    if not hasattr(tree, "TreeRank"):
        pytest.skip("pauc.tree.TreeRank is not available yet")
    X, y = gaussian(400, 7)
    Xt, yt = gaussian(2000, 8)
    est = AUCBoost(5, weak_ranker=tree.TreeRank(max_depth=2, min_samples_split=20,
                                                 min_samples_leaf=5), random_state=0)
    est.fit(X, y)
    assert roc_auc_score(yt, est.decision_function(Xt)) > 0.6


def test_clone_pickle_pipeline_gridsearch():
    X, y = gaussian(300, 9)
    est = AUCBoost(10, random_state=0).fit(X, y)
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(again.decision_function(X), est.decision_function(X))
    assert clone(est).get_params() == est.get_params()
    search = GridSearchCV(make_pipeline(StandardScaler(), AUCBoost(random_state=0)),
                          {"aucboost__n_estimators": [5, 20]}, scoring="roc_auc", cv=3)
    search.fit(X, y)
    assert search.best_params_["aucboost__n_estimators"] in (5, 20)


def _rf20_runs():
    """Three training seeds (n = 2000) of RF 20 and one shared test set of 20 000 points,
    AUCBoost and AdaBoost (depth-1 trees), 200 rounds each, in the same run."""
    Xt, yt, _ = make_ranking_forest_data("RF20", 20000, random_state=100)
    runs = []
    for seed in range(3):
        X, y, _ = make_ranking_forest_data("RF20", 2000, random_state=seed)
        est = AUCBoost(200, random_state=seed).fit(X, y)
        ada = AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=200,
                                 random_state=seed).fit(X, y)
        runs.append((est, roc_auc_score(yt, est.decision_function(Xt)),
                     roc_auc_score(yt, ada.decision_function(Xt))))
    return runs


@pytest.fixture(scope="module")
def rf20_runs():
    return _rf20_runs()


def test_rf20_training_auc_increases_with_rounds(rf20_runs):
    """Issue 7 acceptance, first half: training AUC rises with the rounds on average."""
    for est, _, _ in rf20_runs:
        assert np.mean(np.diff(est.train_auc_)) > 0
        assert est.train_auc_[-1] > est.train_auc_[49] > est.train_auc_[9] > est.train_auc_[0]


def test_rf20_test_auc_at_least_adaboost(rf20_runs):
    """Issue 7 acceptance, second half: test AUC at 200 rounds ≥ AdaBoost's (seed mean).

    Measured 2026-11-23: seeds 0-2 give 0.7402 0.7332 0.7330 (mean 0.7355) against
    AdaBoost's 0.7314 0.7326 0.7323 (mean 0.7321); over seeds 0-15 the mean gap is
    +0.0033 (AUCBoost ahead on 13 of 16).  See the AUCBoost Notes for why the split
    stump and the soft conversion (the defaults) get there.
    """
    ours = [r[1] for r in rf20_runs]
    theirs = [r[2] for r in rf20_runs]
    assert np.mean(ours) >= np.mean(theirs), (ours, theirs)


def test_early_stops():
    # Perfectly separated by one feature: the first round makes no error (ζ = 0).
    X = np.array([[0.0, 5.0], [1.0, 3.0], [2.0, 4.0], [3.0, 1.0]])
    y = np.array([0, 0, 1, 1])
    est = AUCBoost(50, random_state=0).fit(X, y)
    assert len(est.estimators_) == 1 and est.errors_[0] == 0.0
    assert est.train_auc_[0] == 1.0 and np.isfinite(est.estimator_weights_[0])
    # No feature separates anything (J = 0): no round is kept, F ≡ 0.
    flat = AUCBoost(50, random_state=0).fit(np.ones((6, 2)), [0, 1, 0, 1, 0, 1])
    assert flat.estimators_ == [] and flat.train_auc_.shape == (0,)
    np.testing.assert_array_equal(flat.decision_function(np.ones((3, 2))), np.zeros(3))
