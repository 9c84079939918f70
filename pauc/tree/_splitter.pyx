# cython: language_level=3
"""The growth of TreeRank trees: LeafRank, a cost-sensitive CART grown inside each node.

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

Cost: per CART node and drawn feature, one sweep over the node's m rows, after
a counting pass over the feature's distinct values (O(m + V), used when V is
small for m, e.g. one-hot data) or a sort (O(m log m)); the q − q₁ features not
drawn cost nothing.  The whole tree grows in :func:`grow_tree` without the GIL.
"""

from libc.stdlib cimport malloc, calloc, realloc, free
from libc.string cimport memcpy, memset
from libc.stdint cimport uint64_t
from libc.math cimport log2

import numpy as np
cimport numpy as cnp

cnp.import_array()

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
# LeafRank criteria
# ---------------------------------------------------------------------------

cdef inline double _positive_part(double x) noexcept nogil:
    return x if x > 0.0 else 0.0


cdef inline double _gini(double p, double q) noexcept nogil:
    # Unnormalised Gini impurity of a cell with cost-weighted masses p and q.
    return p * q / (p + q) if p + q > 0.0 else 0.0


cdef inline bint _may_split(Py_ssize_t count, int depth, int max_depth, Py_ssize_t min_split,
                            Py_ssize_t min_leaf) noexcept nogil:
    # The integer part of the stopping rules (the class masses are checked by the caller).
    return depth < max_depth and count >= min_split and count >= 2 * min_leaf


# ---------------------------------------------------------------------------
# Growth of a ranking tree.
#
# Every feature is replaced once (per forest) by the dense ranks of its values,
# ``ranks[f, i]`` in 0..n_values[f]-1.  A LeafRank node sorts its rows by a
# drawn feature with a counting sort on these ranks when the feature has few
# distinct values for the node's size (binary or discretised features: O(m)),
# and with the comparison sort above otherwise (O(m log m)).  Only the q1 drawn
# features are sorted: nothing is kept up to date for the q − q1 others, which
# is what makes feature randomisation cheap (a9a: q = 123, q1 = 11).
#
# Rows carry an integer multiplicity ``counts`` (a bootstrap resample is the
# original rows with their multiplicities): equal rows are never separated by
# a cut, so growing on the distinct rows with these counts gives the tree
# grown on the resample with repetitions; ``min_samples_*`` count
# multiplicities, the class masses use the weights ``w``.
# ---------------------------------------------------------------------------

cdef struct Grower:
    # data (X column-major: X[i, f] = X[i + f * n]; ranks[f * n + i])
    const double* X
    const cnp.int32_t* ranks
    const cnp.int32_t* n_values
    const double* rank_values       # distinct values of feature f at rank_values[rank_offsets[f]:]
    const cnp.int64_t* rank_offsets
    Py_ssize_t n, q, n_entries
    const unsigned char* is_pos
    const double* w
    const cnp.int32_t* counts
    # parameters
    Py_ssize_t q0, q1, min_split, min_leaf
    int max_depth, lr_depth, criterion
    uint64_t rng
    # work buffers
    Py_ssize_t* rows               # the master nodes' rows, node by node
    Py_ssize_t* tmp
    unsigned char* flag            # per row: in C
    double* values
    Py_ssize_t* order
    double* loc_pos                # per row of the LeafRank cell (in cell order):
    double* loc_neg                #   positive / negative weight and multiplicity,
    Py_ssize_t* loc_count          #   read sequentially by every feature's sweep
    double* bucket_pos             # class masses and counts per distinct value
    double* bucket_neg
    Py_ssize_t* bucket_count
    Py_ssize_t* all_features       # FR1 draw (persistent permutation)
    Py_ssize_t* chosen             # features of the master node, ascending
    Py_ssize_t* feat               # FR2 draw (permutation of ``chosen``)
    Py_ssize_t lr_cap
    Py_ssize_t* nd_start
    Py_ssize_t* nd_end
    int* nd_depth
    Py_ssize_t* nd_stack
    # LeafRank tree of the current master node
    Py_ssize_t* o_feature
    double* o_threshold
    Py_ssize_t* o_left
    Py_ssize_t* o_right
    unsigned char* o_in_c


cdef struct Best:
    Py_ssize_t feature
    double threshold
    double value                   # criterion value, larger is better
    double size_in_c               # weight of the children with Λ >= 0 (tie-break, Remark 10)


cdef void _node_sums(Grower* g, const Py_ssize_t* rows, Py_ssize_t m, double* p, double* q,
                     Py_ssize_t* count) noexcept nogil:
    cdef Py_ssize_t i, k
    p[0] = 0.0
    q[0] = 0.0
    count[0] = 0
    for i in range(m):
        k = rows[i]
        if g.is_pos[k]:
            p[0] += g.w[k]
        else:
            q[0] += g.w[k]
        count[0] += g.counts[k]


cdef struct Cut:
    # The node-constant terms of the criterion.
    double coef_pos, coef_neg, pos_total, neg_total, w_total, lam_node, gini_node, base, tol


