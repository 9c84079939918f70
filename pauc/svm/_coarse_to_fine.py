"""Coarse-to-fine start of the cutting-plane method (ours, not in paper 002).

Every iteration of Algorithm 1 costs two passes over ``X`` and a sort of the
scores, and from ``w = 0`` it needs about as many iterations at 10^6 rows as
at 10^5 (10 and 10 on the dense benchmark set at C = 10; 299 and 362 for the
[0.02, 0.05] tight surrogate at C = 100).  Yet the problem on every 10th row
has nearly the same minimiser: the objective ``1/2 ||w||^2 + C R(w)`` averages
over pairs, so its data term is an estimate of the same population risk.  So
on a large training set the fit

1. solves the same problem on every ``STRIDE``-th row (itself this way while
   that level still has ``min_rows`` rows or more);
2. refines on all rows by the proximal cutting-plane method centred at that
   solution (:meth:`CuttingPlaneSolver.solve_proximal`, with ``mu = PROX``).

Step 2 stops on the proximal method's certificate -- ``J(w)`` within
``C * tol`` of a lower bound on ``min J`` from the master's dual (weak
duality) -- so the result carries Algorithm 1's guarantee however poor the
coarse start was; the start only changes the work.  A cut at a point near
the optimum nearly certifies it alone: at 10^6 rows the refinement ends in 1
to 3 iterations from the 10^5-row solution.  A refinement that runs as long
as Algorithm 1 took from zero on the coarsest level hands over to Algorithm 1
and its own stopping test (:func:`_refine`: badly scaled features).

Fit seconds, Algorithm 1 from zero -> coarse-to-fine with ``mu = PROX``
(dense Gaussian data of ``bench/_oracle_timing.synthetic_dense``, d = 20,
tol = 1e-3, best of two; measured when this was written):

===========================  ==============  ============
problem                      n = 10^5        n = 10^6
===========================  ==============  ============
AUC, C = 10                  0.035 -> 0.022  0.56 -> 0.14
AUC, C = 100                 0.075 -> 0.039  1.02 -> 0.20
pAUC [0.02, 0.05], C = 100   1.38 -> 0.63    14.4 -> 1.8
pAUC [0, 0.1], C = 100       0.41 -> 0.18    6.3 -> 0.58
===========================  ==============  ============

Below 10^5 rows it is off by default: on a9a (32,561 rows) the tenth has
3,256 rows and only about 75 negatives in the [0.02, 0.05] window, a
different enough problem that the refinement took longer than Algorithm 1
from zero (0.83 s against 0.44 s at C = 100).

The levels are every ``STRIDE**k``-th row: a view of a dense ``X`` (no
copy; a pass over every 10th row of a 10^6 x 20 array still costs about 40%
of a full pass, the rows being read a cache line or more at a time), a small
copy of a CSR one.  The chain starts after the last level on
which the problem is not defined (one class, or an empty FPR window).
"""

import numpy as np

# Each level keeps every STRIDE-th row of the level above.
STRIDE = 10
# Weight of the proximal term of the refinements (relative to 1/2 ||w||^2; shrunk
# by solve_proximal after well-predicted steps).  On the table above mu = 1 took
# 1.5-3x longer at C = 100 (the pAUC refinements of 10^6 rows: 97-254 iterations
# against 25-59) and was 1.6x faster only on AUC, C = 10 (0.08 s against 0.14 s).
PROX = 10.0
# A refinement gets as many iterations as Algorithm 1 took from zero on the
# coarsest level (at least this many) before Algorithm 1 takes over (_refine).
MIN_BUDGET = 10


def coarse_levels(n_rows, min_rows, stride=STRIDE):
    """The row slices of the chain, coarsest first, ending with all rows.

    A level with ``min_rows`` rows or more is solved first on every
    ``stride``-th of its rows.  ``min_rows=None`` means one level, all rows.
    """
    levels = [slice(None)]
    size, step = n_rows, 1
    # (a coarser level keeps at least two rows)
    while min_rows is not None and size >= max(min_rows, 2 * stride):
        step *= stride
        levels.append(slice(None, None, step))
        size = len(range(0, n_rows, step))
    return levels[::-1]


