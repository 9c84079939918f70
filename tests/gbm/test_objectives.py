"""pauc.objectives: the window losses and the window pAUC inside LightGBM's own loops."""

import lightgbm as lgb
import numpy as np
import pytest
from sklearn.datasets import make_classification

from pauc._loss import _window as W
from pauc.metrics import partial_auc
from pauc.objectives import LOSSES, window_metric, window_objective


def _data(n=3000, seed=0):
    X, y = make_classification(n, n_features=10, n_informative=5, weights=[0.8],
                               random_state=seed)
    return X, y


@pytest.mark.parametrize("loss", ["exponential", "squared_hinge", "tight_hinge"])
@pytest.mark.parametrize("fpr_range", [(0.0, 0.1), (0.02, 0.2)])
def test_gradient_is_n_times_the_kernel(loss, fpr_range):
    rng = np.random.default_rng(0)
    y = (rng.random(500) < 0.3).astype(int)
    scores = rng.normal(size=500) + y
    objective = window_objective(y, fpr_range, loss)
    grad, hess = objective.gradient(scores)
    is_pos = (y == 1).view(np.uint8)
    g, h = np.zeros(500), np.zeros(500)
    n_neg = int((y == 0).sum())
    j_alpha, j_beta = int(np.floor(n_neg * fpr_range[0])), int(np.ceil(n_neg * fpr_range[1]))
    assert (objective.j_alpha, objective.j_beta) == (j_alpha, j_beta)
    value = getattr(W, loss)(scores, is_pos, int(y.sum()), j_alpha, j_beta, g, h)
    assert objective.value(scores) == pytest.approx(value)
    if loss == "exponential":
        # alone, the exponential is rescaled to a largest gradient of n
        factor = 500 / np.abs(g).max()
    else:
        factor = 500.0
    np.testing.assert_allclose(grad, factor * g, rtol=1e-12, atol=1e-15)
    # the Hessian handed to LightGBM is the diagonal majorizer: twice the diagonal
    np.testing.assert_allclose(hess, 2.0 * factor * h, rtol=1e-12, atol=1e-15)


