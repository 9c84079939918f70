"""Cross-fitted selection of the distributed boosting fit (issue 26, item 3).

The folds are assigned on the workers (:mod:`pauc.distributed._folds`), every
fold's model trains on one fold-coded XGBoost matrix with its held-out rows at
zero gradient, and the out-of-fold scores are pooled and selected by the
in-memory rules.
"""

import dataclasses

import numpy as np
import pytest

xgb = pytest.importorskip("xgboost")
pytest.importorskip("xgboost.dask")
dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("dask.distributed")

from sklearn.metrics import roc_auc_score  # noqa: E402
from sklearn.utils import check_random_state  # noqa: E402

from _boosting_problems import nonlinear, sorted_chunks  # noqa: E402
from pauc.gbm import GradientBoostingRanker  # noqa: E402
from pauc.gbm._candidates import LARGE_DATA  # noqa: E402
from pauc.gbm._crossfit import auto_n_folds  # noqa: E402
from pauc.gbm._plan import select_candidates  # noqa: E402
from pauc.gbm._selection import criterion, fold_quantiles  # noqa: E402
from pauc.gbm._stopping import validation_windows  # noqa: E402
from pauc.distributed._cluster_trainer import _train, out_of_fold_scores  # noqa: E402
from pauc.distributed._folds import (assign_folds, decode_labels,  # noqa: E402
                                     fold_class_counts, fold_labels)
from pauc.distributed._xgboost_window import (GlobalWindowMetric,  # noqa: E402
                                              GlobalWindowObjective)


# ---------------------------------------------------------------- the fold ids
UNEVEN = (100, 300, 37, 600)


@pytest.mark.parametrize("n_folds", [2, 3, 5])
def test_folds_are_stratified_per_class_and_chunk_and_seeded(n_folds):
    y = np.random.RandomState(0).rand(sum(UNEVEN)) < 0.2
    is_pos = da.from_array(y, chunks=(UNEVEN,))
    with dask.config.set(scheduler="synchronous"):
        folds = assign_folds(is_pos, n_folds, 3).compute()
        assert np.array_equal(folds, assign_folds(is_pos, n_folds, 3).compute())
        assert not np.array_equal(folds, assign_folds(is_pos, n_folds, 4).compute())
        counts = fold_class_counts(is_pos, da.from_array(folds, chunks=(UNEVEN,)), n_folds)
    assert folds.dtype == np.int8 and set(np.unique(folds)) == set(range(n_folds))
    for c, rows in enumerate((y, ~y)):
        per_fold = np.bincount(folds[rows], minlength=n_folds)
        # StratifiedKFold's class counts: floor or ceil of n_c / K in every fold
        assert per_fold.max() - per_fold.min() <= 1
        np.testing.assert_array_equal(counts[:, c], per_fold)
    # within each chunk too (the chunk's ranks are consecutive): no fold is one chunk
    start = 0
    for size in UNEVEN:
        part, f = y[start:start + size], folds[start:start + size]
        for rows in (part, ~part):
            per_fold = np.bincount(f[rows], minlength=n_folds)
            assert per_fold.max() - per_fold.min() <= 1
        start += size
    # the rows of a fold inside a chunk are drawn, not the chunk's first rows
    assert not np.array_equal(folds[:100][y[:100]], np.sort(folds[:100][y[:100]]))


def test_validation_split_holds_out_floor_n_f_of_each_class():
    y = np.random.RandomState(1).rand(sum(UNEVEN)) < 0.3
    is_pos = da.from_array(y, chunks=(UNEVEN,))
    with dask.config.set(scheduler="synchronous"):
        folds = assign_folds(is_pos, 1, 7, fraction=0.1).compute()
    assert set(np.unique(folds)) == {0, 1}
    for rows in (y, ~y):
        assert np.count_nonzero(folds[rows] == 0) == int(np.floor(0.1 * rows.sum()))
    with pytest.raises(ValueError, match="fraction in"):
        assign_folds(is_pos, 1, 7)


def test_fold_labels_round_trip():
    y = np.array([True, False, True, False, False])
    folds = np.array([0, 1, 2, 2, 0], dtype=np.int8)
    with dask.config.set(scheduler="synchronous"):
        labels = fold_labels(da.from_array(y, chunks=2), da.from_array(folds, chunks=2))
        labels = labels.compute()
    assert labels.dtype == np.float32
    is_pos, training = decode_labels(labels, 2)
    np.testing.assert_array_equal(is_pos, y)
    np.testing.assert_array_equal(training, folds != 2)
    assert decode_labels(labels, None)[1] is None
    with pytest.raises(ValueError, match="non-negative"):
        decode_labels(np.array([0.5, 1.0]), 0)


