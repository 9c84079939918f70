"""Most-violated-constraint oracles of the AUC / partial-AUC structural SVMs.

Each oracle answers line 10 of Algorithm 1 (Narasimhan & Agarwal, 2017) for
the current scores
``s = X @ w`` of all training rows:

.. math::

    \\bar\\pi = \\arg\\max_{Z, \\pi}\\; \\Delta(\\pi^*, \\pi)
               - w^\\top(\\phi(S, \\pi^*) - \\phi(S, \\pi)),

and returns it in the count representation of Appendix B.1, as ``(coef,
loss)``:

* ``coef`` -- one float per training row, ``>= 0`` on positives (how many
  negatives the positive is ranked below, over the normaliser) and ``<= 0``
  on negatives (minus how many positives it is ranked above), so that
  ``w^T (phi(pi*) - phi(pi_bar)) == scores @ coef`` and the cut vector is
  ``X.T @ coef`` -- one matrix-vector product, dense or sparse;
* ``loss`` -- ``Delta(pi*, pi_bar)``.

The structural surrogate at ``w`` is then ``loss - scores @ coef`` (see
:func:`structural_surrogate`), and a 1-slack cutting-plane solver adds the
constraint ``w . g >= loss - xi`` with ``g = X.T @ coef``.

Normalisation: the loss and the feature map share one normaliser,
``1 / (m (j_beta - j_alpha))`` (``1 / (m n)`` for the AUC), as in the proof of
Proposition 2; this is what makes Theorem 7's equality case hold.  The naive
surrogate uses the same normaliser for its all-negatives feature map (our
choice, the paper leaves it to its conference version): with it, naive >=
tight at every ``w``, the ordering of Figure 3.

All searches run in O((m + j_beta) log(m + j_beta) + n log n) time (the
naive one and the AUC sort all n negatives) and never form an ``m x n``
matrix; the loops live in :mod:`pauc._loss._structural`, and which loop searches
which surrogate is the loss table's (:mod:`pauc._loss`).
These functions validate their input at every call; the estimators validate
the labels once per fit and call the kernels directly.

Scores held as a dask array of row chunks (with labels in the same chunks)
give the same cut computed chunk by chunk on the workers, ``coef`` as a
persisted dask array (:mod:`pauc.distributed`).

References
----------
Narasimhan & Agarwal (2017), Algorithm 1 (line 10), Appendix B.1; Joachims (2005).  Full entries in ``docs/references.rst``.

Examples
--------
>>> import numpy as np
>>> from pauc.svm.oracles import auc_oracle, structural_surrogate
>>> scores = np.array([2.0, 0.5, 0.0, 1.0])
>>> y = np.array([True, True, False, False])
>>> coef, loss = auc_oracle(scores, y)
>>> float(loss - scores @ coef)  # = mean pairwise hinge (Theorem 1)
0.5
>>> structural_surrogate(auc_oracle, scores, y)
0.5
"""

import numpy as np

from .._dispatch import chunked, is_chunked
from .._validation import check_class_weights, check_window_indices
from .._loss._structural import weighted_auc_cut
from ._surrogates import surrogate_row

__all__ = [
    "auc_oracle",
    "pauc_tight_oracle",
    "pauc_naive_oracle",
    "structural_surrogate",
]


def _check_scores_labels(scores, y):
    """Scores as a contiguous float32/float64 vector, labels as uint8 0/1."""
    scores = np.asarray(scores)
    if scores.ndim != 1:
        raise ValueError(f"scores must be a 1-d array, got shape {scores.shape}")
    if scores.dtype != np.float32 and scores.dtype != np.float64:
        if scores.dtype.kind not in "biuf":
            raise ValueError(f"scores must be numeric, got dtype {scores.dtype}")
        scores = scores.astype(np.float64)
    scores = np.ascontiguousarray(scores)
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be a 1-d array, got shape {y.shape}")
    if y.shape[0] != scores.shape[0]:
        raise ValueError(
            f"scores and y differ in length: {scores.shape[0]} != {y.shape[0]}"
        )
    if y.dtype == np.bool_:
        is_pos = np.ascontiguousarray(y).view(np.uint8)
    else:
        if y.dtype.kind not in "biuf":
            raise ValueError(
                f"y must be boolean or 0/1 (True for positives), got dtype {y.dtype}"
            )
        is_pos = (y == 1)
        if not np.all(is_pos | (y == 0)):
            raise ValueError("y must be boolean or take only the values 0 and 1")
        is_pos = is_pos.view(np.uint8)
    # One reduction instead of isfinite(...).all(): NaN and inf propagate.
    if not np.isfinite(scores.sum(dtype=np.float64)):
        if not np.isfinite(scores).all():
            raise ValueError("scores contain NaN or infinity")
    n_pos = int(np.count_nonzero(is_pos))
    if n_pos == 0 or n_pos == scores.shape[0]:
        raise ValueError(
            "y holds only one class: the oracles need both positives and negatives"
        )
    return scores, is_pos, n_pos