cdef inline void _consider(Grower* g, const Cut* c, Best* best, Py_ssize_t f,
                           double p_left, double n_left, double lo, double v) noexcept nogil:
    """Score the cut between the adjacent values ``lo < v`` of feature f (left part:
    positive / negative weight ``p_left`` / ``n_left``) and keep it if it is better."""
    cdef double lam_left, lam_right, value, size_c, w_left
    if g.criterion == CRITERION_GAIN:
        lam_left = c.coef_pos * p_left - c.coef_neg * n_left
        lam_right = c.lam_node - lam_left
        value = _positive_part(lam_left) + _positive_part(lam_right)
        w_left = p_left + n_left
        size_c = 0.0
        if lam_left >= -c.tol:
            size_c += w_left
        if lam_right >= -c.tol:
            size_c += c.w_total - w_left
        # Larger value wins; on a tie (within tol) the larger set C wins.
        if best.feature < 0:
            if not value > c.base + c.tol:
                return
        elif not (value > best.value + c.tol
                  or (value >= best.value - c.tol and size_c > best.size_in_c)):
            return
    else:
        value = c.gini_node - _gini(c.coef_pos * p_left, c.coef_neg * n_left) \
            - _gini(c.coef_pos * (c.pos_total - p_left), c.coef_neg * (c.neg_total - n_left))
        if not value > (c.base + c.tol if best.feature < 0 else best.value):
            return
        size_c = 0.0
    best.feature = f
    best.value = value
    best.size_in_c = size_c
    best.threshold = 0.5 * (lo + v)
    # The midpoint can round up to the upper value for adjacent floats, and
    # lo + v can overflow to ±inf for huge values: keep the cut in [lo, v).
    if best.threshold >= v or best.threshold < lo:
        best.threshold = lo


cdef void _sweep_sorted(Grower* g, const Cut* c, Best* best, const Py_ssize_t* rows,
                        Py_ssize_t m, Py_ssize_t node_count, Py_ssize_t f) noexcept nogil:
    """Cuts of feature f by sorting the cell's values: O(m log m)."""
    cdef const double* col = g.X + f * g.n
    cdef double* values = g.values
    cdef Py_ssize_t* order = g.order        # positions in the cell, not row ids
    cdef Py_ssize_t i, r, c_left = 0
    cdef double p_left = 0.0, n_left = 0.0, v, v_prev
    for i in range(m):
        order[i] = i
        values[i] = col[rows[i]]
    _sort(values, order, m)
    if values[0] == values[m - 1]:
        return                  # constant in this cell: no cut
    v_prev = values[0]
    for r in range(1, m):
        i = order[r - 1]
        p_left += g.loc_pos[i]
        n_left += g.loc_neg[i]
        c_left += g.loc_count[i]
        v = values[r]
        if v == v_prev:
            continue            # cut only between distinct values
        if c_left >= g.min_leaf:
            if node_count - c_left < g.min_leaf:
                break
            _consider(g, c, best, f, p_left, n_left, v_prev, v)
        v_prev = v


cdef void _sweep_buckets(Grower* g, const Cut* c, Best* best, const Py_ssize_t* rows,
                         Py_ssize_t m, Py_ssize_t node_count, Py_ssize_t f) noexcept nogil:
    """Cuts of feature f from the class masses of each of its distinct values (the
    dense ranks index them): O(m + n_values), no sort.  Same cuts, in the same
    order, as :func:`_sweep_sorted`."""
    cdef Py_ssize_t n_values = g.n_values[f], i, v, prev = -1, c_left = 0
    cdef const cnp.int32_t* rank = g.ranks + f * g.n
    cdef const double* value_of = g.rank_values + g.rank_offsets[f]
    cdef double p_left = 0.0, n_left = 0.0, p1 = 0.0, n1 = 0.0
    cdef Py_ssize_t c1 = 0
    if n_values == 2:
        # Binary feature (one-hot data such as a9a): the masses of value 1 in
        # registers, value 0 by difference, avoiding the store-to-load chain of
        # the buckets.  One cut.
        for i in range(m):
            if rank[rows[i]]:
                p1 += g.loc_pos[i]
                n1 += g.loc_neg[i]
                c1 += g.loc_count[i]
        c_left = node_count - c1
        if (c1 > 0 and c_left > 0 and c_left >= g.min_leaf
                and node_count - c_left >= g.min_leaf):
            _consider(g, c, best, f, c.pos_total - p1, c.neg_total - n1,
                      value_of[0], value_of[1])
        return
    memset(g.bucket_pos, 0, n_values * sizeof(double))
    memset(g.bucket_neg, 0, n_values * sizeof(double))
    memset(g.bucket_count, 0, n_values * sizeof(Py_ssize_t))
    for i in range(m):
        v = rank[rows[i]]
        g.bucket_pos[v] += g.loc_pos[i]
        g.bucket_neg[v] += g.loc_neg[i]
        g.bucket_count[v] += g.loc_count[i]
    for v in range(n_values):
        if g.bucket_count[v] == 0:
            continue
        if prev >= 0 and c_left >= g.min_leaf:
            if node_count - c_left < g.min_leaf:
                break
            _consider(g, c, best, f, p_left, n_left, value_of[prev], value_of[v])
        p_left += g.bucket_pos[v]
        n_left += g.bucket_neg[v]
        c_left += g.bucket_count[v]
        prev = v


