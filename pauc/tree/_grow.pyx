# cython: language_level=3
"""The growing stage of TreeRank: the master ranking tree, split by LeafRank.

TREERANK (Clémençon & Vayatis 2009, Sec. IV-A) splits the master nodes depth
first, left child first: a node is split by LeafRank (``_leafrank.pyx``) into
``C``, its left (higher-ranked) child, and the rest, until the stopping rules
(depth D, too few samples, a pure node, or no split of positive gain,
Remark 10).  The tree is left-right oriented, so reading its leaves from left to
right goes from the best to the worst ranked cell (Remark 9).

FR1 (Clémençon, Depecker & Vayatis 2013, §3.1): at every master node
``max_features`` features are drawn without replacement and handed over to
LeafRank, which draws its FR2 subsets among them at each of its own nodes; both
draws come from one random stream, seeded per tree.

Every feature is replaced once (per forest) by the dense ranks of its values
(:func:`rank_features`), so that LeafRank can sweep a few-valued feature by
counting (see ``_leafrank.pyx``).  The whole tree grows without the GIL, so the
trees of a forest grow in threads.

The full references are in the docstrings of :class:`pauc.tree.TreeRank`.
"""

from libc.stdlib cimport free
from libc.stdint cimport uint64_t

import numpy as np
cimport numpy as cnp

from .._random cimport rand_below
from ._utils cimport resize
from ._leafrank cimport (
    CRITERION_GAIN, CRITERION_GINI, LeafRank, Mass, Sample, SplitNode, find_split,
    leafrank_free, leafrank_init, make_sample, may_split, node_mass)

cnp.import_array()


cdef struct MasterNode:
    # The output row of one master node (the arrays of RankingTreeStructure).
    Py_ssize_t children_left, children_right, depth, n_samples, split_root
    double pos_weight, neg_weight, gain


cdef struct Pending:
    # A master node waiting on the stack: its id, rows[start:end] and depth.
    Py_ssize_t node, start, end
    int depth


cdef struct Tree:
    # The growing tree: master nodes (capacity fixed by the depth and the sample)
    # and the concatenated LeafRank trees of its splits (grown on demand).
    MasterNode* nodes
    Py_ssize_t n_nodes
    SplitNode* splits
    Py_ssize_t n_splits, splits_capacity


cdef int _reserve_splits(Tree* t, Py_ssize_t need) except -1 nogil:
    cdef Py_ssize_t cap = t.splits_capacity
    if need > cap:
        cap = max(need, 2 * cap, 64)
        t.splits = <SplitNode*>resize(t.splits, cap, sizeof(SplitNode))
        t.splits_capacity = cap
    return 0


