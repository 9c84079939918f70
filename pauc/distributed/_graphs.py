"""Chunked cuts as Dask task graphs: the public oracles on dask scores, and the
design of chunked fits run without a ``dask.distributed`` client.

Each cut is one task graph over the row chunks, computed in one call: the
per-chunk steps of :mod:`._chunks` (which run the in-memory Cython kernels)
linked by tree reductions on the workers.  For a fit
(:class:`TaskGraphDesign`) the graph starts from the persisted chunks of
``X`` -- ``X_k @ w`` -- and ends with ``sum_k X_k^T coef_k``, ``scores .
coef`` and the loss: ``d + 2`` numbers reach the client per iteration.  The
public oracles (:func:`oracle`) start from given chunked scores and return
``coef`` as a persisted dask vector, equal to the in-memory oracle's.

The tight cut takes five dependency levels (chunk top lists, the merged
list ``T``, per-chunk rows and border counts, the plan, per-chunk
coefficients), the AUC cut two; on a ``dask.distributed`` cluster each level
costs a trip through the scheduler, which is why the fits there run on
actors instead (:mod:`._actors`).
"""

import operator
import time
from functools import partial

import dask
import dask.array as da
import numpy as np
from dask.base import tokenize
from dask.highlevelgraph import HighLevelGraph

from .._threshold import best_youden, threshold_rule
from .._validation import check_window_indices
from ..svm._design import Cut, Design
from .._loss import loss_row
from ._chunks import (auc_chunk, auc_prepare, chunk_top_negatives, class_sorted, matvec_block,
                      max_below, min_above, totals, window_coef, window_plan, window_rows)
from ._collections import blocks, check_known_chunks, merge_top, sum_arrays, task, tree_reduce
from ._labels import distinct_labels, oracle_labels, positive_labels

__all__ = ["oracle", "TaskGraphDesign", "check_chunked_search", "window_parts", "auc_parts"]


def check_chunked_search(surrogate):
    """Refuse a surrogate whose search the chunked designs do not run (the loss
    table's ``chunked`` column): ``NotImplementedError`` naming the ones they run."""
    loss_row(surrogate, "cut", what="surrogate")       # a ValueError if it is no surrogate
    return loss_row(surrogate, "chunked", what="surrogate", error=NotImplementedError)


# --------------------------------------------------------------------------
# The graphs of one cut
# --------------------------------------------------------------------------

def _plan(j_alpha, j_beta, top, *borders):
    return window_plan(j_alpha, j_beta, top, sum_arrays(*[b["hist"] for b in borders]),
                       borders)


def window_parts(s_blocks, p_blocks, j_alpha, j_beta, inv_n, x_blocks):
    """The tight cut's per-chunk parts ``(coef_k, X_k^T coef_k, s_k . coef_k, loss
    count)`` as delayed objects (see :mod:`._chunks` for the steps)."""
    tops = [task(chunk_top_negatives)(s, p, j_beta) for s, p in zip(s_blocks, p_blocks)]
    top = tree_reduce(partial(merge_top, j_beta), tops, fan_in=8)
    rows = [task(window_rows, nout=2)(s, p, top, j_alpha, j_beta, inv_n)
            for s, p in zip(s_blocks, p_blocks)]
    plan = task(_plan)(j_alpha, j_beta, top, *[border for _, border in rows])
    return [task(window_coef)(s, p, top, coef, border, plan, k, inv_n, xb)
            for k, (s, p, (coef, border), xb)
            in enumerate(zip(s_blocks, p_blocks, rows, x_blocks))]


def auc_parts(s_blocks, p_blocks, inv_n, x_blocks):
    """The AUC cut's per-chunk parts, as :func:`window_parts`."""
    prepared = [task(auc_prepare)(s, p) for s, p in zip(s_blocks, p_blocks)]
    return [task(auc_chunk)(s, p, inv_n, xb, *prepared)
            for s, p, xb in zip(s_blocks, p_blocks, x_blocks)]


def _small(part):
    """The few numbers of a part: its coefficients stay on their worker."""
    return (None,) + tuple(part[1:])


def _totals_of(parts):
    """``(g, dot, loss count)`` of the parts, computed in one round trip."""
    return task(totals)(*[task(_small)(part) for part in parts]).compute()


def _assemble(parts, row_chunks):
    """A dask vector whose block ``k`` is ``parts[k][0]`` (one getitem task per chunk)."""
    name = "pauc-coef-" + tokenize(*[part.key for part in parts])
    layer = {(name, k): (operator.getitem, part.key, 0) for k, part in enumerate(parts)}
    graph = HighLevelGraph.from_collections(name, layer, dependencies=parts)
    return da.Array(graph, name, chunks=(tuple(row_chunks),), dtype=np.float64,
                    meta=np.empty(0, dtype=np.float64))


# --------------------------------------------------------------------------
# The public oracles on chunked scores
# --------------------------------------------------------------------------

