# cython: language_level=3
"""Route samples down a fitted ranking tree (the prediction loop of TreeRank).

A master node's split is a small LeafRank tree (see ``_splitter.pyx``): a sample
walks that tree with the cuts ``x_f <= t`` to one of its leaves, and the leaf's
flag says whether the sample belongs to ``C`` (the left, higher-ranked child of
the master node) or to its complement.  O(depth · LeafRank depth) per sample,
without the GIL.
"""



cdef struct LeafRankArrays:
    const Py_ssize_t* feature
    const double* threshold
    const Py_ssize_t* left
    const Py_ssize_t* right
    const unsigned char* in_c


cdef LeafRankArrays _leafrank_arrays(const Py_ssize_t[::1] feature, const double[::1] threshold,
                                     const Py_ssize_t[::1] left, const Py_ssize_t[::1] right,
                                     const unsigned char[::1] in_c):
    """Raw pointers to the LeafRank arrays (NULL when empty: a one-leaf tree
    never reads them)."""
    cdef LeafRankArrays t
    cdef bint empty = feature.shape[0] == 0
    t.feature = NULL if empty else &feature[0]
    t.threshold = NULL if empty else &threshold[0]
    t.left = NULL if empty else &left[0]
    t.right = NULL if empty else &right[0]
    t.in_c = NULL if empty else &in_c[0]
    return t


cdef inline Py_ssize_t _route(const double* x, Py_ssize_t feature_stride,
                              const Py_ssize_t* children_left, const Py_ssize_t* children_right,
                              const Py_ssize_t* split_root, const Py_ssize_t* leaf_index,
                              const Py_ssize_t* lr_feature, const double* lr_threshold,
                              const Py_ssize_t* lr_left, const Py_ssize_t* lr_right,
                              const unsigned char* lr_in_c) noexcept nogil:
    """Leaf index of the row ``x`` (feature f at ``x[f * feature_stride]``): down
    the master tree, each node asking its LeafRank tree whether the row lies
    in C (left child) or not."""
    cdef Py_ssize_t node = 0, k
    while children_left[node] != -1:
        k = split_root[node]
        while lr_left[k] != -1:
            if x[lr_feature[k] * feature_stride] <= lr_threshold[k]:
                k = lr_left[k]
            else:
                k = lr_right[k]
        node = children_left[node] if lr_in_c[k] else children_right[node]
    return leaf_index[node]


def apply_tree(const double[:, ::1] X,
               const Py_ssize_t[::1] children_left, const Py_ssize_t[::1] children_right,
               const Py_ssize_t[::1] split_root, const Py_ssize_t[::1] leaf_index,
               const Py_ssize_t[::1] lr_feature, const double[::1] lr_threshold,
               const Py_ssize_t[::1] lr_left, const Py_ssize_t[::1] lr_right,
               const unsigned char[::1] lr_in_c, Py_ssize_t[::1] out):
    """Write into ``out[i]`` the leaf index of the master leaf holding ``X[i]``.

    ``children_left[v] == -1`` marks a master leaf; otherwise ``split_root[v]``
    is the root of node v's LeafRank tree in the ``lr_*`` arrays, whose leaves
    have ``lr_left == -1``.
    """
    cdef Py_ssize_t n = X.shape[0], i
    cdef Py_ssize_t fstride = X.strides[1] // sizeof(double)
    cdef LeafRankArrays t = _leafrank_arrays(lr_feature, lr_threshold, lr_left, lr_right, lr_in_c)
    if out.shape[0] != n:
        raise ValueError("out has the wrong length")
    with nogil:
        for i in range(n):
            out[i] = _route(&X[i, 0], fstride, &children_left[0], &children_right[0],
                            &split_root[0], &leaf_index[0], t.feature, t.threshold,
                            t.left, t.right, t.in_c)


def apply_tree_rows(const double[:, :] X, const Py_ssize_t[::1] rows,
                    const Py_ssize_t[::1] children_left, const Py_ssize_t[::1] children_right,
                    const Py_ssize_t[::1] split_root, const Py_ssize_t[::1] leaf_index,
                    const Py_ssize_t[::1] lr_feature, const double[::1] lr_threshold,
                    const Py_ssize_t[::1] lr_left, const Py_ssize_t[::1] lr_right,
                    const unsigned char[::1] lr_in_c, Py_ssize_t[::1] out):
    """As :func:`apply_tree` for the rows ``rows`` of X only (any memory layout):
    ``out[rows[j]]`` receives the leaf index of ``X[rows[j]]``."""
    cdef Py_ssize_t n = X.shape[0], j, i
    cdef Py_ssize_t fstride = X.strides[1] // sizeof(double)
    cdef LeafRankArrays t = _leafrank_arrays(lr_feature, lr_threshold, lr_left, lr_right, lr_in_c)
    if out.shape[0] != n:
        raise ValueError("out has the wrong length")
    for j in range(rows.shape[0]):
        if not 0 <= rows[j] < n:
            raise ValueError("row index out of range")
    with nogil:
        for j in range(rows.shape[0]):
            i = rows[j]
            out[i] = _route(&X[i, 0], fstride, &children_left[0], &children_right[0],
                            &split_root[0], &leaf_index[0], t.feature, t.threshold,
                            t.left, t.right, t.in_c)
