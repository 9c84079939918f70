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
