"""Algorithm 1 (cutting plane) and its master QP against problems solved directly.

References are cvxpy programs written with every positive-negative pair (or
every explicit constraint): tiny inputs only, test code only.
"""

import warnings

import cvxpy as cp
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import example, given, settings, strategies as st
from sklearn.exceptions import ConvergenceWarning

from _all_pairs_qp import direct_auc, direct_pauc_0_beta, direct_pauc_window

from pauc.svm._cutting_plane import CuttingPlaneSolver
from pauc.svm._master import MasterQP
from pauc.svm.oracles import auc_oracle, pauc_naive_oracle, pauc_tight_oracle


def _problem(seed, m=7, n=11, d=4, shift=0.7):
    rng = np.random.default_rng(seed)
    y = np.zeros(m + n, dtype=bool)
    y[:m] = True
    rng.shuffle(y)
    X = rng.normal(size=(m + n, d)) + shift * y[:, None]
    return X, y


def _objective(X, y, w, C, oracle, linear=None):
    coef, loss = oracle(X @ w)
    value = 0.5 * w @ w + C * (loss - (X @ w) @ coef)
    return value + (0.0 if linear is None else linear @ w)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_auc_objective_within_tol_of_all_pairs_qp(seed, C):
    X, y = _problem(seed)
    tol = 1e-3
    oracle = lambda s: auc_oracle(s, y)
    solver = CuttingPlaneSolver(C, tol=tol)
    w = solver.solve(X, oracle)
    assert solver.converged_
    best = direct_auc(X, y, C)
    ours = _objective(X, y, w, C, oracle)
    # Algorithm 1 stops when H(w) <= xi + tol, so J(w) <= J* + C tol (exact master QP).
    assert best - 1e-6 <= ours <= best + C * tol + 1e-6
    # The recorded primal at the last iterate is this objective; the dual is below J*.
    assert solver.history_["primal"][-1] == pytest.approx(ours, rel=1e-9, abs=1e-12)
    assert solver.history_["dual"][-1] <= best + 1e-6


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("beta_j", [1, 3, 6])
def test_pauc_0_beta_objective_within_tol_of_direct_qp(seed, beta_j):
    X, y = _problem(seed)
    C, tol = 5.0, 1e-3
    oracle = lambda s: pauc_tight_oracle(s, y, 0, beta_j)
    solver = CuttingPlaneSolver(C, tol=tol)
    w = solver.solve(X, oracle)
    best = direct_pauc_0_beta(X, y, C, beta_j)
    ours = _objective(X, y, w, C, oracle)
    assert best - 1e-6 <= ours <= best + C * tol + 1e-6


_WINDOW_ORACLES = {"tight": pauc_tight_oracle, "naive": pauc_naive_oracle}


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0, 100.0])
@pytest.mark.parametrize("which", ["auc", "tight", "naive"])
def test_objective_within_eps_when_the_solver_tol_is_eps_over_C(which, C):
    """Issue 3's wording, "within tol of the all-pairs optimum": Algorithm 1
    guarantees J(w) <= J* + C * tol, so an objective within eps takes tol = eps / C."""
    eps = 1e-3
    if which == "auc":
        X, y = _problem(2)
        oracle = lambda s: auc_oracle(s, y)
        best = direct_auc(X, y, C)
    else:
        X, y = _problem(4, m=4, n=6, d=3, shift=0.3)
        oracle = lambda s: _WINDOW_ORACLES[which](s, y, 1, 3)
        best = direct_pauc_window(X, y, C, 1, 3, which)
    solver = CuttingPlaneSolver(C, tol=eps / C)
    w = solver.solve(X, oracle)
    assert solver.converged_
    assert best - 1e-6 <= _objective(X, y, w, C, oracle) <= best + eps + 1e-6