cdef void _best_split(Grower* g, const Py_ssize_t* rows, Py_ssize_t m,
                      Py_ssize_t node_count, double coef_pos, double coef_neg,
                      double pos_total, double neg_total, double tol,
                      Best* best) noexcept nogil:
    """Best cut ``x_f <= t`` of the LeafRank cell ``rows[0:m]`` over ``q1`` features
    drawn among the master node's ``q0``; ``best.feature = -1`` when no cut improves
    on keeping the cell whole.  Features with few distinct values for the cell's
    size are swept by value buckets, the others by sorting."""
    cdef Py_ssize_t d, j, f
    cdef Cut c
    cdef double sort_cost = m * (log2(m) + 1.0) if m > 1 else 1.0
    c.coef_pos = coef_pos
    c.coef_neg = coef_neg
    c.pos_total = pos_total
    c.neg_total = neg_total
    c.w_total = pos_total + neg_total
    c.lam_node = coef_pos * pos_total - coef_neg * neg_total
    c.gini_node = _gini(coef_pos * pos_total, coef_neg * neg_total)
    c.tol = tol
    # The baseline a split must beat: keeping the cell whole.
    c.base = _positive_part(c.lam_node) if g.criterion == CRITERION_GAIN else 0.0
    best.feature = -1
    best.value = c.base
    best.size_in_c = -1.0
    # Adding a zero weight leaves a sum unchanged: the sums are those of the rows.
    for d in range(m):
        f = rows[d]
        g.loc_pos[d] = g.w[f] if g.is_pos[f] else 0.0
        g.loc_neg[d] = 0.0 if g.is_pos[f] else g.w[f]
        g.loc_count[d] = g.counts[f]

    for d in range(g.q1):
        # FR2: partial Fisher-Yates draw without replacement; with every feature
        # allowed the order stays ascending (ties -> lowest feature index).
        if g.q1 < g.q0:
            j = d + _random_below(&g.rng, g.q0 - d)
            f = g.feat[j]
            g.feat[j] = g.feat[d]
            g.feat[d] = f
        f = g.feat[d]
        if 4.0 * g.n_values[f] <= sort_cost:
            _sweep_buckets(g, &c, best, rows, m, node_count, f)
        else:
            _sweep_sorted(g, &c, best, rows, m, node_count, f)


cdef Py_ssize_t _partition_cut(Grower* g, Py_ssize_t* rows, Py_ssize_t m, Py_ssize_t f,
                               double threshold) noexcept nogil:
    """Rows with ``x_f <= threshold`` first (stable); returns their number."""
    cdef const double* col = g.X + f * g.n
    cdef Py_ssize_t i, a = 0, b = 0, k
    for i in range(m):
        k = rows[i]
        if col[k] <= threshold:
            rows[a] = k
            a += 1
        else:
            g.tmp[b] = k
            b += 1
    memcpy(rows + a, g.tmp, b * sizeof(Py_ssize_t))
    return a


