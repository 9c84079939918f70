"""Hand & Till's multi-class AUC: the mean over pairs of classes of a two-class AUC.

For classes ``i`` and ``j``, ``A(i|j)`` is the probability that a row of class
``i`` gets a higher score for class ``i`` than a row of class ``j`` does (ties
count one half): the AUC of the column ``i`` on the rows of the two classes.
Hand & Till's ``M`` is the mean over the ``c (c - 1) / 2`` unordered pairs of
``(A(i|j) + A(j|i)) / 2``. It needs no class proportions and no threshold, and
with two classes it is the AUC.

Two inputs, as pROC's ``multiclass.roc`` takes them:

* a matrix of scores, one column per class (e.g. ``predict_proba``): the
  multivariate form above (pROC's ``mv.multiclass.roc``);
* a single score per row (an ordinal score, e.g. a severity grade): every pair
  of classes is one two-class ROC curve of that score, the class later in
  ``labels`` the positive one, and ``A(i|j) = A(j|i)`` is its AUC. pROC's default
  ``direction = "auto"`` turns each pair around when the median score of the
  earlier class is the higher one (so that each pair's AUC is read in the
  direction the data suggest); ``"<"`` and ``">"`` fix the direction for all pairs.

With a score matrix pROC's default direction is ``">"`` (a column's class scores
higher), ``"<"`` turns every pair around (``1 - M``) and ``"auto"`` is refused by
pROC; here ``"auto"`` is ``">"``.
"""

import numpy as np
from sklearn.utils import check_array, column_or_1d

from . import _ranking

_DIRECTIONS = ("auto", "<", ">")


def _two_class_auc(positive, negative):
    """P(positive > negative) + ½ P(tie): the Mann-Whitney statistic, counted exactly
    (the package's tie-aware merge, :func:`pauc._ranking.count_above`)."""
    above, tied = _ranking.count_above(np.sort(positive), np.sort(negative))
    m, n = positive.shape[0], negative.shape[0]
    return (above.sum() + 0.5 * tied.sum()) / (m * n)


def _plain(label):
    """A numpy scalar label as the Python value (dict keys that print plainly)."""
    return label.item() if isinstance(label, np.generic) else label


def _check_labels(y_true, labels):
    present = np.unique(y_true)
    if labels is None:
        labels = present
    else:
        labels = np.asarray(labels)
        if labels.ndim != 1 or np.unique(labels).shape[0] != labels.shape[0]:
            raise ValueError("labels must be a 1-D sequence of distinct class labels")
        missing = [lab for lab in labels if not np.any(y_true == lab)]
        if missing:
            raise ValueError(f"labels {missing!r} have no row in y_true: every class of "
                             "labels needs rows for its pairwise AUCs")
    if labels.shape[0] < 2:
        raise ValueError(f"the multi-class AUC needs at least 2 classes, y_true has "
                         f"{labels.shape[0]}")
    return labels


