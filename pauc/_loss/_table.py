"""The loss table: every window loss and surrogate of the package, one row each.

Every loss here is a function of the scores ``s`` of the training rows, their
labels and the FPR window ``[alpha, beta]`` as negative positions ``j_alpha =
floor(n alpha)``, ``j_beta = ceil(n beta)`` over the ``n`` negatives (eq. (2) of
Narasimhan & Agarwal): a value and a (sub)gradient in the scores.  The families
of the package read this one table, each for what it needs of a row:

=========================================  =====================================
reader                                     needs of the row
=========================================  =====================================
``PartialAUCSVM(surrogate=...)``,          ``cut``: the structural SVM's
:mod:`pauc.svm.oracles`                    most-violated-constraint search
:mod:`pauc.objectives`,                    ``derivatives``: the gradient and a
``GradientBoostingRanker(loss=...)``       Hessian diagonal
:mod:`pauc.surrogates`                     a window loss (``window``): the value
                                           and a subgradient, from either kernel
:mod:`pauc.distributed` (chunked ``X``)    ``chunked``
``GradientBoostingRanker`` on dask data    ``global``: derivatives on the exact
                                           global window of every worker
=========================================  =====================================

The fields of a row (:class:`Loss`):

``name``, ``aliases``
    The name every reader lists, and other names that reach the same row
    (``"tight_hinge"``, boosting's name of the tight surrogate).
``cut``
    ``cut(scores, is_pos, n_pos, j_alpha, j_beta) -> (coef, Delta)`` on
    validated input (``scores`` float32/float64 and ``is_pos`` uint8 0/1, both
    C-contiguous): the most violated constraint of Algorithm 1, line 10, in the
    count representation of Appendix B.1 (:mod:`pauc._loss._structural`).  The
    loss at the scores is ``Delta - scores @ coef``, ``-coef`` a subgradient in
    the scores and ``-X.T @ coef`` one in ``w``: the SVM's cut is the
    subgradient mapped through ``X``.  ``None``: no structural SVM.
``derivatives``
    ``derivatives(scores, is_pos, n_pos, j_alpha, j_beta, grad, hess,
    scale=1.0, curvature=1.0) -> value``: adds ``scale`` times the gradient and
    ``scale * curvature`` times a Hessian diagonal into the float64 arrays
    ``grad`` and ``hess`` and returns the (unscaled) loss
    (:mod:`pauc._loss._window`).  ``None``: no boosting.
``convex``
    Whether the loss is convex in the scores for every window.
``solver``
    How the SVM minimises it: ``"cutting_plane"`` (Algorithm 1 with ``cut``),
    ``"cccp"`` (the loss is the difference ``(j_beta R(0, j_beta) - j_alpha
    R(0, j_alpha)) / (j_beta - j_alpha)`` of the ``cut``'s surrogates on the
    windows ``[0, j]``, Section 6, minimised by Algorithm 4; for ``j_alpha =
    0`` it is ``R(0, j_beta)`` itself), or ``None`` without a ``cut``.
``chunked``
    Whether the chunked designs of :mod:`pauc.distributed` compute it: true
    when its search needs only the top ``j_beta`` negatives of the whole set,
    which they merge from the chunks' top lists.
``window``
    Whether it is a loss of the FPR window (false for the pointwise log-loss,
    which ignores ``j_alpha`` and ``j_beta``).
``curvature``
    The factor on the exact Hessian diagonal that boosting hands its engine:
    ``PAIRWISE_CURVATURE`` (2) for the pairwise losses -- the diagonal
    majorizer of a pair's Hessian ``l''(t) [[1, -1], [-1, 1]] <= 2 l''(t) I``
    --, 1 for the log-loss, whose Hessian is diagonal and exact.
``normalizable``
    Whether its ``derivatives`` kernel takes ``normalize=True`` (divide the
    derivatives by the largest absolute gradient entry: the exponential loss
    alone, whose values overflow as the margins grow; a Newton step does not
    depend on the scale).
``global_derivatives``
    The all-reduce kernel of a fit whose rows are on several workers
    (:mod:`pauc.distributed`): ``global_derivatives(scores, role, counts, comm,
    grad, hess, *, mask, bins, scale, normalize, curvature) -> record`` on the
    exact global window.  ``None``: no distributed fit (the pointwise log-loss
    needs none: its derivatives are per row).
``equations``, ``summary``
    Where the paper defines it, and one line for the documentation.

:class:`pauc._loss._bound.BoundLoss` binds a row to the training labels and the
window and is the one caller of a row's ``derivatives`` in boosting: the
calling protocol (scale, curvature, normalisation, the log-loss mixture) is
written there once, and no training loop branches on a loss name.

Adding a loss is one kernel (a ``def`` in ``_structural.pyx`` or
``_window.pyx``), one row here and its brute-force test; every reader then
offers it where its capabilities allow and refuses it with a clear message
where they do not (``docs/developer/adding_a_loss.rst``).

References
----------
Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for Optimizing the
Partial Area Under the ROC Curve." Neural Computation 29(7), 2017: eqs. (2),
(9)-(18), Theorems 1, 2 and 5, Section 6.

Joachims, T. "A Support Vector Method for Multivariate Performance Measures."
ICML 2005.

Freund, Y., Iyer, R., Schapire, R. E. and Singer, Y. "An Efficient Boosting
Algorithm for Combining Preferences." JMLR 4, 2003.
"""

