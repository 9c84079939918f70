"""SVM_AUC and SVM_pAUC as scikit-learn estimators (Narasimhan & Agarwal, 2017).

Both learn a linear scoring function ``f(x) = w.x`` (no intercept: a ranking
does not change when every score is shifted) by minimising

    1/2 ||w||^2 + C * R_struct(w; S)

with the 1-slack cutting-plane method (Algorithm 1) and a most-violated-
constraint search of the loss table (:mod:`pauc._loss`):

* :class:`AUCSVM` -- Joachims' structural surrogate of the full AUC, equal
  to the pairwise hinge surrogate (Section 2.2, Theorem 1);
* :class:`PartialAUCSVM` -- a surrogate of the partial AUC in ``[alpha, beta]``
  named by ``surrogate``: a row of the table (the tight structural surrogate,
  eq. (14) for ``alpha = 0``, Algorithm 2, and eq. (18) otherwise, Algorithm
  3; the naive one of Section 3.2; the hinge one by CCCP, Section 6).

A fit reads its data through a *design* (:mod:`pauc.svm._design`): ``X @ w``
and ``X.T @ coef`` (one pass each per iteration) for an array or a CSR
matrix, used as given, never densified and never copied when already
float64/float32.  Row-chunked dask arrays are handed to :mod:`pauc.distributed`
at one place in ``fit`` and one in ``decision_function`` (see
:mod:`pauc._dispatch`); the rest of the fit -- solver, CCCP, threshold -- is
the same code for both.

References
----------
Narasimhan & Agarwal (2017); Joachims (2005). Full entries in
``docs/references.rst``.
"""

import warnings

import joblib
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from .._base import (BOOLEAN, FPR_RANGE, OPERATING_FPR, POS_LABEL, VERBOSE, BaseRanker, Interval,
                     LossName, Options, Satisfies)
from .._dispatch import chunked, is_chunked
from .._threshold import predict_labels
from .._validation import check_fpr_range, empirical_indices
from ._coarse_to_fine import PROX, solve_coarse_to_fine
from ._cutting_plane import CuttingPlaneSolver
from ._dc import cccp
from ._design import InMemoryDesign
from ._scale import check_feature_scale
from ._surrogates import Problem, surrogate_row
from ._degenerate import AUC_ADVICE, PAUC_ADVICE, compare_with_zero, warn_no_better_than_zero
from ._threads import single_blas_thread

_QP_SOLVERS = ("osqp", "cvxpy")
_METHODS = ("proximal", "cutting_plane")
# Training sets of this many rows or more start from the solution on every 10th
# row (pauc.svm._coarse_to_fine, where the choice is explained).
COARSE_TO_FINE = 100_000


def auc_problem(design):
    """Joachims' AUC problem on the design's rows (the tight surrogate on the full
    window, Theorem 1), None where it is not defined (one class)."""
    return Problem("tight", 0, design.n_neg) if design.defined else None


def window_problem(surrogate, fpr_range, design):
    """The problem of ``surrogate`` on the FPR window ``fpr_range``, its indices
    ``j_alpha = floor(n alpha)``, ``j_beta = ceil(n beta)`` on the design's
    negatives (eq. (2)); None where it is not defined (one class, or a window
    holding no negative)."""
    if not design.defined:
        return None
    try:
        j_alpha, j_beta = empirical_indices(design.n_neg, fpr_range)
    except ValueError:
        return None
    return Problem(surrogate, j_alpha, j_beta)


_POSITIVE = [Interval(float, 0, closed="neither")]


def _check_callable(value):
    if not callable(value):
        raise TypeError("not callable")

# Parameters shared by AUCSVM and PartialAUCSVM.
_SVM_CONSTRAINTS = {
    "C": _POSITIVE,
    "tol": _POSITIVE,
    "max_iter": [Interval(int, 1)],
    "operating_fpr": OPERATING_FPR,
    "solver": [Options(*_QP_SOLVERS)],
    "qp_eps": _POSITIVE,
    "qp_max_iter": [Interval(int, 1)],
    "coarse_to_fine": [Options(None), Interval(int, 2)],
    "method": [Options(*_METHODS)],
    "warm_start": BOOLEAN,
    "verbose": VERBOSE,
    "callback": [Options(None), Satisfies(_check_callable, "a callable")],
    "pos_label": POS_LABEL,
}


