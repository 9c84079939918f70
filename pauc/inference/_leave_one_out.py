"""ROC figures of merit left one case out at a time, for every case in O(K log K).

The jackknife of a reader study needs, for each of K cases, the figure of merit
computed without that case.  K refits cost O(K² log K); this module obtains
all K values exactly from one sort per class.

Every figure of merit here is a mean over the positives of a function of where
the positive sits among the negatives.  On the piecewise-linear empirical ROC
curve (a group of tied scores is one straight segment), the TPR at FPR ``u`` is
``(1/m) Σ_p c_p(u)``: a positive ``p`` tied with ``b`` negatives and below
``a`` others contributes 0 before ``u = a/n``, rises linearly to 1 over
``[a/n, (a+b)/n]`` (its share of the tied segment), and 1 after (a step when
``b = 0``).  Hence, with ``h(a, b, n)`` one number per positive,

* AUC: ``h = ∫_0^1 c_p = 1 − (a + b/2)/n`` (the placement value of DeLong et al.);
* raw partial area over [α, β]: ``h = ∫_α^β c_p(u) du``;
* TPR at FPR ``f`` on the interpolated curve: ``h = c_p(f)``;
* TPR at FPR ``f`` of a threshold rule ``score >= t`` (the best one passing at
  most ``f n`` negatives): ``h = 1[a + b <= k(n)]``, ``k(n)`` the largest
  integer with ``k / n <= f``;

and the figure of merit is ``M = (1/m) Σ_p h(a_p, b_p, n)``.  Leaving out

* a positive ``p``: the others' ``(a, b, n)`` do not change, so
  ``M_(p) = (Σ h − h_p) / (m − 1)``;
* a negative ``q`` of score ``s``: ``n`` becomes ``n − 1``, the positives
  below ``s`` lose one from ``a``, those tied with it one from ``b``, those
  above keep both.  Grouping the positives by distinct score, the sums of
  ``h(a, b, n − 1)`` over the groups above ``s`` and of ``h(a − 1, b, n − 1)``
  over those below are a suffix and a prefix sum, read at ``s``'s place in the
  sorted groups (a binary search): O(1) per negative after O(K log K).

The result equals the K refits to rounding (tested to 1e-12), ties included.

References
----------
DeLong, E. R., DeLong, D. M. and Clarke-Pearson, D. L. "Comparing the Areas
under Two or More Correlated Receiver Operating Characteristic Curves: A
Nonparametric Approach." Biometrics 44(3), 1988.  Efron, B. "The Jackknife,
the Bootstrap and Other Resampling Plans." SIAM, 1982.
"""

import numpy as np

from ._reader_kernels import auc_group_values, auc_jackknife, expand, group_scores
from ._tpr_interval import allowed_negatives


def auc_kernel():
    """``h(a, b, n)`` of the AUC: the share of negatives below, ties one half."""
    def h(a, b, n):
        return 1.0 - (a + 0.5 * b) / n
    h.is_auc = True      # PlacedScores.leave_one_out takes the AUC's shorter road
    return h


def _ramp_integral(x, lo, hi, tied):
    """``∫_0^x c(u) du`` for the ramp ``c`` rising from 0 at ``lo`` to 1 at ``hi``
    (a unit step at ``lo`` where ``tied`` is False, i.e. ``hi == lo``)."""
    width = np.where(tied, hi - lo, 1.0)           # 1.0: any non-zero value; unused
    inside = np.clip(x, lo, hi) - lo
    ramp = np.where(tied, inside * inside / (2.0 * width), 0.0)
    return ramp + np.maximum(x - hi, 0.0)


def partial_area_kernel(alpha, beta):
    """``h(a, b, n)`` of the raw area over FPR in [α, β] (not normalised)."""
    def h(a, b, n):
        lo, hi = a / n, (a + b) / n
        tied = b > 0
        return _ramp_integral(beta, lo, hi, tied) - _ramp_integral(alpha, lo, hi, tied)
    return h


