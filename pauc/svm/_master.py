"""The master quadratic program of the 1-slack cutting-plane method.

Algorithm 1, line 9 of Narasimhan & Agarwal (2017) solves, over the cuts
collected so far, the relaxed problem

    min_{w, xi >= 0}  1/2 ||w||^2 + l.w + C xi
    s.t.  w.g_k >= Delta_k - xi          (k = 1..K)

(``l`` is an optional linear term, zero for SVM_AUC / SVM_pAUC; the DC/CCCP
solver of Section 6 adds one).  Its Lagrange dual has one variable per cut:

    max_{lambda}  sum_k lambda_k (Delta_k + g_k.l) - 1/2 lambda' G lambda - 1/2 ||l||^2
    s.t.  lambda >= 0,  sum_k lambda_k <= C,

with ``G_kj = g_k.g_j`` the Gram matrix of the cuts and ``w = sum_k lambda_k g_k - l``.
Its size is the number of cuts (tens to a few hundred), never the number of
features or of training rows.  The Gram matrix grows by one row per cut
(``K`` dot products of length ``d``), so the QP data never touches ``X``.

Two back ends solve the same dual with OSQP:

``solver="osqp"`` (default)
    OSQP's own Python interface.  The problem is set up once per *capacity*
    (a number of cut slots that doubles when full); unused slots are pinned
    to ``lambda_k = 0`` by their bounds, so adding a cut only updates the
    values of ``P``, ``q`` and ``u`` (``OSQP.update``) and the solver is warm
    started from the previous ``lambda`` and its multipliers.
``solver="cvxpy"``
    The design's first choice: a cvxpy problem built once per capacity with
    DPP Parameters.  ``lambda' G lambda`` is written ``sum_squares(R @ lambda)``
    with ``R`` a square-root factor of ``G`` (``G = R'R``), because
    ``quad_form(lambda, P)`` with a Parameter ``P`` is not DPP.  cvxpy warm-starts OSQP itself.

Why the default is not cvxpy: every cvxpy ``solve`` re-applies the
parametrised canonicalisation (a sparse tensor product whose size grows with
the square of the capacity, since every entry of ``R`` is a parameter) before
OSQP starts, which made the master QP most of a fit against a small share
through OSQP's own interface, with identical iterates up to the QP tolerance
(``bench/bench_svm.py`` prints both shares; the developer guide keeps the
measurement).  ``"cvxpy"`` stays selectable as an independent check.

References
----------
Narasimhan & Agarwal (2017), Algorithm 1 (line 9); Joachims (2005) for the
1-slack formulation and its dual. Full entries in ``docs/references.rst``.
"""

import warnings

import numpy as np
import osqp
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

_SOLVED = ("solved",)


# A rough OSQP solve of a master with at most this many cuts is redone exactly
# (MasterQP._solve_small_exactly): a few milliseconds at this size.
_EXACT_FALLBACK_CUTS = 50