def _finite_vector(value):
    w = np.asarray(value, dtype=np.float64)
    if w.ndim != 1 or not np.isfinite(w).all():
        raise ValueError("init must be a finite 1-d array")


class _StructuralSVM(BaseRanker, ClassifierMixin, BaseEstimator):
    """Shared fit / predict of the structural SVMs (not public)."""

    # ------------------------------------------------------------------ fit
    def fit(self, X, y, sample_weight=None):
        """Fit ``coef_`` by Algorithm 1 (or CCCP) with the estimator's surrogate.

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array} of shape (n_samples, n_features)
            A dask array of row chunks is fitted chunk by chunk on the workers
            (:mod:`pauc.distributed`), to the same model.
        y : array-like of shape (n_samples,)
            Two classes; the positive one is ``pos_label`` (``classes_[1]``).
        sample_weight : array-like of shape (n_samples,), default=None
            Row weights (see the class's Notes).

        Returns
        -------
        self
        """
        self._validate_params()
        return self._fit_design(self._training_design(X, y, sample_weight))

    def _fit_design(self, design, sigma=None):
        """``fit`` on validated data: ``design`` (its labels validated, ``classes_`` and
        ``n_features_in_`` set), ``sigma`` the spread of its rows when known (the CV
        estimators validate and measure each fold once for all its values of ``C``)."""
        # in memory: refuse an overflowing feature scale before any work, and
        # flag one the master QP cannot resolve (pauc.svm._scale)
        if isinstance(design, InMemoryDesign):
            self._spread, self._resolvable = check_feature_scale(
                design.X, float(self.C), float(self.qp_eps), type(self).__name__, sigma)
        try:
            with design, single_blas_thread():
                self._fit(design)
        finally:
            self.__dict__.pop("_resolvable", None)
            self.__dict__.pop("_spread", None)
        return self

    # Parameters whose change starts a warm_start fit afresh (with the data): they
    # define the problem or the master QP.  C, tol, max_iter, verbose, method and
    # operating_fpr do not change which cuts are valid.
    _WARM_KEY = ("solver", "qp_eps", "qp_max_iter")

    def _warm_key(self, design):
        """A fingerprint of the training problem (data, labels, weights, the
        ``_WARM_KEY`` parameters): a ``warm_start`` fit reuses the kept solver
        only when it is unchanged.  None for chunked data (never reused)."""
        if not (self.warm_start and isinstance(design, InMemoryDesign)):
            return None
        X = design.X
        # joblib.hash reads every stored value once (md5 of the buffers, like one
        # pass of X @ w): a changed entry, label or weight changes it.
        data = ((X.format, X.shape, X.dtype, X.data, X.indices, X.indptr)
                if hasattr(X, "format") else X)
        params = {name: getattr(self, name) for name in self._WARM_KEY}
        return joblib.hash((type(self).__name__, data, design.is_pos, design.weight,
                            self.classes_, params))

    def _warm_solver(self, design):
        """The solver kept by the last fit and its solution, or (None, None) unless
        ``warm_start`` and the problem is unchanged (:meth:`_warm_key`).  The kept
        solver gets this fit's C, tol, max_iter and verbose."""
        self._fit_key = key = self._warm_key(design)
        kept = self.__dict__.get("_warm")
        if key is None or kept is None or kept["key"] != key:
            self.__dict__.pop("_warm", None)
            return None, None
        solver = kept["solver"]
        solver.set_C(float(self.C))
        solver.tol, solver.max_iter, solver.verbose = float(self.tol), self.max_iter, self.verbose
        solver.callback = self.callback
        solver.warn = True
        self._live_solver = solver
        return solver, kept["w"]

    def _keep_warm(self, solver, w):
        """Keep the solver (its cuts and Gram matrix) and ``w`` for the next
        ``warm_start`` fit; never pickled (:meth:`__getstate__`)."""
        key = self.__dict__.pop("_fit_key", None)
        if key is None:
            self.__dict__.pop("_warm", None)
        else:
            self._warm = {"key": key, "solver": solver, "w": np.array(w, dtype=np.float64)}

    def __getstate__(self):
        # The kept solver holds an OSQP workspace (not picklable) and the cut pool:
        # a pickled or copied estimator starts its next warm_start fit afresh.
        state = super().__getstate__()
        for name in ("_warm", "_fit_key"):
            state.pop(name, None)
        return state

    def _training_design(self, X, y, sample_weight):
        """The design of the training data: validated labels, ``classes_``."""
        if is_chunked(X, y):
            # row-chunked data: a design of pauc.distributed (pauc._dispatch)
            design = chunked("training_design")(X, y, sample_weight, self._set_binary_classes)
            self.n_features_in_ = design.shape[1]
            self.__dict__.pop("feature_names_in_", None)
            return design
        X, is_pos, weight = self._validate_training_data(X, y, sample_weight)
        return InMemoryDesign(X, is_pos, self._pair_weights(weight))

    def _pair_weights(self, weight):
        """The validated row weights as the fit uses them: None for none or a constant
        (it rescales every pair alike and leaves the normalised (p)AUC risk -- hence
        the minimiser -- unchanged); non-uniform ones only where pairs can be weighted."""
        why = None if self._weighted_pairs else (
            "a weighted partial AUC would need the FPR window measured in negative weight, "
            "which the pAUC oracles do not implement")
        return None if self._uniform_weights(weight, why) else weight

    def _new_solver(self, C, tol):
        return CuttingPlaneSolver(C, tol=tol, max_iter=self.max_iter, qp_solver=self.solver,
                                  qp_eps=self.qp_eps, qp_max_iter=self.qp_max_iter,
                                  verbose=self.verbose, callback=self.callback)

    def _solve(self, design, problem_on):
        """Algorithm 1 or the proximal method (``method``), from a coarse-to-fine
        start on large training sets: ``(w, solver, coarse_iter)`` of
        :func:`solve_coarse_to_fine`."""
        C, tol = float(self.C), float(self.tol)
        return solve_coarse_to_fine(design, problem_on, lambda: self._new_solver(C, tol),
                                    self.coarse_to_fine, method=self.method)

    def _fit_convex(self, design, problem_on, operating_fpr):
        """``coef_`` and the solver's attributes by :meth:`_solve` (or from the kept
        solver, ``warm_start``); ``threshold_``."""
        solver, w_prev = self._warm_solver(design)
        if solver is None:
            w, solver, coarse_iter = self._solve(design, problem_on)
        else:
            # warm start: the cuts kept from the last fit, from its solution
            problem, coarse_iter = problem_on(design), []
            if self.method == "proximal":
                w = solver.solve_proximal(design, problem, center=w_prev, mu=PROX,
                                          last_point=True)
            else:
                w = solver.solve(design, problem)
        self._keep_warm(solver, w)
        self.coef_ = w
        self.n_iter_ = solver.n_iter_
        self.converged_ = solver.converged_
        self.history_ = solver.history_
        self.coarse_iter_ = np.asarray(coarse_iter, dtype=np.intp)
        self._finish(design, problem_on(design), operating_fpr, solver.scores_,
                     objective=solver.objective_)

    def _finish(self, design, problem, operating_fpr, scores=None, hinge=None, objective=None):
        """The comparison with ``w = 0`` (in memory), then ``threshold_``.

        ``scores`` and ``objective``: ``X @ coef_`` and ``J(coef_)`` as the solver
        evaluated them (None when it did not); ``problem`` and ``hinge`` as in
        :func:`~pauc.svm._degenerate.compare_with_zero`.
        """
        self.degenerate_ = False
        if isinstance(design, InMemoryDesign) and (problem is not None or hinge is not None):
            if self._zero_if_degenerate(design, problem, hinge, scores, objective):
                scores = None
        elif not self.coef_.any():
            # chunked data: no comparison on the workers, but w = 0 ranks nothing
            self.degenerate_ = True
        self._set_threshold(design, operating_fpr, scores)

    def _zero_if_degenerate(self, design, problem, hinge=None, scores=None, objective=None):
        """Compare the fit with ``w = 0`` (:mod:`pauc.svm._degenerate`): a fit that does
        not beat it warns, and when its ``w`` is also below the master QP's resolution,
        or its training scores all tie, ``coef_`` becomes exactly 0 and ``degenerate_``
        True.  Returns ``degenerate_``."""
        beats_zero, noise, tied = compare_with_zero(
            design, self.coef_, problem, float(self.C), float(self.qp_eps), self._spread,
            objective=objective, scores=scores, hinge=hinge)
        # below the resolution means noise only when the problem itself is
        # resolvable (pauc.svm._scale); otherwise FeatureScaleWarning has said why.
        # Scores that all tie rank nothing, resolvable or not.
        self.degenerate_ = tied or (not beats_zero and noise
                                    and self.__dict__.get("_resolvable", True))
        if self.degenerate_:
            self.coef_ = np.zeros_like(self.coef_)
        if not beats_zero or tied:
            warn_no_better_than_zero(self, self._ADVICE, zeroed=self.degenerate_, tied=tied)
        return self.degenerate_

    def _set_threshold(self, design, operating_fpr, scores=None):
        """``threshold_`` of :meth:`predict` by the package's rule (:mod:`pauc._threshold`).

        A degenerate model (every score 0) predicts the negative class
        everywhere: no threshold on tied scores reaches a training FPR below 1
        but the one above them all (FPR 0, TPR 0).
        """
        if self.degenerate_:
            self.threshold_ = np.inf
            return
        self.threshold_ = design.threshold(self.coef_, operating_fpr, scores=scores)

    # -------------------------------------------------------------- predict
    def decision_function(self, X):
        """Scores ``X @ coef_`` (higher = more likely ``classes_[1]``).

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array} of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,)
            A lazy dask array for a dask ``X``.
        """
        check_is_fitted(self)
        if is_chunked(X):
            # row-chunked X: lazy per-chunk scores (pauc._dispatch)
            return chunked("linear_scores")(X, self.coef_)
        X = self._validate_X(X)
        return np.asarray(X @ self.coef_, dtype=np.float64).ravel()

    def predict(self, X):
        """``classes_[1]`` where ``decision_function(X) >= threshold_``, else ``classes_[0]``."""
        return predict_labels(self.decision_function(X), self.classes_, self.threshold_)


