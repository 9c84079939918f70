"""AUCSVMCV and PartialAUCSVMCV: C chosen by cross-validation over a path.

A cut ``w.g >= Delta - xi`` of the 1-slack problem does not depend on ``C``:
only the master QP's bound ``sum_k lambda_k <= C`` does.  So on each fold the
regularisation path runs from the smallest ``C`` to the largest through one
estimator with ``warm_start=True``: every fit keeps the cut pool and Gram
matrix of the previous ``C`` and starts from its solution (for the DC variant,
each ``C``'s CCCP starts from the previous ``C``'s solution, with the cuts of
its convex part kept), paying only for the cuts the larger ``C`` needs.  Each
fit on the path carries the guarantee of a fresh fit (objective within
``C * tol`` of the optimum), so the scores per fold per ``C`` are those a grid
search over fresh fits would see, up to that tolerance.

The shape is scikit-learn's ``LogisticRegressionCV``: ``Cs`` (a number of
values on a log scale, or the values), ``cv``, ``scoring``, ``n_jobs`` (the
folds through joblib, so a Dask backend distributes them), ``refit``.

References
----------
Narasimhan & Agarwal (2017), Algorithm 1 and Section 6; Joachims (2005).
Full entries in ``docs/references.rst``.
"""

import numbers

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.metrics import check_scoring
from sklearn.model_selection import check_cv
from sklearn.utils import _safe_indexing

from .._base import BOOLEAN, N_JOBS, Satisfies
from ._design import InMemoryDesign
from .._validation import check_fpr_range
from ._estimators import COARSE_TO_FINE, AUCSVM, PartialAUCSVM, _StructuralSVM

__all__ = ["AUCSVMCV", "PartialAUCSVMCV"]

# Cs=int: that many values from 1e-4 to 1e4 on a log scale (LogisticRegressionCV's grid).
_LOG10_C_RANGE = (-4, 4)
# Parameters of the CV estimators that the estimator on the path does not take.
_CV_PARAMS = ("Cs", "cv", "scoring", "n_jobs", "refit")


def _check_Cs(value):
    if isinstance(value, (bool, np.bool_)):
        raise TypeError("a boolean is not a grid")
    if isinstance(value, numbers.Integral):
        if value < 1:
            raise ValueError("Cs must be at least 1")
        return
    Cs = np.asarray(value, dtype=np.float64)
    if Cs.ndim != 1 or Cs.size == 0 or not np.all(np.isfinite(Cs)) or np.any(Cs <= 0):
        raise ValueError("Cs must be positive finite values")


def _check_cv(value):
    if value is None or hasattr(value, "split"):
        return
    if isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)):
        if value < 2:
            raise ValueError("cv must be at least 2")
        return
    if not hasattr(value, "__iter__") or isinstance(value, str):
        raise TypeError("cv must be None, an int, a splitter or an iterable of splits")


def _check_scoring(value):
    if not (value is None or isinstance(value, str) or callable(value)):
        raise TypeError("scoring must be None, a string or a callable")


_CV_CONSTRAINTS = {
    "Cs": [Satisfies(_check_Cs, "an int >= 1 or a list of positive numbers")],
    "cv": [Satisfies(_check_cv, "None, an int >= 2, a CV splitter or an iterable of splits")],
    "scoring": [Satisfies(_check_scoring, "None, a scorer name or a callable")],
    "n_jobs": N_JOBS,
    "refit": BOOLEAN,
}


def c_grid(Cs):
    """The path's values of ``C``, ascending: ``Cs`` values from 1e-4 to 1e4 on a log
    scale for an int, else the given values sorted."""
    if isinstance(Cs, numbers.Integral):
        return np.logspace(*_LOG10_C_RANGE, int(Cs))
    return np.sort(np.asarray(Cs, dtype=np.float64))


def fold_path(estimator, X, y, sample_weight, train, test, Cs, scorer):
    """Fit ``estimator`` (``warm_start=True``) on the training rows at each ``C`` of
    ``Cs`` in turn and score it on the test rows.

    Returns
    -------
    scores, n_iter : ndarray of shape (len(Cs),)
    coefs : ndarray of shape (len(Cs), n_features)
    """
    X_train, y_train = _safe_indexing(X, train), y[train]
    X_test, y_test = _safe_indexing(X, test), y[test]
    weight = None if sample_weight is None else sample_weight[train]
    scores, n_iter, coefs = [], [], []
    for C in Cs:
        estimator.set_params(C=float(C)).fit(X_train, y_train, sample_weight=weight)
        scores.append(scorer(estimator, X_test, y_test))
        n_iter.append(estimator.n_iter_)
        coefs.append(estimator.coef_.copy())
    return np.asarray(scores, dtype=np.float64), np.asarray(n_iter), np.asarray(coefs)


