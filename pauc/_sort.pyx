# cython: language_level=3
"""The package's sort of values with their indices (contract in ``_sort.pxd``):
the tree family's splits, the oblivious trees' held-out criterion and the torch
loss's batches cimport it.  The ``def`` function at the end exposes it to the
tests.
"""

from libc.math cimport log2


# ---------------------------------------------------------------------------
# Introsort (Musser, "Introspective sorting and selection algorithms", Software:
# Practice and Experience 27(8), 1997) with Dijkstra's three-way partition: the
# many ties of binary or discretised features (a9a is 0/1) fall in the middle
# part and are never looked at again.  Depth-limited quicksort, heapsort below
# the limit, insertion sort on short runs.
# ---------------------------------------------------------------------------

cdef inline void _swap(double* v, Py_ssize_t* ix, Py_ssize_t i, Py_ssize_t j) noexcept nogil:
    cdef double tv = v[i]
    cdef Py_ssize_t ti = ix[i]
    v[i] = v[j]
    ix[i] = ix[j]
    v[j] = tv
    ix[j] = ti


cdef inline double _median_of_three(double* v, Py_ssize_t n) noexcept nogil:
    cdef double a = v[0], b = v[n // 2], c = v[n - 1]
    if a < b:
        if b < c:
            return b
        return c if a < c else a
    if a < c:
        return a
    return c if b < c else b


cdef void _sift_down(double* v, Py_ssize_t* ix, Py_ssize_t start, Py_ssize_t end) noexcept nogil:
    cdef Py_ssize_t root = start, child
    while 2 * root + 1 < end:
        child = 2 * root + 1
        if child + 1 < end and v[child] < v[child + 1]:
            child += 1
        if v[root] < v[child]:
            _swap(v, ix, root, child)
            root = child
        else:
            return


cdef void _heapsort(double* v, Py_ssize_t* ix, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t start = (n - 2) // 2, end = n - 1
    while start >= 0:
        _sift_down(v, ix, start, n)
        start -= 1
    while end > 0:
        _swap(v, ix, 0, end)
        _sift_down(v, ix, 0, end)
        end -= 1


cdef void _introsort(double* v, Py_ssize_t* ix, Py_ssize_t n, int max_depth) noexcept nogil:
    cdef double pivot
    cdef Py_ssize_t lt, i, gt, k
    while n > 16:
        if max_depth <= 0:
            _heapsort(v, ix, n)
            return
        max_depth -= 1
        pivot = _median_of_three(v, n)
        # Three-way partition: [0, lt) < pivot, [lt, gt) == pivot, [gt, n) > pivot.
        lt = 0
        i = 0
        gt = n
        while i < gt:
            if v[i] < pivot:
                _swap(v, ix, lt, i)
                lt += 1
                i += 1
            elif v[i] > pivot:
                gt -= 1
                _swap(v, ix, i, gt)
            else:
                i += 1
        _introsort(v, ix, lt, max_depth)
        v += gt
        ix += gt
        n -= gt
    # Insertion sort for the short runs.
    for i in range(1, n):
        k = i
        while k > 0 and v[k - 1] > v[k]:
            _swap(v, ix, k - 1, k)
            k -= 1


cdef void sort(double* values, Py_ssize_t* indices, Py_ssize_t n) noexcept nogil:
    if n > 1:
        _introsort(values, indices, n, 2 * <int>log2(n))



# ---------------------------------------------------------------------------
# Entry point for the tests.
# ---------------------------------------------------------------------------

def sort_with_indices(double[::1] values, Py_ssize_t[::1] indices):
    """Sort ``values`` ascending in place, permuting ``indices`` alongside."""
    if values.shape[0] != indices.shape[0]:
        raise ValueError("values and indices differ in length")
    cdef Py_ssize_t n = values.shape[0]
    if n > 0:
        with nogil:
            sort(&values[0], &indices[0], n)
