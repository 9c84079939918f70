"""Thin evidence (issue 44): below SELECTION_MIN_POSITIVES training positives on small
data, ``loss="auto"`` boosts the small-data reference (stopped on each fold) and the
same trees for CatBoost's fixed budget (``"logloss-fixed"``: no held-out stopping, the
learning rate CatBoost sets for the number of rows, its leaf estimation and random
strength schedule), and keeps the fixed budget where the out-of-fold rows show it
better."""

import pickle

import numpy as np
import pytest

from pauc.gbm import GradientBoostingRanker
from pauc._threshold import operating_threshold
from pauc.gbm import _plan as _fit
from pauc.gbm._candidates import (FIXED_OBLIVIOUS, OBLIVIOUS_MAX_CELLS,
                                    SELECTION_MIN_POSITIVES, candidates, fixed_learning_rate,
                                    fixed_reference, thin_evidence)
from pauc.gbm._stopping import Stopping


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
    assert model.selected_ == "logloss-oblivious" or share[model.selected_] >= 0.84
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


def _normalised(model):
    """The saturation rule's value of a fit: the reference's criterion one standard
    error below, from chance (0) to perfect (1), computed as _fit._saturated does."""
    results = model.cv_results_
    chance = float(np.mean([(a + b) / 2.0 for a, b in model.validation_windows_]))
    value = results["oof_score"][0] - results["oof_std_error"][0]
    return (value - chance) / (1.0 - chance)


@pytest.fixture
def short_budget(monkeypatch):
    """The rule's budget limit lowered to 80 rounds, so that a test boosts 80, not 1000."""
    monkeypatch.setattr(_fit, "FIXED_RATE_ROUNDS", 80)


def test_a_saturated_window_keeps_catboosts_budget_on_every_row():
    X, y = _separable()
    model = GradientBoostingRanker((0.0, 0.1), random_state=0).fit(X, y)    # defaults
    results = model.cv_results_
    assert _normalised(model) >= _fit.SATURATED_CRITERION
    assert model.selected_ == "logloss-fixed" and model._fitted.selection.every_row
    k = results["candidate"].index("logloss-fixed")
    assert results["selected"][k] and k == len(results["candidate"]) - 1
    assert np.isnan([results["oof_score"][k], results["oof_std_error"][k],
                     results["win_share"][k]]).all()
    assert results["weights"][k] == {"logloss-fixed": 1.0}
    # one booster on every row, CatBoost's 1000 rounds at its rate: no fold bag
    (name, weight, boosters, rounds), = model.members_
    assert name == "logloss-fixed" and weight == 1.0 and rounds == [1000]
    assert len(boosters) == 1 and boosters[0].n_trees == 1000
    assert model.n_iter_ == 1000 and model.stopped_on_ == "fixed"
    assert results["rounds"][k] == [1000] and results["boosted_rounds"][k] is None
    assert results["capped_folds"][k] is None
    # the reference was cross-fitted (its evidence decided), the fixed budget was not
    assert len(results["rounds"][0]) == model.n_splits_
    assert set(model.fit_seconds_) == {"logloss-oblivious", "logloss-fixed"}
    for attribute in (model.oof_scores_, model.validation_history_, model.validation_score_,
                      model.validation_rounds_, model.selection_confidence_):
        assert "logloss-fixed" not in attribute
    # the threshold is read on the one model's training scores
    assert model.threshold_ == operating_threshold(model.decision_function(X), y == 1, 0.1)


def test_a_noisy_window_cross_fits_the_fixed_budget(short_budget):
    X, y = _data(60, n=500, seed=1, noise=2.0)
    model = GradientBoostingRanker((0.0, 0.1), n_estimators=80, random_state=0).fit(X, y)
    results = model.cv_results_
    assert _normalised(model) < _fit.SATURATED_CRITERION
    assert not model._fitted.selection.every_row
    k = results["candidate"].index("logloss-fixed")
    assert results["rounds"][k] == [80] * model.n_splits_       # cross-fitted and judged
    assert not np.isnan(results["oof_score"][k])
    assert all(len(boosters) == model.n_splits_ for _, _, boosters, _ in model.members_)


