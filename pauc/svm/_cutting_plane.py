"""Algorithm 1 of Narasimhan & Agarwal (2017): the 1-slack cutting-plane method.

The solver minimises

    J(w) = 1/2 ||w||^2 + l.w + C * H(w),     H(w) = max_c ( Delta_c - w.g_c )

where the maximum runs over an exponentially large family of constraints that
only an *oracle* can search (Algorithms 2 and 3 of the paper, or Joachims'
AUC search).  The solver sees the training data only through a *design*
(:mod:`pauc.svm._design`): ``design.cut(w, problem)`` returns the most
violated constraint at ``w`` as a :class:`~pauc.svm._design.Cut` -- the cut
vector ``g = X.T @ coef``, its loss, and ``H(w) = loss - scores @ coef`` --
whether the rows are in memory or in chunks on a cluster.

Each iteration (Algorithm 1, lines 8-12):

1. ``cut = design.cut(w, problem)`` -- ``X @ w``, the most violated
   constraint (line 10) and ``g`` (one pass over ``X`` each way);
2. stop when ``H(w) <= xi + tol`` (line 12), ``xi`` being the slack of the
   cuts already held, evaluated at ``w``;
3. otherwise add the cut (line 11) and re-solve the master QP (line 9,
   :mod:`pauc.svm._master`).

``linear_term`` adds ``l.w`` to the objective and ``warm start`` keeps the cuts
of a previous ``solve``: the two hooks the DC/CCCP method of Section 6 needs
(its outer loop changes ``l`` and re-enters the same solver).
:meth:`CuttingPlaneSolver.solve_proximal` is the proximal (bundle) form of the
same loop (Kiwiel's proximal bundle method), used by the CCCP steps and the
coarse-to-fine start.

References
----------
Narasimhan & Agarwal (2017), Algorithm 1; Joachims (2005); Kiwiel (1990) for
the proximal form; Franc & Sonnenburg (2009). Full entries in
``docs/references.rst``.
"""

import time
import warnings
from collections import deque

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ._design import as_design
from ._master import MasterQP
from ._threads import single_blas_thread

# A solve stops, unconverged, when its best primal-dual gap (the best J met
# minus the best lower bound) has not shrunk by _STALL_SHARE in _STALL_PATIENCE
# iterations.  That happens when the master QP's solutions are too rough to
# close the gap -- features on a large scale, which act as a large C -- and then
# every further cut only makes the QP larger and slower, for minutes, with the gap
# stuck (measured: docs/developer/measurements.rst, 'A stalled solve').  A
# converging solve shrinks its gap by far more than 1 % per 100 iterations.
_STALL_PATIENCE = 100
_STALL_SHARE = 0.01
# ... or when the gap still shrinks, but at the pace of its last _STALL_PATIENCE
# iterations would not reach C tol within the solve's max_iter: the same fit
# crawled by a few percent per 100 iterations for hundreds of iterations, where the
# hundreds of cuts made every QP slow (same section).  A
# cutting-plane gap shrinks ever more slowly (like 1/t), so a straight line
# through its last _STALL_PATIENCE iterations overstates the pace to come: a
# solve this rule stops would not have met tol by max_iter either (barring the
# sudden drop of a model that becomes exact, which a crawl does not announce).


class _StallWatch:
    """Tracks the best primal-dual gap of a solve; :meth:`stalled` after
    ``_STALL_PATIENCE`` iterations without a ``_STALL_SHARE`` decrease, or, given
    the gap to reach (``target``, ``C * tol``) and the iterations allowed
    (``budget``), as soon as the pace of the last ``_STALL_PATIENCE`` iterations
    would not reach it within them (``reason`` says which).  Called once per
    iteration."""

    def __init__(self, target=0.0, budget=np.inf):
        self.target, self.budget = float(target), float(budget)
        self.best_primal, self.best_dual = np.inf, -np.inf
        self.mark, self.since = np.inf, 0
        # the best gaps of the last calls
        self.calls, self.recent = 0, deque(maxlen=_STALL_PATIENCE + 1)
        self.reason = None

    def stalled(self, primal, dual):
        self.calls += 1
        self.best_primal = min(self.best_primal, primal)
        self.best_dual = max(self.best_dual, dual)
        gap = self.best_primal - self.best_dual
        if not np.isfinite(gap) or gap < (1.0 - _STALL_SHARE) * self.mark:
            self.mark, self.since = gap, 0
        else:
            self.since += 1
        if self.since >= _STALL_PATIENCE:
            self.reason = "no decrease"
            return True
        if np.isfinite(gap):
            self.recent.append(gap)
        else:
            self.recent.clear()
        if len(self.recent) > _STALL_PATIENCE and gap > self.target:
            pace = (self.recent[0] - gap) / _STALL_PATIENCE      # >= 0: best values only
            if pace * (self.budget - self.calls) < gap - self.target:
                self.reason = "pace"
                return True
        return False


