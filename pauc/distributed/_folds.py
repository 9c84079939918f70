"""Fold ids of rows that stay on their workers: seeded, stratified by label.

The distributed boosting fit (:mod:`pauc.distributed._cluster_trainer`) holds rows out
without moving them: every row gets a fold id, computed on the worker that
holds its row chunk, and each fold's model trains on the other folds' rows of
the same XGBoost matrix (the held-out rows get a zero gradient and Hessian).

**How the ids are stratified.**  The client first gathers each chunk's class
counts (two numbers per chunk).  Within a class, the rows of all chunks are
then given consecutive global ranks ``0 .. n_c - 1``: chunk ``b`` owns the
ranks after those of chunks ``0 .. b - 1``, and a seeded permutation of the
chunk's rows of that class (its own stream of the seed, ``SeedSequence((seed,
b))``) decides which row takes which of its ranks.  A row's fold follows from
its rank alone:

* ``K >= 2`` folds: ``(rank + shift_c) mod K``, ``shift_c`` a seeded rotation
  per class, so that each fold holds ``floor(n_c / K)`` or ``ceil(n_c / K)``
  rows of class ``c`` -- the class counts of :class:`sklearn.model_selection.StratifiedKFold`;
* one validation split of fraction ``f``: the rank ``r`` is held out (fold 0)
  when ``floor((r + 1) f) > floor(r f)``, else it trains (fold 1): exactly
  ``floor(n_c f)`` rows of each class are held out, spread evenly over the
  ranks and so over the chunks.

The ids depend on the seed, the labels and the chunking, not on the workers
or on the order in which the chunks are computed.

For XGBoost the fold travels in the label: ``label = is_positive + 2 fold``
(:func:`fold_labels`, exact in float32); the window objective and metric
decode it (:func:`decode_labels`).
"""

import dask.array as da
import numpy as np

__all__ = ["chunk_class_counts", "assign_folds", "fold_labels", "decode_labels",
           "fold_class_counts"]


def _counts_block(block):
    n_pos = int(np.count_nonzero(block))
    return np.array([[n_pos, block.shape[0] - n_pos]], dtype=np.int64)


def chunk_class_counts(is_pos):
    """``(n_chunks, 2)``: positives and negatives of each row chunk of the dask
    boolean vector ``is_pos`` (two numbers per chunk reach the client)."""
    counts = da.map_blocks(_counts_block, is_pos, chunks=((1,) * is_pos.numblocks[0], (2,)),
                           new_axis=1, dtype=np.int64)
    return np.asarray(counts.compute()).reshape(-1, 2)


def _fold_block(block, offsets, shifts, n_folds, fraction, seed, block_id=None):
    b = block_id[0]
    rng = np.random.default_rng(np.random.SeedSequence((seed, b)))
    folds = np.empty(block.shape[0], dtype=np.int8)
    for c, rows in enumerate((np.flatnonzero(block), np.flatnonzero(~block))):
        ranks = offsets[b, c] + rng.permutation(rows.shape[0])
        if n_folds >= 2:
            folds[rows] = (ranks + shifts[c]) % n_folds
        else:
            held = np.floor((ranks + 1) * fraction) > np.floor(ranks * fraction)
            folds[rows] = np.where(held, 0, 1)
    return folds


def assign_folds(is_pos, n_folds, seed, fraction=None, counts=None):
    """The fold id of every row of the dask boolean vector ``is_pos`` (module
    docstring), a lazy ``int8`` dask vector with ``is_pos``'s chunks.

    Parameters
    ----------
    is_pos : dask array of bool
    n_folds : int
        ``K >= 2``: ids ``0 .. K - 1``; ``1``: one validation split, ids 0
        (held out) and 1 (training).
    seed : int
    fraction : float in (0, 1) or None
        The held-out share of the validation split (``n_folds == 1``).
    counts : ndarray of shape (n_chunks, 2), optional
        :func:`chunk_class_counts` of ``is_pos``, if already gathered.
    """
    if n_folds < 1:
        raise ValueError(f"n_folds must be >= 1, got {n_folds}")
    if n_folds == 1 and not (fraction is not None and 0.0 < fraction < 1.0):
        raise ValueError(f"a validation split needs a fraction in (0, 1), got {fraction!r}")
    if counts is None:
        counts = chunk_class_counts(is_pos)
    offsets = np.vstack([np.zeros((1, 2), dtype=np.int64), np.cumsum(counts, axis=0)[:-1]])
    shifts = np.random.default_rng(seed).integers(0, max(n_folds, 1), size=2)
    return da.map_blocks(_fold_block, is_pos, offsets=offsets, shifts=shifts,
                         n_folds=int(n_folds), fraction=fraction, seed=int(seed),
                         dtype=np.int8)


def fold_labels(is_pos, folds):
    """XGBoost labels that carry the fold: ``is_pos + 2 fold`` (float32, lazy)."""
    return is_pos.astype(np.float32) + 2.0 * folds.astype(np.float32)


def decode_labels(labels, held_out):
    """``(is_pos, training)`` of XGBoost labels made by :func:`fold_labels`:
    ``training`` marks the rows outside fold ``held_out`` (None: every row)."""
    codes = np.asarray(labels)
    fold = np.floor_divide(codes, 2.0)
    is_pos = (codes - 2.0 * fold) == 1.0
    bad = (codes != np.round(codes)) | (codes < 0)
    if bad.any():
        raise ValueError("fold-coded labels are is_positive + 2 * fold (non-negative "
                         f"integers), got {np.unique(codes[bad])[:5].tolist()}")
    training = None if held_out is None else fold != held_out
    return is_pos, training


def _fold_counts_block(pos, folds, n_folds):
    return np.bincount(folds.astype(np.int64) * 2 + (~pos).astype(np.int64),
                       minlength=2 * n_folds).reshape(1, -1)


def fold_class_counts(is_pos, folds, n_folds):
    """``(n_folds, 2)``: positives and negatives of each fold (a few numbers per
    chunk reach the client)."""
    n_ids = max(n_folds, 2)
    per_chunk = da.map_blocks(_fold_counts_block, is_pos, folds, n_folds=n_ids,
                              chunks=((1,) * is_pos.numblocks[0], (2 * n_ids,)),
                              new_axis=1, dtype=np.int64)
    return np.asarray(per_chunk.sum(axis=0).compute()).reshape(n_ids, 2)
