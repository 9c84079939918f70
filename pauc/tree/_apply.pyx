# cython: language_level=3
"""Route samples down a fitted ranking tree (the prediction loop of TreeRank).

A master node's split is a small LeafRank tree (see ``_leafrank.pyx``): a sample
walks that tree with the cuts ``x_f <= t`` to one of its leaves, and the leaf's
flag says whether the sample belongs to ``C`` (the left, higher-ranked child of
the master node) or to its complement (Clémençon & Vayatis 2009, Sec. IV-A;
the leaves read from left to right give the ranking, Remark 9).
O(depth · LeafRank depth) per sample, without the GIL.

The full references are in the docstrings of :class:`pauc.tree.TreeRank`.
"""


cdef struct RankingTree:
    # The node arrays of a fitted tree (RankingTreeStructure), as pointers.
    const Py_ssize_t* children_left
    const Py_ssize_t* children_right
    const Py_ssize_t* split_root
    const Py_ssize_t* leaf_index
    const Py_ssize_t* lr_feature    # the LeafRank trees, concatenated (NULL when
    const double* lr_threshold      # empty: a one-leaf tree never reads them)
    const Py_ssize_t* lr_left
    const Py_ssize_t* lr_right
    const unsigned char* lr_in_c


cdef RankingTree _tree_view(const Py_ssize_t[::1] children_left,
                            const Py_ssize_t[::1] children_right,
                            const Py_ssize_t[::1] split_root, const Py_ssize_t[::1] leaf_index,
                            const Py_ssize_t[::1] lr_feature, const double[::1] lr_threshold,
                            const Py_ssize_t[::1] lr_left, const Py_ssize_t[::1] lr_right,
                            const unsigned char[::1] lr_in_c) except *:
    cdef RankingTree t
    cdef Py_ssize_t n_nodes = children_left.shape[0], n_lr = lr_feature.shape[0]
    if (n_nodes < 1 or children_right.shape[0] != n_nodes or split_root.shape[0] != n_nodes
            or leaf_index.shape[0] != n_nodes or lr_threshold.shape[0] != n_lr
            or lr_left.shape[0] != n_lr or lr_right.shape[0] != n_lr
            or lr_in_c.shape[0] != n_lr):
        raise ValueError("the tree's node arrays differ in length")
    t.children_left = &children_left[0]
    t.children_right = &children_right[0]
    t.split_root = &split_root[0]
    t.leaf_index = &leaf_index[0]
    t.lr_feature = NULL if n_lr == 0 else &lr_feature[0]
    t.lr_threshold = NULL if n_lr == 0 else &lr_threshold[0]
    t.lr_left = NULL if n_lr == 0 else &lr_left[0]
    t.lr_right = NULL if n_lr == 0 else &lr_right[0]
    t.lr_in_c = NULL if n_lr == 0 else &lr_in_c[0]
    return t


cdef inline Py_ssize_t _route(const double* x, Py_ssize_t feature_stride,
                              const RankingTree* t) noexcept nogil:
    """Leaf index of the row ``x`` (feature f at ``x[f * feature_stride]``): down
    the master tree, each node asking its LeafRank tree whether the row lies
    in C (left child) or not."""
    cdef Py_ssize_t node = 0, k
    while t.children_left[node] != -1:
        k = t.split_root[node]
        while t.lr_left[k] != -1:
            if x[t.lr_feature[k] * feature_stride] <= t.lr_threshold[k]:
                k = t.lr_left[k]
            else:
                k = t.lr_right[k]
        node = t.children_left[node] if t.lr_in_c[k] else t.children_right[node]
    return t.leaf_index[node]


def apply_tree(const double[:, :] X, const Py_ssize_t[::1] children_left,
               const Py_ssize_t[::1] children_right, const Py_ssize_t[::1] split_root,
               const Py_ssize_t[::1] leaf_index, const Py_ssize_t[::1] lr_feature,
               const double[::1] lr_threshold, const Py_ssize_t[::1] lr_left,
               const Py_ssize_t[::1] lr_right, const unsigned char[::1] lr_in_c,
               Py_ssize_t[::1] out, rows=None):
    """Write into ``out[i]`` the leaf index of the master leaf holding ``X[i]``,
    for every row i of X or, with ``rows``, for the rows ``rows`` only (X in any
    memory layout; C order is the fastest).

    ``children_left[v] == -1`` marks a master leaf; otherwise ``split_root[v]``
    is the root of node v's LeafRank tree in the ``lr_*`` arrays, whose leaves
    have ``lr_left == -1``.
    """
    cdef Py_ssize_t n = X.shape[0], j, i
    cdef Py_ssize_t fstride = X.strides[1] // sizeof(double)
    cdef RankingTree t = _tree_view(children_left, children_right, split_root, leaf_index,
                                    lr_feature, lr_threshold, lr_left, lr_right, lr_in_c)
    cdef const Py_ssize_t[::1] which
    if out.shape[0] != n:
        raise ValueError("out has the wrong length")
    if rows is None:
        with nogil:
            for i in range(n):
                out[i] = _route(&X[i, 0], fstride, &t)
        return
    which = rows
    for j in range(which.shape[0]):
        if not 0 <= which[j] < n:
            raise ValueError("row index out of range")
    with nogil:
        for j in range(which.shape[0]):
            i = which[j]
            out[i] = _route(&X[i, 0], fstride, &t)
