"""Partial-AUC risk and its surrogates: value and one subgradient at any w.

For comparing surrogates (see the teaching notebook) and for plugging them
into other optimisers.  Narasimhan & Agarwal (2017) define, for the FPR
window [α, β] with ``j_α = ⌊nα⌋``, ``j_β = ⌈nβ⌉`` and the negatives ranked
by score, ``N = m (j_β − j_α)``:

===================  =======================================================  ==============
name                 value                                                    paper
===================  =======================================================  ==============
``"zero_one"``       ``(1/N) Σ_i Σ_{j=j_α+1}^{j_β} 1(s_i⁺ ≤ s_(j)⁻)``         eq. (8), (16)
``"hinge"``          ``(1/N) Σ_i Σ_{j=j_α+1}^{j_β} (1 − (s_i⁺ − s_(j)⁻))₊``   eq. (9), (10)
``"naive"``          structural, feature map on all negatives                 eq. (11)
``"tight"``          structural, feature map on the top-j_β negatives         eq. (14), (18)
``"exponential"``    ``(1/N) Σ_i Σ_{j=j_α+1}^{j_β} exp(−(s_i⁺ − s_(j)⁻))``    RankBoost
``"squared_hinge"``  ``(1/N) Σ_i Σ_{j=j_α+1}^{j_β} (1 − (s_i⁺ − s_(j)⁻))₊²``
===================  =======================================================  ==============

``fpr_range=(0, 1)`` gives the full-AUC versions (eq. (3), (4), (7): there
hinge = naive = tight, Theorem 1).  At every w::

    zero_one <= hinge,   zero_one <= tight <= naive,   hinge = tight when α = 0 (Theorem 5)

Erratum to Figure 3(c): for α > 0 it also draws ``hinge <= tight``, which
holds when every positive-negative score difference is at least 1 in absolute
value (Theorem 7's equality case, tight = hinge + η) but not in general.  One
positive scored 0 and two negatives scored −0.5, window [0.5, 1]: hinge = 0.5
(the window's negative is within the margin) while tight = 0 (Algorithm 3's
best row leaves the positive above both negatives).  Theorem 7's two bounds do
hold, and ``tests/test_surrogates.py`` checks both facts.

Everything is computed on the count representation (Appendix B.1): one
sort-based pass, never the m × n pairs.  ``"zero_one"`` is the risk itself;
the other names are the window losses of the one loss table
(:mod:`pauc._loss`), evaluated with their kernels: a structural
surrogate is ``loss − s·coef`` with subgradient ``−coef`` in the scores
(``−Xᵀ coef`` in ``w``).  The hinge surrogate over the window is the
difference of two top-k hinge sums, each equal to a tight [0, ·] surrogate by
Theorem 5::

    j_w · hinge(α, β) = j_β · tight(0, j_β) − j_α · tight(0, j_α)

which is also the DC decomposition that Algorithm 4 optimises (the table's
``solver="cccp"``).  For ``α > 0`` the hinge surrogate is not convex
(Theorem 2): its "subgradient" here is the gradient of that difference (exact
wherever it is differentiable).

References
----------
Narasimhan & Agarwal (2017): eqs. (8)-(18), Theorems 2, 5 and 7, Figure 3.  Full entries in ``docs/references.rst``.

Examples
--------
>>> import numpy as np
>>> from pauc.surrogates import surrogate_at_scores
>>> y = np.array([1, 1, 0, 0, 0, 0])
>>> s = np.array([3.1, -3.8, 0.6, -0.9, -0.7, -0.3])
>>> [round(surrogate_at_scores(k, s, y, fpr_range=(0.25, 0.75))[0], 4)
...  for k in ("zero_one", "hinge", "tight", "naive")]
[0.5, 2.15, 3.25, 3.975]
"""

import numpy as np
import scipy.sparse as sp

from ._validation import check_binary_scores, empirical_indices
from ._loss import loss_names, loss_row