def oracle(surrogate, scores, y, j_alpha=None, j_beta=None, sample_weight=None):
    """The cut of :mod:`pauc.svm.oracles` on dask scores (``j_alpha = None``: the AUC).

    Returns ``(coef, loss)`` equal to the in-memory oracle's, ``coef`` as a
    persisted dask vector with the scores' row chunks; ``y`` (boolean or 0/1)
    must have the same row chunks (a numpy ``y`` is split to match).
    """
    check_chunked_search(surrogate)
    if sample_weight is not None:
        raise NotImplementedError("the oracles take no sample_weight with dask scores")
    check_known_chunks(scores, "scores")
    if scores.ndim != 1:
        raise ValueError(f"scores must be a 1-d array, got shape {scores.shape}")
    if scores.dtype.kind not in "biuf":
        raise ValueError(f"scores must be numeric, got dtype {scores.dtype}")
    labels = oracle_labels(y, tuple(int(c) for c in scores.chunks[0]))
    s_blocks, p_blocks = blocks(scores), blocks(labels.is_pos)
    no_x = [None] * len(s_blocks)
    if j_alpha is None:
        inv_n = 1.0 / (float(labels.n_pos) * float(labels.n_neg))
        parts = auc_parts(s_blocks, p_blocks, inv_n, no_x)
    else:
        j_alpha, j_beta = check_window_indices(j_alpha, j_beta, labels.n_neg)
        inv_n = 1.0 / (float(labels.n_pos) * float(j_beta - j_alpha))
        parts = window_parts(s_blocks, p_blocks, j_alpha, j_beta, inv_n, no_x)
    (coef,) = dask.persist(_assemble(parts, labels.row_chunks))
    _, _, loss_count = _totals_of(parts)
    return coef, float(loss_count) * inv_n


# --------------------------------------------------------------------------
# The design of a chunked fit without a distributed client
# --------------------------------------------------------------------------

def _first(values):
    return values[0]


def _best_pair(*pairs):
    return max(pairs)


class _GraphOrderStatistics:
    """The order statistics of :func:`pauc._threshold.threshold_rule` on chunked
    scores, each a small task graph (the client receives a few floats)."""

    def __init__(self, s_blocks, p_blocks, labels):
        self.s_blocks, self.p_blocks = s_blocks, p_blocks
        self.n_pos, self.n_neg = labels.n_pos, labels.n_neg

    def _pairs(self):
        return zip(self.s_blocks, self.p_blocks)

    def kth_highest_negative(self, k):
        top = tree_reduce(partial(merge_top, k),
                          [task(chunk_top_negatives)(s, p, k) for s, p in self._pairs()])
        return float(task(_first)(top).compute())

    def lowest_positive_above(self, level):
        return min(dask.compute(*[task(min_above)(s, p, level) for s, p in self._pairs()]))

    def youden(self):
        pos_lists = [task(class_sorted)(s, p, True) for s, p in self._pairs()]
        neg_lists = [task(class_sorted)(s, p, False) for s, p in self._pairs()]
        return tree_reduce(_best_pair, [task(best_youden)(pl, self.n_pos, self.n_neg,
                                                          pos_lists, neg_lists)
                                        for pl in pos_lists]).compute()

    def highest_below(self, cut):
        return max(dask.compute(*[task(max_below)(s, cut) for s in self.s_blocks]))


class TaskGraphDesign(Design):
    """A chunked design whose cuts are task graphs (no ``dask.distributed`` client).

    Parameters
    ----------
    X : dask.array.Array of shape (n_samples, n_features)
        Persisted row chunks (dense or scipy.sparse blocks), one column chunk.
    y : dask.array.Array of shape (n_samples,)
        Labels with ``X``'s row chunks; :meth:`set_positive` makes the
        design's positives.
    """

    def __init__(self, X, y):
        self.X = X
        self.shape = X.shape
        self.row_chunks = tuple(int(c) for c in X.chunks[0])
        self._x_blocks = blocks(X)
        self._y = y
        self.labels = None

    def distinct_labels(self):
        """The distinct values of ``y``."""
        return distinct_labels(self._y)

    def set_positive(self, positive):
        """Take ``y == positive`` as the positive rows."""
        self.labels = positive_labels(self._y, positive)
        self.n_pos, self.n_neg = self.labels.n_pos, self.labels.n_neg

    @property
    def defined(self):
        return self.n_pos > 0 and self.n_neg > 0

    def _scores(self, w):
        """``X @ w`` as a lazy dask vector with ``X``'s row chunks."""
        return self.X.map_blocks(matvec_block, np.asarray(w, dtype=np.float64).ravel(),
                                 drop_axis=1, dtype=np.float64,
                                 meta=np.empty(0, dtype=np.float64))

    def cut(self, w, problem):
        check_chunked_search(problem.surrogate)
        start = time.perf_counter()
        s_blocks, p_blocks = blocks(self._scores(w)), blocks(self.labels.is_pos)
        if problem.is_auc(self.n_neg):
            inv_n = problem.scale / (float(self.n_pos) * float(self.n_neg))
            parts = auc_parts(s_blocks, p_blocks, inv_n, self._x_blocks)
        else:
            inv_n = problem.scale / (float(self.n_pos) * float(problem.j_beta - problem.j_alpha))
            parts = window_parts(s_blocks, p_blocks, problem.j_alpha, problem.j_beta, inv_n,
                                 self._x_blocks)
        g, dot, loss_count = _totals_of(parts)
        loss = float(loss_count) * inv_n
        return Cut(np.asarray(g, dtype=np.float64), loss, loss - float(dot),
                   time_oracle=time.perf_counter() - start)

    def threshold(self, w, operating_fpr, scores=None):
        # the scores stay on the workers for the few queries of the rule
        (scores,) = dask.persist(self._scores(w))
        stats = _GraphOrderStatistics(blocks(scores), blocks(self.labels.is_pos), self.labels)
        return threshold_rule(stats, operating_fpr)
