"""The structural SVM's view of the loss table: the surrogates it can minimise.

A surrogate of :class:`~pauc.svm.PartialAUCSVM` is a row of the one loss table
(:mod:`pauc._loss`) with a ``cut`` -- its most-violated-constraint search,
``cut(scores, is_pos, n_pos, j_alpha, j_beta) -> (coef, Delta)`` in the count
representation of Appendix B.1 of Narasimhan & Agarwal -- and the ``solver``
that minimises it (Algorithm 1, or CCCP, Algorithm 4, for a ``"cccp"`` row on a
window that does not start at 0).  The chunked designs of :mod:`pauc.distributed`
read its ``chunked`` column.  This module holds no name of its own: a row added
to the table with a ``cut`` is a surrogate here at once.

The full-AUC surrogate of :class:`~pauc.svm.AUCSVM` is ``"tight"`` on the window
``[0, 1]``: there tight, naive and hinge coincide with Joachims' (Theorem 1), and
the designs may take a specialised search (weighted pairs, the chunked all-pairs
exchange).

References
----------
Narasimhan & Agarwal (2017): eqs. (2), (9)-(18), Theorems 1, 2 and 5, Section
6; Joachims (2005). Full entries in ``docs/references.rst``.
"""

from dataclasses import dataclass

from .._loss import loss_names, loss_row

__all__ = ["Problem", "surrogate_names", "surrogate_row"]


def surrogate_names():
    """The names ``surrogate=`` accepts: the rows of the loss table with a cut."""
    return loss_names("cut")


def surrogate_row(name):
    """The loss-table row of ``name``; a ``ValueError`` if it is none or has no cut."""
    return loss_row(name, "cut", what="surrogate")


@dataclass(frozen=True)
class Problem:
    """A structural risk whose most violated constraint a design computes.

    ``scale`` times the risk of the surrogate ``surrogate`` on the window of
    negative positions ``j_alpha + 1 .. j_beta`` of the design's rows.  The
    designs read the row's ``cut`` (in memory) or its ``chunked`` flag.

    Parameters
    ----------
    surrogate : str
        A name of the loss table with a cut; a ``"cccp"`` row only with ``j_alpha = 0``
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
        """The :class:`~pauc._loss.Loss` row."""
        return surrogate_row(self.surrogate)

    def is_auc(self, n_neg):
        """True for the full window ``[0, 1]`` on ``n_neg`` negatives (Joachims' AUC)."""
        return self.j_alpha == 0 and self.j_beta == n_neg
