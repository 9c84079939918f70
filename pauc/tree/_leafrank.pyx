# cython: language_level=3
"""LeafRank: the cost-sensitive split of one node of a ranking tree.

Inside a master node holding (weighted) ``W+`` positives and ``W-`` negatives,
TreeRank's optimisation step (Clémençon & Vayatis 2009, Sec. IV-A, step 2a)
maximises the *entropic measure*

    Λ(C) = a·β̂(C) − b·α̂(C),   a = α̂(node), b = β̂(node),

which, multiplied by ``n+ n-``, is the **count form**

    n+ n- Λ(C) = W-·P(C) − W+·N(C)         (P, N: positive / negative weight in C).

So every positive of the node is worth ``W-`` and every negative ``−W+``: the
cost-sensitive classification problem with positives weighted by 1 − p̂_node and
negatives by p̂_node (Clémençon, Depecker & Vayatis 2013, §2.3.1).  With unit
sample weights all these numbers are integers held exactly in doubles, so ties
are decided exactly (Remark 10 of the first reference).

Λ is additive over disjoint sets and Λ(node) = 0, hence Λ(node ∖ C) = −Λ(C): one
sweep over a sorted feature scores both orientations of every threshold.

LeafRank (``max_depth`` = d′) grows a small CART inside the node with
axis-parallel cuts ``x_j <= t`` and returns ``C`` = the union of its leaves with
Λ(ℓ) >= 0 (leaves of zero gain are included: among tied maximisers the larger
set, Remark 10).  Because Λ is additive this is the exact argmax of Λ over unions
of the CART's leaves (the "shake and merge" of the leaves of a subtree grown at
the node, Sec. VI of the first reference).  With d′ = 1 it is the orthogonal
stump of Remark 12: the best threshold over all features and both orientations.
CART nodes are split by one of two criteria:

* ``gain`` (``CRITERION_GAIN``): the split maximising
  max(Λ(L), 0) + max(Λ(R), 0), the objective itself (greedy); at the LeafRank
  root this is |Λ(L)|, the stump of Remark 12;
* ``gini`` (``CRITERION_GINI``): the decrease of the Gini impurity
  ``P·N / (P + N)`` computed with the cost-sensitive weights, CART's usual
  surrogate (the "cost-sensitive CART" of the second reference, §2.3.1), which
  keeps growing where Λ alone sees no progress (XOR-like cells).

FR2 (second reference, §3.1): at every CART node ``max_features`` features are
drawn without replacement among the ``features`` handed over by the master
node (FR1).

Cost: per CART node and drawn feature, one sweep over the node's m rows, after
a counting pass over the feature's distinct values (O(m + V), used when V is
small for m, e.g. one-hot data) or a sort (O(m log m)); the q − q₁ features not
drawn cost nothing.  Only the q₁ drawn features are sorted: nothing is kept up
to date for the others, which is what makes feature randomisation cheap.

Rows carry an integer multiplicity ``counts`` (a bootstrap resample is the
original rows with their multiplicities): equal rows are never separated by a
cut, so growing on the distinct rows with these counts gives the tree grown on
the resample with repetitions; ``min_samples_*`` count multiplicities, the class
masses use the weights ``w``.

The full references are in the docstrings of :class:`pauc.tree.TreeRank`.
"""

from libc.string cimport memcpy, memset
from libc.stdlib cimport free
from libc.stdint cimport uint64_t
from libc.math cimport log2

cimport numpy as cnp
import numpy as np

from .._random cimport rand_below
from .._sort cimport sort
from ._utils cimport resize

cnp.import_array()

# Python-visible copies of the criterion codes.
GAIN = CRITERION_GAIN
GINI = CRITERION_GINI

# A relative tolerance on every comparison of the criterion (Λ and the Gini
# decrease, both of the order of W+ · W- in count form) and of the set sizes of
# the tie-break (of the order of W+ + W-).  With unit weights Λ is an integer, so a
# tolerance of 1e-13 · W+ · W- (< 1 for up to ~3 million samples per class) never
# merges two different integers; what it absorbs is the rounding of non-integer
# weights, e.g. of weights multiplied by 0.1, so that a global rescaling of the
# weights (exact for powers of 2, see TreeRank.fit) does not change a decision.
cdef double REL_TOL = 1e-13


