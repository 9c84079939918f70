"""Simulated ranking problems of the TreeRank and Ranking Forests papers, with their
Bayes score functions and optimal AUCs.

* :func:`make_treerank_gaussian` — the toy example of TreeRank (Clémençon &
  Vayatis, Sec. VI): two Gaussian classes in R^5 with the same covariance and different
  means, ``p = 1/2``; the mean difference is either along one axis (case (i),
  where stumps can follow the optimal separator) or oblique (case (ii)).
* :func:`make_ranking_forest_data` — the "RF 10", "RF 20" and "RF 10 sparse"
  problems of Ranking Forests (Clémençon, Depecker & Vayatis, Sec. 5, Table 1).
* :func:`optimal_auc` — AUC* of those problems: closed forms where they exist,
  Monte-Carlo otherwise.
* :func:`ideal_tree_auc` — AUC of the ideal depth-D TreeRank tree s*_D of
  TreeRank, Sec. III-C/D (its population recursion), for the Gaussian example.

Each generator returns ``(X, y, optimal_score)`` with ``y`` in {0, 1} (1 =
positive, drawn with probability ``p``) and ``optimal_score`` a callable mapping
an array ``X`` to a strictly increasing transform of η(x) = P(Y = 1 | X = x),
i.e. an element of the optimal set S* = {T∘η} (TreeRank, Prop. 2).

Choices the papers leave open, and the RF 10 erratum
----------------------------------------------------
The papers give neither the class prior (we use ``p = 1/2``, as TreeRank does)
nor, for RF 20, the direction of μ+ − μ−.  Both covariances are isotropic, so
the direction leaves AUC* unchanged, but not what axis-parallel trees can do.
By default ``μ+ = 0.9·e1`` (``orientation="axis"``): the whole mean shift is
in the first feature.  ``orientation="oblique"`` spreads it evenly,
``μ+ = 0.9·(1, …, 1)/√20``.  The oblique reading reproduces Table 1's single
TreeRank row (mean test AUC 0.61 over 10 runs against the paper's 0.605; the axis
reading gives 0.69), and also its ordering of the forests, where Case 7
(q0 = q1 = 5) is the best.  With the axis reading, FR1 with q0 = 5 misses the one
informative mean feature at three nodes out of four, and Case 7 comes last
(``bench/reproduce_ranking_forests.py --rf20-orientation``).

**RF 10.** The paper states Σ+ = I and Σ- = 1.023·I with equal means.  The
optimal score is then −‖x‖² and AUC* = P(F(10, 10) < 1.023) = 0.514, not the
0.756 reported in Table 1.  A variance ratio of about 1.571 reproduces 0.756
(:func:`optimal_auc` computes it), so "1.023" is most likely a transcription
error.  ``var_ratio`` is therefore a parameter whose default
1.571 reproduces the paper's AUC*; pass ``var_ratio=1.023`` for the literal text.

**RF 10 sparse** is only described in words ("a 6-d marginal in common, η
depending on four components only", quadratic level sets).  We use
X = (U, V) with V ~ N(0, I_6) in both classes, U | + ~ N(0, I_4) and
U | − ~ N(0, s²·I_4), ``s² = 3.850`` (``var_ratio``), which gives
AUC* = P(F(4, 4) < s²) = 0.89 as in Table 1.

References
----------
Clémençon & Vayatis (2009), TreeRank; Clémençon, Depecker & Vayatis (2013),
Ranking Forests. Full entries in ``docs/references.rst``.
"""

import numbers

import numpy as np
from scipy import stats
from sklearn.utils import check_random_state

from .._validation import check_int
from ..metrics import roc_auc

__all__ = ["make_treerank_gaussian", "make_ranking_forest_data", "optimal_auc",
           "ideal_tree_auc"]

RF10_VAR_RATIO = 1.571          # reproduces AUC* = 0.756 (the text's 1.023 gives 0.514)
RF10_VAR_RATIO_AS_PRINTED = 1.023
RF20_MEAN_SHIFT = 0.9
RF20_VAR_RATIO = 1.23
RF10_SPARSE_VAR_RATIO = 3.850   # reproduces AUC* = 0.89
_NAMES = ("RF10", "RF20", "RF10-sparse")


