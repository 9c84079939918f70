"""GradientBoostingRanker: gradient-boosted trees that target the FPR window.

An engine grows the trees (:mod:`pauc.gbm.engines`): LightGBM (Ke et al. 2017,
``engine="lightgbm"``, the default) or XGBoost (Chen & Guestrin 2016,
``engine="xgboost"``, also the engine of a fit on a Dask cluster), and on small
data, whichever the engine, pauc's own oblivious trees grow the reference
candidates (:mod:`pauc.gbm.engines._oblivious`, CatBoost's tree shape); pauc
supplies the losses, the cross-fitted stopping and the choice between
candidates, written once for every engine (:mod:`pauc.gbm._plan`).  With ``loss="auto"``
the candidates of :mod:`pauc.gbm._candidates` are boosted -- on small data
log-loss on oblivious trees (the reference), log-loss on the engine's trees and
the window exponential loss of :mod:`pauc.objectives` (a pairwise loss over the
pairs of a positive and a negative ranked inside the FPR window ``[alpha,
beta]`` by the current scores); on larger data the engine's log-loss (the
reference), the window exponential loss, and log-loss with small regularised
trees, with exact and with extremely randomised splits (on XGBoost: node-wise
feature sampling) -- each on ``K - 1``
folds and stopped on the held-out fold (:mod:`pauc.gbm._plan`), racing: a
candidate that cannot catch the leader is dropped (:mod:`pauc.gbm._race`).
The survivors' pooled out-of-fold scores,
which hold every training negative rather than a validation split's tenth,
choose among them and among rank blends of them (:mod:`pauc.gbm._selection`),
and the final scores are the kept candidate's K fold models averaged
(fold bagging).

Why each rule is in the user guide; the measured figures are in
``docs/developer/measurements.rst``.

References
----------
Ke, G. et al. "LightGBM: A Highly Efficient Gradient Boosting Decision Tree."
NIPS 2017.

Chen, T. and Guestrin, C. "XGBoost: A Scalable Tree Boosting System." KDD 2016.

Prokhorenkova, L., Gusev, G., Vorobev, A., Dorogush, A. V. and Gulin, A.
"CatBoost: unbiased boosting with categorical features." NeurIPS 2018.

Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for Optimizing the
Partial Area Under the ROC Curve." Neural Computation 29(7), 2017.

Caruana, R., Niculescu-Mizil, A., Crew, G. and Ksikes, A. "Ensemble Selection
from Libraries of Models." ICML 2004.

Freund, Y., Iyer, R., Schapire, R. E. and Singer, Y. "An Efficient Boosting
Algorithm for Combining Preferences." JMLR 4, 2003.
"""

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from .._base import (BOOLEAN, FPR_RANGE, POS_LABEL, RANDOM_STATE, VERBOSE, BaseRanker,
                     Interval, LossName, Options, Satisfies)
from .._dispatch import chunked, is_chunked, is_dask_collection
from .._threshold import predict_labels
from .._validation import check_fpr_range, indices_among
from ._candidates import LOGLOSS, candidates
from .engines import SELECTABLE, effective_threads
from ._plan import (BOOTSTRAP_ROUNDS, ENSEMBLE_STEPS, SELECTION_CONFIDENCE,  # noqa: F401
                   SMOOTHING_DIVISOR, Plan, fit_plan, operating_threshold_of)
from ._local_trainer import LocalTrainer
from . import _race, _stopping
from ._stopping import VALIDATION_MIN_NEGATIVES, validation_windows  # noqa: F401 (re-exported)

# n_estimators="auto": the cap of rounds with early stopping (CatBoost's 1000: on
# separable data the held-out log-loss falls for ever, and the small-tree candidates
# ran to any cap), and the number of rounds without it (LightGBM's and
# HistGradientBoostingClassifier's default).
AUTO_ROUNDS = {True: 1000, False: 100}


def _check_cv(cv):
    """``"auto"``, an int >= 1, or an object with ``split`` and ``get_n_splits``."""
    if isinstance(cv, str):
        if cv != "auto":
            raise ValueError(cv)
        return cv
    if isinstance(cv, (bool, np.bool_)):
        raise TypeError(cv)
    if isinstance(cv, (int, np.integer)):
        if cv < 1:
            raise ValueError(cv)
        return cv
    if not (hasattr(cv, "split") and hasattr(cv, "get_n_splits")):
        raise TypeError(cv)
    return cv