cdef inline double _positive_part(double x) noexcept nogil:
    return x if x > 0.0 else 0.0


cdef inline double _gini(double p, double q) noexcept nogil:
    # Unnormalised Gini impurity of a cell with cost-weighted masses p and q.
    return p * q / (p + q) if p + q > 0.0 else 0.0


cdef Mass node_mass(const Sample* s, const Py_ssize_t* rows, Py_ssize_t m) noexcept nogil:
    cdef Mass out
    cdef Py_ssize_t i, k
    out.pos = 0.0
    out.neg = 0.0
    out.count = 0
    for i in range(m):
        k = rows[i]
        if s.is_pos[k]:
            out.pos += s.w[k]
        else:
            out.neg += s.w[k]
        out.count += s.counts[k]
    return out


cdef struct NodeTerms:
    # The constant terms of the criterion in one LeafRank cell.
    double coef_pos, coef_neg, pos_total, neg_total, w_total, lam_node, gini_node, base
    double tol, size_tol           # on the criterion and on the size of C


cdef struct Best:
    Py_ssize_t feature
    double threshold
    double value                   # criterion value, larger is better
    double size_in_c               # weight of the children with Λ >= 0 (tie-break, Remark 10)


cdef inline void _consider(LeafRank* lr, const NodeTerms* c, Best* best, Py_ssize_t f,
                           double p_left, double n_left, double lo, double v) noexcept nogil:
    """Score the cut between the adjacent values ``lo < v`` of feature f (left part:
    positive / negative weight ``p_left`` / ``n_left``) and keep it if it is better."""
    cdef double lam_left, lam_right, value, size_c, w_left
    if lr.criterion == CRITERION_GAIN:
        lam_left = c.coef_pos * p_left - c.coef_neg * n_left
        lam_right = c.lam_node - lam_left
        value = _positive_part(lam_left) + _positive_part(lam_right)
        w_left = p_left + n_left
        size_c = 0.0
        if lam_left >= -c.tol:
            size_c += w_left
        if lam_right >= -c.tol:
            size_c += c.w_total - w_left
        # Larger value wins; on a tie (within tol) the larger set C wins, and on a
        # tie of both the first cut met (lowest feature, lowest threshold).
        if best.feature < 0:
            if not value > c.base + c.tol:
                return
        elif not (value > best.value + c.tol
                  or (value >= best.value - c.tol
                      and size_c > best.size_in_c + c.size_tol)):
            return
    else:
        value = c.gini_node - _gini(c.coef_pos * p_left, c.coef_neg * n_left) \
            - _gini(c.coef_pos * (c.pos_total - p_left), c.coef_neg * (c.neg_total - n_left))
        # A cut must beat the best by more than the rounding: ties go to the first.
        if not value > (c.base if best.feature < 0 else best.value) + c.tol:
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


cdef void _sweep_sorted(LeafRank* lr, const NodeTerms* c, Best* best, const Py_ssize_t* rows,
                        Py_ssize_t m, Py_ssize_t node_count, Py_ssize_t f) noexcept nogil:
    """Cuts of feature f by sorting the cell's values: O(m log m)."""
    cdef const Sample* s = lr.sample
    cdef const double* col = s.X + f * s.n
    cdef double* values = lr.values
    cdef Py_ssize_t* order = lr.order        # positions in the cell, not row ids
    cdef Py_ssize_t i, r, c_left = 0
    cdef double p_left = 0.0, n_left = 0.0, v, v_prev
    for i in range(m):
        order[i] = i
        values[i] = col[rows[i]]
    sort(values, order, m)
    if values[0] == values[m - 1]:
        return                  # constant in this cell: no cut
    v_prev = values[0]
    for r in range(1, m):
        i = order[r - 1]
        p_left += lr.loc[i].pos
        n_left += lr.loc[i].neg
        c_left += lr.loc[i].count
        v = values[r]
        if v == v_prev:
            continue            # cut only between distinct values
        if c_left >= lr.min_leaf:
            if node_count - c_left < lr.min_leaf:
                break
            _consider(lr, c, best, f, p_left, n_left, v_prev, v)
        v_prev = v


