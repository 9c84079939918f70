# cython: language_level=3
"""Value, gradient and Hessian diagonal of the window losses (hot loops of boosting).

A *window loss* averages a pairwise loss ``l(s_i - s_j)`` over the pairs of a
positive ``i`` and a *window negative* ``j``: a negative ranked ``j_alpha + 1
.. j_beta`` among the ``n`` training negatives by the current scores (highest
first), with ``j_alpha = floor(n alpha)`` and ``j_beta = ceil(n beta)``
(Narasimhan & Agarwal, eq. (2)):

.. math::

    L(s) = \\frac{1}{m (j_\\beta - j_\\alpha)} \\sum_{i \\in P}
           \\sum_{j \\in W(s)} \\ell(s_i - s_j),

``m`` positives, ``W(s)`` the window.  The window moves with the scores: this
is what makes the loss target the FPR range ``[alpha, beta]`` (for ``(0, 1)``
it is the plain pairwise AUC surrogate).  Never an ``m x k`` matrix: every
loss here costs a selection of the window's two borders (``numpy.partition``,
O(n)) plus O(n) (exponential, log-loss) or one sort of the positives and the
top ``j_beta`` negatives (squared hinge, tight hinge).

Ties and the window's edge
--------------------------
Negatives whose score ties with a border of the window share the border's
places.  If the tie group of score ``v`` holds ``g`` negatives and ``a``
negatives score strictly above ``v``, the group occupies positions ``a + 1
.. a + g`` and the window covers ``c = |{a+1..a+g} ∩ {j_alpha+1..j_beta}|`` of
them; every negative of the group then counts with weight ``omega = c / g``
(interior negatives of the window weigh 1, the others 0).  This is the
average over every order of the tied negatives, so it depends on no row
order, and it is a convex combination of the gradients of the pieces that
meet at the tie (an element of the Clarke subdifferential of the loss there).
The *value* of the loss is the same for every order of the ties, and equals
``sum_i sum_j omega_j l(s_i - s_j)`` (the tests check both against an
enumeration of every order on small problems).  At the first call of a
boosting run all scores tie, so every negative starts with weight
``(j_beta - j_alpha) / n``.

A tie between a positive and a negative, ``s_i = s_j``, is an ordinary point
of the smooth losses (margin 0).

The losses
----------
* :func:`exponential` -- ``l(t) = exp(-t)`` (RankBoost's pairwise loss,
  Freund et al. 2003).  It factorises: ``sum_i sum_j omega_j exp(s_j - s_i)
  = (sum_i exp(-s_i)) (sum_j omega_j exp(s_j))``, so the gradient is
  ``-exp(-s_i) B / N`` on positives and ``omega_j exp(s_j) A / N`` on
  negatives (``A``, ``B`` the two sums, ``N = m (j_beta - j_alpha)``), and the
  Hessian diagonal is their absolute value, exactly.  Sums are taken with the
  largest exponent factored out; ``normalize=True`` divides the gradient and
  the Hessian by the largest absolute gradient, so that they never overflow
  (a Newton step ``-sum g / sum h`` does not change).
* :func:`squared_hinge` -- ``l(t) = max(0, 1 - t)^2``.  Positive ``i``'s
  terms need the window negatives with ``s_j > s_i - 1`` (their weight, sum
  and sum of squares); negative ``j``'s need the positives with ``s_i - 1 <
  s_j``.  Both are prefix sums of the sorted lists (one merge each).  The
  loss is once differentiable; its Hessian diagonal is ``2 sum_j omega_j``
  over the active pairs (the second derivative ``2 * [t < 1]``; at ``t = 1``
  exactly the pair counts as inactive).  Activity is decided with the
  floating-point test ``s_j > s_i - 1`` everywhere.
* :func:`tight_hinge` -- the tight structural surrogate of the partial AUC
  (eq. (14) for ``j_alpha = 0``, eq. (18) otherwise), whose value at the
  scores is ``Delta - s . coef`` for the most violated constraint ``(coef,
  Delta)`` of :func:`pauc.svm.oracles.pauc_tight_oracle`; its subgradient in
  the scores is ``-coef``.  Ties at ``j_beta`` are broken as the oracle
  breaks them (row order; every choice gives a subgradient).  It is
  piecewise linear, so its Hessian is zero almost everywhere; we use the
  constant diagonal of ``(1 / N) sum_{i, j} (1/2) (s_i - s_j)^2`` over every
  pair of a positive and one of the top ``j_beta`` negatives, i.e. ``1 / m``
  on positives and ``omega_j / (j_beta - j_alpha)`` on negatives
  (``omega_j`` their share of the top ``j_beta``, with the tie rule above):
  a Newton step is then a gradient step on the scale of the margin.
* :func:`logloss` -- the binary cross-entropy ``mean_i log(1 + exp(-y_i
  s_i))`` (labels ``+-1``), gradient ``(p_i - [y_i = 1]) / n`` and Hessian
  ``p_i (1 - p_i) / n`` with ``p = sigmoid(s)``: the usual baseline, and the
  other half of a mixture ``logloss + lambda * window loss``.

Every kernel *adds* ``scale`` times its gradient and ``scale * curvature``
times its Hessian diagonal into float64 arrays given by the caller (so that a
mixture is two calls on the same arrays), and returns the loss value
(unscaled).  The diagonal above is exact; :mod:`pauc.objectives` passes
``curvature=2`` for the pairwise losses, the diagonal *majorizer* of their
Hessian: a pair's Hessian ``l''(t) [[1, -1], [-1, 1]]`` is at most
``2 l''(t) I``, and a tree that moves a positive and a negative in opposite
directions meets exactly that curvature.  Scores are float32 or
float64; sums are float64.  No input checks here: :mod:`pauc.objectives`
validates.

References
----------
Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for Optimizing the
Partial Area Under the ROC Curve." Neural Computation 29(7), 2017.

Freund, Y., Iyer, R., Schapire, R. E. and Singer, Y. "An Efficient Boosting
Algorithm for Combining Preferences." JMLR 4, 2003.
"""

