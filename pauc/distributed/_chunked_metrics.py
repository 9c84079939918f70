"""AUC and partial AUC of row-chunked ``dask.array`` scores, exact (ties count 1/2).

:func:`pauc.metrics.roc_auc` and :func:`pauc.metrics.partial_auc` (and
:func:`~pauc.metrics.two_way_partial_auc`) send dask inputs here (registered as
``"raw_area"``, see :mod:`pauc._dispatch`).  The value is the one of the
in-memory metric, bit for bit: the area over a window ``[alpha, beta]``
depends only on the negatives down to the ``k = floor(n beta) + 1``-th
highest and the positives scored at least as high (as
:func:`pauc.metrics.raw_area` selects them), so

1. each chunk selects its top ``k`` negatives; a tree reduction on the
   workers merges them into the ``k``-th highest negative score (the cutoff);
2. each chunk keeps its scores ``>= cutoff`` per class; a tree reduction
   merges those lists on the workers, and the last task runs the same O(n)
   walk as in memory (:func:`pauc._ranking.partial_area`).

Only the area (one float) and the class counts reach the client.  What one
worker holds at the end is the top of the curve: about ``beta n`` negatives
and the positives above them -- for the full AUC (``beta = 1``) every score,
8 bytes per row (a score vector is ``d`` times smaller than ``X``).

With ``sample_weight`` the window is measured in negative *weight*, so no
count of negatives bounds the top of the curve in advance: the labels,
scores and weights of every chunk are concatenated on one worker (in row
order, 24 bytes per row) and the in-memory metric runs there.
"""

from functools import partial

import dask
import dask.array as da
import numpy as np

from .. import _ranking
from .._validation import check_binary_classes
from ..metrics import raw_area as in_memory_raw_area
from ._collections import (aligned_labels, blocks, check_known_chunks, merge_top, task,
                           top_values, tree_reduce)

__all__ = ["raw_area"]


def _as_score_dtype(s):
    s = np.asarray(s)
    return s if s.dtype == np.float32 else s.astype(np.float64, copy=False)


def _chunk_classes(y):
    return np.unique(np.asarray(y))


def _chunk_counts(y, s, pos_label):
    s = _as_score_dtype(s)
    if not np.isfinite(s).all():
        raise ValueError("y_score contains NaN or infinity")
    return np.count_nonzero(np.asarray(y) == pos_label)


def _chunk_top_negatives(y, s, pos_label, k):
    return top_values(_as_score_dtype(s)[np.asarray(y) != pos_label], k)


def _chunk_tops(y, s, pos_label, top, keep_all):
    s = _as_score_dtype(s)
    is_pos = np.asarray(y) == pos_label
    pos, neg = s[is_pos], s[~is_pos]
    if not keep_all:
        cutoff = top[0]
        pos, neg = pos[pos >= cutoff], neg[neg >= cutoff]
    return pos, neg


def _merge_classes(*pairs):
    return (np.concatenate([p[0] for p in pairs]), np.concatenate([p[1] for p in pairs]))


def _area(pair, fpr_lo, fpr_hi, tpr_floor, m, n):
    pos, neg = np.sort(pair[0]), np.sort(pair[1])
    return _ranking.partial_area(pos, neg, fpr_lo, fpr_hi, tpr_floor,
                                 tp_total=float(m), fp_total=float(n))


def _chunk_rows(y, s, w):
    return np.asarray(y), np.asarray(s), np.asarray(w)


def _concatenate_rows(*parts):
    # tree_reduce groups consecutive chunks, so the rows stay in their order
    return tuple(np.concatenate([p[i] for p in parts]) for i in range(3))


def _weighted_area(rows, fpr_lo, fpr_hi, tpr_floor, pos_label):
    y, s, w = rows          # the in-memory metric, on one worker
    return in_memory_raw_area(y, s, fpr_lo, fpr_hi, tpr_floor, pos_label, w)


def raw_area(y_true, y_score, fpr_lo, fpr_hi, tpr_floor, pos_label=None, sample_weight=None):
    """``∫_{fpr_lo}^{fpr_hi} max(TPR(u) - tpr_floor, 0) du`` of dask scores (see module doc)."""
    if not isinstance(y_score, da.Array):
        y_score = np.asarray(y_score)
        if y_score.ndim == 2 and y_score.shape[1] == 1:
            y_score = y_score[:, 0]
        if y_score.ndim != 1:
            raise ValueError(f"y_score must be 1-d, got shape {y_score.shape}")
        check_known_chunks(y_true, "y_true")
        if y_true.shape[0] != y_score.shape[0]:
            raise ValueError(f"y_true and y_score differ in length: {y_true.shape[0]} != "
                             f"{y_score.shape[0]}")
        y_score = da.from_array(y_score, chunks=(y_true.chunks[0],))
    check_known_chunks(y_score, "y_score")
    if y_score.ndim == 2 and y_score.shape[1] == 1:
        y_score = y_score[:, 0]
    if y_score.ndim != 1:
        raise ValueError(f"y_score must be 1-d, got shape {y_score.shape}")
    if y_score.dtype.kind not in "biuf":
        raise ValueError(f"y_score must be numeric, got dtype {y_score.dtype}")
    y_true = aligned_labels(y_true, y_score.chunks[0], name="y_true", reference="y_score")
    y_blocks, s_blocks = blocks(y_true), blocks(y_score)
    if sample_weight is not None:
        weight = aligned_labels(sample_weight, y_score.chunks[0], name="sample_weight",
                                reference="y_score")
        rows = tree_reduce(_concatenate_rows,
                           [task(_chunk_rows)(yb, sb, wb) for yb, sb, wb
                            in zip(y_blocks, s_blocks, blocks(weight))])
        return float(task(_weighted_area)(rows, fpr_lo, fpr_hi, tpr_floor, pos_label)
                     .compute())
    classes = np.unique(np.concatenate(dask.compute(*[task(_chunk_classes)(b)
                                                      for b in y_blocks])))
    pos_label = check_binary_classes(classes, pos_label)
    m = int(sum(dask.compute(*[task(_chunk_counts)(yb, sb, pos_label)
                               for yb, sb in zip(y_blocks, s_blocks)])))
    n = int(y_score.shape[0]) - m
    # the same cut as the in-memory metric (pauc.metrics)
    k = min(n, int(np.floor(n * fpr_hi)) + 1)
    keep_all = k >= n
    top = None
    if not keep_all:
        top = tree_reduce(partial(merge_top, k),
                          [task(_chunk_top_negatives)(yb, sb, pos_label, k)
                           for yb, sb in zip(y_blocks, s_blocks)])
    tops = [task(_chunk_tops)(yb, sb, pos_label, top, keep_all)
            for yb, sb in zip(y_blocks, s_blocks)]
    merged = tree_reduce(_merge_classes, tops)
    return float(task(_area)(merged, fpr_lo, fpr_hi, tpr_floor, m, n).compute())