cdef int _grow(LeafRank* lr, Py_ssize_t* rows, Py_ssize_t n_entries, int max_depth,
               Pending* stack, Py_ssize_t* all_features, Py_ssize_t* chosen, Tree* t,
               Py_ssize_t* row_node) except -1 nogil:
    """TREERANK's growing stage: master nodes split by LeafRank depth first, left
    child first (Clémençon & Vayatis 2009, Sec. IV-A, steps 1-2); ``row_node[i]``
    receives the leaf holding row i."""
    cdef const Sample* s = lr.sample
    cdef Py_ssize_t top = 1, node, start, end, entries_c, n_lr, i, j, r, f, left_id, offset
    cdef Py_ssize_t q = s.q, q0 = lr.q0
    cdef int depth
    cdef Mass total, here, in_c
    cdef MasterNode* out
    cdef SplitNode* sn

    total = node_mass(s, rows, n_entries)
    for f in range(q):
        all_features[f] = f
    stack[0].node = 0
    stack[0].start = 0
    stack[0].end = n_entries
    stack[0].depth = 0
    t.n_nodes = 1
    while top > 0:
        top -= 1
        node = stack[top].node
        start = stack[top].start
        end = stack[top].end
        depth = stack[top].depth
        here = node_mass(s, rows + start, end - start)
        out = &t.nodes[node]
        out.children_left = -1
        out.children_right = -1
        out.depth = depth
        out.pos_weight = here.pos
        out.neg_weight = here.neg
        out.n_samples = here.count
        out.gain = 0.0
        out.split_root = -1
        # Stopping rules: depth D, too few samples, pure node (Λ ≡ 0).
        if not (may_split(here.count, depth, max_depth, lr.min_split, lr.min_leaf)
                and here.pos > 0.0 and here.neg > 0.0):
            for i in range(start, end):
                row_node[rows[i]] = node
            continue
        # FR1: q0 features drawn without replacement for this master node, kept ascending.
        if q0 < q:
            for j in range(q0):
                r = j + rand_below(lr.rng, q - j)
                f = all_features[r]
                all_features[r] = all_features[j]
                all_features[j] = f
                i = j
                while i > 0 and chosen[i - 1] > f:
                    chosen[i] = chosen[i - 1]
                    i -= 1
                chosen[i] = f
        else:
            for j in range(q):
                chosen[j] = j
        # Step 2a: C = LeafRank's argmax of Λ in the node; its rows come first.
        n_lr = find_split(lr, rows + start, end - start, chosen, &in_c, &entries_c)
        if not 0 < in_c.count < here.count:
            # No split of positive gain: the node stays whole (Remark 10).
            for i in range(start, end):
                row_node[rows[i]] = node
            continue
        left_id = t.n_nodes
        t.n_nodes += 2
        out.children_left = left_id
        out.children_right = left_id + 1
        # Count form of Λ(C); the AUC gain is the triangle ½·Λ.
        out.gain = 0.5 * (here.neg * in_c.pos - here.pos * in_c.neg) / (total.pos * total.neg)
        offset = t.n_splits
        out.split_root = offset
        _reserve_splits(t, offset + n_lr)
        for i in range(n_lr):
            sn = &t.splits[offset + i]
            sn[0] = lr.nodes[i]
            if sn.left != -1:
                sn.left += offset
            if sn.right != -1:
                sn.right += offset
        t.n_splits = offset + n_lr
        # Right child below the left one on the stack: the left subtree grows first.
        stack[top].node = left_id + 1
        stack[top].start = start + entries_c
        stack[top].end = end
        stack[top].depth = depth + 1
        stack[top + 1].node = left_id
        stack[top + 1].start = start
        stack[top + 1].end = start + entries_c
        stack[top + 1].depth = depth + 1
        top += 2
    return 0