def test_mixture_adds_weighted_logloss():
    rng = np.random.default_rng(1)
    y = rng.random(400) < 0.4
    scores = rng.normal(size=400)
    mix = window_objective(y, (0.0, 0.2), "squared_hinge", logloss_weight=0.5)
    alone = window_objective(y, (0.0, 0.2), "squared_hinge")
    logloss = window_objective(y, (0.0, 0.2), "logloss")
    g_mix, h_mix = mix.gradient(scores)
    g_win, h_win = alone.gradient(scores)
    g_log, h_log = logloss.gradient(scores)
    np.testing.assert_allclose(g_mix, g_win + 0.5 * g_log, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(h_mix, h_win + 0.5 * h_log, rtol=1e-12, atol=1e-15)
    # log-loss is pointwise: its Hessian diagonal is exact, not doubled
    p = 1.0 / (1.0 + np.exp(-scores))
    np.testing.assert_allclose(h_log, p * (1 - p), rtol=1e-12)
    assert mix.value(scores) == pytest.approx(alone.value(scores) + 0.5 * logloss.value(scores))


def test_logloss_objective_trains_lightgbms_binary_model():
    """The custom log-loss is LightGBM's own binary objective (started from 0)."""
    X, y = _data(2000)
    common = {"num_leaves": 7, "learning_rate": 0.1, "verbosity": -1, "deterministic": True,
              "force_col_wise": True, "num_threads": 1, "seed": 0}
    ours = lgb.train(dict(common, objective=window_objective(y, loss="logloss")),
                     lgb.Dataset(X, y), num_boost_round=30)
    theirs = lgb.train(dict(common, objective="binary", boost_from_average=False),
                       lgb.Dataset(X, y), num_boost_round=30)
    np.testing.assert_allclose(ours.predict(X, raw_score=True),
                               theirs.predict(X, raw_score=True), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("loss", ["exponential", "squared_hinge", "tight_hinge"])
def test_lgb_train_with_window_objective_and_metric_raises_the_window_pauc(loss):
    X, y = _data()
    Xtr, ytr, Xva, yva = X[:2000], y[:2000], X[2000:], y[2000:]
    history = {}
    params = {"objective": window_objective(ytr, (0.0, 0.1), loss), "num_leaves": 15,
              "learning_rate": 0.1, "metric": "None", "verbosity": -1, "num_threads": 1}
    booster = lgb.train(params, lgb.Dataset(Xtr, ytr), num_boost_round=40,
                        valid_sets=[lgb.Dataset(Xva, yva)], valid_names=["va"],
                        feval=window_metric((0.0, 0.1)),
                        callbacks=[lgb.record_evaluation(history)])
    curve = history["va"]["pauc[0,0.1]"]
    assert len(curve) == 40
    assert curve[-1] == pytest.approx(
        partial_auc(yva, booster.predict(Xva, raw_score=True), fpr_range=(0.0, 0.1)))
    assert curve[-1] > curve[0] + 0.05


def test_sklearn_api_argument_order():
    X, y = _data(1500)
    model = lgb.LGBMClassifier(objective=window_objective(y, (0.0, 0.2)), n_estimators=20,
                               num_leaves=7, verbose=-1, n_jobs=1)
    X_va, y_va = _data(500, seed=1)
    model.fit(X, y, eval_X=(X_va,), eval_y=(y_va,), eval_metric=window_metric((0.0, 0.2)))
    recorded = model.evals_result_["valid_0"]["pauc[0,0.2]"]
    raw = model.predict(X_va, raw_score=True)
    assert recorded[-1] == pytest.approx(partial_auc(y_va, raw, fpr_range=(0.0, 0.2)))


def test_metric_matches_partial_auc_with_labels_of_the_dataset():
    rng = np.random.default_rng(2)
    y = rng.random(300) < 0.3
    s = rng.normal(size=300) + y
    data = lgb.Dataset(np.zeros((300, 1)), y.astype(float)).construct()
    name, value, higher = window_metric((0.05, 0.3))(s, data)
    assert (name, higher) == ("pauc[0.05,0.3]", True)
    assert value == pytest.approx(partial_auc(y, s, fpr_range=(0.05, 0.3)))
    # labels 1 / 2 need the positive label
    with pytest.raises(ValueError, match="pos_label"):
        window_metric((0.0, 0.1))(y + 1.0, s)
    assert window_metric((0.0, 0.1), pos_label=2)(y + 1, s)[1] == pytest.approx(
        partial_auc(y, s, fpr_range=(0.0, 0.1)))


@pytest.mark.parametrize("kwargs, message", [
    ({"loss": "hinge"}, "loss='hinge' cannot be used here: boosting needs .* Hessian"),
    ({"loss": "hinged"}, "loss must be one of"),
    ({"loss": None}, "loss must be one of"),
    ({"fpr_range": (0.2, 0.1)}, "fpr_range must satisfy"),
    ({"logloss_weight": -1.0}, "logloss_weight must be a finite number >= 0"),
    ({"loss": "logloss", "logloss_weight": 1.0}, "no meaning with loss='logloss'"),
])
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        window_objective(np.array([0, 1, 0, 1]), **kwargs)


def test_bad_labels_and_scores():
    with pytest.raises(ValueError, match="two classes"):
        window_objective(np.zeros(10))
    with pytest.raises(ValueError, match="pos_label"):
        window_objective(np.array(["a", "b", "a"]))
    assert window_objective(np.array(["a", "b", "a"]), pos_label="b").n_pos == 1
    with pytest.raises(ValueError, match="selects no negative position"):
        # 2 negatives: floor(2 * 0.5) = 1 = ceil(2 * (0.5 + 1e-12)) up to rounding noise
        window_objective(np.array([1, 0, 0]), fpr_range=(0.5, 0.5 + 1e-12))
    objective = window_objective(np.array([1, 0, 0, 1, 0]), (0.0, 0.5))
    with pytest.raises(ValueError, match="built for 5 training rows, got 4"):
        objective.gradient(np.zeros(4))
    with pytest.raises(ValueError, match="NaN or infinity"):
        objective.gradient(np.array([0.0, np.nan, 0.0, 1.0, 2.0]))


def test_pairwise_majorizer_bounds_the_loss_along_a_tree_step():
    """Twice the Hessian diagonal majorizes the window loss: along a step d that
    moves the positives up and the negatives down (what a tree does when it
    splits the classes), L(s + t d) <= L(s) + t g.d + t^2/2 d.(2 diag) d, while the
    exact diagonal alone underestimates the curvature there."""
    rng = np.random.default_rng(7)
    y = rng.random(300) < 0.3
    s = rng.normal(size=300) * 0.3
    objective = window_objective(y, (0.0, 1.0), "squared_hinge")
    grad, hess = objective.gradient(s)            # n times the loss, Hessian doubled
    d = np.where(y, 1.0, -1.0)
    t = 0.05
    value = 300 * objective.value(s)
    moved = 300 * objective.value(s + t * d)
    quad = lambda h: value + t * grad @ d + 0.5 * t * t * d @ (h * d)  # noqa: E731
    assert moved <= quad(hess) + 1e-9
    assert moved > quad(hess / 2.0)


def test_losses_are_listed():
    # the losses of the one loss table with a Hessian; "tight_hinge" is "tight"
    assert LOSSES == ("exponential", "squared_hinge", "tight", "logloss")
    y = np.array([0, 1, 1, 0, 0])
    s = np.array([0.3, 0.1, -0.2, 0.5, 0.0])
    np.testing.assert_array_equal(window_objective(y, (0, 1), "tight_hinge").gradient(s)[0],
                                  window_objective(y, (0, 1), "tight").gradient(s)[0])
    with pytest.raises(ValueError, match="Hessian.*'tight'"):
        window_objective(y, (0, 1), "naive")
    assert "exponential" in repr(window_objective([0, 1, 1], (0, 1)))


def test_objective_without_labels_is_cloned_and_cross_validated():
    """Issue 36: an objective bound to y fails on every fold of cross_val_score; one
    that reads the labels at call time fits each fold on its own rows, as a bound
    objective built on that fold's labels does."""
    from sklearn.base import clone
    from sklearn.model_selection import StratifiedKFold, cross_val_score

    from pauc.metrics import partial_auc_scorer

    X, y = make_classification(600, n_features=6, weights=[0.7], random_state=0)
    scoring = partial_auc_scorer(fpr_range=(0.0, 0.2))
    folds = StratifiedKFold(3, shuffle=True, random_state=0)

    def model(objective):
        return lgb.LGBMClassifier(objective=objective, n_estimators=20, verbosity=-1,
                                  deterministic=True, force_row_wise=True)

    bound = model(window_objective(y, (0.0, 0.2)))
    with pytest.raises(ValueError, match="built for 600 training rows"):
        cross_val_score(bound, X, y, cv=folds, scoring=scoring, error_score="raise")
    free = model(window_objective(fpr_range=(0.0, 0.2)))
    scores = cross_val_score(free, X, y, cv=folds, scoring=scoring, error_score="raise")
    for (train, test), score in zip(folds.split(X, y), scores):
        per_fold = clone(model(window_objective(y[train], (0.0, 0.2)))).fit(X[train], y[train])
        assert score == scoring(per_fold, X[test], y[test])
    # the labels come from the call: lgb.train's Dataset too
    objective = window_objective(fpr_range=(0.0, 0.2))
    with pytest.raises(ValueError, match="reads the labels"):
        objective.gradient(np.zeros(600))
    grad, hess = objective(np.zeros(600), lgb.Dataset(X, y).construct())
    expected = window_objective(y, (0.0, 0.2)).gradient(np.zeros(600))
    np.testing.assert_array_equal(grad, expected[0])
    np.testing.assert_array_equal(hess, expected[1])
