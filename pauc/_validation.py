"""Input checks shared by the metrics and the estimators.

Every public entry point validates here, so that users get one clear
``ValueError`` naming the problem instead of a traceback from a Cython loop.
"""

import math
import numbers

import numpy as np
from sklearn.utils import column_or_1d
from sklearn.utils.validation import _check_sample_weight



def check_pos_label(classes, pos_label):
    """The positive label of a binary problem: the one rule of the whole package.

    scikit-learn's rule (``sklearn.metrics`` and its scorers): without
    ``pos_label`` the labels must be {0, 1}, {-1, 1} or booleans (or one of
    those values alone) and the positive class is 1 (True); any other label
    set -- {1, 2}, {-1, 0}, strings -- must name its positive class.  The
    metrics, the scorers, the loaders and every ranker resolve the positive
    class here.

    Parameters
    ----------
    classes : ndarray
        The distinct labels (sorted).
    pos_label : label or None

    Returns
    -------
    pos_label
        A value equal to one of ``classes``.
    """
    values = classes.tolist()
    if pos_label is not None:
        if isinstance(pos_label, float) and pos_label != pos_label:
            raise ValueError("pos_label is NaN; name one of the labels")
        if pos_label not in set(values):
            raise ValueError(
                f"pos_label={pos_label!r} is not one of the labels {values[:10]}"
            )
        return pos_label
    numeric = classes.dtype.kind in "biuf"
    if not numeric or not any(set(values) <= allowed and (1 in set(values) or len(values) == 1)
                              for allowed in ({0, 1}, {-1, 1})):
        raise ValueError(
            f"the labels are {values[:10]}: pass pos_label to say which one is the positive "
            "class (without it the labels must be {0, 1}, {-1, 1} or booleans, and 1 is "
            "positive)"
        )
    return True if classes.dtype == np.bool_ else 1


def _classes(y):
    """The distinct labels of ``y`` (at most three are reported when more exist).

    ``numpy.unique`` sorts: at 10^7 labels it costs as much as sorting the
    scores, so numeric labels are checked with min/max and one comparison pass.
    """
    if y.dtype == np.bool_:
        n_true = np.count_nonzero(y)
        return np.array([v for v, present in ((False, n_true < y.shape[0]), (True, n_true > 0))
                         if present])
    if y.dtype.kind in "iuf" and y.shape[0] > 0:
        lo, hi = y.min(), y.max()
        if lo == hi:
            return np.array([lo])
        other = (y != lo) & (y != hi)
        if other.any():
            return np.unique(y)
        return np.array([lo, hi])
    return np.unique(y)


def check_class_weights(weight, is_pos):
    """Row weights (float64, one per row) that are finite, non-negative and give
    each class a positive total; the one wording of these checks."""
    if not np.isfinite(weight).all() or (weight < 0).any():
        raise ValueError("sample_weight must be finite and non-negative")
    if weight[is_pos].sum() <= 0 or weight[~is_pos].sum() <= 0:
        raise ValueError("sample_weight gives one class a total weight of zero; ranking "
                         "needs both classes")
    return weight


def positives_and_weights(y, pos_label, sample_weight, like):
    """``(is_pos, weight)``: the rows of the positive class, and the row weights
    (one per row of ``like``) checked by :func:`check_class_weights`, or None."""
    is_pos = y == pos_label
    if sample_weight is None:
        return is_pos, None
    return is_pos, check_class_weights(
        _check_sample_weight(sample_weight, like, dtype=np.float64), is_pos)


def check_binary_classes(classes, pos_label):
    """The positive label of the metrics' ``y_true`` from its distinct labels ``classes``.

    Raises unless there are exactly two classes (the metrics' wording); then
    :func:`check_pos_label`.
    """
    if classes.shape[0] > 2:
        raise ValueError(
            f"y_true must be binary; it takes {classes.shape[0]} values: {classes[:10].tolist()}"
        )
    if classes.shape[0] < 2:
        raise ValueError(
            "y_true holds only one class: ROC metrics need both positives and negatives"
        )
    return check_pos_label(classes, pos_label)


# float64 holds every integer of magnitude up to 2**53 exactly, and no more.
_EXACT_INTEGERS = 2 ** 53


def _integer_ranks(y_score):
    """Dense ranks (float64) and distinct values of integer scores float64 cannot hold.

    Distinct integers beyond 2**53 (nanosecond timestamps, hashed ids) can round
    to the same float64, or keep their order only by luck: ranking them as
    floats ties or swaps them.  Their dense ranks order and tie exactly as the
    integers do and are small enough for float64.  Returns None when the scores
    are not integers, or are all within +-2**53.
    """
    if y_score.dtype.kind == "O":
        if not all(isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_))
                   for v in y_score):
            return None
    elif y_score.dtype.kind not in "iu":
        return None
    if y_score.shape[0] == 0 or (-_EXACT_INTEGERS <= y_score.min()
                                 and y_score.max() <= _EXACT_INTEGERS):
        return None
    values, ranks = np.unique(y_score, return_inverse=True)
    return ranks.astype(np.float64).ravel(), values


