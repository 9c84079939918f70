"""Coarse-to-fine start of the cutting-plane method (ours, not in Narasimhan & Agarwal).

Every iteration of Algorithm 1 of Narasimhan & Agarwal costs two passes over
``X`` and a sort
of the scores, and from ``w = 0`` it needs about as many iterations at 10^6
rows as at 10^5.  Yet the problem on every 10th row has nearly the same
minimiser: the objective ``1/2 ||w||^2 + C R(w)`` averages over pairs, so its
data term is an estimate of the same population risk.  So on a large
training set the fit

1. solves the same problem on every ``STRIDE``-th row (itself this way while
   that level still has ``min_rows`` rows or more);
2. refines on all rows by the proximal cutting-plane method centred at that
   solution (:meth:`CuttingPlaneSolver.solve_proximal`, with ``mu = PROX``).

Step 2 stops on the proximal method's certificate -- ``J(w)`` within
``C * tol`` of a lower bound on ``min J`` from the master's dual (weak
duality) -- so the result carries Algorithm 1's guarantee however poor the
coarse start was; the start only changes the work.  A cut at a point near
the optimum nearly certifies it alone: at 10^6 rows the refinement ends in a
few iterations from the 10^5-row solution.  A refinement that runs as long
as Algorithm 1 took from zero on the coarsest level hands over to Algorithm 1
and its own stopping test (:func:`_refine`: badly scaled features).

The default threshold (``coarse_to_fine=100_000`` rows) and ``PROX`` were
chosen on the measurements of ``bench/bench_svm.py`` (the coarse-to-fine
rows; the developer guide keeps the table, 'The coarse-to-fine start'): below
10^5 rows a tenth of the data is a different enough problem (a few thousand rows,
a few dozen negatives in a narrow window) that the refinement took longer than
Algorithm 1 from zero.

The levels are the designs of every ``STRIDE**k``-th row
(``design.rows(slice)``): a view of a dense ``X`` (no copy; a pass over every
10th row of a dense array still costs a large share of a full pass, the rows
being read a cache line or more at a time: measured in the same section), a
small copy of a CSR one.  The
chain starts after the last level on which the problem is not defined (one
class, or an empty FPR window).  Designs without row subsets (the chunked
ones) run on all rows only.

References
----------
Narasimhan & Agarwal (2017), Algorithm 1; the proximal refinement is Kiwiel's
(1990). Full entries in ``docs/references.rst``.
"""

import numpy as np

# Each level keeps every STRIDE-th row of the level above.
STRIDE = 10
# Weight of the proximal term of the refinements (relative to 1/2 ||w||^2; shrunk
# by solve_proximal after well-predicted steps); mu = 1 was slower on most of the
# measured problems (developer guide, "Measurements behind the defaults").
PROX = 10.0
# Weight of the proximal term of a solve from w = 0 (method="proximal"), relative
# to 1/2 ||w||^2 and shrunk by solve_proximal after well-predicted steps.  From 0 the
# proximal method took far fewer iterations than Algorithm 1 at large C, with the
# same certificate (J - lower bound <= C tol); mu = 100 and 300 alike, 10 behind
# (measured: docs/developer/measurements.rst, 'The proximal method from zero').
PROX_FROM_ZERO = 100.0
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


def solve_coarse_to_fine(design, problem_on, new_solver, min_rows, *, stride=STRIDE,
                         mu=PROX, method="cutting_plane"):
    """Minimise the structural SVM objective from a coarse-to-fine start.

    Parameters
    ----------
    design : Design
        The training rows (:mod:`pauc.svm._design`).
    problem_on : callable
        ``problem_on(level)`` with ``level`` the design of some of the rows:
        the problem to solve there (a
        :class:`~pauc.svm._surrogates.Problem`, its FPR window computed on
        that level's negatives), or None if it is not defined there (the
        chain then starts at the next finer level).
    new_solver : callable
        ``new_solver()`` -> a fresh :class:`CuttingPlaneSolver` (one per level).
    min_rows : int or None
        Levels with at least this many rows are solved on every ``stride``-th
        row first; None (or a design without row subsets): Algorithm 1 on all
        rows, from zero.
    method : {"cutting_plane", "proximal"}
        How the first level is solved from ``w = 0``: Algorithm 1
        (:meth:`CuttingPlaneSolver.solve`) or the proximal cutting-plane method
        centred at 0 (:meth:`CuttingPlaneSolver.solve_proximal`, ``mu =
        PROX_FROM_ZERO``), which stops on the same guarantee in fewer
        iterations.

    Returns
    -------
    w : ndarray of shape (d,)
    solver : CuttingPlaneSolver
        The solver of the last level (all rows): its ``n_iter_``,
        ``converged_``, ``history_`` and ``scores_`` describe the final solve.
    coarse_iter : list of int
        Cutting-plane iterations of each coarser level, coarsest first.
    """
    if not design.row_subsets:
        min_rows = None
    # (the last level is the design itself: X[:] would copy a CSR matrix)
    levels = [design.rows(rows) for rows in coarse_levels(design.shape[0], min_rows, stride)[:-1]]
    levels.append(design)
    problems = [problem_on(level) for level in levels]
    # the chain starts after the last level on which the problem is not defined
    first = max((k + 1 for k, problem in enumerate(problems) if problem is None), default=0)
    if first == len(levels):
        raise ValueError("the problem is not defined on the training rows")
    w, coarse_iter, budget = None, [], None
    for k in range(first, len(levels)):
        last = k == len(levels) - 1
        solver = new_solver()
        # A coarse level that stops early only gives a worse start: the user hears
        # about the last level.  (A flag, not a warnings filter: filters are
        # process-wide and would hide the warnings of fits in other threads.)
        solver.warn = last
        if w is None:
            w = solve_from_zero(solver, levels[k], problems[k], method)
            budget = max(solver.n_iter_, MIN_BUDGET)
        else:
            w = _refine(solver, levels[k], problems[k], w, mu, budget)
        if not last:
            coarse_iter.append(solver.n_iter_)
    return w, solver, coarse_iter


def solve_from_zero(solver, design, problem, method):
    """``solver`` from ``w = 0`` by ``method`` ("cutting_plane": Algorithm 1;
    "proximal": the proximal method centred at 0, same guarantee)."""
    if method == "proximal":
        return solver.solve_proximal(design, problem, center=np.zeros(design.shape[1]),
                                     mu=PROX_FROM_ZERO, last_point=True)
    return solver.solve(design, problem)


def _refine(solver, design, problem, center, mu, budget):
    """The proximal solve around ``center``; after ``budget`` iterations without
    its certificate, Algorithm 1 takes over from the cuts collected (the solver's
    ``handoff``).

    From a good start the refinement needs a few iterations; when it needs as
    many as Algorithm 1 took from zero on the coarsest level, the start did not
    help -- typically OSQP's master solutions are rough (features on very
    different scales) and keep the bound from closing
    (``tests/svm/test_coarse_to_fine.py`` has such a case).  Algorithm 1's own
    test then ends the solve, with its warning about the rough master.
    ``n_iter_`` and ``history_`` cover both parts.
    """
    return solver.solve_proximal(design, problem, center=center, mu=mu, handoff=budget)
