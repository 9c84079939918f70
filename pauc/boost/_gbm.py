"""GradientBoostingRanker: gradient-boosted trees that target the FPR window.

LightGBM grows the trees (Ke et al. 2017); pauc supplies the loss and the
stopping rule.  Each candidate loss -- the pointwise log-loss and the window
losses of :mod:`pauc.objectives` (pairwise losses over the pairs of a
positive and a negative ranked inside the FPR window ``[alpha, beta]`` by the
current scores) -- is boosted on the training part and stopped when the
**validation partial AUC over the window** has not improved for
``n_iter_no_change`` rounds; the model keeps its best round.  ``loss="auto"``
then keeps the candidate with the best validation window pAUC, so that on
data where targeting the window does not pay (noisy tops, a9a) it falls back
to log-loss instead of losing, and on clean, learnable tops it takes the
window loss.

References
----------
Ke, G. et al. "LightGBM: A Highly Efficient Gradient Boosting Decision Tree."
NIPS 2017.

Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for Optimizing the
Partial Area Under the ROC Curve." Neural Computation 29(7), 2017.

Freund, Y., Iyer, R., Schapire, R. E. and Singer, Y. "An Efficient Boosting
Algorithm for Combining Preferences." JMLR 4, 2003.
"""

import math
import numbers
import os
import time

import lightgbm as lgb
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.model_selection import train_test_split
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from .._base import BinaryRankerMixin
from .._threshold import operating_threshold
from .._validation import (_classes, check_fpr_range, check_int, check_pos_label,
                           check_positive_scalar, empirical_indices)
# the module, not its names: pauc.objectives imports this package's kernels
from .. import metrics, objectives

# loss="auto": the candidates, log-loss first (it wins ties: the fallback).
AUTO_CANDIDATES = ("logloss", "exponential", "squared_hinge")
# The validation curve is averaged over n_iter_no_change // SMOOTHING_DIVISOR
# rounds before stopping and selecting (see _WindowStopping).
SMOOTHING_DIVISOR = 4
# early_stopping="auto" holds out a validation split from this many rows on
# (scikit-learn's HistGradientBoostingClassifier uses the same rule).
EARLY_STOPPING_MIN_ROWS = 10_000


