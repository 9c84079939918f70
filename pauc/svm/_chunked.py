"""Structural SVMs on row-chunked ``dask.array`` data (paper 002, Algorithm 1 as a map-reduce).

The cutting-plane solver (:class:`~pauc.svm._cutting_plane.CuttingPlaneSolver`)
and the CCCP loop (:mod:`pauc.svm._dc`) read the data only through ``X @ w``,
``X.T @ coef``, ``scores @ coef`` and the oracle.  This module gives them

* :class:`ChunkedDesign` -- a design matrix over a row-chunked dask array
  (dense blocks or scipy.sparse blocks): ``X @ w`` is a *persisted* dask
  vector of scores aligned with the label chunks (it stays on the workers),
  ``X.T @ coef`` is the d-vector ``sum_k X_k^T coef_k`` summed by a tree
  reduction on the workers (only d floats reach the client);
* :func:`chunked_window_cut` and :func:`chunked_auc_cut` -- the
  most-violated-constraint searches of :mod:`pauc.svm.oracles` on dask
  scores, returning ``coef`` as a persisted dask vector and ``loss`` as a
  float, **equal to the in-memory oracles** (same coefficients bit for bit,
  ties and the row-order tie-break included; tested with hypothesis).

Two ways to run them: as task graphs (below; the public oracles on dask
scores, and fits without a ``dask.distributed`` client), and -- for fits on a
distributed cluster, where a task graph pays the scheduler's latency at each
of its levels in every iteration -- on one actor per worker holding its
chunks, which exchange the same per-chunk results directly
(:mod:`pauc.svm._chunk_actors`).  Both call the per-chunk functions of this
module, so both give the in-memory cut.

Window oracle (tight surrogate, Algorithms 2 and 3, ``j_beta <= n``)
--------------------------------------------------------------------
In the count representation of Appendix B.1 every quantity is a count or a
prefix sum over the sorted top ``j_beta`` negatives ``T``:

1. per chunk, its top ``j_beta`` negatives; merged by a tree reduction on
   the workers into ``T`` (the top ``j_beta`` of the chunks' top lists);
2. per chunk, each positive's row ``r_i`` (families 1 and 2 of Algorithm 3
   from ``#{T > p}``, ``#{T > p - 1}`` and the prefix sums of ``T``), a
   histogram of the rows, and how many negatives lie above / at
   ``t_beta = T[0]``;
3. one small task: each chunk's quota of ties at ``t_beta`` in row order
   (the in-memory oracle keeps the first tied rows), the counts
   ``c_j = #{i : r_i >= j}`` from the summed histograms, and for ties whose
   ranks straddle ``j_alpha`` how many the later chunks hold;
4. per chunk, each selected negative's rank in ``T`` and so its count, with
   ``X_k^T coef_k`` and ``s_k . coef_k`` in the same task.

The client receives, per iteration, ``d + 2`` numbers: ``X.T @ coef``, the
loss and ``scores @ coef`` (fetched in one round trip, see :func:`_finish`).

AUC oracle (Joachims, ``j_beta = n``)
-------------------------------------
Every positive must be counted against every negative: ``r_i = #{z > p_i -
1}`` and ``c_j = #{i : p_i - 1 < z_j}``.  Each chunk sorts its negatives and
its shifted positives ``p - 1``; the task of chunk ``k`` then counts its
positives against *every* chunk's sorted negatives (and its negatives against
every chunk's sorted positives).  What travels is worker to worker: each
chunk's sorted scores (8 bytes per row) to the other workers, once per
iteration.  Nothing of size ``n`` reaches the client.
"""

import operator
from functools import partial

import numpy as np

from .._dask import (aligned_labels, check_known_chunks, is_dask_array, merge_top,
                     require_dask, sum_arrays, top_values, tree_reduce)
from .._ranking import count_above, split_by_label
from .._validation import check_fpr_range, check_pos_label, empirical_indices
from ._oracles import _sorted_candidates

__all__ = ["ChunkedDesign", "ChunkedLabels", "chunked_window_cut", "chunked_auc_cut",
           "as_chunked_labels", "fit_chunked", "chunked_decision_function"]


# --------------------------------------------------------------------------
# Data: the design matrix and the labels
# --------------------------------------------------------------------------

def _matvec_block(block, w):
    with np.errstate(invalid="ignore", over="ignore"):     # reported below, clearly
        scores = np.asarray(block @ w, dtype=np.float64).ravel()
    if not np.isfinite(scores.sum()):
        if not np.isfinite(scores).all():
            data = block.data if hasattr(block, "data") and not isinstance(block, np.ndarray) \
                else block
            if not np.isfinite(data).all():
                raise ValueError("X contains NaN or infinity")
            raise ValueError("X @ w overflowed (scores are not finite)")
    return scores


def _rmatvec_block(block, coef):
    return np.asarray(block.T @ coef, dtype=np.float64).ravel()


