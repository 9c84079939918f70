"""pauc.objectives in XGBoost's APIs; sample weights refused in LightGBM's and XGBoost's (issue 26)."""

import lightgbm as lgb
import numpy as np
import pytest
from sklearn.datasets import make_classification

xgb = pytest.importorskip("xgboost")

from pauc.metrics import partial_auc  # noqa: E402
from pauc.objectives import window_metric, window_objective, xgboost_metric  # noqa: E402

PARAMS = {"eta": 0.2, "max_depth": 3, "base_score": 0.0, "disable_default_eval_metric": 1,
          "nthread": 1, "verbosity": 0}


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(1500, n_features=8, weights=[0.8], random_state=0)
    return X[:1000], y[:1000], X[1000:], y[1000:]


class _Recorder:
    """Wraps an objective; keeps what XGBoost gave it and what it returned."""

    def __init__(self, objective):
        self.objective, self.calls = objective, []

    def __call__(self, predt, dtrain):
        out = self.objective(predt, dtrain)
        self.calls.append((np.array(predt), out))
        return out


@pytest.mark.parametrize("loss", ["exponential", "squared_hinge", "tight_hinge", "logloss"])
def test_xgb_train_gets_the_window_gradient(data, loss):
    X, y, _, _ = data
    objective = window_objective(y, (0.0, 0.2), loss)
    recorder = _Recorder(objective)
    xgb.train(PARAMS, xgb.DMatrix(X, y), num_boost_round=4, obj=recorder)
    assert len(recorder.calls) == 4
    for predt, (grad, hess) in recorder.calls:
        g, h = objective.gradient(predt)
        np.testing.assert_array_equal(grad, g)
        np.testing.assert_array_equal(hess, h)


def test_xgb_train_metric_is_the_exact_partial_auc(data):
    X, y, X_va, y_va = data
    metric = xgboost_metric((0.0, 0.1))
    valid = xgb.DMatrix(X_va, y_va)
    booster = xgb.train(PARAMS, xgb.DMatrix(X, y), num_boost_round=60,
                        obj=window_objective(y, (0.0, 0.1)), custom_metric=metric,
                        evals=[(valid, "valid")], early_stopping_rounds=20, maximize=True,
                        verbose_eval=False)
    scores = booster.predict(valid, output_margin=True)
    assert metric.history[-1] == partial_auc(y_va, scores, fpr_range=(0.0, 0.1))
    # XGBoost keeps the best round, rounded to six digits in its log
    assert booster.best_score == pytest.approx(max(metric.history), abs=1e-6)
    assert 0.5 < booster.best_score <= 1.0


def test_xgbclassifier_objective_and_eval_metric(data):
    X, y, X_va, y_va = data
    metric = xgboost_metric((0.0, 0.1))
    model = xgb.XGBClassifier(n_estimators=40, learning_rate=0.2, max_depth=3, base_score=0.0,
                              objective=window_objective(y, (0.0, 0.1)), eval_metric=metric,
                              n_jobs=1)
    model.fit(X, y, eval_set=[(X_va, y_va)], verbose=False)
    log = model.evals_result()["validation_0"]["pauc[0,0.1]"]
    assert len(log) == 40
    margins = model.get_booster().predict(xgb.DMatrix(X_va), output_margin=True)
    assert metric.history[-1] == partial_auc(y_va, margins, fpr_range=(0.0, 0.1))
    assert metric.history[-1] > 0.5


# ------------------------------------------------------------------ weights
WEIGHTED = "do not support sample weights"


def test_lgb_train_refuses_dataset_weights(data):
    X, y, _, _ = data
    params = {"objective": window_objective(y, (0.0, 0.1)), "verbosity": -1}
    with pytest.raises(NotImplementedError, match=WEIGHTED):
        lgb.train(params, lgb.Dataset(X, y, weight=np.linspace(1, 2, y.size)), 2)


def test_lgb_train_metric_refuses_weighted_validation(data):
    X, y, X_va, y_va = data
    params = {"objective": window_objective(y, (0.0, 0.1)), "verbosity": -1, "metric": "None"}
    train = lgb.Dataset(X, y)
    # (LightGBM drops weights that are all 1: they are no weights)
    valid = lgb.Dataset(X_va, y_va, weight=np.linspace(1, 2, y_va.size), reference=train)
    with pytest.raises(NotImplementedError, match=WEIGHTED):
        lgb.train(params, train, 2, valid_sets=[valid], feval=window_metric((0.0, 0.1)))


def test_lgbmclassifier_refuses_sample_weight(data):
    X, y, X_va, y_va = data
    model = lgb.LGBMClassifier(objective=window_objective(y, (0.0, 0.1)), n_estimators=3,
                               verbosity=-1)
    with pytest.raises(NotImplementedError, match=WEIGHTED):
        model.fit(X, y, sample_weight=np.full(y.size, 2.0))
    # and unweighted it trains, the metric included
    model.fit(X, y, eval_X=(X_va,), eval_y=(y_va,), eval_metric=window_metric((0.0, 0.1)))
    assert "pauc[0,0.1]" in model.evals_result_["valid_0"]


def test_xgb_train_refuses_dmatrix_weights(data):
    X, y, X_va, y_va = data
    with pytest.raises(NotImplementedError, match=WEIGHTED):
        xgb.train(PARAMS, xgb.DMatrix(X, y, weight=np.ones(y.size)), 2,
                  obj=window_objective(y, (0.0, 0.1)))
    with pytest.raises(NotImplementedError, match=WEIGHTED):
        xgb.train(PARAMS, xgb.DMatrix(X, y), 2, obj=window_objective(y, (0.0, 0.1)),
                  custom_metric=xgboost_metric((0.0, 0.1)),
                  evals=[(xgb.DMatrix(X_va, y_va, weight=np.ones(y_va.size)), "v")])


def test_xgbclassifier_refuses_sample_weight(data):
    X, y, X_va, y_va = data
    model = xgb.XGBClassifier(objective=window_objective(y, (0.0, 0.1)), n_estimators=3)
    with pytest.raises(NotImplementedError, match=WEIGHTED):
        model.fit(X, y, sample_weight=np.ones(y.size))
    model = xgb.XGBClassifier(n_estimators=3, eval_metric=xgboost_metric((0.0, 0.1)))
    with pytest.raises(NotImplementedError, match=WEIGHTED):
        model.fit(X, y, eval_set=[(X_va, y_va)], sample_weight_eval_set=[np.ones(y_va.size)],
                  verbose=False)


def test_unweighted_calls_still_work_in_both_orders(data):
    X, y, _, _ = data
    objective = window_objective(y, (0.0, 0.1))
    s = np.random.RandomState(0).randn(y.size)
    g1, h1 = objective(s, xgb.DMatrix(X, y))
    g2, h2 = objective(y, s)
    g3, h3 = objective(y, s, None)
    np.testing.assert_array_equal(g1, g2)
    np.testing.assert_array_equal(g2, g3)