class AUCSVM(_StructuralSVM):
    """SVM_AUC: structural SVM for the full AUC (Joachims [1]_; [2]_, Section 2.2).

    Minimises ``1/2 ||w||^2 + C * R_hinge_AUC(w)``, the pairwise hinge surrogate
    averaged over the ``m * n`` positive-negative pairs (eq. (4)), which equals the
    structural surrogate of eq. (7) (Theorem 1), by the 1-slack cutting-plane
    method (Algorithm 1) with Joachims' O(n log n) most-violated-constraint search.

    Parameters
    ----------
    C : float, default=1.0
        Regularisation constant.  The surrogate is an *average* over pairs, so
        C here is not LinearSVC's C (which multiplies a sum over rows).
    tol : float, default=1e-3
        Stopping tolerance ``epsilon`` of Algorithm 1, line 12: the objective
        of the returned ``w`` is within ``C * tol`` of the optimum.
    max_iter : int, default=1000
        Maximum number of cutting-plane iterations (oracle calls).  The count
        grows like ``C / tol``.
    operating_fpr : float in [0, 1] or None, default=None
        Training false-positive rate at which :meth:`predict` thresholds the
        scores; None picks the threshold maximising TPR - FPR on the training data.
    solver : {"osqp", "cvxpy"}, default="osqp"
        Back end of the master QP (see :mod:`pauc.svm._master`).
    qp_eps : float, default=1e-7
        Absolute and relative tolerance of OSQP on the master QP.  OSQP's
        absolute accuracy scales with ``C**2``: when a fit warns that the
        master's solutions are rough, standardize the features first, then
        lower ``qp_eps`` or raise ``qp_max_iter``.
    qp_max_iter : int, default=20000
        OSQP's iteration limit per master-QP solve.
    coarse_to_fine : int or None, default=100_000
        Training sets with at least this many rows are first fitted on every
        10th row (recursively, while that still has this many rows), and that
        solution is refined on all rows by the proximal cutting-plane method
        around it (:mod:`pauc.svm._coarse_to_fine`).  The result has the same
        guarantee -- objective within ``C * tol`` of the optimum -- at a
        fraction of the work (several times faster at 10^6 rows, see
        ``bench/bench_svm.py``).  None: always ``method`` from ``w = 0``.
    method : {"proximal", "cutting_plane"}, default="proximal"
        How the problem is solved from ``w = 0``.  ``"cutting_plane"`` is
        Algorithm 1 of [2]_ (the paper's method: each iterate minimises the cut
        model alone).  ``"proximal"`` is the same cuts, oracle and master QP
        with the master stabilised around the best point met (Kiwiel's
        proximal bundle method [3]_), stopping when ``J`` there is within
        ``C * tol`` of the master's dual lower bound on ``min J``: the same
        guarantee in a third or less of the iterations at large ``C``
        (``bench/bench_svm.py``; measured: ``docs/developer/measurements.rst``,
        'The proximal method from zero').
    warm_start : bool, default=False
        When True, a refit on the same data (after ``set_params(C=...)``, say)
        keeps the previous fit's cuts and the master's Gram matrix and starts
        from its solution: a cut is valid for every ``C``, so a path over
        ``C`` pays only for the cuts each new ``C`` needs (the CV estimators
        run their paths this way).  Any change of ``X``, ``y``,
        ``sample_weight``, ``pos_label`` or of the master QP's settings
        (a fingerprint of them is compared at each fit) starts afresh; so do
        dask arrays, a cloned or unpickled estimator (the cuts are never
        pickled).  The result carries the same guarantee as a cold fit.
    verbose : int, default=0
        ``1`` prints one line per cutting-plane iteration.
    callback : callable or None, default=None
        Called as ``callback(solver)`` after every cutting-plane iteration
        (lightning's way), with the running
        :class:`~pauc.svm.CuttingPlaneSolver`: ``solver.n_iter_`` is the
        iteration, ``solver.history_`` the record so far.  For progress
        displays (``pauc compare`` draws its progress line with it); the
        return value is ignored.
    pos_label : label, default=None
        The positive class, ranked at the top.  None: 1 (or True) when the
        labels are {0, 1}, {-1, 1} or booleans; other label sets must name it.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    classes_ : ndarray of shape (2,)
        ``[negative label, positive label]``.
    threshold_ : float
        Score threshold of :meth:`predict`.
    n_iter_ : int
        Cutting-plane iterations on all training rows.
    converged_ : bool
    history_ : dict of ndarray
        Per iteration on all rows: violation, xi, primal and dual objective,
        cuts held, seconds in oracle / matvecs / QP (see
        :class:`CuttingPlaneSolver`; after a coarse start, ``violation`` is the
        proximal method's gap over ``C``).
    coarse_iter_ : ndarray of int
        Cutting-plane iterations of each coarse level, coarsest first (empty
        when the fit did not start coarse; see ``coarse_to_fine``).
    degenerate_ : bool
        True when the solution found did not beat ``w = 0`` on the objective
        (the surrogate's optimum is ``w = 0``, or its gain over it is below
        the solver's accuracy) and is below the master QP's resolution
        (rounding noise): ``coef_`` is then exactly 0, every score ties, and
        ``threshold_`` is ``inf`` (:meth:`predict` says ``classes_[0]``
        everywhere).  A :class:`~pauc.exceptions.DegenerateSolutionWarning`
        says what to change; it is also raised, with ``coef_`` kept, when the
        solution does not beat ``w = 0`` but is above that resolution (see
        :mod:`pauc.svm._degenerate`).
    n_features_in_ : int

    Notes
    -----
    With ``sample_weight`` the pair ``(i, j)`` weighs ``w_i w_j`` and the
    surrogate is the weighted mean pairwise hinge loss (normalised by
    ``W+ W-``), so integer weights act as repeated rows.

    A dask array of row chunks as ``X`` (with ``y`` in the same chunks) is
    fitted chunk by chunk on the workers (:mod:`pauc.distributed`), to the
    same model; ``decision_function`` and ``predict`` of a dask ``X`` are
    lazy dask vectors.

    References
    ----------
    .. [1] Joachims, T. "A Support Vector Method for Multivariate Performance
       Measures." ICML 2005.
    .. [2] Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for
       Optimizing the Partial Area Under the ROC Curve." Neural Computation
       29(7), 2017 (arXiv:1605.04337).  Section 2.2, Theorem 1, Algorithm 1.
    .. [3] Kiwiel, K. C. "Proximity control in bundle methods for convex
       nondifferentiable minimization." Mathematical Programming 46, 1990.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from pauc.svm import AUCSVM
    >>> X, y = make_classification(600, n_features=8, weights=[0.8], random_state=0)
    >>> model = AUCSVM(C=10.0).fit(X[:400], y[:400])
    >>> round(model.score(X[400:], y[400:]), 2)      # test AUC
    0.98
    >>> model.converged_, model.degenerate_
    (True, False)
    """

    _parameter_constraints = _SVM_CONSTRAINTS
    _weighted_pairs = True

    def __init__(self, C=1.0, *, tol=1e-3, max_iter=1000, operating_fpr=None, solver="osqp",
                 qp_eps=1e-7, qp_max_iter=20000, coarse_to_fine=COARSE_TO_FINE,
                 method="proximal", warm_start=False, verbose=0, callback=None,
                 pos_label=None):
        self.C = C
        self.tol = tol
        self.max_iter = max_iter
        self.operating_fpr = operating_fpr
        self.solver = solver
        self.qp_eps = qp_eps
        self.qp_max_iter = qp_max_iter
        self.coarse_to_fine = coarse_to_fine
        self.method = method
        self.warm_start = warm_start
        self.verbose = verbose
        self.callback = callback
        self.pos_label = pos_label

    _ADVICE = AUC_ADVICE

    def _fit(self, design):
        """Algorithm 1 with Joachims' AUC search (weighted pairs with ``sample_weight``)."""
        self._fit_convex(design, auc_problem, self.operating_fpr)


