# cython: language_level=3
"""Kendall (Kemeny) median of a profile of tree rankings: the hot loops.

Clémençon, Depecker & Vayatis ("Ranking Forests", JMLR 14, 2013; preprint
hal-00452577), §3.2.3 and §5: the consensus of the B ranking trees is a median,
in the Kendall-with-ties sense, of the B rankings they induce on the cells of
the common refinement P*; the paper computes it "by means of a simulated
annealing method (with the ranking of P*_B's cells obtained by taking the
median or mean ranks over the B rankings as starting point)".

Representation
--------------
* A profile is ``cell_leaves[k, b]``: the leaf of tree b holding cell k, with
  leaf 0 the best-ranked leaf of each tree (smaller index = ranked higher).
* ``A[k, l] = #{b : cell k strictly above cell l in tree b}`` (``pairwise_wins``),
  computed once in O(K² B); every later cost is read from it.
* A candidate consensus (a bucket order, ties allowed) is a vector of keys,
  one per cell: larger key = ranked higher, equal keys = same bucket.
* With cell masses ``w`` the objective is Σ_b Σ_{k<l} w_k w_l U_kl(≼, ≼_b)
  (cell form (4) of the probabilistic Kendall distance, summed over trees).
  For one pair, over the B trees::

      k strictly above l :  ½ (B + A[l,k] − A[k,l])   (discordant trees + ½ ties)
      k, l tied          :  ½ (A[k,l] + A[l,k])        (½ per tree that is strict)

  so moving one cell changes the objective by an O(K) sum (one row of A).
"""

import numpy as np
cimport numpy as cnp
from libc.math cimport exp
from libc.stdint cimport uint64_t

from .._random cimport rand_below, rand_uniform

cnp.import_array()

ctypedef cnp.int16_t count_t

# Keys closer than this are re-spread before a new bucket is wedged between them.
cdef double MIN_GAP = 1e-7


# ---------------------------------------------------------------- pair costs
cdef inline double _pair_cost(double key_k, double key_l, int a_kl, int a_lk,
                              int n_trees) noexcept nogil:
    """Σ_b U_kl(≼, ≼_b) for the relation between k and l given by their keys."""
    if key_k > key_l:
        return 0.5 * (n_trees + a_lk - a_kl)
    if key_k < key_l:
        return 0.5 * (n_trees + a_kl - a_lk)
    return 0.5 * (a_kl + a_lk)


cdef inline void _wins(const cnp.int32_t* a, const cnp.int32_t* b, Py_ssize_t n_trees,
                       int* above, int* below) noexcept nogil:
    """Number of trees ranking a strictly above b (a smaller leaf index) and
    strictly below it, from the two rows of leaves ``a`` and ``b``."""
    cdef Py_ssize_t t
    cdef int up = 0, down = 0
    for t in range(n_trees):
        if a[t] < b[t]:
            up = up + 1
        elif a[t] > b[t]:
            down = down + 1
    above[0] = up
    below[0] = down


cdef inline void _placement_costs(double weight, int above, int below, int n_trees,
                                  double* up, double* down, double* tie) noexcept nogil:
    """Σ_b U(≼, ≼_b) of one pair (k, m), times ``weight``, when k is put strictly
    above m (``up``), strictly below it (``down``) or tied with it (``tie``);
    ``above`` / ``below`` trees rank k strictly above / below m."""
    up[0] = weight * (n_trees + below - above)
    down[0] = weight * (n_trees + above - below)
    tie[0] = weight * (above + below)


cdef inline Py_ssize_t _bucket_sums(const double* keys, const cnp.int64_t* order,
                                    Py_ssize_t n, Py_ssize_t i, Py_ssize_t skip,
                                    const double* up, const double* down, const double* tie,
                                    double* s_down, double* s_tie, double* s_swap,
                                    Py_ssize_t* last) noexcept nogil:
    """Costs of the cells of the bucket that starts at ``order[i]`` (``order``
    sorts the cells by key), cell ``skip`` left out: the sums of ``down`` and
    ``tie`` and of ``up − down`` (what moving a cell from below the bucket to
    above it changes).  Returns the end of the bucket; ``last`` receives the
    last cell counted (unchanged if none)."""
    cdef double kv = keys[order[i]]
    cdef Py_ssize_t m
    s_down[0] = 0.0
    s_tie[0] = 0.0
    s_swap[0] = 0.0
    while i < n and keys[order[i]] == kv:
        m = order[i]
        if m != skip:
            s_down[0] = s_down[0] + down[m]
            s_tie[0] = s_tie[0] + tie[m]
            s_swap[0] = s_swap[0] + up[m] - down[m]
            last[0] = m
        i = i + 1
    return i