def _check_n(n):
    return check_int(n, "n", 1)


def _check_p(p):
    if not isinstance(p, numbers.Real) or not 0.0 < p < 1.0:
        raise ValueError(f"p must lie in (0, 1), got {p!r}")
    return float(p)


def _check_var_ratio(var_ratio):
    if not isinstance(var_ratio, numbers.Real) or not np.isfinite(var_ratio) \
            or var_ratio <= 0 or var_ratio == 1:
        raise ValueError(f"var_ratio must be a positive number other than 1, got {var_ratio!r}")
    return float(var_ratio)


def _labels(n, p, rng):
    return (rng.random_sample(n) < p).astype(np.int64)


# ---------------------------------------------------------------------------
# Paper 000, Sec. VI: the Gaussian toy example
# ---------------------------------------------------------------------------

def _gaussian_direction(n_features, orientation):
    if orientation == "axis":
        u = np.zeros(n_features)
        u[0] = 1.0
    elif orientation == "oblique":
        u = np.full(n_features, 1.0 / np.sqrt(n_features))
    else:
        raise ValueError(f'orientation must be "axis" or "oblique", got {orientation!r}')
    return u


def make_treerank_gaussian(n, *, delta=1.0, orientation="axis", n_features=5, p=0.5,
                           random_state=None):
    """The toy example of TreeRank ([1]_, Sec. VI): X | Y ~ N(μ_Y, I_d).

    Negatives have mean 0, positives mean ``delta·u`` with ``u = e1``
    (``orientation="axis"``, case (i): the optimal separator is orthogonal to an
    axis) or ``u = (1, …, 1)/√d`` (``"oblique"``, case (ii)).  The paper gives
    d = 5, p = 1/2 and n = 1000 but not the means; ``delta`` is the Mahalanobis
    distance Δ between the classes.  η is increasing in ``x·u``, so the optimal
    score is ``x·u`` and AUC* = Φ(Δ/√2) (:func:`optimal_auc`).

    Parameters
    ----------
    n : int
    delta : float > 0, default=1.0
    orientation : {"axis", "oblique"}, default="axis"
    n_features : int, default=5
    p : float in (0, 1), default=0.5
        Probability of the positive class.
    random_state : int, RandomState or None

    Returns
    -------
    X : ndarray (n, n_features)
    y : ndarray (n,), 1 for positives
    optimal_score : callable, ``X -> X @ u``

    References
    ----------
    .. [1] Clémençon, S. and Vayatis, N. "Tree-based ranking methods." IEEE
       Transactions on Information Theory 55(9), 2009 (preprint
       hal-00268068).
    """
    n = _check_n(n)
    p = _check_p(p)
    if not isinstance(delta, numbers.Real) or not delta > 0:
        raise ValueError(f"delta must be positive, got {delta!r}")
    check_int(n_features, "n_features", 1)
    u = _gaussian_direction(n_features, orientation)
    rng = check_random_state(random_state)
    y = _labels(n, p, rng)
    X = rng.standard_normal((n, n_features)) + float(delta) * np.outer(y, u)

    def optimal_score(X):
        return np.asarray(X, dtype=np.float64) @ u

    return X, y, optimal_score


def ideal_tree_auc(delta, depth):
    """AUC of the ideal depth-``depth`` ranking tree s*_D on the Gaussian example.

    The population recursion of TreeRank ([1]_, Sec. III-C/D): each chord
    of slope ρ = Δβ/Δα between two knots of the depth-d curve receives the knot
    where ROC*' = ρ.  For Gaussian classes at Mahalanobis distance Δ that knot
    is at ``t = (log ρ + Δ²/2)/Δ``, ``α = 1 − Φ(t)``, ``β = 1 − Φ(t − Δ)``, and
    the AUC of the broken line is ½ Σ (α_{k+1} − α_k)(β_k + β_{k+1}).  Depth 1
    gives Φ(Δ/2); the values tend to AUC* = Φ(Δ/√2) with a gap O(4^-D)
    (Prop. 15).

    References
    ----------
    .. [1] Clémençon, S. and Vayatis, N. "Tree-based ranking methods." IEEE
       Transactions on Information Theory 55(9), 2009 (preprint
       hal-00268068).
    """
    if not isinstance(delta, numbers.Real) or not delta > 0:
        raise ValueError(f"delta must be positive, got {delta!r}")
    check_int(depth, "depth", 0)
    delta = float(delta)
    alpha, beta = np.array([0.0, 1.0]), np.array([0.0, 1.0])
    for _ in range(depth):
        slope = np.diff(beta) / np.diff(alpha)
        t = (np.log(slope) + 0.5 * delta**2) / delta
        new_alpha, new_beta = stats.norm.sf(t), stats.norm.sf(t - delta)
        alpha = np.insert(alpha, np.arange(1, alpha.size), new_alpha)
        beta = np.insert(beta, np.arange(1, beta.size), new_beta)
    return float(0.5 * np.sum(np.diff(alpha) * (beta[:-1] + beta[1:])))


