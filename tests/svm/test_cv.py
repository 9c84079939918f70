"""AUCSVMCV / PartialAUCSVMCV: the warm path per fold against fresh fits and GridSearchCV."""

import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.utils.estimator_checks import check_estimator

import pauc
from pauc.exceptions import DegenerateSolutionWarning
from pauc.metrics import partial_auc_scorer, roc_auc_scorer
from pauc.svm import AUCSVM, AUCSVMCV, PartialAUCSVMCV
from pauc.svm._cv import c_grid

from _svm_objective import objective, ranking_data as _data
from svm.test_estimators import EXPECTED_FAILED, EXPECTED_FAILED_PAUC

TOL = 1e-5


def test_exported():
    assert pauc.AUCSVMCV is AUCSVMCV and pauc.PartialAUCSVMCV is PartialAUCSVMCV


def test_c_grid():
    np.testing.assert_allclose(c_grid(3), [1e-4, 1.0, 1e4])
    np.testing.assert_array_equal(c_grid([10, 0.1, 1]), [0.1, 1.0, 10.0])


@pytest.mark.parametrize("make", [
    lambda **kw: AUCSVMCV(**kw),
    lambda **kw: PartialAUCSVMCV((0.0, 0.3), **kw),
    lambda **kw: PartialAUCSVMCV((0.05, 0.4), **kw),
    lambda **kw: PartialAUCSVMCV((0.05, 0.4), surrogate="hinge", **kw),
    lambda **kw: PartialAUCSVMCV((0.0, 0.3), surrogate="naive", **kw),
], ids=["auc", "tight-0-beta", "tight-alpha-beta", "hinge", "naive"])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("seed", [1, 6])
def test_the_scores_and_the_choice_are_gridsearchs(make, sparse, seed):
    """The grid done well: every (fold, C) score is GridSearchCV's over the same Cs and
    folds, exactly, at the default tol -- hence the same C_ -- and the refit is a fit
    at C_ (issue 27: the warm path chose another C on 6 of 12 small problems)."""
    X, y = _data(seed)
    Xf = sp.csr_matrix(X) if sparse else X
    Cs = [0.1, 1.0, 10.0, 100.0]
    folds = list(StratifiedKFold(3).split(X, y))
    cv = make(Cs=Cs, cv=folds)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateSolutionWarning)
        cv.fit(Xf, y)
        single = cv._fold_estimator()
        scorer = (roc_auc_scorer() if isinstance(cv, AUCSVMCV)
                  else partial_auc_scorer(fpr_range=cv.fpr_range))
        grid = GridSearchCV(clone(single), {"C": Cs}, cv=folds, scoring=scorer).fit(Xf, y)
    assert cv.scores_.shape == cv.n_iter_.shape == (3, 4)
    np.testing.assert_array_equal(cv.Cs_, Cs)
    splits = np.array([grid.cv_results_[f"split{k}_test_score"] for k in range(3)])
    np.testing.assert_array_equal(cv.scores_, splits)
    assert cv.C_ == grid.best_params_["C"]
    # the refit is a fit at C_
    ref = clone(single).set_params(C=cv.C_).fit(Xf, y)
    np.testing.assert_array_equal(cv.coef_, ref.coef_)
    assert cv.refit_n_iter_ == ref.n_iter_
    np.testing.assert_array_equal(cv.decision_function(Xf), ref.decision_function(Xf))
    np.testing.assert_array_equal(cv.predict(Xf), ref.predict(Xf))


def test_refit_false_is_the_mean_of_the_folds_models():
    X, y = _data(2)
    folds = list(StratifiedKFold(3).split(X, y))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateSolutionWarning)
        cv = AUCSVMCV(Cs=[0.1, 10.0], cv=folds, refit=False).fit(X, y)
        models = [AUCSVM(C=cv.C_).fit(X[tr], y[tr]).coef_ for tr, _ in folds]
    np.testing.assert_allclose(cv.coef_, np.mean(models, axis=0))
    assert cv.refit_n_iter_ == 0 and np.isfinite(cv.threshold_)


def test_scoring_and_n_jobs():
    X, y = _data(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateSolutionWarning)
        a = PartialAUCSVMCV((0.0, 0.3), Cs=3, cv=3, scoring="roc_auc").fit(X, y)
        b = PartialAUCSVMCV((0.0, 0.3), Cs=3, cv=3, scoring="roc_auc", n_jobs=2).fit(X, y)
    np.testing.assert_allclose(a.scores_, b.scores_)
    assert a.C_ == b.C_


@pytest.mark.parametrize("params, match", [
    ({"Cs": 0}, "Cs must be"), ({"Cs": [1.0, -1.0]}, "Cs must be"), ({"Cs": True}, "Cs must"),
    ({"cv": 1}, "cv must be"), ({"scoring": 3}, "scoring must be"), ({"refit": 1}, "refit"),
])
def test_bad_parameters(params, match):
    X, y = _data(4, n=60)
    with pytest.raises(ValueError, match=match):
        AUCSVMCV(**params).fit(X, y)


def test_pickle_clone_and_string_labels():
    X, y = _data(5)
    labels = np.where(y == 1, "spam", "ham")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateSolutionWarning)
        cv = PartialAUCSVMCV((0.0, 0.3), Cs=3, cv=3, pos_label="spam").fit(X, labels)
    assert list(cv.classes_) == ["ham", "spam"]
    restored = pickle.loads(pickle.dumps(cv))
    np.testing.assert_array_equal(restored.decision_function(X), cv.decision_function(X))
    twin = clone(cv)
    assert twin.get_params() == cv.get_params() and not hasattr(twin, "coef_")


@pytest.mark.parametrize("estimator", [AUCSVMCV(Cs=3, cv=3),
                                       PartialAUCSVMCV(Cs=3, cv=3)],
                         ids=["AUCSVMCV", "PartialAUCSVMCV"])
def test_check_estimator(estimator):
    expected = EXPECTED_FAILED if isinstance(estimator, AUCSVMCV) else EXPECTED_FAILED_PAUC
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", DegenerateSolutionWarning)
        results = check_estimator(estimator, on_fail=None, expected_failed_checks=expected)
    failed = [(r["check_name"], str(r["exception"])[:300]) for r in results
              if r["status"] == "failed"]
    assert failed == []
