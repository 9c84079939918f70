# cython: language_level=3
# The C-level contract of pauc.inference._bootstrap for the other resampling kernels
# (pauc.inference._cluster_bootstrap): the weighted ROC walks (tie group by tie group, and run
# by run with integer counts).  The block generator is in pauc/_random.pxd.

cdef double walk(const double[::1] pos, const long long[::1] pos_slot,
                 const double[::1] neg, const long long[::1] neg_slot,
                 const int[::1] c_pos, const int[::1] c_neg,
                 double tp_total, double fp_total, double lo, double hi, double floor,
                 const double[::1] grid, double[::1] grid_tpr) noexcept nogil

cdef double run_walk(const int[::1] run_pos, const int[::1] run_neg,
                     Py_ssize_t first_run, Py_ssize_t stop_run,
                     double m, double n, double lo, double hi, double floor,
                     const double[::1] grid, double[::1] grid_tpr,
                     bint* exhausted) noexcept nogil

cdef void gather_entries(const int[::1] run_of_entry, const int[::1] key,
                         const int[::1] counts, Py_ssize_t start, Py_ssize_t stop,
                         int[::1] run_counts) noexcept nogil

cdef void zero_runs(int[::1] run_pos, int[::1] run_neg, Py_ssize_t start,
                    Py_ssize_t stop) noexcept nogil
