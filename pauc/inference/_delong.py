"""DeLong's variance of the AUC by Sun & Xu's fast algorithm (O(n log n), no pairs).

The AUC is a two-sample U-statistic, ``θ = (1/(mn)) Σ_i Σ_j ψ(X_i, Y_j)`` with
``ψ(x, y) = 1`` if ``x > y``, ``1/2`` if tied, 0 else (X the positives' scores,
Y the negatives').  DeLong, DeLong & Clarke-Pearson (1988, eqs. (3)-(5)) estimate
its variance from the *placement values* (structural components)

    V10(X_i) = (1/n) Σ_j ψ(X_i, Y_j),     V01(Y_j) = (1/m) Σ_i ψ(X_i, Y_j),

as ``S10/m + S01/n`` with ``S10``, ``S01`` their sample variances (divisor
``m - 1``, ``n - 1``), and the covariance of two AUCs on the same rows from
the covariances of their placement values.  Formed pair by pair this is
O(mn); Sun & Xu (2014, eqs. (8)-(11)) obtain the placements from midranks:
``V10(X_i) = (T_Z(X_i) - T_X(X_i)) / n`` and ``V01(Y_j) = 1 - (T_Z(Y_j) -
T_Y(Y_j)) / m``, with ``T_Z``, ``T_X``, ``T_Y`` the midranks in the pooled
sample, among the positives, among the negatives.  ``T_Z(X_i) - T_X(X_i)`` is
the number of negatives below ``X_i`` plus half those tied with it, which
one merge of the two sorted classes counts (:func:`pauc._ranking.count_above`):
after one sort per class the placements cost O(m + n).

References
----------
DeLong, E. R., DeLong, D. M. and Clarke-Pearson, D. L. "Comparing the Areas
under Two or More Correlated Receiver Operating Characteristic Curves: A
Nonparametric Approach." Biometrics 44(3), 1988.  Sun, X. and Xu, W. "Fast
Implementation of DeLong's Algorithm for Comparing the Areas Under Correlated
Receiver Operating Characteristic Curves." IEEE Signal Processing Letters
21(11), 2014.
"""

import numpy as np

from .. import _ranking


def _check_sizes(m, n):
    if m < 2 or n < 2:
        raise ValueError(f"DeLong's variance needs at least 2 positives and 2 negatives "
                         f"(got {m} and {n}): one row of a class says nothing of that "
                         "class's spread, and no interval (DeLong's or the bootstrap's) can "
                         "be estimated from it; label more rows of the rarer class (the "
                         "bootstrap interval holds its level from about 20 of each)")


def placement_values(is_pos, score, *, keep_order=False):
    """Placement values and the AUC of one score vector.

    Parameters
    ----------
    is_pos : bool array of shape (n_samples,)
    score : float32 or float64 array of shape (n_samples,)
    keep_order : bool, default=False
        Return the placements in the order of the rows of each class (needed to
        pair two score vectors); otherwise in sorted order (one sort, not an
        argsort, per class).

    Returns
    -------
    v10 : float64 array of shape (m,)
        Per positive, the fraction of negatives ranked below it (ties one half).
    v01 : float64 array of shape (n,)
        Per negative, the fraction of positives ranked above it (ties one half).
    auc : float
        The AUC, computed exactly as :func:`pauc.metrics.roc_auc` does.
    """
    pos, neg = _ranking.split_by_label(score, is_pos)
    m, n = pos.shape[0], neg.shape[0]
    _check_sizes(m, n)
    if keep_order:
        order_pos = np.argsort(pos, kind="stable")
        order_neg = np.argsort(neg, kind="stable")
        pos, neg = pos[order_pos], neg[order_neg]
    else:
        pos.sort()
        neg.sort()
    # negatives above / tied with each positive, positives above / tied with each negative
    neg_above, neg_tied = _ranking.count_above(neg, pos)
    pos_above, pos_tied = _ranking.count_above(pos, neg)
    v10 = (n - neg_above - 0.5 * neg_tied) / n
    v01 = (pos_above + 0.5 * pos_tied) / m
    if keep_order:
        v10_rows, v01_rows = np.empty(m), np.empty(n)
        v10_rows[order_pos], v01_rows[order_neg] = v10, v01
        v10, v01 = v10_rows, v01_rows
    auc = _ranking.partial_area(pos, neg, 0.0, 1.0, 0.0, tp_total=float(m), fp_total=float(n))
    return v10, v01, auc


def delong_covariance(v10, v01):
    """DeLong's covariance matrix of K AUCs on the same rows (eqs. (4)-(5) of DeLong
    et al. 1988): ``S10/m + S01/n``.

    Parameters
    ----------
    v10 : array of shape (K, m)
        Placement values of the positives, one row per score vector, the columns
        the same positives in the same order.
    v01 : array of shape (K, n)

    Returns
    -------
    covariance : float64 array of shape (K, K)
    """
    v10, v01 = np.atleast_2d(v10), np.atleast_2d(v01)
    m, n = v10.shape[1], v01.shape[1]
    _check_sizes(m, n)
    s10 = np.atleast_2d(np.cov(v10, ddof=1))
    s01 = np.atleast_2d(np.cov(v01, ddof=1))
    return s10 / m + s01 / n


def delong_variance(is_pos, score):
    """``(auc, variance)`` of one score vector: one sort per class, then the AUC's
    merge and one merge per class summing the placements' squared deviations
    (no placement array is stored; the AUC is their mean, so the sums are
    centred exactly)."""
    pos, neg = _ranking.split_by_label(score, is_pos)
    m, n = pos.shape[0], neg.shape[0]
    _check_sizes(m, n)
    pos.sort()
    neg.sort()
    auc = _ranking.partial_area(pos, neg, 0.0, 1.0, 0.0, tp_total=float(m), fp_total=float(n))
    s10, s01 = _ranking.placement_deviations(pos, neg, auc)
    return auc, s10 / ((m - 1) * m) + s01 / ((n - 1) * n)