_HISTORY_FIELDS = ("violation", "xi", "primal", "dual", "n_cuts",
                   "time_oracle", "time_matvec", "time_qp", "proximal")

# solve_proximal moves its centre when J falls by this share of the decrease
# its model predicted (the usual 0.1 of proximal bundle methods).
_SERIOUS_STEP = 0.1
# ... and, when J fell by at least this share of the predicted decrease, multiplies
# mu by _MU_DECREASE, or by down to _MU_DECREASE_MAX when the model predicted the
# decrease exactly (2 (1 - rho) in between, rho = achieved / predicted: Kiwiel's
# interpolation rule, capped): far from the optimum a fixed mu would creep towards
# it (each step moving a fraction ~1/(1 + mu) of the way); mu -> 0 is Algorithm 1.
# The faster decrease matters when the start is far but the model right from the
# first cut (the coarse-to-fine refinements; the developer guide keeps the
# measurement).
_GOOD_MODEL = 0.5
_MU_DECREASE = 0.5
_MU_DECREASE_MAX = 0.1


class CuttingPlaneSolver:
    """1-slack cutting-plane solver (Algorithm 1 of [1]_) for any design and problem.

    The training data come as a *design* (``pauc.svm._design``: an array or a
    sparse matrix is wrapped in memory), the constraint family as a *problem*
    whose most violated member the design computes; the solver keeps the cuts
    and the master QP (:class:`~pauc.svm._master.MasterQP`) across calls.

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
        violation can only look larger (it trades a few more iterations for a
        much smaller QP; see ``bench/bench_svm.py``).
    verbose : int
        ``1`` prints one line per iteration.
    warn : bool
        False: no :class:`~sklearn.exceptions.ConvergenceWarning` from this
        solver or its master QP (the coarse levels of
        :mod:`pauc.svm._coarse_to_fine`, whose early stops only mean a worse
        start); ``converged_`` and ``master.rough_solves`` still tell.
    callback : callable or None
        ``callback(solver)`` after every iteration (lightning's way): progress
        displays read ``solver.n_iter_`` and ``solver.history_`` there (the
        iterations recorded so far).  Its return value is ignored.

    Attributes
    ----------
    master : MasterQP
        The cuts and the master QP; kept across calls to :meth:`solve`.
    w_ : ndarray of shape (d,)
    n_iter_ : int
        Oracle calls of the last ``solve``; while ``solve`` runs (in
        ``callback``), the number of the current iteration.
    converged_ : bool
    scores_ : ndarray of shape (n_samples,) or None
        ``X @ w_`` when the solve evaluated ``w_`` (the estimators reuse it
        instead of another pass over ``X``); None when Algorithm 1 stopped
        unconverged (``w_`` then comes from the last master solve).
    objective_ : float or None
        ``J(w_)`` (with the linear term), evaluated by the solve, with
        ``scores_``; None with it.  The estimators' comparison with ``w = 0``
        reads it (:mod:`pauc.svm._degenerate`).
    history_ : dict of ndarray
        Per iteration: ``violation`` (``H(w) - xi``), ``xi``, ``primal``
        (``J(w)``), ``dual`` (master dual value, a lower bound on ``min J``),
        ``n_cuts``, and seconds in ``time_oracle``, ``time_matvec`` (both
        products with ``X``) and ``time_qp``; ``proximal`` is True for the
        iterations of :meth:`solve_proximal`, whose first four are its own (see
        there): the gap over ``C``, the model at the prox point, ``J`` at the
        centre and the bound.

    References
    ----------
    .. [1] Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for
       Optimizing the Partial Area Under the ROC Curve." Neural Computation
       29(7), 2017 (arXiv:1605.04337).
    .. [2] Joachims, T. "A Support Vector Method for Multivariate Performance
       Measures." ICML 2005.
    .. [3] Kiwiel, K. C. "Proximity control in bundle methods for convex
       nondifferentiable minimization." Mathematical Programming 46, 1990.
    .. [4] Franc, V. and Sonnenburg, S. "Optimized Cutting Plane Algorithm for
       Large-Scale Risk Minimization." JMLR 10, 2009.
    """

    def __init__(self, C, *, tol=1e-3, max_iter=1000, qp_solver="osqp", qp_eps=1e-7,
                 qp_max_iter=20000, inactive_age=10, verbose=0, warn=True, callback=None):
        self.C = float(C)
        self.callback = callback
        self.tol = float(tol)
        self.max_iter = int(max_iter)
        self.verbose = verbose
        self.inactive_age = inactive_age
        self.master = MasterQP(self.C, solver=qp_solver, eps=qp_eps, max_iter=qp_max_iter)
        self.linear_term = None
        self.warn = warn

    @property
    def warn(self):
        return self._warn

    @warn.setter
    def warn(self, value):
        self._warn = self.master.warn = bool(value)

    def set_C(self, C):
        """Change ``C``; the cuts (valid for every ``C``) and the Gram matrix are kept.

        A cut ``w.g >= Delta - xi`` does not depend on ``C``: only the master's
        bound ``sum_k lambda_k <= C`` does, so a path over ``C`` (``warm_start``,
        the CV estimators) re-enters the same solver and pays only for the
        cuts the new ``C`` needs.
        """
        self.C = float(C)
        self.master.set_C(self.C)

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

    def solve(self, design, problem, w0=None):
        """Run Algorithm 1 from the cuts already held.

        Parameters
        ----------
        design : Design, ndarray or scipy.sparse matrix of shape (n_samples, d)
            The training data (:mod:`pauc.svm._design`); an array or a sparse
            matrix is wrapped in an in-memory design, read only through
            ``X @ w`` and ``X.T @ coef``.
        problem : Problem or callable
            The problem whose cuts the design computes
            (:class:`~pauc.svm._surrogates.Problem`), or, for data in memory,
            any oracle ``oracle(scores) -> (coef, loss)``: the most violated
            constraint at ``scores = X @ w`` (one coefficient per row of ``X``).
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
        they save (the developer guide keeps the measurement).
        """
        with single_blas_thread():
            return self._solve(as_design(design), problem, w0)

    def _solve(self, design, problem, w0, max_iter=None, history=None, done=0):
        """Algorithm 1; ``history`` and ``done`` carry on the record of a proximal
        solve that handed over (:meth:`solve_proximal`'s ``handoff``)."""
        master = self.master
        d = design.shape[1]
        max_iter = self.max_iter if max_iter is None else max_iter
        history = {name: [] for name in _HISTORY_FIELDS} if history is None else history
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
        self.converged_ = self.stalled_ = False
        self.n_iter_ = done
        if not done:
            self._print_header()
        watch = _StallWatch(self.C * self.tol, max_iter)
        for it in range(done + 1, done + max_iter + 1):
            self.n_iter_ = it
            cut = design.cut(w, problem)
            if master.n_cuts:
                margins = master.margins() if from_master else master.cuts @ w
                xi = max(0.0, float(np.max(master.losses - margins)))
            else:
                xi = 0.0
            violation = cut.risk - xi
            primal = self._objective_parts(w) + self.C * cut.risk

            self._record(history, it, violation, xi, primal, dual, cut, t_qp, proximal=False)
            if violation <= self.tol:
                self.converged_ = True
                if self.warn:
                    _check_master_accuracy(primal, dual, self.C * self.tol, self.master.eps)
                break
            if watch.stalled(primal, dual):
                self.stalled_, self._stall = True, watch
                break

            start = time.perf_counter()
            master.add_cut(cut.g, cut.loss)
            master.solve()
            if self.inactive_age is not None:
                master.drop_inactive(self.inactive_age)
            w = master.weights()
            t_qp = time.perf_counter() - start
            from_master = True
            dual = master.dual_objective()
        self.n_iter_ = it
        self.w_ = w
        # (unconverged, w comes from the last master solve: not evaluated)
        evaluated = self.converged_ or self.stalled_
        self.scores_ = cut.scores if evaluated else None
        self.objective_ = primal if evaluated else None
        self._finish(history, violation, max_iter=done + max_iter)
        return w

    def solve_proximal(self, design, problem, center, mu, max_iter=None, last_point=False,
                       handoff=None):
        """Minimise ``J`` by the proximal cutting-plane method around ``center``.

        The same cuts, oracle and master QP as :meth:`solve`, with the master
        stabilised (a proximal bundle method, Kiwiel 1990; see the class's
        References).  Algorithm 1 minimises the cut model alone, and when the model
        was built elsewhere its minimiser can be far from the optimum: in the
        CCCP of Section 6 every outer step changes the linear term, and the
        first master solution of a step can lie far from a point that the step
        then barely moves (measured: ``docs/developer/measurements.rst``, 'CCCP
        steps by the proximal method').  Here each iterate minimises

            model(w) + mu/2 ||w - c||^2,

        which is the master QP with ``C / (1 + mu)`` and linear term
        ``(l - mu c) / (1 + mu)`` (complete the square), around a stability
        centre ``c``; ``c`` moves to the new point only when ``J`` there falls
        by at least a tenth of the decrease the model predicted (a *serious
        step*, otherwise a *null step* that only adds the cut).  A serious
        step that achieved half the predicted decrease halves ``mu`` (or more, down
        to a tenth when the model predicted the decrease exactly): far from the
        optimum the steps lengthen, and ``mu -> 0`` is Algorithm 1.

        Stopping: the prox-master's dual point ``lambda`` (sum at most
        ``C / (1 + mu)``) scaled by ``1 + mu`` is feasible for the plain master,
        whose dual value there is a lower bound on ``min J`` (weak duality).
        Were the QP exact, it would be ``m(w_k) - ||s||^2 / 2`` with ``m`` the
        model, 1-strongly convex, and ``s = mu (c - w_k)`` its subgradient at
        the prox point ``w_k``; the dual form stays valid when OSQP stops
        early.  The method stops when the lowest ``J`` met (at the centre, or
        at a null step's point that was lower without being a serious step) is
        within ``C * tol`` of the best such bound, and returns that point: the
        guarantee :meth:`solve` gives.  (Solving the plain master exactly for a
        tighter bound at each iteration did not save iterations on a9a: the
        upper bound is what closes last.)  (With features on
        very different scales OSQP's solutions are rough and the bound closes
        slowly -- features from 1e-3 to 1e3 took hundreds of iterations where
        standardized ones take tens: scale the features.)  In ``history_``,
        ``violation`` is that gap over ``C``, ``primal`` is that lowest ``J``, ``dual``
        the bound and ``xi`` the model of ``H`` at the prox point.

        Parameters
        ----------
        design, problem : as in :meth:`solve`.
        center : ndarray of shape (d,)
            The first stability centre (evaluated first), e.g. the previous
            CCCP point.
        mu : float
            Initial weight of the proximal term, relative to the ``1/2 ||w||^2``
            of the objective (so independent of the scale of the features).
        max_iter : int, optional
            Oracle calls allowed in this solve (default ``self.max_iter``).
        last_point : bool
            When the certificate holds at the starting centre itself (no
            point met was lower), also evaluate ``J`` at the last prox point
            (one more oracle call, counted in ``n_iter_``) and return it if
            it is lower.  From a start whose gap is already below ``C * tol``
            (``w = 0`` at a tiny ``C``) the centre never moves, while the prox
            point -- a damped step of Algorithm 1's master -- is the better
            answer; the guarantee is the same.
        handoff : int, optional
            After this many proximal iterations without the certificate,
            Algorithm 1 (:meth:`solve`) takes over from the cuts collected, for
            the rest of ``max_iter``, and its own stopping test ends the solve
            (the coarse-to-fine refinements: a start that did not help).  Only
            that last part warns; ``n_iter_`` and ``history_`` cover both.

        Returns
        -------
        w : ndarray of shape (d,)
            The best point met: the last stability centre, or a null step's
            point where ``J`` was lower (or the last prox point, see
            ``last_point``).
        """
        mu = float(mu)
        if not mu > 0:
            raise ValueError(f"mu must be positive, got {mu!r}")
        max_iter = self.max_iter if max_iter is None else int(max_iter)
        design = as_design(design)
        with single_blas_thread():
            if handoff is None or handoff >= max_iter:
                return self._solve_proximal(design, problem, center, mu, max_iter, last_point)
            # the proximal part is quiet, its master QP too: only the last part warns
            master_warns, self.master.warn = self.master.warn, False
            try:
                w = self._solve_proximal(design, problem, center, mu, int(handoff), last_point,
                                         quiet=True)
            finally:
                self.master.warn = master_warns
            if self.converged_:
                return w
            return self._solve(design, problem, None, max_iter=max_iter - self.n_iter_,
                               history={k: list(v) for k, v in self.history_.items()},
                               done=self.n_iter_)

    def _solve_proximal(self, design, problem, center, mu, max_iter, last_point, quiet=False):
        master, C, linear = self.master, self.C, self.linear_term
        c = np.asarray(center, dtype=np.float64).copy()
        if c.shape != (design.shape[1],):
            raise ValueError(f"center has shape {c.shape}, expected ({design.shape[1]},)")
        history = {name: [] for name in _HISTORY_FIELDS}
        self.converged_ = self.stalled_ = False
        self.n_iter_ = 0
        self._print_header()
        watch = _StallWatch(C * self.tol, max_iter)
        w, J_c, predicted, lower, t_qp = c, None, None, -np.inf, 0.0
        best = None       # (J, w, scores) of the lowest J met: centre or null step
        first = c
        for it in range(1, max_iter + 1):
            self.n_iter_ = it
            cut = design.cut(w, problem)
            J_w = self._objective_parts(w) + C * cut.risk
            if best is None or J_w < best[0]:
                best = (J_w, w, cut.scores)
            if J_c is None:
                c, J_c, scores_c = w, J_w, cut.scores
            elif J_w <= J_c - _SERIOUS_STEP * (J_c - predicted):
                rho = (J_c - J_w) / (J_c - predicted)    # achieved / predicted decrease
                if rho >= _GOOD_MODEL:
                    # the model predicted well: trust it more, the more so the
                    # better it predicted (x 0.5 at rho <= 3/4 .. x 0.1 at rho = 1)
                    mu *= min(_MU_DECREASE, max(_MU_DECREASE_MAX, 2.0 * (1.0 - rho)))
                c, J_c, scores_c = w, J_w, cut.scores

            start = time.perf_counter()
            if not _held(master, cut.g, cut.loss):
                master.add_cut(cut.g, cut.loss)
            shift = -mu * c if linear is None else linear - mu * c
            master.set_C(C / (1.0 + mu))
            master.set_linear_term(shift / (1.0 + mu))
            try:
                master.solve()
                if self.inactive_age is not None:
                    master.drop_inactive(self.inactive_age)
                w = master.weights()
            finally:
                master.set_C(C)
                master.set_linear_term(linear)
            # The bound: the original master's dual value at (1 + mu) lambda, which
            # is feasible (sum <= C) -- weak duality, whatever the accuracy of the
            # QP solution.  When it is exact this is m(w) - mu^2/2 ||c - w||^2.
            lower = max(lower, master.dual_objective((1.0 + mu) * master.lam_))
            t_qp = time.perf_counter() - start

            # (drop_inactive may have emptied the master: then the model of H is 0)
            xi = max(0.0, float(np.max(master.losses - master.cuts @ w))) if master.n_cuts else 0.0
            predicted = self._objective_parts(w) + C * xi
            gap = (best[0] - lower) / C
            self._record(history, it, gap, xi, best[0], lower, cut, t_qp, proximal=True)
            if gap <= self.tol:
                self.converged_ = True
                if last_point and best[1] is first and it < max_iter:
                    self.n_iter_ = it + 1
                    cut = design.cut(w, problem)
                    J_w = self._objective_parts(w) + C * cut.risk
                    if J_w < best[0]:
                        best = (J_w, w, cut.scores)
                    gap = (best[0] - lower) / C
                    self._record(history, it + 1, gap, xi, best[0], lower, cut, 0.0,
                                 proximal=True)
                break
            if watch.stalled(best[0], lower):
                self.stalled_, self._stall = True, watch
                break
        J_best, c, scores_c = best
        self.w_ = c
        self.scores_ = scores_c
        self.objective_ = J_best
        self._finish(history, gap, measure="gap / C", max_iter=max_iter, quiet=quiet)
        return c

    # ------------------------------------------------------------ helpers
    def _print_header(self):
        if self.verbose:
            print(f"{'iter':>5} {'violation':>11} {'xi':>11} {'primal':>12} {'dual':>12} "
                  f"{'cuts':>5} {'oracle s':>9} {'matvec s':>9} {'qp s':>8}")

    def _record(self, history, it, violation, xi, primal, dual, cut, t_qp, proximal):
        n_cuts = self.master.n_cuts
        t_oracle, t_matvec = cut.time_oracle, cut.time_matvec
        for name, value in zip(_HISTORY_FIELDS, (violation, xi, primal, dual, n_cuts,
                                                 t_oracle, t_matvec, t_qp, proximal)):
            history[name].append(value)
        if self.verbose:
            print(f"{it:>5} {violation:>11.4e} {xi:>11.4e} {primal:>12.6g} {dual:>12.6g} "
                  f"{n_cuts:>5} {t_oracle:>9.4f} {t_matvec:>9.4f} {t_qp:>8.4f}")
        if self.callback is not None:
            self.history_ = history
            self.callback(self)

    def _finish(self, history, violation, measure="violation", max_iter=None, quiet=False):
        self.history_ = {name: np.asarray(values) for name, values in history.items()}
        if quiet:
            return
        if self.stalled_ and self.warn:
            max_iter = self.max_iter if max_iter is None else max_iter
            why = (f"did not shrink by {_STALL_SHARE:.0%} in the last {_STALL_PATIENCE}"
                   if self._stall.reason == "no decrease" else
                   f"shrank too slowly in the last {_STALL_PATIENCE} to reach tol within "
                   f"max_iter={max_iter}")
            warnings.warn(
                f"the cutting-plane method stopped after {self.n_iter_} iterations: its "
                f"primal-dual gap {why} (last {measure} {violation:.3g} > tol={self.tol:g}), "
                f"the master QP's solutions being too rough to close it "
                f"({self.master.rough_solves} rough solves). Standardize the features "
                "(e.g. StandardScaler) or decrease C",
                ConvergenceWarning, stacklevel=4)
        elif not self.converged_ and self.warn:
            max_iter = self.max_iter if max_iter is None else max_iter
            rough = (f"; the master QP's solutions were rough {self.master.rough_solves} "
                     "times: standardize the features (e.g. StandardScaler)"
                     if self.master.rough_solves else "")
            warnings.warn(
                f"the cutting-plane method did not converge in max_iter={max_iter} "
                f"iterations (last {measure} {violation:.3g} > tol={self.tol:g}); increase "
                f"max_iter, increase tol, or decrease C (iterations grow like C/tol){rough}",
                ConvergenceWarning, stacklevel=4)