@pytest.mark.parametrize("kind", ["tight", "naive"])
@pytest.mark.parametrize("seed", [1, 4])
@pytest.mark.parametrize("C", [1.0, 20.0])
@pytest.mark.parametrize("window", [(1, 3), (0, 2), (2, 4)])
def test_pauc_window_objective_within_tol_of_all_orderings_qp(kind, seed, C, window):
    """Algorithm 1 with the [alpha, beta] oracles (Algorithm 3, and the naive
    surrogate's) against the same problem with every ordering written out."""
    X, y = _problem(seed, m=4, n=6, d=3, shift=0.3)
    j_alpha, j_beta = window
    tol = 1e-3
    oracle = lambda s: _WINDOW_ORACLES[kind](s, y, j_alpha, j_beta)
    solver = CuttingPlaneSolver(C, tol=tol)
    w = solver.solve(X, oracle)
    assert solver.converged_
    best = direct_pauc_window(X, y, C, j_alpha, j_beta, kind)
    ours = _objective(X, y, w, C, oracle)
    assert best - 1e-6 <= ours <= best + C * tol + 1e-6


def test_all_orderings_reference_tells_tight_from_naive():
    """The reference above can fail a solver that confused the two surrogates: on
    this problem (classes overlapping) their optima differ by far more than C * tol
    (naive >= tight, its orderings being a superset), while for [0, beta] the tight
    reference agrees with Theorem 5's closed form."""
    X, y = _problem(1, m=4, n=6, d=3, shift=0.3)
    tight = direct_pauc_window(X, y, 20.0, 0, 2, "tight")
    naive = direct_pauc_window(X, y, 20.0, 0, 2, "naive")
    assert naive - tight > 0.5
    assert tight == pytest.approx(direct_pauc_0_beta(X, y, 20.0, 2), abs=1e-6)


def _explicit_oracle(A, b):
    """H(w) = max(0, max_k b_k - w.A_k), with rows of A written as X.T @ coef, X = I."""
    def oracle(scores):                      # scores = I @ w = w
        values = b - A @ scores
        k = int(np.argmax(values))
        if values[k] <= 0:
            return np.zeros_like(scores), 0.0
        return A[k].copy(), float(b[k])
    return oracle


def _direct_explicit(A, b, C, linear):
    w = cp.Variable(A.shape[1])
    obj = 0.5 * cp.sum_squares(w) + linear @ w + C * cp.maximum(0, cp.max(b - A @ w))
    prob = cp.Problem(cp.Minimize(obj))
    prob.solve(solver=cp.CLARABEL)
    return prob.value


def _explicit_problem(qp_solver):
    """40 random affine pieces in R^5, C = 3, tol = 1e-4, a solver for them, and the
    generator that drew them (the tests draw their linear terms from it)."""
    rng = np.random.default_rng(3)
    A = rng.normal(size=(40, 5))
    b = rng.uniform(0.5, 2.0, size=40)
    C, tol = 3.0, 1e-4
    return rng, A, b, C, tol, CuttingPlaneSolver(C, tol=tol, qp_solver=qp_solver)


@pytest.mark.parametrize("qp_solver", ["osqp", "cvxpy"])
def test_linear_term_and_warm_start(qp_solver):
    """The hooks of the DC/CCCP solver: a linear term, and cuts kept across solves."""
    rng, A, b, C, tol, solver = _explicit_problem(qp_solver)
    d, X, oracle = A.shape[1], np.eye(A.shape[1]), _explicit_oracle(A, b)
    for step in range(3):
        linear = rng.normal(scale=0.5, size=d)
        solver.set_linear_term(linear)
        w = solver.solve(X, oracle)          # warm: keeps the cuts of the earlier steps
        assert solver.converged_
        best = _direct_explicit(A, b, C, linear)
        ours = _objective(X, None, w, C, oracle, linear)
        assert best - 1e-6 <= ours <= best + C * tol + 1e-6
    # Warm starts pay: the last solve needed fewer oracle calls than a cold one.
    cold = CuttingPlaneSolver(C, tol=tol, qp_solver=qp_solver)
    cold.set_linear_term(linear)
    cold.solve(X, oracle)
    assert solver.n_iter_ <= cold.n_iter_


def test_add_cut_from_outside():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(10, 3))
    b = np.ones(10)
    oracle = _explicit_oracle(A, b)
    solver = CuttingPlaneSolver(1.0, tol=1e-4)
    for k in range(10):
        solver.add_cut(A[k], b[k])
    solver.solve(np.eye(3), oracle)
    assert solver.n_iter_ == 1               # every constraint is already held
    assert solver.converged_


