"""SVM_AUC and SVM_pAUC as scikit-learn estimators (Narasimhan & Agarwal, paper 002).

Both learn a linear scoring function ``f(x) = w.x`` (no intercept: a ranking
does not change when every score is shifted) by minimising

    1/2 ||w||^2 + C * R_struct(w; S)

with the 1-slack cutting-plane method (Algorithm 1) and a most-violated-
constraint oracle from :mod:`pauc.svm.oracles`:

* :class:`AUCSVM` -- Joachims' structural surrogate of the full AUC, equal to the
  pairwise hinge surrogate (Section 2.2, Theorem 1);
* :class:`PartialAUCSVM` -- the tight structural surrogate of the partial AUC in
  ``[alpha, beta]`` (eq. (14) for ``alpha = 0``, Algorithm 2; eq. (18) otherwise,
  Algorithm 3), or the naive structural surrogate of Section 3.2.

The estimators read ``X`` only through ``X @ w`` and ``X.T @ coef`` (one pass
each per iteration), so dense arrays and CSR matrices are used as given,
never densified and never copied when already float64/float32.
"""

import numbers
import warnings
from contextlib import contextmanager
from functools import partial

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from .._base import BinaryRankerMixin
from .._dask import is_dask_array
from .._threshold import operating_threshold
from .. import metrics
from .._validation import (_classes, check_fpr_range, check_int, check_positive_scalar,
                           empirical_indices)
from . import oracles
from ._coarse_to_fine import solve_coarse_to_fine
from ._cutting_plane import CuttingPlaneSolver
from ._dc import cccp
from ._threads import single_blas_thread

_QP_SOLVERS = ("osqp", "cvxpy")
# Training sets of this many rows or more start from the solution on every 10th
# row (pauc.svm._coarse_to_fine, where the choice is measured).
COARSE_TO_FINE = 100_000


def _pauc_oracle(surrogate, is_pos, j_alpha, j_beta):
    """The one place that maps a surrogate name to its most-violated-constraint search.

    The non-convex ``"hinge"`` surrogate of Section 6 equals ``"tight"`` when
    ``j_alpha = 0`` (Theorem 5) and is otherwise solved by DC programming
    (:func:`pauc.svm._dc.cccp`), which builds its oracles from the tight one.
    """
    search = {"tight": oracles.pauc_tight_oracle,
              "naive": oracles.pauc_naive_oracle,
              "hinge": oracles.pauc_tight_oracle}[surrogate]
    return lambda scores: search(scores, is_pos, j_alpha, j_beta)


def _auc_oracle_on(is_pos, weight, rows):
    """The AUC oracle of the rows ``rows`` (a slice), None if they hold one class."""
    is_pos = np.ascontiguousarray(is_pos[rows])
    if weight is not None:
        weight = np.ascontiguousarray(weight[rows])
        defined = weight[is_pos].sum() > 0 and weight[~is_pos].sum() > 0
    else:
        defined = 0 < np.count_nonzero(is_pos) < is_pos.size
    if not defined:
        return None
    return lambda scores: oracles.auc_oracle(scores, is_pos, sample_weight=weight)


def _pauc_oracle_on(surrogate, is_pos, fpr_range, rows):
    """The oracle of the rows ``rows`` (a slice), with the FPR window's indices on
    their negatives; None if they hold one class or the window no negative."""
    is_pos = np.ascontiguousarray(is_pos[rows])
    n_neg = is_pos.size - np.count_nonzero(is_pos)
    if n_neg == is_pos.size or n_neg == 0:
        return None
    try:
        j_alpha, j_beta = empirical_indices(n_neg, fpr_range)
    except ValueError:
        return None
    return _pauc_oracle(surrogate, is_pos, j_alpha, j_beta)


