"""Algorithm 4 of Narasimhan & Agarwal (2017): CCCP for the hinge pAUC surrogate.

For α > 0 the pairwise hinge surrogate over the window (eq. (9)) is not
convex (Theorem 2), but by Theorem 5 it is a difference of two convex tight
[0, ·] surrogates (Section 6):

    R_hinge(w) = f(w) − g(w),
    f(w) = j_β / (j_β − j_α) · R_tight(0, β)(w),   g(w) = j_α / (j_β − j_α) · R_tight(0, α)(w).

The concave-convex procedure minimises ``J(w) = ½‖w‖² + C (f(w) − g(w))`` by
repeating (Algorithm 4, lines 5–11):

1. a subgradient of g at ``w_t`` from the [0, α] oracle (Algorithm 2):
   ``∇g(w_t) = −c_g Xᵀ coef_α`` with ``c_g = j_α / (j_β − j_α)``;
2. the convex upper bound ``½‖w‖² + C f(w) − C ∇g(w_t)·w``, solved by the
   cutting-plane method with the linear term ``l = C c_g Xᵀ coef_α``, in its
   proximal form around ``w_t`` (:meth:`CuttingPlaneSolver.solve_proximal`):
   the new linear term moves the minimiser of the cuts already held far from
   ``w_t``, while the step's solution stays close to it.

``f`` never changes, so every cut collected for it stays valid: the same
cutting-plane solver (and its master QP) is kept across outer steps and
only its linear term is replaced -- each convex problem starts from the cuts
of the previous ones (warm start) instead of from nothing.

Stopping (line 11).  The paper stops when ``(f − g)(w_t) − (f − g)(w_{t−1})
<= τ``, a difference that CCCP makes non-positive, so read literally it
stops after one step; we stop when the *decrease* of the outer objective
``J`` is at most ``τ · max(1, |J(w_{t−1})|)`` (relative for large
objectives), or after ``dc_max_iter`` outer steps.  The returned point is
the best one met: the proximal solve (the default) starts at ``w_t`` and only
moves down, and with ``prox=None`` Algorithm 1's solution, within ``C · tol``
of the step's optimum, can end slightly above ``w_t`` -- such a step is not
taken (its decrease counts as zero, which stops the procedure).

The data are read through a design (:mod:`pauc.svm._design`): the cuts of
``f`` and ``g`` are the tight ``[0, j]`` problems of the surrogate table
(the kernel of its ``"hinge"`` row), ``f``'s scaled by ``j_β / (j_β − j_α)``,
so in memory and on row chunks alike.

References
----------
Narasimhan & Agarwal (2017): Section 6, Algorithm 4, Theorem 5; Kiwiel (1990)
for the proximal solves. Full entries in ``docs/references.rst``.
"""

import numpy as np

from ._surrogates import Problem

# Weight of the proximal term of the convex solves at the start of each step
# (relative to 1/2 ||w||^2; solve_proximal shrinks it after well-predicted steps).
# Chosen on the CCCP rows of bench/bench_svm.py and the measurements kept in
# the developer guide ("Measurements behind the defaults").
PROX = 10.0

# The convex parts f and g are risks of the tight surrogate on [0, j] (Theorem 5).
_CONVEX_PART = "tight"


def _objective(design, w, j_alpha, j_beta, C, with_scores=False):
    """``J(w)`` and the cut of g's ``[0, j_alpha]`` problem at ``w`` (None when
    ``j_alpha = 0``): ``R_hinge = f - g`` (Section 6); with ``with_scores``, also
    the scores ``X @ w`` of the cuts (None for designs that keep none)."""
    width = j_beta - j_alpha
    cut_beta = design.cut(w, Problem(_CONVEX_PART, 0, j_beta))
    risk = j_beta / width * cut_beta.risk
    cut_alpha = None
    if j_alpha > 0:
        cut_alpha = design.cut(w, Problem(_CONVEX_PART, 0, j_alpha))
        risk = risk - j_alpha / width * cut_alpha.risk
    J = 0.5 * float(w @ w) + C * float(risk)
    return (J, cut_alpha, cut_beta.scores) if with_scores else (J, cut_alpha)


def hinge_objective_at_zero(design, j_alpha, j_beta, C):
    """``J(0) = C R_hinge(0)``, every score tied: the searches on zero scores, no
    pass over ``X`` (:meth:`~pauc.svm._design.InMemoryDesign.risk_at_zero`)."""
    width = j_beta - j_alpha
    risk = j_beta / width * design.risk_at_zero(Problem(_CONVEX_PART, 0, j_beta))
    if j_alpha > 0:
        risk -= j_alpha / width * design.risk_at_zero(Problem(_CONVEX_PART, 0, j_alpha))
    return C * float(risk)


