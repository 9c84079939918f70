"""Window boosting on XGBoost's collective, on a LocalCluster of 2 worker processes (issue 26).

The rows are partitioned adversarially: sorted by the feature that drives the
label, the first half on one worker and the second on the other, so each
worker holds a different top of the list and a per-worker window is wrong.
Every round, the window the objective computed on each worker -- its borders,
the negatives above and tied with them, the weights, the exponential loss's
global sums and the gradients -- must equal the single-process values of the
concatenated scores (:mod:`pauc._loss._window`).
"""

import math
import os

import numpy as np
import pytest

xgb = pytest.importorskip("xgboost")
pytest.importorskip("xgboost.dask")
import xgboost.dask  # noqa: E402,F401
da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("dask.distributed")

from pauc._loss import _window as _window_losses  # noqa: E402
from pauc.distributed._collective import CollectiveError  # noqa: E402
from pauc.distributed._xgboost_window import (GlobalWindowMetric,  # noqa: E402
                                              GlobalWindowObjective, records)
from pauc.metrics import partial_auc  # noqa: E402
from pauc.objectives import PAIRWISE_CURVATURE  # noqa: E402
from pauc._validation import empirical_indices  # noqa: E402

from _boosting_problems import on_workers, sorted_problem  # noqa: E402
from _chunked_problems import local_cluster  # noqa: E402

PARAMS = {"max_depth": 3, "eta": 0.3, "base_score": 0.0, "tree_method": "hist",
          "disable_default_eval_metric": 1}


def by_rank(client, name):
    per_worker = client.run(records, name)
    runs = sorted(per_worker.values(), key=lambda r: r[0]["rank"])
    assert len(runs) == 2 and [r[0]["rank"] for r in runs] == [0, 1]
    return runs


@pytest.mark.parametrize("fpr_range", [(0.0, 0.1), (0.02, 0.05), (0.0, 1.0)])
def test_each_round_window_equals_single_process(cluster_client, fpr_range):
    X, y = sorted_problem()
    dX, dy = on_workers(cluster_client, X, y)
    name = f"window-{fpr_range}"
    xgb.dask.train(cluster_client, PARAMS, xgb.dask.DaskDMatrix(cluster_client, dX, dy), 6,
                   obj=GlobalWindowObjective(fpr_range, record=name, record_scores=True))
    ranks = by_rank(cluster_client, name)
    assert all(len(r) == 6 for r in ranks)
    local_windows_differ = False
    for rnd in range(6):
        rec = [r[rnd] for r in ranks]
        scores = np.concatenate([r["scores"] for r in rec])
        is_pos = np.concatenate([r["is_pos"] for r in rec])
        n_neg = int((~is_pos).sum())
        j_alpha, j_beta = empirical_indices(n_neg, fpr_range)
        neg = np.sort(scores[~is_pos])[::-1]
        for r in rec:
            w = r["window"]
            assert w.v_top == neg[j_alpha] and w.v_bot == neg[j_beta - 1]
            assert (w.above_top, w.tied_top) == (int((neg > w.v_top).sum()),
                                                 int((neg == w.v_top).sum()))
            assert (w.above_bot, w.tied_bot) == (int((neg > w.v_bot).sum()),
                                                 int((neg == w.v_bot).sum()))
            # a worker's own window (its negatives only) is another one
            own = np.sort(r["scores"][~r["is_pos"]])[::-1]
            own_ja, own_jb = empirical_indices(own.size, fpr_range)
            local_windows_differ |= (own[own_ja], own[own_jb - 1]) != (w.v_top, w.v_bot)
        omega = _window_losses.window_weights(scores, is_pos.view(np.uint8), j_alpha, j_beta)
        grad, hess = np.zeros(scores.size), np.zeros(scores.size)
        _window_losses.exponential(scores, is_pos.view(np.uint8), int(is_pos.sum()), j_alpha,
                                   j_beta, grad, hess, scale=float(scores.size),
                                   normalize=True, curvature=PAIRWISE_CURVATURE)
        w = rec[0]["window"]
        neg_omega = omega[~is_pos]
        assert w.w_top == (neg_omega[scores[~is_pos] == w.v_top][0])
        assert w.w_bot == (neg_omega[scores[~is_pos] == w.v_bot][0])
        # the global sums: sum over positives of exp(lo - s), over negatives of omega exp(s - v_top)
        sums = rec[0]["sums"]
        s64 = scores.astype(np.float64)         # XGBoost's float32 margins, exactly
        lo = s64[is_pos].min()
        assert sums.lo_pos == lo
        assert sums.sum_pos == pytest.approx(math.fsum(np.exp(lo - s64[is_pos])), rel=1e-12)
        assert sums.sum_neg == pytest.approx(
            math.fsum(neg_omega * np.exp(s64[~is_pos] - w.v_top)), rel=1e-12)
        for r in rec[1:]:
            assert r["sums"] == sums and r["window"] == w
    if fpr_range != (0.0, 1.0):
        assert local_windows_differ


