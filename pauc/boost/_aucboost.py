"""AUCBoost: AdaBoost on ½D+ + ½D− with Lemma 4 classifiers (Long & Servedio, §3, Theorem 2).

Long & Servedio, "Boosting the Area Under the ROC Curve", §3: "AUCBoost works by
running AdaBoost on ½D+ + ½D−".  Each round the weak ranker sees AdaBoost's
current distribution D_t, and Lemma 4 turns its ranking function into a
classifier with the *same* error on both classes, so that
``Pr_{D_t}[h_t(x) ≠ y] ≤ ½ − γ/4`` however D_t splits between the classes.
Written out, the loop is:

    w_1(i) = 1/(2m+) on positives, 1/(2m−) on negatives
    for t = 1..T:
        h_t   = Lemma4(WeakRanker(S, w_t))            # randomized, ±1-valued
        e_t   = Σ_i w_t(i)·1[h_t(x_i) ≠ y_i]
        α_t   = ½ ln((1 − e_t)/e_t)
        w_t+1 ∝ w_t · exp(−α_t y_i h_t(x_i))
    F(x) = Σ_t α_t h_t(x)

Training error under ½D+ + ½D− after T rounds is at most
``Π_t 2√(e_t(1 − e_t))`` (the AdaBoost bound), and by Lemma 5 the AUC of sign(F)
is ``1 − (ε+ + ε−)/2``.  By default (``conversion="soft"``) g_t enters AdaBoost
as its probability of voting +1, the [0, 1]-valued hypothesis of the paper's
AdaBoost reference [5] (Freund & Schapire 1997, §4), so no coin is drawn.
"""

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state

from .._base import POS_LABEL, RANDOM_STATE, BaseRanker, Interval, Options, Satisfies
from ..metrics import roc_auc
from ._learners import check_weak_ranker, make_learner, ranker_scores
from ._lemma4 import convert

# e_t is clipped into [_MIN_ERROR, 1 − _MIN_ERROR]: a perfect round gets a large
# but finite weight α (as e_t → 0, α_t = ½ ln((1 − e_t)/e_t) → ∞).
_MIN_ERROR = 1e-10


