# cython: language_level=3
"""Route samples down a fitted ranking tree (the prediction loop of TreeRank).

A master node's split is a small LeafRank tree (see ``_splitter.pyx``): a sample
walks that tree with the cuts ``x_f <= t`` to one of its leaves, and the leaf's
flag says whether the sample belongs to ``C`` (the left, higher-ranked child of
the master node) or to its complement.  O(depth · LeafRank depth) per sample,
without the GIL.
"""


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
    cdef Py_ssize_t n = X.shape[0], i, node, k
    if out.shape[0] != n:
        raise ValueError("out has the wrong length")
    with nogil:
        for i in range(n):
            node = 0
            while children_left[node] != -1:
                k = split_root[node]
                while lr_left[k] != -1:
                    if X[i, lr_feature[k]] <= lr_threshold[k]:
                        k = lr_left[k]
                    else:
                        k = lr_right[k]
                node = children_left[node] if lr_in_c[k] else children_right[node]
            out[i] = leaf_index[node]


def apply_tree_rows(const double[:, :] X, const Py_ssize_t[::1] rows,
                    const Py_ssize_t[::1] children_left, const Py_ssize_t[::1] children_right,
                    const Py_ssize_t[::1] split_root, const Py_ssize_t[::1] leaf_index,
                    const Py_ssize_t[::1] lr_feature, const double[::1] lr_threshold,
                    const Py_ssize_t[::1] lr_left, const Py_ssize_t[::1] lr_right,
                    const unsigned char[::1] lr_in_c, Py_ssize_t[::1] out):
    """As :func:`apply_tree` for the rows ``rows`` of X only (any memory layout):
    ``out[rows[j]]`` receives the leaf index of ``X[rows[j]]``."""
    cdef Py_ssize_t n = X.shape[0], j, i, node, k
    if out.shape[0] != n:
        raise ValueError("out has the wrong length")
    for j in range(rows.shape[0]):
        if not 0 <= rows[j] < n:
            raise ValueError("row index out of range")
    with nogil:
        for j in range(rows.shape[0]):
            i = rows[j]
            node = 0
            while children_left[node] != -1:
                k = split_root[node]
                while lr_left[k] != -1:
                    if X[i, lr_feature[k]] <= lr_threshold[k]:
                        k = lr_left[k]
                    else:
                        k = lr_right[k]
                node = children_left[node] if lr_in_c[k] else children_right[node]
            out[i] = leaf_index[node]
