"""GradientBoostingRanker(engine="xgboost").fit on dask data, LocalCluster of 2 processes (issue 26)."""

import os
import sys

import numpy as np
import pytest

pytest.importorskip("xgboost.dask")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("dask.distributed")

from _boosting_problems import nonlinear, sorted_chunks  # noqa: E402
from _chunked_problems import local_cluster  # noqa: E402
from pauc.gbm import GradientBoostingRanker  # noqa: E402
from pauc.distributed._cluster_trainer import WorkerLostError  # noqa: E402
from pauc.distributed._xgboost_window import GlobalWindowObjective  # noqa: E402
from pauc.metrics import partial_auc  # noqa: E402


@pytest.mark.slow(seconds=30)
def test_fit_on_dask_arrays_and_dataframes(cluster_client):
    X, y = nonlinear(6000)
    _, _, dX, dy = sorted_chunks(X, y)
    # cv=1: one validation split (cv="auto" would cross-fit 5 folds on 6000 rows, as in
    # memory: tests/distributed/test_boosting_crossfit.py)
    # (at most 80 rounds: the checks below are of the format and the agreement, not of quality)
    model = GradientBoostingRanker((0.0, 0.1), engine="xgboost", n_iter_no_change=15, cv=1,
                                   n_estimators=80, random_state=0).fit(dX, dy)
    # the in-memory estimator's candidates and format, on one validation split
    assert set(model.validation_history_) == {"logloss", "exponential", "logloss-small", "logloss-extra"}
    assert model.n_splits_ == 1 and model.selected_ in model.cv_results_["candidate"]
    for _, _, boosters, rounds in model.members_:
        assert len(boosters) == 1 and rounds[0] <= boosters[0].num_boosted_rounds()
    assert model.classes_.tolist() == [0, 1] and model.n_features_in_ == 6
    assert model.feature_importances_.sum() == pytest.approx(1.0)
    # stopping and selection read the exact global validation pAUC: the history at
    # each candidate's kept round is the in-memory criterion of its validation scores
    # (the split rebuilt from the fit's seed: fold 0 of the stratified assignment)
    from sklearn.utils import check_random_state
    from pauc.gbm._selection import criterion
    from pauc.distributed._folds import assign_folds
    fold_seed = int(check_random_state(0).randint(np.iinfo(np.int32).max, size=3)[0])
    held_out = assign_folds(dy == 1, 1, fold_seed, model.validation_fraction).compute() == 0
    pos_va = dy.compute()[held_out] == 1
    # stratified: floor(n_c f) rows of each class held out
    y_all = dy.compute() == 1
    assert pos_va.sum() == int(np.floor(y_all.sum() * 0.1))
    assert (~pos_va).sum() == int(np.floor((~y_all).sum() * 0.1))
    for name, rounds in model.validation_rounds_.items():
        assert model.oof_scores_[name].shape == (held_out.sum(),)
        value = criterion(pos_va, model.oof_scores_[name], model.validation_windows_)
        assert model.validation_history_[name][rounds - 1] == pytest.approx(value, rel=1e-12)
    assert model.cv_results_["oof_score"][0] == criterion(
        pos_va, model.oof_scores_["logloss"], model.validation_windows_)
    # in-memory and lazy scores agree; the threshold is the in-memory rule's
    lazy = model.decision_function(dX)
    assert isinstance(lazy, da.Array)
    np.testing.assert_allclose(lazy.compute(), model.decision_function(dX.compute()),
                               rtol=1e-6)
    # a blend's lazy scores too (each member's normalised rank, mapped on the workers)
    import copy
    import dataclasses

    from pauc.gbm._plan import Model
    blend = copy.copy(model)
    fitted = model._fitted
    blend._fitted = dataclasses.replace(fitted, model=Model(
        [(n, 0.5, fitted.fits[n].bag) for n in ("logloss", "exponential")], fitted.model.scales))
    np.testing.assert_allclose(blend.decision_function(dX).compute(),
                               blend.decision_function(dX.compute()), rtol=1e-6)
    # the threshold keeps the operating FPR on the validation rows' scores (by the one
    # fold model, which did not see them), as in memory
    from pauc._threshold import operating_threshold
    scores = model.decision_function(dX.compute())
    assert model.threshold_ == pytest.approx(
        operating_threshold(scores[held_out], pos_va, 0.1), rel=1e-6)
    assert model.threshold_ != pytest.approx(operating_threshold(scores, y_all, 0.1), rel=1e-6)
    # a dask dataframe and series: the same fit (not bit for bit: XGBoost's
    # distributed quantile sketch depends on which worker holds which partition)
    frame = dd.from_dask_array(dX, columns=[f"x{k}" for k in range(6)])
    series = dd.from_dask_array(dy)
    again = GradientBoostingRanker((0.0, 0.1), engine="xgboost", n_iter_no_change=15, cv=1,
                                   n_estimators=80, random_state=0).fit(frame, series)
    assert set(again.validation_history_) == {"logloss", "exponential", "logloss-small", "logloss-extra"}
    assert isinstance(again.decision_function(frame), da.Array)
    X_te, y_te = nonlinear(4000, seed=9)
    assert abs(partial_auc(y_te, again.decision_function(X_te), fpr_range=(0.0, 0.1))
               - partial_auc(y_te, model.decision_function(X_te), fpr_range=(0.0, 0.1))) < 0.05


