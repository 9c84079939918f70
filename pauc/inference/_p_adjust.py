"""Adjusted p-values of a family of tests: Holm's step-down and Benjamini-Hochberg's step-up.

Holm (1979) controls the family-wise error rate (the chance of any false
rejection) under any dependence between the tests; Benjamini & Hochberg (1995)
control the false discovery rate (the expected share of false rejections among
the rejections) for independent or positively dependent tests.  Both are
written as adjusted p-values: reject hypothesis ``i`` at level ``q`` when its
adjusted p-value is ``<= q``.

References
----------
Holm, S. "A Simple Sequentially Rejective Multiple Test Procedure."
Scandinavian Journal of Statistics 6(2), 1979.  Benjamini, Y. and Hochberg, Y.
"Controlling the False Discovery Rate: A Practical and Powerful Approach to
Multiple Testing." Journal of the Royal Statistical Society B 57(1), 1995.
"""

import numpy as np

P_ADJUST_METHODS = ("holm", "bh")


def holm(pvalues):
    """Holm's adjusted p-values: with ``p_(1) <= ... <= p_(k)``, the ``i``-th is
    ``max_{j <= i} min(1, (k - j + 1) p_(j))``."""
    p = np.asarray(pvalues, dtype=np.float64)
    k = p.shape[0]
    order = np.argsort(p, kind="stable")
    stepped = np.minimum(1.0, (k - np.arange(k)) * p[order])
    adjusted = np.empty(k)
    adjusted[order] = np.maximum.accumulate(stepped)
    return adjusted


def benjamini_hochberg(pvalues):
    """Benjamini-Hochberg's adjusted p-values: with ``p_(1) <= ... <= p_(k)``, the
    ``i``-th is ``min_{j >= i} min(1, k p_(j) / j)``."""
    p = np.asarray(pvalues, dtype=np.float64)
    k = p.shape[0]
    order = np.argsort(p, kind="stable")
    stepped = np.minimum(1.0, k * p[order] / np.arange(1, k + 1))
    adjusted = np.empty(k)
    adjusted[order] = np.minimum.accumulate(stepped[::-1])[::-1]
    return adjusted


def check_p_adjust(method):
    """``method`` if it names an adjustment ("holm", "bh") or is None."""
    if method is not None and method not in P_ADJUST_METHODS:
        raise ValueError(f"p_adjust must be one of {P_ADJUST_METHODS} or None, got {method!r}")
    return method


def adjust_pvalues(pvalues, method):
    """Adjusted p-values by ``method`` ("holm", "bh" or None: unadjusted).

    NaN p-values (a test without a defined statistic) stay NaN and do not
    count in the family.
    """
    p = np.asarray(pvalues, dtype=np.float64)
    if check_p_adjust(method) is None:
        return p.copy()
    adjusted = np.full(p.shape[0], np.nan)
    defined = ~np.isnan(p)
    adjusted[defined] = (holm if method == "holm" else benjamini_hochberg)(p[defined])
    return adjusted
