"""The race of GradientBoostingRanker's candidates (pauc.gbm._race).

A planted loser leaves after the first block of the first phase (every fold
when the stopping round is pooled, else the first fold); a near tie and
the reference stay; a copy leaves as a copy; the survivors' fits are those of
the run without a race, so the kept candidate and its scores do not move; the
model does not depend on n_jobs; each engine bins the rows once per fit.

The race's rules are also tested directly, on planted evidence (Race.start,
check and end with held-out scores made up for the purpose, no boosting):
the last phase drops nobody, a finished fold enters the evidence as its fold
quantiles, a candidate that holds ENSEMBLE_MIN_WEIGHT of the greedy ensemble
stays however far behind, and a near tie stays on every bootstrap seed.
"""

import copy

import lightgbm as lgb
import numpy as np
import pytest
from sklearn.datasets import make_classification

from pauc.gbm import GradientBoostingRanker
from pauc.gbm.engines import _oblivious
from pauc.gbm._candidates import EXPONENTIAL, LOGLOSS, Candidate
from pauc.gbm._plan import Plan, fit_plan
from pauc.gbm._local_trainer import LocalTrainer
from pauc.gbm._race import ENSEMBLE_MIN_WEIGHT, RACE_BLOCK, RACE_Z, Race
from pauc.gbm._selection import (bootstrap_criteria, criterion, fold_quantiles,
                                   greedy_ensemble)

BASE = {"learning_rate": 0.1, "num_leaves": 15, "min_data_in_leaf": 20, "lambda_l2": 0.0}
# learns nothing: every leaf value is 0, every score ties
LOSER = Candidate("loser", "exponential", "window", {"learning_rate": 0.0}, "oblivious")


def _data(n, seed=0, weights=(0.8,)):
    X, y = make_classification(n, 10, n_informative=5, weights=list(weights), flip_y=0.02,
                               random_state=seed)
    return X, y == 1


def _plan(pool, racing=True, n_threads=1, rounds=400, fold_seed=0, boot_seed=2, pooled=True):
    return Plan((0.0, 0.2), tuple(pool), "lightgbm", BASE, True, rounds, 100, 3, 0.1, False,
                n_threads, fold_seed, 1, boot_seed, 0, racing, pooled)


# the folds of the first phase and the rounds a planted loser boosts on each fold:
# with a pooled stopping round every fold runs in one phase (the first check, after
# one block, sees all of them); without it the first fold runs alone
FIRST_PHASE = {True: ((0, 1, 2), [RACE_BLOCK] * 3), False: ((0,), [RACE_BLOCK, 0, 0])}


@pytest.mark.parametrize("pooled", [True, False])
def test_a_planted_loser_boosts_one_block_of_the_first_phase(pooled):
    X, is_pos = _data(2000)
    raced = fit_plan(_plan((LOGLOSS, EXPONENTIAL, LOSER), pooled=pooled), LocalTrainer(X, is_pos))
    drop = raced.dropped["loser"]
    folds, boosted = FIRST_PHASE[pooled]
    assert (drop.folds, drop.round, drop.reason) == (folds, RACE_BLOCK, "behind")
    assert raced.boosted["loser"] == boosted
    assert "loser" not in raced.fits and set(raced.fits) == {"logloss", "exponential"}
    # without the race its own rule runs it n_iter_no_change rounds past its first
    full = fit_plan(_plan((LOGLOSS, EXPONENTIAL, LOSER), racing=False, pooled=pooled),
                    LocalTrainer(X, is_pos))
    assert min(full.boosted["loser"]) > 100 and full.dropped == {}