cdef void _sweep_buckets(LeafRank* lr, const NodeTerms* c, Best* best, const Py_ssize_t* rows,
                         Py_ssize_t m, Py_ssize_t node_count, Py_ssize_t f) noexcept nogil:
    """Cuts of feature f from the class masses of each of its distinct values (the
    dense ranks index them): O(m + n_values), no sort.  Same cuts, in the same
    order, as :func:`_sweep_sorted`."""
    cdef const Sample* s = lr.sample
    cdef Py_ssize_t n_values = s.n_values[f], i, v, prev = -1, c_left = 0
    cdef const cnp.int32_t* rank = s.ranks + f * s.n
    cdef const double* value_of = s.rank_values + s.rank_offsets[f]
    cdef double p_left = 0.0, n_left = 0.0, p1 = 0.0, n1 = 0.0
    cdef Py_ssize_t c1 = 0
    cdef Mass* bucket = lr.bucket
    if n_values == 2:
        # Binary feature (one-hot data such as a9a): the masses of value 1 in
        # registers, value 0 by difference, avoiding the store-to-load chain of
        # the buckets.  One cut.
        for i in range(m):
            if rank[rows[i]]:
                p1 += lr.loc[i].pos
                n1 += lr.loc[i].neg
                c1 += lr.loc[i].count
        c_left = node_count - c1
        if (c1 > 0 and c_left > 0 and c_left >= lr.min_leaf
                and node_count - c_left >= lr.min_leaf):
            _consider(lr, c, best, f, c.pos_total - p1, c.neg_total - n1,
                      value_of[0], value_of[1])
        return
    memset(bucket, 0, n_values * sizeof(Mass))
    for i in range(m):
        v = rank[rows[i]]
        bucket[v].pos += lr.loc[i].pos
        bucket[v].neg += lr.loc[i].neg
        bucket[v].count += lr.loc[i].count
    for v in range(n_values):
        if bucket[v].count == 0:
            continue
        if prev >= 0 and c_left >= lr.min_leaf:
            if node_count - c_left < lr.min_leaf:
                break
            _consider(lr, c, best, f, p_left, n_left, value_of[prev], value_of[v])
        p_left += bucket[v].pos
        n_left += bucket[v].neg
        c_left += bucket[v].count
        prev = v


cdef void _best_split(LeafRank* lr, const Py_ssize_t* rows, Py_ssize_t m,
                      Py_ssize_t node_count, double coef_pos, double coef_neg,
                      double pos_total, double neg_total, double tol,
                      Best* best) noexcept nogil:
    """Best cut ``x_f <= t`` of the LeafRank cell ``rows[0:m]`` over ``q1`` features
    drawn among the master node's ``q0``; ``best.feature = -1`` when no cut improves
    on keeping the cell whole.  Features with few distinct values for the cell's
    size are swept by value buckets, the others by sorting."""
    cdef const Sample* s = lr.sample
    cdef Py_ssize_t d, j, f
    cdef NodeTerms c
    cdef double sort_cost = m * (log2(m) + 1.0) if m > 1 else 1.0
    c.coef_pos = coef_pos
    c.coef_neg = coef_neg
    c.pos_total = pos_total
    c.neg_total = neg_total
    c.w_total = pos_total + neg_total
    c.lam_node = coef_pos * pos_total - coef_neg * neg_total
    c.gini_node = _gini(coef_pos * pos_total, coef_neg * neg_total)
    c.tol = tol
    c.size_tol = REL_TOL * c.w_total
    # The baseline a split must beat: keeping the cell whole.
    c.base = _positive_part(c.lam_node) if lr.criterion == CRITERION_GAIN else 0.0
    best.feature = -1
    best.value = c.base
    best.size_in_c = -1.0
    # Adding a zero weight leaves a sum unchanged: the sums are those of the rows.
    for d in range(m):
        f = rows[d]
        lr.loc[d].pos = s.w[f] if s.is_pos[f] else 0.0
        lr.loc[d].neg = 0.0 if s.is_pos[f] else s.w[f]
        lr.loc[d].count = s.counts[f]

    for d in range(lr.q1):
        # FR2: partial Fisher-Yates draw without replacement; with every feature
        # allowed the order stays ascending (ties -> lowest feature index).
        if lr.q1 < lr.q0:
            j = d + rand_below(lr.rng, lr.q0 - d)
            f = lr.feat[j]
            lr.feat[j] = lr.feat[d]
            lr.feat[d] = f
        f = lr.feat[d]
        if 4.0 * s.n_values[f] <= sort_cost:
            _sweep_buckets(lr, &c, best, rows, m, node_count, f)
        else:
            _sweep_sorted(lr, &c, best, rows, m, node_count, f)


