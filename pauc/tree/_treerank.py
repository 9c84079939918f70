"""TreeRank: a ranking tree grown by recursive cost-sensitive splits.

The TREERANK algorithm of Clémençon & Vayatis (2009, Sec. IV-A; pruning,
Sec. V-A), with the LeafRank split learner and the feature randomisation
FR1/FR2 of Clémençon, Depecker & Vayatis ("Ranking Forests", 2013, §2.3, §3.1).
The hot loops are Cython: ``_leafrank.pyx`` (the split), ``_grow.pyx`` (the
master tree), ``_apply.pyx`` (routing).

The tree is left-right oriented: the left child ``C`` of a node is the part the
split ranks higher.  Reading the leaves left to right goes from the best to the
worst ranked cell, and the empirical ROC curve of the tree is the broken line
through the cumulative class rates of the leaves in that order.  Every split
adds to the training AUC exactly the triangle ½·Λ above its parent's chord, so

    AUĈ = ½ + Σ_splits gain,   gain = ½·Λ = ½·(a·β̂(C) − b·α̂(C))

(the increment of Ranking Forests, §2.3.1, summed over every split of the tree;
the output formula of TREERANK in Sec. IV-A of the 2009 preprint sums the last
level only, which is the same for depth 1).

The full references are in the docstrings of :class:`TreeRank`.
"""

import numbers
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.model_selection import StratifiedKFold
from sklearn.utils import check_random_state
from .._base import (POS_LABEL, RANDOM_STATE, BaseRanker, Interval, Options, Satisfies,
                     validate_params)
from . import _apply, _grow, _leafrank

_CRITERIA = {"gain": _leafrank.GAIN, "gini": _leafrank.GINI}


class RankingTreeStructure:
    """The arrays of a fitted ranking tree (one row per master node).

    Attributes
    ----------
    children_left, children_right : int arrays, -1 for leaves
    depth : int array
    leaf_index : int array, rank of the leaf from the left (0 = best), -1 for
        internal nodes
    pos_weight, neg_weight : float arrays, training weight of each class in the node
    n_samples : int array, training samples in the node
    gain : float array, AUC gain ½·Λ of the node's split (0 for leaves)
    split_root : int array, root of the node's LeafRank tree in the ``leafrank_*``
        arrays, -1 for leaves
    leafrank_feature, leafrank_threshold, leafrank_left, leafrank_right,
    leafrank_in_left : the LeafRank trees of all splits, concatenated; a LeafRank
        leaf has ``leafrank_left == -1`` and ``leafrank_in_left`` tells whether its
        samples go to the left (higher ranked) child of the master node.

    References
    ----------
    .. [1] Clémençon, S. and Vayatis, N. "Tree-based ranking methods." IEEE
       Transactions on Information Theory 55(9), 2009 (preprint hal-00268068),
       Sec. IV-A (the oriented tree; Remark 9: leaves read from left to right).
    """

    _NODE_FIELDS = ("children_left", "children_right", "depth", "pos_weight",
                    "neg_weight", "n_samples", "gain", "split_root")
    _LEAFRANK_FIELDS = ("leafrank_feature", "leafrank_threshold", "leafrank_left",
                        "leafrank_right", "leafrank_in_left")

    def __init__(self, **arrays):
        for name, value in arrays.items():
            setattr(self, name, value)
        self.leaf_index = self._number_leaves()
        # Leftmost leaf of every subtree (leaves of a subtree are contiguous).
        self.first_leaf = self.leaf_index.copy()
        for v in np.flatnonzero(self.children_left != -1)[::-1]:
            self.first_leaf[v] = self.first_leaf[self.children_left[v]]

    @property
    def node_count(self):
        return self.children_left.shape[0]

    @property
    def n_leaves(self):
        return int((self.children_left == -1).sum())

    def _number_leaves(self):
        """In-order numbering of the leaves, left subtree first: the ranking of
        the cells read from left to right (Remark 9 of Clémençon & Vayatis)."""
        leaf_index = np.full(self.node_count, -1, dtype=np.intp)
        stack, k = [0], 0
        while stack:
            v = stack.pop()
            if self.children_left[v] == -1:
                leaf_index[v] = k
                k += 1
            else:
                stack.append(self.children_right[v])
                stack.append(self.children_left[v])
        return leaf_index

    def leaves_in_order(self):
        leaves = np.flatnonzero(self.leaf_index >= 0)
        return leaves[np.argsort(self.leaf_index[leaves])]

    def apply(self, X, out=None, rows=None):
        """Leaf index of the rows of X (C order is the fastest), written into
        ``out`` (a new array by default); with ``rows``, of those rows only."""
        if out is None:
            out = np.empty(X.shape[0], dtype=np.intp)
        _apply.apply_tree(X, self.children_left, self.children_right, self.split_root,
                          self.leaf_index, self.leafrank_feature, self.leafrank_threshold,
                          self.leafrank_left, self.leafrank_right, self.leafrank_in_left,
                          out, rows)
        return out

    def collapse(self, keep_split):
        """The subtree where internal nodes with ``keep_split[v] == False`` become
        leaves (their descendants are dropped); nodes are renumbered."""
        old_to_new, order, stack = {}, [], [0]
        while stack:
            v = stack.pop()
            old_to_new[v] = len(order)
            order.append(v)
            if self.children_left[v] != -1 and keep_split[v]:
                stack.append(self.children_right[v])
                stack.append(self.children_left[v])
        order = np.asarray(order, dtype=np.intp)
        arrays = {name: getattr(self, name)[order].copy() for name in self._NODE_FIELDS}
        is_split = (self.children_left[order] != -1) & np.asarray(keep_split)[order]
        for name, default in (("children_left", -1), ("children_right", -1),
                              ("gain", 0.0), ("split_root", -1)):
            arrays[name][~is_split] = default
        for name in ("children_left", "children_right"):
            col = arrays[name]
            col[is_split] = [old_to_new[c] for c in col[is_split]]
        for name in self._LEAFRANK_FIELDS:
            arrays[name] = getattr(self, name)
        return RankingTreeStructure(**arrays)

    def roc_knots(self):
        """Knots (α, β) of the training ROC curve, leaves read from best to worst."""
        leaves = self.leaves_in_order()
        fp = np.concatenate(([0.0], np.cumsum(self.neg_weight[leaves])))
        tp = np.concatenate(([0.0], np.cumsum(self.pos_weight[leaves])))
        return np.column_stack((fp / fp[-1], tp / tp[-1]))


