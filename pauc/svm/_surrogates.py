"""The surrogate table: every structural surrogate of the package, one row each.

A row says what :class:`~pauc.svm.PartialAUCSVM`, :mod:`pauc.surrogates` and
the chunked designs of :mod:`pauc.distributed` need to know of a surrogate of
the partial-AUC risk in the FPR window ``[alpha, beta]`` (``j_alpha =
floor(n alpha)``, ``j_beta = ceil(n beta)`` over the ``n`` negatives, eq. (2)
of Narasimhan & Agarwal):

``kernel``
    Its most-violated-constraint search, ``kernel(scores, is_pos, n_pos,
    j_alpha, j_beta) -> (coef, loss)`` on validated input (``is_pos`` as
    uint8 0/1): the cut of Algorithm 1, line 10 in the count representation
    of Appendix B.1 (see :mod:`pauc.svm._oracles`).  The surrogate's value at
    ``w`` is ``loss - scores @ coef`` and ``-X.T @ coef`` a subgradient.
``convex``
    Whether it is convex in ``w`` for every window.
``solver``
    ``"cutting_plane"``: minimised by Algorithm 1 with ``kernel``;
    ``"cccp"``: the surrogate is the difference of convex functions
    ``(j_beta R(0, j_beta) - j_alpha R(0, j_alpha)) / (j_beta - j_alpha)``
    with ``R(0, j)`` the surrogate of ``kernel`` on the window ``[0, j]``
    (Section 6), minimised by the concave-convex procedure (Algorithm 4,
    :mod:`pauc.svm._dc`); for ``j_alpha = 0`` that is ``R(0, j_beta)``
    itself and Algorithm 1 minimises it.
``chunked``
    Whether the chunked designs can search it: true when the search needs
    only the top ``j_beta`` negatives of the whole set, which they merge from
    the chunks' top lists.
``equations``, ``summary``
    Where the paper defines it, and one line for the documentation.

Adding a surrogate is one kernel in ``pauc/svm/_oracles.pyx`` and one row
here (and its test); ``PartialAUCSVM(surrogate=...)``,
:func:`pauc.surrogates.surrogate` and the chunked fits read the table (the
developer guide shows the recipe).

The full-AUC surrogate of :class:`~pauc.svm.AUCSVM` is ``"tight"`` on the
window ``[0, 1]``: there tight, naive and hinge coincide with Joachims'
(Theorem 1), and the designs may take a specialised search (weighted
pairs, the chunked all-pairs exchange).

References
----------
Narasimhan & Agarwal (2017): eqs. (2), (9)-(18), Theorems 1, 2 and 5, Section
6; Joachims (2005). Full entries in ``docs/references.rst``.
"""

from dataclasses import dataclass
from typing import Callable

from . import _oracles

__all__ = ["Surrogate", "SURROGATES", "Problem", "surrogate_row"]


@dataclass(frozen=True)
class Surrogate:
    """One row of the table (see the module docstring for the fields)."""

    name: str
    kernel: Callable
    convex: bool
    solver: str
    chunked: bool
    equations: str
    summary: str


SURROGATES = {row.name: row for row in [
    Surrogate("tight", _oracles.tight_cut, convex=True, solver="cutting_plane", chunked=True,
              equations="eq. (14) for alpha = 0, eq. (18); Algorithms 2 and 3",
              summary="the tight structural surrogate (feature map on the top j_beta "
                      "negatives)"),
    Surrogate("naive", _oracles.naive_cut, convex=True, solver="cutting_plane", chunked=False,
              equations="eq. (11), Section 3.2",
              summary="the naive structural surrogate (feature map on all negatives); "
                      "looser, offered to compare"),
    Surrogate("hinge", _oracles.tight_cut, convex=False, solver="cccp", chunked=True,
              equations="eq. (9), (10); Section 6, Algorithm 4",
              summary="the pairwise hinge loss over the window's negatives (SVM_pAUC^dc)"),
]}


def surrogate_row(name):
    """The row of ``name``, or a ``ValueError`` listing the table's names."""
    try:
        return SURROGATES[name]
    except (KeyError, TypeError):
        raise ValueError(f"surrogate must be one of {tuple(SURROGATES)}, got {name!r}") from None


@dataclass(frozen=True)
class Problem:
    """A structural risk whose most violated constraint a design computes.

    ``scale`` times the risk of the surrogate ``surrogate`` on the window of
    negative positions ``j_alpha + 1 .. j_beta`` of the design's rows.  The
    designs read the row's ``kernel`` (in memory) or its ``chunked`` flag.

    Parameters
    ----------
    surrogate : str
        A name of :data:`SURROGATES`; a ``"cccp"`` row only with ``j_alpha = 0``
        (where it is convex and equals its kernel's surrogate).
    j_alpha, j_beta : int
        ``0 <= j_alpha < j_beta <= n_neg``.
    scale : float, default=1.0
        A positive factor on the loss and the coefficients (the CCCP steps
        minimise ``j_beta / (j_beta - j_alpha)`` times a ``[0, j_beta]`` risk).
    """

    surrogate: str
    j_alpha: int
    j_beta: int
    scale: float = 1.0

    def __post_init__(self):
        row = surrogate_row(self.surrogate)
        if row.solver == "cccp" and self.j_alpha > 0:
            raise ValueError(f"the {row.name!r} surrogate is not convex for j_alpha > 0: "
                             "minimise it by the concave-convex procedure (pauc.svm._dc)")
        if not 0 <= self.j_alpha < self.j_beta:
            raise ValueError(f"need 0 <= j_alpha < j_beta, got j_alpha={self.j_alpha}, "
                             f"j_beta={self.j_beta}")

    @property
    def row(self):
        """The :class:`Surrogate` row."""
        return SURROGATES[self.surrogate]

    def is_auc(self, n_neg):
        """True for the full window ``[0, 1]`` on ``n_neg`` negatives (Joachims' AUC)."""
        return self.j_alpha == 0 and self.j_beta == n_neg
