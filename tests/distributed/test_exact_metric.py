"""pauc.distributed.exact_metric: the exact global AUC / window pAUC for plain
xgboost.dask users, where XGBoost's own distributed ``auc`` averages per-worker
areas (issue 35)."""

import numpy as np
import pytest

xgb = pytest.importorskip("xgboost")
pytest.importorskip("xgboost.dask")
da = pytest.importorskip("dask.array")

from pauc.distributed import exact_metric  # noqa: E402
from pauc.distributed._xgboost_window import forget, records  # noqa: E402
from pauc.metrics import partial_auc, roc_auc  # noqa: E402

from _boosting_problems import on_workers, sorted_problem  # noqa: E402

PARAMS = {"max_depth": 2, "eta": 0.3, "tree_method": "hist", "objective": "binary:logistic"}


def _train(client, metric, n_rounds=3):
    """Trained on rows sorted by the label-driving feature and split in two worker
    blocks (each worker a different top), evaluated on the training rows."""
    X, y = sorted_problem(2000)
    dX, dy = on_workers(client, X, y)
    dtrain = xgb.dask.DaskDMatrix(client, dX, dy)
    out = xgb.dask.train(client, dict(PARAMS, eval_metric="auc"), dtrain, n_rounds,
                         evals=[(dtrain, "train")], custom_metric=metric)
    scores = xgb.dask.predict(client, out["booster"], dX).compute()
    return out["history"]["train"], y, scores


@pytest.mark.parametrize("fpr_range", [(0.0, 1.0), (0.0, 0.1), (0.05, 0.3)])
def test_equals_pauc_metrics_on_the_gathered_scores(cluster_client, fpr_range):
    metric = exact_metric(fpr_range)
    metric._metric.record = name = f"exact-{fpr_range}"   # the workers' unrounded values
    history, y, scores = _train(cluster_client, metric)
    expected = (roc_auc(y, scores) if fpr_range == (0.0, 1.0)
                else partial_auc(y, scores, fpr_range=fpr_range))
    # XGBoost's log rounds to 6 digits
    assert history[metric.__name__][-1] == pytest.approx(expected, abs=1e-6)
    # every worker computed the same value, the exact one
    last = [recs[-1]["value"] for recs in cluster_client.run(records, name).values()]
    cluster_client.run(forget, name)
    assert len(last) == 2 and last[0] == last[1]
    assert abs(last[0] - expected) <= 1e-12
    if fpr_range == (0.0, 1.0):
        # XGBoost's distributed auc averages the two workers' areas: not the AUC
        assert abs(history["auc"][-1] - expected) > 0.01


def test_scikit_learn_interface_and_early_stopping(cluster_client):
    """DaskXGBClassifier(eval_metric=metric) calls metric(y_true, y_score) on each
    worker; early stopping on the maximised exact value."""
    X, y = sorted_problem(2000)
    dX, dy = on_workers(cluster_client, X, y)
    metric = exact_metric((0.0, 0.1))
    model = xgb.dask.DaskXGBClassifier(
        n_estimators=30, max_depth=2, eval_metric=metric, tree_method="hist",
        callbacks=[xgb.callback.EarlyStopping(rounds=3, metric_name=metric.__name__,
                                              maximize=True, save_best=True)])
    model.client = cluster_client
    model.fit(dX, dy, eval_set=[(dX, dy)])
    history = model.evals_result()["validation_0"][metric.__name__]
    scores = model.predict_proba(dX)[:, 1].compute()
    assert history[model.best_iteration] == pytest.approx(
        partial_auc(y, scores, fpr_range=(0.0, 0.1)), abs=1e-6)


def test_errors():
    metric = exact_metric((0.0, 0.1))
    assert metric.__name__ == "exact-pauc[0,0.1]" and exact_metric().__name__ == "exact-auc"
    with pytest.raises(ValueError, match="labels 0 / 1"):
        metric(np.array([0.0, 2.0]), np.array([0.1, 0.2]))
    with pytest.raises(NotImplementedError, match="sample weights"):
        metric(np.array([0.0, 1.0]), np.array([0.1, 0.2]), sample_weight=np.ones(2))
    with pytest.raises(ValueError, match="fpr_range"):
        exact_metric((0.5, 0.1))