class _Transposed:
    """``X.T`` of a :class:`ChunkedDesign`: only ``@ coef`` is defined."""

    def __init__(self, design):
        self._design = design
        self.shape = design.shape[::-1]

    def __matmul__(self, coef):
        return self._design.rmatvec(coef)


class ChunkedDesign:
    """Row-chunked design matrix for the cutting-plane solver.

    Parameters
    ----------
    X : dask.array.Array of shape (n_samples, n_features)
        Row chunks of dense arrays or scipy.sparse matrices; column chunks
        are merged (the solver needs whole rows).
    """

    def __init__(self, X):
        _, da = require_dask()
        if X.ndim != 2:
            raise ValueError(f"X must be 2-d, got shape {X.shape}")
        check_known_chunks(X, "X")
        if X.numblocks[1] > 1:
            X = X.rechunk({1: -1})
        # Held in the workers' memory for the whole fit: every iteration reads
        # each block twice (X @ w, X.T @ coef), and a lazy X (read from files,
        # generated) would otherwise be rebuilt each time.
        dask, _ = require_dask()
        (X,) = dask.persist(X)
        self.X = X
        self.shape = X.shape
        self.dtype = X.dtype
        self.row_chunks = tuple(int(c) for c in X.chunks[0])
        self.T = _Transposed(self)
        self._products = {}         # X.T @ coef computed by an oracle, by coef's key

    def __matmul__(self, w):
        dask, _ = require_dask()
        w = np.asarray(w, dtype=np.float64).ravel()
        if w.shape != (self.shape[1],):
            raise ValueError(f"w has shape {w.shape}, expected ({self.shape[1]},)")
        scores = self.X.map_blocks(_matvec_block, w, drop_axis=1, dtype=np.float64,
                                   meta=np.empty(0, dtype=np.float64))
        # persisted: the oracle, X.T @ coef and scores @ coef reuse the same blocks
        (scores,) = dask.persist(scores)
        return _chunked_scores(scores, self)

    def rmatvec_task(self, coef):
        """``X.T @ coef`` as one delayed d-vector (per-chunk products, tree-summed)."""
        dask, _ = require_dask()
        if tuple(coef.chunks[0]) != self.row_chunks:
            coef = coef.rechunk((self.row_chunks,))
        task = dask.delayed(_rmatvec_block, pure=True)
        parts = [task(xb, cb) for xb, cb in zip(self.X.to_delayed().ravel(),
                                                coef.to_delayed().ravel())]
        return tree_reduce(sum_arrays, parts)

    def rmatvec(self, coef):
        """``X.T @ coef`` as a numpy d-vector; only these d floats reach the client.

        The oracles compute it in their own round trip when they know the
        design (see :func:`_finish`); it is then taken from there.
        """
        if not is_dask_array(coef):
            raise TypeError("X.T @ coef needs coef as a dask array aligned with X's rows")
        g = self._products.pop(coef.name, None)
        if g is None:
            g = self.rmatvec_task(coef).compute()
        return np.asarray(g, dtype=np.float64)



def _chunked_scores(scores, design):
    """``scores`` as a :class:`_ChunkedScores` remembering the design it came from."""
    _, da = require_dask()
    global _ChunkedScores
    if _ChunkedScores is None:
        class _ChunkedScoresArray(da.Array):
            """Dask scores ``X @ w`` that know their design matrix.

            The oracle then computes, in its one round trip per iteration, the
            loss, ``X.T @ coef`` and ``scores @ coef`` together (instead of
            three round trips); ``scores @ coef`` returns the stored value.
            """

            def __matmul__(self, other):
                dots = self.__dict__.get("_dots", {})
                if is_dask_array(other) and other.name in dots:
                    return dots.pop(other.name)
                return super().__matmul__(other)

        _ChunkedScores = _ChunkedScoresArray
    out = _ChunkedScores(scores.dask, scores.name, scores.chunks, meta=scores._meta)
    out.__dict__["_design"] = design
    out.__dict__["_dots"] = {}
    return out


_ChunkedScores = None


def _with_products(coef, s, xb):
    """A chunk's coefficients with its parts of ``X.T @ coef`` and ``scores @ coef``,
    computed in the same task (one scheduler hop less per iteration)."""
    if xb is None:
        return coef, None, None
    return coef, _rmatvec_block(xb, coef), float(np.dot(s, coef))




def _design_blocks(scores):
    """The design's row blocks when ``scores`` came from :class:`ChunkedDesign`, else Nones."""
    design = getattr(scores, "__dict__", {}).get("_design")
    if design is None:
        return None, [None] * scores.numblocks[0]
    return design, list(design.X.to_delayed().ravel())


def _small_part(part):
    """``(X_k^T coef_k, s_k . coef_k, loss count)`` of a chunk's part: the
    coefficients stay on their worker, only these few numbers move."""
    return (None,) + tuple(part[1:])