def test_osqp_and_cvxpy_masters_agree():
    X, y = _problem(7, m=15, n=25, d=6)
    oracle = lambda s: pauc_tight_oracle(s, y, 2, 8)
    C, tol = 10.0, 1e-4
    values = []
    for qp_solver in ("osqp", "cvxpy"):
        solver = CuttingPlaneSolver(C, tol=tol, qp_solver=qp_solver)
        w = solver.solve(X, oracle)
        values.append(_objective(X, y, w, C, oracle))
    assert abs(values[0] - values[1]) <= C * tol


def test_sparse_and_dense_give_the_same_iterates():
    X, y = _problem(11, m=20, n=30, d=8)
    X[np.abs(X) < 0.5] = 0.0
    oracle = lambda s: auc_oracle(s, y)
    dense = CuttingPlaneSolver(10.0, tol=1e-4)
    w_dense = dense.solve(X, oracle)
    sparse = CuttingPlaneSolver(10.0, tol=1e-4)
    w_sparse = sparse.solve(sp.csr_matrix(X), oracle)
    assert dense.n_iter_ == sparse.n_iter_
    np.testing.assert_allclose(w_sparse, w_dense, rtol=1e-6, atol=1e-9)


def test_history_records_every_iteration():
    X, y = _problem(1)
    solver = CuttingPlaneSolver(10.0, tol=1e-4)
    solver.solve(X, lambda s: auc_oracle(s, y))
    h = solver.history_
    assert set(h) == {"violation", "xi", "primal", "dual", "n_cuts",
                      "time_oracle", "time_matvec", "time_qp", "proximal"}
    assert all(v.shape == (solver.n_iter_,) for v in h.values())
    assert not h["proximal"].any()
    assert h["violation"][-1] <= 1e-4 < h["violation"][0]
    assert np.all(h["xi"] >= 0)
    # Weak duality: every dual value lies below every primal value.
    assert h["dual"].max() <= h["primal"].min() + 1e-9
    for name in ("time_oracle", "time_matvec", "time_qp"):
        assert np.all(h[name] >= 0)


def test_verbose_prints_one_line_per_iteration(capsys):
    X, y = _problem(2)
    solver = CuttingPlaneSolver(1.0, tol=1e-3, verbose=1)
    solver.solve(X, lambda s: auc_oracle(s, y))
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == solver.n_iter_ + 1                 # a header, then one per iteration
    assert lines[0].split()[:3] == ["iter", "violation", "xi"]


def test_max_iter_warns_with_advice():
    X, y = _problem(3)
    solver = CuttingPlaneSolver(100.0, tol=1e-6, max_iter=3)
    with pytest.warns(ConvergenceWarning, match="increase max_iter"):
        solver.solve(X, lambda s: auc_oracle(s, y))
    assert not solver.converged_
    assert solver.n_iter_ == 3


def test_unconverged_master_qp_warns_with_advice(monkeypatch):
    # without the exact re-solve of small masters, so that OSQP's own status shows
    monkeypatch.setattr("pauc.svm._master._EXACT_FALLBACK_CUTS", 0)
    X, y = _problem(4, m=20, n=30, d=10)
    solver = CuttingPlaneSolver(1000.0, tol=1e-4, qp_max_iter=1, max_iter=20)
    with pytest.warns(ConvergenceWarning, match="increase qp_max_iter"), \
            warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="the cutting-plane method")
        solver.solve(X, lambda s: auc_oracle(s, y))


def test_master_keeps_gram_consistent_through_growth_and_pruning():
    rng = np.random.default_rng(5)
    master = MasterQP(2.0, capacity=2)
    for _ in range(9):                        # grows 2 -> 4 -> 8 -> 16
        master.add_cut(rng.normal(size=6), rng.uniform())
    np.testing.assert_allclose(master.gram, master.cuts @ master.cuts.T)
    lam = master.solve()
    assert lam.shape == (9,) and np.all(lam >= 0) and lam.sum() <= 2.0 + 1e-12
    kept_losses = master.losses[lam > 1e-9 * 2.0].copy()
    master._age[:9] = np.where(lam > 1e-9 * 2.0, 0, 100)
    dropped = master.drop_inactive(50)
    assert dropped == 9 - kept_losses.size
    np.testing.assert_allclose(master.losses, kept_losses)
    np.testing.assert_allclose(master.gram, master.cuts @ master.cuts.T)
    # The optimum over the kept (active) cuts is the optimum over all of them.
    before = master.dual_objective(lam[lam > 1e-9 * 2.0])
    master.solve()
    assert master.dual_objective() == pytest.approx(before, rel=1e-6, abs=1e-9)