def grow_tree(const double[::1, :] X, const unsigned char[::1] is_pos, const double[::1] w,
              const cnp.int32_t[::1] counts, const cnp.int32_t[:, ::1] ranks,
              const cnp.int32_t[::1] n_values, const double[::1] rank_values,
              const cnp.int64_t[::1] rank_offsets, Py_ssize_t max_features,
              Py_ssize_t leafrank_max_features, int max_depth, int leafrank_max_depth,
              Py_ssize_t min_samples_split, Py_ssize_t min_samples_leaf, int criterion,
              uint64_t seed):
    """Grow a ranking tree by TREERANK with LeafRank splits, without the GIL.

    The caller validates the labels and weights once per fit; this checks only
    the shapes and the parameters.

    Parameters
    ----------
    X : Fortran-ordered float64 array (n_samples, n_features)
    is_pos : uint8 array, 1 for positives
    w : float64 class-mass weight of each row (its multiplicity times its weight)
    counts : int32 multiplicity of each row (0 = not in the sample); the
        ``min_samples_*`` rules count multiplicities
    ranks, n_values, rank_values, rank_offsets : :func:`rank_features` of X
        (shared read-only by the trees, trusted: not checked again here)
    max_features : q0, features drawn at each master node (FR1)
    leafrank_max_features : q1 <= q0, drawn at each LeafRank node among them (FR2)
    max_depth, leafrank_max_depth : depths D and d′
    min_samples_split, min_samples_leaf : stopping rules (master and LeafRank)
    criterion : ``GAIN`` or ``GINI`` of :mod:`pauc.tree._leafrank`
    seed : state of the random stream of FR1 and FR2

    Returns
    -------
    dict of the node arrays of :class:`~pauc.tree._treerank.RankingTreeStructure`,
    and ``"row_node"``: the leaf (node id) holding each row, -1 for rows whose
    count is 0

    References
    ----------
    .. [1] Clémençon, S. and Vayatis, N. "Tree-based ranking methods." IEEE
       Transactions on Information Theory 55(9), 2009 (preprint hal-00268068),
       Sec. IV-A.
    .. [2] Clémençon, S., Depecker, M. and Vayatis, N. "Ranking Forests." Journal
       of Machine Learning Research 14, 2013 (preprint hal-00452577), §2.3, §3.1.
    """
    cdef Py_ssize_t n = X.shape[0], q = X.shape[1], f, i, n_entries = 0, max_values = 1
    if is_pos.shape[0] != n or w.shape[0] != n or counts.shape[0] != n:
        raise ValueError("X, is_pos, w and counts differ in length")
    if (ranks.shape[0] != q or ranks.shape[1] != n or n_values.shape[0] != q
            or rank_offsets.shape[0] != q + 1):
        raise ValueError("ranks must have shape (n_features, n_samples)")
    if not 1 <= leafrank_max_features <= max_features <= q:
        raise ValueError("need 1 <= leafrank_max_features <= max_features <= n_features")
    if max_depth < 0 or leafrank_max_depth < 1:
        raise ValueError("max_depth must be >= 0 and leafrank_max_depth >= 1")
    if min_samples_split < 1 or min_samples_leaf < 1:
        raise ValueError("min_samples_split and min_samples_leaf must be >= 1")
    if criterion not in (CRITERION_GAIN, CRITERION_GINI):
        raise ValueError("unknown criterion")
    for f in range(q):
        if not 1 <= n_values[f] <= n:
            raise ValueError("n_values out of range")
        max_values = max(max_values, n_values[f])
        if (rank_offsets[f + 1] - rank_offsets[f] != n_values[f] or rank_offsets[f] < 0
                or rank_offsets[f + 1] > rank_values.shape[0]):
            raise ValueError("rank_offsets do not match n_values")
    for i in range(n):
        if counts[i] < 0:
            raise ValueError("counts must be non-negative")
        if counts[i] > 0:
            n_entries += 1
    if n_entries == 0:
        raise ValueError("empty sample")
    cdef Py_ssize_t node_cap = 2 * n_entries - 1
    if max_depth < 30 and (1 << (max_depth + 1)) - 1 < node_cap:
        node_cap = (1 << (max_depth + 1)) - 1
    row_node_arr = np.full(n, -1, dtype=np.intp)
    cdef Py_ssize_t[::1] row_node = row_node_arr

    cdef Sample s = make_sample(X, ranks, n_values, rank_values, rank_offsets, is_pos, w,
                                counts)
    cdef uint64_t rng = seed
    cdef LeafRank lr
    cdef Tree t
    t.nodes = NULL
    t.n_nodes = 0
    t.splits = NULL
    t.n_splits = 0
    t.splits_capacity = 0
    cdef Py_ssize_t* rows = NULL
    cdef Py_ssize_t* all_features = NULL
    cdef Py_ssize_t* chosen = NULL
    cdef Pending* stack = NULL
    try:
        leafrank_init(&lr, &s, max_features, leafrank_max_features, min_samples_split,
                      min_samples_leaf, leafrank_max_depth, criterion, &rng, n_entries,
                      max_values)
        rows = <Py_ssize_t*>resize(NULL, n_entries, sizeof(Py_ssize_t))
        all_features = <Py_ssize_t*>resize(NULL, q, sizeof(Py_ssize_t))
        chosen = <Py_ssize_t*>resize(NULL, q, sizeof(Py_ssize_t))
        stack = <Pending*>resize(NULL, node_cap, sizeof(Pending))
        t.nodes = <MasterNode*>resize(NULL, node_cap, sizeof(MasterNode))
        with nogil:
            f = 0
            for i in range(n):
                if counts[i] > 0:
                    rows[f] = i
                    f += 1
            _grow(&lr, rows, n_entries, max_depth, stack, all_features, chosen, &t,
                  &row_node[0])
        arrays = _node_arrays(&t)
    finally:
        leafrank_free(&lr)
        free(rows); free(all_features); free(chosen); free(stack)
        free(t.nodes); free(t.splits)
    arrays["row_node"] = row_node_arr
    return arrays