import numpy as np

from libc.math cimport exp, log, log1p, INFINITY, NAN
from libc.stdlib cimport free, malloc

from .._sort cimport sort

from .._ranking import split_by_label
from ._structural import sorted_candidates, tight_cut

ctypedef fused floating:
    float
    double


cdef struct Window:
    # The window's border scores: v_top is the score at position j_alpha + 1,
    # v_bot the score at position j_beta (highest first), and the weight of a
    # negative tied with each (the share of its tie group inside the window).
    double v_top
    double v_bot
    double w_top
    double w_bot
    Py_ssize_t above_bot    # negatives scored above v_bot
    Py_ssize_t tied_bot     # negatives scored v_bot


cdef inline double _omega(double z, const Window* w) noexcept nogil:
    """Weight of a negative scored ``z`` in the window (see "Ties"; the rule is
    ``window_weight`` of ``_window.pxd``, shared with the distributed kernels)."""
    return window_weight(z, w.v_top, w.v_bot, w.w_top, w.w_bot)


def window_share(Py_ssize_t above, Py_ssize_t tied, Py_ssize_t j_alpha, Py_ssize_t j_beta):
    """Share of the positions ``above + 1 .. above + tied`` inside the window
    ``j_alpha + 1 .. j_beta``: the weight of each negative of a tie group at a
    border (see "Ties"; the distributed window's client reads it here)."""
    return tie_share(above, tied, j_alpha, j_beta)