def _totals(*parts):
    """``(sum X_kᵀ coef_k, sum s_k · coef_k, loss count)`` of per-chunk parts
    ``(coef_k or None, X_kᵀ coef_k, s_k · coef_k, loss count)`` (the task
    graphs' small parts, :func:`_small_part`, and the actors' chunks)."""
    loss = sum(int(part[3]) for part in parts)
    if parts[0][1] is None:
        return None, None, loss
    g = sum_arrays(*[part[1] for part in parts])
    return g, float(sum(part[2] for part in parts)), loss


def _finish(scores, design, parts, row_chunks):
    """Persist ``coef`` and fetch the loss count -- with ``X.T @ coef`` and
    ``scores @ coef`` when the design is known -- in one round trip, leaving
    the products where the solver will ask for them."""
    dask, _ = require_dask()
    (coef,) = dask.persist(_assemble(parts, row_chunks))
    small = [_task(_small_part)(part) for part in parts]
    g, dot, loss_count = _task(_totals)(*small).compute()
    if design is None:
        return coef, loss_count
    scores.__dict__["_dots"] = {coef.name: np.float64(dot)}
    design._products.clear()
    design._products[coef.name] = g
    return coef, loss_count


def _distinct(block):
    return np.unique(block)


class ChunkedLabels:
    """Labels of row-chunked data as a persisted boolean dask vector.

    ``is_pos`` (True for the positive class), the per-chunk numbers of
    positives and negatives, and their totals -- computed once, so that the
    oracles do not recount them on every call.
    """

    def __init__(self, is_pos, n_pos_per_chunk):
        self.is_pos = is_pos
        self.row_chunks = tuple(int(c) for c in is_pos.chunks[0])
        self.n_pos_per_chunk = np.asarray(n_pos_per_chunk, dtype=np.int64)
        self.n_neg_per_chunk = np.asarray(self.row_chunks, dtype=np.int64) - self.n_pos_per_chunk
        self.n_pos = int(self.n_pos_per_chunk.sum())
        self.n_neg = int(self.n_neg_per_chunk.sum())
        self.shape = is_pos.shape


def _label_column(y, row_chunks, name="y"):
    """``y`` as a numeric 1-d dask array with the row chunks ``row_chunks``."""
    y = aligned_labels(y, row_chunks, name=name)
    if y.dtype.kind not in "biuf":
        raise ValueError(f"{name} must be numeric or boolean for chunked input, got {y.dtype}")
    return y


def _distinct_labels(y):
    """The distinct values of a dask ``y`` (one task per chunk, merged on the client)."""
    dask, _ = require_dask()
    return np.unique(np.concatenate(dask.compute(*[dask.delayed(_distinct)(b)
                                                   for b in y.to_delayed().ravel()])))


def _check_classes(classes, dtype, name="y"):
    if dtype.kind == "f" and not np.all(np.isfinite(classes)):
        raise ValueError(f"{name} contains NaN or infinity")


def _labels_with_classes(y, row_chunks, name="y"):
    """``(y, classes)``: ``y`` aligned with ``row_chunks`` and its distinct values."""
    y = _label_column(y, row_chunks, name=name)
    classes = _distinct_labels(y)
    _check_classes(classes, y.dtype, name)
    return y, classes


def as_chunked_labels(y, row_chunks, positive=None, name="y"):
    """Validate binary labels aligned with ``row_chunks``; ``positive`` defaults to the larger."""
    dask, _ = require_dask()
    if isinstance(y, ChunkedLabels):
        if y.row_chunks != tuple(row_chunks):
            raise ValueError(f"{name} is not aligned with the scores' row chunks")
        return y
    y, classes = _labels_with_classes(y, row_chunks, name=name)
    if classes.shape[0] < 2:
        raise ValueError(f"{name} holds only one class ({classes.tolist()}): the oracles need "
                         "both positives and negatives")
    if classes.shape[0] > 2:
        raise ValueError(f"{name} must be boolean or 0/1 (True for positives), got the "
                         f"values {classes[:10].tolist()}")
    if positive is None:
        if y.dtype.kind not in "b" and not np.all(np.isin(classes, (0, 1))):
            raise ValueError(f"{name} must be boolean or 0/1 (True for positives)")
        positive = classes[1]
    is_pos = y == positive
    (is_pos,) = dask.persist(is_pos)
    counts = dask.compute(*[dask.delayed(np.count_nonzero)(b)
                            for b in is_pos.to_delayed().ravel()])
    return ChunkedLabels(is_pos, counts)


