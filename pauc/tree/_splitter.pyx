# cython: language_level=3
"""The node split of TreeRank: LeafRank, a cost-sensitive CART grown inside one node.

Paper 000 (Clémençon & Vayatis, TreeRank), Sec. IV-A, step 2a, and the spec
``seed-000-treerank.md`` §2.2-2.3; paper 003 (Ranking Forests) §2.3.1 and §3.1.

Inside a master node holding (weighted) ``W+`` positives and ``W-`` negatives,
the split maximises the *entropic measure*

    Λ(C) = a·β̂(C) − b·α̂(C),   a = α̂(node), b = β̂(node),

which, multiplied by ``n+ n-``, is the **count form**

    n+ n- Λ(C) = W-·P(C) − W+·N(C)         (P, N: positive / negative weight in C).

So every positive of the node is worth ``W-`` and every negative ``−W+``: the
cost-sensitive classification problem with positives weighted by 1 − p̂_node and
negatives by p̂_node (spec §2.3).  With unit sample weights all these numbers are
integers held exactly in doubles, so ties are decided exactly (Remark 10).

Λ is additive over disjoint sets and Λ(node) = 0, hence Λ(node ∖ C) = −Λ(C): one
sweep over a sorted feature scores both orientations of every threshold.

LeafRank (``max_depth`` = d′) grows a small CART inside the node with
axis-parallel cuts ``x_j <= t`` and returns ``C`` = the union of its leaves with
Λ(ℓ) >= 0 (leaves of zero gain are included: among tied maximisers the larger
set, Remark 10).  Because Λ is additive this is the exact argmax of Λ over unions
of the CART's leaves (spec §2.3, "shake and merge").  With d′ = 1 it is the
orthogonal stump of Remark 12: the best threshold over all features and both
orientations.  CART nodes are split by one of two criteria:

* ``gain`` (``CRITERION_GAIN``): the split maximising
  max(Λ(L), 0) + max(Λ(R), 0), the objective itself (greedy); at the LeafRank
  root this is |Λ(L)|, the stump of Remark 12;
* ``gini`` (``CRITERION_GINI``): the decrease of the Gini impurity
  ``P·N / (P + N)`` computed with the cost-sensitive weights, CART's usual
  surrogate (paper 003 §2.3.1), which keeps growing where Λ alone sees no
  progress (XOR-like cells).

FR2 (paper 003 §3.1): at every CART node ``max_features`` features are drawn
without replacement among the ``features`` handed over by the master node (FR1).

Cost: per CART node and candidate feature, one gather, one sort and one sweep,
O(q₁·m log m) for m samples in the node; all of it without the GIL.
"""

from libc.stdlib cimport malloc, free
from libc.stdint cimport uint64_t
from libc.math cimport log2

import numpy as np

cdef enum:
    CRITERION_GAIN = 0
    CRITERION_GINI = 1

# Python-visible copies of the criterion codes.
GAIN = CRITERION_GAIN
GINI = CRITERION_GINI

# A relative tolerance on Λ: with unit weights Λ (count form) is an integer, so a
# tolerance of 1e-13 · W+ · W- (< 1 for up to ~3 million samples per class) only
# absorbs rounding of non-integer weights and never merges two different integers.
cdef double REL_TOL = 1e-13


# ---------------------------------------------------------------------------
# Random numbers (splitmix64): FR2 draws must be reproducible and GIL-free.
# ---------------------------------------------------------------------------

cdef inline uint64_t _next_random(uint64_t* state) noexcept nogil:
    cdef uint64_t z
    state[0] += <uint64_t>0x9E3779B97F4A7C15
    z = state[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)


cdef inline Py_ssize_t _random_below(uint64_t* state, Py_ssize_t n) noexcept nogil:
    return <Py_ssize_t>(_next_random(state) % <uint64_t>n)