import importlib
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from . import _structural, _window

__all__ = ["Loss", "LOSSES", "CAPABILITIES", "PAIRWISE_CURVATURE", "loss_row", "loss_names"]

# The Hessian handed to an engine for the pairwise losses is twice their exact
# diagonal: the diagonal majorizer of a pair's Hessian l''(t) [[1, -1], [-1, 1]]
# <= 2 l''(t) I.
PAIRWISE_CURVATURE = 2.0


class _Elsewhere:
    """A kernel of a package that imports this one (:mod:`pauc.distributed` imports
    the table, never the reverse), imported when it is first called."""

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __call__(self, *args, **kwargs):
        return getattr(importlib.import_module(self.module), self.name)(*args, **kwargs)

    def __repr__(self):
        return f"{self.module}.{self.name}"


@dataclass(frozen=True)
class Loss:
    """One row of the table (see the module docstring for the fields)."""

    name: str
    cut: Optional[Callable]
    derivatives: Optional[Callable]
    convex: bool
    solver: Optional[str]
    chunked: bool
    window: bool
    equations: str
    summary: str
    aliases: tuple = ()
    curvature: float = PAIRWISE_CURVATURE
    normalizable: bool = False
    global_derivatives: Optional[Callable] = None

    def __post_init__(self):
        if self.cut is None and self.derivatives is None:
            raise ValueError(f"loss {self.name!r} needs a cut or derivatives kernel")
        if (self.solver is None) != (self.cut is None):
            raise ValueError(f"loss {self.name!r}: a solver goes with a cut, and only with one")
        if self.solver not in (None, "cutting_plane", "cccp"):
            raise ValueError(f"loss {self.name!r}: unknown solver {self.solver!r}")

    @property
    def names(self):
        """The name and the aliases."""
        return (self.name,) + tuple(self.aliases)

    def has(self, capability):
        """Whether the row serves ``capability`` (a key of :data:`CAPABILITIES`)."""
        return CAPABILITIES[capability][0](self)

    def value_and_gradient(self, scores, is_pos, j_alpha, j_beta):
        """``(value, grad)``: the loss at ``scores`` and a (sub)gradient in them.

        ``scores`` float64 C-contiguous, ``is_pos`` boolean; no input checks.  A
        row with a ``cut`` answers with it (``Delta - s.coef``, ``-coef``; the
        DC difference of Section 6 for a ``"cccp"`` row with ``j_alpha > 0``,
        whose "subgradient" is then the gradient of that difference, exact
        wherever it is differentiable); else with its ``derivatives``.
        """
        labels = np.ascontiguousarray(is_pos, dtype=np.bool_).view(np.uint8)
        n_pos = int(np.count_nonzero(labels))
        if self.cut is None:
            grad = np.zeros(scores.shape[0])
            value = self.derivatives(scores, labels, n_pos, j_alpha, j_beta, grad,
                                     np.zeros(scores.shape[0]))
            return float(value), grad

        def structural(j_low, j_high):
            coef, delta = self.cut(scores, labels, n_pos, j_low, j_high)
            return float(delta - scores @ coef), -coef

        if self.solver == "cutting_plane" or j_alpha == 0:
            return structural(j_alpha, j_beta)
        # Theorem 5: j_w R(alpha, beta) = j_beta R(0, j_beta) - j_alpha R(0, j_alpha)
        value, grad = structural(0, j_beta)
        low_value, low_grad = structural(0, j_alpha)
        width = j_beta - j_alpha
        return ((j_beta * value - j_alpha * low_value) / width,
                (j_beta * grad - j_alpha * low_grad) / width)


