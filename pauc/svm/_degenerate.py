"""Is the fitted ``w`` better than ``w = 0``?  The degenerate optimum of the structural SVMs.

The estimators minimise ``J(w) = 1/2 ||w||^2 + C R(w)``, ``R`` a convex
surrogate (for ``surrogate="hinge"``: not convex, minimised by CCCP).  At
``w = 0`` every score ties and ``J(0) = C R(0)``.  ``w = 0`` is the minimiser
exactly when ``0`` is in the subdifferential of ``R`` at 0, and then no ``C``
moves it (``R`` itself is smallest at 0; the quadratic term only pulls
towards 0):

* the tight pAUC surrogate over ``[0, beta]`` is, at ``w = 0``, a maximum
  over every choice of the ``j_beta`` "top" negatives; its subdifferential is
  ``{mean of the positives - mean of j_beta negatives}`` over all such
  choices, which holds 0 whenever the positives' mean lies among the means
  of ``j_beta`` negatives -- common for narrow windows (the developer guide's
  measurements count how often);
* the AUC surrogate is differentiable at 0 with gradient ``mean(x-) -
  mean(x+)``: ``w = 0`` is its minimiser only when the class means coincide.

Two tests, both needed:

1. **The objective.**  If ``J(w) >= J(0)`` (up to the rounding of evaluating
   ``J``), the fit did not beat ``w = 0``.  When the optimum is exactly 0,
   every ``w`` has ``J(w) >= J(0) + 1/2 ||w||^2``, so this catches it whatever
   the solver returned; a genuine ``w``, however small, has ``J(w) < J(0)``.
   The solver stops within ``C * tol`` of the optimum, so it also fires when
   the optimum's gain over ``w = 0`` is below that accuracy (a small C, or
   tiny features, which act as a smaller C): a smaller ``tol`` or a larger
   ``C`` then finds it.
2. **The master QP's resolution.**  ``w = sum_k lambda_k g_k`` is a sum of cuts
   with ``sum_k lambda_k <= C``, and OSQP solves ``lambda`` to about ``qp_eps``:
   a ``w`` with ``|w| <= 30 qp_eps C sigma`` (``sigma`` the size of a cut in
   the features' units: :func:`spread`) is what is left of cuts that cancel
   -- noise whose direction means nothing.  The factor 30 sits between the
   ``|w| / (C sigma)`` returned where the optimum is exactly 0 and that of
   genuine rankings (the measurements are in the developer guide).  (When
   OSQP cannot reach ``qp_eps`` -- a rough master, which warns -- its
   solutions are rougher than this, and such a ``w`` is kept with the
   warning.)  A ``w`` above it can carry a ranking although it does not beat
   0: it is where the cutting plane stopped, made of the first cuts (a9a's
   narrow windows are the example).

A fit failing test 1 and test 2 is **degenerate**: ``coef_`` is set to exactly
0 and a :class:`~pauc.exceptions.DegenerateSolutionWarning` says what to
change.  So is a fit whose training scores all tie (``coef_ = 0`` itself, or
a ``w`` orthogonal to every difference of rows), whatever the path to it: such
a model ranks nothing, above the master QP's resolution or not (on a9a,
``fpr_range=(0, 0.1)`` at ``C = 1e5``, beyond that resolution, the solver
returned exactly 0).  A fit failing test 1 only keeps its ``w`` and gets the same warning
class, saying that its ranking is not the optimum's.  (A norm threshold alone
could not be used: scaling ``X`` by ``a`` acts as scaling ``C`` by ``a**2``, so
genuine solutions of well-posed problems can be as small, relative to
``C sigma``, as the noise; test 1 protects them.)
"""

import warnings

import numpy as np

from ..exceptions import DegenerateSolutionWarning
from ._dc import hinge_objective, hinge_objective_at_zero
from ._scale import RESOLUTION


def _beats(J_w, J_0, magnitude, n_samples):
    """``J(w) < J(0)`` by more than the rounding of evaluating them: ``magnitude``
    bounds the terms summed into ``J``, a sum of ``n`` terms is exact to about ``n``
    machine epsilons of it."""
    return J_w < J_0 - 4.0 * n_samples * np.finfo(np.float64).eps * magnitude