class MasterQP:
    """Dual of the 1-slack master QP over a growing set of cuts.

    Parameters
    ----------
    C : float
        Regularisation constant (bound on ``sum_k lambda_k``).
    solver : {"osqp", "cvxpy"}
        Back end (see the module docstring for the measured reason of the default).
    eps : float
        Absolute and relative tolerance handed to OSQP.
    max_iter : int
        OSQP iteration limit per solve.
    capacity : int
        Initial number of cut slots; doubles whenever it is full.

    Attributes
    ----------
    n_cuts : int
        Number of cuts held.
    lam_ : ndarray of shape (n_cuts,)
        Dual solution of the last ``solve``.
    n_setups_ : int
        Number of times the QP was (re)built (once per capacity).
    rough_solves : int
        Solves that ended without an optimal status (iteration limit,
        inaccurate); the first one raises a ``ConvergenceWarning`` unless
        ``warn`` is False (set by :class:`CuttingPlaneSolver`).
    """

    def __init__(self, C, *, solver="osqp", eps=1e-7, max_iter=20000, capacity=32):
        if solver not in ("osqp", "cvxpy"):
            raise ValueError(f"solver must be 'osqp' or 'cvxpy', got {solver!r}")
        self.C = float(C)
        self.solver = solver
        self.eps = float(eps)
        self.max_iter = int(max_iter)
        self.warn = True            # the first rough solve warns (see solve)
        self.rough_solves = 0
        self._capacity = max(int(capacity), 2)
        self.n_cuts = 0
        self._d = None
        self._cuts = None            # (capacity, d): row k is g_k
        self._loss = np.zeros(self._capacity)
        self._gram = np.zeros((self._capacity, self._capacity))
        self._b = np.zeros(self._capacity)   # g_k . l
        self._linear = None
        self._lam = np.zeros(self._capacity)
        self._age = np.zeros(self._capacity, dtype=np.int64)   # solves since last active
        self._y = None               # OSQP multipliers, for warm starts
        self._problem = None         # built lazily, once per capacity
        self.n_setups_ = 0
        self.lam_ = np.zeros(0)

    # ------------------------------------------------------------------ cuts
    @property
    def cuts(self):
        """Cut vectors ``g_k`` as rows, shape ``(n_cuts, d)`` (a view)."""
        return self._cuts[: self.n_cuts]

    @property
    def losses(self):
        """Losses ``Delta_k`` of the cuts, shape ``(n_cuts,)`` (a view)."""
        return self._loss[: self.n_cuts]

    @property
    def gram(self):
        """Gram matrix ``G_kj = g_k . g_j`` of the cuts (a view)."""
        k = self.n_cuts
        return self._gram[:k, :k]

    def _grow(self):
        """Double the capacity; the QP is rebuilt at the next ``solve``."""
        old, new = self._capacity, 2 * self._capacity
        cuts = np.zeros((new, self._d))
        cuts[:old] = self._cuts
        gram = np.zeros((new, new))
        gram[:old, :old] = self._gram
        self._cuts, self._gram = cuts, gram
        self._loss = np.concatenate([self._loss, np.zeros(new - old)])
        self._b = np.concatenate([self._b, np.zeros(new - old)])
        self._lam = np.concatenate([self._lam, np.zeros(new - old)])
        self._age = np.concatenate([self._age, np.zeros(new - old, dtype=np.int64)])
        self._capacity = new
        self._problem = None
        self._y = None

    def add_cut(self, g, loss):
        """Add the constraint ``w.g >= loss - xi``.

        Parameters
        ----------
        g : ndarray of shape (d,)
            Cut vector ``X.T @ coef``.
        loss : float
            Its loss ``Delta``.
        """
        g = np.ascontiguousarray(g, dtype=np.float64).ravel()
        if self._cuts is None:
            self._d = g.shape[0]
            self._cuts = np.zeros((self._capacity, self._d))
        elif g.shape[0] != self._d:
            raise ValueError(f"cut has {g.shape[0]} entries, the previous ones {self._d}")
        if self.n_cuts == self._capacity:
            self._grow()
        k = self.n_cuts
        self._cuts[k] = g
        # One new Gram row: k dot products of length d (the only O(d) work per cut).
        row = self._cuts[: k + 1] @ g
        self._gram[k, : k + 1] = row
        self._gram[: k + 1, k] = row
        self._loss[k] = float(loss)
        self._age[k] = 0
        self._lam[k] = 0.0
        self._b[k] = 0.0 if self._linear is None else float(g @ self._linear)
        self.n_cuts = k + 1

    def set_C(self, C):
        """Change the bound ``sum_k lambda_k <= C``; cuts, linear term and warm start are kept.

        The proximal cutting-plane method solves its prox-master as this master
        with ``C / (1 + mu)`` (see ``CuttingPlaneSolver.solve_proximal``).
        """
        C = float(C)
        if not C > 0:
            raise ValueError(f"C must be positive, got {C!r}")
        self.C = C

    def set_linear_term(self, linear):
        """Set ``l`` of the objective's ``l.w`` (None for zero); existing cuts are kept."""
        if linear is None:
            self._linear = None
            self._b[:] = 0.0
            return
        linear = np.ascontiguousarray(linear, dtype=np.float64).ravel()
        if self._d is None:
            self._d = linear.shape[0]
            self._cuts = np.zeros((self._capacity, self._d))
        elif linear.shape[0] != self._d:
            raise ValueError(f"linear term has {linear.shape[0]} entries, the cuts {self._d}")
        self._linear = linear
        self._b[: self.n_cuts] = self.cuts @ linear

    # --------------------------------------------------------------- values
    def weights(self, lam=None):
        """Primal ``w = sum_k lambda_k g_k - l`` for the given (default: last) dual point."""
        lam = self.lam_ if lam is None else lam
        w = lam @ self.cuts if self.n_cuts else np.zeros(self._d or 0)
        if self._linear is not None:
            w = w - self._linear
        return w

    def margins(self, lam=None):
        """``w.g_k`` for every cut at ``w = weights(lam)``, from the Gram matrix (O(K^2))."""
        lam = self.lam_ if lam is None else lam
        return self.gram @ lam - self._b[: self.n_cuts]

    def dual_objective(self, lam=None):
        """Dual value (a lower bound on the master and on the full problem)."""
        lam = self.lam_ if lam is None else lam
        k = self.n_cuts
        value = lam @ (self._loss[:k] + self._b[:k]) - 0.5 * lam @ (self.gram @ lam)
        if self._linear is not None:
            value -= 0.5 * self._linear @ self._linear
        return float(value)

    # ---------------------------------------------------------------- solve
    def solve(self):
        """Solve the dual over the current cuts, warm-started from the last solution.

        Returns
        -------
        lam : ndarray of shape (n_cuts,)
            Feasible dual point (clipped to ``lambda >= 0``, ``sum <= C``).
        """
        if self.n_cuts == 0:
            raise ValueError("the master QP has no cut yet")
        if self._problem is None:
            self._setup()
        lam, status, info = (self._solve_osqp() if self.solver == "osqp"
                             else self._solve_cvxpy())
        if lam is None:
            raise RuntimeError(
                f"the master QP ({self.solver}, {self.n_cuts} cuts) failed with status "
                f"{status!r}; rescale the features (e.g. StandardScaler) or use a smaller C")
        if status not in _SOLVED and self.n_cuts <= _EXACT_FALLBACK_CUTS:
            # OSQP (first order) can stall on small degenerate masters -- two
            # nearly parallel cuts at a small C ran out of 20,000 iterations --
            # where an interior-point solve is exact and cheap.
            exact = self._solve_small_exactly()
            if exact is not None:
                lam, status = exact, "solved"
        if status not in _SOLVED:
            # Not optimal but finite (iteration limit, inaccurate): the projected
            # point below is dual feasible, so the method can go on; say what to
            # change, once (the next solves are counted in rough_solves).
            self.rough_solves += 1
        if status not in _SOLVED and self.warn and self.rough_solves == 1:
            warnings.warn(
                f"the master QP ({self.solver}, {self.n_cuts} cuts) stopped with status "
                f"{status!r} after {info} iterations; increase qp_max_iter (now "
                f"{self.max_iter}) or loosen qp_eps (now {self.eps:g}) (parameters of "
                "the estimator and of CuttingPlaneSolver), or standardize the features / "
                "lower C",
                ConvergenceWarning, stacklevel=3)
        # OSQP is an ADMM method: project onto the dual feasible set so that the
        # dual objective stays a valid lower bound.
        lam = np.maximum(lam[: self.n_cuts], 0.0)
        total = lam.sum()
        if total > self.C:
            lam *= self.C / total
        self._lam[: self.n_cuts] = lam
        self.lam_ = lam
        # Active: above the QP's own resolution.  OSQP solves mu = lambda / C to
        # eps, so a lambda_k <= eps C is zero as far as the solve can tell; counting
        # such ADMM residue as active kept the cuts of a rough master alive and every
        # QP large (measured: docs/developer/measurements.rst, 'Dropping inactive
        # cuts').
        active = lam > self.eps * self.C
        self._age[: self.n_cuts][active] = 0
        self._age[: self.n_cuts][~active] += 1
        return lam

    def drop_inactive(self, max_age):
        """Forget the cuts whose dual variable was zero in the last ``max_age`` solves.

        Zero to the QP's accuracy: ``lambda_k <= eps C`` (:meth:`solve`).  A cut
        with ``lambda_k = 0`` does not shape the current optimum; dropping
        the long-idle ones keeps the QP small (measured:
        ``docs/developer/measurements.rst``, 'Dropping inactive cuts').  Were such a cut
        needed again, the oracle would return it.  The slots are compacted in
        place: the OSQP problem keeps its capacity and is not rebuilt.

        Returns
        -------
        n_dropped : int
        """
        k = self.n_cuts
        keep = np.flatnonzero(self._age[:k] < max_age)
        if keep.size == k:
            return 0
        m = keep.size
        self._cuts[:m] = self._cuts[keep]
        self._gram[:m, :m] = self._gram[np.ix_(keep, keep)]
        self._gram[m:k, :] = 0.0
        self._gram[:, m:k] = 0.0
        for arr in (self._loss, self._b, self._lam, self._age):
            arr[:m] = arr[keep]
            arr[m:k] = 0
        if self._y is not None:
            y = np.zeros_like(self._y)
            y[:m] = self._y[keep]
            y[-1] = self._y[-1]
            self._y = y
        self.n_cuts = m
        self.lam_ = self._lam[:m].copy()
        return k - m

    # OSQP's own interface -------------------------------------------------
    def _triu_pattern(self):
        cap = self._capacity
        # Full upper triangle, column by column (CSC order of OSQP's P).
        cols = np.concatenate([np.full(j + 1, j) for j in range(cap)])
        rows = np.concatenate([np.arange(j + 1) for j in range(cap)])
        return rows, cols

    # The OSQP problem is solved in the unit-free variable mu = lambda / C with the
    # objective divided by C^2 * max_k G_kk, so that mu lies in the unit simplex and
    # P has a unit-sized diagonal whatever C and the feature scale: OSQP's
    # ADMM step size (rho) and its scaling, computed once at setup, stay adequate
    # while the cuts change (unscaled, the iteration counts exploded at large C).
    def _gram_scale(self):
        k = self.n_cuts
        top = float(self._gram[:k, :k].diagonal().max()) if k else 1.0
        return top if top > 0 else 1.0

    def _P_values(self):
        cap, k = self._capacity, self.n_cuts
        P = self._gram / self._gram_scale()
        # Unused slots: unit diagonal keeps the KKT system regular; mu is pinned at 0.
        idx = np.arange(k, cap)
        P[idx, idx] = 1.0
        return P[self._rows, self._cols]

    def _bounds(self):
        u = np.zeros(self._capacity + 1)
        u[: self.n_cuts] = 1.0
        u[-1] = 1.0
        return u

    def _q(self):
        q = np.zeros(self._capacity)
        k = self.n_cuts
        q[:k] = -(self._loss[:k] + self._b[:k]) / (self.C * self._gram_scale())
        return q

    def _setup(self):
        self.n_setups_ += 1
        cap = self._capacity
        if self.solver == "cvxpy":
            self._setup_cvxpy()
            return
        self._rows, self._cols = self._triu_pattern()
        P = sp.csc_matrix((self._P_values(), (self._rows, self._cols)), shape=(cap, cap))
        A = sp.vstack([sp.identity(cap, format="csc"),
                       sp.csc_matrix(np.ones((1, cap)))], format="csc")
        low = np.zeros(cap + 1)
        low[-1] = -np.inf
        settings = dict(eps_abs=self.eps, eps_rel=self.eps, max_iter=self.max_iter,
                        verbose=False, warm_starting=True)
        solver = osqp.OSQP()
        try:                                   # osqp >= 1.0 spells it "polishing"
            solver.setup(P=P, q=self._q(), A=A, l=low, u=self._bounds(),
                         polishing=True, **settings)
        except (TypeError, ValueError):        # osqp 0.6
            solver = osqp.OSQP()
            solver.setup(P=P, q=self._q(), A=A, l=low, u=self._bounds(),
                         polish=True, warm_start=True,
                         **{k: v for k, v in settings.items() if k != "warm_starting"})
        self._problem = solver

    def _solve_osqp(self):
        solver = self._problem
        solver.update(q=self._q(), u=self._bounds(), Px=self._P_values())
        x0 = self._lam / self.C
        if self._y is not None:
            solver.warm_start(x=x0, y=self._y)
        else:
            solver.warm_start(x=x0)
        try:
            res = solver.solve(raise_error=False)     # osqp >= 1.0
        except TypeError:
            res = solver.solve()                      # osqp 0.6
        status = str(res.info.status).lower()
        if res.x is None or not np.all(np.isfinite(res.x)):
            return None, status, res.info.iter
        self._y = res.y
        return self.C * np.asarray(res.x), status, res.info.iter

    def _solve_small_exactly(self):
        """The dual over the current cuts by an interior-point method (Clarabel
        through cvxpy), or None if it fails: the fallback of a rough OSQP solve
        of a small master."""
        import cvxpy as cp

        k = self.n_cuts
        vals, vecs = np.linalg.eigh(self.gram)
        R = np.sqrt(np.clip(vals, 0.0, None))[:, None] * vecs.T
        lam = cp.Variable(k, nonneg=True)
        q = self._loss[:k] + self._b[:k]
        problem = cp.Problem(cp.Maximize(q @ lam - 0.5 * cp.sum_squares(R @ lam)),
                             [cp.sum(lam) <= self.C])
        try:
            problem.solve(solver=cp.CLARABEL)
        except cp.error.SolverError:
            return None
        if problem.status != "optimal" or lam.value is None:
            return None
        return np.asarray(lam.value, dtype=np.float64)

    # cvxpy ------------------------------------------------------------------
    def _factor(self):
        """``R`` with ``R'R = G`` (padded to the capacity), from an eigendecomposition.

        An incremental Cholesky factor breaks down as soon as a cut lies in the
        span of the earlier ones (always, once there are more cuts than
        features), so the symmetric square root is recomputed instead: O(K^3)
        for K cuts, small next to cvxpy's canonicalisation.
        """
        k = self.n_cuts
        R = np.zeros((self._capacity, self._capacity))
        if k:
            vals, vecs = np.linalg.eigh(self.gram)
            R[:k, :k] = np.sqrt(np.clip(vals, 0.0, None))[:, None] * vecs.T
        return R

    def _setup_cvxpy(self):
        import cvxpy as cp

        cap = self._capacity
        lam = cp.Variable(cap, nonneg=True)
        R = cp.Parameter((cap, cap))
        q = cp.Parameter(cap)
        ub = cp.Parameter(cap, nonneg=True)
        total = cp.Parameter(nonneg=True)
        objective = cp.Maximize(q @ lam - 0.5 * cp.sum_squares(R @ lam))
        problem = cp.Problem(objective, [lam <= ub, cp.sum(lam) <= total])
        self._problem = (problem, lam, R, q, ub, total)

    def _solve_cvxpy(self):
        import cvxpy as cp

        problem, lam, R, q, ub, total = self._problem
        R.value = self._factor()
        total.value = self.C
        k = self.n_cuts
        q.value = np.concatenate([self._loss[:k] + self._b[:k], np.zeros(self._capacity - k)])
        ub.value = self.C * self._bounds()[:-1]
        lam.value = self._lam.copy()
        try:
            problem.solve(solver=cp.OSQP, warm_start=True, eps_abs=self.eps,
                          eps_rel=self.eps, max_iter=self.max_iter, polishing=True)
        except cp.error.SolverError as exc:
            return None, f"solver error: {exc}", -1
        status = problem.status
        if status in ("optimal",):
            status = "solved"
        if lam.value is None:
            return None, status, -1
        return np.asarray(lam.value), status, problem.solver_stats.num_iters