# ---------------------------------------------------------------------------
# Paper 003, Sec. 5: RF 10, RF 20, RF 10 sparse
# ---------------------------------------------------------------------------

def _check_name(name):
    if name not in _NAMES:
        raise ValueError(f"name must be one of {list(_NAMES)}, got {name!r}")
    return name


def _default_var_ratio(name, var_ratio):
    if var_ratio is None:
        return {"RF10": RF10_VAR_RATIO, "RF20": RF20_VAR_RATIO,
                "RF10-sparse": RF10_SPARSE_VAR_RATIO}[name]
    return _check_var_ratio(var_ratio)


def _rf_sampler(name, var_ratio, orientation="axis"):
    """(dimension, sampler(y, rng) -> X, optimal score) of one RF problem."""
    if name == "RF10":
        def sample(y, rng):
            X = rng.standard_normal((y.shape[0], 10))
            X[y == 0] *= np.sqrt(var_ratio)
            return X

        # log g/h = ‖x‖²(1/v − 1)/2 + const: decreasing in ‖x‖² when v > 1.
        sign = -1.0 if var_ratio > 1 else 1.0

        def score(X):
            X = np.asarray(X, dtype=np.float64)
            return sign * np.einsum("ij,ij->i", X, X)

        return 10, sample, score
    if name == "RF10-sparse":
        def sample(y, rng):
            X = rng.standard_normal((y.shape[0], 10))
            X[y == 0, :4] *= np.sqrt(var_ratio)   # only U = X[:, :4] depends on Y
            return X

        sign = -1.0 if var_ratio > 1 else 1.0

        def score(X):
            U = np.asarray(X, dtype=np.float64)[:, :4]
            return sign * np.einsum("ij,ij->i", U, U)

        return 10, sample, score
    mu = RF20_MEAN_SHIFT * _gaussian_direction(20, orientation)

    def sample(y, rng):
        X = rng.standard_normal((y.shape[0], 20))
        X[y == 0] *= np.sqrt(var_ratio)
        X[y == 1] += mu
        return X

    def score(X):
        # Log-likelihood ratio log g(x) − log h(x), constants dropped.
        X = np.asarray(X, dtype=np.float64)
        D = X - mu
        return -0.5 * np.einsum("ij,ij->i", D, D) + 0.5 / var_ratio * np.einsum("ij,ij->i", X, X)

    return 20, sample, score