def solve_coarse_to_fine(X, oracle_for, new_solver, min_rows, *, stride=STRIDE, mu=PROX):
    """Minimise the structural SVM objective from a coarse-to-fine start.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n_samples, d)
    oracle_for : callable
        ``oracle_for(rows)`` with ``rows`` a slice of the training rows: the
        oracle of the same problem on ``X[rows]`` (its labels, weights and FPR
        window computed on those rows), or None if the problem is not defined
        there (the chain then starts at the next finer level).
    new_solver : callable
        ``new_solver()`` -> a fresh :class:`CuttingPlaneSolver` (one per level).
    min_rows : int or None
        Levels with at least this many rows are solved on every ``stride``-th
        row first; None: Algorithm 1 on all rows, from zero.

    Returns
    -------
    w : ndarray of shape (d,)
    solver : CuttingPlaneSolver
        The solver of the last level (all rows): its ``n_iter_``,
        ``converged_``, ``history_`` and ``scores_`` describe the final solve.
    coarse_iter : list of int
        Cutting-plane iterations of each coarser level, coarsest first.
    """
    levels = [rows for rows in coarse_levels(X.shape[0], min_rows, stride)]
    oracles = [oracle_for(rows) for rows in levels]
    # the chain starts after the last level on which the problem is not defined
    first = max((k + 1 for k, oracle in enumerate(oracles) if oracle is None), default=0)
    if first == len(levels):
        raise ValueError("the problem is not defined on the training rows")
    w, coarse_iter, budget = None, [], None
    for k in range(first, len(levels)):
        last = k == len(levels) - 1
        X_level = X if last else X[levels[k]]     # (X[:] would copy a CSR matrix)
        solver = new_solver()
        # A coarse level that stops early only gives a worse start: the user hears
        # about the last level.  (A flag, not a warnings filter: filters are
        # process-wide and would hide the warnings of fits in other threads.)
        solver.warn = last
        if w is None:
            w = solver.solve(X_level, oracles[k])
            budget = max(solver.n_iter_, MIN_BUDGET)
        else:
            w = _refine(solver, X_level, oracles[k], w, mu, budget)
        if not last:
            coarse_iter.append(solver.n_iter_)
    return w, solver, coarse_iter


def _refine(solver, X, oracle, center, mu, budget):
    """The proximal solve around ``center``; after ``budget`` iterations without
    its certificate, Algorithm 1 takes over from the cuts collected.

    From a good start the refinement needs a few iterations; when it needs as
    many as Algorithm 1 took from zero on the coarsest level, the start did not
    help -- typically OSQP's master solutions are rough (features on very
    different scales) and keep the bound from closing.  On five features
    scaled from 1e-3 to 1e3 (``AUCSVM(C=1, coarse_to_fine=20)``, 1000 rows)
    the proximal solves of the 100-row level and of all rows ran 92 and 60
    iterations, where Algorithm 1 from zero takes 13 on all rows; with the
    hand-over, 18 and 13.  Algorithm 1's own test then ends the solve, with its
    warning about the rough master.  ``n_iter_`` and ``history_`` cover both
    parts.
    """
    if budget >= solver.max_iter:
        return solver.solve_proximal(X, oracle, center=center, mu=mu)
    warn, solver.warn = solver.warn, False
    try:
        w = solver.solve_proximal(X, oracle, center=center, mu=mu, max_iter=budget)
    finally:
        solver.warn = warn
    if solver.converged_:
        return w
    proximal_iter, proximal_history = solver.n_iter_, solver.history_
    max_iter, solver.max_iter = solver.max_iter, solver.max_iter - proximal_iter
    try:
        w = solver.solve(X, oracle)
    finally:
        solver.max_iter = max_iter
    solver.n_iter_ += proximal_iter
    solver.history_ = {name: np.concatenate([proximal_history[name], values])
                       for name, values in solver.history_.items()}
    return w
