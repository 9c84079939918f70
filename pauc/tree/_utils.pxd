# cython: language_level=3
# The small tools the tree family's hot loops share: one random stream, one sort
# of values carrying their indices, one checked (re)allocation.  Every function
# runs without the GIL.

from libc.stdint cimport uint64_t


# ---------------------------------------------------------------------------
# Random numbers: splitmix64 (Steele, Lea and Flood, "Fast splittable
# pseudorandom number generators", OOPSLA 2014).  The feature draws of the trees
# (FR1/FR2) and the moves of the Kendall-median annealing take their numbers
# from it: reproducible from a 64-bit seed and free of the GIL.
# ---------------------------------------------------------------------------

cdef inline uint64_t rand_uint64(uint64_t* state) noexcept nogil:
    """The next 64 random bits of the stream ``state`` (advanced in place)."""
    cdef uint64_t z
    state[0] += <uint64_t>0x9E3779B97F4A7C15
    z = state[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)


cdef inline Py_ssize_t rand_below(uint64_t* state, Py_ssize_t n) noexcept nogil:
    """An integer in [0, n), n >= 1 (modulo reduction: the bias, < n / 2**64, is
    far below anything the draws are used for)."""
    return <Py_ssize_t>(rand_uint64(state) % <uint64_t>n)


cdef inline double rand_uniform(uint64_t* state) noexcept nogil:
    """A double in [0, 1): the top 53 bits of the next draw."""
    return (rand_uint64(state) >> 11) * (1.0 / 9007199254740992.0)


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