cdef Py_ssize_t _leafrank(Grower* g, Py_ssize_t* rows, Py_ssize_t m,
                          double* pos_c, double* neg_c, Py_ssize_t* count_c,
                          Py_ssize_t* entries_c) noexcept nogil:
    """LeafRank on the master node's rows ``rows[0:m]`` with the features
    ``g.chosen[0:q0]`` (FR1).  Writes the LeafRank tree to ``g.o_*``, reorders
    ``rows`` leaf by leaf, sets ``g.flag[row]`` to 1 for the rows of C (0 for the
    others) and returns the number of LeafRank nodes."""
    cdef Py_ssize_t j, i, s, e, node, n_nodes = 1, top, k, c_node, root_count
    cdef double pos_total, neg_total, coef_pos, coef_neg, tol, p, q, lam
    cdef Best best
    cdef Py_ssize_t n_left

    for j in range(g.q0):
        g.feat[j] = g.chosen[j]
    _node_sums(g, rows, m, &pos_total, &neg_total, &root_count)
    # Count-form Λ: a positive is worth W-(node), a negative W+(node).
    coef_pos = neg_total
    coef_neg = pos_total
    tol = REL_TOL * pos_total * neg_total

    g.nd_start[0] = 0
    g.nd_end[0] = m
    g.nd_depth[0] = 0
    g.nd_stack[0] = 0
    top = 1
    while top > 0:
        top -= 1
        node = g.nd_stack[top]
        s = g.nd_start[node]
        e = g.nd_end[node]
        _node_sums(g, rows + s, e - s, &p, &q, &c_node)
        g.o_left[node] = -1
        g.o_right[node] = -1
        g.o_feature[node] = -1
        g.o_threshold[node] = 0.0
        g.o_in_c[node] = 0
        best.feature = -1
        if (_may_split(c_node, g.nd_depth[node], g.lr_depth, g.min_split, g.min_leaf)
                and p > 0.0 and q > 0.0 and n_nodes + 2 <= g.lr_cap):
            _best_split(g, rows + s, e - s, c_node, coef_pos, coef_neg, p, q, tol, &best)
        if best.feature >= 0:
            n_left = _partition_cut(g, rows + s, e - s, best.feature, best.threshold)
            g.o_feature[node] = best.feature
            g.o_threshold[node] = best.threshold
            g.o_left[node] = n_nodes
            g.o_right[node] = n_nodes + 1
            g.nd_start[n_nodes] = s
            g.nd_end[n_nodes] = s + n_left
            g.nd_start[n_nodes + 1] = s + n_left
            g.nd_end[n_nodes + 1] = e
            g.nd_depth[n_nodes] = g.nd_depth[node] + 1
            g.nd_depth[n_nodes + 1] = g.nd_depth[node] + 1
            g.nd_stack[top] = n_nodes + 1
            g.nd_stack[top + 1] = n_nodes
            top += 2
            n_nodes += 2
        else:
            # A LeafRank leaf joins C when its gain is not negative (Remark 10).
            lam = coef_pos * p - coef_neg * q
            g.o_in_c[node] = 1 if lam >= -tol else 0

    # Flag the rows of C and add up its masses.
    pos_c[0] = 0.0
    neg_c[0] = 0.0
    count_c[0] = 0
    entries_c[0] = 0
    for node in range(n_nodes):
        if g.o_left[node] != -1:
            continue
        for i in range(g.nd_start[node], g.nd_end[node]):
            k = rows[i]
            g.flag[k] = g.o_in_c[node]
            if g.o_in_c[node]:
                entries_c[0] += 1
                count_c[0] += g.counts[k]
                if g.is_pos[k]:
                    pos_c[0] += g.w[k]
                else:
                    neg_c[0] += g.w[k]
    return n_nodes


cdef void _partition_in_c(Grower* g, Py_ssize_t* rows, Py_ssize_t m,
                          Py_ssize_t n_in_c) noexcept nogil:
    """Rows of C first, then the others, each part in its current order."""
    cdef Py_ssize_t i, a = 0, b = n_in_c, k
    memcpy(g.tmp, rows, m * sizeof(Py_ssize_t))
    for i in range(m):
        k = g.tmp[i]
        if g.flag[k]:
            rows[a] = k
            a += 1
        else:
            rows[b] = k
            b += 1


cdef int _grower_alloc(Grower* g, Py_ssize_t n_entries, Py_ssize_t max_values) noexcept nogil:
    """Work buffers of a grower for up to ``n_entries`` rows; 0 on success."""
    cdef Py_ssize_t lr_cap = 2 * n_entries - 1 if n_entries > 0 else 1
    if g.lr_depth < 30 and (1 << (g.lr_depth + 1)) - 1 < lr_cap:
        lr_cap = (1 << (g.lr_depth + 1)) - 1
    n_entries = max(n_entries, 1)
    g.lr_cap = lr_cap
    g.rows = <Py_ssize_t*>malloc(n_entries * sizeof(Py_ssize_t))
    g.tmp = <Py_ssize_t*>malloc(n_entries * sizeof(Py_ssize_t))
    g.flag = <unsigned char*>calloc(max(g.n, 1), sizeof(unsigned char))
    g.values = <double*>malloc(n_entries * sizeof(double))
    g.order = <Py_ssize_t*>malloc(n_entries * sizeof(Py_ssize_t))
    g.loc_pos = <double*>malloc(n_entries * sizeof(double))
    g.loc_neg = <double*>malloc(n_entries * sizeof(double))
    g.loc_count = <Py_ssize_t*>malloc(n_entries * sizeof(Py_ssize_t))
    g.bucket_pos = <double*>malloc(max_values * sizeof(double))
    g.bucket_neg = <double*>malloc(max_values * sizeof(double))
    g.bucket_count = <Py_ssize_t*>malloc(max_values * sizeof(Py_ssize_t))
    g.all_features = <Py_ssize_t*>malloc(g.q * sizeof(Py_ssize_t))
    g.chosen = <Py_ssize_t*>malloc(g.q * sizeof(Py_ssize_t))
    g.feat = <Py_ssize_t*>malloc(g.q * sizeof(Py_ssize_t))
    g.nd_start = <Py_ssize_t*>malloc(lr_cap * sizeof(Py_ssize_t))
    g.nd_end = <Py_ssize_t*>malloc(lr_cap * sizeof(Py_ssize_t))
    g.nd_depth = <int*>malloc(lr_cap * sizeof(int))
    g.nd_stack = <Py_ssize_t*>malloc(lr_cap * sizeof(Py_ssize_t))
    g.o_feature = <Py_ssize_t*>malloc(lr_cap * sizeof(Py_ssize_t))
    g.o_threshold = <double*>malloc(lr_cap * sizeof(double))
    g.o_left = <Py_ssize_t*>malloc(lr_cap * sizeof(Py_ssize_t))
    g.o_right = <Py_ssize_t*>malloc(lr_cap * sizeof(Py_ssize_t))
    g.o_in_c = <unsigned char*>malloc(lr_cap * sizeof(unsigned char))
    if (g.rows == NULL or g.tmp == NULL or g.flag == NULL or g.values == NULL
            or g.order == NULL or g.loc_pos == NULL or g.loc_neg == NULL
            or g.loc_count == NULL or g.bucket_pos == NULL or g.bucket_neg == NULL
            or g.bucket_count == NULL
            or g.all_features == NULL or g.chosen == NULL or g.feat == NULL
            or g.nd_start == NULL or g.nd_end == NULL or g.nd_depth == NULL
            or g.nd_stack == NULL or g.o_feature == NULL or g.o_threshold == NULL
            or g.o_left == NULL or g.o_right == NULL or g.o_in_c == NULL):
        return -1
    return 0