def hinge_objective(design, w, j_alpha, j_beta, C):
    """``J(w) = ½‖w‖² + C · R_hinge(w)`` via the DC decomposition (Section 6).

    ``design``: the training rows and labels (:mod:`pauc.svm._design`).
    """
    return _objective(design, np.asarray(w, dtype=np.float64), j_alpha, j_beta, C)[0]


def cccp(design, j_alpha, j_beta, solver, w0, *, dc_tol=1e-3, dc_max_iter=50, prox=PROX,
         verbose=0, return_scores=False):
    """Run Algorithm 4 from ``w0`` with a :class:`CuttingPlaneSolver`.

    Parameters
    ----------
    design : Design
        The training rows and labels (:mod:`pauc.svm._design`).
    j_alpha, j_beta : int
        Window of negative positions, ``1 <= j_alpha < j_beta``.
    solver : CuttingPlaneSolver
        Holds the cuts of ``f``; kept across outer steps.
    w0 : ndarray of shape (d,)
    dc_tol : float
        τ of line 11 (see the module docstring for the reading used).
    dc_max_iter : int
    prox : float or None
        Weight ``mu`` of the proximal term of
        :meth:`CuttingPlaneSolver.solve_proximal`, which solves each convex
        problem around the current point; None runs Algorithm 1 instead.

    Returns
    -------
    w : ndarray of shape (d,)
    history : list of dict
        The start, then one entry per outer step: ``objective`` (J at the point
        kept: the step's solution, or the previous point when the inexact
        convex solve ended higher -- so the sequence never increases),
        ``step_objective`` (J at the step's solution), ``inner_iter``
        (cutting-plane iterations), ``inner_converged``, ``n_cuts``.
    converged : bool
    scores : ndarray of shape (n_samples,) or None
        ``X @ w`` (with ``return_scores=True``), as the last evaluation of ``J``
        computed it: ``history[-1]["objective"]`` and these are what the
        estimator's comparison with ``w = 0`` needs.
    """
    C = solver.C
    width = j_beta - j_alpha
    f_problem = Problem(_CONVEX_PART, 0, j_beta, scale=j_beta / width)
    w = np.asarray(w0, dtype=np.float64).copy()
    objective, cut_alpha, scores = _objective(design, w, j_alpha, j_beta, C, True)
    history = [{"objective": objective, "step_objective": objective, "inner_iter": 0,
                "inner_converged": True, "n_cuts": solver.master.n_cuts}]
    converged = False
    for step in range(1, dc_max_iter + 1):
        # Line 8: supergradient of −g at w_t (Algorithm 2 on the top-j_α negatives),
        # the cut of g's [0, j_α] problem at w_t (computed with J(w_t)).
        linear = C * (j_alpha / width) * cut_alpha.g
        # Line 10: the convex upper bound, warm-started from the cuts of f held by the solver.
        solver.set_linear_term(linear)
        if prox is None:
            w_step = solver.solve(design, f_problem, w0=w)
        else:
            w_step = solver.solve_proximal(design, f_problem, center=w, mu=prox)
        step_objective, step_cut_alpha, step_scores = _objective(design, w_step, j_alpha,
                                                                 j_beta, C, True)
        # An exact minimiser of the convex upper bound never increases J; the
        # cutting-plane solution is within C * tol of it, so J can rise by as
        # much.  Keep the better point: the sequence is then non-increasing.
        previous = objective
        if step_objective <= objective:
            w, objective, cut_alpha, scores = w_step, step_objective, step_cut_alpha, step_scores
        history.append({"objective": objective, "step_objective": step_objective,
                        "inner_iter": solver.n_iter_, "inner_converged": solver.converged_,
                        "n_cuts": solver.master.n_cuts})
        if verbose:
            kept = "" if objective == step_objective else f" (kept {objective:.6g})"
            print(f"CCCP step {step:>3}: objective {step_objective:.6g}{kept} "
                  f"({solver.n_iter_} cutting-plane iterations, {solver.master.n_cuts} cuts)")
        if previous - objective <= dc_tol * max(1.0, abs(previous)):
            converged = True
            break
        if solver.stalled_:
            # the convex steps cannot be solved to tol (the solver warned why):
            # further outer steps would each stall the same way
            break
    return (w, history, converged, scores) if return_scores else (w, history, converged)