def _scores_and_labels(scores, y):
    if not is_dask_array(scores):
        raise TypeError("the chunked oracles need dask scores")
    check_known_chunks(scores, "scores")
    if scores.ndim != 1:
        raise ValueError(f"scores must be a 1-d array, got shape {scores.shape}")
    if scores.dtype.kind not in "biuf":
        raise ValueError(f"scores must be numeric, got dtype {scores.dtype}")
    row_chunks = tuple(int(c) for c in scores.chunks[0])
    labels = as_chunked_labels(y, row_chunks, positive=None)
    if labels.n_pos == 0 or labels.n_neg == 0:
        raise ValueError("y holds only one class: the oracles need both positives and negatives")
    return scores, labels


def _blocks(array):
    return list(array.to_delayed().ravel())


def _task(func, nout=None):
    """``func`` as a pure delayed function (equal inputs give one shared task)."""
    dask, _ = require_dask()
    return dask.delayed(func, pure=True, nout=nout)


def _first(values):
    return values[0]


# --------------------------------------------------------------------------
# Window oracle: Algorithms 2 and 3 on the merged top-j_beta list
# --------------------------------------------------------------------------
#
# Five dependency levels on the workers (each costs a scheduler hop, a few
# ms): chunk top lists -> merged T -> per-chunk rows and counts -> one small
# plan (quotas, c_j, tie ranks) -> per-chunk coefficients.

def _finite_scores(s):
    s = np.asarray(s, dtype=np.float64)
    if not np.isfinite(s.sum()) and not np.isfinite(s).all():
        raise ValueError("scores contain NaN or infinity")
    return s


def _chunk_top_negatives(s, pos, k):
    return top_values(_finite_scores(s)[~pos], k)


def _selected(neg, t_beta, quota):
    """Mask of a chunk's selected negatives: above ``t_beta``, and its first ``quota`` ties."""
    at = neg == t_beta
    return (neg > t_beta) | (at & (np.cumsum(at) <= quota))


def _prefix_sums(top):
    """``Z_r`` of the sorted top list, ``Z_0 = 0``, summed from the top in the
    same sequential order as the in-memory walk (so the floats are equal)."""
    return np.concatenate(([0.0], np.cumsum(top[::-1])))


def _straddling_value(top, j_alpha):
    """The score at rank ``j_alpha`` when its ties also fill rank ``j_alpha + 1``, else None.

    The rows ``r_i`` are counts of strict inequalities against ``T`` (which
    never split a group of tied negatives), ``j_alpha`` or ``j_beta`` (the
    end of ``T``); so the counts ``c_j`` can differ inside a tie group only
    across ranks ``j_alpha | j_alpha + 1``.  There the in-memory oracle ranks
    the tied negatives by row number (highest row first).  In exact
    arithmetic no positive even takes ``r_i = j_alpha`` when such a tie exists
    (family 2 then beats family 1 strictly), but rounding in the prefix sums
    can tip that comparison; the ranks stay those of memory then too.
    """
    size = top.shape[0]
    if 0 < j_alpha < size and top[size - j_alpha] == top[size - j_alpha - 1]:
        return top[size - j_alpha]
    return None


def _chunk_rows(s, pos, top, j_alpha, j_beta):
    """One chunk's positives against ``T``: each row ``r_i`` (Algorithm 3,
    lines 3-7), their histogram and loss count, and the chunk's negatives
    above / at ``t_beta = T[0]`` and at the straddling value.

    Mirrors :func:`pauc.svm._oracles._walk` (tight surrogate) operation for
    operation, vectorised over the chunk's positives, so the floats compare
    exactly as in memory.
    """
    s = np.asarray(s, dtype=np.float64)
    p = s[pos]
    neg = s[~pos]
    size = top.shape[0]
    width = j_beta - j_alpha
    Z = _prefix_sums(top)
    top_alpha, top_beta = Z[j_alpha], Z[j_beta]
    # family 2 (line 5): r2 = clip(#{z > p - 1}, j_alpha, j_beta)
    above_m = size - np.searchsorted(top, p - 1.0, side="right")
    best_r = np.clip(above_m, j_alpha, j_beta)
    h_mid = (above_m - j_alpha).astype(np.float64) + Z[above_m] - above_m * p
    h_lo = top_alpha - j_alpha * p
    h_hi = float(width) + top_beta - j_beta * p
    best_h = np.where(above_m <= j_alpha, h_lo, np.where(above_m >= j_beta, h_hi, h_mid))
    if j_alpha > 0:
        # family 1 (line 4): r1 = min(#{z > p}, j_alpha); line 6, ties keep family 2
        above = size - np.searchsorted(top, p, side="right")
        h1 = np.where(above < j_alpha, Z[above] - above * p, top_alpha - j_alpha * p)
        best_r = np.where(h1 > best_h, np.minimum(above, j_alpha), best_r)
    t_beta = top[0]
    straddle = _straddling_value(top, j_alpha)
    return {
        "rows": best_r,
        "hist": np.bincount(best_r, minlength=size + 1).astype(np.int64),
        "loss": int(np.clip(best_r - j_alpha, 0, width).sum()),
        "above": int(np.count_nonzero(neg > t_beta)),
        "at": int(np.count_nonzero(neg == t_beta)),
        "straddle": 0 if straddle is None else int(np.count_nonzero(neg == straddle)),
    }


