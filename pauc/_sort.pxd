# cython: language_level=3
# The package's one sort of values carrying their indices, for any Cython module to
# cimport (the tree family's splits, the oblivious trees, the torch loss's batches).
# Runs without the GIL, allocates nothing.

# ---------------------------------------------------------------------------
# Sorting values together with their indices (introsort with a
# three-way partition, O(n log n) in the worst case, fast on many ties).
# ---------------------------------------------------------------------------

cdef void sort(double* values, Py_ssize_t* indices, Py_ssize_t n) noexcept nogil
