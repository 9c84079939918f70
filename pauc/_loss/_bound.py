"""A row of the loss table bound to the training labels and the FPR window.

Boosting asks one thing of a loss every round: its gradient and a Hessian
diagonal at the current scores.  :class:`BoundLoss` answers it for any row of
:mod:`pauc._loss._table`, and is the one place that writes the calling
protocol of the rows' ``derivatives`` kernels:

* ``scale``: the kernels return a mean (over pairs, or rows); the derivatives
  are scaled by the number of rows, so that a leaf's Newton step and the
  engines' ``min_child_weight`` / ``min_sum_hessian`` read a sum over rows as
  with their own objectives;
* ``curvature``: the row's factor on its exact Hessian diagonal
  (``PAIRWISE_CURVATURE`` for a pairwise loss);
* ``normalize``: a row that offers it (the exponential loss) divides its
  derivatives by their largest entry when it is alone, since its values
  overflow as the margins grow and a Newton step does not depend on the scale;
* the log-loss mixture ``w * logloss + window loss`` (``logloss_weight=w``),
  and the pointwise log-loss itself (weight 1, no window part).

So that no training loop branches on a loss name: :mod:`pauc.objectives`
(LightGBM and XGBoost), pauc's oblivious trees and the distributed objective
read the row's fields through it.

References
----------
Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for Optimizing the
Partial Area Under the ROC Curve." Neural Computation 29(7), 2017: eq. (2).

Freund, Y., Iyer, R., Schapire, R. E. and Singer, Y. "An Efficient Boosting
Algorithm for Combining Preferences." JMLR 4, 2003.
"""

import numpy as np

from .._validation import empirical_indices
from . import _window
from ._table import loss_row

__all__ = ["BoundLoss", "mixture"]


def mixture(row, logloss_weight=0.0, normalize=True):
    """``(pointwise_weight, normalize)`` of ``row`` in the mixture ``w * logloss +
    window loss``: the weight of the pointwise log-loss part (1 for the log-loss row
    itself, which has no window part) and whether the window part normalises its
    derivatives (a row that offers it, alone).  The one rule of every caller, in
    one process (:class:`BoundLoss`) or over several workers
    (:mod:`pauc.distributed`)."""
    weight = float(logloss_weight) if row.window else 1.0
    return weight, bool(normalize and row.normalizable and weight == 0)


class BoundLoss:
    """The loss ``name`` (a row of the table with ``derivatives``) at the labels
    ``is_pos`` and the window ``fpr_range``.

    Parameters
    ----------
    name : str
        A row (or alias) with a Hessian diagonal.
    is_pos : bool array of shape (n_samples,)
    fpr_range : (float, float)
    logloss_weight : float >= 0, default=0.0
        ``w`` of the mixture ``w * logloss + window loss`` (ignored by the
        pointwise log-loss, which is weight 1 alone).
    normalize : bool, default=True
        Let a row that offers it normalise its derivatives when it is alone.

    Attributes
    ----------
    row : pauc._loss._table.Loss
    n_pos, n_neg, j_alpha, j_beta : int
    pointwise_weight : float
        The weight of the log-loss part (0: none).
    """

    def __init__(self, name, is_pos, fpr_range, logloss_weight=0.0, normalize=True):
        self.row = loss_row(name, "hessian")
        self.is_pos = np.ascontiguousarray(is_pos, dtype=np.bool_).view(np.uint8)
        self.n_pos = int(np.count_nonzero(self.is_pos))
        self.n_neg = int(self.is_pos.shape[0] - self.n_pos)
        self.j_alpha, self.j_beta = empirical_indices(self.n_neg, fpr_range)
        self.pointwise_weight, self.normalize = mixture(self.row, logloss_weight, normalize)

    @property
    def n_rows(self):
        return self.is_pos.shape[0]

    def gradient_hessian(self, scores, out=None, with_value=False):
        """``(grad, hess)`` at ``scores`` (float32 or float64, C-contiguous), added
        into ``out = (grad, hess)`` (float64, zeros for the derivatives alone) or
        into new zero arrays; with ``with_value`` also the loss, ``(grad, hess,
        value)`` (the mean over pairs, plus ``w`` times the mean log-loss)."""
        grad, hess = out if out is not None else (np.zeros(self.n_rows), np.zeros(self.n_rows))
        value = self.accumulate(scores, grad, hess, with_value)
        return (grad, hess, value) if with_value else (grad, hess)

    def value(self, scores):
        """The loss at ``scores``."""
        return self.gradient_hessian(scores, with_value=True)[2]

    def accumulate(self, scores, grad, hess, with_value=True):
        """Add the scaled derivatives into ``grad`` and ``hess``; return the loss
        (NaN without ``with_value`` when a log-loss part is in it)."""
        n = float(self.n_rows)
        value = 0.0
        w = self.pointwise_weight
        if w > 0:
            value += w * _window.logloss(scores, self.is_pos, grad, hess, scale=w * n,
                                         with_value=with_value)
        if self.row.window:
            extra = {"normalize": True} if self.normalize else {}
            value += self.row.derivatives(scores, self.is_pos, self.n_pos, self.j_alpha,
                                          self.j_beta, grad, hess, scale=n,
                                          curvature=self.row.curvature, **extra)
        return value
