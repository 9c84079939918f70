# cython: language_level=3
"""Buffers shared by the tree family's Cython modules, and a window on their
random stream.

The contracts are in ``_utils.pxd``: the reallocation is defined here (the sort
of values with their indices is the package's, ``pauc/_sort.pxd``).  The random
stream (splitmix64) is inline in ``pauc/_random.pxd`` (it sits in the feature
draws and the annealing moves).  The ``def`` functions at the end expose them to
the tests.
"""

from libc.stdint cimport uint64_t
from libc.stdlib cimport realloc

from .._random cimport rand_below, rand_uint64, rand_uniform

import numpy as np


cdef void* resize(void* p, Py_ssize_t n, size_t itemsize) except NULL nogil:
    # At least one item: realloc(p, 0) may return NULL without failing.
    cdef void* q = realloc(p, (n if n > 1 else 1) * itemsize)
    if q == NULL:
        with gil:
            raise MemoryError(f"could not allocate {n} items of {itemsize} bytes")
    return q


# ---------------------------------------------------------------------------
# Entry points for the tests.
# ---------------------------------------------------------------------------

def random_stream(uint64_t seed, Py_ssize_t size, Py_ssize_t below=0):
    """The first ``size`` draws of the stream seeded with ``seed``: the raw 64-bit
    words (``below=0``, as uint64), integers in [0, below) (``below >= 1``), or
    uniform doubles in [0, 1) (``below=-1``)."""
    if size < 0 or below < -1:
        raise ValueError("size must be >= 0 and below >= -1")
    cdef uint64_t state = seed
    cdef Py_ssize_t i
    if below == 0:
        words = np.empty(size, dtype=np.uint64)
        for i in range(size):
            words[i] = rand_uint64(&state)
        return words
    if below == -1:
        uniform = np.empty(size, dtype=np.float64)
        for i in range(size):
            uniform[i] = rand_uniform(&state)
        return uniform
    ints = np.empty(size, dtype=np.intp)
    for i in range(size):
        ints[i] = rand_below(&state, below)
    return ints
