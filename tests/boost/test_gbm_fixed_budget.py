"""Thin evidence (issue 44): below SELECTION_MIN_POSITIVES training positives on small
data, ``loss="auto"`` boosts the small-data reference (stopped on each fold) and the
same trees for CatBoost's fixed budget (``"logloss-fixed"``: no held-out stopping, the
learning rate CatBoost sets for the number of rows, its leaf estimation and random
strength schedule), and keeps the fixed budget where the out-of-fold rows show it
better."""

import numpy as np
import pytest

from pauc.boost import GradientBoostingRanker
from pauc.boost import _fit
from pauc.boost._candidates import (FIXED_OBLIVIOUS, OBLIVIOUS_MAX_CELLS,
                                    SATURATED_CRITERION, SELECTION_MIN_POSITIVES, candidates,
                                    fixed_learning_rate, fixed_reference, thin_evidence)
from pauc.boost._stopping import Stopping


def _data(n_pos, n=600, seed=0, noise=0.5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    score = X[:, 0] + noise * rng.normal(size=n)
    y = np.zeros(n, dtype=int)
    y[np.argsort(-score)[:n_pos]] = 1
    return X, y


# CatBoostClassifier() (1.2.10, Logloss, 1000 iterations): learning_rate read from
# get_all_params() after fitting make_classification sets of these sizes
CATBOOST_RATES = {100: 0.003854, 300: 0.006161, 776: 0.009245, 1000: 0.010302,
                  3000: 0.016469, 10000: 0.027538, 30000: 0.044021, 100000: 0.07361}


@pytest.mark.parametrize("n_rows, rate", sorted(CATBOOST_RATES.items()))
def test_fixed_learning_rate_is_catboosts(n_rows, rate):
    assert fixed_learning_rate(n_rows) == pytest.approx(rate, rel=2e-3)


def test_thin_evidence_rule_and_its_boundaries():
    side = OBLIVIOUS_MAX_CELLS // 20
    below = SELECTION_MIN_POSITIVES - 1
    assert thin_evidence("auto", (1000, 10), below)
    assert not thin_evidence("auto", (1000, 10), SELECTION_MIN_POSITIVES)   # at the limit
    assert thin_evidence("auto", (side, 20), below)                          # 10**6 cells
    assert not thin_evidence("auto", (side + 1, 20), below)                  # one row more
    assert not thin_evidence("auto", (200, 101), below)                      # 101 features
    assert not thin_evidence("auto", None, below)                            # a cluster
    assert not thin_evidence("exponential", (1000, 10), 3)                   # a named loss
    names = [c.name for c in candidates("auto", (1000, 10), below)]
    assert names == ["logloss-oblivious", "logloss-fixed"]
    assert "logloss-fixed" not in [c.name for c in candidates("auto", (1000, 10),
                                                               SELECTION_MIN_POSITIVES)]
    assert [c.name for c in candidates("auto", (side + 1, 20), below)] == ["logloss"]


def test_the_fixed_candidate_is_catboosts_recipe():
    fixed = fixed_reference(776)
    assert fixed.rule == "fixed" and fixed.engine == "oblivious"
    assert fixed.config["learning_rate"] == fixed_learning_rate(776)
    for key, value in FIXED_OBLIVIOUS.items():
        assert fixed.config[key] == value
    assert FIXED_OBLIVIOUS["leaf_iterations"] == 10 and FIXED_OBLIVIOUS["leaves"] == "all"


def test_the_fixed_rule_never_stops_and_keeps_every_round():
    rule = Stopping("pauc", "fixed", patience=2, width=1)
    for t, value in enumerate([0.9, 0.5, 0.1, 0.05, 0.0]):
        assert rule.update(value, logloss=10.0 * t) is False
        assert rule.best_round == t + 1 and rule.improved
    assert rule.history == [0.9, 0.5, 0.1, 0.05, 0.0] and rule.best == 0.0


def test_below_the_rule_the_fixed_budget_runs_every_fold_to_the_cap():
    X, y = _data(SELECTION_MIN_POSITIVES - 1)
    model = GradientBoostingRanker((0.0, 0.1), n_estimators=60, n_iter_no_change=5,
                                   random_state=0).fit(X, y)
    results = model.cv_results_
    assert results["candidate"][:2] == ["logloss-oblivious", "logloss-fixed"]
    k = results["candidate"].index("logloss-fixed")
    assert results["rounds"][k] == [60] * model.n_splits_     # no held-out stopping
    assert results["capped_folds"][k] == model.n_splits_
    assert max(results["rounds"][0]) < 60                     # the reference stopped
    assert [b.n_trees for b in model._fitted.fits["logloss-fixed"].bag.boosters] == \
        [60] * model.n_splits_


def test_at_the_rule_the_full_pool_is_cross_fitted():
    X, y = _data(SELECTION_MIN_POSITIVES)
    model = GradientBoostingRanker((0.0, 0.1), n_estimators=20, n_iter_no_change=5,
                                   random_state=0).fit(X, y)
    assert model.cv_results_["candidate"][:3] == ["logloss-oblivious", "logloss",
                                                  "exponential"]
    assert "logloss-fixed" not in model.cv_results_["candidate"]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_fixed_budget_replaces_the_reference_only_past_the_bar(seed):
    """The selection's rule holds for the fixed budget: it (or a blend) is kept only
    where it beats the reference on SELECTION_CONFIDENCE of the resamples."""
    X, y = _data(60, n=500, seed=seed, noise=0.3)
    model = GradientBoostingRanker((0.0, 0.1), n_estimators=150, random_state=seed).fit(X, y)
    results = model.cv_results_
    share = dict(zip(results["candidate"], results["win_share"]))
    assert (model.selected_ == "logloss-oblivious" or share[model.selected_] >= 0.84
            or model._fitted.selection.every_row)
    if model.selected_ == "logloss-fixed":
        assert model.stopped_on_ == "fixed" and model.n_iter_ == 150


def test_n_jobs_does_not_change_the_thin_evidence_fit():
    X, y = _data(60)
    one = GradientBoostingRanker((0.0, 0.1), n_estimators=120, random_state=3).fit(X, y)
    two = GradientBoostingRanker((0.0, 0.1), n_estimators=120, random_state=3,
                                 n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(one.decision_function(X), two.decision_function(X))
    assert one.cv_results_["rounds"] == two.cv_results_["rounds"]
    assert one.selected_ == two.selected_ and one.threshold_ == two.threshold_


# ------------------------------------------------------------ a saturated window

def _separable(n_pos=40, n=500, seed=0):
    """Few positives far above every negative: the window saturates."""
    return _data(n_pos, n=n, seed=seed, noise=0.05)


def test_a_saturated_window_keeps_the_fixed_budget_on_every_row():
    X, y = _separable()
    model = GradientBoostingRanker((0.0, 0.1), n_estimators=80, random_state=0).fit(X, y)
    results = model.cv_results_
    assert results["oof_score"][0] >= SATURATED_CRITERION
    assert model.selected_ == "logloss-fixed" and model._fitted.selection.every_row
    k = results["candidate"].index("logloss-fixed")
    assert results["selected"][k] and np.isnan(results["oof_score"][k])
    # one booster on every row, the whole budget: CatBoost's defaults, no fold bag
    (name, weight, boosters, rounds), = model.members_
    assert name == "logloss-fixed" and weight == 1.0 and rounds == [80]
    assert len(boosters) == 1 and boosters[0].n_trees == 80
    assert model.n_iter_ == 80 and model.stopped_on_ == "fixed"
    assert results["rounds"][k] == [80] and results["boosted_rounds"][k] is None
    # the reference was cross-fitted (its evidence decided), the fixed budget was not
    assert len(results["rounds"][0]) == model.n_splits_
    assert set(model.fit_seconds_) == {"logloss-oblivious", "logloss-fixed"}
    # the threshold reads the one model's training scores
    scores = model.decision_function(X)
    assert np.mean(scores[y == 0] >= model.threshold_) <= 0.1


def test_a_noisy_window_keeps_the_selection_and_the_fold_bags():
    X, y = _data(60, n=500, seed=1, noise=2.0)
    model = GradientBoostingRanker((0.0, 0.1), n_estimators=80, random_state=0).fit(X, y)
    results = model.cv_results_
    assert results["oof_score"][0] < SATURATED_CRITERION
    assert not model._fitted.selection.every_row
    k = results["candidate"].index("logloss-fixed")
    assert results["rounds"][k] == [80] * model.n_splits_       # cross-fitted and judged
    assert all(len(boosters) == model.n_splits_ for _, _, boosters, _ in model.members_)


def test_the_saturation_rule_at_its_boundary(monkeypatch):
    """At the criterion the fixed budget goes to every row; one ulp above it, it is
    cross-fitted and judged by the selection's bar."""
    X, y = _data(45, n=400, seed=3, noise=0.6)
    first = GradientBoostingRanker((0.0, 0.1), n_estimators=40, random_state=0).fit(X, y)
    value = first.cv_results_["oof_score"][0]
    for limit, saturated in ((value, True), (np.nextafter(value, np.inf), False)):
        monkeypatch.setattr(_fit, "SATURATED_CRITERION", limit)
        model = GradientBoostingRanker((0.0, 0.1), n_estimators=40, random_state=0).fit(X, y)
        assert model.cv_results_["oof_score"][0] == value      # the same evidence
        assert model._fitted.selection.every_row is saturated
        k = model.cv_results_["candidate"].index("logloss-fixed")
        if saturated:
            assert model.selected_ == "logloss-fixed"
            assert len(model.members_[0][2]) == 1
        else:
            assert model.cv_results_["rounds"][k] == [40] * model.n_splits_


def test_n_jobs_does_not_change_the_saturated_fit():
    X, y = _separable()
    one = GradientBoostingRanker((0.0, 0.1), n_estimators=60, random_state=2).fit(X, y)
    two = GradientBoostingRanker((0.0, 0.1), n_estimators=60, random_state=2,
                                 n_jobs=2).fit(X, y)
    assert one._fitted.selection.every_row and two._fitted.selection.every_row
    np.testing.assert_array_equal(one.decision_function(X), two.decision_function(X))
