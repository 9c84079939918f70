"""The features' scale as the master QP sees it (issue: unscaled features).

The structural SVMs minimise ``1/2 ||w||^2 + C R(X w)`` with ``R`` depending on
the scores only.  Replacing ``X`` by ``a X`` and ``w`` by ``w / a`` leaves the
scores unchanged, so fitting ``a X`` with ``C`` is fitting ``X`` with
``a**2 C`` (and dividing the solution by ``a``): a feature scale is a hidden
factor on ``C``.  Measured by the spread ``sigma`` of the rows
(:func:`spread`, the typical size of a cut vector), a problem behaves as
``C sigma**2`` on unit-scale features.

The master QP solves its dual variables (``sum <= C``) to about ``qp_eps``
relative accuracy, so ``w = sum_k lambda_k g_k`` carries noise of about
``RESOLUTION * qp_eps * C * sigma`` (see :mod:`pauc.svm._degenerate`), while a
solution that separates pairs by margins of order 1 has ``|w|`` of order
``1 / sigma``.  When ``C sigma**2 > 1 / (RESOLUTION * qp_eps)`` the latter falls
below the former: the master's solutions are rough, the cutting plane closes
its gap slowly or stalls, and a genuine ``w`` can no longer be told from
noise.  :func:`check_feature_scale` warns then (and the degenerate check keeps
``w`` rather than zeroing it), and refuses scales whose square overflows
float64 (the master's Gram matrix would hold infinities).
"""

import warnings

import numpy as np

from ..exceptions import FeatureScaleWarning

# |w| <= RESOLUTION * qp_eps * C * spread(X) is below what the master QP resolves.
RESOLUTION = 30.0

# Gram entries g.g reach about (2 sigma)**2 times the cuts' coefficient norms:
# beyond this sigma they overflow float64.
_LARGEST_SPREAD = 1e150


def spread(X):
    """``sqrt(mean_i |x_i - mean(x)|^2)``: the size of a cut vector in the features' units.

    A cut is ``X.T @ coef`` with coefficients summing to 0 (each pair adds
    ``+c`` to its positive and ``-c`` to its negative) and l1 norm at most 2: a
    difference of two weighted means of rows, so its norm is at most twice
    the largest distance of a row to the mean and typically about this.
    """
    n = X.shape[0]
    # No copy of X (the fit's memory budget): one dot product of the stored values.
    if hasattr(X, "tocsr"):             # scipy.sparse (summed duplicates assumed)
        data = X.tocsr().data
        square = float(np.dot(data, data)) / n
        mean = np.asarray(X.mean(axis=0, dtype=np.float64)).ravel()
    else:
        square = float(np.einsum("ij,ij->", X, X, dtype=np.float64)) / n
        mean = X.mean(axis=0, dtype=np.float64)
    return float(np.sqrt(max(square - float(mean @ mean), 0.0)))


def check_feature_scale(X, C, qp_eps, estimator_name, sigma=None):
    """Refuse or flag a feature scale the master QP cannot work with.

    ``sigma``: :func:`spread` of ``X`` when the caller has it (the CV estimators
    measure each fold once for all its values of ``C``).

    Returns
    -------
    sigma : float
        :func:`spread` of ``X``.
    resolvable : bool
        False when ``C sigma**2 > 1 / (RESOLUTION qp_eps)`` (after a
        :class:`~pauc.exceptions.FeatureScaleWarning`).

    Raises
    ------
    ValueError
        When ``sigma`` is so large that its square overflows float64.
    """
    sigma = spread(X) if sigma is None else float(sigma)
    if not np.isfinite(sigma) or sigma > _LARGEST_SPREAD:
        raise ValueError(
            f"{estimator_name}: the rows of X spread over sigma = {sigma:.3g} (root mean "
            f"square distance to their mean), beyond {_LARGEST_SPREAD:.0e}: the master QP's "
            "Gram matrix of cut vectors would overflow float64. Rescale the features "
            "(e.g. StandardScaler).")
    effective = C * sigma * sigma
    limit = 1.0 / (RESOLUTION * qp_eps)
    if effective > limit:
        warnings.warn(
            f"{estimator_name}: the rows of X spread over sigma = {sigma:.3g}, so C = {C:g} "
            f"acts as C sigma^2 = {effective:.3g} on unit-scale features, beyond what the "
            f"master QP resolves ({limit:.3g} = 1 / (30 qp_eps)): expect rough master "
            "solutions, slow convergence, and a model that may not beat w = 0. "
            "Standardize the features (e.g. StandardScaler) or lower C.",
            FeatureScaleWarning, stacklevel=4)
        return sigma, False
    return sigma, True