cdef void _count(const floating[::1] neg, double v_top, double v_bot,
                 Py_ssize_t* counts) noexcept nogil:
    """Negatives above / tied with each border, in one pass."""
    cdef Py_ssize_t k
    cdef double z
    counts[0] = counts[1] = counts[2] = counts[3] = 0
    for k in range(neg.shape[0]):
        z = neg[k]
        counts[0] += z > v_top
        counts[1] += z == v_top
        counts[2] += z > v_bot
        counts[3] += z == v_bot


cdef Window _window(scores, is_pos, Py_ssize_t j_alpha, Py_ssize_t j_beta):
    """The borders of the window: a selection in the negatives' scores, O(n).

    Two single-position ``numpy.partition`` calls (numpy's vectorised
    selection; a call with two positions falls back to a scalar introselect
    an order of magnitude slower): first the bottom border, then the top
    border among the negatives above it.
    """
    cdef Window w
    cdef Py_ssize_t counts[4]
    neg = split_by_label(np.asarray(scores), np.asarray(is_pos).view(np.bool_))[1]
    cdef Py_ssize_t n_neg = neg.shape[0]
    cdef Py_ssize_t top = n_neg - j_alpha - 1, bot = n_neg - j_beta   # ascending positions
    neg.partition(bot)
    w.v_bot = neg[bot]
    upper = neg[bot:]
    if top == n_neg - 1:
        w.v_top = upper.max()
    elif top > bot:
        upper.partition(top - bot)
        w.v_top = upper[top - bot]
    else:
        w.v_top = w.v_bot
    cdef double[::1] neg64
    cdef float[::1] neg32
    if neg.dtype == np.float32:
        neg32 = neg
        with nogil:
            _count(neg32, w.v_top, w.v_bot, counts)
    else:
        neg64 = neg
        with nogil:
            _count(neg64, w.v_top, w.v_bot, counts)
    w.w_top = tie_share(counts[0], counts[1], j_alpha, j_beta)
    w.w_bot = tie_share(counts[2], counts[3], j_alpha, j_beta)
    w.above_bot = counts[2]
    w.tied_bot = counts[3]
    return w


def window_weights(const floating[::1] scores, const unsigned char[::1] is_pos,
                   Py_ssize_t j_alpha, Py_ssize_t j_beta):
    """``omega`` per row: the weight of each negative in the window, 0 on positives.

    Sums to ``j_beta - j_alpha``; the rule at ties is in the module docstring.
    """
    cdef Window w = _window(scores, is_pos, j_alpha, j_beta)
    out = np.zeros(scores.shape[0], dtype=np.float64)
    cdef double[::1] omega = out
    cdef Py_ssize_t k
    with nogil:
        for k in range(scores.shape[0]):
            if not is_pos[k]:
                omega[k] = _omega(scores[k], &w)
    return out


# --------------------------------------------------------------------------
# Exponential: factorised, O(n) after the selection
# --------------------------------------------------------------------------