def interpolated_tpr_kernel(fpr):
    """``h(a, b, n)`` of the height of the piecewise-linear ROC curve at ``fpr`` (at a
    vertical jump its top, as :func:`pauc.metrics.tpr_at_fpr` with ``interpolate``)."""
    def h(a, b, n):
        lo, hi = a / n, (a + b) / n
        tied = b > 0
        ramp = (np.clip(fpr, lo, hi) - lo) / np.where(tied, hi - lo, 1.0)
        return np.where(tied, ramp, (fpr >= lo).astype(np.float64))
    return h


def threshold_tpr_kernel(fpr):
    """``h(a, b, n)`` of the TPR of the best threshold rule with FPR <= ``fpr``: a
    positive counts when at most ``k(n)`` negatives score as high as it."""
    def h(a, b, n):
        return (a + b <= allowed_negatives(n, fpr)).astype(np.float64)
    return h


def kernel_scores(score):
    """``score`` as the compiled kernels take it: int64 or float64, contiguous.

    The order and the ties are kept: booleans and integers become int64
    (uint64 beyond 2**63 shifted by 2**63, which keeps the order), floats of
    at most 64 bits float64 (exact); anything else (``longdouble``, objects) is
    replaced by its rank among the distinct values.
    """
    score = np.asarray(score)
    kind, size = score.dtype.kind, score.dtype.itemsize
    if kind == "u" and size == 8 and score.shape[0] and score.max() >= 2 ** 63:
        return np.ascontiguousarray(score ^ np.uint64(2 ** 63)).view(np.int64)
    if kind in "biu":
        return np.ascontiguousarray(score, dtype=np.int64)
    if kind == "f" and size <= 8:
        return np.ascontiguousarray(score, dtype=np.float64)
    return np.unique(score, return_inverse=True)[1].ravel().astype(np.int64)


def _flags(is_pos):
    """The classes as the uint8 array the kernels read (a view of a bool array)."""
    return np.ascontiguousarray(is_pos, dtype=bool).view(np.uint8)


def jackknife_into(is_pos, score, h, out, m=None, work=None):
    """The figure of merit of ``score`` and its K leave-one-out values minus their mean,
    written into ``out`` (float64, shape (K,)): one reader x modality of the jackknife.

    The AUC takes one compiled pass (:func:`pauc.inference._reader_kernels.auc_jackknife`:
    no codes stored, no array pass in numpy); the other figures
    :meth:`PlacedScores.leave_one_out`.

    Parameters
    ----------
    is_pos : bool array of shape (K,)
    score : array of shape (K,)
    h : callable
        A kernel of this module.
    out : float64 array of shape (K,)
    m : int, optional
        The positives, when the caller has counted them.
    work : uint64 array of shape (K,), optional
        Room for the AUC's sort, reused by a caller with many vectors.

    Returns
    -------
    float
        The figure of merit.
    """
    if getattr(h, "is_auc", False):
        flags = _flags(is_pos)
        m = int(np.count_nonzero(flags)) if m is None else m
        n = flags.shape[0] - m
        _check_classes(m, n)
        return auc_jackknife(kernel_scores(score), flags, m, n, out, True, work)
    return PlacedScores(is_pos, score).leave_one_out(h, out=out, center=True)[0]


def _check_classes(m, n):
    if m < 2 or n < 2:
        raise ValueError(f"leaving one case out needs at least 2 positives and 2 "
                         f"negatives (got {m} and {n})")


