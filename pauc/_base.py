"""The base ranker: what every pauc estimator is to scikit-learn and to its user.

A pauc ranker learns a scoring function on a binary problem and is judged on
the ROC curve.  What the families share lives here, once:

* **one binary-label validator** (:meth:`BaseRanker._validate_training_data`):
  ``X`` through scikit-learn's ``validate_data``, exactly two classes, the
  positive class from ``pos_label`` by the package's one rule
  (:func:`pauc._validation.check_pos_label`: scikit-learn's), sample weights
  finite, non-negative and giving both classes some weight.  ``classes_`` is
  ``[negative label, positive label]``, so that ``classes_[1]`` is the class
  at the top of the list, as for scikit-learn's binary classifiers (their
  ``decision_function`` points to ``classes_[1]``);
* **one parameter table** per estimator (``_parameter_constraints``) checked
  by one function (:func:`validate_params`), with one wording;
* ``score`` = the estimator's **target metric**: the partial AUC over its
  ``fpr_range`` when it has one, else the AUC;
* the scikit-learn tags of a binary ranker that reads sparse input.

Put :class:`BaseRanker` left of scikit-learn's mixins and ``BaseEstimator``::

    class MyRanker(BaseRanker, ClassifierMixin, BaseEstimator): ...
"""

import math
import numbers

import numpy as np
from sklearn.utils import ClassifierTags, check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from . import metrics
from ._validation import _classes, check_fpr_range, check_pos_label, positives_and_weights

__all__ = ["BaseRanker", "Interval", "Options", "Satisfies", "validate_params"]


# --------------------------------------------------------------------------
# The parameter table
# --------------------------------------------------------------------------

class Interval:
    """A number in an interval (booleans are refused: ``C=True`` is a mistake).

    Parameters
    ----------
    kind : {int, float}
        ``int`` accepts integers only; ``float`` accepts any finite real.
    low, high : number or None
        Bounds; None for no bound.
    closed : {"both", "left", "right", "neither"}
    """

    def __init__(self, kind, low=None, high=None, *, closed="both"):
        self.kind, self.low, self.high, self.closed = kind, low, high, closed

    def accepts(self, value):
        if isinstance(value, (bool, np.bool_)):
            return False
        base = numbers.Integral if self.kind is int else numbers.Real
        if not isinstance(value, base) or (self.kind is float and not math.isfinite(value)):
            return False
        left = self.closed in ("both", "left")
        right = self.closed in ("both", "right")
        if self.low is not None and (value < self.low or (not left and value == self.low)):
            return False
        if self.high is not None and (value > self.high or (not right and value == self.high)):
            return False
        return True

    def __str__(self):
        noun = "an integer" if self.kind is int else "a number"
        if self.kind is float and self.low == 0 and self.high is None \
                and self.closed in ("neither", "right"):
            return "a positive finite number"
        if self.high is None:
            if self.low is None:
                return noun if self.kind is int else "a finite number"
            return f"{noun} {'>=' if self.closed in ('both', 'left') else '>'} {self.low}"
        if self.low is None:
            return f"{noun} {'<=' if self.closed in ('both', 'right') else '<'} {self.high}"
        lb = "[" if self.closed in ("both", "left") else "("
        rb = "]" if self.closed in ("both", "right") else ")"
        return f"{noun} in {lb}{self.low}, {self.high}{rb}"


class Options:
    """One of a few values (strings, None, True/False)."""

    def __init__(self, *values):
        self.values = values

    def accepts(self, value):
        return any(value is v or (isinstance(value, str) and value == v) for v in self.values)

    def __str__(self):
        if len(self.values) == 1:
            return repr(self.values[0])
        return "one of (" + ", ".join(repr(v) for v in self.values) + ")"


