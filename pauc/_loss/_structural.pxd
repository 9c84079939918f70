# cython: language_level=3
# The C-level contract of pauc._loss._structural: the most-violated-constraint
# search of Algorithms 2 and 3 of Narasimhan & Agarwal (Neural Computation
# 29(7), 2017), one cdef per family of rows, for any Cython module to cimport.
#
# Notation (see the module docstring of _structural.pyx): ``neg`` holds the
# candidate negatives' scores z ascending (the top j_beta, Algorithm 3 line 2;
# all n for the naive surrogate), ``p`` is a positive's score, ``N = m (j_beta -
# j_alpha)``.  A row function returns ``N * H^i(r)`` of its family's best row
# and writes that row ``r`` (how many negatives, from the top, the positive is
# ranked below).

cdef double line4_row(Py_ssize_t above, double sum_above, Py_ssize_t j_alpha,
                      double top_alpha, double p, Py_ssize_t* r) noexcept nogil

cdef double line5_row(Py_ssize_t above_m, double sum_above_m, Py_ssize_t j_alpha,
                      Py_ssize_t j_beta, double top_alpha, double top_beta, double p,
                      Py_ssize_t* r) noexcept nogil

cdef double naive_tail_row(Py_ssize_t above, double sum_above, Py_ssize_t j_alpha,
                           Py_ssize_t j_beta, double top_beta, double p,
                           Py_ssize_t* r) noexcept nogil

cdef double positive_rows(const double[::1] neg, const double[::1] pos,
                          const int[::1] pos_rows, Py_ssize_t j_alpha, Py_ssize_t j_beta,
                          bint naive, double inv_n, int[::1] hist,
                          double[::1] coef) noexcept nogil

cdef void negative_counts(int[::1] hist) noexcept nogil
