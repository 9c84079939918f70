# cython: language_level=3
# The C-level contract of pauc._ranking: the sort-based counting loops, for any
# Cython module of the package to cimport instead of writing its own copy.
# Every routine takes arrays already sorted ascending where it says so, runs
# without the GIL and allocates nothing.

ctypedef fused floating:
    float
    double


cdef double clipped_area(double x0, double y0, double x1, double y1,
                         double lo, double hi, double floor) noexcept nogil

cdef Py_ssize_t roc_walk(const floating[::1] pos, const floating[::1] neg,
                         const double[::1] w_pos, const double[::1] w_neg,
                         double[::1] out_fp, double[::1] out_tp, double[::1] out_thr,
                         bint store, double tp_total, double fp_total,
                         double lo, double hi, double floor, double* area) noexcept nogil

cdef void count_above_into(const floating[::1] ref, const floating[::1] query,
                           long long[::1] greater, long long[::1] equal) noexcept nogil

cdef Py_ssize_t copy_class(const floating[::1] score, const unsigned char[::1] flag,
                           unsigned char wanted, floating[::1] out) noexcept nogil

cdef void split_into(const floating[::1] score, const unsigned char[::1] flag,
                     floating[::1] pos, floating[::1] neg) noexcept nogil


# the weights of the walk's entries: float64 sample weights or int resampling counts
ctypedef fused weight:
    double
    int


cdef inline floating next_tie_group(const floating[::1] pos, const floating[::1] neg,
                                    const weight[::1] w_pos, const long long[::1] at_pos,
                                    const weight[::1] w_neg, const long long[::1] at_neg,
                                    Py_ssize_t* i, Py_ssize_t* j, Py_ssize_t step,
                                    double* tp, double* fp) noexcept nogil:
    # The one walk over two sorted classes, from the top, one group of tied scores at
    # a time (ties count one half: Narasimhan & Agarwal 2017, eq. (1)).  Returns the
    # score t of the next group, the higher of the two classes' next scores; moves
    # the cursors i[0] (positives) and j[0] (negatives) past every score equal to t,
    # and adds each passed entry's weight to tp[0] (positives) or fp[0] (negatives),
    # one at a time in the order passed (so that sums agree to the last bit with any
    # other walk of the same weights).  An entry's weight is w[at[k]] when ``at`` is
    # given (a resample's counts, read through the entry's slot or group), w[k] when
    # only ``w`` is, else 1 (empty arrays: not given).  step -1 walks arrays sorted
    # ascending from their last entry, step +1 arrays sorted descending from their
    # first; a class is done once its cursor leaves [0, n) (one unsigned comparison).
    cdef Py_ssize_t a = i[0], b = j[0]
    cdef size_t n_pos = pos.shape[0], n_neg = neg.shape[0]
    cdef bint by_pos = at_pos.shape[0] > 0, by_neg = at_neg.shape[0] > 0
    cdef bint w_p = w_pos.shape[0] > 0, w_n = w_neg.shape[0] > 0
    cdef floating t
    if <size_t> b >= n_neg or (<size_t> a < n_pos and pos[a] >= neg[b]):
        t = pos[a]
    else:
        t = neg[b]
    while <size_t> a < n_pos and pos[a] == t:
        tp[0] += w_pos[at_pos[a]] if by_pos else (w_pos[a] if w_p else 1.0)
        a += step
    while <size_t> b < n_neg and neg[b] == t:
        fp[0] += w_neg[at_neg[b]] if by_neg else (w_neg[b] if w_n else 1.0)
        b += step
    i[0] = a
    j[0] = b
    return t
