"""MartiRank: the noise-tolerant layered branching program (Long & Servedio, §4-5).

Long & Servedio, §4 (Basic MartiRank, Lemma 7, Theorem 8) and §5 (SMartiRank,
the freezing rule (2), Theorems 9-10).

The program has T layers; layer t holds the nodes ``v_{0,t} … v_{t−1,t}``
(T(T+1)/2 internal nodes in all).  The training sample reaching a node is the
whole sample *conditioned* on reaching it -- never reweighted, never balanced --
and the node's weak ranker, turned into a ±1 classifier by Lemma 4, sends each
example left (``v_{i,t+1}``, vote −1) or right (``v_{i+1,t+1}``, vote +1);
neighbouring nodes merge.  Because the route depends on x only, labels flipped
independently at rate η stay flipped at rate η at every node (Theorem 8), which
is what lets the program push the clean AUC past the noise rate.

Freezing (eq. (2), sample form of §5): node ``v_{i,t}`` stops, labelled −b, when
the estimated mass ``p^b_{i,t}`` of true class b reaching it is at most
``ε/(4T(T+1))`` times the estimated prior of class b.  With a known noise rate
both estimates are de-biased (§5):
``D[c=b] = (D^η[y=b] − η)/(1 − 2η)`` and
``p^b_{i,t} = D^η[reach v_{i,t}]·(D^η_{i,t}[y=b] − η)/(1 − 2η)``.
Lemma 4's coin probability ζ at a node is computed from de-biased class rates too
(the paper leaves this gap; θ itself needs no correction).
"""

from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state

from .._base import POS_LABEL, RANDOM_STATE, BaseRanker, Interval, Satisfies
from ._coins import coins, row_keys
from ._learners import check_weak_ranker, make_learner, ranker_scores
from ._lemma4 import BalancedClassifier, clean_fraction, convert, noise_contraction


@dataclass
class MartiNode:
    """One internal node ``v_{index, layer}`` of the branching program.

    Attributes
    ----------
    layer, index : int
        t (1-based) and i (0 ≤ i < t).
    n_samples : int
        Training examples reaching the node.
    n_positive : int
        Of which labelled positive (the labels as given, noisy or not).
    frozen : bool
        Terminal node (no outgoing edges).
    label : int
        ±1, the output of a frozen node.
    freeze_reason : str
        Why it froze: "rule (2)" (a class's estimated mass ≤ ε/(4T(T+1)) of its
        prior), "min_class_count" (fewer than m_A expected examples of a
        class), "one noisy class" (no label of one class to fit a ranker on),
        "no edge" (the weak ranker found no threshold with TPR > FPR),
        "unreached" (no training example); "" when not frozen.
    ranker, orientation : the weak ranker and the sign its scores are used with.
    classifier : BalancedClassifier or None
        Lemma 4's classifier on the ranker's scores.
    train_scores : ndarray
        The sorted ranker scores of the training examples at the node; used to
        break ties inside a final bin (an empirical CDF in (0, 1)).
    """

    layer: int
    index: int
    n_samples: int
    n_positive: int
    frozen: bool
    label: int = 0
    freeze_reason: str = ""
    ranker: object = None
    orientation: float = 1.0
    classifier: BalancedClassifier = None
    train_scores: np.ndarray = None


def _node_id(layer, index):
    """Position of ``v_{index, layer}`` in layer-major order (also the coin salt)."""
    return layer * (layer - 1) // 2 + index