class PlacedScores:
    """One score vector's distinct values with the positives and negatives at each.

    Attributes
    ----------
    codes : intp array of shape (K,)
        Each row's distinct value (0 = lowest).
    pos, neg : float64 arrays of shape (G,)
        Positives and negatives at each distinct value.
    above : float64 array of shape (G,)
        Negatives above each value (``a`` of the module docstring; ``b`` is ``neg``).
    m, n : int
    """

    def __init__(self, is_pos, score):
        self.is_pos = np.ascontiguousarray(is_pos, dtype=bool)
        self._flags = self.is_pos.view(np.uint8)
        # integer ratings on a short scale are counted (O(K)), other scores sorted once
        self.codes, self.pos, self.neg = group_scores(kernel_scores(score), self._flags)
        self.m = int(np.count_nonzero(self._flags))
        self.n = self.is_pos.shape[0] - self.m
        _check_classes(self.m, self.n)
        self.above = self.n - np.cumsum(self.neg)

    def figure(self, h):
        """``(1/m) Σ_p h(a_p, b_p, n)``."""
        # sums, not np.dot: a BLAS dot of 10^5 may wait on threads of a busy machine
        return float((self.pos * h(self.above, self.neg, self.n)).sum()) / self.m

    def leave_one_out(self, h, out=None, center=False):
        """The figure of merit and its K leave-one-out values, in row order.

        Parameters
        ----------
        h : callable
            A kernel of this module.
        out : float64 array of shape (K,), optional
            Receives the values (a new array when None).
        center : bool, default=False
            Subtract the values' mean (the jackknife's centring).

        Returns
        -------
        figure : float
        values : float64 array of shape (K,)
            ``out``.
        """
        a, b, counts, m, n = self.above, self.neg, self.pos, self.m, self.n
        if out is None:
            out = np.empty(self.codes.shape[0])
        if getattr(h, "is_auc", False):
            pos_out, neg_out = np.empty_like(counts), np.empty_like(counts)
            figure = auc_group_values(counts, b, m, n, pos_out, neg_out)
            expand(self.codes, self._flags, counts, b, pos_out, neg_out, out, center)
            return figure, out
        h_full = h(a, b, n)
        total = float((counts * h_full).sum())
        # a positive out: the others keep their places among the same negatives
        pos_out = (total - h_full) / (m - 1)
        # a negative out: values above it keep (a, b), those below lose one from a, its
        # own value one from b; all over n - 1 negatives
        above = counts * h(a, b, n - 1)
        below = counts * h(np.maximum(a - 1.0, 0.0), b, n - 1)
        above_sum = np.cumsum(above[::-1])[::-1] - above        # values strictly above
        below_sum = np.cumsum(below) - below                    # values strictly below
        own = counts * h(a, np.maximum(b - 1.0, 0.0), n - 1)
        neg_out = (above_sum + below_sum + own) / m
        # each row its value, by its distinct value and class (one compiled pass)
        expand(self.codes, self._flags, counts, b, np.ascontiguousarray(pos_out),
               np.ascontiguousarray(neg_out), out, center)
        return total / m, out

    def placement_values(self):
        """DeLong's placement values in row order: ``v10`` of the positives (share
        of negatives below, ties one half), ``v01`` of the negatives (share of
        positives above, ties one half)."""
        pos_above = self.m - np.cumsum(self.pos)
        v10 = 1.0 - (self.above + 0.5 * self.neg) / self.n
        v01 = (pos_above + 0.5 * self.pos) / self.m
        return v10[self.codes[self.is_pos]], v01[self.codes[~self.is_pos]]

    def weighted_figures(self, h, weights):
        """The figure of merit of resampled rows, one per row of ``weights``.

        Parameters
        ----------
        h : callable
        weights : float array of shape (B, K)
            Multiplicities of the rows, one resample per row; a stratified
            resample keeps the class sizes (each row's multiplicities sum to
            ``m`` over the positives and to ``n`` over the negatives).

        Returns
        -------
        float64 array of shape (B,)
            ``(1/m) Σ_p w_p h(a_p^w, b_p^w, n)``, ``a^w``, ``b^w`` the weighted
            counts of negatives above and tied (a row drawn twice is two rows).
        """
        n_values = self.pos.shape[0]
        out = np.empty(weights.shape[0])
        for row, w in enumerate(weights):
            pos = np.bincount(self.codes, weights=w * self.is_pos, minlength=n_values)
            neg = np.bincount(self.codes, weights=w * ~self.is_pos, minlength=n_values)
            out[row] = (pos * h(self.n - np.cumsum(neg), neg, self.n)).sum() / self.m
        return out
