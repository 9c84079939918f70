"""The stopping round pooled over the folds (pauc.gbm._stopping.PooledStopping).

A candidate's folds boost side by side and record their curves; its round is
chosen on the pooled curve (the held-out log-loss of every held-out row, or
the folds' mean window criterion) and every fold model ends there.  Planted
curves: one fold's log-loss bottoms out early by chance, the pooled curve
later; the fold models end at the pooled round that a replay of the rule on
the pooled curve gives, none boosts past the round where the pooled rule
stops, on one thread and under forced interleavings of two.  The rule's
``deadline`` is the round it stops at when nothing improves (hypothesis).  On
the estimator, ``cv_results_`` reports the pooled round, the same on every
fold, below POOLED_MAX_POSITIVES training positives (a test at the limit and
one below); with more, and on the cluster, each fold stops on its own.
"""

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.datasets import make_classification

from pauc.gbm import GradientBoostingRanker, _schedule
from pauc.gbm.engines import Session
from pauc.gbm._local_trainer import fold_fit
from pauc.gbm._race import Race
from pauc.gbm._stopping import (LOGLOSS_MIN_PATIENCE, POOLED_MAX_POSITIVES, PooledStopping,
                                  Stopping, pooled_round)

from .test_schedule import FakeThreads, holding, newest_first, oldest_first, seeded

PATIENCE, WIDTH, CAP = 100, 5, 400
SIZES = (40, 30, 30)       # held-out rows per fold (the log-loss weights)


def _loss_curves():
    """Fold 0's held-out log-loss is least at round 6, then rises slowly; folds 1
    and 2 fall until rounds 90 and 110: the pooled log-loss falls for longer."""
    t = np.arange(1, CAP + 1, dtype=float)
    early = 0.30 - 0.01 * np.minimum(t, 6) / 6 + 0.0003 * np.maximum(t - 6, 0)
    late1 = 0.60 - 0.3 * np.minimum(t, 90) / 90 + 0.001 * np.maximum(t - 90, 0)
    late2 = 0.55 - 0.3 * np.minimum(t, 110) / 110 + 0.001 * np.maximum(t - 110, 0)
    return [early, late1, late2]


def _window_curves():
    """Fold 0's window criterion peaks at round 8 and falls; the others rise until
    round 150."""
    t = np.arange(1, CAP + 1, dtype=float)
    early = 0.6 + 0.2 * np.minimum(t, 8) / 8 - 0.002 * np.maximum(t - 8, 0)
    late = [0.3 + 0.4 * np.minimum(t, 150) / 150 - 0.0005 * np.maximum(t - 150, 0)
            + 0.001 * k for k in (1, 2)]
    return [early] + late


class PlantedSession(Session):
    """A session whose held-out curve is planted: round ``r``'s log-loss (rule
    "logloss") or criterion (rule "window") is ``curve[r - 1]``; its held-out
    scores after ``r`` rounds are ``r`` times a fixed vector."""

    def __init__(self, fold, curve, rule, stops):
        stopping = Stopping("criterion" if rule == "window" else None, rule, PATIENCE, WIDTH,
                            stops=stops)
        super().__init__(None, CAP, object(), None, stopping, False)
        self.fold, self.curve, self.rule = fold, curve, rule
        self.booster = ("booster", fold)

    def _scores(self, n):
        return np.arange(1.0, 6.0) * n + self.fold

    def _boost(self, n_rounds):
        for _ in range(n_rounds):
            self.rounds += 1
            value = self.curve[self.rounds - 1]
            stop = (self._after_round(value, None, self._scores(self.rounds))
                    if self.rule == "window"
                    else self._after_round(None, value, self._scores(self.rounds)))
            if stop:
                return True
        return False

    def _predict_held_out(self, n_rounds):
        return self._scores(n_rounds)


def _replay(curves, rule):
    """The pooled rule replayed on the pooled curve: (kept round, stop round)."""
    weights = np.asarray(SIZES, dtype=float) / sum(SIZES)
    pooled = (weights @ np.vstack(curves) if rule == "logloss"
              else np.mean(np.vstack(curves), axis=0))
    stopping = Stopping("criterion" if rule == "window" else None, rule, PATIENCE, WIDTH)
    for t, v in enumerate(pooled):
        if (stopping.update(v) if rule == "window" else stopping.update(None, v)):
            return stopping.best_round, t + 1
    return stopping.best_round, len(pooled)


def _run(rule, n_threads=1, threads=None, monkeypatch=None):
    curves = _loss_curves() if rule == "logloss" else _window_curves()
    labels = np.arange(sum(SIZES)) % 4 == 0
    rows = np.split(np.arange(sum(SIZES)), np.cumsum(SIZES)[:-1])
    race = Race(["a"], labels, rows,
                lambda n: [(0.0, 0.1)], CAP, 0, 10, one_phase=True)
    sessions = {}

    def new_session(name, k, n):
        sessions[k] = PlantedSession(k, curves[k], rule, stops=False)
        return sessions[k]

    def pooled(name, folds):
        rule_ = Stopping("pooled" if rule == "window" else None, rule, PATIENCE, WIDTH)
        return PooledStopping(rule_, [SIZES[k] for k in folds])

    if threads is not None:
        monkeypatch.setattr(_schedule, "concurrent", threads)
    own = {"a": [None] * 3}
    _schedule.Schedule(race, new_session, ["a"], n_threads, fold_fit, pooled).run(own)
    return own["a"], curves, sessions


