# cython: language_level=3
# The C-level contract of pauc._bootstrap for the other resampling kernels
# (pauc._cluster_bootstrap): the block generator and the weighted ROC walks (tie group
# by tie group, and run by run with integer counts).

from libc.stdint cimport uint32_t, uint64_t


cdef struct Xoshiro:
    uint64_t s0, s1, s2, s3
    uint64_t spare            # the unused half of the last 64-bit output
    bint has_spare


cdef inline Xoshiro xoshiro_from(const uint64_t[::1] state) noexcept nogil:
    """The generator of a kernel's ``state`` (pauc._resampling.kernel_state): four
    state words, the spare half-output and its flag."""
    cdef Xoshiro g
    g.s0, g.s1, g.s2, g.s3 = state[0], state[1], state[2], state[3]
    g.spare = state[4]
    g.has_spare = state[5] != 0
    return g


cdef inline uint64_t rotl(uint64_t x, int k) noexcept nogil:
    return (x << k) | (x >> (64 - k))


cdef inline uint64_t xoshiro_next(Xoshiro* g) noexcept nogil:
    """xoshiro256** (Blackman & Vigna 2021, Fig. 1): one 64-bit output."""
    cdef uint64_t result = rotl(g.s1 * 5, 7) * 9
    cdef uint64_t t = g.s1 << 17
    g.s2 ^= g.s0
    g.s3 ^= g.s1
    g.s1 ^= g.s2
    g.s0 ^= g.s3
    g.s2 ^= t
    g.s3 = rotl(g.s3, 45)
    return result


cdef inline uint32_t next_uint32(Xoshiro* g) noexcept nogil:
    cdef uint64_t x
    if g.has_spare:
        g.has_spare = False
        return <uint32_t>(g.spare >> 32)
    x = xoshiro_next(g)
    g.spare = x
    g.has_spare = True
    return <uint32_t>x


cdef inline uint32_t bounded_uint32(Xoshiro* g, uint32_t size) noexcept nogil:
    """Uniform integer in [0, size), without bias (Lemire 2019, Algorithm 5)."""
    cdef uint64_t product = <uint64_t>next_uint32(g) * size
    cdef uint32_t low = <uint32_t>product
    cdef uint32_t threshold
    if low < size:
        threshold = (<uint32_t>0 - size) % size
        while low < threshold:
            product = <uint64_t>next_uint32(g) * size
            low = <uint32_t>product
    return <uint32_t>(product >> 32)


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