def test_fixed_rounds_without_validation_and_refit(cluster_client):
    X, y = nonlinear(1500, seed=1)
    _, _, dX, dy = sorted_chunks(X, y)
    model = GradientBoostingRanker((0.0, 0.2), loss="exponential", engine="xgboost",
                                   n_estimators=8, early_stopping=False).fit(dX, dy)
    assert model.n_iter_ == 8 and model.stopped_on_ == "fixed"
    refit = GradientBoostingRanker((0.0, 0.2), loss="logloss", engine="xgboost",
                                   n_estimators=20, early_stopping=True, refit=True,
                                   n_iter_no_change=5, random_state=0).fit(dX, dy)
    assert "refit" in refit.fit_seconds_


def test_clear_errors(cluster_client):
    X, y = nonlinear(600)
    _, _, dX, dy = sorted_chunks(X, y)
    with pytest.raises(ValueError, match="pass engine='xgboost'"):
        GradientBoostingRanker().fit(dX, dy)
    with pytest.raises(ValueError, match="runs on one machine only"):
        GradientBoostingRanker(loss="squared_hinge", engine="xgboost").fit(dX, dy)
    from sklearn.model_selection import StratifiedKFold
    with pytest.raises(ValueError, match="not a splitter"):
        GradientBoostingRanker(engine="xgboost", cv=StratifiedKFold(3)).fit(dX, dy)
    with pytest.raises(ValueError, match="cv=400 folds need at least 400 rows of each"):
        GradientBoostingRanker(engine="xgboost", cv=400).fit(dX, dy)
    with pytest.raises(NotImplementedError, match="sample_weight"):
        GradientBoostingRanker(engine="xgboost").fit(dX, dy, sample_weight=np.ones(600))
    with pytest.raises(ValueError, match="fpr_range must be a pair"):
        GradientBoostingRanker((0.5, 0.1), engine="xgboost").fit(dX, dy)
    with pytest.raises(ValueError, match="only one class|exactly two|one class"):
        GradientBoostingRanker(engine="xgboost").fit(dX, da.zeros(600, chunks=300))


class _DieAtThirdRound(GlobalWindowObjective):
    """Kills the worker process of rank 1 at its third call."""

    def __call__(self, predt, dtrain):
        from xgboost import collective
        if collective.get_rank() == 1 and len(self.history) == 2:
            os._exit(1)
        return super().__call__(predt, dtrain)


def test_killed_worker_is_a_clear_error_not_a_hang(monkeypatch):
    import cloudpickle
    import time
    from pauc.distributed import _cluster_trainer as _boosting
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    monkeypatch.setattr(_boosting, "GlobalWindowObjective", _DieAtThirdRound)
    monkeypatch.setattr(_boosting, "COLLECTIVE_TIMEOUT", 20)
    cluster, client = local_cluster(n_workers=2, processes=True)
    with cluster, client:
        X, y = nonlinear(2000)
        _, _, dX, dy = sorted_chunks(X, y)
        start = time.perf_counter()
        with pytest.raises(WorkerLostError, match="a Dask worker was lost"):
            GradientBoostingRanker((0.0, 0.1), loss="exponential", engine="xgboost",
                                   n_estimators=10, early_stopping=False).fit(dX, dy)
        assert time.perf_counter() - start < 60


@pytest.mark.slow(seconds=60)
def test_distributed_and_single_process_fits_agree_on_test_pauc(cluster_client):
    """200,000 rows, sorted adversarially: test pAUC within 0.01 in three windows.

    Both fits hold out the same validation rows: the distributed fit's split
    (``cv=1``, fold 0 of :func:`pauc.distributed._folds.assign_folds` from the
    fit's seed), handed to the one-process fit as a ``PredefinedSplit``, so that
    what differs is what distribution changes (XGBoost's quantile sketch, the
    order of the floating-point sums), not which rows validate.  (With each
    fit drawing its own split, the gap reached 0.011 in [0.02, 0.05]; the
    in-memory default, ``cv="auto"``, would cross-fit 3 folds on these windows.)

    The bound: the mean gap over the three windows within 0.01, each within
    0.02.  A change of the bins alone moves a fit this much in the narrow
    window: when the one-process fit began to bin every row once (its bins had
    been its training part's), its test pAUC in [0.02, 0.05] moved from 0.7157
    to 0.7245, and the gaps from 0.009, 0.007, 0.002 to 0.002, 0.016, 0.001 in
    [0, 0.01], [0.02, 0.05], [0, 0.1] (the distributed fit unchanged)."""
    from sklearn.model_selection import PredefinedSplit
    from sklearn.utils import check_random_state
    from pauc.distributed._folds import assign_folds
    X, y = nonlinear(240_000, seed=5, d=10)
    X_te, y_te = X[200_000:], y[200_000:]
    _, _, dX, dy = sorted_chunks(X[:200_000], y[:200_000])
    X_tr, y_tr = dX.compute(), dy.compute()
    fold_seed = int(check_random_state(0).randint(np.iinfo(np.int32).max, size=3)[0])
    held_out = assign_folds(dy == 1, 1, fold_seed, 0.1).compute() == 0
    same_split = PredefinedSplit(np.where(held_out, 0, -1))
    gaps = []
    for window in [(0.0, 0.01), (0.02, 0.05), (0.0, 0.1)]:
        make = lambda cv: GradientBoostingRanker(window, loss="exponential",  # noqa: E731
                                                 engine="xgboost", n_iter_no_change=30,
                                                 cv=cv, random_state=0)
        distributed_fit = make(1).fit(dX, dy)
        local_fit = make(same_split).fit(X_tr, y_tr)
        a = partial_auc(y_te, distributed_fit.decision_function(X_te), fpr_range=window)
        b = partial_auc(y_te, local_fit.decision_function(X_te), fpr_range=window)
        print(window, a, b, distributed_fit.n_iter_, local_fit.n_iter_)
        gaps.append(abs(a - b))
    assert np.mean(gaps) <= 0.01 and max(gaps) <= 0.02, gaps
