"""GradientBoostingRanker: gradient-boosted trees that target the FPR window.

LightGBM grows the trees (Ke et al. 2017); pauc supplies the losses, the
stopping rules and the choice between them.  Log-loss and a window loss of
:mod:`pauc.objectives` (a pairwise loss over the pairs of a positive and a
negative ranked inside the FPR window ``[alpha, beta]`` by the current scores)
are boosted on a training part and stopped on a validation split.  The
reference is log-loss stopped on its own validation loss -- what LightGBM's
early stopping does; ``loss="auto"`` keeps it unless log-loss stopped on the
**validation partial AUC of the window**, or the window loss, beats it clearly
on the validation rows.  So on data where targeting the window does not pay
(noisy tops, a9a) it falls back instead of losing, and on clean, learnable
tops it takes the window.

Why each rule (measured on the panel of ``bench/panel_boost.py``: twelve
synthetic nonlinear problems, a9a and reuters, windows [0, 0.01],
[0.02, 0.05] and [0, 0.1]; the figures are in the user guide):

* *stopping on the window, averaged over rounds*: the validation window of a
  10 % split holds few negatives (27 for [0, 0.01] on 30 000 rows at 10 %
  positives), so its pAUC jumps by whole positives from round to round.
  The trailing mean over ``n_iter_no_change // 4`` rounds keeps a lucky round
  from stopping a candidate or winning the selection;
* *a window widened to 100 validation negatives*: when the window holds
  fewer, the criterion is the mean of its pAUC and that of ``[alpha, beta']``,
  the window extended to hold 100 validation negatives (lower variance, the
  same top of the list);
* *a bootstrap test against the reference*: a candidate replaces log-loss
  stopped on log-loss only if it is better on at least 84 % of paired
  bootstrap resamples of the validation rows (about one standard error).
  Picking the best validation value alone took the window loss on noisy
  problems (RF 20, moons, the clustered ``make_classification``) and lost up
  to 0.08 there, and stopping log-loss on the window alone stopped it early on
  a9a and lost to LightGBM's own early stopping;
* *no refit by default*: the kept model is the validated one, so that the
  fallback is LightGBM's early-stopped log-loss model itself.  ``refit=True``
  boosts the kept candidate again on every row: +0.004 test pAUC on average
  on the synthetic problems (17 of 18 cases), -0.002 on a9a.

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
import time

import lightgbm as lgb
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.model_selection import train_test_split
from sklearn.utils import check_random_state

from .._base import (BOOLEAN, FPR_RANGE, N_JOBS, POS_LABEL, RANDOM_STATE, VERBOSE, BaseRanker,
                     Interval, Options)
from .._dispatch import chunked, is_chunked, is_dask_collection
from .._threshold import operating_threshold, predict_labels
from .._validation import check_fpr_range, empirical_indices
# the module, not its names: pauc.objectives imports this package's kernels
from .. import metrics, objectives
from . import _engines
from ._engines import effective_threads as _effective_threads

# loss="auto": the losses boosted, log-loss first (the reference).  The squared and
# the tight hinge were never the better window loss on the panel (module docstring).
AUTO_CANDIDATES = ("logloss", "exponential")
# A candidate replaces the reference only if it beats it on the validation rows in
# this share of paired bootstrap resamples (about one standard error).
SELECTION_CONFIDENCE = 0.84
BOOTSTRAP_ROUNDS = 200
# The validation curve is averaged over n_iter_no_change // SMOOTHING_DIVISOR
# rounds before stopping and selecting (see _WindowStopping).
SMOOTHING_DIVISOR = 4
# A validation window with fewer negatives is averaged with a widened one.
VALIDATION_MIN_NEGATIVES = 100
# early_stopping="auto" holds out a validation split from this many rows on
# (the 10 % split then holds 200 rows).
EARLY_STOPPING_MIN_ROWS = 2000
# n_estimators="auto": the cap of rounds with early stopping, and the number
# of rounds without it (LightGBM's and HistGradientBoostingClassifier's default).
AUTO_ROUNDS = {True: 2000, False: 100}


class _ValidationCriterion:
    """The validation statistic of stopping and selection: the mean partial AUC
    (``normalize="range"``) over ``windows`` -- the FPR window, and a widened one
    when the window holds few validation negatives.  Also LightGBM's ``feval``
    on the validation rows ``is_pos``, whose labels are checked once here rather
    than at every round."""

    def __init__(self, windows, is_pos):
        self.windows = windows
        self.is_pos = np.ascontiguousarray(is_pos, dtype=np.bool_)
        self.name = "+".join(f"pauc[{a:g},{b:g}]" for a, b in windows)

    def value(self, is_pos, scores):
        scores = np.asarray(scores, dtype=np.float64).ravel()
        return float(np.mean(metrics._window_paucs(is_pos, scores, self.windows)))

    def __call__(self, preds, data):
        return self.name, self.value(self.is_pos, preds), True


def validation_windows(n_neg, fpr_range):
    """The windows averaged by the validation criterion, for ``n_neg`` validation
    negatives: the FPR window alone when it holds at least
    ``VALIDATION_MIN_NEGATIVES`` of them (or reaches FPR 1), else also
    ``(alpha, beta')`` with ``beta'`` the FPR of ``floor(n alpha) + 100``
    negatives."""
    alpha, beta = fpr_range
    j_alpha, j_beta = empirical_indices(n_neg, fpr_range)
    if j_beta - j_alpha >= VALIDATION_MIN_NEGATIVES or beta >= 1.0:
        return [fpr_range]
    wide = min(1.0, (j_alpha + VALIDATION_MIN_NEGATIVES) / n_neg)
    return [fpr_range, (alpha, wide)] if wide > beta else [fpr_range]


class _WindowStopping:
    """LightGBM callback: stop on the validation criterion, averaged over rounds.

    Records the validation criterion (:class:`_ValidationCriterion`) of every
    round.  The stopping rule compares the mean of the last ``width`` rounds (a
    trailing average), so that one lucky round -- the window of a validation
    split holds few negatives, and its pAUC jumps by whole positives -- neither
    stops the boosting nor becomes the kept model: the kept round is the middle
    of the best stretch, and ``best`` its average.  Boosting stops once the
    average has not improved for ``patience`` rounds.

    With ``loss_metric`` (log-loss boosting: LightGBM's ``binary_logloss`` on
    the validation rows) it also tracks the round of least validation log-loss,
    and boosting goes on until both rules have run out of patience.
    """

    order = 30      # after LightGBM's own callbacks

    def __init__(self, metric_name, patience, width, loss_metric=None):
        self.metric_name, self.patience, self.width = metric_name, patience, width
        self.loss_metric = loss_metric
        self.history, self.best, self.best_end = [], -np.inf, 0
        self.loss_best, self.loss_round = np.inf, 0

    @property
    def best_round(self):
        """The kept number of rounds by the window criterion (1-based)."""
        return max(1, self.best_end + 1 - (self.width - 1) // 2)

    def __call__(self, env):
        results = {r[1]: r[2] for r in env.evaluation_result_list}
        self.history.append(results[self.metric_name])
        t = len(self.history) - 1
        mean = float(np.mean(self.history[max(0, t + 1 - self.width):]))
        if mean > self.best:
            self.best, self.best_end = mean, t
        done = t - self.best_end >= self.patience
        if self.loss_metric is not None:
            if results[self.loss_metric] < self.loss_best:
                self.loss_best, self.loss_round = results[self.loss_metric], t + 1
            done = done and t + 1 - self.loss_round >= self.patience
        if done:
            # LightGBM keeps the trees up to this round: those of both rules
            raise lgb.callback.EarlyStopException(max(self.best_round, self.loss_round) - 1, [])


class _LossName:
    """Constraint: ``"auto"`` or a loss of :mod:`pauc.objectives`, read when checked
    (``pauc.objectives`` imports this package's kernels, so not at class creation)."""

    def _options(self):
        return Options("auto", *objectives.LOSSES)

    def accepts(self, value):
        return self._options().accepts(value)

    def __str__(self):
        return str(self._options())


def _label(loss, rule):
    """Name of a candidate: the loss, with ``@window`` when log-loss is stopped on
    the window criterion instead of its own validation loss."""
    return f"{loss}@window" if loss == "logloss" and rule == "window" else loss


class GradientBoostingRanker(BaseRanker, ClassifierMixin, BaseEstimator):
    """Gradient-boosted trees (LightGBM) that win the partial AUC in an FPR window.

    Boosts regression trees on log-loss and on a window loss -- a pairwise
    loss over the pairs of a positive and a negative ranked ``j_alpha + 1 ..
    j_beta`` by the current scores, ``j_alpha = floor(n alpha)``, ``j_beta =
    ceil(n beta)`` on the ``n`` training negatives (Narasimhan & Agarwal,
    eq. (2)) --, stops them on a validation split, and keeps log-loss stopped
    on its own validation loss unless a candidate targeting the window beats
    it clearly on the validation rows (``loss="auto"``; the rules and their
    measurements are in the module :mod:`pauc.boost._gbm` and the user guide).
    LightGBM is the engine; the losses are in :mod:`pauc.objectives`.

    Parameters
    ----------
    fpr_range : (float, float), default=(0.0, 1.0)
        The FPR window ``(alpha, beta)``; ``(0, 1)`` targets the full AUC.
    loss : {"auto", "logloss", "exponential", "squared_hinge", "tight_hinge"}, default="auto"
        ``"auto"`` boosts log-loss and the window exponential loss.  Its
        candidates are log-loss stopped on the validation log-loss (the
        reference), log-loss stopped on the validation criterion and the
        window loss stopped on the validation criterion; a candidate replaces
        the reference only if it has the higher criterion on at least 84 % of
        200 paired bootstrap resamples of the validation rows (then the best
        such candidate is kept).  ``"logloss"``: the two log-loss candidates;
        a window loss: that loss alone.  Without a validation split
        (``early_stopping`` off) ``"auto"`` is log-loss.  Log-loss runs
        LightGBM's own binary objective; the window losses are defined in
        :mod:`pauc.objectives`.
    n_estimators : int or "auto", default="auto"
        Boosting rounds per candidate: the maximum with early stopping, the
        number without.  ``"auto"``: 2000 with early stopping, 100 without.
    learning_rate : float, default=0.1
    num_leaves : int, default=31
        Leaves per tree (LightGBM grows trees leaf-wise).
    min_child_samples : int, default=20
        Minimum number of training rows in a leaf.
    reg_lambda : float, default=0.0
        L2 penalty on the leaf values (LightGBM's ``lambda_l2``).
    early_stopping : "auto" or bool, default="auto"
        Hold out ``validation_fraction`` of the rows (stratified) and stop each
        loss when its validation criterion -- the window pAUC, averaged with
        that of a widened window when the window holds fewer than 100
        validation negatives (``validation_windows_``) -- has not improved for
        ``n_iter_no_change`` rounds (log-loss: and its validation log-loss
        neither), keeping the best rounds.  ``"auto"``: on from 2000 training
        rows.
    validation_fraction : float in (0, 1), default=0.1
    n_iter_no_change : int, default=100
        Patience of early stopping, in rounds.  The validation pAUC is first
        averaged over the last ``n_iter_no_change // 4`` rounds, so that a
        lucky round neither stops a candidate nor wins the selection.
    refit : bool, default=False
        With a validation split: boost the kept loss again on every row
        (training and validation) for the kept number of rounds.  False keeps
        the validated model, boosted on the training part.
    operating_fpr : float in [0, 1] or None, default=None
        Training FPR at which :meth:`predict` thresholds the scores; None
        means ``beta``, or Youden's point (maximal TPR - FPR) when the window
        is the whole curve (``beta = 1``).
    pos_label : label, default=None
        The positive class.  None: 1 (or True) when the labels are {0, 1},
        {-1, 1} or booleans; other label sets must name it.
    random_state : int, RandomState instance or None, default=None
        Seeds the validation split and LightGBM.
    n_jobs : int or None, default=None
        LightGBM threads; None means 1, -1 all cores.  The fitted model does
        not depend on it (LightGBM's ``deterministic=True``, row-wise
        histograms: identical models with 1 and 2 threads in the tests).
    verbose : int, default=0
        ``1`` prints one line per candidate loss, ``2`` also LightGBM's
        validation log every round.
    engine : {"lightgbm", "xgboost"}, default="lightgbm"
        The library that grows the trees: the same losses, stopping and
        selection on either (:mod:`pauc.boost._engines`).  ``"xgboost"`` is
        required for dask input: ``fit`` on a dask array or dataframe trains
        with ``xgboost.dask`` on the ``distributed`` cluster, every round on
        the exact global window of all workers (:mod:`pauc.distributed`).

    Attributes
    ----------
    booster_ : lightgbm.Booster
        The kept model (truncated to ``n_iter_`` rounds when predicting).
    best_loss_ : str
        The loss of the kept model.
    n_iter_ : int
        Its number of boosting rounds (the kept validation round with early
        stopping, else the number of rounds).
    validation_windows_ : list of (float, float)
        The windows whose mean validation pAUC is the criterion of stopping and
        selection: ``[fpr_range]``, or ``[fpr_range, (alpha, beta')]`` when the
        window holds fewer than 100 validation negatives (``beta'`` the FPR of
        ``floor(n alpha) + 100`` of them); empty without a validation split.
    validation_history_ : dict of str -> ndarray
        The validation criterion after every round, per candidate loss (empty
        without a validation split).
    validation_score_ : dict of str -> float
        Per candidate, its best validation criterion averaged over
        ``n_iter_no_change // 4`` consecutive rounds (empty without a
        validation split).
    validation_rounds_ : dict of str -> int
        Per candidate, its number of rounds: ``"logloss"`` (least validation
        log-loss), ``"logloss@window"`` (log-loss by the validation
        criterion, when the two differ), the window loss's name (the middle of
        its best stretch).
    stopped_on_ : {"logloss", "window", "fixed"}
        The stopping rule of the kept candidate (``"fixed"``: no validation).
    selection_confidence_ : dict of str -> float
        Per candidate other than the reference, the share of bootstrap
        resamples of the validation rows on which it beat the reference (ties
        count one half).
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
        ``[negative label, positive label]``: ``classes_[1]`` is the class at
        the top of the list.
    pos_label_ : label
        The positive class, ``classes_[1]``.
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

    _parameter_constraints = {
        "fpr_range": FPR_RANGE,
        "loss": [_LossName()],
        "n_estimators": [Options("auto"), Interval(int, 1)],
        "learning_rate": [Interval(float, 0.0, closed="neither")],
        "num_leaves": [Interval(int, 2)],
        "min_child_samples": [Interval(int, 1)],
        "reg_lambda": [Interval(float, 0.0)],
        "early_stopping": [Options("auto", True, False)],
        "validation_fraction": [Interval(float, 0.0, 1.0, closed="neither")],
        "n_iter_no_change": [Interval(int, 1)],
        "refit": BOOLEAN,
        "operating_fpr": [Options(None), Interval(float, 0.0, 1.0)],
        "pos_label": POS_LABEL,
        "random_state": RANDOM_STATE,
        # LightGBM's threads: None = 1, -1 = every core; 0 means nothing
        "n_jobs": [Options(None), Interval(int, 1), Interval(int, high=-1)],
        "verbose": VERBOSE,
        "engine": [Options(*_engines.ENGINES)],
    }

    def __init__(self, fpr_range=(0.0, 1.0), *, loss="auto", n_estimators="auto",
                 learning_rate=0.1, num_leaves=31, min_child_samples=20, reg_lambda=0.0,
                 early_stopping="auto", validation_fraction=0.1, n_iter_no_change=100,
                 refit=False, operating_fpr=None, pos_label=None, random_state=None,
                 n_jobs=None, verbose=0, engine="lightgbm"):
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
        self.engine = engine

    # ------------------------------------------------------------ validation
    def _check_weights(self, weight):
        """Refuse non-uniform ``sample_weight`` (see Notes)."""
        if weight is not None and not (weight.size and weight[0] > 0
                                       and np.all(weight == weight[0])):
            raise NotImplementedError(
                f"{type(self).__name__} does not support non-uniform sample_weight: a "
                "weighted window would need the FPR range measured in negative weight, "
                "which the window losses do not implement. Resample the rows instead, "
                "or pass sample_weight=None.")

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
            # identical models for any number of threads (tested for 1 and 2), and
            # no timing test to choose the histogram layout (row-wise is the
            # faster one on a9a: 0.94 s against 1.22 s for 200 rounds)
            "deterministic": True,
            "force_row_wise": True,
            "verbosity": -1,
            "metric": "None",
        }
        if loss == "logloss":
            params["objective"] = "binary"
        else:
            params["objective"] = objectives.window_objective(pos_tr, fpr_range, loss)
        return params

    def _boost(self, loss, train_set, valid_set, criterion, X_tr, pos_tr, fpr_range, seed):
        """One loss: ``(booster, rounds, history, score, training_scores)``.
        ``rounds`` maps each stopping rule to its kept number of rounds:
        ``"window"`` (the validation criterion), and for log-loss also
        ``"logloss"`` (the validation log-loss); without a validation split
        ``{"fixed": n}``, no history or score, and the scores on ``X_tr`` when
        they come without a prediction (see :meth:`_training_scores`)."""
        if self.engine == "xgboost":
            return _engines.boost_xgboost(self, loss, train_set, valid_set, criterion, X_tr,
                                          pos_tr, fpr_range, seed,
                                          max(1, self.n_iter_no_change // SMOOTHING_DIVISOR))
        params = self._lgb_params(loss, pos_tr, fpr_range, seed)
        n_rounds = self._rounds(valid_set is not None)
        if valid_set is None:
            booster = lgb.train(params, train_set, num_boost_round=n_rounds)
            return (booster, {"fixed": booster.current_iteration()}, None, None,
                    self._training_scores(booster, params, X_tr))
        if loss == "logloss":
            params["metric"] = "binary_logloss"
        stopping = _WindowStopping(criterion.name, self.n_iter_no_change,
                                   max(1, self.n_iter_no_change // SMOOTHING_DIVISOR),
                                   "binary_logloss" if loss == "logloss" else None)
        callbacks = [stopping] + ([lgb.log_evaluation(1)] if self.verbose >= 2 else [])
        booster = lgb.train(params, train_set, num_boost_round=n_rounds,
                            valid_sets=[valid_set], valid_names=["validation"],
                            feval=criterion, callbacks=callbacks)
        rounds = {"window": stopping.best_round}
        if loss == "logloss":
            rounds["logloss"] = max(1, stopping.loss_round)
        return (booster, rounds, np.asarray(stopping.history, dtype=np.float64), stopping.best,
                None)

    @staticmethod
    def _training_scores(booster, params, X):
        """The raw scores of ``booster`` on its training rows ``X``, all its trees,
        without predicting every tree: a window objective saw the scores of every
        round but the last tree's, so only that tree is predicted (a prediction of
        every tree costs about a third of the boosting on a9a).  None for
        LightGBM's own objective."""
        objective = params["objective"]
        if not isinstance(objective, objectives.WindowObjective) or objective.n_calls == 0:
            return None
        n_trees = booster.current_iteration()
        scores = objective.last_scores
        if objective.n_calls == n_trees:
            # the last call came before the last tree (else LightGBM stopped for
            # want of splits, and the last call saw every tree)
            scores = scores + booster.predict(X, raw_score=True, start_iteration=n_trees - 1,
                                              num_iteration=1)
        return scores

    def _rounds(self, with_validation):
        if self.n_estimators == "auto":
            return AUTO_ROUNDS[bool(with_validation)]
        return self.n_estimators

    def fit(self, X, y, sample_weight=None):
        """Boost each candidate loss; keep the reference or a clearly better candidate.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Finite values (LightGBM's missing-value handling is not used).  A
            dask array or dataframe (with ``engine="xgboost"`` and a
            ``dask.distributed`` client) is fitted on the cluster, the rows
            staying on their workers (:mod:`pauc.distributed._boosting`).
        y : array-like of shape (n_samples,)
            Two classes; the positive one is ``pos_label``.
        sample_weight : None or constant array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        if is_chunked(X, y) or is_dask_collection(X, y):
            # rows on a dask cluster: xgboost.dask on the global window (pauc._dispatch)
            return chunked("boosting_fit")(self, X, y, sample_weight)
        self._validate_params()
        fpr_range = check_fpr_range(self.fpr_range)
        X, is_pos, weight = self._validate_training_data(X, y, sample_weight)
        self._check_weights(weight)
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
        valid_set = criterion = None
        self.validation_windows_ = []
        if X_va is not None:
            valid_set = self._dataset(X_va, pos_va, seed, train_set)
            self.validation_windows_ = validation_windows(int((~pos_va).sum()), fpr_range)
            criterion = _ValidationCriterion(self.validation_windows_, pos_va)
        self.validation_history_, self.validation_score_ = {}, {}
        self.validation_rounds_, self.fit_seconds_ = {}, {}
        # the candidates, (loss, stopping rule, booster, rounds): log-loss stopped on
        # the validation log-loss first -- the reference of the selection
        boosted, training_scores = [], None
        for loss in candidates:
            start = time.perf_counter()
            # training_scores: without a validation split, the one candidate's
            booster, rounds, curve, score, training_scores = self._boost(
                loss, train_set, valid_set, criterion, X_tr, pos_tr, fpr_range, seed)
            self.fit_seconds_[loss] = time.perf_counter() - start
            if curve is not None:
                self.validation_history_[loss] = curve
                self.validation_score_[loss] = score
            for rule in ("fixed", "logloss", "window"):
                if rule in rounds and not (rule == "window" and rounds.get("logloss")
                                           == rounds["window"]):
                    boosted.append((loss, rule, booster, rounds[rule]))
            if self.verbose:
                shown = "" if curve is None else f", validation criterion {score:.4f}"
                print(f"[GradientBoostingRanker] {loss}: rounds {rounds}{shown}, "
                      f"{self.fit_seconds_[loss]:.2f} s")
        self.validation_rounds_ = {_label(loss, rule): n for loss, rule, _, n in boosted
                                   if rule != "fixed"}
        self.best_loss_, self.stopped_on_, self.booster_, self.n_iter_ = self._select(
            boosted, X_va, pos_va, criterion, rng)
        if use_validation and self.refit:
            # the kept loss and number of rounds, boosted again on every row
            start = time.perf_counter()
            if self.engine == "xgboost":
                self.booster_, training_scores = _engines.train_xgboost_fixed(
                    self, self.best_loss_, X, is_pos, fpr_range, seed, self.n_iter_)
            else:
                params = self._lgb_params(self.best_loss_, is_pos, fpr_range, seed)
                self.booster_ = lgb.train(params, self._dataset(X, is_pos, seed),
                                          num_boost_round=self.n_iter_)
                training_scores = self._training_scores(self.booster_, params, X)
            self.fit_seconds_["refit"] = time.perf_counter() - start
        gain = _engines.importances(self.booster_, self.n_iter_, X.shape[1])
        total = gain.sum()
        self.feature_importances_ = gain / total if total > 0 else np.zeros_like(gain)
        if training_scores is None:
            training_scores = self._raw_scores(X)
        self._set_threshold(training_scores, is_pos, fpr_range)
        return self

    def _select(self, boosted, X_va, pos_va, criterion, rng):
        """The kept candidate ``(loss, rule, booster, rounds)``: the first one (log-loss
        stopped on the validation log-loss), unless another beats it on the
        validation criterion in at least ``SELECTION_CONFIDENCE`` of
        ``BOOTSTRAP_ROUNDS`` paired bootstrap resamples of the validation rows
        (positives and negatives resampled separately); then, among those, the one
        of highest criterion.  Sets ``selection_confidence_``."""
        self.selection_confidence_ = {}
        if len(boosted) == 1:
            return boosted[0]
        scores = [_engines.predict(booster, X_va, n) for _, _, booster, n in boosted]
        pos_rows, neg_rows = np.flatnonzero(pos_va), np.flatnonzero(~pos_va)
        boot = np.random.RandomState(rng.randint(np.iinfo(np.int32).max))
        wins = np.zeros(len(boosted))
        for _ in range(BOOTSTRAP_ROUNDS):
            rows = np.concatenate([boot.choice(pos_rows, pos_rows.size),
                                   boot.choice(neg_rows, neg_rows.size)])
            values = [criterion.value(pos_va[rows], s[rows]) for s in scores]
            wins += [1.0 if v > values[0] else 0.5 if v == values[0] else 0.0 for v in values]
        full = [criterion.value(pos_va, s) for s in scores]
        kept = 0
        for k in range(1, len(boosted)):
            confidence = wins[k] / BOOTSTRAP_ROUNDS
            self.selection_confidence_[_label(*boosted[k][:2])] = confidence
            if confidence >= SELECTION_CONFIDENCE and full[k] > full[kept]:
                kept = k
        return boosted[kept]

    def _dataset(self, X, is_pos, seed, reference=None):
        if self.engine == "xgboost":
            return _engines.xgboost_dataset(X, is_pos, self.n_jobs, reference)
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
        return _engines.predict(self.booster_, X, self.n_iter_)

    def decision_function(self, X):
        """Boosted scores (higher = more likely ``classes_[1]``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,)
        """
        if is_chunked(X) or is_dask_collection(X):
            return chunked("boosting_scores")(self, X)     # lazy, on the workers
        return self._raw_scores(self._validate_X(X))

    def predict(self, X):
        """``classes_[1]`` where ``decision_function(X) >= threshold_``, else ``classes_[0]``."""
        return predict_labels(self.decision_function(X), self.classes_, self.threshold_)
