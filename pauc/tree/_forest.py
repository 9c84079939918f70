"""Ranking Forest: bagged, feature-randomised TreeRank trees and their consensus.

The algorithm RANKING FOREST of Clémençon, Depecker & Vayatis (2013, §3.3):

1. parameters: B replicates, bootstrap size n*, TreeRank settings, feature
   randomisation FR (§3.1), pseudo-metric d;
2. a) draw B bootstrap samples of n* pairs with replacement;
   b) run TreeRank with FR1/FR2 on each (``max_features`` = q0, "TRK rfs";
      ``leafrank_max_features`` = q1, "LRK rfs");
3. aggregate: on the cells of P* = ∩_b P_b seen in the training sample,
   compute a median ranking of the profile {≼*_b} and score with it.

The trees are independent given their seeds, which are all drawn before any
tree is fitted: ``n_jobs`` changes the speed, never the result.

The full references are in the docstrings of :class:`RankingForest`.
"""

import numbers

import numpy as np
import scipy.sparse as sp
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.base import BaseEstimator
from sklearn.utils import check_random_state
from .._base import (BOOLEAN, N_JOBS, POS_LABEL, RANDOM_STATE, BaseRanker, Interval,
                     Options)
from .._rank_distance import labels_kendall_distance
from ._aggregation import (
    AGGREGATIONS,
    ConsensusScorer,
    LeafTableScorer,
    cell_profile,
    footrule_median,
    kemeny_median,
    midrank_tables,
    plugin_tables,
)
from . import _grow
from ._treerank import TreeRank

# The stability diagnostic compares B(B−1)/2 pairs of trees; on large samples
# it is estimated on this many training rows (drawn with the forest's seed).
_STABILITY_ROWS = 2000


def _argsort_columns(X, n_jobs):
    """``np.argsort(X, axis=0)``, blocks of columns sorted in threads (numpy's sort
    releases the GIL)."""
    n_blocks = min(effective_n_jobs(n_jobs), X.shape[1])
    if n_blocks <= 1:
        return np.argsort(X, axis=0)
    blocks = np.array_split(np.arange(X.shape[1]), n_blocks)
    parts = Parallel(n_jobs=n_blocks, prefer="threads")(
        delayed(np.argsort)(X[:, cols], axis=0) for cols in blocks)
    return np.hstack(parts)


def _fit_tree(params, X, is_pos, classes, counts, ranks, seed):
    # The resample is given by the multiplicities of the rows (no copy of X);
    # ``ranks`` (the features' dense ranks) are computed once and shared by all trees.
    tree = TreeRank(**params, random_state=seed)
    tree, row_node = tree._fit_resample(X, is_pos, counts, ranks, classes)
    # The training rows' leaves (needed by the aggregation): the in-bag rows' are
    # known from the growth, only the out-of-bag rows are routed.
    return tree, tree._training_leaves(X, row_node).astype(np.int32)


