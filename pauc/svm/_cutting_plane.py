"""Algorithm 1 of Narasimhan & Agarwal (paper 002): the 1-slack cutting-plane method.

The solver minimises

    J(w) = 1/2 ||w||^2 + l.w + C * H(w),     H(w) = max_c ( Delta_c - w.g_c )

where the maximum runs over an exponentially large family of constraints that
only an *oracle* can search (Algorithms 2 and 3 of the paper, or Joachims'
AUC search).  The oracle sees only the scores ``X @ w`` and returns the most
violated constraint in the count representation of Appendix B.1: one
coefficient per training row and a loss, so that the cut vector is
``g = X.T @ coef`` and ``H(w) = loss - scores @ coef``.

Each iteration (Algorithm 1, lines 8-12):

1. ``s = X @ w`` -- the only pass over ``X`` besides line 3;
2. ``coef, Delta = oracle(s)`` -- the most violated constraint (line 10);
3. ``g = X.T @ coef``;
4. stop when ``Delta - w.g <= xi + tol`` (line 12), ``xi`` being the slack of
   the cuts already held, evaluated at ``w``;
5. otherwise add the cut (line 11) and re-solve the master QP (line 9).

``linear_term`` adds ``l.w`` to the objective and ``warm start`` keeps the cuts
of a previous ``solve``: the two hooks the DC/CCCP method of Section 6 needs
(its outer loop changes ``l`` and re-enters the same solver).
"""

import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from ._master import MasterQP

_HISTORY_FIELDS = ("violation", "xi", "primal", "dual", "n_cuts",
                   "time_oracle", "time_matvec", "time_qp")