def _check_master_accuracy(primal, dual, budget, master_eps):
    """Warn when Algorithm 1's test passed on a rough master solution.

    At the exact master optimum the primal-dual gap is at most ``C * violation
    <= C * tol``; a gap well above it means OSQP returned a rough solution (seen
    with features on scales from 1e-3 to 1e3) and ``J(w)`` may be further from
    the optimum than ``C * tol``.
    """
    gap = primal - dual
    if np.isfinite(dual) and gap > 2.0 * budget + 1e-9 * abs(primal):
        warnings.warn(
            f"the cutting-plane test passed, but the master QP's solution is rough: "
            f"J(w) - lower bound = {gap:.3g} > 2 C tol = {2.0 * budget:.3g}, so w may "
            "not be within C tol of the optimum; standardize the features (e.g. "
            "StandardScaler), lower C, or lower qp_eps (now "
            f"{master_eps:g}) for a more accurate master QP",
            ConvergenceWarning, stacklevel=4)


def _held(master, g, loss):
    """True if the master already holds the cut ``(g, loss)`` (a serious step along
    one piece of ``H`` meets the same cut again; a copy would only grow the QP)."""
    if not master.n_cuts:
        return False
    same = master.losses == loss
    return bool(same.any() and np.any(np.all(master.cuts[same] == g, axis=1)))