@pytest.mark.parametrize("qp_solver", ["osqp", "cvxpy"])
def test_master_is_built_once_per_capacity_and_warm_started(qp_solver, monkeypatch):
    """The QP is set up once per capacity (32 -> 64 -> 128 slots for 70 cuts, solved
    after each), not once per solve; on the OSQP path every solve starts from the
    last lambda (cvxpy warm-starts OSQP itself)."""
    rng = np.random.default_rng(2)
    master = MasterQP(3.0, solver=qp_solver)
    starts = []
    if qp_solver == "osqp":
        real_setup = MasterQP._setup

        def spy_setup(self):
            real_setup(self)
            real_warm = self._problem.warm_start
            self._problem.warm_start = lambda **kw: (starts.append(kw["x"].copy()),
                                                      real_warm(**kw))[1]
        monkeypatch.setattr(MasterQP, "_setup", spy_setup)
    previous = []
    for k in range(70):
        master.add_cut(rng.normal(size=80), rng.uniform(0.5, 1.5))
        master.solve()
        previous.append(master.lam_.copy())
    assert master.n_setups_ == 3
    if qp_solver == "osqp":
        # The start of solve k is lambda of solve k - 1 (unit-free: lambda / C), padded.
        for k in range(1, 70):
            np.testing.assert_allclose(starts[k][:k] * 3.0, previous[k - 1], atol=1e-12)
            assert not starts[k][k:].any()


def test_master_rejects_bad_input():
    with pytest.raises(ValueError, match="solver"):
        MasterQP(1.0, solver="gurobi")
    master = MasterQP(1.0)
    with pytest.raises(ValueError, match="no cut"):
        master.solve()
    master.add_cut(np.ones(3), 1.0)
    with pytest.raises(ValueError, match="entries"):
        master.add_cut(np.ones(4), 1.0)
    with pytest.raises(ValueError, match="C must be positive"):
        master.set_C(0.0)


# --------------------------------------------------- the proximal variant (CCCP's solves)
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
@pytest.mark.parametrize("mu", [1.0, 10.0])
def test_proximal_objective_within_tol_of_all_pairs_qp(seed, C, mu):
    """Same guarantee as Algorithm 1, J(w) <= J* + C tol, from any centre; the
    recorded bound lies below J*."""
    X, y = _problem(seed)
    tol = 1e-3
    oracle = lambda s: auc_oracle(s, y)
    center = np.random.default_rng(seed + 10).normal(scale=2.0, size=X.shape[1])
    solver = CuttingPlaneSolver(C, tol=tol)
    w = solver.solve_proximal(X, oracle, center, mu)
    assert solver.converged_
    best = direct_auc(X, y, C)
    ours = _objective(X, y, w, C, oracle)
    assert best - 1e-6 <= ours <= best + C * tol + 1e-6
    h = solver.history_
    assert h["primal"][-1] == pytest.approx(ours, rel=1e-9, abs=1e-12)
    assert h["dual"][-1] <= best + 1e-6
    assert h["violation"][-1] <= tol
    # The centre only moves down: the recorded objective never increases.
    assert np.all(np.diff(h["primal"]) <= 0)
    np.testing.assert_allclose(solver.scores_, X @ w)


@pytest.mark.parametrize("qp_solver", ["osqp", "cvxpy"])
def test_proximal_with_linear_term_and_kept_cuts(qp_solver):
    """The CCCP use: the linear term changes, the cuts stay, the centre is the last point."""
    rng, A, b, C, tol, solver = _explicit_problem(qp_solver)
    d, X, oracle = A.shape[1], np.eye(A.shape[1]), _explicit_oracle(A, b)
    w = np.zeros(d)
    for step in range(3):
        linear = rng.normal(scale=0.5, size=d)
        solver.set_linear_term(linear)
        w = solver.solve_proximal(X, oracle, w, 10.0)
        assert solver.converged_
        best = _direct_explicit(A, b, C, linear)
        ours = _objective(X, None, w, C, oracle, linear)
        assert best - 1e-6 <= ours <= best + C * tol + 1e-6
        # The master is left as solve() expects it: the true C and linear term.
        assert solver.master.C == C
        np.testing.assert_array_equal(solver.master._linear, linear)