cdef Py_ssize_t _partition_cut(LeafRank* lr, Py_ssize_t* rows, Py_ssize_t m, Py_ssize_t f,
                               double threshold) noexcept nogil:
    """Rows with ``x_f <= threshold`` first (stable); returns their number."""
    cdef const double* col = lr.sample.X + f * lr.sample.n
    cdef Py_ssize_t i, a = 0, b = 0, k
    for i in range(m):
        k = rows[i]
        if col[k] <= threshold:
            rows[a] = k
            a += 1
        else:
            lr.tmp[b] = k
            b += 1
    memcpy(rows + a, lr.tmp, b * sizeof(Py_ssize_t))
    return a


cdef void _partition_in_c(LeafRank* lr, Py_ssize_t* rows, Py_ssize_t m,
                          Py_ssize_t n_in_c) noexcept nogil:
    """Rows of C first, then the others, each part in its current order."""
    cdef Py_ssize_t i, a = 0, b = n_in_c, k
    memcpy(lr.tmp, rows, m * sizeof(Py_ssize_t))
    for i in range(m):
        k = lr.tmp[i]
        if lr.flag[k]:
            rows[a] = k
            a += 1
        else:
            rows[b] = k
            b += 1


cdef Py_ssize_t find_split(LeafRank* lr, Py_ssize_t* rows, Py_ssize_t m,
                           const Py_ssize_t* features, Mass* in_c,
                           Py_ssize_t* entries_c) noexcept nogil:
    """LeafRank on the master node's rows ``rows[0:m]`` with the features
    ``features[0:q0]`` (FR1).  Writes the LeafRank tree to ``lr.nodes``, reorders
    ``rows`` so that the rows of C come first (``entries_c`` of them, of masses
    ``in_c``) and returns the number of LeafRank nodes."""
    cdef const Sample* s = lr.sample
    cdef Py_ssize_t j, i, node, n_nodes = 1, top, k, n_left
    cdef double coef_pos, coef_neg, tol, lam
    cdef Mass root, cell
    cdef Best best
    cdef SplitNode* out

    for j in range(lr.q0):
        lr.feat[j] = features[j]
    root = node_mass(s, rows, m)
    # Count-form Λ: a positive is worth W-(node), a negative W+(node).
    coef_pos = root.neg
    coef_neg = root.pos
    tol = REL_TOL * root.pos * root.neg

    lr.cells[0].start = 0
    lr.cells[0].end = m
    lr.cells[0].depth = 0
    lr.stack[0] = 0
    top = 1
    while top > 0:
        top -= 1
        node = lr.stack[top]
        j = lr.cells[node].start
        k = lr.cells[node].end
        cell = node_mass(s, rows + j, k - j)
        out = &lr.nodes[node]
        out.left = -1
        out.right = -1
        out.feature = -1
        out.threshold = 0.0
        out.in_c = 0
        best.feature = -1
        if (may_split(cell.count, lr.cells[node].depth, lr.max_depth, lr.min_split,
                      lr.min_leaf)
                and cell.pos > 0.0 and cell.neg > 0.0 and n_nodes + 2 <= lr.capacity):
            _best_split(lr, rows + j, k - j, cell.count, coef_pos, coef_neg, cell.pos,
                        cell.neg, tol, &best)
        if best.feature >= 0:
            n_left = _partition_cut(lr, rows + j, k - j, best.feature, best.threshold)
            out.feature = best.feature
            out.threshold = best.threshold
            out.left = n_nodes
            out.right = n_nodes + 1
            lr.cells[n_nodes].start = j
            lr.cells[n_nodes].end = j + n_left
            lr.cells[n_nodes + 1].start = j + n_left
            lr.cells[n_nodes + 1].end = k
            lr.cells[n_nodes].depth = lr.cells[node].depth + 1
            lr.cells[n_nodes + 1].depth = lr.cells[node].depth + 1
            lr.stack[top] = n_nodes + 1
            lr.stack[top + 1] = n_nodes
            top += 2
            n_nodes += 2
        else:
            # A LeafRank leaf joins C when its gain is not negative (Remark 10).
            lam = coef_pos * cell.pos - coef_neg * cell.neg
            out.in_c = 1 if lam >= -tol else 0

    # Flag the rows of C and add up its masses.
    in_c.pos = 0.0
    in_c.neg = 0.0
    in_c.count = 0
    entries_c[0] = 0
    for node in range(n_nodes):
        if lr.nodes[node].left != -1:
            continue
        for i in range(lr.cells[node].start, lr.cells[node].end):
            k = rows[i]
            lr.flag[k] = lr.nodes[node].in_c
            if lr.nodes[node].in_c:
                entries_c[0] += 1
                in_c.count += s.counts[k]
                if s.is_pos[k]:
                    in_c.pos += s.w[k]
                else:
                    in_c.neg += s.w[k]
    _partition_in_c(lr, rows, m, entries_c[0])
    return n_nodes