class LossName:
    """A name (or alias) of a row of the loss table (:mod:`pauc._loss`) that serves
    ``capability``, or one of ``extra`` (``"auto"``).  Read when checked, so that a
    row added to the table is accepted at once.  With ``any_row`` every row passes
    here and a row without the capability is refused in ``fit``, with the reason
    (:func:`pauc._loss.loss_row`).  Messages list the names (with ``aliases``, each
    row's aliases too), then ``description``."""

    def __init__(self, capability, *extra, any_row=False, aliases=False, description=None):
        self.capability, self.extra, self.any_row = capability, extra, any_row
        self.aliases, self.description = aliases, description

    def _names(self, capability, aliases):
        from ._loss import loss_names      # the table imports the families' kernels
        return loss_names(capability, aliases=aliases)

    def accepts(self, value):
        if Options(*self.extra).accepts(value):
            return True
        names = self._names(None if self.any_row else self.capability, True)
        return isinstance(value, str) and value in names

    def __str__(self):
        names = str(Options(*self.extra, *self._names(self.capability, self.aliases)))
        return names if self.description is None else f"{names} ({self.description})"


class Satisfies:
    """Whatever ``check(value)`` accepts without raising ``ValueError`` / ``TypeError``."""

    def __init__(self, check, description):
        self.check, self.description = check, description

    def accepts(self, value):
        try:
            self.check(value)
        except (ValueError, TypeError):
            return False
        return True

    def __str__(self):
        return self.description


def _random_state(value):
    check_random_state(value)
    if isinstance(value, (bool, np.bool_)):
        raise TypeError("a boolean is not a seed")


def _label(value):
    if isinstance(value, (list, tuple, dict, set, np.ndarray)):
        raise TypeError("pos_label is one label")


#: Constraints used by several estimators.
POS_LABEL = [Satisfies(_label, "None or one of the labels")]
RANDOM_STATE = [Satisfies(_random_state, "None, an int or a numpy RandomState")]
VERBOSE = [Interval(int, 0)]
N_JOBS = [Options(None), Interval(int)]
FPR_RANGE = [Satisfies(check_fpr_range, "a pair (alpha, beta) with 0 <= alpha < beta <= 1")]
OPERATING_FPR = [Options(None), Interval(float, 0.0, 1.0)]
BOOLEAN = [Options(True, False)]


def validate_params(estimator, constraints=None):
    """Check every parameter of ``estimator`` against its ``_parameter_constraints``.

    The one place where constructor parameters are checked (at ``fit``, as
    scikit-learn does); the message names the parameter, what it must be and
    what it got.  Checks that need the data (say ``max_samples`` against the
    number of rows) stay in ``fit``; ``constraints`` (default: the class's
    table) checks a parameter that matters only with another's value.
    """
    if constraints is None:
        constraints = type(estimator)._parameter_constraints
    for name, allowed in constraints.items():
        value = getattr(estimator, name)
        if not any(constraint.accepts(value) for constraint in allowed):
            wanted = " or ".join(str(constraint) for constraint in allowed)
            raise ValueError(f"{name} must be {wanted}, got {value!r}")


# --------------------------------------------------------------------------
# The base ranker
# --------------------------------------------------------------------------