@settings(max_examples=60, deadline=None)
# found by hypothesis: every cut inactive for 10 solves, so all were dropped
@example(seed=0, d=1, K=1, C=1.0, mu=48.0, scale=5.0)
# found by hypothesis: OSQP ran out of iterations on a 2-cut master at a small C
# (every solve rough, the bound stuck); such masters are now solved exactly
@example(seed=10, d=1, K=10, C=0.0546875, mu=1.0, scale=0.0)
@given(seed=st.integers(0, 2**31 - 1), d=st.integers(1, 6), K=st.integers(1, 30),
       C=st.floats(0.05, 50.0), mu=st.floats(0.1, 100.0), scale=st.floats(0.0, 5.0))
def test_proximal_certificate_never_overstates(seed, d, K, C, mu, scale):
    """Random explicit max-of-affine problems: the bound is below J*, and the
    returned point is within C tol of J* (the certificate holds)."""
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(K, d))
    b = rng.uniform(-1.0, 2.0, size=K)
    linear = rng.normal(size=d)
    X = np.eye(d)
    tol = 1e-3
    oracle = _explicit_oracle(A, b)
    solver = CuttingPlaneSolver(C, tol=tol, max_iter=500)
    solver.set_linear_term(linear)
    w = solver.solve_proximal(X, oracle, rng.normal(scale=scale + 1e-9, size=d), mu)
    best = _direct_explicit(A, b, C, linear)
    assert solver.converged_
    assert solver.history_["dual"][-1] <= best + 1e-6 * (1 + abs(best))
    assert _objective(X, None, w, C, oracle, linear) <= best + C * tol + 1e-6 * (1 + abs(best))
    # No cut is held twice (serious steps along one piece meet the same cut again).
    assert solver.master.n_cuts <= K + 1           # the K pieces and H = 0


def test_proximal_rejects_bad_input():
    X, y = _problem(0)
    solver = CuttingPlaneSolver(1.0)
    with pytest.raises(ValueError, match="mu must be positive"):
        solver.solve_proximal(X, lambda s: auc_oracle(s, y), np.zeros(4), 0.0)
    with pytest.raises(ValueError, match="center has shape"):
        solver.solve_proximal(X, lambda s: auc_oracle(s, y), np.zeros(3), 1.0)


def test_proximal_max_iter_warns_and_returns_the_best_point():
    X, y = _problem(3)
    oracle = lambda s: auc_oracle(s, y)
    solver = CuttingPlaneSolver(100.0, tol=1e-8, max_iter=4)
    center = np.full(4, 3.0)
    with pytest.warns(ConvergenceWarning, match="increase max_iter"):
        w = solver.solve_proximal(X, oracle, center, 1.0)
    assert solver.n_iter_ == 4 and not solver.converged_
    assert _objective(X, y, w, 100.0, oracle) == pytest.approx(solver.history_["primal"][-1])
    assert _objective(X, y, w, 100.0, oracle) <= _objective(X, y, center, 100.0, oracle)


def test_proximal_certificate_survives_an_inexact_master():
    """OSQP stopped after 15 iterations (review finding): the bound is the plain
    master's dual value at a feasible point, so it stays below J*, and a reported
    convergence still means J(w) <= J* + C tol."""
    converged = 0
    for seed in range(12):
        rng = np.random.default_rng(seed)
        d, K = int(rng.integers(2, 8)), int(rng.integers(5, 60))
        A = rng.normal(size=(K, d)) * rng.uniform(0.1, 10, size=d)     # uneven scales
        b = rng.uniform(-1, 2, size=K)
        linear = rng.normal(size=d)
        C = float(10 ** rng.uniform(-1, 2.5))
        best = _direct_explicit(A, b, C, linear)
        oracle = _explicit_oracle(A, b)
        solver = CuttingPlaneSolver(C, tol=1e-3, max_iter=500, qp_max_iter=15)
        solver.set_linear_term(linear)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            w = solver.solve_proximal(np.eye(d), oracle, rng.normal(scale=3, size=d), 10.0)
        slack = 1e-6 * (1 + abs(best))
        assert np.all(solver.history_["dual"] <= best + slack)
        if solver.converged_:
            converged += 1
            assert _objective(np.eye(d), None, w, C, oracle, linear) <= best + C * 1e-3 + slack
    assert converged >= 6