def make_ranking_forest_data(name, n, random_state=None, *, p=0.5, var_ratio=None,
                             orientation="axis"):
    """The simulated problems of Ranking Forests ([1]_, Sec. 5, Table 1).

    =============  ==  ==========================================  ============================
    name           q   positives G / negatives H                   AUC* (Table 1 / ours)
    =============  ==  ==========================================  ============================
    "RF10"         10  N(0, I) / N(0, v·I), v = 1.571              0.756 / 0.756 (closed form)
    "RF20"         20  N(μ+, I) / N(0, 1.23·I), ‖μ+‖ = 0.9          0.773 / ≈0.775 (Monte-Carlo)
    "RF10-sparse"  10  U ~ N(0, I_4) / N(0, s²·I_4), s² = 3.85,    0.89 / 0.89 (closed form)
                       V ~ N(0, I_6) in both classes
    =============  ==  ==========================================  ============================

    See the module docstring for the RF 10 covariance erratum (the text's 1.023
    gives AUC* = 0.514), the direction of the RF 20 mean shift and the
    assumptions behind "RF 10 sparse".

    Parameters
    ----------
    name : {"RF10", "RF20", "RF10-sparse"}
    n : int, number of samples
    random_state : int, RandomState or None
    p : float in (0, 1), default=0.5, probability of the positive class
    var_ratio : float, optional
        Variance of the negatives over that of the positives (on the informative
        coordinates); defaults 1.571 (RF10), 1.23 (RF20), 3.85 (RF10-sparse).
    orientation : {"axis", "oblique"}, default="axis"
        "RF20" only (the other problems have equal means): ``μ+ = 0.9·e1``, or
        ``μ+ = 0.9·(1, …, 1)/√20``, which reproduces Table 1's single TreeRank
        row (see the module docstring).  AUC* is the same for both.

    Returns
    -------
    X : ndarray (n, q)
    y : ndarray (n,), 1 for positives
    optimal_score : callable, the Bayes score (an increasing transform of η)

    References
    ----------
    .. [1] Clémençon, S., Depecker, M. and Vayatis, N. "Ranking Forests." Journal
       of Machine Learning Research 14, 2013 (preprint hal-00452577, 2010).
    """
    name = _check_name(name)
    n = _check_n(n)
    p = _check_p(p)
    var_ratio = _default_var_ratio(name, var_ratio)
    _gaussian_direction(20, orientation)       # refuses an unknown orientation
    rng = check_random_state(random_state)
    _, sample, score = _rf_sampler(name, var_ratio, orientation)
    y = _labels(n, p, rng)
    return sample(y, rng), y, score


def optimal_auc(name, *, delta=1.0, var_ratio=None, n_monte_carlo=400_000,
                random_state=0):
    """AUC* of a simulated problem: the AUC of its Bayes score under the true law.

    Closed forms: the Gaussian example (``name="treerank-gaussian"``, either
    orientation) has AUC* = Φ(Δ/√2); "RF10" has AUC* = P(F(10, 10) < v) and
    "RF10-sparse" P(F(4, 4) < s²) (for v > 1; the ratio of two independent
    χ² norms).  "RF20" (different means and covariances) has no closed form:
    Monte-Carlo with ``n_monte_carlo`` samples per class (standard error about
    0.4/√n_monte_carlo).

    Parameters
    ----------
    name : {"treerank-gaussian", "RF10", "RF20", "RF10-sparse"}
    delta : float, Mahalanobis distance of the Gaussian example
    var_ratio : float, optional, as in :func:`make_ranking_forest_data`
    n_monte_carlo : int, samples per class for "RF20"
    random_state : int, RandomState or None, seeds the Monte-Carlo draw

    Returns
    -------
    float

    References
    ----------
    .. [1] Clémençon, S. and Vayatis, N. "Tree-based ranking methods." IEEE
       Transactions on Information Theory 55(9), 2009 (preprint
       hal-00268068).
    .. [2] Clémençon, S., Depecker, M. and Vayatis, N. "Ranking Forests." Journal
       of Machine Learning Research 14, 2013 (preprint hal-00452577, 2010).
    """
    if name == "treerank-gaussian":
        if not isinstance(delta, numbers.Real) or not delta > 0:
            raise ValueError(f"delta must be positive, got {delta!r}")
        return float(stats.norm.cdf(delta / np.sqrt(2.0)))
    name = _check_name(name)
    v = _default_var_ratio(name, var_ratio)
    if name in ("RF10", "RF10-sparse"):
        dof = 10 if name == "RF10" else 4
        # P(‖x+‖² < ‖x-‖²) = P(χ²/χ² < v); by symmetry 1 − that when v < 1.
        value = stats.f.cdf(v, dof, dof)
        return float(value if v > 1 else 1.0 - value)

    m = _check_n(n_monte_carlo)
    rng = check_random_state(random_state)
    _, sample, score = _rf_sampler(name, v)
    y = np.repeat(np.array([1, 0]), m)
    return float(roc_auc(y, score(sample(y, rng))))