def _resolve_max_features(value, n_available, name, of):
    """Number of features drawn: None (all), an int in [1, n], a float in (0, 1],
    "sqrt" or "log2" of ``n_available``."""
    if value is None:
        return n_available
    if isinstance(value, str):
        if value == "sqrt":
            return max(1, int(np.sqrt(n_available)))
        if value == "log2":
            return max(1, int(np.log2(n_available)))
        raise ValueError(f'{name} must be None, an int, a float, "sqrt" or "log2", got {value!r}')
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be None, an int or a float, got {value!r}")
    if isinstance(value, numbers.Integral):
        if not 1 <= value <= n_available:
            raise ValueError(
                f"{name}={value} is out of range: it must lie in [1, {n_available}] "
                f"({of})")
        return int(value)
    if isinstance(value, numbers.Real):
        if not 0.0 < value <= 1.0:
            raise ValueError(f"{name}={value} is out of range: a fraction must lie in (0, 1]")
        return max(1, int(value * n_available))
    raise ValueError(f"{name} must be None, an int, a float, \"sqrt\" or \"log2\", got {value!r}")


def _unit_scale(w):
    """``w`` times the power of two ``2**-e`` that brings its largest value into
    [1, 2), and ``e``.

    The tree depends on the weights only through ratios, but the growth multiplies
    class masses (the count form W-·P − W+·N of Λ is of the order of W+·W-): weights
    of 1e-200 underflowed to a one-leaf tree and weights of 1e200 overflowed.
    Scaling by a power of two is exact, so the tree grown on the result is the
    tree of ``w`` (bit for bit for unit weights, e = 0); together with the
    relative tolerances of the split search, a rescaling of the weights by any
    constant leaves the tree unchanged.
    """
    exponent = int(np.frexp(w.max())[1]) - 1
    return np.ldexp(w, -exponent), exponent