_SPLIT_FIELDS = {"leafrank_feature": "feature", "leafrank_threshold": "threshold",
                 "leafrank_left": "left", "leafrank_right": "right", "leafrank_in_left": "in_c"}


cdef dict _node_arrays(const Tree* t):
    """The master nodes and the LeafRank trees of ``t`` as one array per field.
    Copies, always (``ascontiguousarray`` would keep a view of a one-element
    field): the structs are freed after the growth."""
    cdef SplitNode none             # a one-leaf tree has no split: view one, keep none
    nodes = np.asarray(<MasterNode[:t.n_nodes]>t.nodes)
    arrays = {name: nodes[name].copy() for name in nodes.dtype.names}
    splits = np.asarray(<SplitNode[:max(t.n_splits, 1)]>(t.splits if t.n_splits else &none))
    splits = splits[:t.n_splits]
    for name, field in _SPLIT_FIELDS.items():
        arrays[name] = splits[field].copy()
    return arrays


def rank_features(const double[::1, :] X, order=None):
    """Dense ranks of every feature's values (0 = smallest; equal values share a rank).

    ``order``: optionally, ``np.argsort(X, axis=0)`` computed by the caller (the
    forest sorts blocks of columns in threads); it is checked to be one (each
    column a permutation sorting X's column), so that the growth, which trusts
    the ranks, never indexes out of range.

    Returns
    -------
    ranks : int32 array (n_features, n_samples)
    n_values : int32 array (n_features,), distinct values of each feature
    rank_values : float64 array, the distinct values of feature f, ascending, at
        ``rank_values[rank_offsets[f]:rank_offsets[f + 1]]``
    rank_offsets : int64 array (n_features + 1,)
    """
    cdef Py_ssize_t n = X.shape[0], q = X.shape[1], f, i
    order_arr = np.argsort(np.asarray(X), axis=0) if order is None else order
    if order_arr.shape[0] != n or order_arr.shape[1] != q:
        raise ValueError("order must have the shape of X")
    cdef const cnp.intp_t[:, :] order_view = order_arr
    # -1 marks a rank not written yet: an index met twice is not a permutation.
    ranks_arr = np.full((q, n), -1, dtype=np.int32)
    n_values_arr = np.zeros(q, dtype=np.int32)
    offsets_arr = np.zeros(q + 1, dtype=np.int64)
    cdef cnp.int32_t[:, ::1] ranks = ranks_arr
    cdef cnp.int32_t[::1] n_values = n_values_arr
    cdef cnp.int64_t[::1] offsets = offsets_arr
    cdef cnp.int32_t r
    cdef Py_ssize_t k, k_prev
    with nogil:
        for f in range(q):
            if n == 0:
                continue
            r = 0
            k_prev = order_view[0, f]
            if not 0 <= k_prev < n:
                with gil:
                    raise ValueError("order is not an argsort of X")
            ranks[f, k_prev] = 0
            for i in range(1, n):
                k = order_view[i, f]
                if not 0 <= k < n or ranks[f, k] != -1 or X[k, f] < X[k_prev, f]:
                    with gil:
                        raise ValueError("order is not an argsort of X")
                if X[k, f] != X[k_prev, f]:
                    r += 1
                ranks[f, k] = r
                k_prev = k
            n_values[f] = r + 1
            offsets[f + 1] = offsets[f] + r + 1
    values_arr = np.empty(offsets_arr[q], dtype=np.float64)
    cdef double[::1] values = values_arr
    with nogil:
        for f in range(q):
            for i in range(n):
                values[offsets[f] + ranks[f, i]] = X[i, f]
    return ranks_arr, n_values_arr, values_arr, offsets_arr
