# cython: language_level=3
# The random numbers of every kernel of pauc, in one file so that there is one
# copy of each generator: the same words, seeds and draws wherever a stream is
# used, and one place to read or test them.  All inline, without the GIL.
#
# * splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
#   generators", OOPSLA 2014): the tree family's stream (the feature draws of the
#   trees, the moves of the Kendall-median annealing), and the seeding of
#   xoshiro256** from one 64-bit seed.
# * xoshiro256** (Blackman and Vigna, "Scrambled linear pseudorandom number
#   generators", ACM TOMS 47(4), 2021): the bootstrap kernels' stream and the
#   oblivious-tree booster's.  Bounded integers by Lemire's method (Lemire, "Fast
#   random integer generation in an interval", ACM TOMACS 29(1), 2019), uniforms
#   from the top 53 bits, normals by the polar method (Marsaglia and Bray, "A
#   convenient method for generating normal variables", SIAM Review 6(3), 1964).

from libc.math cimport log, sqrt
from libc.stdint cimport uint32_t, uint64_t


# ---------------------------------------------------------------- splitmix64

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


# ---------------------------------------------------------------- xoshiro256**

cdef struct Xoshiro:
    uint64_t s0, s1, s2, s3
    uint64_t spare            # the unused half of the last 64-bit output (next_uint32)
    bint has_spare
    double spare_normal       # the second value of the last polar pair (xoshiro_normal)
    bint has_spare_normal


cdef inline Xoshiro xoshiro_from(const uint64_t[::1] state) noexcept nogil:
    """The generator of a kernel's ``state`` (pauc.inference._resampling.kernel_state): four
    state words, the spare half-output and its flag."""
    cdef Xoshiro g
    g.s0, g.s1, g.s2, g.s3 = state[0], state[1], state[2], state[3]
    g.spare = state[4]
    g.has_spare = state[5] != 0
    g.spare_normal = 0.0
    g.has_spare_normal = False
    return g


cdef inline Xoshiro xoshiro_seeded(uint64_t seed) noexcept nogil:
    """The generator of a 64-bit seed: four well-mixed words of splitmix64."""
    cdef Xoshiro g
    g.s0 = rand_uint64(&seed)
    g.s1 = rand_uint64(&seed)
    g.s2 = rand_uint64(&seed)
    g.s3 = rand_uint64(&seed)
    g.spare = 0
    g.has_spare = False
    g.spare_normal = 0.0
    g.has_spare_normal = False
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
    """32 random bits: the low half of a 64-bit output, then its high half."""
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


cdef inline double xoshiro_uniform(Xoshiro* g) noexcept nogil:
    """Uniform on [0, 1): the top 53 bits of a 64-bit output."""
    return <double>(xoshiro_next(g) >> 11) * (1.0 / 9007199254740992.0)


cdef inline double xoshiro_normal(Xoshiro* g) noexcept nogil:
    """Standard normal by the polar method (Marsaglia & Bray 1964); the pair's
    second value is kept for the next call."""
    cdef double u, v, r, f
    if g.has_spare_normal:
        g.has_spare_normal = False
        return g.spare_normal
    while True:
        u = 2.0 * xoshiro_uniform(g) - 1.0
        v = 2.0 * xoshiro_uniform(g) - 1.0
        r = u * u + v * v
        if 0.0 < r < 1.0:
            break
    f = sqrt(-2.0 * log(r) / r)
    g.spare_normal = v * f
    g.has_spare_normal = True
    return u * f