cdef void _grower_free(Grower* g) noexcept nogil:
    free(g.rows); free(g.tmp); free(g.flag); free(g.values); free(g.order)
    free(g.loc_pos); free(g.loc_neg); free(g.loc_count)
    free(g.bucket_pos); free(g.bucket_neg); free(g.bucket_count); free(g.all_features)
    free(g.chosen); free(g.feat)
    free(g.nd_start); free(g.nd_end); free(g.nd_depth); free(g.nd_stack)
    free(g.o_feature); free(g.o_threshold); free(g.o_left); free(g.o_right)
    free(g.o_in_c)


cdef void _grower_init(Grower* g) noexcept nogil:
    g.rows = NULL; g.tmp = NULL; g.flag = NULL; g.values = NULL; g.order = NULL
    g.loc_pos = NULL; g.loc_neg = NULL; g.loc_count = NULL
    g.bucket_pos = NULL; g.bucket_neg = NULL; g.bucket_count = NULL
    g.all_features = NULL; g.chosen = NULL
    g.feat = NULL; g.nd_start = NULL; g.nd_end = NULL; g.nd_depth = NULL
    g.nd_stack = NULL; g.o_feature = NULL; g.o_threshold = NULL; g.o_left = NULL
    g.o_right = NULL; g.o_in_c = NULL


cdef void _grower_bind(Grower* g, const double[::1, :] X, const cnp.int32_t[:, ::1] ranks,
                       const cnp.int32_t[::1] n_values, const double[::1] rank_values,
                       const cnp.int64_t[::1] rank_offsets, const unsigned char[::1] is_pos,
                       const double[::1] w, const cnp.int32_t[::1] counts,
                       Py_ssize_t n_entries, Py_ssize_t q0, Py_ssize_t q1,
                       Py_ssize_t min_split, Py_ssize_t min_leaf, int max_depth, int lr_depth,
                       int criterion, uint64_t seed):
    """Point a fresh Grower at the data and the growth parameters (no allocation:
    see :func:`_grower_alloc`).  The arrays must outlive the growth."""
    _grower_init(g)
    g.X = &X[0, 0]
    g.ranks = &ranks[0, 0]
    g.n_values = &n_values[0]
    g.rank_values = &rank_values[0]
    g.rank_offsets = &rank_offsets[0]
    g.n = X.shape[0]
    g.q = X.shape[1]
    g.n_entries = n_entries
    g.is_pos = &is_pos[0]
    g.w = &w[0]
    g.counts = &counts[0]
    g.q0 = q0
    g.q1 = q1
    g.min_split = min_split
    g.min_leaf = min_leaf
    g.max_depth = max_depth
    g.lr_depth = lr_depth
    g.criterion = criterion
    g.rng = seed


def rank_features(const double[::1, :] X, order=None):
    """Dense ranks of every feature's values (0 = smallest; equal values share a rank).

    ``order``: optionally, ``np.argsort(X, axis=0)`` computed by the caller (the
    forest sorts blocks of columns in threads).

    Returns
    -------
    ranks : int32 array (n_features, n_samples)
    n_values : int32 array (n_features,), distinct values of each feature
    rank_values : float64 array, the distinct values of feature f, ascending, at
        ``rank_values[rank_offsets[f]:rank_offsets[f + 1]]``
    rank_offsets : int64 array (n_features + 1,)
    """
    cdef Py_ssize_t n = X.shape[0], q = X.shape[1], f, i, total = 0
    order_arr = np.argsort(np.asarray(X), axis=0) if order is None else order
    if order_arr.shape[0] != n or order_arr.shape[1] != q:
        raise ValueError("order must have the shape of X")
    cdef const cnp.intp_t[:, :] order_view = order_arr
    ranks_arr = np.empty((q, n), dtype=np.int32)
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
                if not 0 <= k < n or X[k, f] < X[k_prev, f]:
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