def _varying_features(X):
    """Whether any column of ``X`` (dense or CSR) holds two distinct values."""
    if hasattr(X, "tocsc"):
        X = X.tocsc()
        if X.nnz == 0:
            return False
        nnz = np.diff(X.indptr)
        full = nnz == X.shape[0]
        mins, maxs = X.min(axis=0).toarray().ravel(), X.max(axis=0).toarray().ravel()
        return bool(np.any((maxs > mins) | ((nnz > 0) & ~full & ((maxs != 0) | (mins != 0)))))
    return bool(np.any(np.ptp(X, axis=0) > 0))


class GradientBoostingRanker(BaseRanker, ClassifierMixin, BaseEstimator):
    """Gradient-boosted trees (LightGBM or XGBoost) that win the partial AUC in an FPR window.

    Boosts regression trees on log-loss and on a window loss -- a pairwise
    loss over the pairs of a positive and a negative ranked ``j_alpha + 1 ..
    j_beta`` by the current scores, ``j_alpha = floor(n alpha)``, ``j_beta =
    ceil(n beta)`` on the ``n`` training negatives (Narasimhan & Agarwal,
    eq. (2)) --, cross-fits them: each candidate is boosted on ``K - 1`` folds
    and stopped on the held-out folds (all its folds at one round, chosen on
    the held-out rows of every fold); the pooled out-of-fold partial AUC of
    the window chooses among the candidates and their rank blends (greedy
    ensemble selection, Caruana et al. 2004); the kept candidate's K fold
    models are averaged.  LightGBM or XGBoost grows the trees (``engine``,
    :mod:`pauc.gbm.engines`), and on small data pauc's own oblivious trees
    grow the reference candidates on either; the window losses are in
    :mod:`pauc.objectives`.

    Parameters
    ----------
    fpr_range : (float, float), default=(0.0, 1.0)
        The FPR window ``(alpha, beta)``; ``(0, 1)`` targets the full AUC.
    loss : {"auto", "logloss", "exponential", "squared_hinge", "tight_hinge"}, default="auto"
        ``"auto"``: on small data (``n_samples x n_features`` at most
        ``10**6``, and at most 100 features) the candidates ``"logloss-oblivious"``
        (the reference: log-loss on pauc's oblivious trees of depth 6 with
        CatBoost's cosine score, random strength 1, minimal variance sampling
        of 80 % of the rows, L2 penalty 0.3 and learning rate 0.1, stopped on the
        held-out log-loss; the tree parameters below are LightGBM's and do not
        apply to it), ``"logloss"`` (LightGBM's binary objective with
        this estimator's tree parameters, stopped on the held-out log-loss)
        and ``"exponential"`` (the window exponential loss, stopped on the
        held-out window criterion); on larger data ``"logloss"`` (the
        reference), ``"exponential"``, ``"logloss-small"`` (log-loss with
        7-leaf trees, learning rate 0.03, 10 rows per leaf, L2 penalty 3, 80 %
        row and feature subsampling) and ``"logloss-extra"`` (the same with
        extremely randomised splits).  Besides them the blends ``"blend"``
        (the mean of the normalised ranks of ``"logloss"`` and
        ``"exponential"``), ``"mean"`` (that of all the candidates) and
        ``"ensemble"`` (greedy ensemble selection over them, judged on weights
        chosen on one half of the rows and applied to the other).  The
        candidate of highest pooled out-of-fold criterion is kept, provided it
        also beats the reference on at least 84 % of 100 paired bootstrap
        resamples (``SELECTION_CONFIDENCE``); else the reference.  With fewer
        than 100 training positives
        (``pauc.gbm._candidates.SELECTION_MIN_POSITIVES``: the out-of-fold
        comparison of so few positives chooses by noise) the reference is
        boosted alone on larger data, and on small data beside
        ``"logloss-fixed"``: the same oblivious trees boosted as CatBoost's
        defaults boost them, a fixed budget of 1000 rounds (``n_estimators``)
        without held-out stopping, at CatBoost's learning rate for the number
        of rows (``0.010302 * (n_samples / 1000) ** 0.427``), each leaf 10
        damped Newton steps on every row, L2 penalty 3, the random strength
        fading as the model grows; the reference is cross-fitted first, and
        where its window is saturated (its pooled out-of-fold criterion, one
        standard error below, at least 0.9 of the way from chance to perfect:
        ``pauc.gbm._plan.SATURATED_CRITERION``; the candidates tie there) the
        fixed budget is not cross-fitted but boosted once on every row and
        kept -- CatBoost's defaults, with ``n_estimators`` 1000 -- else it is
        cross-fitted after the reference and kept by the same bar.  A named loss
        boosts that loss alone.  Without early stopping ``"auto"`` is
        log-loss on ``engine``.
    n_estimators : int or "auto", default="auto"
        Boosting rounds per candidate and fold: the maximum with early
        stopping, the number without.  ``"auto"``: 1000 with early stopping,
        100 without.
    learning_rate : float, default=0.1
    num_leaves : int, default=31
        Leaves per tree (LightGBM grows trees leaf-wise).
    min_child_samples : int, default=20
        LightGBM's ``min_data_in_leaf``.  With a window loss LightGBM counts a
        leaf's rows through its share of the Hessian sum, so a leaf may hold
        fewer rows than this (the window loss puts its curvature on the
        positives and the window negatives); with log-loss it is the
        minimum number of rows.
    reg_lambda : float, default=0.0
        L2 penalty on the leaf values (LightGBM's ``lambda_l2``).
    early_stopping : "auto" or bool, default="auto"
        Cross-fit and stop each candidate on held-out folds (``cv``) when the
        held-out criterion -- the window pAUC, averaged with that of a widened
        window when the window holds fewer than 100 held-out negatives -- or,
        for log-loss candidates, the held-out log-loss has not improved for
        ``n_iter_no_change`` rounds.  In memory a candidate's folds boost side
        by side and stop together below 1000 training positives: the rule
        reads the pooled curve of every fold's held-out rows (the log-loss of
        all of them, or the folds' mean window criterion), so that one round --
        not each fold's own, read on a fifth of the positives -- ends every
        fold model (``cv_results_["stopping"]``; with more positives, and on a
        cluster, each fold stops on its own).  With ``loss="auto"`` the
        candidates race (:mod:`pauc.gbm._race`): they advance side by side,
        50 rounds at a time, on every fold (where each fold stops on its own:
        the first fold, then the others), and one whose
        criterion on the held-out rows seen so far trails the leader's by more
        than 4 standard errors (after what it could still gain), and that
        does not help their greedy ensemble, is dropped
        (``cv_results_["dropped"]``).
        ``"auto"``: on whenever the data hold two rows of each class; False
        boosts ``n_estimators`` rounds on every row.
    cv : "auto", int or cross-validation splitter, default="auto"
        The folds of early stopping.  An int ``K >= 2``: stratified K-fold
        (shuffled, seeded by ``random_state``); ``1``: one stratified
        validation split of ``validation_fraction``; a splitter: its
        ``split(X, y)``.  ``"auto"``: one validation split where its window
        holds at least 1000 negatives and it holds 1000 positives, else 5
        folds up to 10,000 rows and 3 above (never more folds than positives).
    validation_fraction : float in (0, 1), default=0.1
        The held-out share of the single validation split (``cv=1``).
    n_iter_no_change : int, default=100
        Patience of early stopping, in rounds.  The held-out pAUC is first
        averaged over the last ``n_iter_no_change // 4`` rounds, so that a
        lucky round neither stops a window candidate nor is kept.  A log-loss
        candidate waits as many rounds as its least held-out log-loss took,
        at least 20, at most ``n_iter_no_change``.
    refit : bool, default=False
        Boost the kept candidates again on every row for the mean of their
        fold rounds, instead of averaging the fold models (the fixed budget
        of a saturated window is boosted on every row either way).
    operating_fpr : float in [0, 1] or None, default=None
        FPR at which :meth:`predict` thresholds the scores: the mean over the
        folds of the threshold that keeps it on the fold's held-out rows,
        scored by the fold's models (rows they did not see: an estimate of the
        FPR on new rows), or the threshold of the training scores where the
        model was boosted on every row (``refit=True``, no early stopping, the
        fixed budget of a saturated window).  None means ``beta``, or Youden's
        point (maximal TPR - FPR) when the window is the whole curve
        (``beta = 1``).
    pos_label : label, default=None
        The positive class.  None: 1 (or True) when the labels are {0, 1},
        {-1, 1} or booleans; other label sets must name it.
    random_state : int, RandomState instance or None, default=None
        Seeds the folds, the engine and the bootstrap.
    n_jobs : int or None, default=None
        Threads: the (candidate, fold) fits of each phase of the race run
        in parallel, each engine with its share of the threads.  None means
        1, -1 all cores.  On dask
        data, the threads of each worker's XGBoost (the folds run one after
        the other on the whole cluster), capped at the threads the worker
        has (None means 1, -1 all of them).  The
        fitted model does not depend on it (each fit has its own seed, and
        LightGBM runs with ``deterministic=True``; XGBoost's histogram
        method is deterministic).
    verbose : int, default=0
        ``1`` prints one line per candidate, ``2`` also the engine's held-out
        log every round.
    engine : {"lightgbm", "xgboost"}, default="lightgbm"
        The library that grows the trees: the same candidates, cross-fitting,
        stopping, selection and bagging on either (the small-data reference
        ``"logloss-oblivious"`` grows pauc's own oblivious trees on both); the tree parameters are
        LightGBM's, mapped to XGBoost's by :mod:`pauc.gbm.engines` (where
        XGBoost differs: no minimum row count per leaf, so
        ``min_child_samples`` applies to LightGBM only; node-wise feature
        sampling in place of the extra-trees candidate's random thresholds;
        margins start at 0).  ``"xgboost"`` is required for dask input:
        ``fit`` on a dask array or dataframe trains with ``xgboost.dask`` on
        the ``distributed`` cluster with the same ``cv`` rule (folds assigned on
        the workers, stratified; ``cv`` "auto" or an int), every round on the
        exact global window of all workers
        (:mod:`pauc.distributed._cluster_trainer`).

    Attributes
    ----------
    cv_results_ : dict of str -> list
        One entry per candidate: the race's survivors (boosted ones first,
        then the blends formed from them), then the candidates the race
        dropped, in pool order.  Keys:

        * ``"candidate"``: the name;
        * ``"oof_score"``: the pooled out-of-fold criterion (NaN for a dropped
          candidate: it has no held-out scores on every fold; NaN for
          ``"logloss-fixed"`` on a saturated window: boosted once on every
          row, not cross-fitted -- its ``"rounds"`` are that model's, its
          ``"boosted_rounds"`` and ``"capped_folds"`` None);
        * ``"oof_std_error"``: its standard deviation over the bootstrap
          resamples (NaN when dropped or not cross-fitted);
        * ``"win_share"``: the share of resamples on which it beat the
          reference (NaN when dropped or not cross-fitted);
        * ``"rounds"``: the kept rounds per fold (None for blends and dropped
          candidates);
        * ``"stopping"``: how its fold models were stopped: ``"pooled"`` (one
          round for every fold, chosen on the pooled out-of-fold curve of all
          of them -- in memory, :class:`pauc.gbm._stopping.PooledStopping`),
          ``"per fold"`` (each on its own held-out rows: 1000 training
          positives or more, the cluster, or a single validation split),
          ``"fixed"`` (no stopping); None for
          blends, dropped candidates and a model boosted on every row only;
        * ``"boosted_rounds"``: the rounds boosted per fold, kept or not (0 on
          a fold the race never started it on; None for blends);
        * ``"capped_folds"``: the folds that reached the round cap without
          their stopping rule ending them (None for blends; every fold of a
          cross-fitted ``"logloss-fixed"``, which does not stop);
        * ``"dropped"``: why and when the race dropped it (``"behind <leader>
          by <gap> (<z> se) at fold <k>, round <r>"`` or ``"copy of
          <candidate> (...)"``), None for the others;
        * ``"weights"``: dict of boosted candidate -> weight (empty when
          dropped);
        * ``"selected"``: whether it is the kept one.

        Empty without early stopping.
    selected_ : str
        The kept candidate (a boosted one, ``"blend"`` or ``"ensemble"``).
    members_ : list of (str, float, list of Booster, list of int)
        The kept model: per boosted candidate in it, its weight, its boosters
        (``lightgbm.Booster`` or ``xgboost.Booster``; one per fold, or one on
        every row: the refit one, or the fixed budget of a saturated window)
        and their rounds.  One member: the
        mean of its boosters' raw scores; several: the weighted mean of each
        member's mean raw score mapped to its normalised out-of-fold rank.
    best_loss_ : str
        The kept boosted candidate (in a blend, the heaviest member).
    n_iter_ : int
        Its rounds: the mean over the folds (rounded), or the rounds without
        early stopping.
    n_splits_ : int
        Number of folds (1: one validation split; 0: no early stopping).
    oof_scores_ : dict of str -> ndarray of shape (n_samples,)
        Per cross-fitted candidate (the next three attributes likewise), each row's score by the fold model that did not
        see it, as its quantile (normalised mid-rank) among the held-out
        fold's scores, so that folds whose models differ in scale pool on one
        scale (NaN for a row no fold held out).  After a fit on dask data with
        one validation split: the validation rows' only (in row order).
    validation_windows_ : list of (float, float)
        The windows whose mean pooled out-of-fold pAUC is the criterion of the
        selection: ``[fpr_range]``, or ``[fpr_range, (alpha, beta')]`` when the
        window holds fewer than 100 negatives (``beta'`` the FPR of
        ``floor(n alpha) + 100`` of them); empty without early stopping.
    validation_history_ : dict of str -> ndarray
        Per boosted candidate, the held-out criterion of the first fold after
        every round.
    validation_score_ : dict of str -> float
        Per boosted candidate, its pooled out-of-fold criterion.
    validation_rounds_ : dict of str -> int
        Per boosted candidate, its kept rounds on the first fold.
    stopped_on_ : {"logloss", "window", "fixed"}
        The stopping rule of ``best_loss_`` (``"fixed"``: no early stopping, or
        the fixed budget of ``"logloss-fixed"``).
    selection_confidence_ : dict of str -> float
        Per candidate other than the reference, its ``"win_share"``.
    fit_seconds_ : dict of str -> float
        Seconds spent boosting each candidate over its folds (and ``"refit"``).
    feature_importances_ : ndarray of shape (n_features,)
        Total gain of the splits on each feature in the kept model (weighted
        over its members, averaged over its boosters), summing to 1 (all zero
        when no tree split).
    threshold_ : float
        Score threshold of :meth:`predict` (``operating_fpr``).
    j_alpha_, j_beta_ : int
        Window positions over the training negatives.
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
    not implement.  When no feature varies, there is nothing to split: the
    fit warns and boosts log-loss (constant scores, the class prior).

    References
    ----------
    Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for Optimizing
    the Partial Area Under the ROC Curve." Neural Computation 29(7), 2017.

    Caruana, R., Niculescu-Mizil, A., Crew, G. and Ksikes, A. "Ensemble
    Selection from Libraries of Models." ICML 2004.

    Ke, G. et al. "LightGBM: A Highly Efficient Gradient Boosting Decision
    Tree." NIPS 2017.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from pauc.gbm import GradientBoostingRanker
    >>> X, y = make_classification(600, n_features=8, weights=[0.8], random_state=0)
    >>> ranker = GradientBoostingRanker((0.0, 0.1), n_estimators=60, n_iter_no_change=20,
    ...                                 cv=3, random_state=0).fit(X[:400], y[:400])
    >>> ranker.n_splits_, sorted(ranker.cv_results_)[:3]
    (3, ['boosted_rounds', 'candidate', 'capped_folds'])
    >>> ranker.selected_ in ranker.cv_results_["candidate"]
    True
    >>> 0.0 <= ranker.score(X[400:], y[400:]) <= 1.0
    True
    """

    _parameter_constraints = {
        "fpr_range": FPR_RANGE,
        "loss": [LossName("hessian", "auto", aliases=True,
                          description="the losses of pauc._loss with a Hessian")],
        "n_estimators": [Options("auto"), Interval(int, 1)],
        "learning_rate": [Interval(float, 0.0, closed="neither")],
        "num_leaves": [Interval(int, 2)],
        "min_child_samples": [Interval(int, 1)],
        "reg_lambda": [Interval(float, 0.0)],
        "early_stopping": [Options("auto", True, False)],
        "cv": [Satisfies(_check_cv, "'auto', an int >= 1 or a splitter with split() and "
                                    "get_n_splits()")],
        "validation_fraction": [Interval(float, 0.0, 1.0, closed="neither")],
        "n_iter_no_change": [Interval(int, 1)],
        "refit": BOOLEAN,
        "operating_fpr": [Options(None), Interval(float, 0.0, 1.0)],
        "pos_label": POS_LABEL,
        "random_state": RANDOM_STATE,
        # threads: None = 1, -1 = every core; 0 means nothing
        "n_jobs": [Options(None), Interval(int, 1), Interval(int, high=-1)],
        "verbose": VERBOSE,
        "engine": [Options(*SELECTABLE)],
    }

    def __init__(self, fpr_range=(0.0, 1.0), *, loss="auto", n_estimators="auto",
                 learning_rate=0.1, num_leaves=31, min_child_samples=20, reg_lambda=0.0,
                 early_stopping="auto", cv="auto", validation_fraction=0.1,
                 n_iter_no_change=100, refit=False, operating_fpr=None, pos_label=None,
                 random_state=None, n_jobs=None, verbose=0, engine="lightgbm"):
        self.fpr_range = fpr_range
        self.loss = loss
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.num_leaves = num_leaves
        self.min_child_samples = min_child_samples
        self.reg_lambda = reg_lambda
        self.early_stopping = early_stopping
        self.cv = cv
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
        self._uniform_weights(weight, "a weighted window would need the FPR range "
                              "measured in negative weight, which the window losses do "
                              "not implement")

    def _use_stopping(self, n_pos, n_neg):
        if isinstance(self.early_stopping, bool):
            if self.early_stopping and min(n_pos, n_neg) < 2:
                raise ValueError(
                    f"early stopping holds rows out, but the data hold {n_pos} positives "
                    f"and {n_neg} negatives: a training and a held-out part need one of "
                    "each class; pass early_stopping=False or more rows")
            return self.early_stopping
        return min(n_pos, n_neg) >= 2

    def _rounds(self, with_stopping):
        if self.n_estimators == "auto":
            return AUTO_ROUNDS[bool(with_stopping)]
        return self.n_estimators

    # ------------------------------------------------------------------ fit
    def fit(self, X, y, sample_weight=None):
        """Cross-fit each candidate; keep the reference or a clearly better candidate.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Finite values (the engines' missing-value handling is not used).  A
            dask array or dataframe (with ``engine="xgboost"`` and a
            ``dask.distributed`` client) is fitted on the cluster, the rows
            staying on their workers (:mod:`pauc.distributed._cluster_trainer`).
        y : array-like of shape (n_samples,)
            Two classes; the positive one is ``pos_label``.
        sample_weight : None or constant array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        self._validate_params()
        fpr_range = check_fpr_range(self.fpr_range)
        # one thread count for the whole fit (the trainer's and the plan's)
        n_threads = effective_threads(self.n_jobs)
        trainer, shape, varying = self._trainer(X, y, sample_weight)
        fitted = fit_plan(self._plan(trainer, fpr_range, shape, varying, n_threads), trainer)
        self._publish(fitted)
        if varying and not self.feature_importances_.any():
            self._warn_constant(trainer)
        operating = self.operating_fpr
        if operating is None:
            operating = fpr_range[1] if fpr_range[1] < 1.0 else None
        self.threshold_ = operating_threshold_of(fitted, trainer, operating)
        return self

    def _warn_constant(self, trainer):
        """The kept model split nothing though features vary: say so, and on
        LightGBM why (the rows a leaf needs against the rows a fold trains on;
        XGBoost and the oblivious trees need no rows per leaf)."""
        n_rows = sum(trainer.counts)
        k = self.n_splits_
        why = ""
        if self.engine == "lightgbm" and self.best_loss_ != "logloss-oblivious":
            rows = (f"each of the {k} folds trains on about {n_rows * (k - 1) // k} of the "
                    f"{n_rows} rows" if k > 1 else f"the fit has {n_rows} rows")
            why = (f": a leaf needs min_child_samples={self.min_child_samples} rows and "
                   f"{rows}; lower min_child_samples, or use loss='auto'")
        warnings.warn(f"{type(self).__name__}: the kept model ({self.best_loss_}) grew no "
                      f"split, so its scores are constant{why}", UserWarning)

    def _trainer(self, X, y, sample_weight):
        """The trainer of the rows (:class:`pauc.gbm._plan.Trainer`), with the one
        validation of every engine: ``classes_``, ``n_features_in_`` and
        ``feature_names_in_`` by scikit-learn's rules, finite values only.  Also
        the shape of the small-data rule (None on a cluster: its candidates are
        the larger data's) and whether any feature varies."""
        if is_chunked(X, y) or is_dask_collection(X, y):
            # rows on a dask cluster: xgboost.dask on the global window (pauc._dispatch)
            trainer = chunked("boosting_trainer")(X, y, sample_weight, self.engine, self.loss,
                                                  self.cv, type(self).__name__)
            validate_data(self, trainer.schema, reset=True, ensure_min_samples=0,
                          ensure_all_finite=False)
            trainer.set_positive(self._set_binary_classes(trainer.classes, trainer.classes))
            return trainer, None, True
        X, is_pos, weight = self._validate_training_data(X, y, sample_weight)
        self._check_weights(weight)
        return LocalTrainer(X, is_pos), X.shape, \
            _varying_features(X)

    def _plan(self, trainer, fpr_range, shape, varying, n_threads):
        """The :class:`pauc.gbm._plan.Plan` of this estimator on ``trainer``'s rows."""
        n_pos, n_neg = trainer.counts
        self.j_alpha_, self.j_beta_ = indices_among(n_neg, fpr_range)
        rng = check_random_state(self.random_state)
        fold_seed, seed, boot_seed = (int(v) for v in rng.randint(np.iinfo(np.int32).max,
                                                                  size=3))
        pool = candidates(self.loss, shape, n_pos)
        stopping = self._use_stopping(n_pos, n_neg)
        if not varying:
            warnings.warn(
                f"{type(self).__name__}: no feature of X takes two values, so no tree can "
                "split: the scores are constant (log-loss, the class prior)", UserWarning)
            pool, stopping = (LOGLOSS,), False
        elif not stopping:
            # "auto" without held-out rows: log-loss on the estimator's engine (no
            # held-out rows to choose with); a named loss: that loss
            pool = (LOGLOSS,) if self.loss == "auto" else pool[:1]
        base = {"learning_rate": float(self.learning_rate),
                "num_leaves": int(self.num_leaves),
                "min_data_in_leaf": int(self.min_child_samples),
                "lambda_l2": float(self.reg_lambda)}
        return Plan(fpr_range, pool, self.engine, base,
                    stopping, self._rounds(stopping), self.n_iter_no_change, self.cv,
                    self.validation_fraction, self.refit, n_threads,
                    fold_seed, seed, boot_seed, self.verbose, _race.RACING,
                    _stopping.pooled_round(n_pos))

    def _publish(self, fitted):
        """The fitted attributes a user reads, from :func:`pauc.gbm._plan.fit_plan`'s
        record (kept as ``_fitted``: the model and every candidate's fit)."""
        self._fitted = fitted
        fits, selection = fitted.fits, fitted.selection
        self.n_splits_ = fitted.n_splits
        self.fit_seconds_ = dict(fitted.seconds)
        self.members_ = [(n, w, bag.boosters, bag.rounds) for n, w, bag in fitted.model.members]
        self.cv_results_, self.oof_scores_, self.validation_windows_ = {}, {}, []
        self.validation_history_, self.validation_score_ = {}, {}
        self.validation_rounds_, self.selection_confidence_ = {}, {}
        if selection is None:
            self.selected_ = next(iter(fits))
            rules = {self.selected_: "fixed"}
        else:
            rules = {n: f.candidate.rule for n, f in fits.items()}
            self.selected_ = selection.names[selection.kept]
            self.validation_windows_ = selection.windows
            # the race's survivors and their blends (judged), then the dropped ones
            dropped = [n for n in fitted.boosted if n in fitted.dropped]    # pool order
            names = list(selection.names) + dropped
            nan = float("nan")
            cap = fitted.plan.rounds
            self.cv_results_ = {
                "candidate": names,
                "oof_score": [float(v) for v in selection.values] + [nan] * len(dropped),
                "oof_std_error": ([float(v) for v in selection.std_errors]
                                  + [nan] * len(dropped)),
                "win_share": [float(v) for v in selection.shares] + [nan] * len(dropped),
                "rounds": [list(fits[n].bag.rounds) if n in fits else None for n in names],
                "stopping": [fits[n].stopping if n in fits else None for n in names],
                "boosted_rounds": [fitted.boosted.get(n) for n in names],
                "capped_folds": [sum(r >= cap for r in fitted.boosted[n])
                                 if n in fitted.boosted else None for n in names],
                "dropped": [str(fitted.dropped[n]) if n in fitted.dropped else None
                            for n in names],
                "weights": ([{n: float(w) for n, w in zip(fits, weights) if w > 0}
                             for weights in selection.weights] + [{}] * len(dropped)),
                "selected": [k == selection.kept for k in range(len(names))],
            }

            # a fixed budget boosted on every row only (a saturated window) has no
            # out-of-fold evidence: its cv_results_ row says so (NaN), these skip it
            judged = {n for n, f in fits.items() if f.cross_fitted}
            for k, n in enumerate(selection.names):
                if n in judged:
                    self.validation_score_[n] = float(selection.values[k])
                if k != 0 and (n in judged or n not in fits):
                    self.selection_confidence_[n] = float(selection.shares[k])
            for n, f in fits.items():
                if n not in judged:
                    continue
                self.oof_scores_[n] = f.oof
                self.validation_history_[n] = f.history
                self.validation_rounds_[n] = f.bag.rounds[0]
        name, _, bag = max(fitted.model.members, key=lambda m: m[1])
        self.best_loss_ = name
        self.n_iter_ = max(1, int(round(np.mean(bag.rounds))))
        self.stopped_on_ = rules[name]
        gain = sum(w * bag.gains(self.n_features_in_) for _, w, bag in fitted.model.members)
        total = gain.sum()
        self.feature_importances_ = gain / total if total > 0 else gain

    # -------------------------------------------------------------- predict
    def _candidate_test_scores(self, X):
        """Every candidate's and blend's scores on ``X`` (fold-bagged): for
        benchmarks that replay the selection."""
        X = self._validate_X(X)
        fits, scales = self._fitted.fits, self._fitted.model.scales
        n_threads = effective_threads(self.n_jobs)
        out = {n: f.bag.predict(X, n_threads) for n, f in fits.items()}
        for n, weights in zip(self.cv_results_.get("candidate", []),
                              self.cv_results_.get("weights", [])):
            if n not in out and weights:
                out[n] = sum(w * scales[m](out[m]) for m, w in weights.items())
        return out

    def decision_function(self, X):
        """Boosted scores (higher = more likely ``classes_[1]``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,)
            (A lazy dask vector for a dask array or dataframe ``X``.)
        """
        if is_chunked(X) or is_dask_collection(X):
            # lazy, block by block on the workers, after scikit-learn's checks of the
            # number of features and their names on the columns alone
            check_is_fitted(self)
            validate_data(self, chunked("dask_schema")(X), reset=False, ensure_min_samples=0,
                          ensure_all_finite=False)
            return chunked("model_scores")(self._fitted.model, X, type(self).__name__)
        X = self._validate_X(X)
        return self._fitted.model.predict(X, effective_threads(self.n_jobs))

    def predict(self, X):
        """``classes_[1]`` where ``decision_function(X) >= threshold_``, else ``classes_[0]``."""
        return predict_labels(self.decision_function(X), self.classes_, self.threshold_)