def pairwise_wins(const cnp.int32_t[:, ::1] cell_leaves):
    """``A[k, l]`` = number of trees ranking cell k strictly above cell l.

    O(K² B) time, K² int16 memory (the paper's trees number dozens, B < 32768).
    """
    cdef Py_ssize_t n_cells = cell_leaves.shape[0], n_trees = cell_leaves.shape[1]
    if n_trees > 32767:
        raise ValueError("at most 32767 trees are supported by the pairwise table")
    A_arr = np.zeros((n_cells, n_cells), dtype=np.int16)
    cdef count_t[:, ::1] A = A_arr
    cdef Py_ssize_t k, l
    cdef int up, down
    with nogil:
        for k in range(n_cells):
            for l in range(k + 1, n_cells):
                _wins(&cell_leaves[k, 0], &cell_leaves[l, 0], n_trees, &up, &down)
                A[k, l] = <count_t>up
                A[l, k] = <count_t>down
    return A_arr


cdef double _total_cost(const double[::1] keys, const count_t[:, ::1] A,
                        const count_t[:, ::1] AT, const double[::1] w,
                        int n_trees) noexcept nogil:
    cdef Py_ssize_t n = keys.shape[0], k, l
    cdef double total = 0.0, row
    for k in range(n):
        row = 0.0
        for l in range(k + 1, n):
            row = row + w[l] * _pair_cost(keys[k], keys[l], A[k, l], AT[k, l], n_trees)
        total = total + w[k] * row
    return total


def _transpose(A):
    """``A.T`` in row order: the O(K) loops over a cell's pairs read ``A[k, m]`` and
    ``A[m, k]``; the second, a column of A, is a row of ``A.T`` (no cache misses)."""
    return np.ascontiguousarray(np.asarray(A).T)


def kemeny_cost(const double[::1] keys, const count_t[:, ::1] A, const double[::1] w,
                int n_trees, AT=None):
    """Objective Σ_b Σ_{k<l} w_k w_l U_kl(≼_keys, ≼_b) in O(K²).

    ``AT``: ``A.T`` in row order if the caller has it (computed otherwise)."""
    cdef const count_t[:, ::1] At = _transpose(A) if AT is None else AT
    cdef double out
    with nogil:
        out = _total_cost(keys, A, At, w, n_trees)
    return out


cdef double _move_delta(double[::1] keys, const count_t[:, ::1] A,
                        const count_t[:, ::1] AT, const double[::1] w,
                        int n_trees, Py_ssize_t k, double new_key) noexcept nogil:
    """Change of the objective when cell k takes key ``new_key`` (O(K))."""
    cdef Py_ssize_t n = keys.shape[0], m
    cdef double delta = 0.0, old_key = keys[k]
    for m in range(n):
        if m == k:
            continue
        delta = delta + w[m] * (
            _pair_cost(new_key, keys[m], A[k, m], AT[k, m], n_trees)
            - _pair_cost(old_key, keys[m], A[k, m], AT[k, m], n_trees))
    return w[k] * delta


cdef int _propose(double[::1] keys, Py_ssize_t k, Py_ssize_t l, int mode,
                  double *new_key) noexcept nogil:
    """Key putting cell k in l's bucket (mode 0), just above it (1) or just below (2).

    Returns 1 when the gap to wedge into is too narrow (caller re-spreads the
    keys), 0 otherwise.
    """
    cdef Py_ssize_t n = keys.shape[0], m
    cdef double ref = keys[l], other
    cdef bint found = False
    if mode == 0:
        new_key[0] = ref
        return 0
    other = 0.0
    for m in range(n):
        if m == k:
            continue
        if mode == 1 and keys[m] > ref and (not found or keys[m] < other):
            other = keys[m]
            found = True
        elif mode == 2 and keys[m] < ref and (not found or keys[m] > other):
            other = keys[m]
            found = True
    if not found:
        new_key[0] = ref + 1.0 if mode == 1 else ref - 1.0
        return 0
    if (other - ref if mode == 1 else ref - other) < MIN_GAP:
        return 1
    new_key[0] = 0.5 * (ref + other)
    return 0