def exponential(const floating[::1] scores, const unsigned char[::1] is_pos,
                Py_ssize_t n_pos, Py_ssize_t j_alpha, Py_ssize_t j_beta,
                double[::1] grad, double[::1] hess, double scale=1.0,
                bint normalize=False, double curvature=1.0):
    """Window exponential loss ``(1/N) sum_i sum_j omega_j exp(s_j - s_i)``.

    Adds ``scale * gradient`` and ``scale * curvature * Hessian diagonal`` into
    ``grad`` and ``hess`` (both divided by the largest absolute gradient entry
    with ``normalize``); returns the loss (``inf`` when it overflows a float64).
    """
    cdef Window w = _window(scores, is_pos, j_alpha, j_beta)
    cdef Py_ssize_t k, n = scores.shape[0]
    cdef double inv_n = 1.0 / (<double> n_pos * <double> (j_beta - j_alpha))
    cdef double lo_pos = INFINITY, sum_pos = 0.0, sum_neg = 0.0, om, z, e
    cdef double log_a, log_b, log_max, log_f, c_pos, c_neg, max_neg = 0.0
    work_arr = np.empty(n, dtype=np.float64)
    cdef double[::1] work = work_arr
    with nogil:
        # A = sum_i exp(-s_i) = exp(-lo_pos) * sum_i exp(-(s_i - lo_pos)),
        # B = sum_j omega_j exp(s_j) = exp(v_top) * sum_j omega_j exp(s_j - v_top):
        # the largest term of each sum is factored out, no overflow.  Each
        # row's term is kept in ``work``: one exp per row.
        for k in range(n):
            if is_pos[k] and scores[k] < lo_pos:
                lo_pos = scores[k]
        for k in range(n):
            z = scores[k]
            if is_pos[k]:
                e = exp(lo_pos - z)
                sum_pos += e
            else:
                om = _omega(z, &w)
                e = om * exp(z - w.v_top) if om > 0.0 else 0.0
                sum_neg += e
                if e > max_neg:
                    max_neg = e
            work[k] = e
        log_a = log(sum_pos) - lo_pos
        log_b = log(sum_neg) + w.v_top
        # the largest |gradient| entry: a positive at lo_pos (exp(-lo_pos) B) or a
        # window negative (omega exp(z) A), in logs
        log_max = -lo_pos + log_b
        if log(max_neg) + w.v_top + log_a > log_max:
            log_max = log(max_neg) + w.v_top + log_a
        log_f = log(scale) - (log_max if normalize else
                              log(<double> n_pos * <double> (j_beta - j_alpha)))
        # gradient of a positive: -exp(-s_i) B = -work * exp(-lo_pos + log_b);
        # of a negative: omega exp(s_j) A = work * exp(v_top + log_a)
        c_pos = exp(log_f - lo_pos + log_b)
        c_neg = exp(log_f + w.v_top + log_a)
        for k in range(n):
            if is_pos[k]:
                e = work[k] * c_pos
                grad[k] -= e
                hess[k] += curvature * e
            elif work[k] > 0.0:
                e = work[k] * c_neg
                grad[k] += e
                hess[k] += curvature * e
    return exp(log_a + log_b) * inv_n


# --------------------------------------------------------------------------
# Squared hinge: prefix sums over the sorted window
# --------------------------------------------------------------------------

cdef double _squared_hinge_walk(const double* values, const int* rows, Py_ssize_t n,
                                Py_ssize_t size, const Window* w, double f, double fh,
                                double* grad, double* hess) noexcept nogil:
    """Negatives ``values[:size]`` (the top of the list, window and above it)
    and positives ``values[size:n]``, each ascending.  Adds ``f`` times the
    gradient and ``fh`` times the Hessian diagonal of ``sum_i sum_j omega_j max(0, s_j - (s_i - 1))^2``
    (no Hessian when ``hess`` is NULL); returns that sum.

    Scores are centred at ``v_bot`` (``u = z - v_bot``) before squaring, so
    that the expansion ``sum (u + a)^2 = S2 + 2 a S1 + a^2 S0`` does not cancel
    large scores against each other.
    """
    cdef Py_ssize_t i, t = size - 1, q
    cdef double c = w.v_bot, p_m1, a, u, om
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, total = 0.0, t0 = 0.0, t1 = 0.0
    # Positives from the top down: the active negatives {z > p - 1} only grow.
    for i in range(n - 1, size - 1, -1):
        p_m1 = values[i] - 1.0
        while t >= 0 and values[t] > p_m1:
            om = _omega(values[t], w)
            u = values[t] - c
            s0 += om
            s1 += om * u
            s2 += om * u * u
            t -= 1
        a = c - p_m1
        total += s2 + 2.0 * a * s1 + a * a * s0
        grad[rows[i]] -= 2.0 * f * (s1 + a * s0)
        if hess != NULL:
            hess[rows[i]] += 2.0 * fh * s0
    # Negatives from the bottom up: the active positives {p - 1 < z} only grow.
    q = size
    for t in range(size):
        om = _omega(values[t], w)
        while q < n and values[q] - 1.0 < values[t]:
            t0 += 1.0
            t1 += c - (values[q] - 1.0)
            q += 1
        if om > 0.0:
            u = values[t] - c
            grad[rows[t]] += 2.0 * f * om * (t0 * u + t1)
            if hess != NULL:
                hess[rows[t]] += 2.0 * fh * om * t0
    return total