def _check_sample_weight(sample_weight, scores, is_pos):
    weight = np.ascontiguousarray(sample_weight, dtype=np.float64)
    if weight.ndim != 1 or weight.shape[0] != scores.shape[0]:
        raise ValueError(
            f"sample_weight must be a 1-d array of length {scores.shape[0]}, "
            f"got shape {weight.shape}"
        )
    return check_class_weights(weight, is_pos.view(bool))


def _search(surrogate, scores, y, j_alpha=None, j_beta=None, sample_weight=None):
    """Validate, then run the surrogate table's kernel (``j_alpha = None``: the AUC)."""
    if is_chunked(scores):
        # row-chunked scores: the same cut, chunk by chunk (pauc._dispatch)
        return chunked("oracle")(surrogate, scores, y, j_alpha, j_beta, sample_weight)
    scores, is_pos, n_pos = _check_scores_labels(scores, y)
    n_neg = scores.shape[0] - n_pos
    if j_alpha is None:
        if sample_weight is not None:
            weight = _check_sample_weight(sample_weight, scores, is_pos)
            return weighted_auc_cut(scores, is_pos, n_pos, weight)
        j_alpha, j_beta = 0, n_neg
    j_alpha, j_beta = check_window_indices(j_alpha, j_beta, n_neg)
    return surrogate_row(surrogate).cut(scores, is_pos, n_pos, j_alpha, j_beta)


def auc_oracle(scores, y, sample_weight=None):
    """Most violated constraint of the AUC structural SVM (Joachims).

    Maximises ``Delta_AUC(pi*, pi) - w^T (phi(S, pi*) - phi(S, pi))`` over all
    orderings (eqs. (5)-(7) of [1]_): positives ranked by ``s_i``,
    negatives by ``s_j + 1``, i.e. the pair ``(i, j)`` is put in the wrong
    order exactly when ``s_i - s_j < 1`` (Appendix A.1).  The surrogate
    ``loss - scores @ coef`` equals the mean pairwise hinge loss, eq. (4)
    (Theorem 1).

    Parameters
    ----------
    scores : ndarray of shape (n_samples,), float64 or float32
        ``X @ w`` for every training row.
    y : ndarray of shape (n_samples,), bool or {0, 1}
        True (1) for positives.
    sample_weight : ndarray of shape (n_samples,), default=None
        Non-negative row weights; the pair ``(i, j)`` then weighs
        ``w_i w_j`` and the normaliser ``m n`` becomes ``W+ W-`` (the sums of
        the weights of each class), so that integer weights act as repeated
        rows.  The maximiser is the same ordering; the surrogate is the
        weighted mean pairwise hinge loss.

    Returns
    -------
    coef : ndarray of shape (n_samples,), float64
        ``r_i / (m n)`` on positives (negatives ranked above them), ``-c_j /
        (m n)`` on negatives (positives ranked below them); with weights,
        ``w_i`` times the weight of those rows, over ``W+ W-``.
    loss : float
        ``Delta_AUC`` of the maximiser.

    References
    ----------
    .. [1] Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for
       Optimizing the Partial Area Under the ROC Curve." Neural Computation
       29(7), 2017 (arXiv:1605.04337).
    .. [2] Joachims, T. "A Support Vector Method for Multivariate Performance
       Measures." ICML 2005.
    """
    return _search("tight", scores, y, sample_weight=sample_weight)


