"""The training data as the cutting-plane solver sees it: a *design*.

Algorithm 1 of Narasimhan & Agarwal touches the data at one place, line 10: at the current
``w``, the most violated constraint of the problem.  In the count
representation of Appendix B.1 that is ``scores = X @ w``, the oracle's
``(coef, loss)`` on the scores and the cut vector ``g = X.T @ coef``.  A
design does the three steps and returns a :class:`Cut`; the solver
(:mod:`pauc.svm._cutting_plane`), the coarse-to-fine start
(:mod:`pauc.svm._coarse_to_fine`), the CCCP loop (:mod:`pauc.svm._dc`) and
the estimators know the data only through this interface:

``shape``, ``n_pos``, ``n_neg``
    Rows and features; the numbers of positive and negative rows.
``defined``
    Whether both classes are present (with positive weight): the problems
    are defined.
``cut(w, problem) -> Cut``
    Line 10 at ``w`` for a :class:`~pauc.svm._surrogates.Problem` (the
    solver's generic use also passes a plain oracle ``scores -> (coef,
    loss)`` to an in-memory design).
``threshold(w, operating_fpr, scores=None) -> float``
    The operating threshold of ``predict`` at ``w`` by the package's one
    rule (:func:`pauc._threshold.threshold_rule`); ``scores`` are the
    training scores of the last cut when the design returned them.
``row_subsets``, ``rows(index)``
    Whether the design on a subset of its rows exists (the coarse levels);
    then that design.
``close()``
    Release what the design holds (the chunked designs' workers).

:class:`InMemoryDesign` wraps a dense array or a CSR matrix and calls the
Cython kernels of the surrogate table; the chunked designs of
:mod:`pauc.distributed` implement the same calls by running the same
kernels on every row chunk.

References
----------
Narasimhan & Agarwal (2017), Algorithm 1 and Appendix B.1. Full entries in
``docs/references.rst``.
"""

import time
from abc import ABC, abstractmethod
from typing import NamedTuple, Optional

import numpy as np

from .._threshold import operating_threshold
from .._loss._structural import weighted_auc_cut
from ._surrogates import Problem

__all__ = ["Cut", "Design", "InMemoryDesign", "as_design"]


class Cut(NamedTuple):
    """The most violated constraint at ``w``: ``w . g >= loss - xi`` (Algorithm 1, line 11).

    Attributes
    ----------
    g : ndarray of shape (n_features,)
        The cut vector ``X.T @ coef``.
    loss : float
        ``Delta`` of the maximiser.
    risk : float
        The structural surrogate at ``w``, ``loss - scores @ coef`` (``H(w)``).
    scores : ndarray of shape (n_samples,) or None
        ``X @ w``, when the design holds the scores in memory.
    time_matvec, time_oracle : float
        Seconds in the products with ``X`` and in the search.
    """

    g: np.ndarray
    loss: float
    risk: float
    scores: Optional[np.ndarray] = None
    time_matvec: float = 0.0
    time_oracle: float = 0.0


class Design(ABC):
    """The interface of a design (see the module docstring); subclassed by every design."""

    row_subsets = False

    @abstractmethod
    def cut(self, w, problem):
        """The most violated constraint at ``w`` (a :class:`Cut`)."""

    @abstractmethod
    def threshold(self, w, operating_fpr, scores=None):
        """``threshold_`` of ``predict`` for ``w`` by the package's rule."""

    def rows(self, index):
        raise NotImplementedError(f"{type(self).__name__} has no row subsets")

    def close(self):
        """Release what the design holds (nothing, unless overridden)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class InMemoryDesign(Design):
    """A dense array or a CSR matrix with its training labels.

    ``X`` is read only through ``X @ w`` and ``X.T @ coef`` (one pass each per
    cut): never densified, never copied.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n_samples, n_features)
    is_pos : bool ndarray of shape (n_samples,) or None
        The labels (validated by the caller); None for a design used with
        plain oracles only.
    weight : float64 ndarray of shape (n_samples,) or None
        Row weights (Joachims' AUC only: the pair ``(i, j)`` weighs ``w_i w_j``).
    """

    row_subsets = True

    def __init__(self, X, is_pos=None, weight=None):
        self.X = X
        # X.T made once: for a CSR matrix it is a new CSC object on the same
        # arrays, and with int64 indices (load_svmlight_file's) scipy scans
        # them at every construction, which made X.T @ coef cost more than
        # twice X @ w when made at every iteration.
        self.XT = X.T
        self.shape = X.shape
        self.weight = weight
        self.is_pos = None
        if is_pos is not None:
            self.is_pos = np.ascontiguousarray(is_pos, dtype=bool)
            self._labels = self.is_pos.view(np.uint8)
            self.n_pos = int(np.count_nonzero(self.is_pos))
            self.n_neg = self.is_pos.shape[0] - self.n_pos

    @property
    def defined(self):
        if self.weight is not None:
            return bool(self.weight[self.is_pos].sum() > 0 and self.weight[~self.is_pos].sum() > 0)
        return 0 < self.n_pos < self.is_pos.shape[0]

    def rows(self, index):
        """The design on ``X[index]`` (a slice), with its labels and weights."""
        return InMemoryDesign(self.X[index], self.is_pos[index],
                              None if self.weight is None
                              else np.ascontiguousarray(self.weight[index]))

    def scores(self, w):
        """``X @ w`` as a float64 vector."""
        return np.asarray(self.X @ w, dtype=np.float64).ravel()

    def cut(self, w, problem):
        start = time.perf_counter()
        scores = self.X @ w
        t_matvec = time.perf_counter() - start

        start = time.perf_counter()
        coef, loss = self._search(scores, problem)
        t_oracle = time.perf_counter() - start

        start = time.perf_counter()
        g = np.asarray(self.XT @ coef, dtype=np.float64).ravel()
        t_matvec += time.perf_counter() - start
        return Cut(g, loss, float(loss) - float(scores @ coef), scores, t_matvec, t_oracle)

    def risk_at_zero(self, problem):
        """``R(0)``: the structural risk of ``problem`` at ``w = 0``, where every score
        ties.  The search on zero scores alone: no pass over ``X``."""
        _, loss = self._search(np.zeros(self.shape[0]), problem)
        return float(loss)      # loss - scores @ coef, the scores being 0

    def _search(self, scores, problem):
        if not isinstance(problem, Problem):
            return problem(scores)          # a plain oracle on the scores
        if not np.isfinite(scores.sum()):
            raise ValueError("X @ w overflowed (scores are not finite): scale the features")
        if self.weight is not None:
            if not problem.is_auc(self.n_neg):
                raise ValueError("row weights are implemented for the full AUC only")
            coef, loss = weighted_auc_cut(scores, self._labels, self.n_pos, self.weight)
        else:
            coef, loss = problem.row.cut(scores, self._labels, self.n_pos, problem.j_alpha,
                                            problem.j_beta)
        if problem.scale != 1.0:
            coef, loss = coef * problem.scale, loss * problem.scale
        return coef, loss

    def threshold(self, w, operating_fpr, scores=None):
        if scores is None:
            scores = self.scores(w)
        return operating_threshold(np.asarray(scores).ravel(), self.is_pos, operating_fpr)


def as_design(X):
    """``X`` itself if it is a :class:`Design`, else an :class:`InMemoryDesign` of it."""
    return X if isinstance(X, Design) else InMemoryDesign(X)