cdef int leafrank_init(LeafRank* lr, const Sample* sample, Py_ssize_t q0, Py_ssize_t q1,
                       Py_ssize_t min_split, Py_ssize_t min_leaf, int max_depth,
                       int criterion, uint64_t* rng, Py_ssize_t n_entries,
                       Py_ssize_t max_values) except -1:
    """Bind ``lr`` to the sample and the parameters and allocate its buffers for
    master nodes of up to ``n_entries`` rows.  Raises MemoryError; call
    :func:`leafrank_free` in every case afterwards."""
    cdef Py_ssize_t capacity = 2 * n_entries - 1 if n_entries > 0 else 1
    if max_depth < 30 and (1 << (max_depth + 1)) - 1 < capacity:
        capacity = (1 << (max_depth + 1)) - 1
    lr.tmp = NULL; lr.flag = NULL; lr.values = NULL; lr.order = NULL; lr.loc = NULL
    lr.bucket = NULL; lr.feat = NULL; lr.cells = NULL; lr.stack = NULL; lr.nodes = NULL
    lr.sample = sample
    lr.q0 = q0
    lr.q1 = q1
    lr.min_split = min_split
    lr.min_leaf = min_leaf
    lr.max_depth = max_depth
    lr.criterion = criterion
    lr.rng = rng
    lr.capacity = capacity
    lr.tmp = <Py_ssize_t*>resize(NULL, n_entries, sizeof(Py_ssize_t))
    lr.flag = <unsigned char*>resize(NULL, sample.n, sizeof(unsigned char))
    memset(lr.flag, 0, (sample.n if sample.n > 1 else 1) * sizeof(unsigned char))
    lr.values = <double*>resize(NULL, n_entries, sizeof(double))
    lr.order = <Py_ssize_t*>resize(NULL, n_entries, sizeof(Py_ssize_t))
    lr.loc = <Mass*>resize(NULL, n_entries, sizeof(Mass))
    lr.bucket = <Mass*>resize(NULL, max_values, sizeof(Mass))
    lr.feat = <Py_ssize_t*>resize(NULL, q0, sizeof(Py_ssize_t))
    lr.cells = <Cell*>resize(NULL, capacity, sizeof(Cell))
    lr.stack = <Py_ssize_t*>resize(NULL, capacity, sizeof(Py_ssize_t))
    lr.nodes = <SplitNode*>resize(NULL, capacity, sizeof(SplitNode))
    return 0