@pytest.mark.parametrize("fold_seed", [0, 1, 2])
def test_a_near_tie_is_never_dropped(fold_seed):
    # two log-loss candidates that differ by a tenth of their bagged rows; the data,
    # the folds and the race's bootstrap on a seed of their own each time
    # (test_a_near_tie_stays_on_every_bootstrap_seed: eight more, on planted evidence)
    a = Candidate("bag-80", "logloss", "logloss", {"bagging_fraction": 0.8, "bagging_freq": 1})
    b = Candidate("bag-90", "logloss", "logloss", {"bagging_fraction": 0.9, "bagging_freq": 1})
    X, is_pos = _data(3000, seed=fold_seed)
    fitted = fit_plan(_plan((a, b), fold_seed=fold_seed, boot_seed=10 + fold_seed),
                      LocalTrainer(X, is_pos))
    assert fitted.dropped == {} and set(fitted.fits) == {"bag-80", "bag-90"}


@pytest.mark.parametrize("pooled", [True, False])
def test_a_copy_leaves_as_a_copy_at_the_first_check(pooled):
    twin = Candidate("twin", "exponential", "window")
    X, is_pos = _data(2000)
    fitted = fit_plan(_plan((LOGLOSS, EXPONENTIAL, twin), pooled=pooled), LocalTrainer(X, is_pos))
    drop = fitted.dropped["twin"]
    assert (drop.folds, drop.round, drop.reason, drop.leader) == (
        FIRST_PHASE[pooled][0], RACE_BLOCK, "copy", "exponential")
    assert str(drop).startswith("copy of exponential")


@pytest.mark.slow(seconds=35)
def test_survivors_are_the_full_runs_fits_so_the_kept_model_is(monkeypatch):
    dropped = 0
    for seed in range(3):
        X, y = make_classification(3000, 12, n_informative=6, weights=[0.85], flip_y=0.03,
                                   random_state=seed)
        monkeypatch.setattr("pauc.gbm._race.RACING", True)
        raced = GradientBoostingRanker((0.0, 0.1), random_state=seed).fit(X, y)
        monkeypatch.setattr("pauc.gbm._race.RACING", False)
        full = GradientBoostingRanker((0.0, 0.1), random_state=seed).fit(X, y)
        dropped += len(raced._fitted.dropped)
        assert "logloss-oblivious" not in raced._fitted.dropped     # the reference stays
        assert raced.selected_ == full.selected_
        for name, fit in raced._fitted.fits.items():
            np.testing.assert_array_equal(fit.oof, full._fitted.fits[name].oof)
            assert fit.bag.rounds == full._fitted.fits[name].bag.rounds
        # the full run's kept model holds survivors only: the same weights, the same scores
        kept = full.cv_results_["candidate"].index(full.selected_)
        assert set(full.cv_results_["weights"][kept]) <= set(raced._fitted.fits)
        assert raced.cv_results_["weights"][raced.cv_results_["candidate"].index(
            raced.selected_)] == full.cv_results_["weights"][kept]
        np.testing.assert_array_equal(raced.decision_function(X), full.decision_function(X))
    assert dropped      # the race dropped candidates here


@pytest.mark.slow(seconds=15)
def test_racing_is_the_same_on_one_and_two_threads():
    X, y = make_classification(4000, 10, n_informative=5, weights=[0.85], random_state=2)
    one = GradientBoostingRanker((0.0, 0.1), random_state=0, n_jobs=1).fit(X, y)
    two = GradientBoostingRanker((0.0, 0.1), random_state=0, n_jobs=2).fit(X, y)
    assert any(one.cv_results_["dropped"])
    assert one.cv_results_["dropped"] == two.cv_results_["dropped"]
    assert one.cv_results_["boosted_rounds"] == two.cv_results_["boosted_rounds"]
    assert one.selected_ == two.selected_
    np.testing.assert_array_equal(one.decision_function(X), two.decision_function(X))


def test_cv_results_say_who_was_dropped_and_who_reached_the_cap():
    X, is_pos = _data(2000)
    model = GradientBoostingRanker((0.0, 0.2), n_estimators=60, random_state=0)
    model.fit(X, is_pos.astype(int))
    res = model.cv_results_
    n = len(res["candidate"])
    assert all(len(v) == n for v in res.values())
    for name, boosted, capped, dropped, score in zip(
            res["candidate"], res["boosted_rounds"], res["capped_folds"], res["dropped"],
            res["oof_score"]):
        if boosted is None:           # a blend
            continue
        assert capped == sum(r >= 60 for r in boosted)
        assert (dropped is None) == np.isfinite(score)