def _window_plan(j_alpha, j_beta, top, *chunks):
    """The small global step: quotas of the ties at ``t_beta`` (first rows
    first, as in memory), ``c[j] = #{i : r_i >= j}`` from the summed
    histograms (Appendix B.1), the loss count, and per chunk how many
    selected negatives tied at the straddling value the later chunks hold."""
    hist = sum_arrays(*[c["hist"] for c in chunks])
    return window_plan_from_hist(j_alpha, j_beta, top, hist, chunks)


def window_plan_from_hist(j_alpha, j_beta, top, hist, chunks):
    """:func:`_window_plan` from the histogram of the rows already summed over
    the chunks; ``chunks`` (in row order) need only ``above``, ``at``,
    ``straddle`` and ``loss``."""
    remaining = j_beta - sum(c["above"] for c in chunks)
    quotas = []
    for c in chunks:
        quotas.append(min(c["at"], remaining))
        remaining -= quotas[-1]
    counts = np.cumsum(hist[::-1])[::-1]
    straddle = _straddling_value(top, j_alpha)
    later = np.zeros(len(chunks), dtype=np.int64)
    if straddle is not None:
        # selected ties per chunk: all of them above t_beta, the quota at it
        held = np.array([q if straddle == top[0] else c["straddle"]
                         for q, c in zip(quotas, chunks)], dtype=np.int64)
        later = np.concatenate((np.cumsum(held[::-1])[::-1][1:], [0]))
    return {"quotas": quotas, "counts": counts, "straddle": straddle, "later": later,
            "loss": sum(c["loss"] for c in chunks)}


def _window_coef(s, pos, top, chunk, plan, k, inv_n, xb):
    """The chunk's coefficients: ``r_i / N`` on positives, ``-c_(rank) / N`` on
    the selected negatives (rank in ``T``), 0 on the others."""
    s = np.asarray(s, dtype=np.float64)
    counts = plan["counts"]
    coef = np.zeros(s.shape[0], dtype=np.float64)
    coef[pos] = chunk["rows"] * inv_n
    neg_rows = np.flatnonzero(~pos)
    neg = s[neg_rows]
    chosen = _selected(neg, top[0], plan["quotas"][k])
    z = neg[chosen]
    rank = top.shape[0] - np.searchsorted(top, z, side="right") + 1
    if plan["straddle"] is not None:
        tie = z == plan["straddle"]
        # ties later in this chunk, and in later chunks, rank above this one
        rank[tie] += plan["later"][k] + (np.count_nonzero(tie) - np.cumsum(tie)[tie])
    coef[neg_rows[chosen]] = -counts[rank] * inv_n
    return _with_products(coef, s, xb) + (chunk["loss"],)


def _assemble(parts, row_chunks):
    """A dask vector whose block ``k`` is ``parts[k][0]`` (one getitem task per chunk)."""
    dask, da = require_dask()
    from dask.base import tokenize
    from dask.highlevelgraph import HighLevelGraph

    name = "pauc-coef-" + tokenize(*[part.key for part in parts])
    layer = {(name, k): (operator.getitem, part.key, 0) for k, part in enumerate(parts)}
    graph = HighLevelGraph.from_collections(name, layer, dependencies=parts)
    return da.Array(graph, name, chunks=(tuple(row_chunks),), dtype=np.float64,
                    meta=np.empty(0, dtype=np.float64))






def chunked_window_cut(scores, y, j_alpha, j_beta):
    """Tight-surrogate cut (Algorithms 2 and 3) on dask scores.

    Parameters
    ----------
    scores : dask.array.Array of shape (n_samples,)
    y : dask.array.Array of bool/{0, 1}, aligned with ``scores``, or :class:`ChunkedLabels`
    j_alpha, j_beta : int
        ``0 <= j_alpha < j_beta <= n_negatives``.

    Returns
    -------
    coef : dask.array.Array of shape (n_samples,), persisted
        Equal to :func:`pauc.svm.oracles.pauc_tight_oracle`'s.
    loss : float
    """
    from .oracles import _check_indices

    if getattr(scores, "_pauc_actor_scores", False):
        # a chunked fit's scores, held by actors
        return scores.window_cut(y, j_alpha, j_beta)
    dask, _ = require_dask()
    scores, labels = _scores_and_labels(scores, y)
    j_alpha, j_beta = _check_indices(j_alpha, j_beta, labels.n_neg)
    task = _task
    s_blocks, y_blocks = _blocks(scores), _blocks(labels.is_pos)
    # 1-2. the top j_beta negatives, merged on the workers
    tops = [task(_chunk_top_negatives)(s, p, j_beta) for s, p in zip(s_blocks, y_blocks)]
    top = tree_reduce(partial(merge_top, j_beta), tops, fan_in=8)
    # 3. rows of the positives, counts of the negatives at the borders
    chunks = [task(_chunk_rows)(s, p, top, j_alpha, j_beta) for s, p in zip(s_blocks, y_blocks)]
    # 4. quotas, c_j, tie ranks
    plan = task(_window_plan)(j_alpha, j_beta, top, *chunks)
    # 5. coefficients
    inv_n = 1.0 / (float(labels.n_pos) * float(j_beta - j_alpha))
    design, x_blocks = _design_blocks(scores)
    parts = [task(_window_coef)(s, p, top, chunk, plan, k, inv_n, xb)
             for k, (s, p, chunk, xb) in enumerate(zip(s_blocks, y_blocks, chunks, x_blocks))]
    coef, loss_count = _finish(scores, design, parts, labels.row_chunks)
    return coef, float(loss_count) * inv_n


