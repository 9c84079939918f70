"""AUCSVMCV and PartialAUCSVMCV: C chosen by cross-validation, the grid done well.

Each value of ``C`` is fitted afresh on each fold, as
``GridSearchCV(AUCSVM(), {"C": Cs}, cv=...)`` fits it, so the validation scores
-- and hence ``C_`` -- are those of that grid search by construction.  What the
CV estimator adds is the work the grid search repeats: ``X`` and the labels are
validated once, each fold's rows are sliced and their spread (the feature-scale
check of :mod:`pauc.svm._scale`) measured once for all values of ``C``, and
the ``(fold, C)`` fits run in parallel through joblib (``n_jobs``; a Dask
backend distributes them).

Why not a warm-started path over ``C`` (each fit starting from the previous
``C``'s cuts and solution, which are valid for every ``C``)?  It was the first
design and it lost on both counts (issue 27): it was slower than the grid search
(warm-started from the previous solution, a large ``C`` took more iterations than
a fresh fit, over a larger master QP), and each fit being within ``C * tol`` of
the optimum rather than at it, the path often picked another ``C`` than the grid
search at the default ``tol`` (measured: ``docs/developer/measurements.rst``,
'Cross-validating C').  ``warm_start=True`` of the estimators still runs such a
path for who wants one.

The shape is scikit-learn's ``LogisticRegressionCV``: ``Cs`` (a number of
values on a log scale, or the values), ``cv``, ``scoring``, ``n_jobs``, ``refit``.

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
from ._scale import spread

__all__ = ["AUCSVMCV", "PartialAUCSVMCV"]

# Cs=int: that many values from 1e-4 to 1e4 on a log scale (LogisticRegressionCV's grid).
_LOG10_C_RANGE = (-4, 4)
# Parameters of the CV estimators that the estimator of each fit does not take.
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
    """The values of ``C``, ascending: ``Cs`` values from 1e-4 to 1e4 on a log
    scale for an int, else the given values sorted."""
    if isinstance(Cs, numbers.Integral):
        return np.logspace(*_LOG10_C_RANGE, int(Cs))
    return np.sort(np.asarray(Cs, dtype=np.float64))


class _Fold:
    """One fold, validated once for every ``C``: the training rows as a design, the
    spread of its rows, the held-out rows and labels."""

    def __init__(self, X, is_pos, labels, weight, train, test):
        X_train = _safe_indexing(X, train)
        self.design = InMemoryDesign(X_train, is_pos[train],
                                     None if weight is None else weight[train])
        self.sigma = spread(X_train)
        self.X_test, self.y_test = _safe_indexing(X, test), labels[test]


def fit_and_score(base, validated, fold, C, scorer):
    """Fit a clone of ``base`` at ``C`` on the fold's training rows and score it on the
    held-out rows.  The rows are validated already: ``validated`` holds what
    validation sets (``classes_``, ``pos_label_``, ``n_features_in_``).

    Returns
    -------
    score : float
    n_iter : int
    coef : ndarray of shape (n_features,)
    """
    estimator = clone(base).set_params(C=float(C))
    for name, value in validated.items():
        setattr(estimator, name, value)
    estimator._fit_design(fold.design, fold.sigma)
    return float(scorer(estimator, fold.X_test, fold.y_test)), estimator.n_iter_, estimator.coef_


class _StructuralSVMCV(_StructuralSVM):
    """Shared fit of the CV estimators (not public): the (fold, C) fits, then the refit."""

    _ESTIMATOR = None

    def _fold_estimator(self):
        """The estimator of the ``(fold, C)`` fits and of the refit: this one's
        parameters, the positive class resolved (the folds' labels are those of ``y``)."""
        params = {name: value for name, value in self.get_params(deep=False).items()
                  if name not in _CV_PARAMS}
        return self._ESTIMATOR(**params).set_params(pos_label=self.pos_label_)

    def fit(self, X, y, sample_weight=None):
        """Choose ``C`` by cross-validation, then fit at ``C_``.

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
        weight = self._pair_weights(weight)
        labels = self.classes_[is_pos.astype(np.intp)]
        Cs = c_grid(self.Cs)
        base = self._fold_estimator()
        # the fits skip validation: they get what it would have set
        validated = {"classes_": self.classes_, "pos_label_": self.pos_label_,
                     "n_features_in_": self.n_features_in_}
        scorer = check_scoring(base, scoring=self.scoring)
        splits = list(check_cv(self.cv, labels, classifier=True).split(X, labels))
        folds = [_Fold(X, is_pos, labels, weight, train, test) for train, test in splits]
        # fold-major order: the fits of one fold are neighbours on a worker
        results = Parallel(n_jobs=self.n_jobs)(
            delayed(fit_and_score)(base, validated, fold, C, scorer)
            for fold in folds for C in Cs)
        by_fold = [results[k * len(Cs):(k + 1) * len(Cs)] for k in range(len(folds))]
        self.Cs_ = Cs
        self.scores_ = np.array([[score for score, _, _ in row] for row in by_fold])
        self.n_iter_ = np.array([[n_iter for _, n_iter, _ in row] for row in by_fold])
        best = int(np.argmax(self.scores_.mean(axis=0)))    # the smallest C among ties
        self.C_ = float(Cs[best])
        if self.refit:
            final = self._fold_estimator().set_params(C=self.C_)
            final.fit(X, labels, sample_weight=weight)
            for name, value in vars(final).items():
                if name.endswith("_") and not name.startswith("_") and name != "n_iter_":
                    setattr(self, name, value)
            self.refit_n_iter_ = final.n_iter_
        else:
            # LogisticRegressionCV's refit=False: the folds' mean model at C_, its
            # threshold by the package's rule on all training rows; scores that all
            # tie (coef_ = 0) rank nothing
            self.coef_ = np.mean([row[best][2] for row in by_fold], axis=0)
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
        as given (sorted).
    cv : int, CV splitter or iterable, default=None
        The folds, as for ``GridSearchCV``; None is 5 stratified folds.
    scoring : str, callable or None, default=None
        The validation score; None is the estimator's own ``score``, its
        target metric ({target}).
    n_jobs : int or None, default=None
        The ``(fold, C)`` fits run in parallel through joblib (so a
        ``joblib.parallel_config`` backend, Dask's included, distributes
        them); None is 1, as for ``GridSearchCV``.
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
        The values of ``C``, ascending.
    scores_ : ndarray of shape (n_folds, n_Cs)
        Validation score per fold per ``C``.
    n_iter_ : ndarray of shape (n_folds, n_Cs)
        Cutting-plane iterations per fold per ``C`` (each a fresh fit).
    refit_n_iter_ : int
        Iterations of the refit at ``C_`` (0 with ``refit=False``).
    coef_, threshold_, classes_, n_features_in_, degenerate_
        Of the refit model (``refit=True``; then also its ``converged_``,
        ``history_``, ``coarse_iter_``{more}), as in {estimator}."""


class AUCSVMCV(_StructuralSVMCV):
    __doc__ = """:class:`AUCSVM` with ``C`` chosen by cross-validation: the grid done well.

    Every ``C`` of ``Cs_`` is fitted on every fold and scored on the held-out
    rows, as ``GridSearchCV(AUCSVM(), {"C": Cs_}, cv=cv)`` does -- the same
    scores, so the same ``C_`` -- with ``X`` validated once and each fold's
    rows sliced and measured once, the ``(fold, C)`` fits in parallel with
    ``n_jobs``.  ``C_`` maximises the mean score; the model is then refitted on
    all rows at ``C_``.  (A warm-started path over ``C`` was slower than the
    grid on a9a and chose other values of ``C``: see :mod:`pauc.svm._cv`.)

    Parameters
    ----------""" + _CV_DOC.format(target="the AUC") + """
    tol, max_iter, operating_fpr, solver, qp_eps, qp_max_iter, coarse_to_fine, method, \
verbose, callback, pos_label
        As in :class:`AUCSVM` (``callback`` is passed to every fit: with
        ``n_jobs`` above 1 those of the folds run in other processes).

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

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.model_selection import GridSearchCV
    >>> from pauc.svm import AUCSVM, AUCSVMCV
    >>> X, y = make_classification(600, n_features=8, weights=[0.8], random_state=0)
    >>> Cs = [0.1, 1.0, 10.0, 100.0]
    >>> model = AUCSVMCV(Cs=Cs, cv=3).fit(X[:400], y[:400])
    >>> model.C_, model.scores_.shape                # (folds, values of C)
    (100.0, (3, 4))
    >>> grid = GridSearchCV(AUCSVM(), {"C": Cs}, cv=3).fit(X[:400], y[:400])
    >>> grid.best_params_["C"] == model.C_           # the same choice, by construction
    True
    >>> round(model.score(X[400:], y[400:]), 2)      # test AUC of the refit at C_
    0.98
    """

    _ESTIMATOR = AUCSVM
    _parameter_constraints = {name: value for name, value in
                              {**AUCSVM._parameter_constraints, **_CV_CONSTRAINTS}.items()
                              if name not in ("C", "warm_start")}
    _weighted_pairs = True

    def __init__(self, *, Cs=10, cv=None, scoring=None, n_jobs=None, refit=True, tol=1e-3,
                 max_iter=1000, operating_fpr=None, solver="osqp", qp_eps=1e-7,
                 qp_max_iter=20000, coarse_to_fine=COARSE_TO_FINE,
                 method="proximal", verbose=0, callback=None, pos_label=None):
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
        self.callback = callback
        self.pos_label = pos_label


class PartialAUCSVMCV(_StructuralSVMCV):
    __doc__ = """:class:`PartialAUCSVM` with ``C`` chosen by cross-validation: the grid done well.

    As :class:`AUCSVMCV`, for the partial AUC in ``fpr_range`` with the
    surrogate ``surrogate``: the scores and ``C_`` of
    ``GridSearchCV(PartialAUCSVM(fpr_range), {"C": Cs_}, cv=cv,
    scoring=partial_auc_scorer(fpr_range=fpr_range))``, in less time.

    Parameters
    ----------
    fpr_range : (float, float), default=(0.0, 0.1)
        The FPR window ``(alpha, beta)``.
    surrogate : {"tight", "naive", "hinge"}, default="tight"
        As in :class:`PartialAUCSVM`.""" + _CV_DOC.format(
        target="the partial AUC over ``fpr_range``, normalised by its width, the "
               "default of :func:`pauc.metrics.partial_auc_scorer`") + """
    tol, max_iter, operating_fpr, solver, qp_eps, qp_max_iter, coarse_to_fine, method, \
verbose, callback, dc_tol, dc_max_iter, init, pos_label
        As in :class:`PartialAUCSVM` (``callback`` as in :class:`AUCSVMCV`).

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

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from pauc.svm import PartialAUCSVMCV
    >>> X, y = make_classification(600, n_features=8, weights=[0.8], random_state=0)
    >>> model = PartialAUCSVMCV((0.0, 0.1), Cs=[0.1, 1.0, 10.0, 100.0], cv=3)
    >>> model.fit(X[:400], y[:400]).C_
    100.0
    >>> round(model.score(X[400:], y[400:]), 2)      # test pAUC over [0, 0.1]
    0.9
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
                 coarse_to_fine=COARSE_TO_FINE, method="proximal", verbose=0, callback=None,
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
        self.callback = callback
        self.dc_tol = dc_tol
        self.dc_max_iter = dc_max_iter
        self.init = init
        self.pos_label = pos_label

    def _operating_fpr(self):
        # PartialAUCSVM's default operating point: beta
        if self.operating_fpr is None:
            return check_fpr_range(self.fpr_range)[1]
        return self.operating_fpr
