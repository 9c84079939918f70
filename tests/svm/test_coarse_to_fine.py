"""The coarse-to-fine start (pauc.svm._coarse_to_fine): it changes the work, not the
guarantee -- the fitted objective stays within C * tol of the optimum, whatever
the coarse levels looked like."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st
from sklearn.exceptions import ConvergenceWarning

from _all_pairs_qp import direct_auc, direct_pauc_0_beta

from pauc.svm import AUCSVM, PartialAUCSVM
from pauc.svm._coarse_to_fine import coarse_levels, solve_coarse_to_fine
from pauc.svm._cutting_plane import CuttingPlaneSolver
from pauc.svm._design import InMemoryDesign
from pauc.svm._estimators import auc_problem
from pauc.svm.oracles import (auc_oracle, pauc_naive_oracle, pauc_tight_oracle,
                              structural_surrogate)


def _data(seed, n=240, d=4, positives=0.3):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < positives
    X = rng.normal(size=(n, d)) + 0.8 * y[:, None]
    return X, y


def _objective(est, X, y, oracle, **kwargs):
    """1/2 ||w||^2 + C R(w) of a fitted estimator, R from the oracle on all rows."""
    w = est.coef_
    return 0.5 * w @ w + est.C * structural_surrogate(oracle, X @ w, y, **kwargs)


def _optimum(X, y, C, oracle, **kwargs):
    """Algorithm 1 from zero at a tolerance 1000x finer than the fits tested
    (itself checked against the all-pairs QP in test_cutting_plane.py)."""
    solver = CuttingPlaneSolver(C, tol=1e-6)
    w = solver.solve(X, lambda s: oracle(s, y, **kwargs))
    return 0.5 * w @ w + C * structural_surrogate(oracle, X @ w, y, **kwargs)


def test_levels_are_every_tenth_row_while_the_level_is_large():
    assert coarse_levels(10**6, 10**5) == [slice(None, None, 100), slice(None, None, 10),
                                            slice(None)]
    assert coarse_levels(10**5, 10**5) == [slice(None, None, 10), slice(None)]
    assert coarse_levels(10**5 - 1, 10**5) == [slice(None)]
    assert coarse_levels(10**6, None) == [slice(None)]
    # a tiny threshold stops before a level of one row
    assert coarse_levels(1000, 2)[0] == slice(None, None, 100)
    assert coarse_levels(1000, 2, stride=3)[0].step == 243       # 5 rows; 729 would keep 2
    for n in range(1, 200):
        assert all(len(range(n)[rows]) >= 2 for rows in coarse_levels(n, 2, stride=3)[:-1])


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("C", [1.0, 10.0])
def test_auc_within_tol_of_all_pairs_qp(seed, C):
    X, y = _data(seed)
    tol = 1e-3
    est = AUCSVM(C=C, tol=tol, coarse_to_fine=20).fit(X, y)
    assert est.coarse_iter_.size >= 1 and est.converged_
    best = direct_auc(X, y, C)
    ours = _objective(est, X, y, auc_oracle)
    assert best - 1e-6 <= ours <= best + C * tol + 1e-6


@pytest.mark.parametrize("seed", range(3))
def test_pauc_0_beta_within_tol_of_direct_qp(seed):
    X, y = _data(seed)
    C, tol = 5.0, 1e-3
    est = PartialAUCSVM((0.0, 0.2), C=C, tol=tol, coarse_to_fine=20).fit(X, y)
    assert est.coarse_iter_.size >= 1
    best = direct_pauc_0_beta(X, y, C, est.j_beta_)
    ours = _objective(est, X, y, pauc_tight_oracle, j_alpha=0, j_beta=est.j_beta_)
    assert best - 1e-6 <= ours <= best + C * tol + 1e-6


@pytest.mark.parametrize("surrogate, oracle", [("tight", pauc_tight_oracle),
                                               ("naive", pauc_naive_oracle)])
@pytest.mark.parametrize("seed", range(3))
def test_pauc_alpha_beta_within_tol_of_the_optimum(surrogate, oracle, seed):
    X, y = _data(seed, n=400)
    C, tol = 10.0, 1e-3
    est = PartialAUCSVM((0.05, 0.3), C=C, surrogate=surrogate, tol=tol,
                        coarse_to_fine=20).fit(X, y)
    assert est.coarse_iter_.size >= 1
    window = dict(j_alpha=est.j_alpha_, j_beta=est.j_beta_)
    best = _optimum(X, y, C, oracle, **window)
    assert _objective(est, X, y, oracle, **window) <= best + C * tol + 1e-6


def test_weighted_auc_within_tol_of_the_optimum():
    X, y = _data(4, n=300)
    weight = np.random.default_rng(4).integers(1, 5, size=y.size).astype(float)
    C, tol = 10.0, 1e-3
    est = AUCSVM(C=C, tol=tol, coarse_to_fine=20).fit(X, y, sample_weight=weight)
    assert est.coarse_iter_.size >= 1
    best = _optimum(X, y, C, auc_oracle, sample_weight=weight)
    assert _objective(est, X, y, auc_oracle, sample_weight=weight) <= best + C * tol + 1e-6


def test_a_misleading_coarse_level_costs_work_not_accuracy():
    # Every 10th row has its label flipped relative to the rest, so the coarse
    # solution points the wrong way; the refinement must still certify.
    X, y = _data(7, n=600)
    y[::10] = X[::10, 0] < 0.0
    C, tol = 10.0, 1e-3
    est = AUCSVM(C=C, tol=tol, coarse_to_fine=50).fit(X, y)
    coarse = AUCSVM(C=C, tol=tol).fit(X[::10], y[::10])
    assert coarse.coef_[0] < 0 < est.coef_[0]        # the start really was misleading
    assert est.coarse_iter_.size >= 1 and est.converged_
    best = _optimum(X, y, C, auc_oracle)
    assert _objective(est, X, y, auc_oracle) <= best + C * tol + 1e-6


def test_one_class_levels_are_skipped():
    X, y = _data(1, n=400)
    y[::10] = False          # both coarse levels (every 10th, every 100th row): negatives only
    est = AUCSVM(C=1.0, coarse_to_fine=20).fit(X, y)
    assert est.coarse_iter_.size == 0
    plain = AUCSVM(C=1.0, coarse_to_fine=None).fit(X, y)
    np.testing.assert_array_equal(est.coef_, plain.coef_)


def test_the_chain_starts_after_the_last_level_with_an_empty_window():
    # Levels of coarse_to_fine=150 on 2000 rows: every 100th row (20 rows), every
    # 10th (200), all.  beta - alpha = 5e-11 is below the snapping tolerance of
    # empirical_indices at 100 negatives (10 and 10 + 5e-9: j_beta = j_alpha = 10,
    # no position) but not at 1003 (100.3 and 100.3 + 5e-8: 100 and 101); the
    # every-100th level (7 negatives: 0.7 -> 0 and 1) is defined again.
    X, _ = _data(2, n=2000)
    y = np.ones(2000, dtype=bool)
    every_100th = np.arange(0, 2000, 100)
    every_10th_only = np.setdiff1d(np.arange(0, 2000, 10), every_100th)
    rest = np.setdiff1d(np.arange(2000), np.arange(0, 2000, 10))
    y[every_100th[:7]] = y[every_10th_only[:93]] = y[rest[:903]] = False
    fpr_range = (0.1, 0.1 + 5e-11)
    est = PartialAUCSVM(fpr_range, C=1.0, coarse_to_fine=150).fit(X, y)
    assert (est.j_alpha_, est.j_beta_) == (100, 101)
    assert est.coarse_iter_.size == 0
    plain = PartialAUCSVM(fpr_range, C=1.0, coarse_to_fine=None).fit(X, y)
    np.testing.assert_array_equal(est.coef_, plain.coef_)


def test_none_is_algorithm_1_from_zero():
    X, y = _data(3, n=300)
    est = AUCSVM(C=10.0, coarse_to_fine=None, method="cutting_plane").fit(X, y)
    solver = CuttingPlaneSolver(10.0, tol=1e-3)
    w = solver.solve(X, lambda s: auc_oracle(s, y))
    np.testing.assert_array_equal(est.coef_, w)
    assert est.n_iter_ == solver.n_iter_ and est.coarse_iter_.size == 0


def test_below_the_threshold_nothing_changes():
    X, y = _data(3, n=300)
    a = AUCSVM(C=10.0).fit(X, y)                       # default 100_000 > 300 rows
    b = AUCSVM(C=10.0, coarse_to_fine=None).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)


def test_dense_and_sparse_agree():
    X, y = _data(5, n=500)
    dense = AUCSVM(C=10.0, coarse_to_fine=20, method="cutting_plane").fit(X, y)
    sparse = AUCSVM(C=10.0, coarse_to_fine=20, method="cutting_plane").fit(sp.csr_matrix(X), y)
    np.testing.assert_array_equal(dense.coarse_iter_, sparse.coarse_iter_)
    np.testing.assert_allclose(dense.coef_, sparse.coef_, rtol=1e-6, atol=1e-8)
    # The proximal method's serious-step test compares two values of J that differ
    # by the rounding of dense and sparse products, so a step can go either way on a
    # coarse level (6 vs 5 iterations on one seed): both end within C tol of min J.
    dense = AUCSVM(C=10.0, coarse_to_fine=20).fit(X, y)
    sparse = AUCSVM(C=10.0, coarse_to_fine=20).fit(sp.csr_matrix(X), y)
    J = [0.5 * w @ w + 10.0 * structural_surrogate(auc_oracle, X @ w, y)
         for w in (dense.coef_, sparse.coef_)]
    assert abs(J[0] - J[1]) <= 10.0 * 1e-3


def test_hinge_surrogate_starts_coarse_and_reaches_a_dc_point():
    X, y = _data(6, n=600)
    est = PartialAUCSVM((0.05, 0.3), C=10.0, surrogate="hinge",
                        coarse_to_fine=100).fit(X, y)
    assert est.coarse_iter_.size == 1
    assert np.all(np.diff(est.dc_history_) <= 0)


def test_coarse_levels_do_not_warn_the_user():
    # max_iter=2 stops every level early: one warning, for the last level only
    X, y = _data(8, n=600)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        AUCSVM(C=100.0, max_iter=2, coarse_to_fine=50).fit(X, y)
    messages = [str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)]
    assert len(messages) == 1 and "max_iter=2" in messages[0]


@pytest.mark.parametrize("value", [1, 0, -5, 2.5, True, "auto"])
def test_bad_threshold_is_refused(value):
    X, y = _data(0, n=50)
    with pytest.raises(ValueError, match="coarse_to_fine must be None or an integer >= 2"):
        AUCSVM(coarse_to_fine=value).fit(X, y)
    with pytest.raises(ValueError, match="coarse_to_fine must be None or an integer >= 2"):
        PartialAUCSVM(coarse_to_fine=value).fit(X, y)


def test_a_problem_defined_nowhere_is_an_error():
    X, y = _data(0, n=50)
    with pytest.raises(ValueError, match="not defined"):
        solve_coarse_to_fine(InMemoryDesign(X, y), lambda level: None,
                             lambda: CuttingPlaneSolver(1.0), 10)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(30, 400), stride=st.integers(2, 6),
       min_rows=st.integers(2, 200), C=st.sampled_from([0.1, 1.0, 30.0]),
       mu=st.sampled_from([0.1, 1.0, 10.0]))
def test_certificate_holds_for_any_chain(seed, n, stride, min_rows, C, mu):
    X, y = _data(seed, n=n, positives=0.4)
    if y.all() or not y.any():
        y[0] = not y[0]

    tol = 1e-3
    # the AUC problem of each level, None on a level holding one class
    w, solver, coarse_iter = solve_coarse_to_fine(
        InMemoryDesign(X, y), auc_problem, lambda: CuttingPlaneSolver(C, tol=tol), min_rows,
        stride=stride, mu=mu)
    assert len(coarse_iter) <= len(coarse_levels(n, min_rows, stride)) - 1
    assert solver.converged_
    J = 0.5 * w @ w + C * structural_surrogate(auc_oracle, X @ w, y)
    assert J <= _optimum(X, y, C, auc_oracle) + C * tol + 1e-6


def test_each_refinement_starts_from_the_level_below_and_the_last_reads_x_itself():
    X, y = _data(9, n=2000)
    calls = []

    class Spy(CuttingPlaneSolver):
        def solve(self, level, problem, w0=None):
            w = super().solve(level, problem, w0)
            calls.append(("solve", level, None, w))
            return w

        def solve_proximal(self, level, problem, center, mu, max_iter=None, handoff=None):
            w = super().solve_proximal(level, problem, center, mu, max_iter, handoff=handoff)
            calls.append(("proximal", level, center, w))
            return w

    design = InMemoryDesign(X, y)
    w, _, coarse_iter = solve_coarse_to_fine(design, auc_problem, lambda: Spy(10.0), 100)
    assert [c[0] for c in calls] == ["solve", "proximal", "proximal"]
    assert [c[1].shape[0] for c in calls] == [20, 200, 2000] and len(coarse_iter) == 2
    assert calls[-1][1] is design and design.X is X
    for below, above in zip(calls, calls[1:]):
        np.testing.assert_array_equal(above[2], below[3])
    np.testing.assert_array_equal(w, calls[-1][3])


def test_a_good_coarse_start_saves_iterations_on_all_rows():
    X, y = _data(10, n=20000, d=8)
    plain = AUCSVM(C=100.0, coarse_to_fine=None, method="cutting_plane").fit(X, y)
    coarse = AUCSVM(C=100.0, coarse_to_fine=2000, method="cutting_plane").fit(X, y)
    assert coarse.coarse_iter_.size == 2
    assert coarse.n_iter_ <= plain.n_iter_ / 2, (coarse.n_iter_, plain.n_iter_)
    assert coarse.n_iter_ == coarse.history_["violation"].size
    assert coarse.history_["proximal"].all()


def test_the_weights_of_a_coarse_level_are_its_rows_weights():
    X, y = _data(11, n=300)
    weight = np.random.default_rng(11).random(300) + 0.1
    scores = X @ np.array([1.0, -0.5, 0.2, 0.3])
    # X = I: the level's scores are w[::10] and its cut vector holds its coefficients
    level = InMemoryDesign(np.eye(300), y, weight).rows(slice(None, None, 10))
    cut = level.cut(scores, auc_problem(level))
    ref_coef, ref_loss = auc_oracle(scores[::10], y[::10], sample_weight=weight[::10])
    np.testing.assert_array_equal(cut.g[::10], ref_coef)
    assert cut.loss == ref_loss


@pytest.mark.parametrize("init", ["zeros", np.full(4, 0.1)])
def test_hinge_without_a_tight_start_has_no_coarse_levels(init):
    X, y = _data(6, n=600)
    est = PartialAUCSVM((0.05, 0.3), C=10.0, surrogate="hinge", init=init,
                        coarse_to_fine=50).fit(X, y)
    assert est.coarse_iter_.size == 0


def test_badly_scaled_features_hand_over_to_algorithm_1():
    # OSQP's rough master solutions keep the proximal bound from closing; after
    # the budget (Algorithm 1's iterations on the coarsest level, at least 10)
    # Algorithm 1 finishes from the cuts collected.
    rng = np.random.default_rng(0)
    y = rng.random(1000) < 0.3
    X = (rng.normal(size=(1000, 5)) + 0.7 * y[:, None]) * np.logspace(-3, 3, 5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        plain = AUCSVM(C=1.0, coarse_to_fine=None, method="cutting_plane").fit(X, y)
        coarse = AUCSVM(C=1.0, coarse_to_fine=20, method="cutting_plane").fit(X, y)
    proximal = coarse.history_["proximal"]
    assert proximal[:10].all() and not proximal[10:].any()      # the hand-over
    assert coarse.n_iter_ == proximal.size <= plain.n_iter_ + 10
    assert coarse.converged_


def test_the_master_warns_once_and_counts_its_rough_solves(monkeypatch):
    # OSQP's own rough solves (without the exact re-solve of small masters)
    monkeypatch.setattr("pauc.svm._master._EXACT_FALLBACK_CUTS", 0)
    X, y = _data(12, n=100, d=10)
    solver = CuttingPlaneSolver(1000.0, tol=1e-4, qp_max_iter=1, max_iter=20)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        solver.solve(X, lambda s: auc_oracle(s, y))
    qp = [w for w in caught if "master QP" in str(w.message) and "stopped" in str(w.message)]
    assert len(qp) == 1 and solver.master.rough_solves > 1
    final = [str(w.message) for w in caught if "did not converge" in str(w.message)]
    assert len(final) == 1 and "standardize the features" in final[0]


def test_a_quiet_solver_warns_nothing_and_touches_no_warning_filter(monkeypatch):
    # OSQP's own rough solves (without the exact re-solve of small masters)
    monkeypatch.setattr("pauc.svm._master._EXACT_FALLBACK_CUTS", 0)
    X, y = _data(12, n=100, d=10)
    solver = CuttingPlaneSolver(1000.0, tol=1e-4, qp_max_iter=1, max_iter=5, warn=False)
    filters = list(warnings.filters)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        solver.solve(X, lambda s: auc_oracle(s, y))
        solver.solve_proximal(X, lambda s: auc_oracle(s, y), np.zeros(10), 1.0)
    assert not caught and not solver.converged_ and solver.master.rough_solves > 0
    assert warnings.filters == filters