def squared_hinge(const floating[::1] scores, const unsigned char[::1] is_pos,
                  Py_ssize_t n_pos, Py_ssize_t j_alpha, Py_ssize_t j_beta,
                  double[::1] grad, double[::1] hess, double scale=1.0,
                  double curvature=1.0):
    """Window squared hinge ``(1/N) sum_i sum_j omega_j max(0, 1 - (s_i - s_j))^2``.

    Adds ``scale`` times its gradient and ``scale * curvature`` times its
    Hessian diagonal into ``grad`` and ``hess``; returns the loss.  One sort of the positives and of the
    negatives down to the window's bottom border.
    """
    cdef Window w = _window(scores, is_pos, j_alpha, j_beta)
    cdef Py_ssize_t size = w.above_bot + w.tied_bot
    cdef double inv_n = 1.0 / (<double> n_pos * <double> (j_beta - j_alpha))
    # The negatives scored >= v_bot, then the positives, each ascending, by the
    # structural SVM's packed-key sort (it writes 0 into ``scratch`` for the
    # negatives it leaves out).
    scratch = np.empty(scores.shape[0], dtype=np.float64)
    values_arr, rows_arr = sorted_candidates(scores, is_pos, size, w.v_bot, w.tied_bot,
                                             scratch)
    cdef const double[::1] values = values_arr
    cdef const int[::1] rows = rows_arr
    cdef double total
    with nogil:
        total = _squared_hinge_walk(&values[0], &rows[0], values.shape[0], size, &w,
                                    scale * inv_n, scale * curvature * inv_n, &grad[0],
                                    &hess[0])
    return total * inv_n


# --------------------------------------------------------------------------
# Tight hinge: the structural SVM's subgradient, a constant Hessian
# --------------------------------------------------------------------------

def tight_hinge(const floating[::1] scores, const unsigned char[::1] is_pos,
                Py_ssize_t n_pos, Py_ssize_t j_alpha, Py_ssize_t j_beta,
                double[::1] grad, double[::1] hess, double scale=1.0,
                double curvature=1.0):
    """Tight structural surrogate ``Delta - s . coef`` (eqs. (14), (18)).

    Adds ``-scale * coef`` into ``grad`` and ``scale * curvature`` times the
    constant Hessian of the module docstring into ``hess``; returns the
    surrogate.
    """
    # the search of pauc.svm.oracles.pauc_tight_oracle, without its input checks
    # (pauc.objectives validated the labels once; the scores are LightGBM's)
    coef, loss = tight_cut(scores, is_pos, n_pos, j_alpha, j_beta)
    cdef const double[::1] c = coef
    # the top j_beta negatives (their shares at a tie): the window (0, j_beta)
    cdef Window top = _window(scores, is_pos, 0, j_beta)
    cdef double h_pos = scale * curvature / n_pos
    cdef double h_neg = scale * curvature / (j_beta - j_alpha)
    cdef double value = 0.0
    cdef Py_ssize_t k
    with nogil:
        for k in range(scores.shape[0]):
            value += scores[k] * c[k]
            grad[k] -= scale * c[k]
            if is_pos[k]:
                hess[k] += h_pos
            else:
                hess[k] += h_neg * _omega(scores[k], &top)
    return loss - value


# --------------------------------------------------------------------------
# Log-loss: the pointwise baseline
# --------------------------------------------------------------------------