cdef void leafrank_free(LeafRank* lr) noexcept nogil:
    free(lr.tmp); free(lr.flag); free(lr.values); free(lr.order); free(lr.loc)
    free(lr.bucket); free(lr.feat); free(lr.cells); free(lr.stack); free(lr.nodes)
    lr.tmp = NULL; lr.flag = NULL; lr.values = NULL; lr.order = NULL; lr.loc = NULL
    lr.bucket = NULL; lr.feat = NULL; lr.cells = NULL; lr.stack = NULL; lr.nodes = NULL


cdef Sample make_sample(const double[::1, :] X, const cnp.int32_t[:, ::1] ranks,
                        const cnp.int32_t[::1] n_values, const double[::1] rank_values,
                        const cnp.int64_t[::1] rank_offsets, const unsigned char[::1] is_pos,
                        const double[::1] w, const cnp.int32_t[::1] counts):
    """Point a Sample at the arrays (which must outlive it); no copy, no check."""
    cdef Sample s
    s.X = &X[0, 0]
    s.ranks = &ranks[0, 0]
    s.n_values = &n_values[0]
    s.rank_values = &rank_values[0]
    s.rank_offsets = &rank_offsets[0]
    s.n = X.shape[0]
    s.q = X.shape[1]
    s.is_pos = &is_pos[0]
    s.w = &w[0]
    s.counts = &counts[0]
    return s


def leafrank_split(const double[::1, :] X, const unsigned char[::1] is_pos,
                   const double[::1] w, ranks, Py_ssize_t[::1] samples,
                   Py_ssize_t start, Py_ssize_t end,
                   const Py_ssize_t[::1] features, Py_ssize_t max_features,
                   int max_depth, Py_ssize_t min_samples_split,
                   Py_ssize_t min_samples_leaf, int criterion, uint64_t seed,
                   Py_ssize_t[::1] node_feature, double[::1] node_threshold,
                   Py_ssize_t[::1] node_left, Py_ssize_t[::1] node_right,
                   unsigned char[::1] node_in_c):
    """Split one master node ``samples[start:end]`` by LeafRank (the split used by
    :func:`pauc.tree._grow.grow_tree`, exposed on its own for the tests).

    Parameters
    ----------
    X : Fortran-ordered float64 array (n_samples, n_features)
    is_pos : uint8 array, 1 for positives
    w : float64 sample weights
    ranks : :func:`pauc.tree._grow.rank_features` of X
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

    References
    ----------
    .. [1] Clémençon, S. and Vayatis, N. "Tree-based ranking methods." IEEE
       Transactions on Information Theory 55(9), 2009 (preprint hal-00268068),
       Sec. IV-A, step 2a; Remarks 10 and 12.
    .. [2] Clémençon, S., Depecker, M. and Vayatis, N. "Ranking Forests." Journal
       of Machine Learning Research 14, 2013 (preprint hal-00452577), §2.3.1, §3.1.
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

    ranks_arr, n_values_arr, values_arr, offsets_arr = ranks
    ones = np.ones(n, dtype=np.int32)
    cdef Sample s = make_sample(X, ranks_arr, n_values_arr, values_arr, offsets_arr, is_pos,
                                w, ones)
    cdef uint64_t rng = seed
    cdef LeafRank lr
    cdef Mass in_c
    cdef Py_ssize_t n_nodes = 0, n_in_c = 0
    try:
        leafrank_init(&lr, &s, n_candidates, max_features, min_samples_split,
                      min_samples_leaf, max_depth, criterion, &rng, m,
                      max(np.max(n_values_arr), 1))
        with nogil:
            n_nodes = find_split(&lr, &samples[start], m, &features[0], &in_c, &n_in_c)
        if n_nodes > capacity:
            raise ValueError("LeafRank node buffers are too short")
        for i in range(n_nodes):
            node_feature[i] = lr.nodes[i].feature
            node_threshold[i] = lr.nodes[i].threshold
            node_left[i] = lr.nodes[i].left
            node_right[i] = lr.nodes[i].right
            node_in_c[i] = lr.nodes[i].in_c
    finally:
        leafrank_free(&lr)
    return n_nodes, n_in_c, in_c.pos, in_c.neg
