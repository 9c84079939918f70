# cython: language_level=3
# The small tools the tree family's hot loops share: one checked (re)allocation
# (the sort of values with their indices is the package's: pauc/_sort.pxd).
# Every function runs without the GIL.
# The random stream (splitmix64) is in pauc/_random.pxd.


# ---------------------------------------------------------------------------
# Buffers: ``resize`` reallocates ``p`` to ``n`` items of ``itemsize`` bytes and
# raises MemoryError (taking the GIL) when the memory is not there, so callers
# need no NULL checks.  Free the result with ``free``.
# ---------------------------------------------------------------------------

cdef void* resize(void* p, Py_ssize_t n, size_t itemsize) except NULL nogil
