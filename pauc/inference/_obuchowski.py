"""Obuchowski's variance of the AUC for clustered data (DeLong's, with clusters).

With ``I`` clusters, cluster ``i`` holding ``m_i`` positives and ``n_i``
negatives (``M = Σ m_i``, ``N = Σ n_i``), the placement values of DeLong et
al. are summed per cluster, ``V10_i = Σ_j V10(X_ij)`` and ``V01_i = Σ_k
V01(Y_ik)`` (computed over *all* rows of the other class, Sun & Xu's
O(n log n) way, :func:`pauc.inference._delong.placement_values`).  Obuchowski (1997,
Sec. 2) estimates

    S10 = I10 / ((I10 - 1) M) Σ_i (V10_i - m_i θ)²
    S01 = I01 / ((I01 - 1) N) Σ_i (V01_i - n_i θ)²
    S11 = I / (I - 1)        Σ_i (V10_i - m_i θ)(V01_i - n_i θ)

    var(θ) = S10 / M + S01 / N + 2 S11 / (M N)

(``I10``, ``I01``: the clusters holding positives, negatives), and the
covariance of two AUCs on the same clustered rows with the cross products,
``S11^{rs} + S11^{sr}`` in place of ``2 S11``.  With one row per cluster
``S11 = 0`` and the rest is DeLong's variance exactly.

References
----------
Obuchowski, N. A. "Nonparametric analysis of clustered ROC curve data."
Biometrics 53(2), 567-578, 1997.  DeLong, E. R., DeLong, D. M. and
Clarke-Pearson, D. L. "Comparing the Areas under Two or More Correlated
Receiver Operating Characteristic Curves: A Nonparametric Approach."
Biometrics 44(3), 1988.
"""

import numpy as np

from ._clusters import group_composition
from ._delong import delong_covariance, placement_values


def clustered_delong_covariance(is_pos, scores, group_index):
    """The AUCs of K score vectors on the same clustered rows and Obuchowski's
    covariance matrix of them.

    Parameters
    ----------
    is_pos : bool array of shape (n_samples,)
    scores : list of K float arrays of shape (n_samples,)
    group_index : int64 array of shape (n_samples,)
        Codes ``0..G-1`` of the clusters.

    Returns
    -------
    aucs : float64 array of shape (K,)
    covariance : float64 array of shape (K, K)
    """
    group_pos, group_neg = group_composition(is_pos, group_index)
    n_groups = group_pos.shape[0]
    m, n = float(group_pos.sum()), float(group_neg.sum())
    pos_group, neg_group = group_index[is_pos], group_index[~is_pos]
    aucs, dev10, dev01 = [], [], []
    for score in scores:
        v10, v01, auc = placement_values(is_pos, score, keep_order=True)
        aucs.append(auc)
        # per cluster: placements summed, minus what they sum to at the mean
        dev10.append(np.bincount(pos_group, weights=v10, minlength=n_groups) - group_pos * auc)
        dev01.append(np.bincount(neg_group, weights=v01, minlength=n_groups) - group_neg * auc)
    dev10, dev01 = np.stack(dev10), np.stack(dev01)
    i10, i01 = np.count_nonzero(group_pos), np.count_nonzero(group_neg)
    s10 = i10 / ((i10 - 1) * m) * (dev10 @ dev10.T)
    s01 = i01 / ((i01 - 1) * n) * (dev01 @ dev01.T)
    s11 = n_groups / (n_groups - 1) * (dev10 @ dev01.T)
    return np.array(aucs), s10 / m + s01 / n + (s11 + s11.T) / (m * n)


def auc_covariance(is_pos, scores, group_index=None):
    """``(aucs, covariance)`` of K score vectors on the same rows: DeLong's
    (:func:`pauc.inference._delong.delong_covariance`), or Obuchowski's with clusters."""
    if group_index is not None:
        return clustered_delong_covariance(is_pos, scores, group_index)
    placements = [placement_values(is_pos, score, keep_order=True) for score in scores]
    covariance = delong_covariance(np.stack([v10 for v10, _, _ in placements]),
                                   np.stack([v01 for _, v01, _ in placements]))
    return np.array([auc for _, _, auc in placements]), covariance