def check_binary_scores(y_true, y_score, *, pos_label=None, sample_weight=None,
                        exact_ranks=False):
    """Validate a binary ranking problem.

    With ``exact_ranks`` (the rank-based metrics), integer scores beyond
    2**53 in magnitude are replaced by their dense ranks, which float64
    holds exactly, so that they order and tie as the integers do; the
    distinct values are returned to map ranks back to scores.

    Returns
    -------
    is_pos : bool array
    score : float array (float32 kept, anything else as float64)
    weight : float64 array or None
    values : ndarray or None
        Only with ``exact_ranks``: the distinct scores, ``values[k]`` being
        the score of rank ``k`` when ``score`` holds ranks, else None.
    """
    y_true = column_or_1d(y_true, warn=True)
    y_score = column_or_1d(y_score, warn=True)
    if y_true.shape[0] != y_score.shape[0]:
        raise ValueError(
            f"y_true and y_score differ in length: {y_true.shape[0]} != {y_score.shape[0]}"
        )
    ranked = _integer_ranks(y_score) if exact_ranks else None
    values = None
    if ranked is not None:
        y_score, values = ranked
    elif y_score.dtype != np.float32:
        y_score = y_score.astype(np.float64, copy=False)
    if not np.isfinite(y_score).all():
        raise ValueError("y_score contains NaN or infinity")
    pos_label = check_binary_classes(_classes(y_true), pos_label)
    is_pos, weight = positives_and_weights(y_true, pos_label, sample_weight, y_score)
    if exact_ranks:
        return is_pos, y_score, weight, values
    return is_pos, y_score, weight


def check_fpr_range(fpr_range, name="fpr_range"):
    """Return ``(alpha, beta)`` as floats with 0 <= alpha < beta <= 1."""
    try:
        alpha, beta = fpr_range
        alpha, beta = float(alpha), float(beta)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a pair (alpha, beta), got {fpr_range!r}") from None
    if not (math.isfinite(alpha) and math.isfinite(beta)):
        raise ValueError(f"{name} must be finite, got {fpr_range!r}")
    if not (0.0 <= alpha < beta <= 1.0):
        raise ValueError(f"{name} must satisfy 0 <= alpha < beta <= 1, got {fpr_range!r}")
    return alpha, beta


def check_rate(value, name, *, low_open=False, high_open=False):
    """``value`` as a float in [0, 1] (ends excluded as asked), or a ValueError naming ``name``.

    NaN, booleans, strings and None are refused: a rate given as ``"0.1"`` is
    a mistake to report, not a number to guess.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number in [0, 1], got {value!r}")
    rate = float(value)
    low_ok = rate > 0.0 if low_open else rate >= 0.0
    high_ok = rate < 1.0 if high_open else rate <= 1.0
    if not (low_ok and high_ok):      # also refuses NaN
        interval = ("(" if low_open else "[") + "0, 1" + (")" if high_open else "]")
        raise ValueError(f"{name} must be in {interval}, got {value!r}")
    return rate


def _near_integer(x):
    r = round(x)
    return r if abs(x - r) <= 1e-9 * max(1.0, abs(x)) else None


def empirical_indices(n_negatives, fpr_range):
    """``(j_alpha, j_beta) = (floor(n·alpha), ceil(n·beta))``, eq. (2) of Narasimhan & Agarwal.

    ``n·alpha`` that is an integer up to floating-point noise (say 100 · 0.07)
    is taken as that integer, so that ``ceil`` does not jump one position.
    Raises when the window holds no negative position (``j_beta - j_alpha < 1``).
    """
    alpha, beta = check_fpr_range(fpr_range)
    a, b = n_negatives * alpha, n_negatives * beta
    j_alpha = _near_integer(a)
    j_alpha = math.floor(a) if j_alpha is None else j_alpha
    j_beta = _near_integer(b)
    j_beta = math.ceil(b) if j_beta is None else j_beta
    if j_beta - j_alpha < 1:
        raise ValueError(
            f"fpr_range={fpr_range!r} selects no negative position among {n_negatives} "
            f"negatives (j_alpha={j_alpha}, j_beta={j_beta}); widen the range or use more "
            "negatives"
        )
    return j_alpha, j_beta


def indices_among(n_negatives, fpr_range, negatives="training negatives"):
    """:func:`empirical_indices`, with the boosting fits' message naming which
    ``negatives`` (the training rows, a fold's training part) left the window empty."""
    try:
        return empirical_indices(n_negatives, fpr_range)
    except ValueError:
        raise ValueError(
            f"fpr_range={fpr_range!r} selects no negative position (ceil(n beta) - "
            f"floor(n alpha) < 1) among the {n_negatives} {negatives}: widen fpr_range or "
            "use more rows") from None


def check_window_indices(j_alpha, j_beta, n_neg):
    """``(j_alpha, j_beta)`` as ints with ``0 <= j_alpha < j_beta <= n_neg``, or a
    ``ValueError`` naming the index (the oracles' window of negative positions)."""
    for name, value in (("j_alpha", j_alpha), ("j_beta", j_beta)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise ValueError(f"{name} must be an integer, got {value!r}")
    j_alpha, j_beta = int(j_alpha), int(j_beta)
    if j_alpha < 0:
        raise ValueError(f"j_alpha must be >= 0, got {j_alpha}")
    if j_beta > n_neg:
        raise ValueError(f"j_beta={j_beta} exceeds the number of negatives ({n_neg})")
    if j_beta - j_alpha < 1:
        raise ValueError(
            f"j_beta - j_alpha must be >= 1 (got j_alpha={j_alpha}, j_beta={j_beta}): "
            "the FPR window holds no negative position; widen fpr_range"
        )
    return j_alpha, j_beta


def check_int(value, name, low):
    """``value`` as an int >= ``low``, or a ValueError naming the parameter (bools refused)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) \
            or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def check_positive_scalar(value, name):
    if not isinstance(value, numbers.Real) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return float(value)