def test_gradients_equal_single_process(cluster_client):
    X, y = sorted_problem(seed=1)
    dX, dy = on_workers(cluster_client, X, y)
    xgb.dask.train(cluster_client, PARAMS, xgb.dask.DaskDMatrix(cluster_client, dX, dy), 3,
                   obj=GlobalWindowObjective((0.0, 0.1), record="grad", record_scores=True))

    ranks = by_rank(cluster_client, "grad")
    for rnd in range(3):
        scores = np.concatenate([r[rnd]["scores"] for r in ranks])
        is_pos = np.concatenate([r[rnd]["is_pos"] for r in ranks])
        n_neg = int((~is_pos).sum())
        j_alpha, j_beta = empirical_indices(n_neg, (0.0, 0.1))
        grad, hess = np.zeros(scores.size), np.zeros(scores.size)
        _window_losses.exponential(scores, is_pos.view(np.uint8), int(is_pos.sum()), j_alpha,
                                   j_beta, grad, hess, scale=float(scores.size),
                                   normalize=True, curvature=PAIRWISE_CURVATURE)
        # the distributed objective's gradients on the same scores, worker by worker
        from pauc.distributed._global_window import (GlobalCounts, exponential_derivatives)

        class Replay:       # the recorded global sums stand for the allreduces
            def __init__(self, values):
                self.values = list(values)

            def sum(self, a):
                return self.values.pop(0)
            max = sum

        got_g, got_h = [], []
        for r in ranks:
            rec = r[rnd]
            s = rec["sums"]
            g, h = np.zeros(rec["scores"].size), np.zeros(rec["scores"].size)
            counts = GlobalCounts(int(is_pos.sum()), n_neg, scores.size, j_alpha, j_beta)
            exponential_derivatives(rec["scores"], rec["is_pos"], counts, rec["window"],
                                    Replay([np.array([-s.lo_pos]),
                                            np.array([s.sum_pos, s.sum_neg]),
                                            np.array([s.max_neg])]),
                                    g, h, scale=float(scores.size), normalize=True,
                                    curvature=PAIRWISE_CURVATURE)
            got_g.append(g)
            got_h.append(h)
        np.testing.assert_allclose(np.concatenate(got_g), grad, rtol=1e-12, atol=0)
        np.testing.assert_allclose(np.concatenate(got_h), hess, rtol=1e-12, atol=0)


def test_validation_metric_equals_partial_auc_of_gathered_scores(cluster_client):
    X, y = sorted_problem(4000, seed=2)
    dX, dy = on_workers(cluster_client, X[:3000], y[:3000])
    vX, vy = on_workers(cluster_client, X[3000:], y[3000:])
    train = xgb.dask.DaskDMatrix(cluster_client, dX, dy)
    valid = xgb.dask.DaskDMatrix(cluster_client, vX, vy)
    windows = [(0.0, 0.05), (0.0, 0.3)]
    out = xgb.dask.train(cluster_client, PARAMS, train, 4,
                         obj=GlobalWindowObjective((0.0, 0.1)), evals=[(valid, "valid")],
                         custom_metric=GlobalWindowMetric(windows, record="metric",
                                                          with_logloss=True))
    values = {w: [r["value"] for r in recs] for w, recs in
              cluster_client.run(records, "metric").items()}
    first, second = values.values()
    assert first == second                  # every worker saw the same value
    scores = xgb.dask.predict(cluster_client, out["booster"], vX, output_margin=True).compute()
    expected = np.mean([partial_auc(y[3000:], scores, fpr_range=w) for w in windows])
    assert abs(first[-1] - expected) <= 1e-12
    logloss = [r["logloss"] for r in next(iter(cluster_client.run(records, "metric").values()))]
    margin = np.where(y[3000:] == 1, scores, -scores).astype(np.float64)
    assert logloss[-1] == pytest.approx(np.mean(np.logaddexp(0.0, -margin)), rel=1e-12)


def test_weights_are_refused(cluster_client):
    X, y = sorted_problem(400)
    dX, dy, dw = on_workers(cluster_client, X, y, np.ones(400))
    train = xgb.dask.DaskDMatrix(cluster_client, dX, dy, weight=dw)
    with pytest.raises(NotImplementedError, match="sample weights"):
        xgb.dask.train(cluster_client, PARAMS, train, 2, obj=GlobalWindowObjective())


class _DieAtThirdRound(GlobalWindowObjective):
    """Kills the process of rank 1 at its third call (a worker lost mid-training)."""

    def __call__(self, predt, dtrain):
        from xgboost import collective
        if collective.get_rank() == 1 and len(self.history) == 2:
            os._exit(1)
        return super().__call__(predt, dtrain)


@pytest.mark.slow(seconds=12)
def test_killed_worker_gives_an_error_not_a_hang():
    import cloudpickle
    import sys
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    cluster, client = local_cluster(n_workers=2, processes=True)
    with cluster, client:
        X, y = sorted_problem(1000)
        dX, dy = on_workers(client, X, y)
        train = xgb.dask.DaskDMatrix(client, dX, dy)
        with pytest.raises((CollectiveError, distributed.scheduler.KilledWorker, Exception)) \
                as info:
            xgb.dask.train(client, PARAMS, train, 10, obj=_DieAtThirdRound(),
                           coll_cfg=xgb.collective.Config(timeout=10))
        print(type(info.value).__name__, info.value)