def test_proximal_mu_shrinks_when_far_from_the_optimum():
    """A centre far away and a large mu: with mu fixed each step would cover about
    1/(1 + mu) of the way (over 500 iterations here, measured); halving mu after
    well-predicted steps gets there in a few dozen."""
    rng = np.random.default_rng(1679506288)
    d, K = 4, 6
    A = rng.normal(size=(K, d))
    b = rng.uniform(-1.0, 2.0, size=K)
    linear = rng.normal(size=d)
    solver = CuttingPlaneSolver(0.0634, tol=1e-3, max_iter=500)
    solver.set_linear_term(linear)
    solver.solve_proximal(np.eye(d), _explicit_oracle(A, b), rng.normal(scale=4.09, size=d),
                          91.4)
    assert solver.converged_ and solver.n_iter_ <= 100


def test_proximal_mu_shrinks_faster_when_the_model_is_exact():
    """One affine piece, active everywhere on the way: after the first cut the
    model is H itself, every step achieves exactly the predicted decrease, and
    mu falls tenfold per step (10 -> 1 -> 0.1 ...).  Halving it needs 8
    iterations here (measured), the tenfold rule 5."""
    A = np.array([[1.0, 0.5, -0.2]])
    b = np.array([50.0])
    solver = CuttingPlaneSolver(10.0, tol=1e-4)
    w = solver.solve_proximal(np.eye(3), _explicit_oracle(A, b), np.full(3, 5.0), 10.0)
    # J = 1/2 ||w||^2 + C (b - A w) is minimised at w = C A; J(w) - J* = ||w - C A||^2 / 2
    assert 0.5 * np.sum((w - 10.0 * A[0]) ** 2) <= 10.0 * 1e-4
    assert solver.converged_ and solver.n_iter_ <= 5, solver.n_iter_


def test_proximal_restores_the_master_when_the_qp_fails(monkeypatch):
    X, y = _problem(0)
    solver = CuttingPlaneSolver(2.0)
    solver.set_linear_term(np.ones(4))

    def failing_solve():
        raise RuntimeError("QP failed")

    monkeypatch.setattr(solver.master, "solve", failing_solve)
    with pytest.raises(RuntimeError, match="QP failed"):
        solver.solve_proximal(X, lambda s: auc_oracle(s, y), np.zeros(4), 10.0)
    assert solver.master.C == 2.0
    np.testing.assert_array_equal(solver.master._linear, np.ones(4))


def test_a_rough_master_solution_is_reported():
    """Review finding: with features on scales from 1e-3 to 1e3, OSQP's master solutions
    are rough and Algorithm 1's test passed with J(w) 56 above the master's own lower
    bound (C tol = 0.1).  The fit now says so; standardized features do not warn."""
    from sklearn.preprocessing import StandardScaler

    from pauc.svm import AUCSVM

    rng = np.random.default_rng(0)
    X = rng.normal(size=(1500, 15))
    y = (X[:, :3].sum(axis=1) + rng.normal(scale=2, size=1500) > 1).astype(int)
    X = X * np.logspace(-3, 3, 15)
    with pytest.warns(ConvergenceWarning, match="master QP's solution is rough"):
        AUCSVM(C=100.0, method="cutting_plane").fit(X, y)
    # The proximal method (the default) stops on its own certificate, J(c) minus a
    # valid lower bound, which a rough master cannot overstate: no warning, and the
    # returned point is certified within C tol (J 93.3 here, Algorithm 1's 142.7).
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        proximal = AUCSVM(C=100.0).fit(X, y)
    assert proximal.converged_
    h = proximal.history_
    assert h["primal"][-1] - h["dual"][-1] <= 100.0 * 1e-3
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = AUCSVM(C=100.0).fit(StandardScaler().fit_transform(X), y)
    h = model.history_
    assert h["primal"][-1] - h["dual"][-1] <= 2 * 100.0 * 1e-3