# --------------------------------------------------------------------------
# AUC oracle: every positive against every negative, worker to worker
# --------------------------------------------------------------------------

def _auc_sort(s, pos):
    """A chunk's shifted positives ``p - 1`` and its negatives, each sorted,
    with the row of each sorted value (to give the counts back to the rows):
    the packed-key sort of the in-memory oracles, which carries the row
    numbers at the cost of a plain sort."""
    s = _finite_scores(s)
    if s.shape[0] >= 2**31 - 1:
        raise ValueError(f"{s.shape[0]} rows in one sort: the row numbers are 32-bit "
                         "integers; split the data over more chunks or workers")
    pos = np.ascontiguousarray(pos, dtype=bool)
    n_neg = s.shape[0] - int(np.count_nonzero(pos))
    # every row is a candidate (t_beta = -inf): nothing is written to ``unused``
    unused = np.empty(s.shape[0])
    values, rows = _sorted_candidates(s, pos.view(np.uint8), n_neg, -np.inf, 0, unused)
    return (values[n_neg:] - 1.0, values[:n_neg]), (rows[n_neg:], rows[:n_neg])


def _auc_prepare(s, pos):
    """The chunk's sorted shifted positives ``p - 1`` and sorted negatives
    (the values of :func:`_auc_sort`, without the rows)."""
    p, z = split_by_label(_finite_scores(s), pos)
    return np.sort(p - 1.0), np.sort(z)


def _auc_coef(mine, rows, inv_n, lists, size):
    """Coefficients of the rows sorted in ``mine`` against every sorted list:
    ``r_i = #{z > p_i - 1}`` (negatives the positive is ranked below) and
    ``c_j = #{i : p_i - 1 < z_j}`` (positives ranked below the negative),
    Joachims' search (paper 002, eq. (7)) in the count representation; each
    count is one merge of two sorted arrays.  ``(coef, loss count)``."""
    q, z = mine
    r = np.zeros(q.shape[0], dtype=np.int64)
    c = np.zeros(z.shape[0], dtype=np.int64)
    for other_q, other_z in lists:
        r += count_above(other_z, q)[0]
        greater, equal = count_above(other_q, z)
        c += other_q.shape[0] - greater - equal
    coef = np.empty(size, dtype=np.float64)
    coef[rows[0]] = r * inv_n
    coef[rows[1]] = -c * inv_n
    return coef, int(r.sum())


def _auc_chunk(s, pos, inv_n, xb, *prepared):
    """One chunk's coefficients against every chunk's sorted lists (see :func:`_auc_coef`)."""
    s = np.asarray(s, dtype=np.float64)
    mine, rows = _auc_sort(s, pos)
    coef, loss = _auc_coef(mine, rows, inv_n, prepared, s.shape[0])
    return _with_products(coef, s, xb) + (loss,)


def chunked_auc_cut(scores, y):
    """Joachims' AUC cut (paper 002, eqs. (5)-(7)) on dask scores.

    Returns ``(coef, loss)`` equal to :func:`pauc.svm.oracles.auc_oracle`'s,
    ``coef`` as a persisted dask array.  See the module docstring for what
    travels between the workers.
    """
    if getattr(scores, "_pauc_actor_scores", False):
        return scores.auc_cut(y)          # a chunked fit's scores, held by actors
    dask, _ = require_dask()
    scores, labels = _scores_and_labels(scores, y)
    task = _task
    s_blocks, y_blocks = _blocks(scores), _blocks(labels.is_pos)
    prepared = [task(_auc_prepare)(s, p) for s, p in zip(s_blocks, y_blocks)]
    inv_n = 1.0 / (float(labels.n_pos) * float(labels.n_neg))
    design, x_blocks = _design_blocks(scores)
    parts = [task(_auc_chunk)(s, p, inv_n, xb, *prepared)
             for s, p, xb in zip(s_blocks, y_blocks, x_blocks)]
    coef, loss_count = _finish(scores, design, parts, labels.row_chunks)
    return coef, float(loss_count) * inv_n