class TreeRank(BaseRanker, BaseEstimator):
    """TreeRank ranking tree with LeafRank splits (TREERANK [1]_, LeafRank [2]_).

    The tree recursively splits the input space.  At a node holding the fraction
    ``a`` of the training negatives and ``b`` of the positives, the left child
    ``C`` maximises the entropic measure ``Λ(C) = a·β̂(C) − b·α̂(C)`` ([1]_,
    TREERANK step 2a), i.e. solves the cost-sensitive classification problem
    with positives weighted by ``1 − p̂_node`` and negatives by ``p̂_node``
    ([2]_, §2.3.1).  The split learner is **LeafRank**: a cost-sensitive CART of depth
    ``leafrank_max_depth`` grown inside the node, whose leaves with Λ >= 0 form
    ``C``; ``leafrank_max_depth=1`` gives the orthogonal stumps of Remark 12.
    A node becomes a leaf when it is pure, too small, at ``max_depth``, or when
    no split has a positive gain (Remark 10).  Ties between maximisers go to the
    larger set ``C`` (Remark 10), then to the lowest feature index.

    Read left to right, the leaves go from the best to the worst ranked cell; the
    score of a leaf is ``n_leaves_ - leaf index``.  The training AUC equals
    ``0.5 + sum of the split gains`` (``node gain = ½·Λ``).

    Parameters
    ----------
    max_depth : int, default=8
        Depth ``D`` of the master ranking tree (at most ``2**D`` leaves).
    min_samples_split : int, default=50
        Smallest number of samples in a node (of the master tree and of the
        LeafRank trees) that may be split.
    min_samples_leaf : int, default=10
        Smallest number of samples in a LeafRank leaf, hence in each child of a
        master split.
    leafrank_max_depth : int, default=4
        Depth of the cost-sensitive CART that splits each master node (1 =
        orthogonal stump).
    leafrank_criterion : {"gain", "gini"}, default="gain"
        How LeafRank chooses its cuts: ``"gain"`` maximises the node objective
        max(Λ(L), 0) + max(Λ(R), 0) directly (greedy; a stump at depth 1 is the
        exact argmax of Λ); ``"gini"`` uses the Gini impurity of the
        cost-weighted classes (CART's criterion, [2]_ §2.3.1).  With
        ``leafrank_max_depth=1`` the stump is always the exact Λ maximiser.
    max_features : int, float, "sqrt", "log2" or None, default=None
        FR1 ([2]_, §3.1): number (or fraction) of features drawn without
        replacement at each master node; LeafRank only uses those.
    leafrank_max_features : int, float, "sqrt", "log2" or None, default=None
        FR2: number of features drawn at each LeafRank node among the ones
        drawn by FR1 (a float is a fraction of those); must not exceed them.
    prune : None or "cv", default=None
        ``"cv"``: weakest-link pruning ([1]_ Sec. V-A, [2]_ §2.3.2): the
        penalty λ per leaf of ``AUĈ − λ·#leaves`` is chosen by ``cv``-fold
        stratified cross-validation of the held-out AUC (largest λ within one
        standard error of the best mean, the 1-SE rule of CART [3]_).
    cv : int, default=5
        Folds used by ``prune="cv"``, stratified by class; each class needs at
        least ``cv`` samples (of positive weight), otherwise ``fit`` says so.
    random_state : int, RandomState or None, default=None
        Seeds FR1/FR2 and the cross-validation folds.
    pos_label : label, default=None
        The positive class.  None: 1 (or True) when the labels are {0, 1},
        {-1, 1} or booleans; other label sets must name it.

    Attributes
    ----------
    tree_ : RankingTreeStructure
        The node arrays (children, class weights, gains, LeafRank trees).
    n_leaves_ : int
    classes_ : array of shape (2,); ``[negative label, positive label]``.
    n_features_in_ : int
    roc_ : ndarray of shape ``(n_leaves_ + 1, 2)``
        Knots (FPR, TPR) of the training ROC curve, from (0, 0) to (1, 1).
    train_auc_ : float
        ``0.5 + Σ gains``, the AUC of the tree on its training data.
    prune_lambda_ : float
        The penalty selected by ``prune="cv"`` (0.0 without pruning).
    prune_path_ : dict
        With ``prune="cv"``: the candidate penalties ``"lambda"`` and their mean
        held-out AUC ``"cv_auc"``.

    Notes
    -----
    Input is dense: a sparse ``X`` is converted to a dense array (the split
    search gathers columns of the node's rows).  ``sample_weight`` enters all
    class masses; ``min_samples_*`` count samples, as in scikit-learn.  The tree
    depends on the weights only through their ratios: multiplying all of them by
    a constant (1e-200 or 1e200 included) leaves it unchanged.  The
    heavy loops (split search, routing) run in Cython without the GIL, so trees
    can be fitted in threads.

    References
    ----------
    .. [1] Clémençon, S. and Vayatis, N. "Tree-based ranking methods." IEEE
       Transactions on Information Theory 55(9), 2009 (preprint hal-00268068;
       sections and remarks numbered as in the preprint).
    .. [2] Clémençon, S., Depecker, M. and Vayatis, N. "Ranking Forests." Journal
       of Machine Learning Research 14, 2013 (preprint hal-00452577, 2010;
       sections numbered as in the preprint).
    .. [3] Breiman, L., Friedman, J. H., Olshen, R. A. and Stone, C. J.
       "Classification and Regression Trees." Wadsworth, 1984.

    Examples
    --------
    The training AUC is ½ plus the gains of the splits, each the triangle a
    split adds under the tree's ROC curve:

    >>> import numpy as np
    >>> from pauc.metrics import roc_auc
    >>> from pauc.tree import TreeRank
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 3))
    >>> y = (X[:, 0] + rng.normal(size=400) > 0).astype(int)
    >>> tree = TreeRank(max_depth=3, leafrank_max_depth=1, random_state=0).fit(X, y)
    >>> bool(np.isclose(roc_auc(y, tree.decision_function(X)), tree.train_auc_))
    True
    """

    _parameter_constraints = {
        "max_depth": [Interval(int, 1)],
        "min_samples_split": [Interval(int, 2)],
        "min_samples_leaf": [Interval(int, 1)],
        "leafrank_max_depth": [Interval(int, 1)],
        "leafrank_criterion": [Options(*sorted(_CRITERIA))],
        "max_features": [Satisfies(lambda v: _resolve_max_features(v, 1 << 30, "", ""),
                                   'None, an int >= 1, a float in (0, 1], "sqrt" or "log2"')],
        "leafrank_max_features": [Satisfies(lambda v: _resolve_max_features(v, 1 << 30, "", ""),
                                            'None, an int >= 1, a float in (0, 1], "sqrt" or '
                                            '"log2"')],
        "prune": [Options(None, "cv")],
        "random_state": RANDOM_STATE,
        "pos_label": POS_LABEL,
    }

    def __init__(self, max_depth=8, *, min_samples_split=50, min_samples_leaf=10,
                 leafrank_max_depth=4, leafrank_criterion="gain", max_features=None,
                 leafrank_max_features=None, prune=None, cv=5, random_state=None,
                 pos_label=None):
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.leafrank_max_depth = leafrank_max_depth
        self.leafrank_criterion = leafrank_criterion
        self.max_features = max_features
        self.leafrank_max_features = leafrank_max_features
        self.prune = prune
        self.cv = cv
        self.random_state = random_state
        self.pos_label = pos_label

    # ------------------------------------------------------------------ checks
    def _resolve_params(self, n_features):
        """Check the parameters; the numbers of features drawn by FR1 and FR2."""
        self._validate_params()
        if self.prune == "cv":       # (cv is read by the pruning only)
            validate_params(self, {"cv": [Interval(int, 2)]})
        q0 = _resolve_max_features(self.max_features, n_features, "max_features",
                                   "the number of features")
        q1 = _resolve_max_features(self.leafrank_max_features, q0, "leafrank_max_features",
                                   "the features drawn by max_features at each node")
        return q0, q1

    def _training_data(self, X, y, sample_weight):
        X, is_pos, w = self._validate_training_data(
            X, y, sample_weight, accept_sparse=["csr", "csc", "coo"], dtype=[np.float64],
            ensure_min_samples=2)
        if sp.issparse(X):
            X = X.toarray()
        if w is None:
            w = np.ones(X.shape[0])
        return np.asfortranarray(X), is_pos.astype(np.uint8), w, self.classes_

    # ------------------------------------------------------------------ fit
    def fit(self, X, y, sample_weight=None):
        """Grow the ranking tree (TREERANK, Clémençon & Vayatis 2009, Sec. IV-A),
        then prune if asked (Sec. V-A).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,), two classes; ``pos_label`` is the
            positive one.
        sample_weight : array-like of shape (n_samples,), optional
            Enters every class mass; only the ratios of the weights matter.

        Returns
        -------
        self

        References
        ----------
        .. [1] Clémençon, S. and Vayatis, N. "Tree-based ranking methods." IEEE
           Transactions on Information Theory 55(9), 2009 (preprint
           hal-00268068), Sec. IV-A and V-A.
        """
        X, is_pos, w, classes = self._training_data(X, y, sample_weight)
        q0, q1 = self._resolve_params(X.shape[1])
        rng = check_random_state(self.random_state)
        self.classes_ = classes
        w, exponent = _unit_scale(w)
        tree = self._grow(X, is_pos, w, q0, q1, rng)
        self.prune_lambda_ = 0.0
        if self.prune == "cv":
            tree = self._prune_by_cv(tree, X, is_pos, w, q0, q1, rng)
        # Report the class weights in the units of the sample_weight given.
        tree.pos_weight = np.ldexp(tree.pos_weight, exponent)
        tree.neg_weight = np.ldexp(tree.neg_weight, exponent)
        self._set_tree(tree)
        return self

    def _set_tree(self, tree):
        self.tree_ = tree
        self.n_leaves_ = tree.n_leaves
        self.roc_ = tree.roc_knots()
        self.train_auc_ = 0.5 + float(tree.gain.sum())

    def _fit_resample(self, X, is_pos, counts, ranks, classes):
        """Fit on the rows of ``X`` repeated ``counts[i]`` times (a bootstrap
        resample), without copying them: equal rows are never separated by a
        cut, so this is the tree grown on the resample with its repetitions.
        ``ranks`` is :func:`_grow.rank_features` of X, shared by the forest's
        trees.  Returns ``self`` and the leaf (node id) of every row of the
        resample, -1 for the rows left out (see :meth:`_training_leaves`)."""
        q0, q1 = self._resolve_params(X.shape[1])
        rng = check_random_state(self.random_state)
        self.classes_ = classes
        self.n_features_in_ = X.shape[1]
        tree, row_node = self._grow(X, is_pos, counts.astype(np.float64), q0, q1, rng,
                                    counts=counts, ranks=ranks, return_row_node=True)
        self._set_tree(tree)
        self.prune_lambda_ = 0.0
        return self, row_node

    def _training_leaves(self, X, row_node):
        """Leaf index of every row of X: read from ``row_node`` (the growth's own
        record) for the rows of the resample, routed down the tree for the others."""
        tree = self.tree_
        out = np.empty(X.shape[0], dtype=np.intp)
        inbag = row_node >= 0
        out[inbag] = tree.leaf_index[row_node[inbag]]
        return tree.apply(X, out, rows=np.flatnonzero(~inbag))

    def _grow(self, X, is_pos, w, q0, q1, rng, counts=None, ranks=None,
              return_row_node=False):
        """TREERANK growing stage: split every node by LeafRank until the stopping
        rules (Cython, ``_grow.grow_tree``, without the GIL)."""
        # A LeafRank of depth 1 is the orthogonal stump: always the exact argmax of Λ.
        criterion = (_leafrank.GAIN if self.leafrank_max_depth == 1
                     else _CRITERIA[self.leafrank_criterion])
        if counts is None:
            counts = np.ones(X.shape[0], dtype=np.int32)
        if ranks is None:
            ranks = _grow.rank_features(X)
        seed = int(rng.randint(0, 2**63 - 1, dtype=np.int64))
        arrays = _grow.grow_tree(
            X, is_pos, w, counts, *ranks, q0, q1, self.max_depth, self.leafrank_max_depth,
            self.min_samples_split, self.min_samples_leaf, criterion, seed)
        row_node = arrays.pop("row_node")
        tree = RankingTreeStructure(**arrays)
        return (tree, row_node) if return_row_node else tree

    # ------------------------------------------------------------------ pruning
    @staticmethod
    def _weakest_link(tree):
        """Weakest-link pruning sequence (Clémençon & Vayatis 2009, Sec. V-A;
        Ranking Forests, §2.3.2; the sequence of CART, Breiman et al. 1984).

        The training AUC of a subtree is ½ + the sum of its kept split gains, so
        collapsing an internal node v costs exactly ``G(v)``, the sum of the gains
        in its subtree, and saves ``L(v) − 1`` leaves.  As in CART, the node with
        the smallest ``g(v) = G(v)/(L(v) − 1)`` is collapsed first, then the next,
        up to the root.

        Returns
        -------
        collapse_at : float array, one per node: the penalty λ from which the node
            is a leaf of the pruned tree (−inf for leaves); the subtree optimal for
            ``AUĈ − λ·#leaves`` keeps exactly the splits with ``collapse_at > λ``.
        breakpoints : increasing array of the distinct critical λ.
        """
        left, right, gain = tree.children_left, tree.children_right, tree.gain
        n_nodes = tree.node_count
        parent = np.full(n_nodes, -1, dtype=np.intp)
        internal = np.flatnonzero(left != -1)
        parent[left[internal]] = internal
        parent[right[internal]] = internal
        G = np.where(left != -1, gain, 0.0)
        L = np.ones(n_nodes)
        # Children have larger ids than their parents: one reverse sweep sums subtrees.
        for v in internal[::-1]:
            G[v] += G[left[v]] + G[right[v]]
            L[v] = L[left[v]] + L[right[v]]
        g = np.full(n_nodes, np.inf)
        g[internal] = G[internal] / (L[internal] - 1)
        collapse_at = np.full(n_nodes, -np.inf)
        active = left != -1
        lam = 0.0
        while active[0]:
            v = int(np.argmin(g))
            lam = max(lam, float(g[v]))     # the sequence of penalties is monotone
            dG, dL = G[v], L[v] - 1
            stack = [v]
            while stack:
                u = stack.pop()
                if active[u]:
                    active[u] = False
                    collapse_at[u] = lam
                    g[u] = np.inf
                    stack.extend((left[u], right[u]))
            u = parent[v]
            while u != -1:
                G[u] -= dG
                L[u] -= dL
                g[u] = G[u] / (L[u] - 1)
                u = parent[u]
        breakpoints = np.unique(collapse_at[internal])
        return collapse_at, breakpoints

    @staticmethod
    def _keep_splits(tree, lam):
        """Optimal subtree for ``AUĈ − λ·#leaves`` by the bottom-up recursion
        best(v) = max(0, gain_v − λ + best(left) + best(right)), as in CART's
        cost-complexity pruning (Breiman et al. 1984, Chapter 3).
        Splits are kept only when strictly profitable (the smallest optimal tree)."""
        left, right, gain = tree.children_left, tree.children_right, tree.gain
        best = np.zeros(tree.node_count)
        keep = np.zeros(tree.node_count, dtype=bool)
        # Children always have larger ids than their parent (created after it).
        for v in reversed(range(tree.node_count)):
            if left[v] != -1:
                value = gain[v] - lam + best[left[v]] + best[right[v]]
                if value > 0.0:
                    best[v] = value
                    keep[v] = True
        # A split below a collapsed node is irrelevant: clear it.
        for v in range(tree.node_count):
            if left[v] != -1 and not keep[v]:
                keep[left[v]] = keep[right[v]] = False
        return keep

    @staticmethod
    def _pruned_ranks(tree, collapse_at, lam):
        """Rank of each leaf of ``tree`` in the subtree pruned at λ (0 = best).

        Collapsing a node merges its leaves, which are contiguous in the
        left-to-right order; so the pruned tree's leaves are the maximal
        collapsed nodes, ordered by their leftmost leaf."""
        keep = collapse_at > lam
        left, right = tree.children_left, tree.children_right
        internal = np.flatnonzero(left != -1)
        parent_kept = np.zeros(tree.node_count, dtype=bool)
        parent_kept[0] = True
        parent_kept[left[internal]] = keep[internal]
        parent_kept[right[internal]] = keep[internal]
        tops = np.flatnonzero(~keep & parent_kept)
        first_leaf = tree.first_leaf
        starts = np.sort(first_leaf[tops])
        return np.searchsorted(starts, np.arange(tree.n_leaves), side="right") - 1

    def _cv_folds(self, is_pos, w, rng):
        """The ``cv`` folds of ``prune="cv"``, stratified so that every held-out
        part holds both classes with a positive weight (its AUC needs both), and
        so that every training part does too.  That takes at least ``cv``
        samples of positive weight in each class: with fewer, say so."""
        weighted = w > 0
        n_pos = int((weighted & (is_pos == 1)).sum())
        n_neg = int((weighted & (is_pos == 0)).sum())
        if min(n_pos, n_neg) < self.cv:
            fix = (f"lower cv to at most {min(n_pos, n_neg)} or use prune=None"
                   if min(n_pos, n_neg) >= 2 else "use prune=None")
            raise ValueError(
                f'prune="cv" cannot run with cv={self.cv}: y has {n_pos} positive and '
                f"{n_neg} negative samples (of positive weight), and each of the "
                f"{self.cv} held-out folds needs both classes to measure an AUC; {fix}")
        # Strata: weighted negatives, weighted positives, and the rows of zero
        # weight (they count for min_samples_* only), so that each fold gets at
        # least one weighted sample of each class.  Without zero weights these are
        # the classes.  A small zero-weight stratum is spread as it can be, which
        # StratifiedKFold warns about; nothing depends on it.
        strata = np.where(weighted, is_pos, 2)
        folds = StratifiedKFold(n_splits=self.cv, shuffle=True,
                                random_state=rng.randint(0, 2**31 - 1))
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="The least populated class",
                                    category=UserWarning)
            return list(folds.split(np.zeros((is_pos.shape[0], 1)), strata))

    def _prune_by_cv(self, tree, X, is_pos, w, q0, q1, rng):
        """Choose λ by stratified ``cv``-fold cross-validation of the held-out AUC
        along the weakest-link sequences, then prune the tree grown on all data."""
        from ..metrics import roc_auc

        _, breakpoints = self._weakest_link(tree)
        # Candidates inside the intervals of the full tree's sequence (geometric
        # means of consecutive breakpoints, as in CART), thinned to at most 64.
        bp = breakpoints[breakpoints > 0]
        candidates = np.concatenate(([0.0], np.sqrt(bp[:-1] * bp[1:]), bp[-1:] * 2.0))
        if candidates.shape[0] > 64:
            candidates = candidates[np.unique(np.linspace(0, candidates.shape[0] - 1, 64)
                                              .round().astype(int))]
        scores = np.zeros((self.cv, candidates.shape[0]))
        X_rows = np.ascontiguousarray(X)
        for f, (train, test) in enumerate(self._cv_folds(is_pos, w, rng)):
            sub = self._grow(np.asfortranarray(X[train]), is_pos[train], w[train],
                             q0, q1, rng)
            collapse_at, _ = self._weakest_link(sub)
            leaves = sub.apply(X_rows[test])
            for c, lam in enumerate(candidates):
                ranks = self._pruned_ranks(sub, collapse_at, lam)
                scores[f, c] = roc_auc(is_pos[test], -ranks[leaves].astype(np.float64),
                                       sample_weight=w[test])
        mean = scores.mean(axis=0)
        # CART's one-standard-error rule (Breiman et al. 1984, §3.4.3): the largest λ
        # (smallest tree) whose mean held-out AUC is within one standard error of the
        # best; held-out AUC curves are flat near the optimum, and the rule keeps
        # pure-noise splits out.
        top = int(np.argmax(mean))
        se = scores[:, top].std(ddof=1) / np.sqrt(self.cv)
        best = np.flatnonzero(mean >= mean[top] - se - 1e-12)[-1]
        self.prune_lambda_ = float(candidates[best])
        self.prune_path_ = {"lambda": candidates, "cv_auc": mean}
        return tree.collapse(self._keep_splits(tree, self.prune_lambda_))

    # ------------------------------------------------------------------ predict
    def _check_X(self, X):
        X = self._validate_X(X, accept_sparse=["csr", "csc", "coo"], dtype=[np.float64])
        if sp.issparse(X):
            X = X.toarray()
        return np.ascontiguousarray(X)

    def apply(self, X):
        """Leaf index of each sample: 0 = leftmost = best-ranked leaf, up to
        ``n_leaves_ - 1``.

        Returns
        -------
        ndarray of int64, shape (n_samples,)

        References
        ----------
        .. [1] Clémençon, S. and Vayatis, N. "Tree-based ranking methods." IEEE
           Transactions on Information Theory 55(9), 2009 (preprint
           hal-00268068), Remark 9 (reading the ranks from left to right).
        """
        X = self._check_X(X)
        return self.tree_.apply(X).astype(np.int64)

    def decision_function(self, X):
        """Rank score ``n_leaves_ − leaf index`` (higher = more likely positive).

        The tree score of TREERANK (its output ``s_D(x) = 2^D − k`` on the k-th
        cell, Clémençon & Vayatis 2009, Sec. IV-A) up to the empty slots of
        leaves that stopped early: only the order matters.

        Returns
        -------
        ndarray of float64, shape (n_samples,)

        References
        ----------
        .. [1] Clémençon, S. and Vayatis, N. "Tree-based ranking methods." IEEE
           Transactions on Information Theory 55(9), 2009 (preprint
           hal-00268068), Sec. IV-A.
        """
        leaves = self.apply(X)
        return (self.n_leaves_ - leaves).astype(np.float64)