@pytest.mark.parametrize("engine", ["lightgbm", "xgboost"])
def test_each_engine_bins_the_rows_once_per_fit(engine, monkeypatch):
    import xgboost as xgb
    counts = {"lightgbm": 0, "xgboost": 0, "oblivious": 0}
    dataset_init, matrix_init = lgb.Dataset.__init__, xgb.QuantileDMatrix.__init__
    quantizer_fit = _oblivious.Quantizer.fit

    def dataset(self, data, *args, **kwargs):
        # a subset has no data of its own; a one-row Dataset only sets a worker
        # thread's log level (pauc.gbm.engines._lightgbm._quiet_lightgbm)
        counts["lightgbm"] += data is not None and data.shape[0] > 1
        dataset_init(self, data, *args, **kwargs)

    def matrix(self, data, *args, **kwargs):
        counts["xgboost"] += kwargs.get("ref") is None
        matrix_init(self, data, *args, **kwargs)

    def quantize(self, X):
        counts["oblivious"] += 1
        return quantizer_fit(self, X)
    monkeypatch.setattr(lgb.Dataset, "__init__", dataset)
    monkeypatch.setattr(xgb.QuantileDMatrix, "__init__", matrix)
    monkeypatch.setattr(_oblivious.Quantizer, "fit", quantize)
    X, y = make_classification(3000, 10, n_informative=5, weights=[0.8], random_state=0)
    model = GradientBoostingRanker((0.0, 0.1), engine=engine, n_estimators=120, refit=True,
                                   random_state=0).fit(X, y)
    # the small-data pool: the oblivious reference and two candidates on `engine`,
    # five folds and a refit
    assert model.n_splits_ == 5
    assert counts == {"lightgbm": engine == "lightgbm", "xgboost": engine == "xgboost",
                      "oblivious": 1}


def test_sessions_advanced_in_worker_threads_stay_quiet(capfd):
    # LightGBM's log level is per thread: a session created in the main thread and
    # advanced in a worker thread logged its Info lines there (n_jobs=2)
    X, y = make_classification(3000, 10, n_informative=5, weights=[0.8], random_state=0)
    GradientBoostingRanker((0.0, 0.1), loss="exponential", n_estimators=60, n_jobs=2,
                           random_state=0).fit(X, y)
    out, err = capfd.readouterr()
    assert "[LightGBM]" not in out + err


def test_one_job_boosts_on_one_core():
    """``n_jobs=1`` grows LightGBM's trees on one thread.  LightGBM's OpenMP thread
    count is per thread and set by every ``Dataset`` a thread builds: the one-row
    ``Dataset`` that silences a session's thread once set it to every core, and the
    one-thread fit used two cores (CPU time 1.9x its wall time on a9a)."""
    import os
    import time
    if (os.cpu_count() or 1) < 2:
        pytest.skip("one core: nothing to oversubscribe")
    X, y = make_classification(20000, 20, n_informative=10, weights=[0.8], random_state=0)
    model = GradientBoostingRanker((0.0, 0.1), loss="logloss", n_estimators=300,
                                   early_stopping=False, n_jobs=1, random_state=0)
    wall, cpu = time.perf_counter(), time.process_time()
    model.fit(X, y)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    # one thread cannot use more CPU time than wall time (less on a loaded machine)
    assert cpu <= 1.15 * wall + 0.05


# ------------------------------------------------- the rules on planted evidence
# One window, whatever the number of negatives (the criterion's widening for small
# windows is pauc.gbm._stopping's business, not the race's).
WINDOW = [(0.0, 0.2)]


def _windows(n_neg):
    return WINDOW