def compare_with_zero(design, w, problem, C, qp_eps, sigma, *, objective=None, scores=None,
                      hinge=None):
    """Tests 1 and 2 of the module docstring, and the ties:
    ``(beats_zero, below_resolution, all_tied)``.

    ``J(0)`` needs no pass over ``X`` (every score is 0: the search on zero
    scores, :meth:`~pauc.svm._design.InMemoryDesign.risk_at_zero`); ``J(w)`` and
    the scores at ``w`` are those the solver returned (its ``objective_`` and
    ``scores_``), evaluated here only when it did not.

    Parameters
    ----------
    design : InMemoryDesign
        The training rows and labels (:mod:`pauc.svm._design`).
    w : ndarray of shape (d,)
    problem : Problem
        The fit's structural risk (``hinge`` None).
    C, qp_eps : float
    sigma : float
        :func:`~pauc.svm._scale.spread` of the design's rows.
    objective : float or None
        ``J(w)`` as the solver evaluated it.
    scores : ndarray of shape (n_samples,) or None
        ``X @ w``, with ``objective``.
    hinge : (j_alpha, j_beta) or None
        ``surrogate="hinge"`` fits (CCCP): ``J`` is the hinge objective.
    """
    w = np.asarray(w, dtype=np.float64)
    if objective is None or scores is None:
        if hinge is None:
            at_w = design.cut(w, problem)
            objective, scores = 0.5 * float(w @ w) + C * float(at_w.risk), at_w.scores
        else:
            objective, scores = hinge_objective(design, w, *hinge, C), design.scores(w)
    scores = np.asarray(scores, dtype=np.float64).ravel()
    largest = float(np.abs(scores).max(initial=0.0))
    if hinge is None:
        J_0 = C * design.risk_at_zero(problem)
        # the cut's coefficients have l1 norm <= 2 (times the problem's scale),
        # so the terms of scores @ coef sum to at most 2 * scale * max|s|
        magnitude = C * (abs(J_0 / C) + 2.0 * problem.scale * largest)
    else:
        j_alpha, j_beta = hinge
        J_0 = hinge_objective_at_zero(design, j_alpha, j_beta, C)
        # f and g: coefficients of l1 norm <= 2, weights (j_beta + j_alpha) / width
        weight = (j_alpha + j_beta) / (j_beta - j_alpha)
        magnitude = C * weight * (1.0 + 2.0 * largest)
    beats_zero = _beats(objective, J_0, magnitude + 0.5 * float(w @ w), scores.shape[0])
    # (test 2 means nothing when the problem's own scale is below the resolution:
    # the estimator then warns with FeatureScaleWarning and keeps w)
    below_resolution = np.linalg.norm(w) <= RESOLUTION * qp_eps * C * sigma
    all_tied = scores.size == 0 or bool(scores.max() == scores.min())
    return beats_zero, bool(below_resolution), all_tied


def warn_no_better_than_zero(estimator, advice, zeroed, tied=False):
    """The warning of a fit that did not beat ``w = 0``, naming what to change."""
    C, tol = estimator.C, estimator.tol
    if tied:
        what = ("what the solver returned gives every training row the same score: it ranks "
                "nothing; coef_ is set to 0 (degenerate_ = True: every score ties, AUC 0.5).")
    elif zeroed:
        what = ("what the solver returned is below the master QP's resolution: noise whose "
                "ranking means nothing; coef_ is set to 0 (degenerate_ = True: every score "
                "ties, AUC 0.5).")
    else:
        what = ("coef_ is kept (it is above the master QP's resolution), but its ranking is "
                "where the solver stopped, not the optimum's, which is w = 0 or within "
                "C * tol of it (it may still rank well: judge it on held-out data).")
    warnings.warn(
        f"{type(estimator).__name__}: the fitted w does not beat w = 0 on the objective "
        f"1/2 ||w||^2 + C R(w) (C={C:g}); {what} {advice} If instead the optimum's gain "
        f"over w = 0 is below the solver's accuracy (C * tol = {C * tol:.3g}), a smaller "
        "tol or a larger C recovers it.",
        DegenerateSolutionWarning, stacklevel=4)


AUC_ADVICE = ("The AUC surrogate's optimum is w = 0 for every C when the classes' mean "
              "feature vectors coincide: no linear scorer ranks them; try other features, or "
              "a tree or boosting ranker (TreeRank, RankingForest, AUCBoost).")
PAUC_ADVICE = ("When the surrogate's optimum is w = 0 -- common for narrow FPR windows, where "
               "the positives' mean lies among the means of the top negatives -- no C changes "
               "it: widen fpr_range (a larger beta), or use AUCSVM (the full AUC).")