def logloss(const floating[::1] scores, const unsigned char[::1] is_pos,
            double[::1] grad, double[::1] hess, double scale=1.0, bint with_value=True):
    """Mean binary cross-entropy ``(1/n) sum_i log(1 + exp(-y_i s_i))``, ``y = +-1``.

    Adds ``scale`` times its gradient ``(sigmoid(s) - [positive]) / n`` and
    Hessian ``sigmoid(s) (1 - sigmoid(s)) / n`` into ``grad`` and ``hess``;
    returns the loss, or NaN with ``with_value=False`` (the ``log1p`` of the
    value costs as much as the rest: LightGBM only needs the derivatives).
    """
    cdef Py_ssize_t k, n = scores.shape[0]
    cdef double f = scale / n, total = 0.0, s, e, p, m
    with nogil:
        for k in range(n):
            s = scores[k]
            # e = exp(-|s|) gives both log(1 + exp(-y s)) and sigmoid(s) without
            # overflow, one exp per row
            e = exp(-s if s >= 0 else s)
            p = 1.0 / (1.0 + e) if s >= 0 else e / (1.0 + e)
            if with_value:
                m = s if is_pos[k] else -s          # the margin y s
                total += log1p(e) + (-m if m < 0 else 0.0)
            grad[k] += f * (p - (1.0 if is_pos[k] else 0.0))
            hess[k] += f * p * (1.0 - p)
    return total / n if with_value else NAN


# --------------------------------------------------------------------------
# Squared hinge for pauc.torch: value and gradient in one C pass, no Hessian
# --------------------------------------------------------------------------