def test_saturation_is_judged_from_chance_not_on_the_windows_scale(short_budget):
    """A window far from the top ([0.3, 1]: a random ranker scores 0.65) is high on
    noisy data without being saturated."""
    X, y = _data(60, n=1200, seed=0, noise=1.2)
    model = GradientBoostingRanker((0.3, 1.0), n_estimators=80, random_state=0).fit(X, y)
    assert model.cv_results_["oof_score"][0] >= _fit.SATURATED_CRITERION
    assert _normalised(model) < _fit.SATURATED_CRITERION
    assert not model._fitted.selection.every_row


def test_the_saturation_rule_at_its_boundary(short_budget, monkeypatch):
    """At the criterion the fixed budget goes to every row; one ulp above it, it is
    cross-fitted and judged by the selection's bar."""
    X, y = _data(45, n=400, seed=3, noise=0.6)
    # the judged evidence, as the rule reads it: a fit that saturates whatever it is
    monkeypatch.setattr(_fit, "SATURATED_CRITERION", -np.inf)
    first = GradientBoostingRanker((0.0, 0.1), n_estimators=80, random_state=0).fit(X, y)
    value = _normalised(first)
    assert 0.0 < value < 1.0
    for limit, saturated in ((value, True), (np.nextafter(value, np.inf), False)):
        monkeypatch.setattr(_fit, "SATURATED_CRITERION", limit)
        model = GradientBoostingRanker((0.0, 0.1), n_estimators=80, random_state=0).fit(X, y)
        assert model.cv_results_["oof_score"][0] == first.cv_results_["oof_score"][0]
        assert model._fitted.selection.every_row is saturated
        k = model.cv_results_["candidate"].index("logloss-fixed")
        if saturated:
            assert model.selected_ == "logloss-fixed" and len(model.members_[0][2]) == 1
        else:
            assert model.cv_results_["rounds"][k] == [80] * model.n_splits_


def test_a_budget_shorter_than_catboosts_is_judged_not_kept(monkeypatch):
    """CatBoost's rate is for 1000 rounds: a shorter fixed budget is under-trained, so
    a saturated window cross-fits it and leaves it to the bar (at the limit: kept)."""
    X, y = _separable()
    monkeypatch.setattr(_fit, "FIXED_RATE_ROUNDS", 60)
    for n_estimators, on_every_row in ((59, False), (60, True)):
        model = GradientBoostingRanker((0.0, 0.1), n_estimators=n_estimators,
                                       random_state=0).fit(X, y)
        assert model._fitted.selection.every_row is on_every_row
        k = model.cv_results_["candidate"].index("logloss-fixed")
        want = [n_estimators] if on_every_row else [n_estimators] * model.n_splits_
        assert model.cv_results_["rounds"][k] == want


def test_refit_and_pickling_of_a_saturated_fit(short_budget):
    X, y = _separable()
    model = GradientBoostingRanker((0.0, 0.1), n_estimators=80, random_state=0,
                                   refit=True).fit(X, y)
    assert model._fitted.selection.every_row and "refit" not in model.fit_seconds_
    (_, _, boosters, rounds), = model.members_
    assert len(boosters) == 1 and rounds == [80]                  # boosted once, not twice
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.decision_function(X), model.decision_function(X))
    assert again.threshold_ == model.threshold_


def test_n_jobs_does_not_change_the_saturated_fit(short_budget):
    X, y = _separable()
    one = GradientBoostingRanker((0.0, 0.1), n_estimators=80, random_state=2).fit(X, y)
    two = GradientBoostingRanker((0.0, 0.1), n_estimators=80, random_state=2,
                                 n_jobs=2).fit(X, y)
    assert one._fitted.selection.every_row and two._fitted.selection.every_row
    np.testing.assert_array_equal(one.decision_function(X), two.decision_function(X))
    assert one.threshold_ == two.threshold_
    for key in ("candidate", "rounds", "boosted_rounds", "selected"):
        assert one.cv_results_[key] == two.cv_results_[key]
    np.testing.assert_array_equal(one.cv_results_["oof_score"], two.cv_results_["oof_score"])