def _respread(double[::1] keys):
    """Replace keys by their dense ranks (same bucket order, unit gaps)."""
    _, inverse = np.unique(np.asarray(keys), return_inverse=True)
    cdef cnp.int64_t[::1] dense = np.ascontiguousarray(inverse.reshape(-1), dtype=np.int64)
    cdef Py_ssize_t i
    for i in range(keys.shape[0]):
        keys[i] = <double>dense[i]


def anneal(double[::1] keys, const count_t[:, ::1] A, const double[::1] w, int n_trees,
           Py_ssize_t n_iter, double temperature, uint64_t seed,
           bint allow_ties=True, AT=None):
    """Simulated annealing over bucket orders, keeping the best order visited.

    One move takes a random cell k and a random other cell l and puts k in
    l's bucket, in a new bucket just above l's, or just below it: every bucket
    order is reachable and each move costs O(K) (one row of ``A``).  A move of
    cost Δ is accepted with probability ``min(1, exp(−Δ / T))``; T decreases
    geometrically from ``temperature · (mean uphill Δ of 200 trial moves)``
    to a thousandth of it over ``n_iter`` moves.  ``keys`` is overwritten with
    the best order visited, so the result is never worse than the start.
    With ``allow_ties=False`` only the two "new bucket" moves are proposed,
    so a strict start stays strict (a median over total orders).

    Returns
    -------
    start_cost, best_cost : float
    """
    cdef Py_ssize_t n = keys.shape[0], it, k, l, i, n_up = 0
    cdef uint64_t state = seed
    cdef int mode, narrow
    cdef double new_key, delta, cur, best, start, t0, t, ratio, uphill = 0.0
    best_keys_arr = np.array(keys, dtype=np.float64, copy=True)
    cdef double[::1] best_keys = best_keys_arr
    cdef const count_t[:, ::1] At = _transpose(A) if AT is None else AT
    with nogil:
        start = _total_cost(keys, A, At, w, n_trees)
    cur = start
    best = start
    if n < 2 or n_iter <= 0:
        return start, best
    with nogil:
        # Scale of the temperature: the typical cost of an uphill move here.
        for it in range(200):
            k = rand_below(&state, n)
            l = rand_below(&state, n - 1)
            l = l + 1 if l >= k else l
            mode = <int>rand_below(&state, 3) if allow_ties else 1 + <int>rand_below(&state, 2)
            if _propose(keys, k, l, mode, &new_key) == 0:
                delta = _move_delta(keys, A, At, w, n_trees, k, new_key)
                if delta > 0:
                    uphill = uphill + delta
                    n_up = n_up + 1
        t0 = temperature * (uphill / n_up if n_up > 0 else 1.0)
        ratio = exp(-6.907755278982137 / n_iter)      # T_end = T0 / 1000
        t = t0
    with nogil:
        for it in range(n_iter):
            k = rand_below(&state, n)
            l = rand_below(&state, n - 1)
            l = l + 1 if l >= k else l
            mode = <int>rand_below(&state, 3) if allow_ties else 1 + <int>rand_below(&state, 2)
            narrow = _propose(keys, k, l, mode, &new_key)
            if narrow:
                # Rare: a gap halved ~20 times; re-spread under the GIL and go on.
                with gil:
                    _respread(keys)
                continue
            t = t * ratio
            if new_key != keys[k]:
                delta = _move_delta(keys, A, At, w, n_trees, k, new_key)
                if delta <= 0.0 or (t > 0.0 and rand_uniform(&state) < exp(-delta / t)):
                    keys[k] = new_key
                    cur = cur + delta
                    if cur < best - 1e-9 * (1.0 + best):
                        best = cur
                        for i in range(n):
                            best_keys[i] = keys[i]
    for i in range(n):
        keys[i] = best_keys[i]
    # Recompute exactly: the running sum drifts by rounding over many moves.
    with nogil:
        best = _total_cost(keys, A, At, w, n_trees)
    return start, best