class CuttingPlaneSolver:
    """1-slack cutting-plane solver (paper 002, Algorithm 1) for any oracle.

    Parameters
    ----------
    C : float
        Regularisation constant of ``1/2 ||w||^2 + C xi``.
    tol : float
        Stop when the most violated constraint exceeds the slack ``xi`` by at
        most ``tol`` (Algorithm 1, line 12).  The objective at the returned
        ``w`` is then within ``C * tol`` of the optimum (up to the master
        QP's own accuracy, reported by ``history_["dual"]``).
    max_iter : int
        Maximum number of oracle calls per ``solve``.
    qp_solver : {"osqp", "cvxpy"}
        Back end of :class:`~pauc.svm._master.MasterQP`.
    qp_eps, qp_max_iter : float, int
        OSQP tolerance and iteration limit per master solve.
    inactive_age : int or None
        Drop a cut whose dual variable stayed zero for this many master solves
        (keeps the QP small); None keeps every cut.  Dropping never stops the
        method early: ``xi`` is then measured over fewer cuts, so the
        violation can only look larger.  On a9a, ``PartialAUCSVM((.02, .05),
        C=100)``: 10 -> 182 iterations, 0.17 s in the QP; None -> 151
        iterations, 1.3 s in the QP.
    verbose : int
        ``1`` prints one line per iteration.

    Attributes
    ----------
    master : MasterQP
        The cuts and the master QP; kept across calls to :meth:`solve`.
    w_ : ndarray of shape (d,)
    n_iter_ : int
        Oracle calls of the last ``solve``; while ``solve`` runs, the number
        of the current iteration (a live counter that progress displays read
        from another thread).
    converged_ : bool
    scores_ : ndarray of shape (n_samples,) or None
        ``X @ w_`` from the last iteration when the method converged (the
        estimators reuse it instead of another pass over ``X``); None when it
        stopped at ``max_iter`` (``w_`` then comes from the last master solve).
    history_ : dict of ndarray
        Per iteration: ``violation`` (``H(w) - xi``), ``xi``, ``primal``
        (``J(w)``), ``dual`` (master dual value, a lower bound on ``min J``),
        ``n_cuts``, and seconds in ``time_oracle``, ``time_matvec`` (both
        products with ``X``) and ``time_qp``.
    """

    def __init__(self, C, *, tol=1e-3, max_iter=1000, qp_solver="osqp", qp_eps=1e-7,
                 qp_max_iter=20000, inactive_age=10, verbose=0):
        self.C = float(C)
        self.tol = float(tol)
        self.max_iter = int(max_iter)
        self.verbose = verbose
        self.inactive_age = inactive_age
        self.master = MasterQP(self.C, solver=qp_solver, eps=qp_eps, max_iter=qp_max_iter)
        self.linear_term = None

    def add_cut(self, g, loss):
        """Add a cut ``w.g >= loss - xi`` (for instance kept from an earlier problem)."""
        self.master.add_cut(g, loss)

    def set_linear_term(self, linear):
        """Set ``l`` in ``J(w) = 1/2||w||^2 + l.w + C H(w)``; the cuts are kept."""
        self.linear_term = None if linear is None else np.asarray(linear, dtype=np.float64)
        self.master.set_linear_term(self.linear_term)

    def _objective_parts(self, w):
        value = 0.5 * float(w @ w)
        if self.linear_term is not None:
            value += float(self.linear_term @ w)
        return value

    def solve(self, X, oracle, w0=None):
        """Run Algorithm 1 from the cuts already held.

        Parameters
        ----------
        X : ndarray or scipy.sparse matrix of shape (n_samples, d)
            Used only through ``X @ w`` and ``X.T @ coef``.
        oracle : callable
            ``oracle(scores) -> (coef, loss)``, the most violated constraint at
            ``scores = X @ w`` (one coefficient per row of ``X``).
        w0 : ndarray of shape (d,), optional
            Starting point when the solver holds no cut (default zero).  With
            cuts, the start is the master solution over them (warm start).

        Returns
        -------
        w : ndarray of shape (d,)

        Notes
        -----
        BLAS runs single-threaded inside the loop: its calls are all small
        level-1/2 products (a dot of two score vectors, K x K Gram products,
        one ``X @ w``), for which OpenBLAS's thread wake-ups cost more than
        they save -- on a9a, ``AUCSVM(C=100)`` took 0.46 s with 2 BLAS threads
        on a busy 2-core machine and 0.06 s with one.
        """
        with threadpool_limits(limits=1, user_api="blas"):
            return self._solve(X, oracle, w0)

    def _solve(self, X, oracle, w0):
        master = self.master
        d = X.shape[1]
        history = {name: [] for name in _HISTORY_FIELDS}
        t_qp = 0.0
        dual = -np.inf          # no dual point before the first master solve
        from_master = master.n_cuts > 0
        if from_master:
            # Warm start: the optimum over the cuts kept from an earlier solve.
            start = time.perf_counter()
            master.solve()
            t_qp = time.perf_counter() - start
            w = master.weights()
            dual = master.dual_objective()
        else:
            w = np.zeros(d) if w0 is None else np.asarray(w0, dtype=np.float64).copy()
        if w.shape != (d,):
            raise ValueError(f"w0 has shape {w.shape}, expected ({d},)")
        self.converged_ = False
        self.n_iter_ = 0
        if self.verbose:
            print(f"{'iter':>5} {'violation':>11} {'xi':>11} {'primal':>12} {'dual':>12} "
                  f"{'cuts':>5} {'oracle s':>9} {'matvec s':>9} {'qp s':>8}")
        for it in range(1, self.max_iter + 1):
            self.n_iter_ = it
            start = time.perf_counter()
            scores = X @ w
            t_matvec = time.perf_counter() - start

            start = time.perf_counter()
            coef, loss = oracle(scores)
            t_oracle = time.perf_counter() - start

            start = time.perf_counter()
            g = X.T @ coef
            t_matvec += time.perf_counter() - start
            g = np.asarray(g, dtype=np.float64).ravel()

            # Surrogate at w (the oracle is exact, so this is H(w)): loss - w.g.
            surrogate = float(loss) - float(scores @ coef)
            if master.n_cuts:
                margins = master.margins() if from_master else master.cuts @ w
                xi = max(0.0, float(np.max(master.losses - margins)))
            else:
                xi = 0.0
            violation = surrogate - xi
            primal = self._objective_parts(w) + self.C * surrogate

            for name, value in zip(_HISTORY_FIELDS,
                                   (violation, xi, primal, dual, master.n_cuts,
                                    t_oracle, t_matvec, t_qp)):
                history[name].append(value)
            if self.verbose:
                print(f"{it:>5} {violation:>11.4e} {xi:>11.4e} {primal:>12.6g} {dual:>12.6g} "
                      f"{master.n_cuts:>5} {t_oracle:>9.4f} {t_matvec:>9.4f} {t_qp:>8.4f}")
            if violation <= self.tol:
                self.converged_ = True
                break

            start = time.perf_counter()
            master.add_cut(g, loss)
            master.solve()
            if self.inactive_age is not None:
                master.drop_inactive(self.inactive_age)
            w = master.weights()
            t_qp = time.perf_counter() - start
            from_master = True
            dual = master.dual_objective()
        self.n_iter_ = it
        self.w_ = w
        self.scores_ = scores if self.converged_ else None
        self.history_ = {name: np.asarray(values) for name, values in history.items()}
        if not self.converged_:
            warnings.warn(
                f"the cutting-plane method did not converge in max_iter={self.max_iter} "
                f"iterations (last violation {violation:.3g} > tol={self.tol:g}); increase "
                "max_iter, increase tol, or decrease C (iterations grow like C/tol)",
                ConvergenceWarning, stacklevel=3)
        return w