# --------------------------------------------------------------------------
# Fitting the estimators on chunked data
# --------------------------------------------------------------------------

def _check_chunked_training_data(estimator, X, y, sample_weight):
    """Validate the chunked ``X`` and ``y``; ``(design, labels, engine)``.

    ``engine`` is the :class:`~pauc.svm._chunk_actors.ActorDesign` holding the
    chunks when a ``dask.distributed`` client is the scheduler (the label
    checks then run on its actors too), else None.
    """
    from ._chunk_actors import actor_design

    dask, da = require_dask()
    if sample_weight is not None:
        raise NotImplementedError(
            f"{type(estimator).__name__}.fit does not take sample_weight with chunked "
            "(dask) X; pass sample_weight=None")
    if not is_dask_array(X):
        raise TypeError("chunked fit: X must be a dask array when y is one (convert X with "
                        "dask.array.from_array(X, chunks=y.chunks[0] + (-1,)))")
    if X.dtype.kind not in "biuf":
        raise ValueError(f"X must be numeric, got dtype {X.dtype}")
    design = ChunkedDesign(X)
    y = _label_column(y, design.row_chunks)
    engine = actor_design(design, y)
    try:
        classes = _distinct_labels(y) if engine is None else engine.distinct_labels()
        _check_classes(classes, y.dtype)
        if classes.shape[0] < 2:
            raise ValueError(f"y holds only one class ({classes.tolist()}); ranking needs "
                             "both positives and negatives")
        if classes.shape[0] > 2:
            raise ValueError(
                f"Only binary classification is supported. y takes {classes.shape[0]} "
                f"values; {type(estimator).__name__} is a binary ranker")
        positive = check_pos_label(classes, estimator.pos_label)
        is_pos = y == positive
        if engine is None:
            (is_pos,) = dask.persist(is_pos)
            counts = dask.compute(*[dask.delayed(np.count_nonzero)(b) for b in _blocks(is_pos)])
            labels = ChunkedLabels(is_pos, counts)
        else:
            labels = engine.set_positive(is_pos, positive)
    except BaseException:
        if engine is not None:
            engine.close()
        raise
    negative = classes[0] if classes[1] == positive else classes[1]
    estimator.classes_ = np.array([negative, positive], dtype=classes.dtype)
    estimator.pos_label_ = estimator.classes_[1]
    estimator.n_features_in_ = design.shape[1]
    estimator.__dict__.pop("feature_names_in_", None)
    return design, labels, engine


def fit_chunked(estimator, X, y, sample_weight=None):
    """``estimator.fit(X, y)`` for row-chunked dask ``X`` and ``y`` (AUCSVM / PartialAUCSVM).

    The same solver, the same oracles' results and the same threshold rule
    as the in-memory fit; the oracles run as map-reduces on the cluster (see
    the module docstring) and the master QP on the client.
    """
    from ._estimators import AUCSVM, PartialAUCSVM

    estimator._validate_params()
    C, tol = float(estimator.C), float(estimator.tol)
    fpr_range = None
    if isinstance(estimator, PartialAUCSVM):
        fpr_range = check_fpr_range(estimator.fpr_range)
        if estimator.surrogate == "naive":
            raise NotImplementedError(
                "surrogate='naive' has no chunked oracle (its feature map spans all "
                "negatives); use 'tight' or 'hinge', or fit in memory")
    elif not isinstance(estimator, AUCSVM):
        raise TypeError(f"no chunked fit for {type(estimator).__name__}")
    design, labels, engine = _check_chunked_training_data(estimator, X, y, sample_weight)
    estimator.__dict__.pop("dc_history_", None)
    # On a distributed cluster the iterations run on actors holding the
    # chunks (one call per worker and iteration, see _chunk_actors); else as
    # task graphs.
    try:
        _fit_on(estimator, design if engine is None else engine, labels, fpr_range, C, tol)
        operating = estimator.operating_fpr
        if fpr_range is not None and operating is None:
            operating = fpr_range[1]
        if engine is None:
            estimator.threshold_ = chunked_threshold(design @ estimator.coef_, labels, operating)
        else:
            estimator.threshold_ = engine.threshold(estimator.coef_, operating)
    finally:
        if engine is not None:
            engine.close()
    return estimator


def _fit_on(estimator, data, labels, fpr_range, C, tol):
    """The solver part of :func:`fit_chunked`, its iterations run on ``data``."""
    from .oracles import auc_oracle, pauc_tight_oracle

    with estimator._fitting():
        if fpr_range is None:
            oracle = partial(auc_oracle, y=labels)
            estimator._run_solver(data, lambda rows: oracle, C, tol, coarse=False)
            return
        estimator.j_alpha_, estimator.j_beta_ = empirical_indices(labels.n_neg, fpr_range)
        j_alpha, j_beta = estimator.j_alpha_, estimator.j_beta_
        oracle = partial(pauc_tight_oracle, y=labels, j_alpha=j_alpha, j_beta=j_beta)
        estimator.dc_history_ = estimator.dc_inner_iter_ = None
        if estimator.surrogate == "hinge" and j_alpha > 0:
            estimator._fit_dc(data, labels, lambda rows: oracle, C, tol,
                              float(estimator.dc_tol), coarse=False)
        else:
            estimator._run_solver(data, lambda rows: oracle, C, tol, coarse=False)