class _StructuralSVMCV(_StructuralSVM):
    """Shared fit of the CV estimators (not public): the path per fold, then the refit."""

    _ESTIMATOR = None

    def _path_estimator(self):
        """The estimator of the path: this one's parameters, ``warm_start=True``, the
        positive class resolved (the folds' labels are those of ``y``)."""
        params = {name: value for name, value in self.get_params(deep=False).items()
                  if name not in _CV_PARAMS}
        return self._ESTIMATOR(**params, warm_start=True)

    def fit(self, X, y, sample_weight=None):
        """Choose ``C`` by cross-validation over the path, then fit at ``C_``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the fits (as the estimator takes them); the
            validation scores are unweighted.

        Returns
        -------
        self
        """
        self._validate_params()
        X, is_pos, weight = self._validate_training_data(X, y, sample_weight)
        labels = self.classes_[is_pos.astype(np.intp)]
        Cs = c_grid(self.Cs)
        base = self._path_estimator().set_params(pos_label=self.pos_label_)
        scorer = check_scoring(base, scoring=self.scoring)
        folds = list(check_cv(self.cv, labels, classifier=True).split(X, labels))
        results = Parallel(n_jobs=self.n_jobs)(
            delayed(fold_path)(clone(base), X, labels, weight, train, test, Cs, scorer)
            for train, test in folds)
        self.Cs_ = Cs
        self.scores_ = np.array([scores for scores, _, _ in results])
        self.n_iter_ = np.array([n_iter for _, n_iter, _ in results])
        best = int(np.argmax(self.scores_.mean(axis=0)))    # the smallest C among ties
        self.C_ = float(Cs[best])
        if self.refit:
            final = clone(base).set_params(C=self.C_, warm_start=False)
            final.fit(X, labels, sample_weight=weight)
            for name, value in vars(final).items():
                if name.endswith("_") and not name.startswith("_") and name != "n_iter_":
                    setattr(self, name, value)
            self.refit_n_iter_ = final.n_iter_
        else:
            # LogisticRegressionCV's refit=False: the folds' mean model at C_, its
            # threshold by the package's rule on all training rows
            self.coef_ = np.mean([coefs[best] for _, _, coefs in results], axis=0)
            self.degenerate_ = not self.coef_.any()
            self._set_threshold(InMemoryDesign(X, is_pos, weight), self._operating_fpr(),
                                None)
            self.refit_n_iter_ = 0
        return self

    def _operating_fpr(self):
        return self.operating_fpr


_CV_DOC = """
    Cs : int or array-like of float, default=10
        The values of ``C``: an int gives that many values on a log scale
        from 1e-4 to 1e4 (``LogisticRegressionCV``'s grid); a list is used
        as given.  The path runs from the smallest to the largest.
    cv : int, CV splitter or iterable, default=None
        The folds, as for ``GridSearchCV``; None is 5 stratified folds.
    scoring : str, callable or None, default=None
        The validation score; None is the estimator's own ``score``, its
        target metric ({target}).
    n_jobs : int or None, default=None
        Folds run in parallel through joblib (so a ``joblib.parallel_config``
        backend, Dask's included, distributes them); the path within a
        fold is sequential.
    refit : bool, default=True
        True: refit on all rows at ``C_``.  False: ``coef_`` is the mean of
        the folds' models at ``C_`` (as in ``LogisticRegressionCV``), and
        ``threshold_`` is set on all rows by the estimator's rule."""

_CV_ATTRIBUTES = """
    C_ : float
        The chosen ``C``: the largest mean validation score over the folds
        (the smallest ``C`` among ties, as ``GridSearchCV`` on an ascending
        grid).
    Cs_ : ndarray of shape (n_Cs,)
        The path, ascending.
    scores_ : ndarray of shape (n_folds, n_Cs)
        Validation score per fold per ``C``.
    n_iter_ : ndarray of shape (n_folds, n_Cs)
        Cutting-plane iterations per fold per ``C`` (each fit starting from
        the previous ``C``'s cuts and solution).
    refit_n_iter_ : int
        Iterations of the refit at ``C_`` (0 with ``refit=False``).
    coef_, threshold_, classes_, n_features_in_, degenerate_
        Of the refit model (``refit=True``; then also its ``converged_``,
        ``history_``, ``coarse_iter_``{more}), as in {estimator}."""