def _folds(k, n=200, n_pos=40):
    """``k`` folds of ``n`` rows, each holding ``n_pos`` positives (its first rows):
    the labels of all rows and each fold's held-out rows, as a trainer gives them."""
    labels = np.zeros(k * n, dtype=bool)
    rows = [np.arange(f * n, (f + 1) * n) for f in range(k)]
    for r in rows:
        labels[r[:n_pos]] = True
    return labels, rows


def _perfect(fold_labels, shift=0.0, seed=0):
    """Scores that rank every positive of the fold above every negative, on the
    scale ``shift + [0, 2)``."""
    rng = np.random.default_rng(seed)
    return shift + rng.uniform(size=fold_labels.shape[0]) + fold_labels


def _noise(fold_labels, seed=0):
    return np.random.default_rng(seed).uniform(size=fold_labels.shape[0])


def _race(names, labels, rows, seed=0):
    return Race(list(names), labels, rows, _windows, cap=1000, seed=seed, n_resamples=200)


def test_the_last_phase_drops_nobody():
    """At the end of the last phase the selection judges: a candidate far behind on
    the whole evidence is not dropped there -- while the same evidence drops it at a
    check of that phase, and at the end of a phase that is not the last."""
    labels, rows = _folds(3)
    race = _race(["good", "bad"], labels, rows)
    assert race.phases() == [(0,), (1, 2)]
    race.start((0,))
    # the first phase: both rank fold 0 perfectly (on their own scales): no drop
    assert race.end({"good": ([_perfect(labels[rows[0]])], 100),
                     "bad": ([_perfect(labels[rows[0]], shift=5.0, seed=1)], 100)}) == []
    race.start((1, 2))
    held_out = {"good": ([_perfect(labels[rows[k]], seed=k) for k in (1, 2)], 100),
                "bad": ([_noise(labels[rows[k]], seed=k) for k in (1, 2)], 100)}
    # the evidence is decisive: a check of this phase (every fold ended) drops "bad"
    probe = copy.deepcopy(race)
    assert probe.check({n: (s, r, True) for n, (s, r) in held_out.items()}) == ["bad"]
    assert race.end(held_out) == []
    assert race.alive == ["good", "bad"] and race.dropped == {}
    # ... and the end of a first phase on such evidence drops it
    first = _race(["good", "bad"], labels, rows)
    first.start((0,))
    assert first.end({"good": ([_perfect(labels[rows[0]])], 100),
                      "bad": ([_noise(labels[rows[0]])], 100)}) == ["bad"]
    assert first.dropped["bad"].reason == "behind" and first.dropped["bad"].folds == (0,)


def test_finished_folds_enter_the_evidence_as_fold_quantiles():
    """A fold model's scores are on its own scale (the window exponential's drift
    with the rounds and the fold): the folds of a finished phase join the evidence as
    their quantiles, as the current phase's do.  "drift" ranks every fold perfectly,
    fold 0 on a scale 1000 above the others: on the pooled quantiles it is perfect
    (criterion 1) and leads; its raw fold-0 scores would put fold 0's negatives above
    every positive of folds 1 and 2."""
    labels, rows = _folds(3)
    race = _race(["drift", "noise"], labels, rows)
    race.start((0,))
    fold0 = labels[rows[0]]
    race.end({"drift": ([_perfect(fold0, shift=1000.0)], 100),
              "noise": ([_perfect(fold0, seed=1)], 100)})
    assert race.alive == ["drift", "noise"]
    race.start((1, 2))
    drift = [_perfect(labels[rows[k]], seed=k) for k in (1, 2)]
    noise = [_noise(labels[rows[k]], seed=k) for k in (1, 2)]
    assert race.check({"drift": (drift, RACE_BLOCK, True),
                       "noise": (noise, RACE_BLOCK, True)}) == ["noise"]
    drop = race.dropped["noise"]
    assert drop.leader == "drift"
    # the gap on the pooled quantiles, computed here from the planted scores
    pos = np.concatenate([labels[rows[k]] for k in (0, 1, 2)])
    noise_pooled = np.concatenate([fold_quantiles(_perfect(fold0, seed=1))]
                                  + [fold_quantiles(s) for s in noise])
    drift_pooled = np.concatenate([fold_quantiles(_perfect(fold0, shift=1000.0))]
                                  + [fold_quantiles(s) for s in drift])
    assert criterion(pos, drift_pooled, WINDOW) == 1.0
    assert drop.gap == pytest.approx(1.0 - criterion(pos, noise_pooled, WINDOW), abs=1e-12)