def pauc_tight_oracle(scores, y, j_alpha, j_beta):
    """Most violated constraint of the tight pAUC structural SVM.

    ``j_alpha == 0``: Algorithm 2 (FPR range [0, beta], eq. (14)) -- the top
    ``j_beta`` negatives by score, then the AUC search on them; the surrogate
    equals the hinge loss over the top ``j_beta`` negatives, eq. (10)
    (Theorem 5).  ``j_alpha > 0``: Algorithm 3 (range [alpha, beta], eq. (18))
    -- per positive, the better of the rows ``r in {0..j_alpha}`` (zero
    margin against the first ``j_alpha`` negatives) and ``r in
    {j_alpha+1..j_beta}`` (margin one inside the window), using prefix sums
    of the sorted top ``j_beta`` negatives (OP3); the surrogate lies between
    the bounds of Theorem 7.

    Parameters
    ----------
    scores : ndarray of shape (n_samples,), float64 or float32
        ``X @ w`` for every training row.
    y : ndarray of shape (n_samples,), bool or {0, 1}
        True (1) for positives.
    j_alpha, j_beta : int
        ``floor(n alpha)`` and ``ceil(n beta)`` for the ``n`` negatives
        (eq. (2); see :func:`pauc._validation.empirical_indices`), with
        ``0 <= j_alpha < j_beta <= n``.

    Returns
    -------
    coef : ndarray of shape (n_samples,), float64
        ``r_i / N`` on positives, ``-c_j / N`` on the top ``j_beta`` negatives,
        0 on the other negatives, with ``N = m (j_beta - j_alpha)``.
    loss : float
        ``Delta^tr_pAUC`` of the maximiser, eq. (17).

    References
    ----------
    .. [1] Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for
       Optimizing the Partial Area Under the ROC Curve." Neural Computation
       29(7), 2017 (arXiv:1605.04337).
    """
    return _search("tight", scores, y, j_alpha, j_beta)


def pauc_naive_oracle(scores, y, j_alpha, j_beta):
    """Most violated constraint of the naive pAUC structural SVM, eq. (11).

    The loss counts window positions ``j_alpha+1..j_beta`` but the feature
    map spans *all* ``n`` negatives (normalised, like the tight surrogates,
    by ``1 / (m (j_beta - j_alpha))`` so that the two are comparable: naive
    >= tight for every ``w``).  The paper defers this oracle to its
    conference version; the search is derived in :mod:`pauc._loss._structural`:
    by Theorem 8's swap argument each positive's row is a prefix of the
    negatives sorted by score, and the best prefix is a query on the upper
    hull of ``g(r) + Z_r`` (window-clipped count plus prefix sums), i.e. the
    best of three concave stretches -- Algorithm 3's two families plus
    ``r in {j_beta..n}``, the zero-margin terms beyond the window that make
    this surrogate looser.

    Parameters
    ----------
    scores : ndarray of shape (n_samples,), float64 or float32
        ``X @ w`` for every training row.
    y : ndarray of shape (n_samples,), bool or {0, 1}
        True (1) for positives.
    j_alpha, j_beta : int
        Window of negative positions, ``0 <= j_alpha < j_beta <= n``.

    Returns
    -------
    coef : ndarray of shape (n_samples,), float64
        ``r_i / N`` on positives, ``-c_j / N`` on negatives,
        ``N = m (j_beta - j_alpha)``.
    loss : float
        ``Delta_pAUC`` of the maximiser.

    References
    ----------
    .. [1] Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for
       Optimizing the Partial Area Under the ROC Curve." Neural Computation
       29(7), 2017 (arXiv:1605.04337).
    """
    return _search("naive", scores, y, j_alpha, j_beta)


def structural_surrogate(oracle, scores, y, **kwargs):
    """Value of an oracle's structural surrogate at the given scores.

    ``max_pi H_w(pi) = loss - scores @ coef`` for ``(coef, loss) =
    oracle(scores, y, **kwargs)``; non-negative, and an upper bound on the
    corresponding (partial) AUC risk.

    Parameters
    ----------
    oracle : callable
        :func:`auc_oracle`, :func:`pauc_tight_oracle` or
        :func:`pauc_naive_oracle`.
    scores, y : ndarray of shape (n_samples,)
        As for the oracle.
    **kwargs
        ``j_alpha`` and ``j_beta`` for the pAUC oracles, ``sample_weight``
        for :func:`auc_oracle`.

    Returns
    -------
    float

    References
    ----------
    .. [1] Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for
       Optimizing the Partial Area Under the ROC Curve." Neural Computation
       29(7), 2017 (arXiv:1605.04337).
    """
    coef, loss = oracle(scores, y, **kwargs)
    return float(loss - np.asarray(scores, dtype=np.float64) @ coef)