class RankingForest(BaseRanker, BaseEstimator):
    """Ranking Forest: bootstrap + feature randomisation + rank aggregation ([1]_, §3.3).

    Each of the ``n_estimators`` trees is a :class:`~pauc.tree.TreeRank` grown
    on a bootstrap sample with feature randomisation FR1 (``max_features``
    features drawn at each node of the master ranking tree) and FR2
    (``leafrank_max_features`` drawn among those at each LeafRank node), §3.1.
    The trees' rankings of the cells of their common refinement are then
    aggregated (§3.2-3.3); see :mod:`pauc.tree._aggregation` for the methods.

    Parameters
    ----------
    n_estimators : int, default=50
        Number B of trees (the paper uses 50).
    max_samples : int, float or None, default=None
        Size n* of each resample: ``None`` = n (the paper's choice), an int,
        or a fraction of n in (0, 1].
    bootstrap : bool, default=True
        Draw with replacement (bootstrap, the paper); False draws n* distinct rows.
    max_depth : int, default=10
        Depth of the master ranking trees (paper §5: 10).
    min_samples_split, min_samples_leaf : int, default=150, 40
        TreeRank's stopping rules (see :class:`~pauc.tree.TreeRank`), counted
        with the resample's repetitions.  The paper does not state its
        stopping rules; these values were chosen on the simulated problems of
        its §5 (n = 2,000, the Table 1 protocol; the figures are in the notes
        of ``bench/bench_tree.py``).
    leafrank_max_depth : int, default=10
        Depth of the LeafRank splitting trees (paper §5: 10, or < 8 for RF 10 sparse).
    leafrank_criterion : {"gini", "gain"}, default="gini"
        LeafRank's cut criterion (see :class:`~pauc.tree.TreeRank`): the
        cost-weighted Gini impurity of CART, as the paper's "cost-sensitive
        CART" (§2.3.1); slightly better than ``"gain"`` on RF 20 (same notes).
    max_features : int, float, "sqrt", "log2" or None, default=None
        FR1, q0 ("TRK rfs"): features drawn at each master-tree node
        (``None``: all q).
    leafrank_max_features : int, float, "sqrt", "log2" or None, default="sqrt"
        FR2, q1 ("LRK rfs"): features drawn at each LeafRank node among the q0
        (a float or "sqrt"/"log2" is taken of q0; ``None``: all q0).  The
        default, FR2 alone with q1 = ⌊√q0⌋, is the per-node feature draw of
        random forests; Table 1's rows with q0 = q (Cases 2, 5 and 8) are
        within 0.006 of its best rows (our comparison with q0 = q1 = 5 is in
        the notes of ``bench/bench_tree.py``).  Only the q1 drawn features are
        sorted at a LeafRank node, so a small q1 also makes the fit fast.
    aggregation : {"kemeny", "mean_rank", "median_rank", "footrule", "plugin", \
"mean_score"}, default="kemeny"
        ``"kemeny"``: approximate Kendall median (the paper's §5); the others
        are described in :mod:`pauc.tree._aggregation`.  ``"mean_score"``
        (mean of the trees' scores) is **not from the paper**.
    kemeny_n_iter : int or None, default=None
        Annealing moves of the Kendall median (``None``: 20,000 for up to
        K = 200 cells, then ``max(2000, K, 4·10⁶/K)``); the best-insertion
        descent that follows does most of the
        improvement (see :func:`~pauc.tree._aggregation.kemeny_median`).
    kemeny_allow_ties : bool, default=True
        True: the median ranges over rankings with ties, as eq. (7) of the
        paper.  False: over total orders (classical Kemeny ranking), which
        leaves fewer tied test points.
    max_cells : int, default=2000
        Largest number K of reference cells for ``"kemeny"`` and
        ``"footrule"`` (K² memory, O(K²B) time; 2,000 is the paper's n).
        When the training sample has more distinct leaf signatures, the
        reference is a random subset of ``max_cells`` training rows; the other
        cells are scored as unseen.
    oob_score : bool, default=False
        Compute ``oob_score_``, the out-of-bag AUC (§3.3; see ``oob_score_``).
    compute_stability : bool, default=False
        Compute ``stability_`` (eq. (9)) during ``fit``: B(B−1)/2 Kendall
        distances, so off by default (:meth:`stability` computes it on demand).
    n_jobs : int or None, default=None
        Trees are fitted (and unseen cells placed) in that many threads; the
        Cython loops release the GIL.  Results do not depend on it.
    random_state : int, RandomState instance or None, default=None
        Seeds the resampling, the trees' feature draws and the annealing.

    Attributes
    ----------
    estimators_ : list of TreeRank
    estimators_samples_ : list of int arrays
        Row indices of each tree's resample (with repetitions).
    classes_ : array of shape (2,); ``[negative label, positive label]``.
    n_features_in_ : int
    n_cells_ : int
        Number K of cells of P* seen in the reference (training) sample.
    consensus_cost_, consensus_start_cost_ : float
        With ``"kemeny"``: the Kendall objective Σ_b Σ_{k<l} w_k w_l U_kl of the
        consensus and of its mean-rank start (``consensus_cost_ <=
        consensus_start_cost_``).
    stability_ : float
        With ``compute_stability=True``: Ŝtab (eq. (9)), mean over pairs of
        trees of the empirical probabilistic Kendall distance d̂_τX (eq. (6))
        between their rankings of the training points (at most 2000 of them);
        see :meth:`stability` for another sample.
    oob_score_ : float
        With ``oob_score=True``: out-of-bag AUC.  Each training point is scored
        by the mean, over the trees whose resample does not hold it, of the
        mid-rank of its leaf among the training points (the ``"mean_rank"``
        aggregation of the trees that did not see it, as random forests score
        out of bag); ``oob_score_`` is the AUC of these scores over the points
        that some tree leaves out.  The paper (§3.3) judges each pair by the
        trees whose resample holds neither point without saying how to combine
        them; a vote per pair costs O(n+·n-·B), this estimate O(n·B + n log n),
        and it estimates the forest's AUC rather than that of a few trees.

    Notes
    -----
    Unseen cells: a test point whose leaf signature does not occur in the
    training sample (the usual case with B = 50 trees) is placed where its
    Kendall cost against the B trees is least, the consensus of the training
    cells staying fixed (pauc's choice: the paper does not say how to score
    unseen cells); :meth:`rank_transductive` instead takes the median over the
    cells of the points to rank (§3.2.4, option 2).

    The annealing is a heuristic for an NP-hard problem (§3.2.3): it carries
    none of the guarantees of §4, which assume an exact median.

    References
    ----------
    .. [1] Clémençon, S., Depecker, M. and Vayatis, N. "Ranking Forests." Journal
       of Machine Learning Research 14, 2013 (preprint hal-00452577, 2010;
       sections, equations and Table 1 numbered as in the preprint).
    .. [2] Clémençon, S. and Vayatis, N. "Tree-based ranking methods." IEEE
       Transactions on Information Theory 55(9), 2009 (preprint hal-00268068).
    .. [3] Breiman, L. "Random forests." Machine Learning 45(1), 2001 (the
       out-of-bag estimate).

    Examples
    --------
    >>> from pauc.tree import RankingForest
    >>> from sklearn.datasets import make_classification
    >>> X, y = make_classification(n_samples=300, random_state=0)
    >>> forest = RankingForest(n_estimators=10, random_state=0).fit(X, y)
    >>> forest.decision_function(X[:3]).shape
    (3,)
    """

    def __init__(self, n_estimators=50, *, max_samples=None, bootstrap=True, max_depth=10,
                 min_samples_split=150, min_samples_leaf=40, leafrank_max_depth=10,
                 leafrank_criterion="gini", max_features=None, leafrank_max_features="sqrt",
                 aggregation="kemeny", kemeny_n_iter=None, kemeny_allow_ties=True,
                 max_cells=2000, oob_score=False, compute_stability=False, n_jobs=None,
                 random_state=None, pos_label=None):
        self.n_estimators = n_estimators
        self.max_samples = max_samples
        self.bootstrap = bootstrap
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.leafrank_max_depth = leafrank_max_depth
        self.leafrank_criterion = leafrank_criterion
        self.max_features = max_features
        self.leafrank_max_features = leafrank_max_features
        self.aggregation = aggregation
        self.kemeny_n_iter = kemeny_n_iter
        self.kemeny_allow_ties = kemeny_allow_ties
        self.max_cells = max_cells
        self.oob_score = oob_score
        self.compute_stability = compute_stability
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.pos_label = pos_label

    # ------------------------------------------------------------------ checks
    _parameter_constraints = {
        **{name: constraints for name, constraints in TreeRank._parameter_constraints.items()
           if name not in ("prune", "cv")},
        "n_estimators": [Interval(int, 1)],
        "max_samples": [Options(None), Interval(int, 2), Interval(float, 0.0, 1.0,
                                                                  closed="right")],
        "bootstrap": BOOLEAN,
        "aggregation": [Options(*AGGREGATIONS)],
        "kemeny_n_iter": [Options(None), Interval(int, 0)],
        "kemeny_allow_ties": BOOLEAN,
        "max_cells": [Interval(int, 2)],
        "oob_score": BOOLEAN,
        "compute_stability": BOOLEAN,
        "n_jobs": N_JOBS,
        "random_state": RANDOM_STATE,
        "pos_label": POS_LABEL,
    }

    def _resample_size(self, n_samples):
        """The resample size ``n*`` from ``max_samples``."""
        m = self.max_samples       # None, an int >= 2 or a float in (0, 1] (validate_params)
        if m is None:
            return n_samples
        if isinstance(m, numbers.Integral):
            if not self.bootstrap and m > n_samples:
                raise ValueError(f"max_samples={m} must be at most n_samples={n_samples} "
                                 "without bootstrap")
            return int(m)
        return max(2, int(round(m * n_samples)))

    def _tree_params(self):
        return dict(max_depth=self.max_depth, min_samples_split=self.min_samples_split,
                    min_samples_leaf=self.min_samples_leaf,
                    leafrank_max_depth=self.leafrank_max_depth,
                    leafrank_criterion=self.leafrank_criterion,
                    max_features=self.max_features,
                    leafrank_max_features=self.leafrank_max_features)

    # ------------------------------------------------------------------ fit
    def fit(self, X, y):
        """Grow the B randomised trees on resamples and aggregate them (§3.3).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Sparse input is densified once (TreeRank works on dense columns).
        y : array-like of shape (n_samples,), two classes; ``pos_label`` is the
            positive one.

        Returns
        -------
        self

        References
        ----------
        .. [1] Clémençon, S., Depecker, M. and Vayatis, N. "Ranking Forests." Journal
           of Machine Learning Research 14, 2013 (preprint hal-00452577, 2010),
           §3.3 (the algorithm RANKING FOREST), §3.1 (FR1/FR2).
        """
        self._validate_params()
        X, is_pos, _ = self._validate_training_data(
            X, y, accept_sparse=["csr", "csc", "coo"], dtype=[np.float64], ensure_min_samples=2)
        if sp.issparse(X):
            X = X.toarray()
        n_samples = X.shape[0]
        n_star = self._resample_size(n_samples)
        TreeRank(**self._tree_params())._resolve_params(X.shape[1])   # fail before the pool
        classes = self.classes_
        rng = check_random_state(self.random_state)

        # Resamples and seeds are all drawn here, in order, so that the trees do
        # not depend on n_jobs.  A resample holding one class only is redrawn.
        samples = []
        for _ in range(self.n_estimators):
            for _attempt in range(100):
                rows = (rng.randint(0, n_samples, n_star) if self.bootstrap
                        else rng.choice(n_samples, n_star, replace=False))
                if 0 < is_pos[rows].sum() < n_star:
                    break
            else:
                raise ValueError("could not draw a resample holding both classes; "
                                 "increase max_samples")
            samples.append(np.sort(rows))
        seeds = rng.randint(np.iinfo(np.int32).max, size=self.n_estimators)

        params = self._tree_params()
        X = np.asfortranarray(X)
        ranks = _grow.rank_features(X, _argsort_columns(X, self.n_jobs))
        is_pos_u8 = is_pos.astype(np.uint8)
        # Threads: the growth runs in Cython without the GIL and shares X and ranks.
        fitted = Parallel(n_jobs=self.n_jobs, prefer="threads")(
            delayed(_fit_tree)(params, X, is_pos_u8, classes,
                               np.bincount(rows, minlength=n_samples).astype(np.int32),
                               ranks, int(seed))
            for rows, seed in zip(samples, seeds))
        self.estimators_ = [tree for tree, _ in fitted]
        self.estimators_samples_ = samples

        leaves = np.ascontiguousarray(np.column_stack([col for _, col in fitted]))  # (n, B)
        del fitted
        self._fit_aggregation(leaves, is_pos, rng)
        if self.compute_stability:
            self.stability_ = self._stability_of(leaves, rng)
        if self.oob_score:
            self.oob_score_ = self._oob_auc(leaves, is_pos)
        return self

    def _leaves(self, X):
        # One C-ordered copy for all trees (rows are walked down each tree), and the
        # trees' node arrays directly: their routing loop releases the GIL.
        X = np.ascontiguousarray(X, dtype=np.float64)
        parts = Parallel(n_jobs=self.n_jobs, prefer="threads")(
            delayed(tree.tree_.apply)(X) for tree in self.estimators_)
        return np.ascontiguousarray(np.column_stack(parts), dtype=np.int32)

    def _fit_aggregation(self, leaves, is_pos, rng):
        n_leaves = [tree.n_leaves_ for tree in self.estimators_]
        self._mean_rank_tables = midrank_tables(leaves, n_leaves)
        agg = self.aggregation
        self.n_cells_ = cell_profile(leaves).n_cells
        if agg in ("mean_rank", "median_rank"):
            self._scorer = LeafTableScorer(self._mean_rank_tables,
                                           "median" if agg == "median_rank" else "mean")
        elif agg == "plugin":
            inbag = [leaves[rows, b] for b, rows in enumerate(self.estimators_samples_)]
            negative = [~is_pos[rows] for rows in self.estimators_samples_]
            self._scorer = LeafTableScorer(plugin_tables(inbag, negative, n_leaves))
        elif agg in ("kemeny", "footrule"):
            reference = leaves
            if self.n_cells_ > self.max_cells:
                rows = np.sort(rng.choice(leaves.shape[0], self.max_cells, replace=False))
                reference = leaves[rows]
            profile = cell_profile(reference)
            if agg == "kemeny":
                result = kemeny_median(profile.cell_leaves, profile.weights,
                                       n_iter=self.kemeny_n_iter,
                                       allow_ties=self.kemeny_allow_ties, random_state=rng)
                keys = result.keys
                self.consensus_cost_ = result.cost
                self.consensus_start_cost_ = result.start_cost
            else:
                keys = footrule_median(profile.cell_leaves, profile.weights)
            self._scorer = ConsensusScorer(profile, keys, self._mean_rank_tables)
        else:                                          # "mean_score": not from the paper
            self._scorer = None

    # ------------------------------------------------------------------ predict
    def _check_X(self, X):
        X = self._validate_X(X, accept_sparse=["csr", "csc", "coo"], dtype=[np.float64])
        return X.toarray() if sp.issparse(X) else X

    def decision_function(self, X):
        """Consensus score of each sample (higher = ranked higher).

        ``"kemeny"``/``"footrule"``: the level of the consensus bucket of the
        sample's cell (unseen cells inserted as described in the class notes);
        ``"mean_rank"``/``"median_rank"``: mean/median over the trees of the
        rank of the sample's leaf among the training points; ``"plugin"``:
        eq. (8) averaged over the trees; ``"mean_score"``: mean tree score.

        Returns
        -------
        ndarray of shape (n_samples,)

        References
        ----------
        .. [1] Clémençon, S., Depecker, M. and Vayatis, N. "Ranking Forests." Journal
           of Machine Learning Research 14, 2013 (preprint hal-00452577, 2010),
           §3.2-3.3 (aggregation), eq. (8) (plug-in).
        """
        X = self._check_X(X)
        if self.aggregation == "mean_score":
            return np.mean([tree.decision_function(X) for tree in self.estimators_], axis=0)
        leaves = self._leaves(X)
        if isinstance(self._scorer, ConsensusScorer):
            return self._scorer.score(leaves, n_jobs=self.n_jobs)
        return self._scorer.score(leaves)

    def rank_transductive(self, X, *, random_state=None):
        """Rank the samples of X by a Kendall median over *their* cells (§3.2.4, option 2).

        Each tree ranks the points of X; points in the same cell of P* are tied;
        the consensus is the approximate Kendall median of that profile with
        the points' cells as the reference (no unseen cells).

        Returns
        -------
        ndarray of shape (n_samples,)
            Bucket level of each sample's cell (0 = bottom).

        References
        ----------
        .. [1] Clémençon, S., Depecker, M. and Vayatis, N. "Ranking Forests." Journal
           of Machine Learning Research 14, 2013 (preprint hal-00452577, 2010),
           §3.2.4 (ranks vs. rankings), §3.2.3 (median rankings).
        """
        X = self._check_X(X)
        profile = cell_profile(self._leaves(X))
        rs = self.random_state if random_state is None else random_state
        result = kemeny_median(profile.cell_leaves, profile.weights,
                               n_iter=self.kemeny_n_iter, allow_ties=self.kemeny_allow_ties,
                               random_state=rs)
        return result.keys[profile.inverse]

    # ------------------------------------------------------------------ diagnostics
    def stability(self, X):
        """Ŝtab_n (Ranking Forests, eq. (9) and below): mean d̂_τX between pairs of trees.

        d̂_τX (eq. (6)) is the share of pairs of samples of X that two trees
        order discordantly, counting ½ for a pair tied by one tree only.

        Returns
        -------
        float

        References
        ----------
        .. [1] Clémençon, S., Depecker, M. and Vayatis, N. "Ranking Forests." Journal
           of Machine Learning Research 14, 2013 (preprint hal-00452577, 2010),
           eq. (6) and (9).
        """
        return self._stability_of(self._leaves(self._check_X(X)), None)

    def _stability_of(self, leaves, rng):
        if rng is not None and leaves.shape[0] > _STABILITY_ROWS:
            leaves = leaves[np.sort(rng.choice(leaves.shape[0], _STABILITY_ROWS, replace=False))]
        n_trees = leaves.shape[1]
        if n_trees < 2:
            return 0.0
        n_leaves = leaves.max(axis=0) + 1
        total = 0.0
        for b in range(n_trees):
            for c in range(b + 1, n_trees):
                total += labels_kendall_distance(leaves[:, b], leaves[:, c], n_leaves[b],
                                                 n_leaves[c], normalize=True)
        return 2.0 * total / (n_trees * (n_trees - 1))

    def _oob_auc(self, leaves, is_pos):
        """Out-of-bag AUC (§3.3): every training point scored by the trees whose
        resample does not hold it, then one AUC over the points.

        A point's out-of-bag score is the mean, over those trees, of the mid-rank
        of its leaf among the training points (the mean-rank aggregation of the
        trees that did not see it, as random forests score a point by the trees
        that did not see it); the AUC of these scores is one sort-based count
        (:func:`pauc.metrics.roc_auc`).  O(n·B) to add up the scores and
        O(n log n) for the AUC, never the n+·n- pairs.
        """
        from ..metrics import roc_auc

        n_samples = leaves.shape[0]
        total = np.zeros(n_samples)
        n_oob = np.zeros(n_samples, dtype=np.int64)
        oob = np.empty(n_samples, dtype=bool)
        for b, rows in enumerate(self.estimators_samples_):
            oob.fill(True)
            oob[rows] = False            # a row drawn twice is in the bag all the same
            total[oob] += self._mean_rank_tables[b, leaves[oob, b]]
            n_oob[oob] += 1
        seen = n_oob > 0
        y_seen = is_pos[seen]
        if y_seen.all() or not y_seen.any():
            raise ValueError("no positive or no negative training sample is out of bag for "
                             "any tree; oob_score needs more trees or smaller resamples")
        return float(roc_auc(y_seen.astype(np.uint8), total[seen] / n_oob[seen]))