class MartiRank(BaseRanker, ClassifierMixin, BaseEstimator):
    """Basic MartiRank / SMartiRank with the noise-tolerant estimators ([1]_, §4-5).

    Parameters
    ----------
    n_levels : int, default=10
        Number of layers T; the program has T(T+1)/2 internal nodes, each one
        weak-ranker call.  Lemma 7 / Theorem 9 need ``T = O(log(1/ε)/γ²)``.
    epsilon : float in (0, 1), default=0.1
        Target error ε of the freezing rule (2): a node freezes when a class's
        estimated mass reaching it is ≤ ``ε/(4T(T+1))`` of that class's prior.
    noise_rate : float in [0, 0.5), default=0.0
        Known rate η of symmetric label noise in the training labels.  With
        η > 0 the class priors, node masses and Lemma 4's rates are de-biased
        (Long & Servedio, §5).
    weak_ranker : estimator or None, default=None
        None: the ranking stump.  Otherwise a scikit-learn estimator with
        ``decision_function`` or ``predict_proba``, cloned and fitted (without
        weights) on the examples reaching each node.
    min_class_count : float, default=10
        The weak ranker's ``m_A`` (§5): a node also freezes when fewer than
        this many examples of a true class reach it -- with a fixed sample the
        nodes run out of data long before eq. (2) bites.  With
        ``noise_rate > 0`` the count is the de-biased expected count times the
        node's noise contraction ``a − b``, a practical choice.
    random_state : int, RandomState instance or None, default=None
        Seeds the coins of Lemma 4 (and the resampling of weight-less weak
        rankers).
    pos_label : label, default=None
        The positive class.  None: 1 (or True) when the labels are {0, 1},
        {-1, 1} or booleans; other label sets must name it.

    Attributes
    ----------
    nodes_ : list of MartiNode
        The T(T+1)/2 internal nodes in layer-major order.
    class_prior_ : float
        Estimated clean positive prior ``D[c = +1]``.
    coin_seed_ : int
        Seed of the hash coins (drawn from ``random_state``).
    classes_ : ndarray of shape (2,)
        ``[negative label, positive label]``.
    n_features_in_ : int

    Notes
    -----
    *Coins.* Lemma 4's coin is a seeded hash of ``(x, node)``
    (:mod:`pauc.boost._coins`): independent of the label, as Theorem 8
    requires, and identical at fit and predict time, so the program is a fixed
    function of x.

    *Output.* ``decision_function`` returns the final bin index j ∈ {0, …, T}
    (the number of +1 votes on the path) plus a tie-breaker in (0, 1): the
    empirical CDF, among the training examples at that node, of the score of
    the last weak ranker that routed x, shifted into (0, 1) (½ when no ranker
    routed x), minus ⌈T/2⌉ so that the sign matches ``predict``.  An example
    stopped by a node frozen with label +1 goes to bin T, with label −1 to
    bin 0 (a choice the paper leaves open).
    ``predict`` is the paper's H: +1 iff the final bin is ≥ T/2 (a frozen node
    gives its label).

    References
    ----------
    .. [1] Long, P. M. and Servedio, R. A. "Boosting the Area Under the ROC
       Curve." NIPS 2007.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from pauc.boost import MartiRank
    >>> X, y = make_classification(600, n_features=8, weights=[0.8], random_state=0)
    >>> model = MartiRank(random_state=0).fit(X[:400], y[:400])
    >>> round(model.score(X[400:], y[400:]), 2)      # test AUC
    0.98
    """

    _parameter_constraints = {
        "n_levels": [Interval(int, 1)],
        "epsilon": [Interval(float, 0.0, 1.0, closed="neither")],
        "noise_rate": [Interval(float, 0.0, 0.5, closed="left")],
        "weak_ranker": [Satisfies(check_weak_ranker, "None or a scikit-learn estimator with "
                                  "fit and decision_function or predict_proba")],
        "min_class_count": [Interval(float, 1.0)],
        "random_state": RANDOM_STATE,
        "pos_label": POS_LABEL,
    }

    def __init__(self, n_levels=10, *, epsilon=0.1, noise_rate=0.0, weak_ranker=None,
                 min_class_count=10, random_state=None, pos_label=None):
        self.n_levels = n_levels
        self.epsilon = epsilon
        self.noise_rate = noise_rate
        self.weak_ranker = weak_ranker
        self.min_class_count = min_class_count
        self.random_state = random_state
        self.pos_label = pos_label

    def fit(self, X, y):
        """Grow the branching program layer by layer (§4 Basic MartiRank, §5 freezing).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,), two classes (possibly noisy);
            ``pos_label`` is the positive one.

        Returns
        -------
        self
        """
        self._validate_params()
        T, eps, eta = self.n_levels, float(self.epsilon), float(self.noise_rate)
        X, is_pos, _ = self._validate_training_data(X, y, accept_sparse=["csr", "csc"],
                                                   dtype=[np.float64], ensure_min_samples=2)
        is_pos = is_pos.astype(np.uint8)
        classes = self.classes_
        rng = check_random_state(self.random_state)
        n = X.shape[0]
        self.coin_seed_ = int(rng.randint(np.iinfo(np.int32).max))
        keys = row_keys(X)
        learner = make_learner(self.weak_ranker, X, is_pos, classes, rng)
        ones = np.ones(n)

        prior = clean_fraction(is_pos.mean(), eta)          # D[c = +1], de-biased
        freeze_at = eps / (4.0 * T * (T + 1))                # §5, sample-based rule (2)
        nodes = []
        layer_rows = [np.arange(n)]
        for t in range(1, T + 1):
            next_rows = [[] for _ in range(t + 1)]
            for i, rows in enumerate(layer_rows):
                node, h = self._grow_node(t, i, rows, is_pos, learner, ones,
                                          n, prior, freeze_at, eta)
                nodes.append(node)
                if node.frozen:
                    continue
                right = self._route(node, h, keys[rows])
                next_rows[i].append(rows[~right])
                next_rows[i + 1].append(rows[right])
            layer_rows = [np.concatenate(r) if r else np.empty(0, dtype=np.intp)
                          for r in next_rows]
        self.class_prior_ = prior
        self.nodes_ = nodes
        return self

    def _grow_node(self, t, i, rows, is_pos, learner, ones, n, prior, freeze_at, eta):
        """Freeze ``v_{i,t}`` or fit its weak ranker and Lemma 4 classifier.

        Returns the node and the ranker's scores on ``rows`` (None if frozen).
        """
        m = rows.shape[0]
        # An unreached node can still be reached by a test point: it outputs
        # the majority of the votes cast so far on any path to it (i of t − 1).
        default_label = 1 if 2 * i >= t - 1 else -1
        if m == 0:
            return MartiNode(t, i, 0, 0, frozen=True, label=default_label,
                             freeze_reason="unreached"), None
        noisy_pos = is_pos[rows].mean()
        pi_node = clean_fraction(noisy_pos, eta)              # D_{i,t}[c = +1]
        mass = {1: m / n * pi_node, -1: m / n * (1.0 - pi_node)}        # p^b_{i,t}
        # Expected clean counts, discounted by the node's noise contraction a − b
        # (on noisy labels AUC − ½ and TPR − FPR shrink by a − b, which
        # tends to 0 as the node becomes pure in one true class): a near-pure node
        # whose minority class is mostly flipped labels stops instead of fitting
        # the noise.  Without noise a − b = 1 and these are plain counts.
        shrink = noise_contraction(noisy_pos, eta)
        count = {1: m * pi_node * shrink, -1: m * (1.0 - pi_node) * shrink}
        prior_b = {1: prior, -1: 1.0 - prior}
        by_rule = [b for b in (1, -1) if mass[b] <= freeze_at * prior_b[b]]
        starved = [b for b in (1, -1)
                   if b in by_rule or count[b] < self.min_class_count]
        n_pos = int(is_pos[rows].sum())
        if starved or n_pos == 0 or n_pos == m:
            reason = ("rule (2)" if by_rule else "min_class_count" if starved
                      else "one noisy class")
            if len(starved) == 1:
                label = -starved[0]                           # eq. (2): "labelled −b"
            else:
                # Both classes starved (or no noisy label of one class): the
                # class whose share at the node exceeds its prior wins.
                label = 1 if pi_node >= prior else -1
            return MartiNode(t, i, m, n_pos, frozen=True, label=label,
                             freeze_reason=reason), None
        ranker, orientation, h = learner.fit(ones, rows)
        g = convert(h, is_pos[rows], ones[rows], noise_rate=eta)
        if g.youden <= 0.0:
            # The weak ranker found no edge here: stop as a terminal node.
            return MartiNode(t, i, m, n_pos, frozen=True,
                             label=1 if pi_node >= prior else -1,
                             freeze_reason="no edge"), None
        node = MartiNode(t, i, m, n_pos, frozen=False, ranker=ranker, orientation=orientation,
                         classifier=g, train_scores=np.sort(h))
        return node, h

    def _route(self, node, h, keys):
        """Lemma 4 votes of a node as a boolean 'goes right' mask (hash coins)."""
        u = coins(keys, _node_id(node.layer, node.index), self.coin_seed_)
        return node.classifier.draw(h, u) == 1

    def _walk(self, X):
        """Route X to its terminal bins; returns (bin index, tie-breaker, frozen label)."""
        X = self._validate_X(X, accept_sparse=["csr", "csc"], dtype=[np.float64])
        T = self.n_levels
        n = X.shape[0]
        keys = row_keys(X)
        bins = np.zeros(n, dtype=np.int64)
        tie = np.full(n, 0.5)
        label = np.zeros(n, dtype=np.int64)     # ±1 for examples stopped by a frozen node
        position = np.zeros(n, dtype=np.int64)  # i of the node each live example is at
        live = np.ones(n, dtype=bool)
        k = 0
        for t in range(1, T + 1):
            for i in range(t):
                node = self.nodes_[k]
                k += 1
                at = np.flatnonzero(live & (position == i))
                if at.shape[0] == 0:
                    continue
                if node.frozen:
                    live[at] = False
                    label[at] = node.label
                    bins[at] = T if node.label == 1 else 0
                    continue
                h = ranker_scores(node.ranker, node.orientation, X[at])
                s = node.train_scores
                # Empirical CDF shifted into the open interval (0, 1).
                tie[at] = (np.searchsorted(s, h, side="right") + 1.0) / (s.shape[0] + 2.0)
                position[at] += self._route(node, h, keys[at])
        bins[live] = position[live]
        return bins, tie, label

    def apply(self, X):
        """Final bin index j ∈ {0, …, T} of each row (frozen: T for +1, 0 for −1)."""
        return self._walk(X)[0]

    def decision_function(self, X):
        """``j + tie − ⌈T/2⌉``: final bin, in-bin tie-breaker, shifted (see Notes).

        The shift makes ``decision_function > 0`` exactly where ``predict``
        gives the positive class (H = +1 iff j ≥ T/2); it does not change the
        ranking.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)

        Returns
        -------
        score : ndarray of shape (n_samples,), in (−⌈T/2⌉, T + 1 − ⌈T/2⌉)
        """
        bins, tie, _ = self._walk(X)
        return bins + tie - (self.n_levels + 1) // 2

    def predict(self, X):
        """The program's H: +1 iff the final bin j ≥ T/2, or the frozen node's label."""
        bins, _, label = self._walk(X)
        positive = np.where(label != 0, label == 1, 2 * bins >= self.n_levels)
        return self.classes_[positive.astype(int)]
