# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Kernels of the oblivious-tree booster (:mod:`pauc.gbm.engines._oblivious`).

An oblivious (symmetric) tree of depth ``D`` asks the same question -- feature
``f_d`` above border ``b_d`` -- of every row at level ``d``, so a row's leaf is
the ``D``-bit number of its answers (Prokhorenkova et al. 2018, Section 5;
Dorogush et al. 2018).  A level is chosen by one pass over the rows per
feature: per (leaf, bin) histograms of the weighted gradient and of the
weights, then, for every border, the score of splitting *every* current leaf
there, summed over the leaves.

The score of a candidate tree with leaf values ``a_l = -G_l / (W_l + lambda)``
(the regularised least-squares fit of the negative gradient) is

* ``"l2"``: ``sum_l G_l^2 / (W_l + lambda)``, the fall of the squared error;
* ``"cosine"``: that sum divided by ``sqrt(sum_l G_l^2 W_l / (W_l + lambda)^2)``,
  the cosine between the gradient and the tree's outputs up to a constant
  (CatBoost's default score function).

Rows are quantised (``uint8`` codes, at most 255 bins); the codes are stored
feature-major so that a feature's pass reads one contiguous row of codes.

:class:`Grower` grows whole trees without the GIL: the bootstrap weights
(minimal variance sampling, Ibragimov & Gusev 2019, or the Bayesian bootstrap),
the ``depth`` levels with their random strength, the Newton leaf values, and
for log-loss the gradient itself, round after round
(:meth:`Grower.grow_logloss`), so that folds boosted in parallel threads do
not wait for each other between kernels.  Its random numbers come from
:class:`Random` (xoshiro256**, Blackman & Vigna 2021), whose draws a test can
replay.

References
----------
Prokhorenkova, L., Gusev, G., Vorobev, A., Dorogush, A. V. and Gulin, A.
"CatBoost: unbiased boosting with categorical features." NeurIPS 2018.

Dorogush, A. V., Ershov, V. and Gulin, A. "CatBoost: gradient boosting with
categorical features support." Workshop on ML Systems, NIPS 2017.

Ibragimov, B. and Gusev, G. "Minimal Variance Sampling in Stochastic Gradient
Boosting." NeurIPS 2019.

Blackman, D. and Vigna, S. "Scrambled Linear Pseudorandom Number Generators."
ACM Transactions on Mathematical Software 47(4), 2021.
"""

import numpy as np
cimport numpy as cnp
from libc.math cimport sqrt, exp, log, log1p, pow, fabs, INFINITY, NAN
from libc.string cimport memset
from libc.stdint cimport uint8_t, int32_t, int64_t, uint64_t

from pauc._ranking cimport roc_walk, split_into
from pauc._sort cimport sort
from ..._random cimport Xoshiro, xoshiro_normal, xoshiro_seeded, xoshiro_uniform

cnp.import_array()


# ---------------------------------------------------------------- random numbers
# (the generator itself is in pauc/_random.pxd)

cdef class Random:
    """The booster's random stream: xoshiro256** seeded by splitmix64, normals
    by the polar method.

    :class:`Grower` draws from it without the GIL; :meth:`uniform` and
    :meth:`normal` draw the same numbers from Python (the tests replay a
    round with them)."""

    cdef Xoshiro g          # xoshiro's state and the spare normal

    def __init__(self, seed):
        # splitmix64 (the tree family's stream): four well-mixed words from one seed
        self.g = xoshiro_seeded(<uint64_t> (int(seed) & 0xFFFFFFFFFFFFFFFF))

    def uniform(self, Py_ssize_t n):
        """``n`` draws, uniform on [0, 1)."""
        return self._draws(n, False)

    def normal(self, Py_ssize_t n):
        """``n`` standard normal draws."""
        return self._draws(n, True)

    def _draws(self, Py_ssize_t n, bint normal):
        out = np.empty(n)
        cdef double[::1] o = out
        cdef Py_ssize_t i
        for i in range(n):
            o[i] = xoshiro_normal(&self.g) if normal else xoshiro_uniform(&self.g)
        return out


# ---------------------------------------------------------------- one level

cdef struct Split:
    int feature
    int border
    double score
    double l2_score


cdef Split _best_split(const uint8_t *codes, Py_ssize_t n_rows, Py_ssize_t n_features,
                       const int32_t *leaf, const double *weighted_grad,
                       const double *weight, const int32_t *n_bins, const int64_t *offsets,
                       int n_leaves, Py_ssize_t max_bins, double l2, bint cosine,
                       const double *noise, double *hist, double *totals, double *NUM,
                       double *DEN) noexcept nogil:
    """:func:`best_split` on raw arrays; ``hist`` holds ``2 x n_leaves x
    max_bins`` doubles (each cell's gradient and weight side by side: one cache
    line per row), ``totals`` ``2 x n_leaves``, ``NUM, DEN`` ``max_bins``."""
    cdef Py_ssize_t f, i, l, b, base
    cdef const uint8_t *row
    cdef int nb
    cdef Split best
    cdef double g_left, w_left, g_right, w_right, g_tot, w_tot, s
    cdef double num, den, prev_num, prev_den
    cdef double inv_left, inv_right
    best.feature, best.border, best.score, best.l2_score = -1, -1, -INFINITY, 0.0
    # the leaves' totals are every feature's: once per level
    for l in range(2 * n_leaves):
        totals[l] = 0.0
    for i in range(n_rows):
        totals[2 * leaf[i]] += weighted_grad[i]
        totals[2 * leaf[i] + 1] += weight[i]
    for f in range(n_features):
        nb = n_bins[f]
        if nb < 2:
            continue
        row = codes + f * n_rows
        memset(NUM, 0, nb * sizeof(double))
        memset(DEN, 0, nb * sizeof(double))
        memset(hist, 0, 2 * n_leaves * nb * sizeof(double))
        for i in range(n_rows):
            base = 2 * (leaf[i] * nb + row[i])
            hist[base] += weighted_grad[i]
            hist[base + 1] += weight[i]
        for l in range(n_leaves):
            base = 2 * l * nb
            g_tot = totals[2 * l]
            w_tot = totals[2 * l + 1]
            g_left = 0.0
            w_left = 0.0
            prev_num = 0.0
            prev_den = 0.0
            # border b: bins 0..b go left.  The leaf's term changes only at a
            # non-empty bin, so NUM and DEN receive its differences there
            # (prefix-summed below): divisions at non-empty cells only
            for b in range(nb - 1):
                if b > 0 and hist[base + 2 * b + 1] == 0.0 and hist[base + 2 * b] == 0.0:
                    continue
                g_left = g_left + hist[base + 2 * b]
                w_left = w_left + hist[base + 2 * b + 1]
                g_right = g_tot - g_left
                w_right = w_tot - w_left
                inv_left = 1.0 / (w_left + l2)
                inv_right = 1.0 / (w_right + l2)
                num = g_left * g_left * inv_left + g_right * g_right * inv_right
                NUM[b] += num - prev_num
                prev_num = num
                if cosine:
                    den = (g_left * g_left * w_left * inv_left * inv_left
                           + g_right * g_right * w_right * inv_right * inv_right)
                    DEN[b] += den - prev_den
                    prev_den = den
        for b in range(1, nb - 1):
            NUM[b] += NUM[b - 1]
            DEN[b] += DEN[b - 1]
        for b in range(nb - 1):
            num = NUM[b]
            if cosine:
                den = DEN[b]
                s = num / sqrt(den) if den > 0.0 else 0.0
            else:
                s = num
            s = s + noise[offsets[f] + b]
            if s > best.score:
                best.feature, best.border, best.score, best.l2_score = <int> f, <int> b, s, num
    return best


def best_split(const uint8_t[:, ::1] codes, const int32_t[::1] leaf,
               const double[::1] weighted_grad, const double[::1] weight,
               const int32_t[::1] n_bins, const int64_t[::1] offsets,
               int n_leaves, double l2, bint cosine, const double[::1] noise):
    """The best (feature, border) of one level: every current leaf split there.

    Parameters
    ----------
    codes : uint8 array of shape (n_features, n_rows)
        Quantised rows, feature-major; bin ``b`` of feature ``f`` lies above
        border ``b - 1`` and not above border ``b``.
    leaf : int32 array of shape (n_rows,)
        Each row's leaf in the tree so far (``0 .. n_leaves - 1``).
    weighted_grad, weight : float64 arrays of shape (n_rows,)
        ``w_i g_i`` and ``w_i`` (bootstrap weights; 0 leaves a row out).
    n_bins : int32 array of shape (n_features,)
        Bins of each feature (its borders + 1).
    offsets : int64 array of shape (n_features + 1,)
        Start of each feature's borders in ``noise``.
    n_leaves : int
    l2 : float
        ``lambda`` of the module docstring.
    cosine : bool
        The cosine score, else the ``"l2"`` score.
    noise : float64 array of shape (offsets[-1],)
        Added to each border's score (random strength; zeros for none).

    Returns
    -------
    feature, border : int
        ``-1, -1`` when no feature has a border.
    score : float
    l2_score : float
        The ``"l2"`` score of that split without noise (its fall of the
        squared error, for the feature's gain).
    """
    cdef Py_ssize_t max_bins = max(1, max(n_bins)) if n_bins.shape[0] else 1
    cdef double[::1] hist = np.empty(2 * n_leaves * max_bins), totals = np.empty(2 * n_leaves)
    cdef double[::1] NUM = np.empty(max_bins), DEN = np.empty(max_bins)
    cdef Split best
    if codes.shape[0] == 0 or codes.shape[1] == 0:
        return -1, -1, -INFINITY, 0.0
    with nogil:
        best = _best_split(&codes[0, 0], codes.shape[1], codes.shape[0], &leaf[0],
                           &weighted_grad[0], &weight[0], &n_bins[0], &offsets[0], n_leaves,
                           max_bins, l2, cosine, &noise[0] if noise.shape[0] else NULL,
                           &hist[0], &totals[0], &NUM[0], &DEN[0])
    return best.feature, best.border, best.score, best.l2_score


# ---------------------------------------------------------------- minimal variance sampling

cdef double _mvs(double *a, Py_ssize_t n, double n_kept) noexcept nogil:
    """:func:`mvs_threshold` of ``a`` (reordered in place), in expected linear time.

    ``f(mu) = #{a_i > mu} + sum_{a_i <= mu} a_i / mu`` falls with ``mu``; a
    quickselect on it: the pivot ``v`` splits the undecided values three ways,
    and ``f(v) > n_kept`` puts ``mu`` above ``v`` (the values up to ``v`` are
    sampled, their sum is known), else below (the values from ``v`` up are kept
    for sure).  Then ``mu = (sum of the sampled) / (n_kept - kept for sure)``."""
    cdef Py_ssize_t lo = 0, hi = n, i, lt, gt, n_sure = 0
    cdef double v, x, low_sum = 0.0, sum_le, f, largest = 0.0
    if n_kept >= n:
        return 0.0
    for i in range(n):
        if a[i] > largest:
            largest = a[i]
    if largest <= 0.0:
        return 0.0
    while lo < hi:
        v = _median3(a[lo], a[lo + (hi - lo) // 2], a[hi - 1])
        # three ways: a[lo:gt] > v, a[gt:lt] == v, a[lt:hi] < v
        gt, i, lt = lo, lo, hi
        sum_le = 0.0
        while i < lt:
            x = a[i]
            if x > v:
                a[i] = a[gt]
                a[gt] = x
                gt += 1
                i += 1
            elif x < v:
                lt -= 1
                a[i] = a[lt]
                a[lt] = x
                sum_le += x
            else:
                sum_le += x
                i += 1
        if v <= 0.0:
            f = n_kept + 1.0             # mu > 0 = v
        else:
            f = n_sure + (gt - lo) + (low_sum + sum_le) / v
        if f == n_kept:
            return v
        if f > n_kept:                   # mu above v: a[gt:hi] are sampled
            low_sum += sum_le
            hi = gt
        else:                            # mu below v: a[lo:lt] are kept for sure
            n_sure += lt - lo
            lo = lt
    return low_sum / (n_kept - n_sure)


cdef inline double _median3(double x, double y, double z) noexcept nogil:
    if x > y:
        x, y = y, x
    if y > z:
        y = z
    return x if x > y else y


def mvs_threshold(g_hat, double n_kept):
    """``mu`` with ``sum_i min(1, g_hat_i / mu) = n_kept`` (Ibragimov & Gusev
    2019, eq. (6)): the rows above ``mu`` are always kept, the others with
    probability ``g_hat_i / mu``.  0 when fewer than ``n_kept`` rows have
    ``g_hat > 0`` (then every row is kept)."""
    cdef double[::1] a = np.array(g_hat, dtype=np.float64, copy=True).ravel()
    cdef double mu
    if a.shape[0] == 0:
        return 0.0
    with nogil:
        mu = _mvs(&a[0], a.shape[0], n_kept)
    return mu


# ---------------------------------------------------------------- whole trees

BOOTSTRAP_CODES = {"mvs": 0, "bayesian": 1, "none": 2}


# ---------------------------------------------------------------- leaves

cdef inline void _descend(const uint8_t *row, int32_t *leaf, Py_ssize_t n,
                          int border) noexcept nogil:
    """One level down: ``leaf = 2 leaf + (code > border)`` for the codes ``row``."""
    cdef Py_ssize_t i
    for i in range(n):
        leaf[i] = 2 * leaf[i] + (row[i] > border)


cdef void _leaves_of(const uint8_t *codes, Py_ssize_t n_rows, const int32_t *features,
                     const int32_t *borders, int depth, int32_t *leaf) noexcept nogil:
    """Each row's leaf in one tree (``codes`` feature-major, ``n_rows`` per feature)."""
    cdef int d
    memset(leaf, 0, n_rows * sizeof(int32_t))
    for d in range(depth):
        _descend(codes + features[d] * n_rows, leaf, n_rows, borders[d])


cdef class HeldOut:
    """A fold's held-out rows as the kernel scores them after every tree: their
    raw scores, their mean log-loss ``log(1 + exp(-m))`` (``m`` the score signed
    by the label, computed as ``max(0, -m) + log1p(exp(-|m|))``) and the
    stopping criterion, the mean over ``windows`` of the partial AUC
    (``normalize="range"``, Narasimhan & Agarwal 2017, eq. (2)): the same walk
    over the tie groups of the sorted classes as :func:`pauc.metrics.partial_auc`
    (:mod:`pauc._ranking`), so the values are those of
    :class:`pauc.gbm._stopping.ValidationCriterion`, without a Python call per
    round.

    Parameters
    ----------
    codes : uint8 array of shape (n_features, n_held_out)
    is_pos : bool array of shape (n_held_out,) or None
        The labels (None: no log-loss, no criterion; NaN is reported).
    windows : sequence of (alpha, beta)
        The criterion's FPR windows (empty: no criterion).
    """

    cdef readonly const uint8_t[:, ::1] codes
    cdef const unsigned char[::1] flag
    cdef double[::1] score, pos, neg, no_knots
    cdef Py_ssize_t[::1] order
    cdef int32_t[::1] leaf
    cdef double[:, ::1] windows
    cdef Py_ssize_t n, n_pos
    cdef bint labelled

    def __init__(self, const uint8_t[:, ::1] codes, is_pos=None, windows=()):
        n = codes.shape[1]
        self.codes, self.n, self.labelled = codes, n, is_pos is not None
        flag = (np.zeros(n, dtype=np.uint8) if is_pos is None
                else np.asarray(is_pos, dtype=np.bool_).ravel().view(np.uint8).copy())
        if flag.shape[0] != n:
            raise ValueError(f"{flag.shape[0]} labels for {n} held-out rows")
        self.flag = flag
        self.windows = np.asarray(windows, dtype=np.float64).reshape(-1, 2).copy()
        self.n_pos = int(flag.sum())
        if self.windows.shape[0] and not (0 < self.n_pos < n):
            raise ValueError(f"the criterion needs held-out rows of both classes, got "
                             f"{self.n_pos} positives among {n} rows")
        self.score = np.zeros(n)
        self.pos, self.neg = np.empty(max(1, self.n_pos)), np.empty(max(1, n - self.n_pos))
        self.order = np.empty(max(1, n), dtype=np.intp)
        self.leaf = np.empty(max(1, n), dtype=np.int32)
        self.no_knots = np.empty(0)

    @property
    def scores(self):
        """The raw scores after the trees added so far."""
        return np.asarray(self.score)[:self.n].copy()

    cdef void _add_tree(self, const int32_t *features, const int32_t *borders,
                        const double *values, int depth, double *loss,
                        double *criterion) noexcept nogil:
        cdef Py_ssize_t i, w, n = self.n, n_pos = self.n_pos, n_neg = self.n - self.n_pos
        cdef double m, total = 0.0, area = 0.0, mean = 0.0, lo, hi
        loss[0] = NAN
        criterion[0] = NAN
        if n == 0:
            return
        _leaves_of(&self.codes[0, 0], n, features, borders, depth, &self.leaf[0])
        for i in range(n):
            self.score[i] += values[self.leaf[i]]
        if not self.labelled:
            return
        for i in range(n):
            m = self.score[i] if self.flag[i] else -self.score[i]
            total += (-m if m < 0.0 else 0.0) + log1p(exp(-fabs(m)))
        loss[0] = total / n
        if self.windows.shape[0] == 0:
            return
        split_into(self.score[:n], self.flag, self.pos[:n_pos], self.neg[:n_neg])
        sort(&self.pos[0], &self.order[0], n_pos)
        sort(&self.neg[0], &self.order[0], n_neg)
        for w in range(self.windows.shape[0]):
            lo, hi = self.windows[w, 0], self.windows[w, 1]
            roc_walk(self.pos[:n_pos], self.neg[:n_neg], self.no_knots, self.no_knots,
                     self.no_knots, self.no_knots, self.no_knots, False, <double> n_pos,
                     <double> n_neg, lo, hi, 0.0, &area)
            mean += area / (hi - lo)
        criterion[0] = mean / self.windows.shape[0]


cdef class Grower:
    """Grows oblivious trees on quantised rows without the GIL
    (:mod:`pauc.gbm.engines._oblivious`, steps 1-4 of a round).

    Parameters
    ----------
    codes : uint8 array of shape (n_features, n_rows)
    n_bins, offsets : the quantiser's bins per feature and border offsets
    depth : int
    learning_rate, l2_leaf_reg, random_strength : float
    bootstrap : {"mvs", "bayesian", "none"}
    subsample, bagging_temperature : float
    cosine : bool
    rng : Random
        The stream every draw comes from, in this order per round: the
        bootstrap's ``n_rows`` uniforms (none when MVS keeps every row, or
        the temperature is 0), then ``offsets[-1]`` normals per level (none
        without random strength).
    sampled_leaves : bool, default=True
        Leaf values from the bootstrap's weighted rows (True), or from every
        row with unit weight (False: CatBoost's way -- the bootstrap chooses
        the tree's splits only).
    leaf_iterations : int, default=1
        Newton steps of a log-loss leaf value (:meth:`grow_logloss`): each
        ``a <- a - G(a) / (H(a) + l2_leaf_reg)`` with ``G``, ``H`` the leaf's
        log-loss derivatives at the scores plus ``a``, the leaf value then
        ``learning_rate * a`` (CatBoost's default leaf estimation with its
        automatic learning rate: 10 steps).  1: the one step of step 4, for
        any loss.
    strength_decay : bool, default=False
        The random strength fades as the model grows: tree ``t`` (from 0)
        draws its noise times ``1 / (1 + exp(t * learning_rate) / n_rows)``,
        about 1 until ``t * learning_rate`` nears ``log(n_rows)``, then falling
        (CatBoost's default ``random_score_type``): the early trees explore,
        the late ones, which refine a fitted model, are not chosen by noise.
    """

    cdef const uint8_t[:, ::1] codes
    cdef const int32_t[::1] n_bins
    cdef const int64_t[::1] offsets
    cdef Py_ssize_t n_rows, n_features, n_borders, max_bins
    cdef int depth, n_leaves, bootstrap
    cdef double lr, l2, strength, subsample, temperature
    cdef bint cosine, sampled_leaves
    cdef int leaf_iterations, n_trees
    cdef bint strength_decay
    cdef Random rng
    cdef double[::1] weight, wg, grad, hess, g_hat, ordered, noise
    cdef double[::1] hist, totals, NUM, DEN, leaf_g, leaf_h, leaf_a
    cdef int32_t[::1] leaf

    def __init__(self, const uint8_t[:, ::1] codes, const int32_t[::1] n_bins,
                 const int64_t[::1] offsets, int depth, double learning_rate,
                 double l2_leaf_reg, double random_strength, str bootstrap, double subsample,
                 double bagging_temperature, bint cosine, Random rng,
                 bint sampled_leaves=True, int leaf_iterations=1,
                 bint strength_decay=False):
        if bootstrap not in BOOTSTRAP_CODES:
            raise ValueError(f"bootstrap must be one of {tuple(BOOTSTRAP_CODES)}, "
                             f"got {bootstrap!r}")
        if codes.shape[0] == 0 or codes.shape[1] == 0:
            raise ValueError(f"a Grower needs rows and features, got codes of shape "
                             f"{tuple(codes.shape)}")
        n = codes.shape[1]
        max_bins = max(1, max(n_bins)) if n_bins.shape[0] else 1
        self.codes, self.n_bins, self.offsets = codes, n_bins, offsets
        self.n_rows, self.n_features = n, codes.shape[0]
        self.n_borders = offsets[offsets.shape[0] - 1]
        self.depth, self.n_leaves = depth, 1 << depth
        self.lr, self.l2, self.strength = learning_rate, l2_leaf_reg, random_strength
        self.bootstrap, self.subsample = BOOTSTRAP_CODES[bootstrap], subsample
        self.temperature, self.cosine, self.rng = bagging_temperature, cosine, rng
        self.sampled_leaves = sampled_leaves
        if leaf_iterations < 1:
            raise ValueError(f"leaf_iterations must be >= 1, got {leaf_iterations}")
        self.leaf_iterations = leaf_iterations
        self.strength_decay, self.n_trees = strength_decay, 0
        self.leaf_a = np.empty(self.n_leaves)
        self.weight, self.wg = np.empty(n), np.empty(n)
        self.grad, self.hess = np.empty(n), np.empty(n)
        self.g_hat, self.ordered = np.empty(n), np.empty(n)
        self.noise = np.zeros(max(1, self.n_borders))
        self.max_bins = max_bins
        self.hist = np.empty(2 * self.n_leaves * max_bins)
        self.totals = np.empty(2 * self.n_leaves)
        self.NUM, self.DEN = np.empty(max_bins), np.empty(max_bins)
        self.leaf_g, self.leaf_h = np.empty(self.n_leaves), np.empty(self.n_leaves)
        self.leaf = np.empty(n, dtype=np.int32)

    cdef void _weights(self, const double *grad, const double *hess) noexcept nogil:
        """Step 2: this round's bootstrap weights (0: left out) into ``weight``."""
        cdef Py_ssize_t i, n = self.n_rows
        cdef double reg = 0.0, mu, p
        cdef Xoshiro *gen = &self.rng.g
        if self.bootstrap == 1 and self.temperature > 0.0:     # Rubin (1981)
            for i in range(n):
                self.weight[i] = pow(-log(1.0 - xoshiro_uniform(gen)), self.temperature)
            return
        mu = 0.0
        if self.bootstrap == 0 and n > 0:
            # minimal variance sampling: g_hat = sqrt(g^2 + lambda h^2) with
            # lambda = mean(|g|)^2 (Ibragimov & Gusev 2019, Section 4)
            for i in range(n):
                reg += fabs(grad[i])
            reg = (reg / n) * (reg / n)
            for i in range(n):
                self.g_hat[i] = sqrt(grad[i] * grad[i] + reg * hess[i] * hess[i])
                self.ordered[i] = self.g_hat[i]
            mu = _mvs(&self.ordered[0], n, self.subsample * n)
        if mu <= 0.0:                    # no bootstrap, or every row kept
            for i in range(n):
                self.weight[i] = 1.0
            return
        for i in range(n):               # kept with probability p_i, weighted 1 / p_i
            p = self.g_hat[i] / mu
            if p > 1.0:
                p = 1.0
            self.weight[i] = (1.0 / (p if p > 1e-300 else 1e-300) if xoshiro_uniform(gen) < p
                              else 0.0)

    cdef void _tree(self, const double *grad, const double *hess, double *scores,
                    int32_t *features, int32_t *borders, double *values,
                    double *gains, const double *y=NULL) noexcept nogil:
        """Steps 2-4 for the gradient ``grad`` and Hessian diagonal ``hess``: one
        tree, its leaf values added to ``scores``."""
        cdef Py_ssize_t i, k, n = self.n_rows
        cdef int d, f, b
        cdef double sd = 0.0, before, after, w_tot = 0.0, g_tot = 0.0
        cdef Xoshiro *gen = &self.rng.g
        cdef Split split
        self._weights(grad, hess)
        for i in range(n):
            self.wg[i] = self.weight[i] * grad[i]
            self.leaf[i] = 0
            sd += grad[i] * grad[i]
            g_tot += self.wg[i]
            w_tot += self.weight[i]
        # random strength: noise of standard deviation strength * RMS gradient,
        # fading with the model's length (strength_decay)
        sd = self.strength * sqrt(sd / n) if n > 0 else 0.0
        if self.strength_decay and n > 0:
            sd = sd / (1.0 + exp(self.n_trees * self.lr - log(<double> n)))
        self.n_trees += 1
        before = g_tot * g_tot / (w_tot + self.l2)
        for d in range(self.depth):
            for k in range(self.n_borders):
                self.noise[k] = xoshiro_normal(gen) * sd if sd > 0.0 else 0.0
            split = _best_split(&self.codes[0, 0], n, self.n_features, &self.leaf[0],
                                &self.wg[0], &self.weight[0], &self.n_bins[0],
                                &self.offsets[0], 1 << d, self.max_bins, self.l2,
                                self.cosine,
                                &self.noise[0], &self.hist[0], &self.totals[0], &self.NUM[0],
                                &self.DEN[0])
            f, b, after = split.feature, split.border, split.l2_score
            if f < 0:                    # no feature has a border: every row stays left
                f, b, after = 0, 0, before
            _descend(&self.codes[f, 0], &self.leaf[0], n, b)
            features[d], borders[d] = f, b
            gains[d] = after - before if after > before else 0.0
            before = after
        # step 4: a Newton step on every leaf, -lr sum w g / (sum w h + lambda), the
        # weights the bootstrap's (sampled_leaves) or 1 for every row: the bootstrap
        # then only chooses the splits, and a leaf's value does not carry the
        # variance of the 1 / p weights of the rows sampling kept
        for k in range(self.n_leaves):
            self.leaf_g[k] = 0.0
            self.leaf_h[k] = 0.0
        if y != NULL and self.leaf_iterations > 1:
            self._logloss_leaves(y, scores, values)
        else:
            if self.sampled_leaves:
                for i in range(n):
                    self.leaf_g[self.leaf[i]] += self.wg[i]
                    self.leaf_h[self.leaf[i]] += self.weight[i] * hess[i]
            else:
                for i in range(n):
                    self.leaf_g[self.leaf[i]] += grad[i]
                    self.leaf_h[self.leaf[i]] += hess[i]
            for k in range(self.n_leaves):
                values[k] = -self.lr * self.leaf_g[k] / (self.leaf_h[k] + self.l2)
        for i in range(n):
            scores[i] += values[self.leaf[i]]

    cdef void _logloss_leaves(self, const double *y, const double *scores,
                              double *values) noexcept nogil:
        """Step 4 for log-loss with ``leaf_iterations`` Newton steps per leaf
        (class docstring): the l2 penalty damps each step (it is not in the
        gradient), so the steps walk towards the leaf's unpenalised optimum."""
        cdef Py_ssize_t i, n = self.n_rows
        cdef int k, it
        cdef double p, w
        for k in range(self.n_leaves):
            self.leaf_a[k] = 0.0
        for it in range(self.leaf_iterations):
            for k in range(self.n_leaves):
                self.leaf_g[k] = 0.0
                self.leaf_h[k] = 0.0
            for i in range(n):
                k = self.leaf[i]
                w = self.weight[i] if self.sampled_leaves else 1.0
                p = 1.0 / (1.0 + exp(-(scores[i] + self.leaf_a[k])))
                self.leaf_g[k] += w * (p - y[i])
                self.leaf_h[k] += w * p * (1.0 - p)
            for k in range(self.n_leaves):
                self.leaf_a[k] -= self.leaf_g[k] / (self.leaf_h[k] + self.l2)
        for k in range(self.n_leaves):
            values[k] = self.lr * self.leaf_a[k]

    def grow(self, const double[::1] grad, const double[::1] hess, double[::1] scores,
             int32_t[:, ::1] features, int32_t[:, ::1] borders, double[:, ::1] values,
             double[:, ::1] gains, HeldOut held_out, double[::1] losses, double[::1] criteria):
        """One tree for the gradient ``grad`` and Hessian diagonal ``hess`` of
        any loss at ``scores`` (updated in place), written into row 0 of the
        outputs of :meth:`grow_logloss`."""
        self._check(1, scores, features, values, gains, held_out, losses, criteria)
        if grad.shape[0] != self.n_rows or hess.shape[0] != self.n_rows:
            raise ValueError(f"grad and hess need {self.n_rows} rows")
        with nogil:
            self._tree(&grad[0], &hess[0], &scores[0], &features[0, 0], &borders[0, 0],
                       &values[0, 0], &gains[0, 0])
            held_out._add_tree(&features[0, 0], &borders[0, 0], &values[0, 0], self.depth,
                               &losses[0], &criteria[0])

    def grow_logloss(self, const double[::1] y, double[::1] scores, int n_rounds,
                     int32_t[:, ::1] features, int32_t[:, ::1] borders,
                     double[:, ::1] values, double[:, ::1] gains, HeldOut held_out,
                     double[::1] losses, double[::1] criteria):
        """``n_rounds`` trees of log-loss (step 1: ``g = p - y``, ``h = p (1 -
        p)``, ``p = 1 / (1 + exp(-score))``), row ``t`` of each output per round
        (levels, levels, ``2 ** depth`` leaf values, gains); ``losses[t]`` and
        ``criteria[t]``: the held-out rows' log-loss and criterion after tree
        ``t`` (:class:`HeldOut`)."""
        cdef Py_ssize_t i, t, n = self.n_rows
        cdef double p
        self._check(n_rounds, scores, features, values, gains, held_out, losses, criteria)
        if y.shape[0] != n:
            raise ValueError(f"y needs {n} rows")
        with nogil:
            for t in range(n_rounds):
                for i in range(n):
                    p = 1.0 / (1.0 + exp(-scores[i]))
                    self.grad[i] = p - y[i]
                    self.hess[i] = p * (1.0 - p)
                self._tree(&self.grad[0], &self.hess[0], &scores[0], &features[t, 0],
                           &borders[t, 0], &values[t, 0], &gains[t, 0], &y[0])
                held_out._add_tree(&features[t, 0], &borders[t, 0], &values[t, 0],
                                   self.depth, &losses[t], &criteria[t])

    def weights(self, const double[::1] grad, const double[::1] hess):
        """One round's bootstrap weights for ``grad, hess`` (drawn from the stream)."""
        if grad.shape[0] != self.n_rows or hess.shape[0] != self.n_rows:
            raise ValueError(f"grad and hess need {self.n_rows} rows")
        with nogil:
            self._weights(&grad[0], &hess[0])
        return np.asarray(self.weight).copy()

    def _check(self, Py_ssize_t n_rounds, scores, features, values, gains, HeldOut held_out,
               losses, criteria):
        """The outputs' shapes for ``n_rounds`` trees (a ValueError naming them)."""
        if (scores.shape[0] != self.n_rows or features.shape[0] < n_rounds
                or features.shape[1] != self.depth or values.shape[1] != self.n_leaves
                or values.shape[0] < n_rounds or gains.shape[0] < n_rounds
                or gains.shape[1] != self.depth or held_out.codes.shape[0] != self.n_features
                or losses.shape[0] < n_rounds or criteria.shape[0] < n_rounds):
            raise ValueError(
                f"Grower of {self.n_rows} rows, {self.n_features} features, depth "
                f"{self.depth}: for {n_rounds} trees got scores of {scores.shape[0]} rows, "
                f"levels {tuple(features.shape)}, values {tuple(values.shape)}, gains "
                f"{tuple(gains.shape)}, held-out rows of {held_out.codes.shape[0]} features, "
                f"{losses.shape[0]} losses and {criteria.shape[0]} criteria")


def descend(const uint8_t[:, ::1] codes, int32_t[::1] leaf, int feature, int border):
    """One level down: ``leaf = 2 leaf + (code of feature > border)``, in place."""
    with nogil:
        _descend(&codes[feature, 0], &leaf[0], codes.shape[1], border)


def leaves_of(const uint8_t[:, ::1] codes, const int32_t[::1] features,
              const int32_t[::1] borders):
    """Each row's leaf in the tree asking ``features[d] > borders[d]`` at level ``d``."""
    out = np.zeros(codes.shape[1], dtype=np.int32)
    cdef int32_t[::1] leaf = out
    if codes.shape[1] > 0:
        with nogil:
            _leaves_of(&codes[0, 0], codes.shape[1], &features[0], &borders[0],
                       features.shape[0], &leaf[0])
    return out


def add_trees(const uint8_t[:, ::1] codes, const int32_t[:, ::1] features,
              const int32_t[:, ::1] borders, const double[:, ::1] values,
              Py_ssize_t start, Py_ssize_t stop, double[::1] scores):
    """Add trees ``start .. stop - 1`` (rows of ``features``, ``borders``,
    ``values``) to ``scores``, in place."""
    cdef Py_ssize_t i, t, n_rows = codes.shape[1]
    cdef int32_t[::1] leaf = np.empty(n_rows, dtype=np.int32)
    if n_rows == 0:
        return
    with nogil:
        for t in range(start, stop):
            _leaves_of(&codes[0, 0], n_rows, &features[t, 0], &borders[t, 0],
                       features.shape[1], &leaf[0])
            for i in range(n_rows):
                scores[i] += values[t, leaf[i]]