def chunked_decision_function(estimator, X):
    """``X @ coef_`` for a dask ``X``, as a lazy dask array (nothing is computed)."""
    require_dask()
    if X.ndim != 2 or X.shape[1] != estimator.n_features_in_:
        raise ValueError(f"X has shape {X.shape}; {type(estimator).__name__} was fitted "
                         f"with {estimator.n_features_in_} features")
    if X.numblocks[1] > 1:
        X = X.rechunk({1: -1})
    return X.map_blocks(_matvec_block, np.asarray(estimator.coef_, dtype=np.float64),
                        drop_axis=1, dtype=np.float64, meta=np.empty(0, dtype=np.float64))


def _labels_block(scores, classes, threshold):
    return classes[(scores >= threshold).astype(np.intp)]


def chunked_labels_of(scores, classes, threshold):
    """``predict`` on dask scores: the labels as a lazy dask array."""
    return scores.map_blocks(_labels_block, classes, threshold, dtype=classes.dtype,
                             meta=np.empty(0, dtype=classes.dtype))


# --------------------------------------------------------------------------
# Threshold of predict (the rule of _StructuralSVM._set_threshold)
# --------------------------------------------------------------------------

def _class_sorted(s, pos, want_pos):
    s = np.asarray(s, dtype=np.float64)
    return np.sort(s[pos] if want_pos else s[~pos])


def _youden_chunk(pos_sorted, m, n, pos_lists, neg_lists):
    """Best (TPR - FPR, threshold) over this chunk's positives as thresholds,
    the highest threshold among equal values."""
    if pos_sorted.shape[0] == 0:
        return (-np.inf, -np.inf)
    tp = np.zeros(pos_sorted.shape[0], dtype=np.int64)
    fp = np.zeros(pos_sorted.shape[0], dtype=np.int64)
    for other in pos_lists:
        tp += other.shape[0] - np.searchsorted(other, pos_sorted, side="left")
    for other in neg_lists:
        fp += other.shape[0] - np.searchsorted(other, pos_sorted, side="left")
    youden = tp / m - fp / n
    best = youden.max()
    return (float(best), float(pos_sorted[youden == best].max()))


def _best_pair(*pairs):
    return max(pairs)


def _max_below(s, cut):
    s = np.asarray(s, dtype=np.float64)
    below = s[s < cut]
    return float(below.max()) if below.shape[0] else -np.inf


def _min_above(s, pos, level):
    p = np.asarray(s, dtype=np.float64)[pos]
    above = p[p > level]
    return float(above.min()) if above.shape[0] else np.inf


def chunked_threshold(scores, labels, operating_fpr):
    """``threshold_`` of the in-memory rule (Youden's point, or the FPR
    operating point), computed chunk-wise: the client receives a few floats."""
    dask, _ = require_dask()
    task = _task
    s_blocks, y_blocks = _blocks(scores), _blocks(labels.is_pos)
    m, n = labels.n_pos, labels.n_neg
    if operating_fpr is None:
        pos_lists = [task(_class_sorted)(s, p, True) for s, p in zip(s_blocks, y_blocks)]
        neg_lists = [task(_class_sorted)(s, p, False) for s, p in zip(s_blocks, y_blocks)]
        best = tree_reduce(_best_pair, [task(_youden_chunk)(pl, m, n, pos_lists, neg_lists)
                                        for pl in pos_lists])
        youden, at = best.compute()
        cut = at if youden >= 0 else np.inf
    elif operating_fpr == 0.0:
        top = tree_reduce(partial(merge_top, 1),
                          [task(_chunk_top_negatives)(s, p, 1)
                           for s, p in zip(s_blocks, y_blocks)]).compute()
        level = float(top[-1])
        lowest = min(dask.compute(*[task(_min_above)(s, p, level)
                                    for s, p in zip(s_blocks, y_blocks)]))
        cut = lowest if np.isfinite(lowest) else float(np.nextafter(level, np.inf))
    else:
        _, k = empirical_indices(n, (0.0, operating_fpr))
        top = tree_reduce(partial(merge_top, k),
                          [task(_chunk_top_negatives)(s, p, k)
                           for s, p in zip(s_blocks, y_blocks)])
        cut = float(task(_first)(top).compute())
    if not np.isfinite(cut):
        return cut
    below = max(dask.compute(*[task(_max_below)(s, cut) for s in s_blocks]))
    return 0.5 * (cut + below) if np.isfinite(below) else cut
