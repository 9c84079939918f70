# cython: language_level=3
# The small tools the tree family's hot loops share: one sort of values carrying
# their indices, one checked (re)allocation.  Every function runs without the GIL.
# The random stream (splitmix64) is in pauc/_random.pxd.


# ---------------------------------------------------------------------------
# Sorting a feature's values together with their indices (introsort with a
# three-way partition, O(n log n) in the worst case, fast on many ties).
# ---------------------------------------------------------------------------

cdef void sort(double* values, Py_ssize_t* indices, Py_ssize_t n) noexcept nogil


# ---------------------------------------------------------------------------
# Buffers: ``resize`` reallocates ``p`` to ``n`` items of ``itemsize`` bytes and
# raises MemoryError (taking the GIL) when the memory is not there, so callers
# need no NULL checks.  Free the result with ``free``.
# ---------------------------------------------------------------------------

cdef void* resize(void* p, Py_ssize_t n, size_t itemsize) except NULL nogil