class BaseRanker:
    """Mixin of every pauc ranker: validation, ``score``, tags (see the module docstring).

    Subclasses set ``_parameter_constraints`` (a dict: parameter name -> list
    of accepted constraints) and have a ``pos_label`` parameter; those with an
    FPR window have ``fpr_range``, which makes it their target.
    """

    _parameter_constraints = {}

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.classifier_tags = ClassifierTags(multi_class=False)
        tags.input_tags.sparse = True
        return tags

    def _validate_params(self):
        validate_params(self)

    def _validate_training_data(self, X, y, sample_weight=None, *, accept_sparse="csr",
                                dtype=(np.float64, np.float32), ensure_min_samples=1,
                                ensure_all_finite=True):
        """Validate ``X``, ``y`` and ``sample_weight`` of ``fit``: the one wording.

        Sets ``classes_`` (``[negative, positive]``), ``pos_label_`` and
        ``n_features_in_``.

        Returns
        -------
        X : ndarray or scipy.sparse matrix (as ``accept_sparse`` and ``dtype`` say)
        is_pos : bool ndarray of shape (n_samples,)
        weight : float64 ndarray of shape (n_samples,), or None when not given
        """
        X, y = validate_data(self, X, y, accept_sparse=accept_sparse, dtype=list(dtype),
                             ensure_min_samples=ensure_min_samples, y_numeric=False,
                             ensure_all_finite=ensure_all_finite)
        is_pos, weight = positives_and_weights(y, self._set_binary_classes(_classes(y), y),
                                               sample_weight, X)
        return X, is_pos, weight

    def _uniform_weights(self, weight, why=None):
        """Whether ``weight`` (validated) is absent or one positive constant, which
        rescales every pair alike and leaves a normalised (p)AUC risk -- hence its
        minimiser -- unchanged.  With ``why`` (what the estimator would need for
        them), other weights raise NotImplementedError instead of returning False:
        the one refusal of every ranker that cannot weight its window."""
        if weight is None or (weight.size and weight[0] > 0 and np.all(weight == weight[0])):
            return True
        if why is None:
            return False
        raise NotImplementedError(
            f"{type(self).__name__} does not support non-uniform sample_weight: {why}. "
            "Resample the rows instead, or pass sample_weight=None.")

    def _set_binary_classes(self, classes, y):
        """Check the distinct labels ``classes`` of ``y``; set ``classes_`` and
        ``pos_label_``; return the positive label.

        The label part of :meth:`_validate_training_data`, the one wording,
        also used by fits whose ``y`` is not in memory (the chunked fits give
        the distinct labels of their chunks and ``y = classes``).
        """
        if classes.shape[0] > 2 or classes.dtype.kind not in "biu":
            # scikit-learn's message for continuous or multi-output targets
            if not (classes.dtype.kind == "f" and classes.shape[0] <= 2
                    and np.all(classes == np.floor(classes))):
                check_classification_targets(y)
        name = type(self).__name__
        if classes.shape[0] < 2:
            raise ValueError(f"y holds only one class ({classes.tolist()}); {name} ranks "
                             "positives above negatives and needs both")
        if classes.shape[0] > 2:
            raise ValueError(
                f"Only binary classification is supported. y takes {classes.shape[0]} values "
                f"{classes[:10].tolist()}; {name} is a binary ranker")
        pos_label = check_pos_label(classes, self.pos_label)
        negative = classes[0] if classes[1] == pos_label else classes[1]
        self.classes_ = np.array([negative, pos_label], dtype=classes.dtype)
        self.pos_label_ = self.classes_[1]
        return pos_label

    def _validate_X(self, X, *, accept_sparse="csr", dtype=(np.float64, np.float32)):
        """Validate ``X`` of ``decision_function`` against the fitted estimator."""
        check_is_fitted(self)
        return validate_data(self, X, accept_sparse=accept_sparse, dtype=list(dtype),
                             reset=False)

    def score(self, X, y, sample_weight=None):
        """The estimator's target metric on ``(X, y)``.

        The partial AUC over ``fpr_range`` (``normalize="range"``: the mean TPR
        over the window) for an estimator with an FPR window, else the AUC;
        ``classes_[1]`` is the positive class.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        score : float
        """
        check_is_fitted(self)
        scores = self.decision_function(X)
        fpr_range = getattr(self, "fpr_range", None)
        if fpr_range is None or tuple(check_fpr_range(fpr_range)) == (0.0, 1.0):
            return metrics.roc_auc(y, scores, pos_label=self.classes_[1],
                                   sample_weight=sample_weight)
        return metrics.partial_auc(y, scores, fpr_range=fpr_range, normalize="range",
                                   pos_label=self.classes_[1], sample_weight=sample_weight)