class AUCBoost(BaseRanker, ClassifierMixin, BaseEstimator):
    """AdaBoost on the balanced mixture with Lemma 4 weak classifiers ([1]_, Theorem 2).

    Parameters
    ----------
    n_estimators : int, default=100
        Number of boosting rounds T.  Theorem 2's worst case is
        ``T = ⌈8·ln(1/ε)/γ²⌉`` for training AUC ≥ 1 − ε with a γ-advantage weak
        ranker (Theorem 2); in practice set T directly.
    weak_ranker : estimator or None, default=None
        None: the split ranking stump ``RankingStump(criterion="split_auc")``,
        ``h(x) = 1[s·x_j ≥ θ]`` of highest weighted AUC over features,
        orientations and thresholds (one Cython sweep per feature per round; see
        Notes for why not the AUC of the raw score ``s·x_j``).  Otherwise any
        scikit-learn estimator with ``decision_function`` or ``predict_proba``,
        cloned each round and fitted with ``sample_weight`` (or on a weighted
        resample when its ``fit`` takes no weights), e.g.
        ``RankingStump(criterion="auc")`` or ``pauc.tree.TreeRank(max_depth=2)``.
    conversion : {"soft", "randomized"}, default="soft"
        How AdaBoost uses Lemma 4's randomized classifier g_t in ``fit``.
        "soft": g_t enters as its probability of voting +1, i.e. the vote
        ``E_r[g_t] ∈ [−1, 1]``, with ``α_t = ½ ln((1 − ε_t)/ε_t)`` where
        ``ε_t = Σ_i w_t(i)·Pr_r[g_t(x_i) ≠ y_i]`` is g_t's expected error
        (``= ½ ln((1 + r_t)/(1 − r_t))``, ``r_t = Σ_i w_t(i) y_i E_r[g_t(x_i)]``)
        and the update ``w ∝ w·exp(−α_t y E_r[g_t])``.  This is exactly the
        AdaBoost of the paper's reference [5] (Freund & Schapire 1997, §4),
        which takes hypotheses with values in [0, 1] read as the probability
        of predicting 1 (Lemma 4's coin in expectation).  "randomized": draw the
        coins, vote ±1, ``α_t = ½ ln((1 − e_t)/e_t)`` with ``e_t`` the error of
        the drawn votes -- the same algorithm with Monte-Carlo noise in the
        reweighting.
    random_state : int, RandomState instance or None, default=None
        Seeds the coins of Lemma 4's randomized side (``conversion="randomized"``)
        and the resampling of weight-less weak rankers; the default soft,
        stump-based fit draws nothing.
    pos_label : label, default=None
        The positive class.  None: 1 (or True) when the labels are {0, 1},
        {-1, 1} or booleans; other label sets must name it.

    Attributes
    ----------
    estimators_ : list of fitted weak rankers h_t
    orientations_ : ndarray of shape (n_rounds,)
        ±1: the weak ranker's scores are used as ``orientations_[t] · h_t``.
    estimator_weights_ : ndarray of shape (n_rounds,)
        AdaBoost's α_t.
    errors_ : ndarray of shape (n_rounds,)
        e_t, the D_t-weighted training error of the drawn ±1 votes (with
        ``conversion="soft"``: its expectation ``(1 − r_t)/2``).
    class_errors_ : ndarray of shape (n_rounds,)
        ε_t of Lemma 4, eq. (1): the expected error on each class under D_t.
    thresholds_, zetas_ : ndarray of shape (n_rounds,)
        θ_t and ζ_t of Lemma 4, θ_t on the weak ranker's scale (0.5 for the
        0/1-valued split stump, whose own split is ``estimators_[t].threshold_``).
    randomize_low_ : ndarray of bool, shape (n_rounds,)
        True when the side ``h < θ`` is randomized (step 3), False when the side
        ``h ≥ θ`` is (step 4).
    train_auc_ : ndarray of shape (n_rounds,)
        Training AUC of ``F`` after each round.
    classes_ : ndarray of shape (2,)
        ``[negative label, positive label]``.
    n_features_in_ : int

    Notes
    -----
    ``decision_function`` returns ``F(x) = Σ_t α_t·E_r[g_t(x, r)]``, the
    combination [5] thresholds at 0 (H = sign F, Theorem 2): a deterministic
    function of x, with no ties from the coins.

    *Defaults.* The split stump and the soft conversion were chosen on test
    AUC against scikit-learn's AdaBoost of stumps on the same data, RF 20 and
    a9a (measured: ``docs/developer/measurements.rst``, 'AUCBoost's defaults').

    *Why the split stump.* Lemma 4 uses one ROC point of the weak ranker, the
    threshold of largest ``J = TPR − FPR``, and the round's edge is
    ``J/(1 + |p+ − p−|)``; the AUC of the whole score ``s·x_j`` is only a
    proxy for J (``J ≥ AUC − ½``).  The split stump maximises the AUC of the
    ranker Lemma 4 actually thresholds (a two-valued ranker has AUC
    ``½ + J/2``, Lemma 5).  On RF 20, where 19 of the 20 features differ only
    in variance, the score ``x_j`` has AUC ≈ ½ while its tails are informative,
    so the AUC of the score misjudges which split has the largest J.

    *Why soft.* It is [5]'s own algorithm for [0, 1]-valued hypotheses, applied
    to Lemma 4's classifier without sampling its coins; the coins only add
    noise to D_t (they cost test AUC on RF 20 with either stump).

    *Speed of the rounds.* Lemma 4 equalises the class errors at
    ``ε = max(p+, p−)/(1 + |p+ − p−|)``, above the ``(p+ + p−)/2`` of the plain
    threshold on the (balanced) D_t, so a round's edge is ``J/(1 + |p+ − p−|)``
    instead of J, and the step it adds to F across the split is
    ``α_t·2(1 − ζ_t) ≈ 2J/(1 + |p+ − p−|)²`` instead of about 2J.  On one-hot
    features the splits are lopsided (``|p+ − p−|`` large), so AUCBoost needs
    more rounds than AdaBoost to reach the same test AUC.  Without Lemma 4 (the
    plain split voting ±1 in the same loop) boosting stalls: the split of
    largest J keeps coming back with no edge on the unbalanced D_t.  The price
    buys the guarantee "no matter how D_t decomposes".  Choosing α_t by exact
    line search on the soft vote (Schapire & Singer's minimisation of Z_t)
    rather than by [5]'s rule takes bigger steps, and in a prototype it
    overfitted RF 20, so it is not offered (measured on a9a and RF 20: the
    same section of the developer guide).

    Boosting stops early when the
    weak ranker has no edge (J = 0: no threshold separates the classes at all)
    or when a round makes no error.

    References
    ----------
    .. [1] Long, P. M. and Servedio, R. A. "Boosting the Area Under the ROC
       Curve." NIPS 2007.
    .. [2] Freund, Y. and Schapire, R. E. "A Decision-Theoretic Generalization
       of On-Line Learning and an Application to Boosting." Journal of
       Computer and System Sciences 55(1), 1997 (the paper's reference [5]).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from pauc.boost import AUCBoost
    >>> X, y = make_classification(600, n_features=8, weights=[0.8], random_state=0)
    >>> model = AUCBoost(n_estimators=50, random_state=0).fit(X[:400], y[:400])
    >>> round(model.score(X[400:], y[400:]), 2)      # test AUC
    0.97
    """

    _parameter_constraints = {
        "n_estimators": [Interval(int, 1)],
        "weak_ranker": [Satisfies(check_weak_ranker, "None or a scikit-learn estimator with "
                                  "fit and decision_function or predict_proba")],
        "conversion": [Options("soft", "randomized")],
        "random_state": RANDOM_STATE,
        "pos_label": POS_LABEL,
    }

    def __init__(self, n_estimators=100, *, weak_ranker=None, conversion="soft",
                 random_state=None, pos_label=None):
        self.n_estimators = n_estimators
        self.weak_ranker = weak_ranker
        self.conversion = conversion
        self.random_state = random_state
        self.pos_label = pos_label

    def fit(self, X, y):
        """Run T rounds of AdaBoost on ½D+ + ½D− (Long & Servedio, §3).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,), two classes; ``pos_label`` is
            the positive one.

        Returns
        -------
        self
        """
        self._validate_params()
        T = self.n_estimators
        X, is_pos, _ = self._validate_training_data(X, y, accept_sparse=["csr", "csc"],
                                                   dtype=[np.float64], ensure_min_samples=2)
        is_pos = is_pos.astype(np.uint8)
        classes = self.classes_
        rng = check_random_state(self.random_state)
        y_pm = np.where(is_pos == 1, 1, -1)
        m_pos = int(is_pos.sum())
        # Step 1: the balanced mixture ½D+ + ½D−.
        w = np.where(is_pos == 1, 0.5 / m_pos, 0.5 / (is_pos.shape[0] - m_pos))
        learner = make_learner(self.weak_ranker, X, is_pos, classes, rng,
                               default_criterion="split_auc")

        rounds = []
        F = np.zeros(X.shape[0])
        for _ in range(T):
            ranker, orientation, h = learner.fit(w)
            g = convert(h, is_pos, w)                     # Lemma 4
            if g.youden <= 0.0:
                break                                     # no edge left on D_t
            if self.conversion == "randomized":
                vote = g.draw(h, rng.random_sample(h.shape[0]))
                e = float(w[vote != y_pm].sum())
            else:
                vote = g.expected_vote(h)
                e = 0.5 * (1.0 - float((w * y_pm * vote).sum()))   # = (1 − r_t)/2
            e_clip = min(max(e, _MIN_ERROR), 1.0 - _MIN_ERROR)
            alpha = 0.5 * np.log((1.0 - e_clip) / e_clip)
            w = w * np.exp(-alpha * y_pm * vote)
            w /= w.sum()
            F += alpha * g.expected_vote(h)
            rounds.append((ranker, orientation, alpha, e, g, roc_auc(is_pos, F)))
            if e == 0.0:
                break                                     # D_t is classified perfectly
        self.estimators_ = [r[0] for r in rounds]
        self.orientations_ = np.array([r[1] for r in rounds])
        self.estimator_weights_ = np.array([r[2] for r in rounds])
        self.errors_ = np.array([r[3] for r in rounds])
        self.class_errors_ = np.array([r[4].error for r in rounds])
        self.thresholds_ = np.array([r[4].theta for r in rounds])
        self.zetas_ = np.array([r[4].zeta for r in rounds])
        self.randomize_low_ = np.array([r[4].randomize_low for r in rounds], dtype=bool)
        self._classifiers = [r[4] for r in rounds]
        self.train_auc_ = np.array([r[5] for r in rounds])
        return self

    def _votes(self, X):
        """Expected votes ``E_r[g_t(x, r)]`` of each round on validated ``X``."""
        for ranker, o, g in zip(self.estimators_, self.orientations_, self._classifiers):
            yield g.expected_vote(ranker_scores(ranker, o, X))

    def staged_decision_function(self, X):
        """Yield ``F`` after each round (for learning curves).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)

        Yields
        ------
        F : ndarray of shape (n_samples,)
        """
        X = self._validate_X(X, accept_sparse=["csr", "csc"], dtype=[np.float64])
        F = np.zeros(X.shape[0])
        for alpha, vote in zip(self.estimator_weights_, self._votes(X)):
            F += alpha * vote
            yield F.copy()

    def decision_function(self, X):
        """``F(x) = Σ_t α_t E_r[g_t(x, r)]``; higher ranks more likely positive.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)

        Returns
        -------
        F : ndarray of shape (n_samples,)
        """
        X = self._validate_X(X, accept_sparse=["csr", "csc"], dtype=[np.float64])
        F = np.zeros(X.shape[0])
        for alpha, vote in zip(self.estimator_weights_, self._votes(X)):
            F += alpha * vote
        return F

    def predict(self, X):
        """``H(x) = sign(F(x))`` as class labels (``F > 0`` → ``classes_[1]``)."""
        positive = self.decision_function(X) > 0
        return self.classes_[positive.astype(int)]