def _logloss(scores, is_pos, n_pos, j_alpha, j_beta, grad, hess, scale=1.0, curvature=1.0):
    """The pointwise log-loss in the table's signature (no window: ``j_alpha`` and
    ``j_beta`` are ignored; its Hessian is exact, so ``curvature`` is too)."""
    return _window.logloss(scores, is_pos, grad, hess, scale=scale)


#: The table: name -> row, in the order the readers list them (boosting's losses first,
#: as GradientBoostingRanker has always listed them).  Tests add rows with
#: ``monkeypatch.setitem``.
LOSSES = {row.name: row for row in [
    Loss("exponential", None, _window.exponential, convex=True, solver=None, chunked=False,
         window=True, normalizable=True,
         global_derivatives=_Elsewhere("pauc.distributed._global_window", "exponential_global"),
         equations="RankBoost's pairwise loss (Freund et al. 2003) over the window's pairs",
         summary="exp(-(s_i - s_j)) over the window's pairs; factorises, O(n)"),
    Loss("squared_hinge", None, _window.squared_hinge, convex=True, solver=None,
         chunked=False, window=True,
         equations="max(0, 1 - (s_i - s_j))^2 over the window's pairs",
         summary="the squared pairwise hinge over the window's pairs"),
    Loss("tight", _structural.tight_cut, _window.tight_hinge, convex=True,
         solver="cutting_plane", chunked=True, window=True, aliases=("tight_hinge",),
         equations="eq. (14) for alpha = 0, eq. (18); Algorithms 2 and 3",
         summary="the tight structural surrogate (feature map on the top j_beta negatives); "
                 "boosting's 'tight_hinge', with a constant Hessian"),
    Loss("naive", _structural.naive_cut, None, convex=True, solver="cutting_plane",
         chunked=False, window=True,
         equations="eq. (11), Section 3.2",
         summary="the naive structural surrogate (feature map on all negatives); "
                 "looser, offered to compare"),
    Loss("hinge", _structural.tight_cut, None, convex=False, solver="cccp", chunked=True,
         window=True,
         equations="eq. (9), (10); Section 6, Algorithm 4",
         summary="the pairwise hinge loss over the window's negatives (SVM_pAUC^dc)"),
    Loss("logloss", None, _logloss, convex=True, solver=None, chunked=False, window=False,
         curvature=1.0, equations="the binary cross-entropy (no window)",
         summary="the pointwise log-loss, the usual baseline"),
]}

#: capability -> (test on a row, who needs it, in the words of a refusal)
CAPABILITIES = {
    "cut": (lambda row: row.cut is not None,
            "a structural SVM needs its most-violated-constraint search (a 'cut' kernel)"),
    "hessian": (lambda row: row.derivatives is not None,
                "boosting needs its gradient and a Hessian diagonal (a 'derivatives' "
                "kernel)"),
    "window": (lambda row: row.window,
               "a partial-AUC surrogate is a loss of the FPR window"),
    "chunked": (lambda row: row.cut is not None and row.chunked,
                "the chunked designs of pauc.distributed search only the losses whose "
                "search needs nothing of the negatives beyond the top j_beta"),
    "global": (lambda row: row.derivatives is not None
               and (row.global_derivatives is not None or not row.window),
               "a fit on several workers needs the loss's derivatives on the exact global "
               "window (a 'global_derivatives' kernel), or a pointwise loss"),
}


def loss_names(capability=None, *, aliases=False):
    """The names of the rows that serve ``capability`` (all rows for None), table
    order; with ``aliases``, each row's aliases follow its name."""
    return tuple(name for row in LOSSES.values()
                 if capability is None or row.has(capability)
                 for name in (row.names if aliases else (row.name,)))


def _resolve(name):
    if isinstance(name, str):
        for row in LOSSES.values():
            if name in row.names:
                return row
    return None


def loss_row(name, capability=None, *, what="loss", error=ValueError):
    """The row of ``name`` (or an alias), checked to serve ``capability``.

    Raises ``ValueError`` naming the rows that do when ``name`` is no row, and
    ``error`` (``ValueError`` by default) saying what the row lacks when it is one
    but does not serve ``capability``.  ``what`` names the parameter in messages.
    """
    row = _resolve(name)
    if row is None:
        raise ValueError(f"{what} must be one of {loss_names(capability)}, got {name!r}")
    if capability is not None and not row.has(capability):
        raise error(f"{what}={name!r} cannot be used here: {CAPABILITIES[capability][1]}; "
                    f"the losses that can: {loss_names(capability)}")
    return row