# ------------------------------------------- held-out rows in the objective and metric
def _fold_coded(seed, n, n_features, n_folds):
    """Rows, labels (30 % positives), fold ids, scores and the fold-coded matrix
    (label ``is_positive + 2 fold``) of a small random problem."""
    rng = np.random.RandomState(seed)
    X = rng.randn(n, n_features).astype(np.float32)
    y = rng.rand(n) < 0.3
    folds = rng.randint(0, n_folds, size=n)
    scores = rng.randn(n).astype(np.float32)
    return X, y, folds, scores, xgb.DMatrix(X, label=y + 2.0 * folds)


@pytest.mark.parametrize("loss", ["exponential", "logloss"])
def test_objective_gives_held_out_rows_no_gradient(loss):
    """Fold k's rows get zero gradient and Hessian; the other rows get exactly the
    objective of the matrix without fold k (one process: the collective is the
    identity)."""
    X, y, folds, scores, coded = _fold_coded(seed=2, n=400, n_features=3, n_folds=3)
    grad, hess = GlobalWindowObjective((0.0, 0.2), loss, fold_coded=True, held_out=1)(
        scores, coded)
    train = folds != 1
    ref_grad, ref_hess = GlobalWindowObjective((0.0, 0.2), loss)(
        scores[train], xgb.DMatrix(X[train], label=y[train].astype(np.float32)))
    assert np.all(grad[~train] == 0) and np.all(hess[~train] == 0)
    np.testing.assert_array_equal(grad[train], ref_grad)
    np.testing.assert_array_equal(hess[train], ref_hess)
    assert np.any(grad[train] != 0)
    # every row trains without a held-out fold (the refit)
    all_grad, _ = GlobalWindowObjective((0.0, 0.2), loss, fold_coded=True)(scores, coded)
    np.testing.assert_array_equal(
        all_grad, GlobalWindowObjective((0.0, 0.2), loss)(
            scores, xgb.DMatrix(X, label=y.astype(np.float32)))[0])
    with pytest.raises(ValueError, match="fold-coded"):
        GlobalWindowObjective((0.0, 0.2), loss, held_out=1)


def test_metric_reads_the_held_out_fold_only():
    _, y, folds, scores, coded = _fold_coded(seed=3, n=500, n_features=2, n_folds=2)
    held = folds == 0
    windows = validation_windows(int((~y[held]).sum()), (0.0, 0.1))
    value = GlobalWindowMetric(windows, fold_coded=True, held_out=0).value(scores, coded)
    assert value["value"] == pytest.approx(criterion(y[held], scores[held], windows),
                                           rel=1e-12)