class _StructuralSVM(BinaryRankerMixin, ClassifierMixin, BaseEstimator):
    """Shared fit / predict of the structural SVMs (not public)."""

    # -------------------------------------------------------------- checks
    def _check_common_params(self):
        C = check_positive_scalar(self.C, "C")
        tol = check_positive_scalar(self.tol, "tol")
        check_int(self.max_iter, "max_iter", 1)
        if self.coarse_to_fine is not None:
            check_int(self.coarse_to_fine, "coarse_to_fine", 2)
        if self.solver not in _QP_SOLVERS:
            raise ValueError(f"solver must be one of {_QP_SOLVERS}, got {self.solver!r}")
        check_positive_scalar(self.qp_eps, "qp_eps")
        check_int(self.qp_max_iter, "qp_max_iter", 1)
        if self.operating_fpr is not None:
            f = self.operating_fpr
            if (not isinstance(f, numbers.Real) or isinstance(f, bool)
                    or not 0.0 <= f <= 1.0):
                raise ValueError(f"operating_fpr must be None or a number in [0, 1], got {f!r}")
        return C, tol

    def _validate_training_data(self, X, y, sample_weight, weighted_pairs=False):
        X, y = validate_data(self, X, y, accept_sparse="csr",
                             dtype=[np.float64, np.float32], y_numeric=False)
        # _classes finds numeric labels with min/max and one pass (np.unique
        # sorts: at 10^6 rows it cost half an iteration of the solver);
        # scikit-learn's checker gives its usual error for anything unusual.
        self.classes_ = _classes(y)
        if self.classes_.shape[0] > 2 or y.dtype.kind not in "biu":
            if not (y.dtype.kind == "f" and self.classes_.shape[0] <= 2
                    and np.all(self.classes_ == np.floor(self.classes_))):
                check_classification_targets(y)
        if self.classes_.shape[0] < 2:
            raise ValueError(
                f"y holds only one class ({self.classes_.tolist()}); ranking needs both "
                "positives and negatives")
        if self.classes_.shape[0] > 2:
            raise ValueError(
                f"Only binary classification is supported. y takes {self.classes_.shape[0]} "
                f"values; {type(self).__name__} is a binary ranker (positive class = the "
                "larger label, classes_[1])")
        is_pos = y == self.classes_[1]
        weight = None
        if sample_weight is not None:
            weight = _check_sample_weight(sample_weight, X, dtype=np.float64)
            if weight[is_pos].sum() <= 0 or weight[~is_pos].sum() <= 0:
                raise ValueError("sample_weight gives one class a total weight of zero; "
                                 "ranking needs both classes")
            # A constant weight rescales every pair alike and leaves the
            # normalised (p)AUC risk -- hence the minimiser -- unchanged.
            uniform = weight.size and weight[0] > 0 and np.all(weight == weight[0])
            if uniform:
                weight = None
            elif not weighted_pairs:
                raise NotImplementedError(
                    f"{type(self).__name__} does not support non-uniform sample_weight: a "
                    "weighted partial AUC would need the FPR window measured in negative "
                    "weight, which the pAUC oracles do not implement. Resample the rows "
                    "instead, or pass sample_weight=None.")
        return X, is_pos, weight

    # ------------------------------------------------------------------ fit
    def _new_solver(self, C, tol):
        solver = CuttingPlaneSolver(C, tol=tol, max_iter=self.max_iter, qp_solver=self.solver,
                                    qp_eps=self.qp_eps, qp_max_iter=self.qp_max_iter,
                                    verbose=self.verbose)
        self._live_solver = solver      # read by ``current_iteration`` while fit runs
        return solver

    @contextmanager
    def _fitting(self):
        """Forget the running solver when fit ends: a fitted estimator keeps
        no solver (whose OSQP workspace would not pickle)."""
        try:
            yield
        finally:
            self.__dict__.pop("_live_solver", None)

    @property
    def current_iteration(self):
        """Cutting-plane iteration of the solver running now, None outside ``fit``.

        Meant for progress displays that poll the estimator from another
        thread (``pauc compare``); the iteration counts restart with each
        solve (the DC method runs one solve per outer step).
        """
        solver = self.__dict__.get("_live_solver")
        return None if solver is None else getattr(solver, "n_iter_", None)

    def _solve(self, X, oracle_for, C, tol, coarse=True):
        """Algorithm 1, from a coarse-to-fine start on large training sets:
        ``(w, solver, coarse_iter)`` of :func:`solve_coarse_to_fine`.

        ``oracle_for(rows)`` gives the oracle of the problem on ``X[rows]``
        (None where it is not defined); ``coarse=False`` solves on all rows
        only (the chunked fit, whose rows live in dask chunks).
        """
        return solve_coarse_to_fine(X, oracle_for, lambda: self._new_solver(C, tol),
                                    self.coarse_to_fine if coarse else None)

    def _run_solver(self, X, oracle_for, C, tol, coarse=True):
        w, solver, coarse_iter = self._solve(X, oracle_for, C, tol, coarse)
        self.coef_ = w
        self.n_iter_ = solver.n_iter_
        self.converged_ = solver.converged_
        self.history_ = solver.history_
        self.coarse_iter_ = np.asarray(coarse_iter, dtype=np.intp)
        return solver

    def _training_scores(self, X, solver=None):
        """``X @ coef_``, from the solver's last iteration when it has them."""
        scores = None if solver is None else solver.scores_
        return np.asarray(X @ self.coef_).ravel() if scores is None else scores

    def _set_threshold(self, scores, is_pos, operating_fpr):
        """``threshold_`` so that ``score >= threshold_`` picks the operating point
        (:func:`pauc._threshold.operating_threshold`)."""
        self.threshold_ = operating_threshold(scores, is_pos, operating_fpr)

    # -------------------------------------------------------------- predict
    def decision_function(self, X):
        """Scores ``X @ coef_`` (higher = more likely ``classes_[1]``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        if is_dask_array(X):
            # row-chunked X: lazy per-chunk scores (pauc.svm._chunked)
            from ._chunked import chunked_decision_function
            return chunked_decision_function(self, X)
        X = validate_data(self, X, accept_sparse="csr", dtype=[np.float64, np.float32],
                          reset=False)
        return np.asarray(X @ self.coef_, dtype=np.float64).ravel()

    def predict(self, X):
        """``classes_[1]`` where ``decision_function(X) >= threshold_``, else ``classes_[0]``."""
        scores = self.decision_function(X)
        if is_dask_array(scores):
            from ._chunked import chunked_labels_of
            return chunked_labels_of(scores, self.classes_, self.threshold_)
        return self.classes_[(scores >= self.threshold_).astype(np.intp)]


class AUCSVM(_StructuralSVM):
    """SVM_AUC: structural SVM for the full AUC (Joachims 2005; paper 002, Section 2.2).

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
        fraction of the work (4-11x faster fits at 10^6 standardized dense
        rows).  None: always Algorithm 1 from ``w = 0``, as in the paper.
    verbose : int, default=0
        ``1`` prints one line per cutting-plane iteration.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    classes_ : ndarray of shape (2,)
        ``classes_[1]`` is the positive class.
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
    n_features_in_ : int

    Notes
    -----
    With ``sample_weight`` the pair ``(i, j)`` weighs ``w_i w_j`` and the
    surrogate is the weighted mean pairwise hinge loss (normalised by
    ``W+ W-``), so integer weights act as repeated rows.
    """

    def __init__(self, C=1.0, *, tol=1e-3, max_iter=1000, operating_fpr=None, solver="osqp",
                 qp_eps=1e-7, qp_max_iter=20000, coarse_to_fine=COARSE_TO_FINE, verbose=0):
        self.C = C
        self.tol = tol
        self.max_iter = max_iter
        self.operating_fpr = operating_fpr
        self.solver = solver
        self.qp_eps = qp_eps
        self.qp_max_iter = qp_max_iter
        self.coarse_to_fine = coarse_to_fine
        self.verbose = verbose

    def fit(self, X, y, sample_weight=None):
        """Fit ``coef_`` by Algorithm 1 with the AUC oracle.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Two classes; ``classes_[1]`` (the larger label) is positive.
        sample_weight : array-like of shape (n_samples,), default=None
            Row weights; the pair ``(i, j)`` weighs ``w_i w_j``.

        Returns
        -------
        self
        """
        if is_dask_array(X) or is_dask_array(y):
            # row-chunked data: the same fit as a map-reduce per iteration (pauc.svm._chunked)
            from ._chunked import fit_chunked
            return fit_chunked(self, X, y, sample_weight)
        C, tol = self._check_common_params()
        X, is_pos, weight = self._validate_training_data(X, y, sample_weight,
                                                         weighted_pairs=True)
        # Single-threaded BLAS: see CuttingPlaneSolver.solve.
        with single_blas_thread(), self._fitting():
            solver = self._run_solver(X, partial(_auc_oracle_on, is_pos, weight), C, tol)
            self._set_threshold(self._training_scores(X, solver), is_pos, self.operating_fpr)
        return self

    def score(self, X, y, sample_weight=None):
        """AUC of ``decision_function(X)`` (ties counted 1/2)."""
        check_is_fitted(self)
        return metrics.roc_auc(y, self.decision_function(X), pos_label=self.classes_[1],
                               sample_weight=sample_weight)


class PartialAUCSVM(_StructuralSVM):
    """SVM_pAUC: structural SVM for the partial AUC in ``[alpha, beta]`` (paper 002).

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
        (paper 002, Section 8.3: pAUC maximisation for TPR at a fixed FPR).
    solver : {"osqp", "cvxpy"}, default="osqp"
        Back end of the master QP.
    qp_eps, qp_max_iter : float, int, default=1e-7, 20000
        OSQP's tolerance and iteration limit on the master QP, as in
        :class:`AUCSVM`.
    coarse_to_fine : int or None, default=100_000
        As in :class:`AUCSVM`; each level takes the window's indices on its own
        negatives.  With ``surrogate="hinge"`` it applies to the
        ``init="tight"`` start; the CCCP steps run on all rows.
    verbose : int, default=0
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

    Attributes
    ----------
    coef_, classes_, threshold_, n_iter_, converged_, history_, coarse_iter_, n_features_in_
        As in :class:`AUCSVM`.
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
    """

    _SURROGATES = ("tight", "naive", "hinge")

    def __init__(self, fpr_range=(0.0, 0.1), *, C=1.0, surrogate="tight", tol=1e-3,
                 max_iter=1000, operating_fpr=None, solver="osqp", qp_eps=1e-7,
                 qp_max_iter=20000, coarse_to_fine=COARSE_TO_FINE, verbose=0, dc_tol=1e-3,
                 dc_max_iter=50, init="tight"):
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
        self.verbose = verbose
        self.dc_tol = dc_tol
        self.dc_max_iter = dc_max_iter
        self.init = init

    def fit(self, X, y, sample_weight=None):
        """Fit ``coef_`` by Algorithm 1 with the surrogate's oracle.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Two classes; ``classes_[1]`` (the larger label) is positive.
        sample_weight : None or constant array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        if is_dask_array(X) or is_dask_array(y):
            # row-chunked data: the same fit as a map-reduce per iteration (pauc.svm._chunked)
            from ._chunked import fit_chunked
            return fit_chunked(self, X, y, sample_weight)
        C, tol = self._check_common_params()
        alpha, beta = check_fpr_range(self.fpr_range)
        if self.surrogate not in self._SURROGATES:
            raise ValueError(
                f"surrogate must be one of {self._SURROGATES}, got {self.surrogate!r}")
        X, is_pos, _ = self._validate_training_data(X, y, sample_weight)
        self.j_alpha_, self.j_beta_ = empirical_indices(int((~is_pos).sum()), (alpha, beta))
        dc = self.surrogate == "hinge" and self.j_alpha_ > 0
        if dc:
            dc_tol = check_positive_scalar(self.dc_tol, "dc_tol")
            check_int(self.dc_max_iter, "dc_max_iter", 1)
        oracle_for = partial(_pauc_oracle_on, self.surrogate, is_pos, (alpha, beta))
        operating = beta if self.operating_fpr is None else self.operating_fpr
        self.dc_history_ = self.dc_inner_iter_ = None
        # Single-threaded BLAS: see CuttingPlaneSolver.solve.
        with single_blas_thread(), self._fitting():
            if dc:
                self._fit_dc(X, is_pos, oracle_for, C, tol, dc_tol)
                solver = None
            else:
                solver = self._run_solver(X, oracle_for, C, tol)
            self._set_threshold(self._training_scores(X, solver), is_pos, operating)
        return self

    def _initial_weights(self, X, oracle_for, C, tol, coarse):
        if isinstance(self.init, str):
            if self.init == "tight":
                w, _, coarse_iter = self._solve(X, oracle_for, C, tol, coarse)
                self.coarse_iter_ = np.asarray(coarse_iter, dtype=np.intp)
                return w
            if self.init == "zeros":
                return np.zeros(X.shape[1])
            raise ValueError(f"init must be 'tight', 'zeros' or an array, got {self.init!r}")
        w0 = np.asarray(self.init, dtype=np.float64).ravel()
        if w0.shape != (X.shape[1],) or not np.isfinite(w0).all():
            raise ValueError(f"init must be a finite array of shape ({X.shape[1]},), "
                             f"got shape {w0.shape}")
        return w0

    def _fit_dc(self, X, is_pos, tight_oracle_for, C, tol, dc_tol, coarse=True):
        """Algorithm 4 (CCCP) from ``init``; one cutting-plane solver keeps f's cuts.

        ``tight_oracle_for`` as in :meth:`_solve`, for the ``init="tight"`` start.
        """
        self.coarse_iter_ = np.empty(0, dtype=np.intp)
        w0 = self._initial_weights(X, tight_oracle_for, C, tol, coarse)
        solver = self._new_solver(C, tol)
        w, steps, converged = cccp(X, is_pos, self.j_alpha_, self.j_beta_, solver, w0,
                                   dc_tol=dc_tol, dc_max_iter=self.dc_max_iter,
                                   verbose=self.verbose)
        self.coef_ = w
        self.n_iter_ = sum(step["inner_iter"] for step in steps)
        self.converged_ = converged and all(step["inner_converged"] for step in steps)
        self.history_ = solver.history_
        self.dc_history_ = np.array([step["objective"] for step in steps])
        # steps[0] is the starting point (no solve); one count per outer step after it.
        self.dc_inner_iter_ = np.array([step["inner_iter"] for step in steps[1:]], dtype=np.intp)
        if not converged:
            warnings.warn(
                f"the concave-convex procedure did not converge in dc_max_iter="
                f"{self.dc_max_iter} outer steps (last decrease "
                f"{self.dc_history_[-2] - self.dc_history_[-1]:.3g}); increase dc_max_iter "
                "or dc_tol", ConvergenceWarning, stacklevel=3)

    def score(self, X, y, sample_weight=None):
        """Partial AUC over ``fpr_range`` of ``decision_function(X)``, normalize="range"."""
        check_is_fitted(self)
        return metrics.partial_auc(y, self.decision_function(X), fpr_range=self.fpr_range,
                                   normalize="range", pos_label=self.classes_[1],
                                   sample_weight=sample_weight)
