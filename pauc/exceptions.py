"""Warnings of pauc that are not scikit-learn's.

Convergence problems use :class:`sklearn.exceptions.ConvergenceWarning`, as
scikit-learn does; the warnings here say something else about a fitted model.
"""

__all__ = ["DegenerateSolutionWarning"]


class DegenerateSolutionWarning(UserWarning):
    """The fitted linear scorer does not beat the constant one (``w = 0``).

    Raised by the structural SVMs when the ``w`` the solver returned does not
    beat ``w = 0`` on the objective they minimise, ``1/2 ||w||^2 + C R(w)``
    (the surrogate's optimum is ``w = 0``, or its gain over ``w = 0`` is below
    the solver's accuracy).  When that ``w`` is also below the master QP's
    resolution it is rounding noise whose direction means nothing: the
    estimator sets ``coef_`` to exactly 0 and ``degenerate_`` to True instead
    of ranking by it; otherwise ``coef_`` is kept and the warning says that
    its ranking is not the optimum's.  Filter it like any warning:
    ``warnings.simplefilter("error", DegenerateSolutionWarning)`` turns it
    into an exception.
    """