cdef Py_ssize_t _best_insertion(const double[::1] keys, const cnp.int64_t[::1] order,
                                Py_ssize_t k, const double[::1] up_cost,
                                const double[::1] down_cost, const double[::1] tie_cost,
                                double *best_cost, double *current_cost,
                                Py_ssize_t *best_lo, Py_ssize_t *best_hi,
                                bint *join, bint allow_ties) noexcept nogil:
    """Scan the buckets of ``order`` (ascending keys, cell k skipped).

    ``up_cost[m]``: weighted cost of the pair (k, m) with k strictly above m;
    ``down_cost[m]``: with m strictly above k; ``tie_cost[m]``: tied.
    Finds the cheapest position for k: joining a bucket or a new bucket in a
    gap.  ``best_lo``/``best_hi`` return a cell of the bucket below / above the
    chosen gap (-1 for none), or for a join a cell of the joined bucket in
    both.  ``current_cost`` is the cost of k where it stands.  Returns the
    number of buckets.
    """
    cdef Py_ssize_t n = order.shape[0], i, i2, m, n_buckets = 0, prev_cell = -1
    cdef double cur = 0.0, s_down, s_tie, s_swap, join_cost, kv, my_key = keys[k]
    cdef bint have_current = False
    for i in range(n):
        m = order[i]
        if m != k:
            cur = cur + down_cost[m]
    # k alone at the very bottom
    best_cost[0] = cur
    best_lo[0] = -1
    best_hi[0] = -1
    join[0] = False
    i = 0
    while i < n:
        if order[i] == k:
            i = i + 1
            continue
        kv = keys[order[i]]
        if not have_current and kv > my_key:
            current_cost[0] = cur
            have_current = True
        if best_hi[0] == -1 and not join[0] and best_lo[0] == prev_cell:
            best_hi[0] = order[i]
        i2 = _bucket_sums(&keys[0], &order[0], n, i, k, &up_cost[0], &down_cost[0],
                          &tie_cost[0], &s_down, &s_tie, &s_swap, &prev_cell)
        join_cost = cur - s_down + s_tie
        if kv == my_key:
            current_cost[0] = join_cost
            have_current = True
        if allow_ties and join_cost < best_cost[0]:
            best_cost[0] = join_cost
            best_lo[0] = prev_cell
            best_hi[0] = prev_cell
            join[0] = True
        cur = cur + s_swap
        if cur < best_cost[0]:
            best_cost[0] = cur
            best_lo[0] = prev_cell
            best_hi[0] = -1
            join[0] = False
        n_buckets = n_buckets + 1
        i = i2
    if not have_current:
        current_cost[0] = cur
    return n_buckets


cdef void _pair_costs_of(Py_ssize_t k, const count_t[:, ::1] A, const count_t[:, ::1] AT,
                         const double[::1] w, int n_trees, double[::1] up,
                         double[::1] down, double[::1] tie) noexcept nogil:
    cdef Py_ssize_t m
    for m in range(A.shape[0]):
        _placement_costs(w[k] * w[m] * 0.5, A[k, m], AT[k, m], n_trees, &up[m], &down[m],
                         &tie[m])


def polish(double[::1] keys, const count_t[:, ::1] A, const double[::1] w, int n_trees,
           Py_ssize_t max_sweeps, bint allow_ties=True, AT=None):
    """Best-insertion local search: move each cell to its cheapest position.

    A sweep visits every cell and, in O(K), finds its best place among all
    bucket positions (join a bucket or open a new one in any gap) given the
    others; it moves the cell only on a strict improvement, so the objective
    never increases.  Stops after a sweep without a move or ``max_sweeps``.
    With ``allow_ties=False`` joining a bucket is not an option.

    Returns
    -------
    cost : float
    n_sweeps : int
    """
    cdef Py_ssize_t n = keys.shape[0], sweep, k, i, j, lo, hi, pos
    cdef double best_cost, current_cost, new_key, tol
    cdef bint join, moved
    up_arr = np.empty(n)
    down_arr = np.empty(n)
    tie_arr = np.empty(n)
    cdef double[::1] up = up_arr, down = down_arr, tie = tie_arr
    cdef cnp.int64_t[::1] order
    cdef const count_t[:, ::1] At = _transpose(A) if AT is None else AT
    tol = 1e-12 * (1.0 + float(np.asarray(w).sum()) ** 2 * n_trees)
    sweep = 0
    while sweep < max_sweeps:
        sweep += 1
        moved = False
        order = np.argsort(np.asarray(keys), kind="stable").astype(np.int64)
        for k in range(n):
            with nogil:
                _pair_costs_of(k, A, At, w, n_trees, up, down, tie)
                _best_insertion(keys, order, k, up, down, tie, &best_cost,
                                &current_cost, &lo, &hi, &join, allow_ties)
            if best_cost >= current_cost - tol:
                continue
            if join:
                new_key = keys[lo]
            elif lo == -1:
                new_key = keys[hi] - 1.0 if hi != -1 else 0.0
            elif hi == -1:
                new_key = keys[lo] + 1.0
            else:
                if keys[hi] - keys[lo] < MIN_GAP:
                    _respread(keys)
                new_key = 0.5 * (keys[lo] + keys[hi])
            keys[k] = new_key
            moved = True
            # Keep ``order`` sorted: take k out, put it back after every key <= its own.
            with nogil:
                j = 0
                for i in range(n):
                    if order[i] != k:
                        order[j] = order[i]
                        j = j + 1
                pos = 0
                while pos < n - 1 and keys[order[pos]] <= new_key:
                    pos = pos + 1
                for i in range(n - 1, pos, -1):
                    order[i] = order[i - 1]
                order[pos] = k
        if not moved:
            break
    return kemeny_cost(keys, A, w, n_trees, At), sweep


