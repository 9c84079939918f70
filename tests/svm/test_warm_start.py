"""warm_start (a path over C keeps the cut pool) and the fits' two methods against the
all-pairs QPs: J(w) <= J* + C tol whichever way the fit got there."""

import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from _all_pairs_qp import direct_auc, direct_pauc_0_beta, direct_pauc_window

from _svm_objective import objective, ranking_data as _data

from pauc.exceptions import DegenerateSolutionWarning
from pauc.svm import AUCSVM, PartialAUCSVM
from pauc.svm._dc import hinge_objective
from pauc.svm._design import InMemoryDesign

TOL = 1e-3


def _fit(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateSolutionWarning)
        return est.fit(X, y)


MAKERS = {
    "auc": lambda **kw: AUCSVM(**kw),
    "tight-0-beta": lambda **kw: PartialAUCSVM((0.0, 0.3), **kw),
    "tight-alpha-beta": lambda **kw: PartialAUCSVM((0.05, 0.4), **kw),
}


@pytest.mark.parametrize("kind", sorted(MAKERS))
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("method", ["proximal", "cutting_plane"])
def test_a_warm_path_over_c_equals_fresh_fits(kind, sparse, method):
    X, y = _data(1)
    Xf = sp.csr_matrix(X) if sparse else X
    warm = MAKERS[kind](warm_start=True, method=method)
    solver = None
    for C in (0.1, 1.0, 10.0, 100.0):
        _fit(warm.set_params(C=C), Xf, y)
        # the same solver (cut pool, Gram matrix) all along the path
        kept = warm._warm["solver"]
        assert solver is None or kept is solver
        solver = kept
        assert warm.converged_
        fresh = _fit(MAKERS[kind](C=C, method=method), Xf, y)
        assert abs(objective(warm, X, y) - objective(fresh, X, y)) <= C * TOL + 1e-9


def test_the_warm_path_saves_iterations():
    X, y = _data(2, n=400)
    warm = PartialAUCSVM((0.05, 0.4), warm_start=True)
    warm_iter, cold_iter = [], []
    for C in (1.0, 10.0, 100.0, 1000.0):
        warm_iter.append(_fit(warm.set_params(C=C), X, y).n_iter_)
        cold_iter.append(_fit(PartialAUCSVM((0.05, 0.4), C=C), X, y).n_iter_)
    assert sum(warm_iter[1:]) < sum(cold_iter[1:]), (warm_iter, cold_iter)


def test_hinge_warm_path_starts_from_the_previous_solution():
    X, y = _data(3)
    est = PartialAUCSVM((0.05, 0.4), surrogate="hinge", warm_start=True)
    _fit(est.set_params(C=1.0), X, y)
    w1 = est.coef_.copy()
    _fit(est.set_params(C=10.0), X, y)
    # CCCP's first recorded objective is J(w1) at the new C (no init="tight" solve)
    assert est.dc_history_[0] == pytest.approx(
        hinge_objective(InMemoryDesign(X, y == 1), w1, est.j_alpha_, est.j_beta_, 10.0))
    assert np.all(np.diff(est.dc_history_) <= 0)


def _same_fit(a, b):
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert a.n_iter_ == b.n_iter_


@pytest.mark.parametrize("change", ["X", "y", "window", "surrogate", "sample_weight"])
def test_any_other_change_starts_afresh(change):
    X, y = _data(4)
    est = PartialAUCSVM((0.0, 0.3), C=10.0, warm_start=True)
    _fit(est, X, y)
    X2, y2, params, weight = X, y, {}, None
    if change == "X":
        X2 = X.copy()
        X2[17, 3] += 0.5
    elif change == "y":
        y2 = y.copy()
        y2[:3] = 1 - y2[:3]
    elif change == "window":
        params = {"fpr_range": (0.0, 0.4)}
    elif change == "surrogate":
        params = {"surrogate": "naive"}
    else:
        weight = np.full(X.shape[0], 2.0)      # constant weights are accepted
        est = AUCSVM(C=10.0, warm_start=True)
        _fit(est, X, y)
        weight = np.linspace(1.0, 2.0, X.shape[0])
    est.set_params(**params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateSolutionWarning)
        est.fit(X2, y2, sample_weight=weight)
        cold = type(est)(**{**est.get_params(), "warm_start": False}).fit(
            X2, y2, sample_weight=weight)
    _same_fit(est, cold)


def test_warm_start_false_keeps_nothing_and_pickle_drops_the_solver():
    X, y = _data(5)
    est = _fit(AUCSVM(C=1.0), X, y)
    assert "_warm" not in est.__dict__
    warm = _fit(AUCSVM(C=1.0, warm_start=True), X, y)
    assert "_warm" in warm.__dict__
    restored = pickle.loads(pickle.dumps(warm))
    assert "_warm" not in restored.__dict__
    np.testing.assert_array_equal(restored.decision_function(X), warm.decision_function(X))
    # the restored estimator's next warm fit is a cold one
    _same_fit(_fit(restored.set_params(C=3.0), X, y), _fit(AUCSVM(C=3.0), X, y))


# ------------------------------------------------ the methods against the all-pairs QP
def _small(seed, m=7, n=11, d=4, shift=0.7):
    rng = np.random.default_rng(seed)
    y = np.zeros(m + n, dtype=int)
    y[:m] = 1
    rng.shuffle(y)
    X = rng.normal(size=(m + n, d)) + shift * y[:, None]
    return X, y


@pytest.mark.parametrize("method", ["proximal", "cutting_plane"])
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("C", [0.1, 10.0, 100.0])
def test_fits_within_c_tol_of_the_all_pairs_qp(method, seed, C):
    X, y = _small(seed)
    est = _fit(AUCSVM(C=C, method=method), X, y)
    best = direct_auc(X, y == 1, C)
    assert best - 1e-6 <= objective(est, X, y) <= best + C * TOL + 1e-6
    # [0, beta]: j_beta = ceil(11 * 0.3) = 4
    est = _fit(PartialAUCSVM((0.0, 0.3), C=C, method=method), X, y)
    best = direct_pauc_0_beta(X, y == 1, C, est.j_beta_)
    assert best - 1e-6 <= objective(est, X, y) <= best + C * TOL + 1e-6


@pytest.mark.parametrize("method", ["proximal", "cutting_plane"])
@pytest.mark.parametrize("C", [1.0, 20.0])
def test_window_fits_within_c_tol_of_the_all_orderings_qp(method, C):
    X, y = _small(1, m=4, n=6, d=3, shift=0.3)
    est = _fit(PartialAUCSVM((0.2, 0.5), C=C, method=method), X, y)
    assert (est.j_alpha_, est.j_beta_) == (1, 3)
    best = direct_pauc_window(X, y == 1, C, 1, 3, "tight")
    assert best - 1e-6 <= objective(est, X, y) <= best + C * TOL + 1e-6