@pytest.mark.parametrize("rule", ["logloss", "window"])
def test_every_fold_ends_at_the_round_of_the_pooled_curve(rule):
    fits, curves, sessions = _run(rule)
    kept, stop = _replay(curves, rule)
    # one fold alone would have kept its chance peak
    alone = Stopping("criterion" if rule == "window" else None, rule, PATIENCE, WIDTH)
    for v in curves[0]:
        if (alone.update(v) if rule == "window" else alone.update(None, v)):
            break
    assert alone.best_round < 12 and kept > 60
    assert [f.rounds for f in fits] == [kept] * 3
    # the pooled rule stops every fold where it stops: none boosted past it
    assert [f.boosted for f in fits] == [stop] * 3
    # each fold's held-out scores are those of the pooled round
    for k, f in enumerate(fits):
        np.testing.assert_array_equal(f.held_out_scores, np.arange(1.0, 6.0) * kept + k)
        assert sessions[k].done and sessions[k].kept_round == kept


@pytest.mark.parametrize("policy", [lambda: oldest_first, lambda: newest_first,
                                    lambda: seeded(3), lambda: holding("a", 0)])
def test_the_pooled_round_does_not_depend_on_threads(policy, monkeypatch):
    one, _, _ = _run("logloss")
    two, _, _ = _run("logloss", 2, SimpleNamespace(futures=FakeThreads(policy())), monkeypatch)
    assert [(f.rounds, f.boosted) for f in one] == [(f.rounds, f.boosted) for f in two]
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a.held_out_scores, b.held_out_scores)


def test_a_pooled_rule_of_a_fixed_budget_is_refused():
    with pytest.raises(ValueError, match="fixed budget"):
        PooledStopping(Stopping(None, "fixed", PATIENCE, WIDTH), SIZES)


def test_end_at_refuses_a_round_not_boosted():
    session = PlantedSession(0, _loss_curves()[0], "logloss", stops=False)
    session.advance(10)
    with pytest.raises(ValueError, match="outside"):
        session.end_at(11)
    session.end_at(4)
    assert session.done and session.kept_round == 4


@settings(max_examples=60, deadline=None)
@given(rule=st.sampled_from(["logloss", "window"]),
       curve=st.lists(st.floats(0.05, 1.0), min_size=1, max_size=300),
       patience=st.integers(1, 60))
def test_the_deadline_is_where_the_rule_stops_unless_it_improves(rule, curve, patience):
    stopping = Stopping("c" if rule == "window" else None, rule, patience, 3)
    deadline = stopping.deadline
    for v in curve:
        stop = stopping.update(v) if rule == "window" else stopping.update(None, v)
        if stopping.improved:
            deadline = stopping.deadline
        if stop:
            assert stopping.rounds == deadline
            return
        assert stopping.rounds < deadline
    if rule == "logloss":
        assert stopping.deadline - stopping.best_round == min(
            patience, max(LOGLOSS_MIN_PATIENCE, stopping.best_round))


def _data(n, seed=0):
    return make_classification(n, 8, n_informative=4, weights=[0.9], flip_y=0.03,
                               random_state=seed)


def test_cv_results_report_the_pooled_round_and_n_jobs_does_not_change_it():
    X, y = _data(2500)
    one = GradientBoostingRanker((0.0, 0.1), n_estimators=300, random_state=0).fit(X, y)
    res = one.cv_results_
    for name, rounds, stopping in zip(res["candidate"], res["rounds"], res["stopping"]):
        if name in one._fitted.fits:
            assert stopping == "pooled" and len(set(rounds)) == 1
        else:
            assert stopping is None and rounds is None          # blends
    two = GradientBoostingRanker((0.0, 0.1), n_estimators=300, random_state=0,
                                 n_jobs=2).fit(X, y)
    assert two.cv_results_["rounds"] == res["rounds"]
    assert two.cv_results_["boosted_rounds"] == res["boosted_rounds"]
    np.testing.assert_array_equal(one.decision_function(X), two.decision_function(X))


def test_without_pooling_each_fold_stops_on_its_own(monkeypatch):
    monkeypatch.setattr("pauc.gbm._stopping.POOLED", False)
    X, y = _data(2500)
    model = GradientBoostingRanker((0.0, 0.1), n_estimators=300, random_state=0).fit(X, y)
    res = model.cv_results_
    boosted = [s for s in res["stopping"] if s is not None]
    assert boosted and set(boosted) == {"per fold"}
    assert any(len(set(r)) > 1 for r in res["rounds"] if r is not None)


def _with_positives(n_pos, n_neg=1200, seed=0):
    X, y = make_classification(n_pos + n_neg + 2000, 6, n_informative=4, weights=[0.5],
                               flip_y=0.05, random_state=seed)
    pos, neg = np.flatnonzero(y == 1)[:n_pos], np.flatnonzero(y == 0)[:n_neg]
    rows = np.sort(np.concatenate([pos, neg]))
    return X[rows], y[rows]


@pytest.mark.parametrize("n_pos, expected", [(POOLED_MAX_POSITIVES - 1, "pooled"),
                                             (POOLED_MAX_POSITIVES, "per fold")])
def test_the_folds_stop_together_below_the_positives_limit(n_pos, expected):
    assert pooled_round(n_pos) == (expected == "pooled")
    X, y = _with_positives(n_pos)
    assert int(y.sum()) == n_pos
    model = GradientBoostingRanker((0.0, 0.1), loss="logloss", n_estimators=80,
                                   n_iter_no_change=20, random_state=0).fit(X, y)
    assert model.cv_results_["stopping"] == [expected]
    if expected == "pooled":
        assert len(set(model.cv_results_["rounds"][0])) == 1