def leafrank_split(const double[::1, :] X, const unsigned char[::1] is_pos,
                   const double[::1] w, Py_ssize_t[::1] samples,
                   Py_ssize_t start, Py_ssize_t end,
                   const Py_ssize_t[::1] features, Py_ssize_t max_features,
                   int max_depth, Py_ssize_t min_samples_split,
                   Py_ssize_t min_samples_leaf, int criterion, uint64_t seed,
                   Py_ssize_t[::1] node_feature, double[::1] node_threshold,
                   Py_ssize_t[::1] node_left, Py_ssize_t[::1] node_right,
                   unsigned char[::1] node_in_c):
    """Split one master node ``samples[start:end]`` by LeafRank (spec §2.3).

    The split used by :func:`grow_tree`, exposed on its own for tests.

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
    cdef Py_ssize_t n = X.shape[0], q = X.shape[1]
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
    if is_pos.shape[0] != n or w.shape[0] != n:
        raise ValueError("X, is_pos and w differ in length")
    cdef Py_ssize_t j, i
    for j in range(n_candidates):
        if not 0 <= features[j] < q:
            raise ValueError("feature index out of range")
    for i in range(start, end):
        if not 0 <= samples[i] < n:
            raise ValueError("sample index out of range")

    ranks_arr, n_values_arr, values_arr, offsets_arr = rank_features(X)
    cdef const cnp.int32_t[:, ::1] ranks = ranks_arr
    cdef const cnp.int32_t[::1] n_values = n_values_arr
    cdef const double[::1] rank_values = values_arr
    cdef const cnp.int64_t[::1] rank_offsets = offsets_arr
    ones_arr = np.ones(n, dtype=np.int32)
    cdef const cnp.int32_t[::1] ones = ones_arr
    cdef Grower g
    # No master tree here: max_depth 0 (only the LeafRank depth is used).
    _grower_bind(&g, X, ranks, n_values, rank_values, rank_offsets, is_pos, w, ones, m,
                 n_candidates, max_features, min_samples_split, min_samples_leaf, 0, max_depth,
                 criterion, seed)
    cdef int failed
    cdef Py_ssize_t n_nodes = 0, n_in_c = 0, count_c = 0
    cdef double pos_c = 0.0, neg_c = 0.0
    # ``chosen`` holds q entries; the candidates may repeat or exceed q in number.
    g.q = max(q, n_candidates)
    with nogil:
        failed = _grower_alloc(&g, m, n)
        if not failed:
            for j in range(n_candidates):
                g.chosen[j] = features[j]
            for i in range(m):
                g.rows[i] = samples[start + i]
            n_nodes = _leafrank(&g, g.rows, m, &pos_c, &neg_c, &count_c, &n_in_c)
            if n_nodes > capacity:
                failed = 2
            else:
                for i in range(n_nodes):
                    node_feature[i] = g.o_feature[i]
                    node_threshold[i] = g.o_threshold[i]
                    node_left[i] = g.o_left[i]
                    node_right[i] = g.o_right[i]
                    node_in_c[i] = g.o_in_c[i]
                _partition_in_c(&g, g.rows, m, n_in_c)
                for i in range(m):
                    samples[start + i] = g.rows[i]
        _grower_free(&g)
    if failed == 2:
        raise ValueError("LeafRank node buffers are too short")
    if failed:
        raise MemoryError()
    return n_nodes, n_in_c, pos_c, neg_c


cdef struct Vec:
    Py_ssize_t size, capacity
    Py_ssize_t* feature
    double* threshold
    Py_ssize_t* left
    Py_ssize_t* right
    unsigned char* in_c


cdef int _vec_reserve(Vec* v, Py_ssize_t need) noexcept nogil:
    cdef Py_ssize_t cap = v.capacity
    if need <= cap:
        return 0
    cap = max(need, 2 * cap, 64)
    cdef void* a = realloc(v.feature, cap * sizeof(Py_ssize_t))
    if a == NULL:
        return -1
    v.feature = <Py_ssize_t*>a
    a = realloc(v.threshold, cap * sizeof(double))
    if a == NULL:
        return -1
    v.threshold = <double*>a
    a = realloc(v.left, cap * sizeof(Py_ssize_t))
    if a == NULL:
        return -1
    v.left = <Py_ssize_t*>a
    a = realloc(v.right, cap * sizeof(Py_ssize_t))
    if a == NULL:
        return -1
    v.right = <Py_ssize_t*>a
    a = realloc(v.in_c, cap * sizeof(unsigned char))
    if a == NULL:
        return -1
    v.in_c = <unsigned char*>a
    v.capacity = cap
    return 0


cdef int _grow(Grower* g, Py_ssize_t node_cap, Py_ssize_t* children_left,
               Py_ssize_t* children_right, Py_ssize_t* depth_out, double* pos_weight,
               double* neg_weight, Py_ssize_t* n_samples, double* gain,
               Py_ssize_t* split_root, Py_ssize_t* n_master, Vec* lr_out,
               Py_ssize_t* row_node) noexcept nogil:
    """TREERANK growing stage (paper 000 Sec. IV-A): master nodes are split by
    LeafRank depth first, left child first; ``row_node[i]`` receives the leaf
    holding row i.  Returns 0, or -1 (out of memory)."""
    cdef Py_ssize_t* st_node = <Py_ssize_t*>malloc(node_cap * sizeof(Py_ssize_t))
    cdef Py_ssize_t* st_start = <Py_ssize_t*>malloc(node_cap * sizeof(Py_ssize_t))
    cdef Py_ssize_t* st_end = <Py_ssize_t*>malloc(node_cap * sizeof(Py_ssize_t))
    cdef int* st_depth = <int*>malloc(node_cap * sizeof(int))
    if st_node == NULL or st_start == NULL or st_end == NULL or st_depth == NULL:
        free(st_node); free(st_start); free(st_end); free(st_depth)
        return -1
    cdef Py_ssize_t top = 1, node, start, end, count, count_c, entries_c, n_lr, i, j, r, f
    cdef Py_ssize_t n_nodes = 1, left_id, offset
    cdef int depth, status = 0
    cdef double p, q, p_c, q_c, pos_total = 0.0, neg_total = 0.0

    _node_sums(g, g.rows, g.n_entries, &pos_total, &neg_total, &count)
    for f in range(g.q):
        g.all_features[f] = f
    st_node[0] = 0
    st_start[0] = 0
    st_end[0] = g.n_entries
    st_depth[0] = 0
    while top > 0:
        top -= 1
        node = st_node[top]
        start = st_start[top]
        end = st_end[top]
        depth = st_depth[top]
        _node_sums(g, g.rows + start, end - start, &p, &q, &count)
        children_left[node] = -1
        children_right[node] = -1
        depth_out[node] = depth
        pos_weight[node] = p
        neg_weight[node] = q
        n_samples[node] = count
        gain[node] = 0.0
        split_root[node] = -1
        # Stopping rules: depth D, too few samples, pure node (Λ ≡ 0).
        if not (_may_split(count, depth, g.max_depth, g.min_split, g.min_leaf)
                and p > 0.0 and q > 0.0):
            for i in range(start, end):
                row_node[g.rows[i]] = node
            continue
        # FR1: q0 features drawn without replacement for this master node, kept ascending.
        if g.q0 < g.q:
            for j in range(g.q0):
                r = j + _random_below(&g.rng, g.q - j)
                f = g.all_features[r]
                g.all_features[r] = g.all_features[j]
                g.all_features[j] = f
                i = j
                while i > 0 and g.chosen[i - 1] > f:
                    g.chosen[i] = g.chosen[i - 1]
                    i -= 1
                g.chosen[i] = f
        else:
            for j in range(g.q):
                g.chosen[j] = j
        n_lr = _leafrank(g, g.rows + start, end - start, &p_c, &q_c, &count_c, &entries_c)
        if not 0 < count_c < count:
            for i in range(start, end):
                row_node[g.rows[i]] = node
            continue
        left_id = n_nodes
        n_nodes += 2
        children_left[node] = left_id
        children_right[node] = left_id + 1
        # Count form of Λ(C); the AUC gain is the triangle ½·Λ.
        gain[node] = 0.5 * (q * p_c - p * q_c) / (pos_total * neg_total)
        offset = lr_out.size
        split_root[node] = offset
        if _vec_reserve(lr_out, offset + n_lr) != 0:
            status = -1
            break
        for i in range(n_lr):
            lr_out.feature[offset + i] = g.o_feature[i]
            lr_out.threshold[offset + i] = g.o_threshold[i]
            lr_out.left[offset + i] = g.o_left[i] + offset if g.o_left[i] != -1 else -1
            lr_out.right[offset + i] = g.o_right[i] + offset if g.o_right[i] != -1 else -1
            lr_out.in_c[offset + i] = g.o_in_c[i]
        lr_out.size = offset + n_lr
        _partition_in_c(g, g.rows + start, end - start, entries_c)
        st_node[top] = left_id + 1
        st_start[top] = start + entries_c
        st_end[top] = end
        st_depth[top] = depth + 1
        st_node[top + 1] = left_id
        st_start[top + 1] = start
        st_end[top + 1] = start + entries_c
        st_depth[top + 1] = depth + 1
        top += 2
    n_master[0] = n_nodes
    free(st_node); free(st_start); free(st_end); free(st_depth)
    return status


def grow_tree(const double[::1, :] X, const unsigned char[::1] is_pos, const double[::1] w,
              const cnp.int32_t[::1] counts, const cnp.int32_t[:, ::1] ranks,
              const cnp.int32_t[::1] n_values, const double[::1] rank_values,
              const cnp.int64_t[::1] rank_offsets, Py_ssize_t max_features,
              Py_ssize_t leafrank_max_features, int max_depth, int leafrank_max_depth,
              Py_ssize_t min_samples_split, Py_ssize_t min_samples_leaf, int criterion,
              uint64_t seed):
    """Grow a ranking tree by TREERANK with LeafRank splits (paper 000 Sec. IV-A,
    paper 003 §2.3 and §3.1), without the GIL.

    Parameters
    ----------
    X : Fortran-ordered float64 array (n_samples, n_features)
    is_pos : uint8 array, 1 for positives
    w : float64 class-mass weight of each row (its multiplicity times its weight)
    counts : int32 multiplicity of each row (0 = not in the sample); the
        ``min_samples_*`` rules count multiplicities
    ranks, n_values, rank_values, rank_offsets : :func:`rank_features` of X
        (shared read-only by the trees)
    max_features : q0, features drawn at each master node (FR1)
    leafrank_max_features : q1 <= q0, drawn at each LeafRank node among them (FR2)
    max_depth, leafrank_max_depth : depths D and d′
    min_samples_split, min_samples_leaf : stopping rules (master and LeafRank)
    criterion : ``GAIN`` or ``GINI``
    seed : state of the random stream of FR1 and FR2

    Returns
    -------
    dict of the node arrays of :class:`~pauc.tree._treerank.RankingTreeStructure`,
    and ``"row_node"``: the leaf (node id) holding each row, -1 for rows whose
    count is 0
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
            if not 0 <= ranks[f, i] < n_values[f]:
                raise ValueError("ranks out of range")
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
    arrays = dict(
        children_left=np.empty(node_cap, dtype=np.intp),
        children_right=np.empty(node_cap, dtype=np.intp),
        depth=np.empty(node_cap, dtype=np.intp),
        pos_weight=np.empty(node_cap, dtype=np.float64),
        neg_weight=np.empty(node_cap, dtype=np.float64),
        n_samples=np.empty(node_cap, dtype=np.intp),
        gain=np.empty(node_cap, dtype=np.float64),
        split_root=np.empty(node_cap, dtype=np.intp))
    cdef Py_ssize_t[::1] children_left = arrays["children_left"]
    cdef Py_ssize_t[::1] children_right = arrays["children_right"]
    cdef Py_ssize_t[::1] depth = arrays["depth"]
    cdef double[::1] pos_weight = arrays["pos_weight"]
    cdef double[::1] neg_weight = arrays["neg_weight"]
    cdef Py_ssize_t[::1] n_samples = arrays["n_samples"]
    cdef double[::1] gain = arrays["gain"]
    cdef Py_ssize_t[::1] split_root = arrays["split_root"]
    row_node_arr = np.full(n, -1, dtype=np.intp)
    cdef Py_ssize_t[::1] row_node = row_node_arr

    cdef Grower g
    _grower_bind(&g, X, ranks, n_values, rank_values, rank_offsets, is_pos, w, counts,
                 n_entries, max_features, leafrank_max_features, min_samples_split,
                 min_samples_leaf, max_depth, leafrank_max_depth, criterion, seed)
    cdef Vec lr_out
    lr_out.size = 0
    lr_out.capacity = 0
    lr_out.feature = NULL
    lr_out.threshold = NULL
    lr_out.left = NULL
    lr_out.right = NULL
    lr_out.in_c = NULL
    cdef int status
    cdef Py_ssize_t n_master = 0, t
    with nogil:
        status = _grower_alloc(&g, n_entries, max_values)
        if status == 0:
            t = 0
            for i in range(n):
                if counts[i] > 0:
                    g.rows[t] = i
                    t += 1
            status = _grow(&g, node_cap, &children_left[0], &children_right[0], &depth[0],
                           &pos_weight[0], &neg_weight[0], &n_samples[0], &gain[0],
                           &split_root[0], &n_master, &lr_out, &row_node[0])
        _grower_free(&g)
    try:
        if status != 0:
            raise MemoryError()
        for name in list(arrays):
            arrays[name] = arrays[name][:n_master].copy()
        size = lr_out.size
        lr = dict(leafrank_feature=np.empty(size, dtype=np.intp),
                  leafrank_threshold=np.empty(size, dtype=np.float64),
                  leafrank_left=np.empty(size, dtype=np.intp),
                  leafrank_right=np.empty(size, dtype=np.intp),
                  leafrank_in_left=np.empty(size, dtype=np.uint8))
        _copy_vec(&lr_out, lr["leafrank_feature"], lr["leafrank_threshold"],
                  lr["leafrank_left"], lr["leafrank_right"], lr["leafrank_in_left"])
        arrays.update(lr)
        arrays["row_node"] = row_node_arr
    finally:
        free(lr_out.feature); free(lr_out.threshold); free(lr_out.left)
        free(lr_out.right); free(lr_out.in_c)
    return arrays


cdef void _copy_vec(Vec* v, Py_ssize_t[::1] feature, double[::1] threshold,
                    Py_ssize_t[::1] left, Py_ssize_t[::1] right,
                    unsigned char[::1] in_c):
    cdef Py_ssize_t i
    for i in range(v.size):
        feature[i] = v.feature[i]
        threshold[i] = v.threshold[i]
        left[i] = v.left[i]
        right[i] = v.right[i]
        in_c[i] = v.in_c[i]