def test_blas_runs_single_threaded_inside_the_solver_and_is_restored():
    """The loop's products are small: one BLAS thread inside (pauc.svm._threads),
    the caller's setting back afterwards."""
    from threadpoolctl import threadpool_info, threadpool_limits

    def blas_threads():
        return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]

    X, y = _problem(0)
    seen = []

    def oracle(s):
        seen.append(blas_threads())
        return auc_oracle(s, y)

    with threadpool_limits(limits=2, user_api="blas"):
        before = blas_threads()
        assert 2 in before                  # numpy's BLAS is found and runs 2 threads
        CuttingPlaneSolver(1.0).solve(X, oracle)
        CuttingPlaneSolver(1.0).solve_proximal(X, oracle, np.zeros(X.shape[1]), 1.0)
        assert blas_threads() == before
    assert seen and all(all(n == 1 for n in threads) for threads in seen)


def test_small_rough_master_is_solved_exactly():
    """Two nearly parallel cuts at a small C (the shape of the hypothesis example
    above, on which OSQP ran out of iterations): the master's dual value is cvxpy's
    exact one, and no rough solve is counted."""
    import cvxpy as cp

    master = MasterQP(0.0546875)
    master.add_cut(np.array([0.84304257]), 1.0)
    master.add_cut(np.array([0.85793655]), 1.0 + 1e-9)
    lam = master.solve()
    G, q = master.gram, master.losses
    x = cp.Variable(2, nonneg=True)
    problem = cp.Problem(cp.Maximize(q @ x - 0.5 * cp.quad_form(x, cp.psd_wrap(G))),
                         [cp.sum(x) <= master.C])
    problem.solve(solver=cp.CLARABEL)
    assert master.dual_objective(lam) == pytest.approx(problem.value, rel=1e-7, abs=1e-9)
    assert master.rough_solves == 0


def test_callback_sees_every_iteration_as_it_happens():
    """lightning's way: callback(solver) after each iteration, with the record so far."""
    X, y = _problem(3)
    seen = []

    def callback(solver):
        seen.append((solver.n_iter_, len(solver.history_["primal"])))

    for method in ("solve", "solve_proximal"):
        seen.clear()
        solver = CuttingPlaneSolver(10.0, tol=1e-4, callback=callback)
        if method == "solve":
            solver.solve(X, lambda s: auc_oracle(s, y))
        else:
            solver.solve_proximal(X, lambda s: auc_oracle(s, y), center=np.zeros(4), mu=10.0)
        assert seen == [(k, k) for k in range(1, solver.n_iter_ + 1)]
        assert solver.objective_ == pytest.approx(solver.history_["primal"][-1])
        np.testing.assert_allclose(solver.scores_, X @ solver.w_)


def test_handoff_runs_algorithm_1_after_the_proximal_budget():
    """solve_proximal(handoff=k): k quiet proximal iterations, then Algorithm 1 from the
    cuts collected within max_iter in all; n_iter_ and history_ cover both parts."""
    X, y = _problem(5, m=30, n=40, d=6)
    oracle = lambda s: auc_oracle(s, y)      # noqa: E731
    far = np.full(6, 50.0)                   # a start far from the optimum
    solver = CuttingPlaneSolver(100.0, tol=1e-6, max_iter=500)
    with warnings.catch_warnings():
        warnings.simplefilter("error")       # the quiet part warns nothing
        w = solver.solve_proximal(X, oracle, center=far, mu=1e4, handoff=2)
    proximal = solver.history_["proximal"]
    assert solver.converged_ and proximal[:2].all() and not proximal[2:].any()
    assert solver.n_iter_ == proximal.size > 2
    J = _objective(X, y, w, 100.0, oracle)
    assert J == pytest.approx(solver.objective_)
    assert J <= direct_auc(X, y, 100.0) + 100.0 * 1e-6 + 1e-6
    # the budget counts: max_iter bounds both parts together
    short = CuttingPlaneSolver(100.0, tol=1e-12, max_iter=4)
    with pytest.warns(ConvergenceWarning, match="max_iter=4"):
        short.solve_proximal(X, oracle, center=far, mu=1e4, handoff=2)
    assert short.n_iter_ == 4 and not short.converged_ and short.objective_ is None
