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
                         const double[::1] w_pos, const double[::1] w_neg, bint has_w,
                         double[::1] out_fp, double[::1] out_tp, double[::1] out_thr,
                         bint store, double tp_total, double fp_total,
                         double lo, double hi, double floor, double* area) noexcept nogil

cdef void count_above_into(const floating[::1] ref, const floating[::1] query,
                           long long[::1] greater, long long[::1] equal) noexcept nogil

cdef Py_ssize_t copy_class(const floating[::1] score, const unsigned char[::1] flag,
                           unsigned char wanted, floating[::1] out) noexcept nogil

cdef void split_into(const floating[::1] score, const unsigned char[::1] flag,
                     floating[::1] pos, floating[::1] neg) noexcept nogil


cdef inline floating next_tie_group(const floating[::1] pos, const floating[::1] neg,
                                    Py_ssize_t* i, Py_ssize_t* j,
                                    Py_ssize_t step) noexcept nogil:
    # The one walk over two sorted classes, from the top, one group of tied scores at
    # a time (ties count one half: Narasimhan & Agarwal 2017, eq. (1)): the score of
    # the next group, the higher of the two classes' next scores, and the cursors
    # i[0] (positives) and j[0] (negatives) moved past every score equal to it.
    # step -1 walks arrays sorted ascending from their last entry, step +1 arrays
    # sorted descending from their first; a class is done once its cursor leaves
    # [0, n).  The caller sums its weights over the group's entries: from the old
    # cursor up to (not including) the new one.
    cdef Py_ssize_t a = i[0], b = j[0], n_pos = pos.shape[0], n_neg = neg.shape[0]
    cdef floating t
    if not (0 <= b < n_neg) or (0 <= a < n_pos and pos[a] >= neg[b]):
        t = pos[a]
    else:
        t = neg[b]
    while 0 <= a < n_pos and pos[a] == t:
        a += step
    while 0 <= b < n_neg and neg[b] == t:
        b += step
    i[0] = a
    j[0] = b
    return t