def multiclass_roc_auc(y_true, y_score, *, labels=None, direction="auto",
                       return_pairs=False):
    """Hand & Till's multi-class AUC ``M``, equal to pROC's ``multiclass.roc``.

    Parameters
    ----------
    y_true : array of shape (n_samples,)
        Class labels (any values).
    y_score : array of shape (n_samples,) or (n_samples, n_classes)
        One column per class of ``labels`` (class probabilities or any scores,
        higher = more likely that class): Hand & Till's ``M`` [1]_. Or a single
        score per row: the mean AUC of every pair of classes (pROC's univariate
        form [2]_).
    labels : array of shape (n_classes,), default=None
        The classes, in the order of ``y_score``'s columns; rows of other classes
        are left out. None: the sorted distinct values of ``y_true``.
    direction : {"auto", "<", ">"}, default="auto"
        One score per row: "<" takes the later class of ``labels`` as the
        higher-scored one in every pair, ">" the earlier one, "auto" (pROC's
        default) chooses per pair by the classes' median scores (the later class
        higher, unless the earlier class's median is strictly higher). A score
        matrix: "auto" and ">" (pROC's default for a matrix) read each column as
        higher = more likely its class; "<" as lower = more likely, which gives
        ``1 - M`` (pROC's ``direction = "<"``).
    return_pairs : bool, default=False
        Also return the pairs' AUCs ``(A(i|j) + A(j|i)) / 2``, a dict keyed by
        ``(labels[i], labels[j])`` with ``i < j``.

    Returns
    -------
    auc : float
        In [0, 1]; 0.5 for scores unrelated to the class.
    pairs : dict
        Only with ``return_pairs=True``.

    Notes
    -----
    Two classes with a score matrix give ``(AUC of column 1 + AUC of −column
    0) / 2`` over the two classes, the plain AUC when the columns sum to one.
    scikit-learn's ``roc_auc_score(multi_class="ovo")`` is the same ``M`` but
    requires rows summing to one (and re-normalises them).

    References
    ----------
    .. [1] Hand, D. J. and Till, R. J. "A Simple Generalisation of the Area Under
       the ROC Curve for Multiple Class Classification Problems." Machine
       Learning 45(2), 171-186, 2001.
    .. [2] Robin, X., Turck, N., Hainard, A., Tiberti, N., Lisacek, F., Sanchez,
       J.-C. and Müller, M. "pROC: an open-source package for R and S+ to analyze
       and compare ROC curves." BMC Bioinformatics 12:77, 2011.

    Examples
    --------
    >>> import numpy as np
    >>> from pauc.metrics import multiclass_roc_auc
    >>> y = np.array([0, 0, 1, 1, 2, 2])
    >>> proba = np.array([[.8, .1, .1], [.5, .3, .2], [.2, .6, .2],
    ...                   [.3, .3, .4], [.1, .2, .7], [.2, .5, .3]])
    >>> round(multiclass_roc_auc(y, proba), 4)
    0.8958
    """
    if direction not in _DIRECTIONS:
        raise ValueError(f"direction must be one of {_DIRECTIONS}, got {direction!r}")
    if not isinstance(return_pairs, (bool, np.bool_)):
        raise ValueError(f"return_pairs must be True or False, got {return_pairs!r}")
    y_true = column_or_1d(y_true)
    y_score = check_array(y_score, ensure_2d=False, dtype=np.float64)
    if y_score.shape[0] != y_true.shape[0]:
        raise ValueError(f"y_true and y_score differ in length: {y_true.shape[0]} != "
                         f"{y_score.shape[0]}")
    labels = _check_labels(y_true, labels)
    univariate = y_score.ndim == 1 or y_score.shape[1] == 1
    if univariate:
        y_score = y_score.reshape(-1)
    elif y_score.ndim != 2 or y_score.shape[1] != labels.shape[0]:
        raise ValueError(f"y_score has {y_score.shape[1]} columns for {labels.shape[0]} "
                         "classes: give one column per class of labels, in its order")
    # a score matrix: "auto" and ">" read a column as higher = more likely its class
    # (pROC's only reading but "<"; it refuses "auto" by name for a matrix)
    reverse_columns = not univariate and direction == "<"
    rows = [y_true == lab for lab in labels]
    pairs = {}
    for i in range(labels.shape[0]):
        for j in range(i + 1, labels.shape[0]):
            if univariate:
                earlier, later = y_score[rows[i]], y_score[rows[j]]
                auc = _two_class_auc(later, earlier)
                if direction == ">" or (direction == "auto"
                                        and np.median(earlier) > np.median(later)):
                    auc = 1.0 - auc
            else:
                auc = 0.5 * (_two_class_auc(y_score[rows[i], i], y_score[rows[j], i])
                             + _two_class_auc(y_score[rows[j], j], y_score[rows[i], j]))
                if reverse_columns:
                    auc = 1.0 - auc
            pairs[(_plain(labels[i]), _plain(labels[j]))] = float(auc)
    mean = float(np.mean(list(pairs.values())))
    return (mean, pairs) if return_pairs else mean