cdef double _kth_smallest(double* a, Py_ssize_t* scratch, Py_ssize_t n,
                         Py_ssize_t k) noexcept nogil:
    """The ``k``-th smallest of ``a[:n]`` (0-based), ``a`` reordered: Hoare's
    selection, expected O(n); equal values are swapped across the pivot, so many
    ties do not unbalance it.  Orders that defeat the middle pivot (scores that
    rise then fall) would make it quadratic: after ``2 log2(n)`` partitions the
    rest is sorted (introselect; O(n log n) at worst; ``scratch`` holds ``n``
    indices for the sort)."""
    cdef Py_ssize_t lo = 0, hi = n - 1, i, j, budget = 8
    cdef double pivot, t
    i = n
    while i > 1:                     # 2 log2(n) partitions, then the sort
        budget += 2
        i >>= 1
    while lo < hi:
        if budget == 0:
            sort(a + lo, scratch, hi - lo + 1)
            return a[k]
        budget -= 1
        pivot = a[lo + (hi - lo) // 2]
        i, j = lo, hi
        while i <= j:
            while a[i] < pivot:
                i += 1
            while a[j] > pivot:
                j -= 1
            if i <= j:
                t = a[i]
                a[i] = a[j]
                a[j] = t
                i += 1
                j -= 1
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:                        # j < k < i: a[k] equals the pivot
            return a[k]
    return a[k]


cdef double _squared_hinge_batch(double* neg, Py_ssize_t* neg_rows, Py_ssize_t n_neg,
                                 double* pos, Py_ssize_t* pos_rows, Py_ssize_t n_pos,
                                 Py_ssize_t j_alpha, Py_ssize_t j_beta, double* scratch,
                                 Py_ssize_t* index_scratch, double* values, int* rows,
                                 double* grad) noexcept nogil:
    """The window squared hinge of the negatives ``neg`` and positives ``pos``
    (with their rows; both reordered here): :func:`_window`'s borders and shares,
    then :func:`_squared_hinge_walk` without the Hessian on the layout it reads
    (laid out in ``values`` and ``rows``), the gradient added into ``grad`` by
    row.  ``scratch`` and ``index_scratch`` hold ``n_neg`` doubles and indices
    (the selection's).  Returns the loss.

    Only the negatives down to the bottom border are sorted: a selection finds
    the border, one pass keeps the negatives at or above it.  On a training
    batch (a few hundred rows, a window of a few dozen negatives) the sort of
    every negative was most of the loss's time."""
    cdef Py_ssize_t top = n_neg - j_alpha - 1, bot = n_neg - j_beta, size = 0, above = 0
    cdef Py_ssize_t first, k, c_above = 0, c_tied = 0
    cdef double inv_n = 1.0 / (<double> n_pos * <double> (j_beta - j_alpha)), z
    cdef Window w
    for k in range(n_neg):
        scratch[k] = neg[k]
    w.v_bot = _kth_smallest(scratch, index_scratch, n_neg, bot)
    # the negatives scored >= v_bot, kept in place (size <= k: nothing is overwritten
    # before it is read)
    for k in range(n_neg):
        z = neg[k]
        if z >= w.v_bot:
            above += z > w.v_bot
            neg[size] = z
            neg_rows[size] = neg_rows[k]
            size += 1
    sort(neg, neg_rows, size)
    sort(pos, pos_rows, n_pos)
    first = n_neg - size             # the ascending position of neg[0] among all negatives
    w.v_top = neg[top - first]
    for k in range(size):
        z = neg[k]
        c_above += z > w.v_top
        c_tied += z == w.v_top
    w.w_top = tie_share(c_above, c_tied, j_alpha, j_beta)
    w.w_bot = tie_share(above, size - above, j_alpha, j_beta)
    w.above_bot = above
    w.tied_bot = size - above
    # the negatives scored >= v_bot, then the positives, each ascending
    for k in range(size):
        values[k] = neg[k]
        rows[k] = <int> neg_rows[k]
    for k in range(n_pos):
        values[size + k] = pos[k]
        rows[size + k] = <int> pos_rows[k]
    return _squared_hinge_walk(values, rows, size + n_pos, size, &w, inv_n, 0.0, grad,
                               NULL) * inv_n


cdef struct _Batch:
    # one allocation for a batch of n rows: the classes' scores and rows (the
    # negatives first, the positives after them), the selection's scratch, the
    # gradient in float64 and the walk's layout
    double* score
    Py_ssize_t* row
    double* scratch
    Py_ssize_t* index_scratch
    double* grad
    double* values
    int* rows


cdef void* _batch(_Batch* b, Py_ssize_t n) noexcept nogil:
    """Lay out ``b`` for ``n`` rows; returns the block to ``free`` (NULL when the
    memory is not there)."""
    cdef Py_ssize_t m = n if n > 0 else 1
    cdef char* block = <char*> malloc(m * (4 * sizeof(double) + 2 * sizeof(Py_ssize_t)
                                           + sizeof(int)))
    if block == NULL:
        return NULL
    b.score = <double*> block
    b.scratch = b.score + m
    b.grad = b.scratch + m
    b.values = b.grad + m
    b.row = <Py_ssize_t*> (b.values + m)
    b.index_scratch = b.row + m
    b.rows = <int*> (b.index_scratch + m)
    return block


def squared_hinge_gradient(const floating[::1] scores, const unsigned char[::1] is_pos,
                           Py_ssize_t n_pos, Py_ssize_t j_alpha, Py_ssize_t j_beta,
                           double[::1] grad):
    """:func:`squared_hinge` (``scale=1``) without its Hessian, for one small batch.

    The same window (borders, tie shares), the same sorted lists and the same
    walk as :func:`squared_hinge`, in the same arithmetic (the value and the
    gradient are bit for bit those of :func:`squared_hinge`), but every step
    in C on one allocation: a selection of the bottom border and a sort of the
    negatives above it, which on the batches of a network's training step (a
    few hundred rows) cost less than the numpy calls of the boosting kernel.
    Adds the gradient into ``grad``; returns the loss.
    """
    cdef Py_ssize_t n = scores.shape[0], n_neg = n - n_pos, k, np_ = n_neg, nn = 0
    cdef double total
    cdef _Batch b
    cdef void* block = _batch(&b, n)
    if block == NULL:
        raise MemoryError()
    with nogil:
        for k in range(n):
            if is_pos[k]:
                b.score[np_] = scores[k]
                b.row[np_] = k
                np_ += 1
            else:
                b.score[nn] = scores[k]
                b.row[nn] = k
                nn += 1
        total = _squared_hinge_batch(b.score, b.row, n_neg, b.score + n_neg, b.row + n_neg,
                                     n_pos, j_alpha, j_beta, b.scratch, b.index_scratch,
                                     b.values, b.rows, &grad[0])
    free(block)
    return total


ctypedef fused label_t:
    unsigned char
    int
    long long
    float
    double


def batch_flags(const floating[::1] scores, const label_t[::1] labels,
                unsigned char[::1] flags):
    """One pass over a batch for :mod:`pauc.torch`: ``flags[k] = labels[k] == 1``;
    returns the number of positives, or -1 when a label is neither 0 nor 1
    (NaN included), or -2 when the labels are valid and a score is not finite."""
    cdef Py_ssize_t k, n = scores.shape[0], n_pos = 0
    cdef bint bad_label = False, not_finite = False
    cdef double z
    with nogil:
        for k in range(n):
            if labels[k] == 1:
                flags[k] = 1
                n_pos += 1
            else:
                flags[k] = 0
                bad_label |= not (labels[k] == 0)
            z = scores[k]
            not_finite |= not (z - z == 0.0)     # NaN and +-inf give NaN
    if bad_label:
        return -1
    if not_finite:
        return -2
    return n_pos


def squared_hinge_batch(const floating[::1] scores, const label_t[::1] labels,
                        floating[::1] grad, indices):
    """A training batch's window squared hinge for :mod:`pauc.torch`, in one call.

    One pass checks the labels (0/1) and the scores (finite) as
    :func:`batch_flags` does and splits the classes; ``indices(n_neg)`` gives
    ``(j_alpha, j_beta)``; then :func:`squared_hinge_gradient`'s sorts and walk
    (the same value and gradient, bit for bit), the gradient written into
    ``grad`` in the scores' precision (rounded once from float64).  Returns
    ``(status, value)``: status -1 for a label other than 0/1 (NaN included),
    -2 for valid labels and a score that is not finite, 0 when a class is
    missing (``grad`` untouched), 1 otherwise.
    """
    cdef Py_ssize_t n = scores.shape[0], k, n_pos = 0, n_neg = 0, j_alpha, j_beta
    cdef bint bad_label = False, not_finite = False
    cdef double z, total
    cdef _Batch b
    # the negatives fill the block up from its start, the positives down from its end:
    # one pass, before the counts are known
    cdef void* block = _batch(&b, n)
    if block == NULL:
        raise MemoryError()
    try:
        with nogil:
            for k in range(n):
                z = scores[k]
                not_finite |= not (z - z == 0.0)     # NaN and +-inf give NaN
                b.grad[k] = 0.0
                if labels[k] == 1:
                    n_pos += 1
                    b.score[n - n_pos] = z
                    b.row[n - n_pos] = k
                else:
                    bad_label |= not (labels[k] == 0)
                    b.score[n_neg] = z
                    b.row[n_neg] = k
                    n_neg += 1
        if bad_label:
            return -1, 0.0
        if not_finite:
            return -2, 0.0
        if n_pos == 0 or n_neg == 0:
            return 0, 0.0
        j_alpha, j_beta = indices(n_neg)
        with nogil:
            total = _squared_hinge_batch(b.score, b.row, n_neg, b.score + n_neg,
                                         b.row + n_neg, n_pos, j_alpha, j_beta, b.scratch,
                                         b.index_scratch, b.values, b.rows, b.grad)
            for k in range(n):
                grad[k] = <floating> b.grad[k]
        return 1, total
    finally:
        free(block)