class PartialAUCSVM(_StructuralSVM):
    """SVM_pAUC: structural SVM for the partial AUC in ``[alpha, beta]`` ([1]_).

    Minimises ``1/2 ||w||^2 + C * R_struct(w)`` by the 1-slack cutting-plane
    method (Algorithm 1), where ``R_struct`` is

    * ``surrogate="tight"``: the tight structural surrogate -- eq. (14) for
      ``alpha = 0`` (equal to the hinge surrogate over the top ``j_beta``
      negatives, Theorem 5; oracle: Algorithm 2) and eq. (18) for ``alpha > 0``
      (bounded by Theorem 7; oracle: Algorithm 3);
    * ``surrogate="naive"``: the naive structural surrogate of Section 3.2
      (eq. (11)), looser; offered to compare;
    * ``surrogate="hinge"``: the pairwise hinge surrogate over the window's
      negatives (eq. (9)), SVM_pAUC^dc.  For ``j_alpha = 0`` it is convex and
      equal to ``"tight"`` (Theorem 5), and that solver is used.  For
      ``j_alpha > 0`` it is not convex (Theorem 2) and is minimised by the
      concave-convex procedure (Algorithm 4, :mod:`pauc.svm._dc`), which
      reaches a local minimum; its outer objective is in ``dc_history_``.
      Each step's convex problem is solved by the cutting-plane method in its
      proximal form around the current point
      (:meth:`~pauc.svm._cutting_plane.CuttingPlaneSolver.solve_proximal`),
      keeping the cuts of ``f`` from step to step.

    ``j_alpha = floor(n alpha)`` and ``j_beta = ceil(n beta)`` over the ``n``
    training negatives (eq. (2)).

    Parameters
    ----------
    fpr_range : (float, float), default=(0.0, 0.1)
        The FPR window ``(alpha, beta)``, ``0 <= alpha < beta <= 1``.
    C : float, default=1.0
        Regularisation constant (the surrogate is normalised by ``m (j_beta - j_alpha)``).
    surrogate : {"tight", "naive", "hinge"}, default="tight"
    tol : float, default=1e-3
        Stopping tolerance of Algorithm 1, line 12.
    max_iter : int, default=1000
        Maximum number of cutting-plane iterations.
    operating_fpr : float in [0, 1] or None, default=None
        Training FPR at which :meth:`predict` thresholds; None means ``beta``
        ([1]_, Section 8.3: pAUC maximisation for TPR at a fixed FPR).
    solver : {"osqp", "cvxpy"}, default="osqp"
        Back end of the master QP.
    qp_eps, qp_max_iter : float, int, default=1e-7, 20000
        OSQP's tolerance and iteration limit on the master QP, as in
        :class:`AUCSVM`.
    coarse_to_fine : int or None, default=100_000
        As in :class:`AUCSVM`; each level takes the window's indices on its own
        negatives.  With ``surrogate="hinge"`` it applies to the
        ``init="tight"`` start; the CCCP steps run on all rows.
    method : {"proximal", "cutting_plane"}, default="proximal"
        As in :class:`AUCSVM` (``"cutting_plane"``: Algorithm 1).  With
        ``surrogate="hinge"`` it solves the ``init="tight"`` start; the CCCP
        steps are always proximal.
    warm_start : bool, default=False
        As in :class:`AUCSVM`; a change of ``fpr_range``, ``surrogate`` or
        ``init`` also starts afresh.  With ``surrogate="hinge"`` the refit's
        CCCP starts from the previous solution (not from ``init``) with the
        cuts of ``f`` kept.
    verbose, callback : as in :class:`AUCSVM`.
    dc_tol : float, default=1e-3
        ``surrogate="hinge"`` only: stop Algorithm 4 when an outer step
        decreases ``1/2 ||w||^2 + C R_hinge(w)`` by at most ``dc_tol`` times
        ``max(1, |objective|)`` (the tau of line 11).
    dc_max_iter : int, default=50
        ``surrogate="hinge"`` only: maximum number of outer (CCCP) steps.
    init : {"tight", "zeros"} or array of shape (n_features,), default="tight"
        ``surrogate="hinge"`` only: the starting point of Algorithm 4 -- the
        tight SVM_pAUC solution for the same window (a good convex start),
        zero, or a given vector.  Zero can be a poor start: every score ties
        there, f and g may share a subgradient, and CCCP can stall at 0.
    pos_label : label, default=None
        As in :class:`AUCSVM`.

    Attributes
    ----------
    coef_, classes_, threshold_, n_iter_, converged_, history_, coarse_iter_, n_features_in_
        As in :class:`AUCSVM`.
    degenerate_ : bool
        As in :class:`AUCSVM`; more frequent here: for narrow windows the
        tight surrogate is often smallest at ``w = 0``, whatever ``C``.
    j_alpha_, j_beta_ : int
        Empirical indices of the window on the training negatives.
    dc_history_ : ndarray or None
        ``surrogate="hinge"`` only: the outer objective ``1/2 ||w||^2 +
        C R_hinge(w)`` at the start and after each CCCP step, non-increasing:
        a step whose inexact convex solve (within ``C * tol`` of its optimum)
        ends higher is not taken, and CCCP stops there.  None for the other
        surrogates.
    dc_inner_iter_ : ndarray of int or None
        ``surrogate="hinge"`` only: cutting-plane iterations of each CCCP
        step (``dc_inner_iter_[t]`` solves the convex problem of step
        ``t + 1``; the ``init="tight"`` solve is not counted).  Later steps
        reuse the cuts of ``f`` and need few iterations; ``n_iter_`` is the
        sum.  None for the other surrogates.  (``history_`` is then that of
        the last step's proximal solve, whose ``violation`` is its gap over
        ``C``: see ``CuttingPlaneSolver.solve_proximal``.)

    Notes
    -----
    ``sample_weight`` must be None or constant: a weighted partial AUC would
    need the window ``[alpha, beta]`` measured in negative weight, which the
    oracles do not implement.

    The surrogates are the rows of the loss table (``pauc._loss``) with a
    structural cut: its ``solver`` column says which are solved by CCCP, its
    ``chunked`` column which a dask ``X`` can fit (not ``"naive"``).

    References
    ----------
    .. [1] Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for
       Optimizing the Partial Area Under the ROC Curve." Neural Computation
       29(7), 2017 (arXiv:1605.04337).  Sections 3-6, Algorithms 1-4.
    .. [2] Kiwiel, K. C. "Proximity control in bundle methods for convex
       nondifferentiable minimization." Mathematical Programming 46, 1990
       (the proximal solves of the CCCP steps).

    Examples
    --------
    The tight surrogate of the FPR window [0, 0.1] (Algorithm 2), and the pairwise
    hinge over the window [0.02, 0.2] by CCCP (Algorithm 4):

    >>> from sklearn.datasets import make_classification
    >>> from pauc.svm import PartialAUCSVM
    >>> X, y = make_classification(600, n_features=8, weights=[0.8], random_state=0)
    >>> model = PartialAUCSVM((0.0, 0.1), C=10.0).fit(X[:400], y[:400])
    >>> model.j_alpha_, model.j_beta_                 # the window's negative positions
    (0, 32)
    >>> round(model.score(X[400:], y[400:]), 2)      # test pAUC over [0, 0.1]
    0.91
    >>> hinge = PartialAUCSVM((0.02, 0.2), C=10.0, surrogate="hinge").fit(X[:400], y[:400])
    >>> round(hinge.score(X[400:], y[400:]), 2)
    0.92
    """

    _parameter_constraints = {
        **_SVM_CONSTRAINTS,
        "fpr_range": FPR_RANGE,
        "surrogate": [LossName("cut", any_row=True)],
        "dc_tol": _POSITIVE,
        "dc_max_iter": [Interval(int, 1)],
        "init": [Options("tight", "zeros"), Satisfies(_finite_vector, "a finite 1-d array")],
    }
    _weighted_pairs = False
    _WARM_KEY = _StructuralSVM._WARM_KEY + ("fpr_range", "surrogate", "init")

    def __init__(self, fpr_range=(0.0, 0.1), *, C=1.0, surrogate="tight", tol=1e-3,
                 max_iter=1000, operating_fpr=None, solver="osqp", qp_eps=1e-7,
                 qp_max_iter=20000, coarse_to_fine=COARSE_TO_FINE, method="proximal",
                 warm_start=False, verbose=0, callback=None, dc_tol=1e-3, dc_max_iter=50,
                 init="tight", pos_label=None):
        self.fpr_range = fpr_range
        self.C = C
        self.surrogate = surrogate
        self.tol = tol
        self.max_iter = max_iter
        self.operating_fpr = operating_fpr
        self.solver = solver
        self.qp_eps = qp_eps
        self.qp_max_iter = qp_max_iter
        self.coarse_to_fine = coarse_to_fine
        self.method = method
        self.warm_start = warm_start
        self.verbose = verbose
        self.callback = callback
        self.dc_tol = dc_tol
        self.dc_max_iter = dc_max_iter
        self.init = init
        self.pos_label = pos_label

    _ADVICE = PAUC_ADVICE

    def _fit(self, design):
        """Algorithm 1 with the surrogate's search, or CCCP (Algorithm 4) where the
        loss table says so and the window does not start at 0."""
        row = surrogate_row(self.surrogate)
        fpr_range = check_fpr_range(self.fpr_range)
        self.j_alpha_, self.j_beta_ = empirical_indices(design.n_neg, fpr_range)
        operating = fpr_range[1] if self.operating_fpr is None else self.operating_fpr
        self.dc_history_ = self.dc_inner_iter_ = None
        if row.solver == "cccp" and self.j_alpha_ > 0:
            self._fit_dc(design, fpr_range, operating)
        else:
            self._fit_convex(design, lambda level: window_problem(row.name, fpr_range, level),
                             operating)

    def _initial_weights(self, design, fpr_range):
        """``w0`` of Algorithm 4 from ``init``."""
        if isinstance(self.init, str):
            if self.init == "tight":
                # the convex tight surrogate on the same window (a row of the table)
                w, _, coarse_iter = self._solve(
                    design, lambda level: window_problem("tight", fpr_range, level))
                self.coarse_iter_ = np.asarray(coarse_iter, dtype=np.intp)
                return w
            return np.zeros(design.shape[1])     # "zeros" (validate_params allows no other)
        w0 = np.asarray(self.init, dtype=np.float64)
        if w0.shape != (design.shape[1],):
            raise ValueError(f"init must have shape ({design.shape[1]},) (one weight per "
                             f"feature), got shape {w0.shape}")
        return w0

    def _fit_dc(self, design, fpr_range, operating_fpr):
        """Algorithm 4 (CCCP) from ``init``; one cutting-plane solver keeps f's cuts."""
        self.coarse_iter_ = np.empty(0, dtype=np.intp)
        solver, w0 = self._warm_solver(design)
        if solver is None:
            w0 = self._initial_weights(design, fpr_range)
            solver = self._new_solver(float(self.C), float(self.tol))
        w, steps, converged, scores = cccp(
            design, self.j_alpha_, self.j_beta_, solver, w0, dc_tol=float(self.dc_tol),
            dc_max_iter=self.dc_max_iter, verbose=self.verbose, return_scores=True)
        self._keep_warm(solver, w)
        self.coef_ = w
        self.n_iter_ = sum(step["inner_iter"] for step in steps)
        self.converged_ = converged and all(step["inner_converged"] for step in steps)
        self.history_ = solver.history_
        self.dc_history_ = np.array([step["objective"] for step in steps])
        # steps[0] is the starting point (no solve); one count per outer step after it.
        self.dc_inner_iter_ = np.array([step["inner_iter"] for step in steps[1:]], dtype=np.intp)
        self._finish(design, None, operating_fpr, scores, hinge=(self.j_alpha_, self.j_beta_),
                     objective=float(steps[-1]["objective"]))
        if not converged and not solver.stalled_:     # (a stalled solver has warned)
            warnings.warn(
                f"the concave-convex procedure did not converge in dc_max_iter="
                f"{self.dc_max_iter} outer steps (last decrease "
                f"{self.dc_history_[-2] - self.dc_history_[-1]:.3g}); increase dc_max_iter "
                "or dc_tol", ConvergenceWarning, stacklevel=4)