cdef inline void _offer(double cost, double position, double tol, double* best,
                        double* first, double* last) noexcept nogil:
    """Positions are offered in increasing order: keep the least cost (within
    ``tol``) and the lowest and highest positions reaching it."""
    if cost < best[0] - tol:
        best[0] = cost
        first[0] = position
        last[0] = position
    elif cost <= best[0] + tol:
        last[0] = position


def insert_points(const cnp.int32_t[:, ::1] point_leaves, const cnp.int32_t[:, ::1] cell_leaves,
                  const double[::1] w, const double[::1] keys):
    """Place new points (cells unseen in the reference sample) in the consensus.

    For each point u, the position (join a consensus bucket or open a new
    bucket in a gap) minimising its Kendall cost Σ_b Σ_k w_k U_uk against the
    B trees, the consensus of the reference cells staying fixed (pauc's policy:
    the paper does not say how to score unseen cells).  O(K·B) per point, no GIL.

    Returns
    -------
    position : float array of shape (n_points,)
        ``2j + 1`` for joining bucket j and ``2g`` for the gap above g buckets
        (buckets numbered 0 = bottom); when several positions are optimal, the
        midpoint of the lowest and the highest of them.
    """
    cdef Py_ssize_t n_points = point_leaves.shape[0], n_cells = cell_leaves.shape[0]
    cdef Py_ssize_t n_trees = cell_leaves.shape[1], u, c, i, i2, bucket
    cdef int a_uc, a_cu
    cdef double cur, s_down, s_tie, s_swap, best, first_pos, last_pos, tol
    if point_leaves.shape[1] != n_trees:
        raise ValueError("points and cells must come from the same trees")
    order_arr = np.argsort(np.asarray(keys), kind="stable").astype(np.int64)
    cdef cnp.int64_t[::1] order = order_arr
    up_arr = np.empty(n_cells)
    down_arr = np.empty(n_cells)
    tie_arr = np.empty(n_cells)
    cdef double[::1] up = up_arr, down = down_arr, tie = tie_arr
    out_arr = np.empty(n_points)
    cdef double[::1] out = out_arr
    tol = 1e-12 * (1.0 + float(np.asarray(w).sum()) * n_trees)
    with nogil:
        for u in range(n_points):
            cur = 0.0
            for c in range(n_cells):
                _wins(&point_leaves[u, 0], &cell_leaves[c, 0], n_trees, &a_uc, &a_cu)
                _placement_costs(w[c] * 0.5, a_uc, a_cu, n_trees, &up[c], &down[c], &tie[c])
                cur = cur + down[c]
            best = cur
            first_pos = 0.0
            last_pos = 0.0
            bucket = 0
            i = 0
            while i < n_cells:
                i2 = _bucket_sums(&keys[0], &order[0], n_cells, i, -1, &up[0], &down[0],
                                  &tie[0], &s_down, &s_tie, &s_swap, &c)
                # Join bucket j (position 2j + 1), then the gap above it (2j + 2).
                _offer(cur - s_down + s_tie, 2.0 * bucket + 1.0, tol, &best, &first_pos,
                       &last_pos)
                cur = cur + s_swap
                _offer(cur, 2.0 * bucket + 2.0, tol, &best, &first_pos, &last_pos)
                bucket = bucket + 1
                i = i2
            out[u] = 0.5 * (first_pos + last_pos)
    return out_arr
