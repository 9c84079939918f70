"""GradientBoostingRanker's cross-fitting, out-of-fold selection, fold bagging, and
the fixes of issue 25's hostile pass."""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold

from pauc.gbm import GradientBoostingRanker
from pauc.gbm._crossfit import (LARGE_DATA_FOLDS, SMALL_DATA_FOLDS, SMALL_DATA_ROWS,
                                   auto_n_folds)
from pauc.gbm.engines import engine_of
from pauc.gbm._ranker import SELECTION_CONFIDENCE
from pauc.gbm._selection import (RankScale, blend, criterion, fold_quantiles,
                                   greedy_ensemble, select, win_shares)
from pauc.gbm._stopping import Stopping, middle_of_stretch
from pauc.metrics import partial_auc


def _data(n=3000, seed=0, **kwargs):
    params = dict(n_features=10, n_informative=5, weights=[0.8], random_state=seed)
    params.update(kwargs)
    return make_classification(n, **params)


# ------------------------------------------------------------ out-of-fold scores

def test_out_of_fold_scores_come_from_models_that_never_saw_the_row():
    """Random labels, trees that memorise (31 leaves of one row): a model scores
    its own training rows well and unseen rows at chance.  The out-of-fold AUC
    stays at chance; a fold model that had seen its held-out rows (a leak) would
    score them like the training rows."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(800, 5))
    y = rng.random(800) < 0.3
    model = GradientBoostingRanker(loss="logloss", n_estimators=30, n_iter_no_change=40,
                                   min_child_samples=1, learning_rate=0.5, cv=4,
                                   random_state=0).fit(X, y)
    oof = model.oof_scores_["logloss"]
    assert not np.isnan(oof).any()
    assert roc_auc_score(y, model.decision_function(X)) > 0.7       # it memorises
    assert abs(roc_auc_score(y, oof) - 0.5) < 0.08                  # the OOF rows are unseen


def test_fold_quantiles_pool_folds_of_different_scales():
    """Two folds ranked alike but on scales 1 and 100: their quantiles pool to the
    same ranking in each fold (raw scores would put the second fold on top)."""
    a, b = np.array([0.1, 0.5, 0.9, 0.3]), 100 * np.array([0.1, 0.5, 0.9, 0.3])
    np.testing.assert_array_equal(fold_quantiles(a), fold_quantiles(b))
    np.testing.assert_allclose(fold_quantiles(np.array([1.0, 1.0, 2.0])),
                               [1 / 3, 1 / 3, 5 / 6])
    # centred: a fold's ties are 1/2 whatever its size (a candidate that ranks
    # nothing cannot tell the folds apart), and its quantiles average 1/2
    for n in (3, 4, 7):
        np.testing.assert_array_equal(fold_quantiles(np.zeros(n)), np.full(n, 0.5))
        assert np.isclose(fold_quantiles(np.arange(n) ** 2.0).mean(), 0.5)


def test_out_of_fold_scores_are_the_fold_models_predictions(monkeypatch):
    monkeypatch.setattr("pauc.gbm._race.RACING", False)   # every candidate's folds
    X, y = _data(1500)
    splitter = StratifiedKFold(3, shuffle=True, random_state=1)
    model = GradientBoostingRanker((0.0, 0.2), n_estimators=40, n_iter_no_change=10,
                                   cv=splitter, random_state=0).fit(X, y)
    assert model.n_splits_ == 3
    assert set(model._fitted.fits) == {"logloss-oblivious", "logloss", "exponential"}
    for name, fit in model._fitted.fits.items():
        for (_, held_out), booster, n in zip(splitter.split(X, y), fit.bag.boosters,
                                             fit.bag.rounds):
            np.testing.assert_allclose(
                model.oof_scores_[name][held_out],
                fold_quantiles(engine_of(booster).predict(booster, X[held_out], n)),
                rtol=1e-12)
        # and the pooled criterion of cv_results_ is theirs
        k = model.cv_results_["candidate"].index(name)
        assert model.cv_results_["oof_score"][k] == pytest.approx(np.mean(
            [partial_auc(y, model.oof_scores_[name], fpr_range=w)
             for w in model.validation_windows_]))


def test_fold_bagged_scores_are_the_mean_of_the_fold_models():
    X, y = _data(1500, seed=2)
    model = GradientBoostingRanker((0.0, 0.2), loss="exponential", n_estimators=40,
                                   n_iter_no_change=10, cv=3, random_state=0).fit(X, y)
    (name, weight, boosters, rounds), = model.members_
    assert (name, weight, len(boosters)) == ("exponential", 1.0, 3)
    expected = np.mean([b.predict(X, raw_score=True, num_iteration=n)
                        for b, n in zip(boosters, rounds)], axis=0)
    np.testing.assert_allclose(model.decision_function(X), expected, rtol=1e-12)
    refit = clone(model).set_params(refit=True).fit(X, y)
    (_, _, boosters, rounds), = refit.members_
    assert len(boosters) == 1 and rounds[0] == max(1, int(round(np.mean(
        model.cv_results_["rounds"][0]))))


@pytest.mark.parametrize("loss", ["auto", "squared_hinge"])
def test_same_seed_same_scores_and_n_jobs_independent(loss):
    X, y = _data(3000, seed=3)
    make = lambda n_jobs, seed=7: GradientBoostingRanker(   # noqa: E731
        (0.0, 0.1), loss=loss, n_estimators=30, n_iter_no_change=8, random_state=seed,
        n_jobs=n_jobs)
    one = make(1).fit(X, y)
    np.testing.assert_array_equal(make(1).fit(X, y).decision_function(X),
                                  one.decision_function(X))
    two = make(2).fit(X, y)
    np.testing.assert_array_equal(two.decision_function(X), one.decision_function(X))
    assert two.cv_results_ == one.cv_results_
    other = make(1, seed=8).fit(X, y)
    assert not np.array_equal(other.decision_function(X), one.decision_function(X))


def test_pickle_and_clone_keep_the_bagged_model():
    X, y = _data(1200)
    model = GradientBoostingRanker((0.0, 0.2), n_estimators=20, n_iter_no_change=5,
                                   random_state=0).fit(X, y)
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.decision_function(X), model.decision_function(X))
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
    twin = clone(model)
    assert twin.get_params() == model.get_params() and not hasattr(twin, "members_")


def test_cv_auto_picks_the_folds_from_the_data():
    # big enough window and positives: one validation split
    assert auto_n_folds(20_000, 200_000, (0.0, 0.1), 0.1) == 1
    assert auto_n_folds(500, 5000, (0.0, 0.1), 0.1) == 5
    assert auto_n_folds(3000, 27_000, (0.0, 0.1), 0.1) == 3
    assert auto_n_folds(3, 2997, (0.0, 0.1), 0.1) == 3          # never more than positives
    # the small-data row limit is inclusive: at it the small-data folds, one row above not
    n_pos = SMALL_DATA_ROWS // 10
    assert SMALL_DATA_FOLDS != LARGE_DATA_FOLDS
    assert auto_n_folds(n_pos, SMALL_DATA_ROWS - n_pos, (0.0, 0.1), 0.1) == SMALL_DATA_FOLDS
    assert auto_n_folds(n_pos, SMALL_DATA_ROWS - n_pos + 1, (0.0, 0.1), 0.1) == LARGE_DATA_FOLDS
    X, y = _data(1000)
    model = GradientBoostingRanker((0.0, 0.1), n_estimators=5, random_state=0).fit(X, y)
    assert model.n_splits_ == 5 and len(model.cv_results_["rounds"][0]) == 5


# ------------------------------------------------------------------- selection

def test_select_keeps_the_best_candidate_clearing_the_bar_not_the_last():
    """Two candidates clear the bootstrap bar; the better one is kept (a planted
    bug keeping the last one survived the suite before)."""
    values = [0.50, 0.70, 0.60]
    boot = np.array([[0.5, 0.7, 0.6]] * 90 + [[0.5, 0.4, 0.4]] * 10)
    assert list(win_shares(boot)) == [0.5, 0.9, 0.9]
    assert select(values, boot, confidence=0.84) == 1
    # the best misses the bar: the other one
    boot[:20, 1] = 0.3
    assert select(values, boot, confidence=0.84) == 2
    # nobody clears it: the reference
    assert select(values, boot, confidence=0.95) == 0


def test_kept_candidate_is_the_best_eligible_one():
    X, y = _data(2000, seed=4)
    model = GradientBoostingRanker((0.0, 0.1), n_estimators=60, n_iter_no_change=10,
                                   random_state=0).fit(X, y)
    res = model.cv_results_
    eligible = [k for k in range(len(res["candidate"]))
                if k == 0 or res["win_share"][k] >= SELECTION_CONFIDENCE]
    best = max(eligible, key=lambda k: (res["oof_score"][k], -k))
    assert res["selected"].index(True) == best
    assert model.selected_ == res["candidate"][best]
    assert set(res) == {"candidate", "oof_score", "oof_std_error", "win_share", "rounds",
                        "stopping", "boosted_rounds", "capped_folds", "dropped", "weights",
                        "selected"}
    assert all(0 < se < 0.1 for se in res["oof_std_error"])


def test_oof_std_error_is_the_bootstrap_standard_error_of_the_criterion():
    """``oof_std_error`` is the standard deviation of the candidate's out-of-fold
    criterion over stratified bootstrap resamples of the held-out rows, recomputed
    here by a loop of its own (a value 10 times too small passed every test before).
    Both are Monte Carlo estimates (the fit's on 100 resamples): the relative error
    of a standard deviation from 100 draws is about 1/sqrt(200) = 7 %, so 30 % is
    over four of its standard errors and a factor of 2 is far outside."""
    X, y = _data(2000, seed=4)
    model = GradientBoostingRanker((0.0, 0.1), n_estimators=60, n_iter_no_change=10,
                                   random_state=0).fit(X, y)
    res = model.cv_results_
    rng = np.random.default_rng(11)
    for name, scores in model.oof_scores_.items():
        rows = ~np.isnan(scores)
        pos, s = y[rows] == 1, scores[rows]
        pos_rows, neg_rows = np.flatnonzero(pos), np.flatnonzero(~pos)
        values = []
        for _ in range(2000):
            draw = np.concatenate([rng.choice(pos_rows, pos_rows.size),
                                   rng.choice(neg_rows, neg_rows.size)])
            values.append(np.mean([partial_auc(pos[draw], s[draw], fpr_range=w)
                                   for w in model.validation_windows_]))
        expected = np.std(values, ddof=1)
        got = res["oof_std_error"][res["candidate"].index(name)]
        assert got == pytest.approx(expected, rel=0.3), name


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(-5, 5), min_size=1, max_size=30),
       st.lists(st.floats(-20, 20), min_size=1, max_size=30))
def test_rank_scale_is_strictly_increasing_beyond_the_reference(reference, scores):
    scale = RankScale(np.array(reference, dtype=float))
    s = np.sort(np.round(scores, 3))           # distinct scores a float step apart or more
    u = scale(s)
    assert np.all(np.diff(u)[np.diff(s) > 0] > 0)
    assert np.all((u > 0) | (s < min(reference)))
    # a reference score maps to its mid-rank
    r = np.array(reference, dtype=float)
    for v in np.unique(r):
        assert scale(np.array([v]))[0] == pytest.approx(
            ((r < v).sum() + 0.5 * ((r == v).sum() + 1)) / r.size)


def test_greedy_ensemble_returns_the_weights_of_its_value():
    rng = np.random.default_rng(0)
    is_pos = rng.random(400) < 0.2
    signal = is_pos + rng.normal(size=400)
    normalized = [RankScale(s)(s) for s in
                  (signal + rng.normal(size=400), signal + rng.normal(size=400),
                   rng.normal(size=400))]
    windows = [(0.0, 0.2)]
    weights, value = greedy_ensemble(normalized, is_pos, windows, max_steps=10)
    assert weights.sum() == pytest.approx(1.0)
    assert value == pytest.approx(criterion(is_pos, blend(normalized, weights), windows))
    assert value >= max(criterion(is_pos, s, windows) for s in normalized)


# --------------------------------------------------------- hostile-pass fixes

def _stop_round_session(stopping, curve):
    """Feed ``curve`` through the in-process engines' session loop
    (:class:`pauc.gbm.engines.Session`); the round it stopped at."""
    from pauc.gbm.engines import Session

    class Curve(Session):
        def _boost(self, n_rounds):
            for _ in range(n_rounds):
                value = curve[self.rounds]
                self.rounds += 1
                if self._after_round(value, -value, None):
                    return True
            return False

        def _predict_held_out(self, n_rounds):
            return np.zeros(1)
    session = Curve(None, len(curve), None, None, stopping, False)
    assert session.advance(len(curve)) and session.kept_round == stopping.best_round
    return session.rounds - 1


def _stop_round_xgboost(stopping, curve):
    """Feed ``curve`` through XGBoost's callback adapter; the round it returned True at."""
    pytest.importorskip("xgboost")
    from pauc.gbm.engines._xgboost_stopping import XGBoostStopping
    records = []
    callback = XGBoostStopping(stopping, lambda: records)
    for t, v in enumerate(curve):
        records.append({"value": v, "logloss": -v})
        if callback.after_iteration(None, t, {}):
            return t
    raise AssertionError("never stopped")


@pytest.mark.parametrize("stop_round", [_stop_round_session, _stop_round_xgboost])
def test_window_stopping_keeps_the_middle_of_an_early_best_stretch(stop_round):
    """Peak at round 6, width 25: the kept round is the middle of rounds 1..6,
    not round 1 (the old rule subtracted half the width from the stretch's end);
    the same rule whichever engine's callback feeds it."""
    assert middle_of_stretch(5, 25) == 3
    assert middle_of_stretch(99, 25) == 100 - 12
    stopping = Stopping("pauc", "window", patience=100, width=25)
    curve = [0.5, 0.6, 0.7, 0.8, 0.9, 0.95] + [0.1] * 200
    assert stop_round(stopping, curve) == 5 + 100
    assert stopping.best_round == 3
    # log-loss: the round of least held-out log-loss (here the top of the curve)
    stopping = Stopping("pauc", "logloss", patience=5, width=25)
    assert stop_round(stopping, curve) == 5 + 5
    assert stopping.best_round == 6


@pytest.mark.parametrize("stop_round", [_stop_round_session, _stop_round_xgboost])
def test_logloss_patience_is_relative_to_the_best_round(stop_round):
    """The log-loss rule waits as many rounds as its best took, at least
    LOGLOSS_MIN_PATIENCE, at most the patience: an early least (round 6) stops
    20 rounds later, a late one (round 300) waits the whole patience."""
    from pauc.gbm._stopping import LOGLOSS_MIN_PATIENCE
    early = [0.5, 0.6, 0.7, 0.8, 0.9, 0.95] + [0.1] * 300
    stopping = Stopping("pauc", "logloss", patience=100, width=25)
    assert stop_round(stopping, early) == 5 + LOGLOSS_MIN_PATIENCE
    assert stopping.best_round == 6
    middle = list(np.linspace(0.1, 0.9, 40)) + [0.1] * 300
    stopping = Stopping("pauc", "logloss", patience=100, width=25)
    assert stop_round(stopping, middle) == 39 + 40
    late = list(np.linspace(0.1, 0.9, 300)) + [0.1] * 300
    stopping = Stopping("pauc", "logloss", patience=100, width=25)
    assert stop_round(stopping, late) == 299 + 100
    assert stopping.best_round == 300


def _logloss_stop(losses, learning_rate):
    stopping = Stopping(None, "logloss", patience=100, width=25, learning_rate=learning_rate)
    for t, loss in enumerate(losses):
        if stopping.update(None, loss):
            return t, stopping.best_round
    raise AssertionError("never stopped")


def test_logloss_rule_stops_a_loss_that_falls_forever_by_ever_smaller_steps():
    """A held-out log-loss falling by 1 % a round (separable data) never stopped a
    rule counting a share of the best value as a gain; the gain is now a share of
    the first round's log-loss (LOGLOSS_MIN_GAIN per LOGLOSS_GAIN_RATE of learning
    rate), so it stops once the fall over its patience is that small."""
    from pauc.gbm._stopping import LOGLOSS_GAIN_RATE, LOGLOSS_MIN_GAIN
    losses = 0.7 * 0.99 ** np.arange(3000)
    stop, best = _logloss_stop(losses, LOGLOSS_GAIN_RATE)
    assert stop < 1000
    gain = LOGLOSS_MIN_GAIN * losses[0]
    assert losses[best - 1] - losses[best - 1:stop + 1].min() < gain
    # what the old rule would have done: every round a new best, to the cap
    assert all(b < a * (1 - LOGLOSS_MIN_GAIN) for a, b in zip(losses[:999], losses[1:1000]))
    # a three times slower learner: a third of the gain counts, it stops later
    slow_stop, slow_best = _logloss_stop(losses, LOGLOSS_GAIN_RATE / 3)
    assert slow_best > best and slow_stop > stop
    assert losses[slow_best - 1] - losses[slow_best - 1:slow_stop + 1].min() < gain / 3


def test_ten_rounds_keep_more_than_one():
    X, y = _data(2000, seed=6)
    model = GradientBoostingRanker((0.0, 0.2), loss="exponential", n_estimators=10,
                                   learning_rate=0.3, random_state=0).fit(X, y)
    rounds = model.cv_results_["rounds"][0]
    assert max(rounds) > 1


def test_few_positives_get_one_per_fold():
    """3 positives among 3000 rows: 3 folds, one positive held out in each (a 10 %
    split got none and the kernel raised)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 4))
    y = np.zeros(3000, dtype=int)
    y[[10, 500, 2000]] = 1
    X[y == 1] += 2.0
    # "auto" boosts the reference and its fixed budget (3 < SELECTION_MIN_POSITIVES);
    # the window loss, named, is boosted on the same folds (its kernel raised without
    # a positive)
    for loss in ("auto", "exponential"):
        model = GradientBoostingRanker((0.0, 0.1), loss=loss, n_estimators=20,
                                       n_iter_no_change=5, random_state=0).fit(X, y)
        assert model.n_splits_ == 3
        # (the race may drop one of the two: three positives decide little)
        assert 1 <= len(model.oof_scores_) <= (2 if loss == "auto" else 1)
        for oof in model.oof_scores_.values():
            assert not np.isnan(oof).any()


def test_a_part_without_positives_is_named_with_its_counts():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 4))
    y = (np.arange(3000) < 30).astype(int)
    with pytest.raises(ValueError, match=r"fold 0 of cv=1: its training part holds 0 "
                                         r"positives and 3 negatives"):
        GradientBoostingRanker(cv=1, validation_fraction=0.999).fit(X, y)
    with pytest.raises(ValueError, match="cv=50 folds need at least 50 rows of each class"):
        GradientBoostingRanker(cv=50).fit(X, y)


@pytest.mark.parametrize("loss", ["auto", "exponential", "tight_hinge"])
def test_constant_features_warn_and_give_constant_scores(loss):
    X = np.zeros((300, 3))
    y = (np.arange(300) < 30).astype(int)
    with pytest.warns(UserWarning, match="no feature of X takes two values"):
        model = GradientBoostingRanker((0.0, 0.1), loss=loss, random_state=0).fit(X, y)
    s = model.decision_function(X)
    assert np.all(s == s[0])
    # one tie rule: constant scores at an operating FPR of 0.1 predict every row negative
    assert not model.predict(X).any()


def test_predict_never_overshoots_the_operating_fpr_on_tied_scores():
    """A binary feature: two distinct scores.  At beta = 0.1 the training FPR stays
    at or below 0.1 (it was 0.395: the tie block was admitted whole)."""
    rng = np.random.default_rng(0)
    x = rng.random(4000) < 0.4
    y = np.where(x, rng.random(4000) < 0.3, rng.random(4000) < 0.05).astype(int)
    model = GradientBoostingRanker((0.0, 0.1), loss="logloss", early_stopping=False,
                                   n_estimators=20, random_state=0).fit(x[:, None] * 1.0, y)
    fpr = np.mean(model.predict(x[:, None] * 1.0)[y == 0] == 1)
    assert fpr <= 0.1


def test_no_deep_copy_side_channel():
    """lgb.train deep-copies its params: the objective is an ordinary object now."""
    import copy

    from pauc.objectives import window_objective
    objective = window_objective(np.r_[np.ones(5), np.zeros(20)], (0.0, 0.5))
    assert copy.deepcopy(objective) is not objective


def test_docstring_example_runs():
    import doctest

    import pauc.gbm._ranker as module
    finder = doctest.DocTestFinder()
    tests = [t for t in finder.find(module) if t.name.endswith("GradientBoostingRanker")]
    assert tests and tests[0].examples
    runner = doctest.DocTestRunner()
    for t in tests:
        runner.run(t)
    assert runner.failures == 0


def test_lightgbm_predicts_with_the_training_thread_count(monkeypatch):
    """LightGBM sets a process-wide thread count from each call's parameters: a fold's
    held-out prediction without its own would reset it under the fold fits other
    threads are boosting (n_jobs=2), so every prediction names one -- the fold fit's
    inside the fold fits, n_jobs's for the final model (which the fit of fold models
    does not call: their threshold reads the held-out scores)."""
    import threading

    import lightgbm as lgb
    calls = []
    original = lgb.Booster.predict

    def spy(self, data, *args, **kwargs):
        calls.append((kwargs.get("num_threads"), self.params.get("num_threads"),
                      threading.current_thread() is threading.main_thread()))
        return original(self, data, *args, **kwargs)

    monkeypatch.setattr(lgb.Booster, "predict", spy)
    X, y = _data(1200)
    # log-loss: LightGBM reports its held-out scores as probabilities; the fold fits
    # predict the raw scores of the rows too close to 1 to read them back (every row
    # here, LOGIT_MIN_TAIL = 1)
    from pauc.gbm.engines import _lightgbm as _engines
    monkeypatch.setattr(_engines, "LOGIT_MIN_TAIL", 1.0)
    model = GradientBoostingRanker((0.0, 0.2), loss="logloss", n_estimators=20,
                                   n_iter_no_change=5, cv=3, n_jobs=2, random_state=0).fit(X, y)
    in_folds = [(asked, trained) for asked, trained, main in calls if not main]
    final = [asked for asked, _, main in calls if main]
    assert in_folds and all(asked == trained >= 1 for asked, trained in in_folds)
    assert final == []
    calls.clear()
    model.decision_function(X)
    assert [asked for asked, _, _ in calls] == [2, 2, 2]


@pytest.mark.parametrize("tail", [1e-3, 0.3])
def test_log_loss_raw_held_out_scores_are_read_back_from_the_probabilities(tail, monkeypatch):
    """LightGBM's binary objective reports held-out probabilities: a fold's raw
    held-out scores are read back from them (log p - log1p(-p)), within 1e-12 of a
    prediction, and the rows with 1 - p below LOGIT_MIN_TAIL are predicted (bit for
    bit); no other row is predicted again."""
    from pauc.gbm import _stopping
    from pauc.gbm.engines import _lightgbm as _engines
    monkeypatch.setattr(_engines, "LOGIT_MIN_TAIL", tail)
    # each fold stopped on its own: its kept round is one whose probabilities it kept
    # (a fold ended at a pooled round predicts its held-out rows at that round)
    monkeypatch.setattr(_stopping, "POOLED", False)
    X, y = _data(2000, seed=4)
    checked, asked = [], []
    original_raw_of = _engines._LightGBMSession._raw_of
    original_predict = _engines.LightGBMEngine.predict

    def predict(self, booster, X_, n_rounds, n_threads=None):
        asked.append(X_.shape[0])
        return original_predict(self, booster, X_, n_rounds, n_threads)

    def raw_of(self, p, n_rounds):
        asked.clear()
        raw = original_raw_of(self, p, n_rounds)
        exact = original_predict(self.engine, self.booster, self.valid.X,
                                 n_rounds)
        far = p > 1.0 - tail
        checked.append((far.sum(), asked[:]))
        np.testing.assert_array_equal(raw[far], exact[far])
        np.testing.assert_allclose(raw[~far], exact[~far], rtol=0, atol=1e-12)
        return raw

    monkeypatch.setattr(_engines.LightGBMEngine, "predict", predict)
    monkeypatch.setattr(_engines._LightGBMSession, "_raw_of", raw_of)
    GradientBoostingRanker((0.0, 0.2), loss="logloss", n_estimators=60, n_iter_no_change=5,
                           cv=3, random_state=0).fit(X, y)
    assert len(checked) == 3
    for n_far, predicted in checked:
        assert predicted == ([n_far] if n_far else [])
    if tail == 0.3:
        assert all(n_far > 0 for n_far, _ in checked)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(-700.0, 6.9, allow_nan=False), min_size=1, max_size=50))
def test_a_raw_score_read_back_from_its_probability_is_within_1e_12(raw):
    """LightGBM's p = 1 / (1 + exp(-s)); wherever 1 - p >= LOGIT_MIN_TAIL (s <= 6.9)
    and p > 0, log p - log1p(-p) is within 1e-12 of s, and no row is predicted."""
    from pauc.gbm.engines import _lightgbm as _engines
    raw = np.asarray(raw)
    p = 1.0 / (1.0 + np.exp(-raw))
    assert np.all(1.0 - p >= _engines.LOGIT_MIN_TAIL)

    class NoPrediction:
        engine = booster = valid = None

    back = _engines._LightGBMSession._raw_of(NoPrediction(), p, 10)
    np.testing.assert_allclose(back, raw, rtol=0, atol=1e-12)
