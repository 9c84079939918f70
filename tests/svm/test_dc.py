"""PartialAUCSVM(surrogate="hinge"): Theorem 5 for alpha = 0, Algorithm 4 (CCCP) otherwise."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from pauc._validation import empirical_indices
from pauc.surrogates import surrogate
from pauc.svm import PartialAUCSVM
from pauc.svm._cutting_plane import CuttingPlaneSolver
from pauc.svm._dc import cccp, hinge_objective
from pauc.svm._design import InMemoryDesign


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    n = 600
    X = rng.normal(size=(n, 6))
    y = (X[:, 0] + 0.5 * X[:, 1] ** 2 + rng.normal(size=n) > 1.0).astype(int)
    return X, y


def _objective(model, X, y):
    value, _ = surrogate("hinge", model.coef_, X, y, fpr_range=model.fpr_range)
    return 0.5 * model.coef_ @ model.coef_ + model.C * value


def test_hinge_with_alpha_zero_is_the_tight_svm(data):
    """Theorem 5: on [0, beta] the hinge surrogate is the tight one; same solver, same w."""
    X, y = data
    hinge = PartialAUCSVM((0.0, 0.2), C=10.0, surrogate="hinge").fit(X, y)
    tight = PartialAUCSVM((0.0, 0.2), C=10.0, surrogate="tight").fit(X, y)
    np.testing.assert_allclose(hinge.coef_, tight.coef_, rtol=1e-10, atol=1e-12)
    assert hinge.dc_history_ is None


@pytest.mark.parametrize("init", ["tight", "zeros"])
def test_cccp_decreases_the_hinge_objective(data, init):
    X, y = data
    model = PartialAUCSVM((0.05, 0.3), C=10.0, surrogate="hinge", init=init, tol=1e-4).fit(X, y)
    history = model.dc_history_
    assert history.shape[0] >= 2
    # non-increasing: a step the inexact convex solve leaves higher is not taken
    assert np.all(np.diff(history) <= 0)
    assert history[-1] == pytest.approx(_objective(model, X, y), rel=1e-9)
    assert model.converged_


def test_cccp_keeps_the_better_point_when_a_step_ends_higher():
    """From w = 0 (J = C: every pair's hinge is 1) with a coarse tol, Algorithm 1's
    convex solve ends at J ≈ 100.36 > 100 (measured): that step is not taken, the
    start is returned and CCCP stops.  (The default proximal solve, started at w = 0,
    certifies it within C * tol instead of leaving it.)"""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 5))
    y = (X[:, 0] + rng.normal(scale=3.0, size=400) > 1.5).astype(int)
    j_alpha, j_beta = empirical_indices(int((y == 0).sum()), (0.05, 0.3))
    solver = CuttingPlaneSolver(100.0, tol=1e-2)
    w, history, converged = cccp(InMemoryDesign(X, y == 1), j_alpha, j_beta, solver,
                                 np.zeros(5), prox=None)
    assert history[1]["step_objective"] > history[0]["objective"] == history[1]["objective"]
    assert history[0]["objective"] == 100.0
    np.testing.assert_array_equal(w, np.zeros(5))
    assert converged and len(history) == 2
    # Through the estimator (proximal solves): non-increasing, coef_ is the last point.
    model = PartialAUCSVM((0.05, 0.3), C=100.0, surrogate="hinge", init="zeros",
                          tol=1e-2).fit(X, y)
    assert np.all(np.diff(model.dc_history_) <= 0)
    assert model.dc_history_[-1] == pytest.approx(_objective(model, X, y), rel=1e-9)


def test_cccp_beats_its_tight_start_on_the_hinge_objective(data):
    X, y = data
    tight = PartialAUCSVM((0.05, 0.3), C=10.0, surrogate="tight", tol=1e-4).fit(X, y)
    dc = PartialAUCSVM((0.05, 0.3), C=10.0, surrogate="hinge", tol=1e-4).fit(X, y)
    assert dc.dc_history_[0] == pytest.approx(_objective(tight, X, y), rel=1e-9)
    assert _objective(dc, X, y) <= _objective(tight, X, y)


def test_objective_helper_matches_surrogate_module(data):
    X, y = data
    w = np.random.default_rng(1).normal(size=6)
    n_neg = int((y == 0).sum())
    j_alpha, j_beta = int(np.floor(n_neg * 0.05)), int(np.ceil(n_neg * 0.3))
    value, _ = surrogate("hinge", w, X, y, fpr_range=(0.05, 0.3))
    design = InMemoryDesign(X, y == 1)
    assert hinge_objective(design, w, j_alpha, j_beta, 3.0) == pytest.approx(
        0.5 * w @ w + 3.0 * value, rel=1e-12)


def test_init_array_and_bad_values(data):
    X, y = data
    start = np.ones(6)
    model = PartialAUCSVM((0.05, 0.3), C=1.0, surrogate="hinge", init=start).fit(X, y)
    assert model.dc_history_[0] == pytest.approx(
        hinge_objective(InMemoryDesign(X, y == 1), start, model.j_alpha_, model.j_beta_,
                        1.0))
    with pytest.raises(ValueError, match="init"):
        PartialAUCSVM((0.05, 0.3), surrogate="hinge", init=np.ones(3)).fit(X, y)
    with pytest.raises(ValueError, match="init"):
        PartialAUCSVM((0.05, 0.3), surrogate="hinge", init="random").fit(X, y)
    with pytest.raises(ValueError, match="dc_tol"):
        PartialAUCSVM((0.05, 0.3), surrogate="hinge", dc_tol=0).fit(X, y)
    with pytest.raises(ValueError, match="dc_max_iter"):
        PartialAUCSVM((0.05, 0.3), surrogate="hinge", dc_max_iter=0).fit(X, y)


def test_dc_max_iter_warns(data):
    X, y = data
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        PartialAUCSVM((0.05, 0.3), C=10.0, surrogate="hinge", dc_max_iter=1,
                      dc_tol=1e-12).fit(X, y)
    assert any(issubclass(w.category, ConvergenceWarning) and "dc_max_iter" in str(w.message)
               for w in caught)


def test_sparse_equals_dense(data):
    import scipy.sparse as sp

    X, y = data
    dense = PartialAUCSVM((0.05, 0.3), C=5.0, surrogate="hinge").fit(X, y)
    sparse = PartialAUCSVM((0.05, 0.3), C=5.0, surrogate="hinge").fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(dense.coef_, sparse.coef_, rtol=1e-6, atol=1e-8)


def test_inner_iterations_are_recorded_per_outer_step(data):
    """dc_inner_iter_: one cutting-plane count per CCCP step, summing to n_iter_."""
    X, y = data
    model = PartialAUCSVM((0.05, 0.3), C=10.0, surrogate="hinge", init="zeros").fit(X, y)
    assert model.dc_inner_iter_.shape == (model.dc_history_.shape[0] - 1,)
    assert model.dc_inner_iter_.sum() == model.n_iter_
    assert np.all(model.dc_inner_iter_ >= 1)
    tight = PartialAUCSVM((0.05, 0.3), C=10.0).fit(X, y)
    assert tight.dc_inner_iter_ is None


# ---------------------------------------------------------------- CCCP moves its linearisation
# Issue 21, "tests that could not fail": CCCP linearising the concave part at the starting
# point at every step (instead of at the latest iterate) passed every test above -- the
# objective still never rises, still ends below the tight start, and "converges" after
# one step.  The two tests below fail on that mutation (checked by planting it).


def _exact_cccp_step(X, y, w, j_alpha, j_beta, C):
    """One exact step of Algorithm 4 from w, by cvxpy: the convex upper bound
    1/2 |v|^2 + C f(v) + l.v with g linearised at w (l = C j_alpha / width X^T coef_alpha,
    f written with every pair: Theorem 5's top-j_beta hinge sum)."""
    import cvxpy as cp

    from _all_pairs_qp import pair_hinges
    from pauc.svm.oracles import pauc_tight_oracle

    width = j_beta - j_alpha
    coef_alpha, _ = pauc_tight_oracle(X @ w, y, 0, j_alpha)
    linear = C * (j_alpha / width) * (X.T @ coef_alpha)
    v = cp.Variable(X.shape[1])
    per_negative = cp.sum(cp.pos(pair_hinges(X, y, v)), axis=0)
    objective = (0.5 * cp.sum_squares(v) + C / (y.sum() * width)
                 * cp.sum_largest(per_negative, j_beta) + linear @ v)
    cp.Problem(cp.Minimize(objective)).solve(solver=cp.CLARABEL)
    return v.value


def test_cccp_ends_at_a_fixed_point_of_the_exact_step():
    """From the returned w a further exact CCCP step gains (almost) nothing: measured
    4.5e-5 against a budget 2 (C tol + dc_tol |J|) = 3.7e-4.  Linearising at w0 at every
    step stalls after one step at a point where the exact step still gains 9.4e-3."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 6))
    y = (X[:, 0] + 0.5 * X[:, 1] ** 2 + rng.normal(size=300) > 1.0).astype(int)
    C, tol, dc_tol = 10.0, 1e-5, 1e-5
    model = PartialAUCSVM((0.05, 0.3), C=C, surrogate="hinge", tol=tol, dc_tol=dc_tol)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, y)
    ja, jb = model.j_alpha_, model.j_beta_
    design = InMemoryDesign(X, y == 1)
    J = hinge_objective(design, model.coef_, ja, jb, C)
    v = _exact_cccp_step(X, y == 1, model.coef_, ja, jb, C)
    gain = J - hinge_objective(design, v, ja, jb, C)
    assert gain <= 2 * (C * tol + dc_tol * abs(J)), gain


def test_each_cccp_step_linearises_at_the_latest_iterate(data):
    """White box: step t's linear term is C j_alpha / width X^T coef_alpha(X w_t), with
    w_t the point the step starts from (the proximal centre), and the points move."""
    from pauc.svm.oracles import pauc_tight_oracle

    X, y = data
    ja, jb = empirical_indices(int((y == 0).sum()), (0.05, 0.3))
    C = 10.0
    solver = CuttingPlaneSolver(C, tol=1e-4)
    steps = []
    set_linear, solve = solver.set_linear_term, solver.solve_proximal

    def record_linear(linear):
        steps.append({"linear": None if linear is None else linear.copy()})
        set_linear(linear)

    def record_solve(design, problem, center, mu, max_iter=None):
        steps[-1]["center"] = center.copy()
        return solve(design, problem, center, mu, max_iter)

    solver.set_linear_term, solver.solve_proximal = record_linear, record_solve
    w0 = PartialAUCSVM((0.05, 0.3), C=C, tol=1e-4).fit(X, y).coef_
    _, history, _ = cccp(InMemoryDesign(X, y == 1), ja, jb, solver, w0, dc_tol=1e-6)
    assert len(steps) >= 3
    assert not np.allclose(steps[-1]["center"], w0)
    for step in steps:
        coef_alpha, _ = pauc_tight_oracle(X @ step["center"], y == 1, 0, ja)
        expected = C * ja / (jb - ja) * (X.T @ coef_alpha)
        np.testing.assert_allclose(step["linear"], expected, rtol=1e-12, atol=1e-12)
