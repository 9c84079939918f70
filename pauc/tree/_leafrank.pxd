# cython: language_level=3
# LeafRank, the split of one node of a ranking tree (Clémençon, Depecker and
# Vayatis, "Ranking Forests", JMLR 2013, §2.3.1; Clémençon and Vayatis,
# "Tree-based ranking methods", IEEE Trans. Inf. Theory 2009, Sec. IV-A step 2a):
# the contract between the grower (_grow.pyx) and the split (_leafrank.pyx).

cimport numpy as cnp
from libc.stdint cimport uint64_t

cdef enum:
    CRITERION_GAIN = 0
    CRITERION_GINI = 1


cdef struct Sample:
    # The training sample as the growth reads it (read-only, shared by threads).
    # X is column-major, X[i + f * n]; ranks[f * n + i] is the dense rank of
    # X[i, f] among the values of feature f, whose distinct values stand at
    # rank_values[rank_offsets[f]:rank_offsets[f] + n_values[f]].
    const double* X
    const cnp.int32_t* ranks
    const cnp.int32_t* n_values
    const double* rank_values
    const cnp.int64_t* rank_offsets
    Py_ssize_t n, q
    const unsigned char* is_pos     # 1 for positives
    const double* w                 # class mass of each row
    const cnp.int32_t* counts       # multiplicity of each row (min_samples_* count it)


cdef struct Mass:
    # Positive weight, negative weight and multiplicity of a set of rows.
    double pos
    double neg
    Py_ssize_t count


cdef struct SplitNode:
    # A node of a LeafRank tree: the cut x_feature <= threshold sends a row to
    # ``left``; a leaf has left == right == feature == -1 and ``in_c`` says
    # whether its rows belong to C, the higher-ranked child of the master node.
    Py_ssize_t feature
    double threshold
    Py_ssize_t left
    Py_ssize_t right
    unsigned char in_c


cdef struct Cell:
    # A LeafRank node's rows, rows[start:end], and its depth.
    Py_ssize_t start
    Py_ssize_t end
    int depth


cdef struct LeafRank:
    const Sample* sample
    # parameters: q0 features handed over by the master node (FR1), q1 drawn
    # among them at each LeafRank node (FR2), the depth d' of the LeafRank tree
    Py_ssize_t q0, q1, min_split, min_leaf
    int max_depth, criterion
    uint64_t* rng                  # the grower's random stream (FR1 and FR2 share it)
    # work buffers
    Py_ssize_t* tmp                # partitions of the node's rows
    unsigned char* flag            # per row id: in C
    double* values                 # the cell's values of one feature, sorted
    Py_ssize_t* order              #   and their positions in the cell
    Mass* loc                      # per row of the cell (in cell order)
    Mass* bucket                   # per distinct value of a feature
    Py_ssize_t* feat               # FR2 draw (a permutation of the q0 features)
    # the LeafRank tree of the current master node
    Py_ssize_t capacity
    Cell* cells
    Py_ssize_t* stack
    SplitNode* nodes


cdef inline bint may_split(Py_ssize_t count, int depth, int max_depth, Py_ssize_t min_split,
                           Py_ssize_t min_leaf) noexcept nogil:
    # The integer part of the stopping rules (the class masses are checked by the caller).
    return depth < max_depth and count >= min_split and count >= 2 * min_leaf


cdef Mass node_mass(const Sample* s, const Py_ssize_t* rows, Py_ssize_t m) noexcept nogil

cdef int leafrank_init(LeafRank* lr, const Sample* sample, Py_ssize_t q0, Py_ssize_t q1,
                       Py_ssize_t min_split, Py_ssize_t min_leaf, int max_depth,
                       int criterion, uint64_t* rng, Py_ssize_t n_entries,
                       Py_ssize_t max_values) except -1

cdef void leafrank_free(LeafRank* lr) noexcept nogil

cdef Py_ssize_t find_split(LeafRank* lr, Py_ssize_t* rows, Py_ssize_t m,
                           const Py_ssize_t* features, Mass* in_c,
                           Py_ssize_t* entries_c) noexcept nogil

cdef Sample make_sample(const double[::1, :] X, const cnp.int32_t[:, ::1] ranks,
                        const cnp.int32_t[::1] n_values, const double[::1] rank_values,
                        const cnp.int64_t[::1] rank_offsets, const unsigned char[::1] is_pos,
                        const double[::1] w, const cnp.int32_t[::1] counts)