def _two_views(unseen=0.3):
    """One fold of 600 rows, 150 positives of two kinds: 120 that "broad" sees (its
    top scores) and 30 that "narrow" sees; each puts the positives it does not see a
    little above the negatives (+0.3 on uniform scores).  "noise" sees nothing."""
    n = 600
    labels = np.zeros(n, dtype=bool)
    labels[:150] = True
    seen = {"broad": np.arange(0, 120), "narrow": np.arange(120, 150)}
    scores = {}
    for i, (name, rows) in enumerate(seen.items()):
        rng = np.random.default_rng(i + 1)
        s = rng.uniform(size=n)
        s[labels] += unseen
        s[rows] = 3.0 + rng.uniform(size=rows.size)
        scores[name] = s
    scores["noise"] = np.random.default_rng(3).uniform(size=n)
    return labels, scores


def test_a_candidate_the_greedy_ensemble_needs_stays_however_far_behind():
    """"narrow" is more than RACE_Z standard errors behind "broad", but the greedy
    ensemble of the alive candidates gives it ENSEMBLE_MIN_WEIGHT or more (it ranks
    the positives "broad" misses): it stays; "noise", as far behind and of no help
    to the ensemble, is dropped."""
    labels, scores = _two_views()
    names = ["broad", "narrow", "noise"]
    race = Race(names, labels, [np.arange(labels.shape[0])], _windows, cap=1000, seed=0,
                n_resamples=200)
    race.start((0,))
    # the planted evidence as the race sees it: behind by more than RACE_Z se, and
    # holding a share of the ensemble
    q = [fold_quantiles(scores[n]) for n in names]
    values = [criterion(labels, v, WINDOW) for v in q]
    boot = bootstrap_criteria(labels, q, WINDOW, np.random.RandomState(0), 200)
    se = np.std(boot[:, 0] - boot[:, 1], ddof=1)
    assert values[0] - values[1] > 1.3 * RACE_Z * se
    weights, _ = greedy_ensemble(q, labels, WINDOW)
    assert weights[1] >= 2 * ENSEMBLE_MIN_WEIGHT and weights[2] < ENSEMBLE_MIN_WEIGHT
    assert race.check({n: ([scores[n]], RACE_BLOCK, True) for n in names}) == ["noise"]
    assert race.alive == ["broad", "narrow"]


@pytest.mark.parametrize("seed", range(8))
def test_a_near_tie_stays_on_every_bootstrap_seed(seed):
    """Two candidates two to three standard errors apart -- a difference the
    selection, not the race, must judge -- on eight seeds of the race's bootstrap:
    never dropped.  ("b" is "a" with six of its top positives moved down; a rule of
    two standard errors drops it on every seed.)"""
    labels, rows = _folds(1, n=600, n_pos=120)
    rng = np.random.default_rng(100)
    a = rng.normal(size=600) + 1.5 * labels
    b = a.copy()
    b[np.argsort(-a[:120])[:6]] -= 3.0
    q = [fold_quantiles(a), fold_quantiles(b)]
    gap = criterion(labels, q[0], WINDOW) - criterion(labels, q[1], WINDOW)
    boot = bootstrap_criteria(labels, q, WINDOW, np.random.RandomState(seed), 200)
    assert 2.0 < gap / np.std(boot[:, 0] - boot[:, 1], ddof=1) < 0.75 * RACE_Z
    race = Race(["a", "b"], labels, rows, _windows, cap=1000, seed=seed, n_resamples=200)
    race.start((0,))
    assert race.check({"a": ([a], RACE_BLOCK, True), "b": ([b], RACE_BLOCK, True)}) == []
    assert race.alive == ["a", "b"]