class _WindowStopping:
    """LightGBM callback: stop on the validation window pAUC, averaged over rounds.

    Records the validation window pAUC of every round.  The stopping rule
    compares the mean of the last ``width`` rounds (a trailing average), so
    that one lucky round -- the window of a validation split holds few
    negatives, and its pAUC jumps by whole positives -- neither stops the
    boosting nor becomes the kept model: the kept round is the middle of the
    best stretch, and ``best`` its average.  Boosting stops once the average
    has not improved for ``patience`` rounds.
    """

    order = 30      # after LightGBM's own callbacks

    def __init__(self, metric_name, patience, width):
        self.metric_name, self.patience, self.width = metric_name, patience, width
        self.history, self.best, self.best_end = [], -np.inf, 0

    @property
    def best_round(self):
        """The kept number of rounds (1-based)."""
        return max(1, self.best_end + 1 - (self.width - 1) // 2)

    def __call__(self, env):
        value = next(r[2] for r in env.evaluation_result_list if r[1] == self.metric_name)
        self.history.append(value)
        t = len(self.history) - 1
        mean = float(np.mean(self.history[max(0, t + 1 - self.width):]))
        if mean > self.best:
            self.best, self.best_end = mean, t
        elif t - self.best_end >= self.patience:
            raise lgb.callback.EarlyStopException(self.best_round - 1, [])


def _effective_threads(n_jobs):
    """LightGBM's ``num_threads`` for scikit-learn's ``n_jobs`` (None = 1, -1 = all)."""
    if n_jobs is None:
        return 1
    if n_jobs < 0:
        return max(1, (os.cpu_count() or 1) + 1 + n_jobs)
    return n_jobs


class GradientBoostingRanker(BinaryRankerMixin, ClassifierMixin, BaseEstimator):
    """Gradient-boosted trees (LightGBM) that win the partial AUC in an FPR window.

    Boosts regression trees on a window loss -- a pairwise loss over the
    pairs of a positive and a negative ranked ``j_alpha + 1 .. j_beta`` by
    the current scores, ``j_alpha = floor(n alpha)``, ``j_beta = ceil(n
    beta)`` on the ``n`` training negatives (Narasimhan & Agarwal, eq. (2)) --
    or on log-loss, stops each on the validation window pAUC, and (with
    ``loss="auto"``) keeps the one with the best validation window pAUC.
    LightGBM is the engine; the losses are in :mod:`pauc.objectives`.

    Parameters
    ----------
    fpr_range : (float, float), default=(0.0, 1.0)
        The FPR window ``(alpha, beta)``; ``(0, 1)`` targets the full AUC.
    loss : {"auto", "logloss", "exponential", "squared_hinge", "tight_hinge"}, default="auto"
        ``"auto"`` boosts each of ``AUTO_CANDIDATES`` (log-loss, the window
        exponential and the window squared hinge) and keeps the one with the
        best validation window pAUC (log-loss on ties); without a validation
        split (``early_stopping`` off) it is log-loss.  ``"logloss"`` runs
        LightGBM's own binary objective.  The window losses are defined in
        :mod:`pauc.objectives`.
    n_estimators : int, default=1000
        Maximum number of boosting rounds per candidate.
    learning_rate : float, default=0.05
    num_leaves : int, default=31
        Leaves per tree (LightGBM grows trees leaf-wise).
    min_child_samples : int, default=20
        Minimum number of training rows in a leaf.
    reg_lambda : float, default=0.0
        L2 penalty on the leaf values (LightGBM's ``lambda_l2``).
    early_stopping : "auto" or bool, default="auto"
        Hold out ``validation_fraction`` of the rows (stratified) and stop each
        candidate when its validation window pAUC has not improved for
        ``n_iter_no_change`` rounds, keeping the best round.  ``"auto"``: on
        when there are at least 10 000 training rows.
    validation_fraction : float in (0, 1), default=0.1
    n_iter_no_change : int, default=100
        Patience of early stopping, in rounds.  The validation pAUC is first
        averaged over the last ``n_iter_no_change // 4`` rounds, so that a
        lucky round neither stops a candidate nor wins the selection.
    refit : bool, default=True
        With a validation split: boost the kept loss again on every row
        (training and validation) for the kept number of rounds.  False keeps
        the model boosted on the training part.
    operating_fpr : float in [0, 1] or None, default=None
        Training FPR at which :meth:`predict` thresholds the scores; None
        means ``beta``, or Youden's point (maximal TPR - FPR) when the window
        is the whole curve (``beta = 1``).
    pos_label : label, default=None
        The positive class.  None: the larger label, i.e. 1 (True) for labels
        in {0, 1}, {-1, 1} or booleans (scikit-learn's rule), ``classes_[1]``
        for any other pair.
    random_state : int, RandomState instance or None, default=None
        Seeds the validation split and LightGBM.
    n_jobs : int or None, default=None
        LightGBM threads; None means 1, -1 all cores.  The fitted model does
        not depend on it (column-wise histograms, ``deterministic=True``).
    verbose : int, default=0
        ``1`` prints one line per candidate loss, ``2`` also LightGBM's
        validation log every round.

    Attributes
    ----------
    booster_ : lightgbm.Booster
        The kept model (truncated to ``n_iter_`` rounds when predicting).
    best_loss_ : str
        The loss of the kept model.
    n_iter_ : int
        Its number of boosting rounds (the best validation round with early
        stopping, else ``n_estimators``).
    validation_history_ : dict of str -> ndarray
        Validation window pAUC after every round, per candidate loss (empty
        without a validation split).
    validation_score_ : dict of str -> float
        Per candidate, its best validation window pAUC averaged over
        ``n_iter_no_change // 4`` consecutive rounds (the selection criterion;
        empty without a validation split).
    validation_rounds_ : dict of str -> int
        Per candidate, the number of rounds it kept (the middle of that best
        stretch).
    fit_seconds_ : dict of str -> float
        Seconds spent boosting each candidate (and ``"refit"``).
    feature_importances_ : ndarray of shape (n_features,)
        Total gain of the splits on each feature in the kept rounds, summing to 1
        (all zero when no tree split).
    threshold_ : float
        Score threshold of :meth:`predict`.
    j_alpha_, j_beta_ : int
        Window positions over the training negatives (of the training part
        when a validation split is held out).
    classes_ : ndarray of shape (2,)
        ``classes_[1]`` is the positive class (sorted unless ``pos_label`` is
        the smaller label).
    n_features_in_ : int

    Notes
    -----
    ``sample_weight`` must be None or constant: a weighted window would need
    the FPR range measured in negative weight, which the window losses do
    not implement.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from pauc.boost import GradientBoostingRanker
    >>> X, y = make_classification(2000, n_features=10, weights=[0.8], random_state=0)
    >>> ranker = GradientBoostingRanker((0.0, 0.1), loss="exponential", n_estimators=50,
    ...                                 random_state=0).fit(X[:1500], y[:1500])
    >>> 0.5 < ranker.score(X[1500:], y[1500:]) <= 1.0
    True
    """

    def __init__(self, fpr_range=(0.0, 1.0), *, loss="auto", n_estimators=1000,
                 learning_rate=0.05, num_leaves=31, min_child_samples=20, reg_lambda=0.0,
                 early_stopping="auto", validation_fraction=0.1, n_iter_no_change=100,
                 refit=True, operating_fpr=None, pos_label=None, random_state=None,
                 n_jobs=None, verbose=0):
        self.fpr_range = fpr_range
        self.loss = loss
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.num_leaves = num_leaves
        self.min_child_samples = min_child_samples
        self.reg_lambda = reg_lambda
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.refit = refit
        self.operating_fpr = operating_fpr
        self.pos_label = pos_label
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    # ------------------------------------------------------------ validation
    def _check_params(self):
        """Every hyper-parameter, checked once; returns ``(alpha, beta)``."""
        alpha, beta = check_fpr_range(self.fpr_range)
        if self.loss != "auto":
            objectives.check_loss(self.loss, ("auto",) + objectives.LOSSES)
        check_int(self.n_estimators, "n_estimators", 1)
        check_positive_scalar(self.learning_rate, "learning_rate")
        check_int(self.num_leaves, "num_leaves", 2)
        check_int(self.min_child_samples, "min_child_samples", 1)
        r = self.reg_lambda
        if (not isinstance(r, numbers.Real) or isinstance(r, bool) or not math.isfinite(r)
                or r < 0):
            raise ValueError(f"reg_lambda must be a finite number >= 0, got {r!r}")
        if not (self.early_stopping == "auto" or isinstance(self.early_stopping, bool)):
            raise ValueError(
                f"early_stopping must be 'auto', True or False, got {self.early_stopping!r}")
        f = self.validation_fraction
        if (not isinstance(f, numbers.Real) or isinstance(f, bool) or not 0.0 < f < 1.0):
            raise ValueError(f"validation_fraction must be a number in (0, 1), got {f!r}")
        check_int(self.n_iter_no_change, "n_iter_no_change", 1)
        if not isinstance(self.refit, (bool, np.bool_)):
            raise ValueError(f"refit must be True or False, got {self.refit!r}")
        f = self.operating_fpr
        if f is not None and (not isinstance(f, numbers.Real) or isinstance(f, bool)
                              or not 0.0 <= f <= 1.0):
            raise ValueError(f"operating_fpr must be None or a number in [0, 1], got {f!r}")
        if self.n_jobs is not None:
            if (isinstance(self.n_jobs, bool) or not isinstance(self.n_jobs, numbers.Integral)
                    or self.n_jobs == 0):
                raise ValueError(f"n_jobs must be None or a non-zero integer, got {self.n_jobs!r}")
        check_int(self.verbose, "verbose", 0)
        return alpha, beta

    def _validate_training_data(self, X, y, sample_weight):
        """``(X, is_pos)``: dense or CSR float X, finite; binary y; no real weights.

        Sets ``classes_`` and ``n_features_in_`` (scikit-learn's ``pos_label``
        rule: see the class docstring).
        """
        X, y = validate_data(self, X, y, accept_sparse="csr",
                             dtype=[np.float64, np.float32], y_numeric=False)
        classes = _classes(y)
        if y.dtype.kind == "f" and not np.all(classes == np.floor(classes)):
            check_classification_targets(y)     # "Unknown label type: continuous"
        if classes.shape[0] < 2:
            raise ValueError(f"y holds only one class ({classes.tolist()}); ranking needs "
                             "both positives and negatives")
        if classes.shape[0] > 2:
            raise ValueError(
                f"Only binary classification is supported. y takes {classes.shape[0]} "
                f"values: {classes[:10].tolist()}; {type(self).__name__} is a binary ranker")
        # The larger label is positive by default: 1 (True) for {0, 1}, {-1, 1}
        # and boolean labels, as scikit-learn's pos_label rule says, and
        # classes_[1] for any other pair, as scikit-learn's binary classifiers
        # orient decision_function.
        pos_label = classes[1] if self.pos_label is None else check_pos_label(
            classes, self.pos_label)
        # classes_[1] is the positive class (decision_function's orientation)
        self.classes_ = (classes if pos_label == classes[1] else classes[::-1]).copy()
        is_pos = np.ascontiguousarray(y == pos_label)
        if sample_weight is not None:
            weight = _check_sample_weight(sample_weight, X, dtype=np.float64)
            if weight[is_pos].sum() <= 0 or weight[~is_pos].sum() <= 0:
                raise ValueError("sample_weight gives one class a total weight of zero; "
                                 "ranking needs both classes")
            if not (weight.size and weight[0] > 0 and np.all(weight == weight[0])):
                raise NotImplementedError(
                    f"{type(self).__name__} does not support non-uniform sample_weight: a "
                    "weighted window would need the FPR range measured in negative weight, "
                    "which the window losses do not implement. Resample the rows instead, "
                    "or pass sample_weight=None.")
        return X, is_pos

    def _split(self, X, is_pos, rng, use_validation, fpr_range):
        """``(X_tr, pos_tr, X_va, pos_va)``: a stratified validation split, with the
        window non-empty in both parts (``X_va`` None without one)."""
        if use_validation:
            seed = rng.randint(np.iinfo(np.int32).max)
            n_val = int(math.ceil(self.validation_fraction * is_pos.shape[0]))
            counts = (int(is_pos.sum()), int((~is_pos).sum()))
            if min(counts) < 2 or n_val < 2 or is_pos.shape[0] - n_val < 2:
                raise ValueError(
                    f"early stopping holds out validation_fraction={self.validation_fraction} "
                    f"of the rows, stratified, but the data ({counts[0]} positives, "
                    f"{counts[1]} negatives) cannot give both the training and the validation "
                    "split both classes; pass early_stopping=False or more rows")
            X_tr, X_va, pos_tr, pos_va = train_test_split(
                X, is_pos, test_size=self.validation_fraction, stratify=is_pos,
                random_state=seed)
        else:
            X_tr, pos_tr, X_va, pos_va = X, is_pos, None, None
        parts = [("training", pos_tr)] + ([("validation", pos_va)] if use_validation else [])
        indices = {}
        for name, part in parts:
            n_neg = int((~part).sum())
            try:
                indices[name] = empirical_indices(n_neg, fpr_range)
            except ValueError:
                raise ValueError(
                    f"fpr_range={self.fpr_range!r} selects no negative position "
                    f"(ceil(n beta) - floor(n alpha) < 1) in the {name} split: training split "
                    f"{int((~pos_tr).sum())} negatives, validation split "
                    + (f"{int((~pos_va).sum())} negatives" if use_validation else "none")
                    + "; widen fpr_range, raise validation_fraction or use more rows"
                ) from None
        self.j_alpha_, self.j_beta_ = indices["training"]
        return X_tr, pos_tr, X_va, pos_va

    # ------------------------------------------------------------------ fit
    def _lgb_params(self, loss, pos_tr, fpr_range, seed):
        params = {
            "learning_rate": float(self.learning_rate),
            "num_leaves": int(self.num_leaves),
            "min_data_in_leaf": int(self.min_child_samples),
            "lambda_l2": float(self.reg_lambda),
            "num_threads": _effective_threads(self.n_jobs),
            "seed": seed,
            # identical models for any number of threads: each thread owns whole
            # feature columns, and LightGBM's reductions run in a fixed order
            "deterministic": True,
            "force_col_wise": True,
            "verbosity": -1,
            "metric": "None",
        }
        if loss == "logloss":
            params["objective"] = "binary"
        else:
            params["objective"] = objectives.window_objective(pos_tr, fpr_range, loss)
        return params

    def _boost(self, loss, train_set, valid_set, pos_tr, fpr_range, seed):
        """One candidate: ``(booster, n_iter, history, score)`` (the last two None
        without a validation split)."""
        params = self._lgb_params(loss, pos_tr, fpr_range, seed)
        if valid_set is None:
            booster = lgb.train(params, train_set, num_boost_round=self.n_estimators)
            return booster, booster.current_iteration(), None, None
        feval = objectives.window_metric(fpr_range)
        stopping = _WindowStopping(feval.name, self.n_iter_no_change,
                                   max(1, self.n_iter_no_change // SMOOTHING_DIVISOR))
        callbacks = [stopping] + ([lgb.log_evaluation(1)] if self.verbose >= 2 else [])
        booster = lgb.train(params, train_set, num_boost_round=self.n_estimators,
                            valid_sets=[valid_set], valid_names=["validation"], feval=feval,
                            callbacks=callbacks)
        return (booster, stopping.best_round, np.asarray(stopping.history, dtype=np.float64),
                stopping.best)

    def fit(self, X, y, sample_weight=None):
        """Boost each candidate loss; keep the best on the validation window pAUC.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Finite values (LightGBM's missing-value handling is not used).
        y : array-like of shape (n_samples,)
            Two classes; the positive one is ``pos_label``.
        sample_weight : None or constant array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        fpr_range = self._check_params()
        X, is_pos = self._validate_training_data(X, y, sample_weight)
        rng = check_random_state(self.random_state)
        use_validation = (self.early_stopping if isinstance(self.early_stopping, bool)
                          else X.shape[0] >= EARLY_STOPPING_MIN_ROWS)
        X_tr, pos_tr, X_va, pos_va = self._split(X, is_pos, rng, use_validation, fpr_range)
        seed = int(rng.randint(np.iinfo(np.int32).max))
        if self.loss != "auto":
            candidates = (self.loss,)
        else:
            candidates = AUTO_CANDIDATES if use_validation else ("logloss",)
        train_set = self._dataset(X_tr, pos_tr, seed)
        valid_set = None if X_va is None else self._dataset(X_va, pos_va, seed, train_set)
        self.validation_history_, self.validation_score_ = {}, {}
        self.validation_rounds_, self.fit_seconds_ = {}, {}
        best = None
        for loss in candidates:
            start = time.perf_counter()
            booster, n_iter, curve, score = self._boost(loss, train_set, valid_set, pos_tr,
                                                        fpr_range, seed)
            self.fit_seconds_[loss] = time.perf_counter() - start
            if curve is not None:
                self.validation_history_[loss] = curve
                self.validation_score_[loss] = score
                self.validation_rounds_[loss] = n_iter
            if self.verbose:
                shown = "" if curve is None else f", validation pAUC {score:.4f}"
                print(f"[GradientBoostingRanker] {loss}: {n_iter} rounds{shown}, "
                      f"{self.fit_seconds_[loss]:.2f} s")
            # strictly better only: log-loss, the first candidate, wins ties
            if best is None or (curve is not None and score > best[0]):
                best = (score, loss, booster, n_iter)
        _, self.best_loss_, self.booster_, self.n_iter_ = best
        if self.refit and use_validation:
            # the kept loss and number of rounds, boosted again on every row
            start = time.perf_counter()
            self.booster_ = lgb.train(self._lgb_params(self.best_loss_, is_pos, fpr_range, seed),
                                      self._dataset(X, is_pos, seed),
                                      num_boost_round=self.n_iter_)
            self.fit_seconds_["refit"] = time.perf_counter() - start
        gain = self.booster_.feature_importance("gain", iteration=self.n_iter_)
        total = gain.sum()
        self.feature_importances_ = gain / total if total > 0 else np.zeros_like(gain)
        self._set_threshold(self._raw_scores(X), is_pos, fpr_range)
        return self

    @staticmethod
    def _dataset(X, is_pos, seed, reference=None):
        # feature_pre_filter off: on small data LightGBM would otherwise drop every
        # feature that min_child_samples cannot split, and refuse a custom objective
        return lgb.Dataset(X, label=is_pos.astype(np.float64), reference=reference,
                           params={"verbosity": -1, "seed": seed, "feature_pre_filter": False},
                           free_raw_data=False)

    def _set_threshold(self, scores, is_pos, fpr_range):
        """``threshold_`` at the training operating point (FPR = ``operating_fpr``,
        default beta, Youden's point for the whole curve)."""
        operating = self.operating_fpr
        if operating is None:
            operating = fpr_range[1] if fpr_range[1] < 1.0 else None
        self.threshold_ = operating_threshold(scores, is_pos, operating)

    # -------------------------------------------------------------- predict
    def _raw_scores(self, X):
        return np.asarray(self.booster_.predict(X, raw_score=True, num_iteration=self.n_iter_),
                          dtype=np.float64).ravel()

    def decision_function(self, X):
        """Boosted scores (higher = more likely ``classes_[1]``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=[np.float64, np.float32],
                          reset=False)
        return self._raw_scores(X)

    def predict(self, X):
        """``classes_[1]`` where ``decision_function(X) >= threshold_``, else ``classes_[0]``."""
        scores = self.decision_function(X)
        return self.classes_[(scores >= self.threshold_).astype(np.intp)]

    def score(self, X, y, sample_weight=None):
        """Partial AUC over ``fpr_range`` of ``decision_function(X)``, normalize="range"."""
        check_is_fitted(self)
        return metrics.partial_auc(y, self.decision_function(X), fpr_range=self.fpr_range,
                                   normalize="range", pos_label=self.classes_[1],
                                   sample_weight=sample_weight)