# ---------------------------------------------------------------------------
# Sorting a feature's values together with their sample indices.
# Introsort with a three-way partition: fast on the many ties of binary or
# discretised features (a9a is 0/1), O(m log m) in the worst case.
# ---------------------------------------------------------------------------

cdef inline void _swap(double* v, Py_ssize_t* ix, Py_ssize_t i, Py_ssize_t j) noexcept nogil:
    cdef double tv = v[i]
    cdef Py_ssize_t ti = ix[i]
    v[i] = v[j]
    ix[i] = ix[j]
    v[j] = tv
    ix[j] = ti


cdef inline double _median_of_three(double* v, Py_ssize_t n) noexcept nogil:
    cdef double a = v[0], b = v[n // 2], c = v[n - 1]
    if a < b:
        if b < c:
            return b
        return c if a < c else a
    if a < c:
        return a
    return c if b < c else b


cdef void _sift_down(double* v, Py_ssize_t* ix, Py_ssize_t start, Py_ssize_t end) noexcept nogil:
    cdef Py_ssize_t root = start, child
    while 2 * root + 1 < end:
        child = 2 * root + 1
        if child + 1 < end and v[child] < v[child + 1]:
            child += 1
        if v[root] < v[child]:
            _swap(v, ix, root, child)
            root = child
        else:
            return


cdef void _heapsort(double* v, Py_ssize_t* ix, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t start = (n - 2) // 2, end = n - 1
    while start >= 0:
        _sift_down(v, ix, start, n)
        start -= 1
    while end > 0:
        _swap(v, ix, 0, end)
        _sift_down(v, ix, 0, end)
        end -= 1


cdef void _introsort(double* v, Py_ssize_t* ix, Py_ssize_t n, int max_depth) noexcept nogil:
    cdef double pivot
    cdef Py_ssize_t lt, i, gt, k
    while n > 16:
        if max_depth <= 0:
            _heapsort(v, ix, n)
            return
        max_depth -= 1
        pivot = _median_of_three(v, n)
        # Dijkstra's three-way partition: [0, lt) < pivot, [lt, gt) == pivot, [gt, n) > pivot.
        lt = 0
        i = 0
        gt = n
        while i < gt:
            if v[i] < pivot:
                _swap(v, ix, lt, i)
                lt += 1
                i += 1
            elif v[i] > pivot:
                gt -= 1
                _swap(v, ix, i, gt)
            else:
                i += 1
        _introsort(v, ix, lt, max_depth)
        v += gt
        ix += gt
        n -= gt
    # Insertion sort for the short runs.
    for i in range(1, n):
        k = i
        while k > 0 and v[k - 1] > v[k]:
            _swap(v, ix, k - 1, k)
            k -= 1


cdef inline void _sort(double* v, Py_ssize_t* ix, Py_ssize_t n) noexcept nogil:
    if n > 1:
        _introsort(v, ix, n, 2 * <int>log2(n))


def sort_with_indices(double[::1] values, Py_ssize_t[::1] indices):
    """Sort ``values`` ascending in place, permuting ``indices`` alongside (tests)."""
    if values.shape[0] != indices.shape[0]:
        raise ValueError("values and indices differ in length")
    cdef Py_ssize_t n = values.shape[0]
    if n > 0:
        with nogil:
            _sort(&values[0], &indices[0], n)


# ---------------------------------------------------------------------------
# LeafRank
# ---------------------------------------------------------------------------

cdef inline double _positive_part(double x) noexcept nogil:
    return x if x > 0.0 else 0.0


cdef inline double _gini(double p, double q) noexcept nogil:
    # Unnormalised Gini impurity of a cell with cost-weighted masses p and q.
    return p * q / (p + q) if p + q > 0.0 else 0.0


cdef struct SplitRecord:
    Py_ssize_t feature
    Py_ssize_t position     # samples [s, s + position) go left (x <= threshold)
    double threshold
    double value            # criterion value, larger is better
    double size_in_c        # weight of the children with Λ >= 0 (tie-break, Remark 10)


cdef void _best_split(const double[::1, :] X, const unsigned char[::1] is_pos,
                      const double[::1] w, Py_ssize_t* samples, Py_ssize_t m,
                      Py_ssize_t* features, Py_ssize_t n_candidates, Py_ssize_t n_draw,
                      double coef_pos, double coef_neg, double pos_total, double neg_total,
                      Py_ssize_t min_samples_leaf, int criterion, double tol,
                      uint64_t* rng, double* values, Py_ssize_t* order,
                      SplitRecord* best) noexcept nogil:
    """Best cut ``x_f <= t`` of the cell ``samples[0:m]`` over ``n_draw`` features drawn
    among ``features[0:n_candidates]``; ``best.feature = -1`` when no cut improves."""
    cdef Py_ssize_t d, j, f, r, i
    cdef double lam_node = coef_pos * pos_total - coef_neg * neg_total
    cdef double gini_node = _gini(coef_pos * pos_total, coef_neg * neg_total)
    cdef double p_left, n_left, lam_left, lam_right, value, size_c, lo, hi, v
    cdef double w_left, w_total = pos_total + neg_total
    cdef double base

    # The baseline a split must beat: keeping the cell whole.
    base = _positive_part(lam_node) if criterion == CRITERION_GAIN else 0.0
    best.feature = -1
    best.value = base
    best.size_in_c = -1.0

    for d in range(n_draw):
        # FR2: partial Fisher-Yates draw without replacement; with every feature
        # allowed the order stays the given one (ties -> lowest feature index).
        if n_draw < n_candidates:
            j = d + _random_below(rng, n_candidates - d)
            f = features[j]
            features[j] = features[d]
            features[d] = f
        f = features[d]

        lo = X[samples[0], f]
        hi = lo
        for i in range(m):
            v = X[samples[i], f]
            values[i] = v
            order[i] = samples[i]
            if v < lo:
                lo = v
            if v > hi:
                hi = v
        if lo == hi:            # constant in this cell: no cut
            continue
        _sort(values, order, m)

        p_left = 0.0
        n_left = 0.0
        for r in range(1, m):
            i = order[r - 1]
            if is_pos[i]:
                p_left += w[i]
            else:
                n_left += w[i]
            if values[r - 1] == values[r]:
                continue        # cut only between distinct values
            if r < min_samples_leaf:
                continue
            if m - r < min_samples_leaf:
                break
            if criterion == CRITERION_GAIN:
                lam_left = coef_pos * p_left - coef_neg * n_left
                lam_right = lam_node - lam_left
                value = _positive_part(lam_left) + _positive_part(lam_right)
                w_left = p_left + n_left
                size_c = 0.0
                if lam_left >= -tol:
                    size_c += w_left
                if lam_right >= -tol:
                    size_c += w_total - w_left
                # Larger value wins; on a tie (within tol) the larger set C wins.
                if best.feature < 0:
                    if not value > base + tol:
                        continue
                elif not (value > best.value + tol
                          or (value >= best.value - tol and size_c > best.size_in_c)):
                    continue
            else:
                value = gini_node - _gini(coef_pos * p_left, coef_neg * n_left) \
                    - _gini(coef_pos * (pos_total - p_left), coef_neg * (neg_total - n_left))
                if not value > (base + tol if best.feature < 0 else best.value):
                    continue
                size_c = 0.0
            best.feature = f
            best.position = r
            best.value = value
            best.size_in_c = size_c
            best.threshold = 0.5 * (values[r - 1] + values[r])
            # The midpoint can round up to the upper value for adjacent floats.
            if best.threshold >= values[r]:
                best.threshold = values[r - 1]


cdef Py_ssize_t _partition(const double[::1, :] X, Py_ssize_t* samples, Py_ssize_t m,
                           Py_ssize_t f, double t) noexcept nogil:
    """Reorder ``samples[0:m]`` so that those with ``x_f <= t`` come first; return their count."""
    cdef Py_ssize_t i = 0, j = m - 1, tmp
    while i <= j:
        if X[samples[i], f] <= t:
            i += 1
        else:
            tmp = samples[i]
            samples[i] = samples[j]
            samples[j] = tmp
            j -= 1
    return i


def leafrank_split(const double[::1, :] X, const unsigned char[::1] is_pos,
                   const double[::1] w, Py_ssize_t[::1] samples,
                   Py_ssize_t start, Py_ssize_t end,
                   const Py_ssize_t[::1] features, Py_ssize_t max_features,
                   int max_depth, Py_ssize_t min_samples_split,
                   Py_ssize_t min_samples_leaf, int criterion, uint64_t seed,
                   Py_ssize_t[::1] node_feature, double[::1] node_threshold,
                   Py_ssize_t[::1] node_left, Py_ssize_t[::1] node_right,
                   unsigned char[::1] node_in_c):
    """Split the master node ``samples[start:end]`` by LeafRank (spec §2.3).

    Parameters
    ----------
    X : Fortran-ordered float64 array (n_samples, n_features)
    is_pos : uint8 array, 1 for positives
    w : float64 sample weights
    samples : sample indices; the node's slice is reordered in place so that the
        left child ``C`` (higher rank) comes first.
    features : the features allowed at this master node (FR1)
    max_features : features drawn at each LeafRank node among ``features`` (FR2)
    max_depth : depth d′ of the LeafRank CART (1 = orthogonal stump)
    min_samples_split, min_samples_leaf : sample counts of LeafRank nodes/leaves
    criterion : ``GAIN`` or ``GINI`` (see the module docstring)
    seed : state of the FR2 random stream
    node_* : output buffers for the LeafRank tree, at least
        ``min(2**(max_depth+1) - 1, 2*(end-start) - 1)`` long.  Node 0 is the
        root; leaves have ``node_left == -1`` and ``node_in_c`` says whether the
        leaf belongs to ``C``.

    Returns
    -------
    n_nodes : int, nodes of the LeafRank tree
    n_in_c : int, samples in ``C`` (``samples[start:start + n_in_c]``); 0 or
        ``end - start`` means that no split has a positive gain (the node is a leaf).
    pos_in_c, neg_in_c : float, positive and negative weight in ``C``
    """
    cdef Py_ssize_t m = end - start
    cdef Py_ssize_t n_candidates = features.shape[0]
    cdef Py_ssize_t capacity = node_feature.shape[0]
    if m < 1:
        raise ValueError("empty node")
    if n_candidates < 1 or max_features < 1 or max_features > n_candidates:
        raise ValueError("need 1 <= max_features <= len(features)")
    if max_depth < 1:
        raise ValueError("max_depth must be >= 1")
    if (node_threshold.shape[0] < capacity or node_left.shape[0] < capacity
            or node_right.shape[0] < capacity or node_in_c.shape[0] < capacity
            or capacity < 1):
        raise ValueError("LeafRank node buffers are too short")
    if start < 0 or end > samples.shape[0]:
        raise ValueError("node slice out of range")

    cdef Py_ssize_t* feat = <Py_ssize_t*>malloc(n_candidates * sizeof(Py_ssize_t))
    cdef double* values = <double*>malloc(m * sizeof(double))
    cdef Py_ssize_t* order = <Py_ssize_t*>malloc(m * sizeof(Py_ssize_t))
    # Work stack of cells still to examine, and the sample range of every node.
    cdef Py_ssize_t* stack_node = <Py_ssize_t*>malloc(capacity * sizeof(Py_ssize_t))
    cdef Py_ssize_t* node_start = <Py_ssize_t*>malloc(capacity * sizeof(Py_ssize_t))
    cdef Py_ssize_t* node_end = <Py_ssize_t*>malloc(capacity * sizeof(Py_ssize_t))
    cdef int* node_depth = <int*>malloc(capacity * sizeof(int))
    if (feat == NULL or values == NULL or order == NULL or stack_node == NULL
            or node_start == NULL or node_end == NULL or node_depth == NULL):
        free(feat); free(values); free(order); free(stack_node)
        free(node_start); free(node_end); free(node_depth)
        raise MemoryError()

    cdef Py_ssize_t i, k, s, e, nm, n_nodes = 1, top = 0, node, n_left, n_in_c = 0
    cdef double pos_total = 0.0, neg_total = 0.0, pos_c = 0.0, neg_c = 0.0
    cdef double p, q, coef_pos, coef_neg, tol, lam
    cdef uint64_t rng = seed
    cdef SplitRecord best
    cdef Py_ssize_t* smp = &samples[start]

    with nogil:
        for k in range(n_candidates):
            feat[k] = features[k]
        for i in range(m):
            k = smp[i]
            if is_pos[k]:
                pos_total += w[k]
            else:
                neg_total += w[k]
        # Count-form Λ: a positive is worth W-(node), a negative W+(node).
        coef_pos = neg_total
        coef_neg = pos_total
        tol = REL_TOL * pos_total * neg_total

        node_start[0] = 0
        node_end[0] = m
        node_depth[0] = 0
        stack_node[0] = 0
        top = 1
        while top > 0:
            top -= 1
            node = stack_node[top]
            s = node_start[node]
            e = node_end[node]
            nm = e - s
            p = 0.0
            q = 0.0
            for i in range(s, e):
                k = smp[i]
                if is_pos[k]:
                    p += w[k]
                else:
                    q += w[k]
            node_left[node] = -1
            node_right[node] = -1
            node_feature[node] = -1
            node_threshold[node] = 0.0
            best.feature = -1
            if (node_depth[node] < max_depth and nm >= min_samples_split
                    and nm >= 2 * min_samples_leaf and p > 0.0 and q > 0.0
                    and n_nodes + 2 <= capacity):
                _best_split(X, is_pos, w, smp + s, nm, feat, n_candidates, max_features,
                            coef_pos, coef_neg, p, q, min_samples_leaf, criterion, tol,
                            &rng, values, order, &best)
            if best.feature >= 0:
                n_left = _partition(X, smp + s, nm, best.feature, best.threshold)
                node_feature[node] = best.feature
                node_threshold[node] = best.threshold
                node_left[node] = n_nodes
                node_right[node] = n_nodes + 1
                node_start[n_nodes] = s
                node_end[n_nodes] = s + n_left
                node_start[n_nodes + 1] = s + n_left
                node_end[n_nodes + 1] = e
                node_depth[n_nodes] = node_depth[node] + 1
                node_depth[n_nodes + 1] = node_depth[node] + 1
                stack_node[top] = n_nodes + 1
                stack_node[top + 1] = n_nodes
                top += 2
                n_nodes += 2
            else:
                # A LeafRank leaf joins C when its gain is not negative (Remark 10).
                lam = coef_pos * p - coef_neg * q
                node_in_c[node] = 1 if lam >= -tol else 0

        # Gather C first: copy the leaves of C, then the others, back into the slice.
        n_in_c = 0
        for node in range(n_nodes):
            if node_left[node] == -1 and node_in_c[node]:
                for i in range(node_start[node], node_end[node]):
                    k = smp[i]
                    order[n_in_c] = k
                    n_in_c += 1
                    if is_pos[k]:
                        pos_c += w[k]
                    else:
                        neg_c += w[k]
        k = n_in_c
        for node in range(n_nodes):
            if node_left[node] == -1 and not node_in_c[node]:
                for i in range(node_start[node], node_end[node]):
                    order[k] = smp[i]
                    k += 1
        for i in range(m):
            smp[i] = order[i]

    free(feat); free(values); free(order); free(stack_node)
    free(node_start); free(node_end); free(node_depth)
    return n_nodes, n_in_c, pos_c, neg_c