class AUCSVMCV(_StructuralSVMCV):
    __doc__ = """:class:`AUCSVM` with ``C`` chosen by cross-validation over a warm-started path.

    On each fold one :class:`AUCSVM` with ``warm_start=True`` fits every ``C``
    of ``Cs_`` from the smallest to the largest, each fit starting from the
    previous one's cuts, Gram matrix and solution (a cut is valid for every
    ``C``), and is scored on the held-out rows.  ``C_`` maximises the mean
    score; the model is then refitted on all rows at ``C_``.

    Parameters
    ----------""" + _CV_DOC.format(target="the AUC") + """
    tol, max_iter, operating_fpr, solver, qp_eps, qp_max_iter, coarse_to_fine, method, \
verbose, pos_label
        As in :class:`AUCSVM`.

    Attributes
    ----------""" + _CV_ATTRIBUTES.format(more="", estimator=":class:`AUCSVM`") + """

    See Also
    --------
    AUCSVM, PartialAUCSVMCV

    References
    ----------
    .. [1] Joachims, T. "A Support Vector Method for Multivariate Performance
       Measures." ICML 2005.
    .. [2] Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for
       Optimizing the Partial Area Under the ROC Curve." Neural Computation
       29(7), 2017 (arXiv:1605.04337).  Algorithm 1.
    """

    _ESTIMATOR = AUCSVM
    _parameter_constraints = {name: value for name, value in
                              {**AUCSVM._parameter_constraints, **_CV_CONSTRAINTS}.items()
                              if name not in ("C", "warm_start")}
    _weighted_pairs = True

    def __init__(self, *, Cs=10, cv=None, scoring=None, n_jobs=None, refit=True, tol=1e-3,
                 max_iter=1000, operating_fpr=None, solver="osqp", qp_eps=1e-7,
                 qp_max_iter=20000, coarse_to_fine=COARSE_TO_FINE,
                 method="proximal", verbose=0, pos_label=None):
        self.Cs = Cs
        self.cv = cv
        self.scoring = scoring
        self.n_jobs = n_jobs
        self.refit = refit
        self.tol = tol
        self.max_iter = max_iter
        self.operating_fpr = operating_fpr
        self.solver = solver
        self.qp_eps = qp_eps
        self.qp_max_iter = qp_max_iter
        self.coarse_to_fine = coarse_to_fine
        self.method = method
        self.verbose = verbose
        self.pos_label = pos_label


class PartialAUCSVMCV(_StructuralSVMCV):
    __doc__ = """:class:`PartialAUCSVM` with ``C`` chosen by cross-validation over a path.

    As :class:`AUCSVMCV`, for the partial AUC in ``fpr_range`` with the
    surrogate ``surrogate``.  With ``surrogate="hinge"`` (CCCP, Algorithm 4)
    the first ``C`` of a fold starts from ``init`` and each larger ``C``'s
    CCCP from the previous ``C``'s solution, with the cuts of its convex
    part kept.

    Parameters
    ----------
    fpr_range : (float, float), default=(0.0, 0.1)
        The FPR window ``(alpha, beta)``.
    surrogate : {"tight", "naive", "hinge"}, default="tight"
        As in :class:`PartialAUCSVM`.""" + _CV_DOC.format(
        target="the partial AUC over ``fpr_range``, normalised by its width, the "
               "default of :func:`pauc.metrics.partial_auc_scorer`") + """
    tol, max_iter, operating_fpr, solver, qp_eps, qp_max_iter, coarse_to_fine, method, \
verbose, dc_tol, dc_max_iter, init, pos_label
        As in :class:`PartialAUCSVM`.

    Attributes
    ----------""" + _CV_ATTRIBUTES.format(
        more=", ``j_alpha_``, ``j_beta_``, ``dc_history_``, ``dc_inner_iter_``",
        estimator=":class:`PartialAUCSVM`") + """

    See Also
    --------
    PartialAUCSVM, AUCSVMCV

    References
    ----------
    .. [1] Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for
       Optimizing the Partial Area Under the ROC Curve." Neural Computation
       29(7), 2017 (arXiv:1605.04337).  Algorithms 1-4.
    """

    _ESTIMATOR = PartialAUCSVM
    _parameter_constraints = {name: value for name, value in
                              {**PartialAUCSVM._parameter_constraints,
                               **_CV_CONSTRAINTS}.items()
                              if name not in ("C", "warm_start")}
    _weighted_pairs = False

    def __init__(self, fpr_range=(0.0, 0.1), *, surrogate="tight", Cs=10, cv=None,
                 scoring=None, n_jobs=None, refit=True, tol=1e-3, max_iter=1000,
                 operating_fpr=None, solver="osqp", qp_eps=1e-7, qp_max_iter=20000,
                 coarse_to_fine=COARSE_TO_FINE, method="proximal", verbose=0,
                 dc_tol=1e-3, dc_max_iter=50, init="tight", pos_label=None):
        self.fpr_range = fpr_range
        self.surrogate = surrogate
        self.Cs = Cs
        self.cv = cv
        self.scoring = scoring
        self.n_jobs = n_jobs
        self.refit = refit
        self.tol = tol
        self.max_iter = max_iter
        self.operating_fpr = operating_fpr
        self.solver = solver
        self.qp_eps = qp_eps
        self.qp_max_iter = qp_max_iter
        self.coarse_to_fine = coarse_to_fine
        self.method = method
        self.verbose = verbose
        self.dc_tol = dc_tol
        self.dc_max_iter = dc_max_iter
        self.init = init
        self.pos_label = pos_label

    def _operating_fpr(self):
        # PartialAUCSVM's default operating point: beta
        if self.operating_fpr is None:
            return check_fpr_range(self.fpr_range)[1]
        return self.operating_fpr