# ---------------------------------------------------------------- on the cluster
@pytest.mark.slow(seconds=30)
def test_cross_fitted_selection_is_the_in_memory_rules_on_the_oof_scores(cluster_client):
    X, y, dX, dy = sorted_chunks(*nonlinear(3000))
    window = (0.0, 0.1)
    model = GradientBoostingRanker(window, engine="xgboost", n_estimators=40,
                                   n_iter_no_change=8, random_state=0).fit(dX, dy)
    # cv="auto" by the in-memory rule: 3000 rows, the split's window far from 1000
    # negatives -> 5 folds
    n_pos = int(y.sum())
    assert model.n_splits_ == auto_n_folds(n_pos, 3000 - n_pos, window, 0.1) == 5
    in_memory = GradientBoostingRanker(window, n_estimators=5, random_state=0).fit(X, y)
    assert set(model.cv_results_) == set(in_memory.cv_results_)
    # the cluster races the larger-data candidates (no oblivious trees there): the
    # survivors in the pool's order, the dropped ones last
    survivors = [c.name for c in LARGE_DATA if c.name not in model._fitted.dropped]
    assert list(model._fitted.fits) == survivors
    assert (model.cv_results_["candidate"][:len(survivors)] == survivors
            and set(model.cv_results_["candidate"]) >= {c.name for c in LARGE_DATA})
    fits = model._fitted.fits
    for fit in fits.values():
        assert len(fit.bag.boosters) == len(fit.bag.rounds) == 5
    # the folds rebuilt from the fit's seed; each row's out-of-fold score recomputed
    # on the client with its fold's booster, independently of the fit's code
    fold_seed, _, boot_seed = (int(v) for v in check_random_state(0).randint(
        np.iinfo(np.int32).max, size=3))
    folds = assign_folds(dy == 1, 5, fold_seed).compute()
    names = list(fits)
    pooled = {}
    for name in names:
        boosters, rounds = fits[name].bag.boosters, fits[name].bag.rounds
        raw = np.empty(3000)
        quantiles = np.empty(3000)
        for k in range(5):
            rows = folds == k
            raw[rows] = boosters[k].inplace_predict(X[rows], iteration_range=(0, rounds[k]),
                                                    predict_type="margin")
            quantiles[rows] = fold_quantiles(raw[rows])
        np.testing.assert_array_equal(fits[name].raw, raw)
        np.testing.assert_array_equal(model.oof_scores_[name], quantiles)
        pooled[name] = quantiles
        # fold 0's stopping history at the kept round: the exact criterion of its rows
        held = folds == 0
        windows = validation_windows(int((y[held] == 0).sum()), window)
        assert model.validation_history_[name][rounds[0] - 1] == pytest.approx(
            criterion(y[held] == 1, raw[held], windows), rel=1e-12)
    # the one selection of every engine on the recomputed, gathered out-of-fold scores
    plan = model._fitted.plan
    assert plan.boot_seed == boot_seed
    replay = select_candidates(plan, {n: dataclasses.replace(fits[n], oof=pooled[n])
                                      for n in names}, y == 1, np.ones(3000, dtype=bool))
    assert replay.names[replay.kept] == model.selected_
    judged = len(replay.names)
    assert replay.names == model.cv_results_["candidate"][:judged]
    np.testing.assert_array_equal(replay.values, model.cv_results_["oof_score"][:judged])
    np.testing.assert_array_equal(replay.shares, model.cv_results_["win_share"][:judged])
    # the fold-bagged model: the kept members' 5 boosters, averaged (lazily too)
    np.testing.assert_allclose(model.decision_function(dX).compute(),
                               model.decision_function(X), rtol=1e-6)


def _fold_coded_fit(client, dX, dy, folds, n_folds, held_out):
    params = {"eta": 0.5, "max_leaves": 63, "grow_policy": "lossguide", "max_depth": 0,
              "tree_method": "hist", "base_score": 0.0, "min_child_weight": 0.0,
              "lambda": 0.0, "disable_default_eval_metric": 1, "nthread": 1}
    dtrain = xgb.dask.DaskQuantileDMatrix(client, dX, fold_labels(dy == 1, folds))
    boosters = [_train(client, params, dtrain, 30,
                       GlobalWindowObjective((0.0, 1.0), "logloss", fold_coded=True,
                                             held_out=held_out(k)))["booster"]
                for k in range(n_folds)]
    return boosters


def test_out_of_fold_scores_come_from_models_that_never_saw_the_row(cluster_client):
    """Labels are coin flips: a model that saw a row memorises it (30 rounds of
    63-leaf trees), so its scores of the rows it saw rank them far above chance,
    while a model that never saw them ranks them at chance.  Two planted leaks --
    the folds' models trained on every row, or each fold scored by another fold's
    model -- must push the out-of-fold AUC far from chance."""
    rng = np.random.RandomState(4)
    X = rng.randn(1500, 4).astype(np.float32)
    y = (rng.rand(1500) < 0.5).astype(np.int64)
    dX, dy = da.from_array(X, chunks=(750, -1)), da.from_array(y, chunks=750)
    folds = assign_folds(dy == 1, 3, 0).persist()
    honest = _fold_coded_fit(cluster_client, dX, dy, folds, 3, held_out=lambda k: k)
    rounds = [30, 30, 30]

    def oof_auc(boosters):
        return roc_auc_score(y, out_of_fold_scores(boosters, rounds, dX, folds).compute())

    assert abs(oof_auc(honest) - 0.5) < 0.06
    # leak 1: every fold's model trained on every row
    saw_all = _fold_coded_fit(cluster_client, dX, dy, folds, 3, held_out=lambda k: None)
    assert oof_auc(saw_all) > 0.8
    # leak 2: fold k scored by fold k+1's model, which trained on fold k
    assert oof_auc(honest[1:] + honest[:1]) > 0.8
