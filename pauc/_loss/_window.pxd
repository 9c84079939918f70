# The FPR window's tie rule (the module docstring of pauc/_loss/_window.pyx, "Ties"),
# written once for every Cython module that places negatives in the window: the
# in-memory window losses and the distributed global window's per-row passes.
#
# The window holds the negatives at positions j_alpha + 1 .. j_beta of the scores,
# highest first (Narasimhan & Agarwal, "Support Vector Algorithms for Optimizing
# the Partial Area Under the ROC Curve", Neural Computation 29(7), 2017, eq. (2)).
# A tie group straddling a border shares the border's places: each of its members
# weighs the share of the group's positions inside the window.


cdef inline double tie_share(Py_ssize_t above, Py_ssize_t tied, Py_ssize_t j_alpha,
                             Py_ssize_t j_beta) noexcept nogil:
    """Share of the positions ``above + 1 .. above + tied`` inside the window: the
    weight of each of ``tied`` negatives sharing a score, ``above`` negatives above."""
    cdef Py_ssize_t lo = above if above > j_alpha else j_alpha
    cdef Py_ssize_t hi = above + tied if above + tied < j_beta else j_beta
    return (hi - lo) / <double> tied if hi > lo else 0.0


cdef inline double window_weight(double z, double v_top, double v_bot, double w_top,
                                 double w_bot) noexcept nogil:
    """Weight of a negative scored ``z`` in the window whose borders are ``v_top``
    (the score at position j_alpha + 1) and ``v_bot`` (at position j_beta), the
    negatives tied with them weighing ``w_top`` and ``w_bot`` (:func:`tie_share`).
    A negative at ``v_top`` takes ``w_top``, even when ``v_top == v_bot``."""
    if z > v_top or z < v_bot:
        return 0.0
    if z == v_top:
        return w_top
    if z == v_bot:
        return w_bot
    return 1.0