__all__ = ["SURROGATES", "surrogate", "surrogate_at_scores"]

#: The names :func:`surrogate` knows: the risk, then the window losses of the loss
#: table (:mod:`pauc._loss`) as they were at import (a row added later is known too).
SURROGATES = ("zero_one",) + loss_names("window")


def _zero_one(scores, is_pos, j_alpha, j_beta):
    """eq. (8): share of (positive, window negative) pairs with s⁺ <= s⁻ (ties are errors)."""
    neg = np.sort(scores[~is_pos])[::-1][j_alpha:j_beta]      # window, descending
    ascending = neg[::-1]
    # for each positive, how many window negatives score at least as high
    at_least = ascending.shape[0] - np.searchsorted(ascending, scores[is_pos], side="left")
    value = at_least.sum() / (is_pos.sum() * (j_beta - j_alpha))
    return float(value), np.zeros(scores.shape[0])   # piecewise constant: 0 is a subgradient


def surrogate_at_scores(name, scores, y, *, fpr_range=(0.0, 1.0)):
    """Value of a partial-AUC risk or surrogate, and its subgradient in the scores.

    Parameters
    ----------
    name : {"zero_one", "tight", "naive", "hinge", "exponential", "squared_hinge"}
        See the module docstring (eqs. (8)-(18) of [1]_); any window loss added
        to the loss table (:mod:`pauc._loss`) is known here too.
    scores : array of shape (n_samples,)
        Scores of the training rows, e.g. ``X @ w``.
    y : array of shape (n_samples,)
        Binary labels (1 or True for positives).
    fpr_range : (float, float), default=(0.0, 1.0)
        The FPR window [α, β]; (0, 1) is the full AUC.

    Returns
    -------
    value : float
    grad : ndarray of shape (n_samples,)
        A subgradient with respect to the scores; the subgradient in ``w``
        of a linear scorer is ``X.T @ grad``.

    References
    ----------
    .. [1] Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for
       Optimizing the Partial Area Under the ROC Curve." Neural Computation
       29(7), 2017 (arXiv:1605.04337).
    """
    row = None if name == "zero_one" else loss_row(name, "window", what="surrogate")
    is_pos, scores, _ = check_binary_scores(y, scores)
    j_alpha, j_beta = empirical_indices(int((~is_pos).sum()), fpr_range)
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    if name == "zero_one":
        return _zero_one(scores, is_pos, j_alpha, j_beta)
    return row.value_and_gradient(scores, is_pos, j_alpha, j_beta)


def surrogate(name, w, X, y, *, fpr_range=(0.0, 1.0)):
    """Value and one subgradient in ``w`` of a surrogate of the linear scorer ``X @ w``.

    Parameters
    ----------
    name : {"zero_one", "tight", "naive", "hinge", "exponential", "squared_hinge"}
    w : array of shape (n_features,)
    X : array or scipy.sparse matrix of shape (n_samples, n_features)
    y : array of shape (n_samples,)
    fpr_range : (float, float), default=(0.0, 1.0)

    Returns
    -------
    value : float
    grad : ndarray of shape (n_features,)

    See :func:`surrogate_at_scores` for the names (eqs. (8)-(18) of [1]_).

    References
    ----------
    .. [1] Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for
       Optimizing the Partial Area Under the ROC Curve." Neural Computation
       29(7), 2017 (arXiv:1605.04337).
    """
    w = np.asarray(w, dtype=np.float64).ravel()
    if X.shape[1] != w.shape[0]:
        raise ValueError(f"w has {w.shape[0]} entries, X has {X.shape[1]} features")
    scores = np.asarray(X @ w).ravel()
    value, grad_scores = surrogate_at_scores(name, scores, y, fpr_range=fpr_range)
    grad = X.T @ grad_scores
    return value, np.asarray(grad.todense()).ravel() if sp.issparse(grad) else np.asarray(grad)
