"""What runs on one row chunk: the per-chunk steps of the chunked designs.

Both ways of running a chunked fit -- task graphs (:mod:`._graphs`) and
actors holding the chunks (:mod:`._actors`) -- call these functions, and
these call the Cython kernels of the in-memory searches
(:mod:`pauc._loss._structural`, :mod:`pauc._ranking`): every chunked cut equals the
in-memory cut, ties and the row-order tie-break included.

Tight-surrogate cut (Algorithms 2 and 3, ``j_beta <= n``)
---------------------------------------------------------
In the count representation of Appendix B.1 every quantity is a count or a
prefix sum over the sorted top ``j_beta`` negatives ``T`` (line 2):

1. per chunk, its top ``j_beta`` negatives (:func:`chunk_top_negatives`);
   merged into ``T`` (the top ``j_beta`` of the chunks' top lists);
2. per chunk, each positive's row ``r_i`` against ``T`` -- lines 3-7, by the
   in-memory kernel :func:`pauc._loss._structural.chunk_rows` -- their histogram,
   and how many negatives lie above / at ``t_beta = T[0]``
   (:func:`window_rows`);
3. one small step: each chunk's quota of ties at ``t_beta`` in row order
   (the in-memory search keeps the first tied rows), the counts
   ``c_j = #{i : r_i >= j}`` from the summed histograms, and for ties whose
   ranks straddle ``j_alpha`` how many the later chunks hold
   (:func:`window_plan`);
4. per chunk, each selected negative's rank in ``T`` and so its count, with
   ``X_k^T coef_k`` and ``s_k . coef_k`` (:func:`window_coef`).

AUC cut (Joachims, ``j_beta = n``)
----------------------------------
Every positive is counted against every negative: ``r_i = #{z > p_i - 1}``
and ``c_j = #{i : p_i - 1 < z_j}``.  Each chunk sorts its negatives and its
shifted positives ``p - 1`` (:func:`auc_prepare`, :func:`auc_sort`: the
packed-key sort of the in-memory search); each chunk's counts are then merges
against every chunk's sorted lists (:func:`auc_coef`, with
:func:`pauc._ranking.count_above`).

References
----------
Narasimhan & Agarwal (2017), Algorithms 2 and 3, Appendix B.1; Joachims (2005).
Full entries in ``docs/references.rst``.
"""

import numpy as np

from .._ranking import count_above, split_by_label
from .._loss._structural import chunk_rows, sorted_candidates
from ._collections import sum_arrays, top_values

__all__ = ["matvec_block", "rmatvec_block", "finite_scores", "chunk_top_negatives",
           "window_rows", "window_plan", "window_coef", "auc_prepare", "auc_sort", "auc_coef",
           "auc_chunk", "with_products", "totals", "class_sorted", "max_below", "min_above"]


# --------------------------------------------------------------------------
# Products with a chunk of X
# --------------------------------------------------------------------------

def matvec_block(block, w):
    """``X_k @ w`` as float64, with a clear error for NaN/inf in ``X`` or an overflow."""
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


def rmatvec_block(block, coef):
    """``X_k.T @ coef_k`` as a float64 d-vector."""
    return np.asarray(block.T @ coef, dtype=np.float64).ravel()


def with_products(coef, s, xb):
    """A chunk's coefficients with ``X_k^T coef_k`` and ``s_k . coef_k`` (None
    without its block of ``X``: the public oracles on scores)."""
    if xb is None:
        return coef, None, None
    return coef, rmatvec_block(xb, coef), float(np.dot(s, coef))


def totals(*parts):
    """``(sum X_k^T coef_k, sum s_k . coef_k, loss count)`` of per-chunk parts
    ``(coef_k or None, X_k^T coef_k, s_k . coef_k, loss count)``."""
    loss = sum(int(part[3]) for part in parts)
    if parts[0][1] is None:
        return None, None, loss
    g = sum_arrays(*[part[1] for part in parts])
    return g, float(sum(part[2] for part in parts)), loss


# --------------------------------------------------------------------------
# Tight-surrogate cut (Algorithms 2 and 3)
# --------------------------------------------------------------------------

def finite_scores(s):
    """A chunk's scores as float64, refusing NaN and infinity."""
    s = np.asarray(s, dtype=np.float64)
    if not np.isfinite(s.sum()) and not np.isfinite(s).all():
        raise ValueError("scores contain NaN or infinity")
    return s


def chunk_top_negatives(s, pos, k):
    """Line 2 on a chunk: its ``k`` highest negatives, ascending."""
    return top_values(finite_scores(s)[~pos], k)


def _selected(neg, t_beta, quota):
    """Mask of a chunk's selected negatives: above ``t_beta``, and its first ``quota`` ties."""
    at = neg == t_beta
    return (neg > t_beta) | (at & (np.cumsum(at) <= quota))


def straddling_value(top, j_alpha):
    """The score at rank ``j_alpha`` when its ties also fill rank ``j_alpha + 1``, else None.

    The rows ``r_i`` are counts of strict inequalities against ``T`` (which
    never split a group of tied negatives), ``j_alpha`` or ``j_beta`` (the
    end of ``T``); so the counts ``c_j`` can differ inside a tie group only
    across ranks ``j_alpha | j_alpha + 1``.  There the in-memory search ranks
    the tied negatives by row number (highest row first).  In exact
    arithmetic no positive even takes ``r_i = j_alpha`` when such a tie exists
    (line 5's family then beats line 4's strictly), but rounding in the prefix
    sums can tip that comparison; the ranks stay those of memory then too.
    """
    size = top.shape[0]
    if 0 < j_alpha < size and top[size - j_alpha] == top[size - j_alpha - 1]:
        return top[size - j_alpha]
    return None


def window_rows(s, pos, top, j_alpha, j_beta, inv_n):
    """Lines 3-7 on a chunk against ``T``: ``(coef, border)``.

    ``coef`` holds ``r_i * inv_n`` on the chunk's positives (0 elsewhere);
    ``border`` the histogram of the rows, the loss count, and the chunk's
    negatives above / at ``t_beta = T[0]`` and at the straddling value --
    the few numbers :func:`window_plan` needs from every chunk.
    """
    s = finite_scores(s)
    pos = np.ascontiguousarray(pos, dtype=bool)
    coef, hist, loss = chunk_rows(top, s, pos.view(np.uint8), j_alpha, j_beta, inv_n)
    neg = s[~pos]
    t_beta = top[0]
    straddle = straddling_value(top, j_alpha)
    return coef, {
        "hist": hist.astype(np.int64),
        "loss": int(loss),
        "above": int(np.count_nonzero(neg > t_beta)),
        "at": int(np.count_nonzero(neg == t_beta)),
        "straddle": 0 if straddle is None else int(np.count_nonzero(neg == straddle)),
    }


def window_plan(j_alpha, j_beta, top, hist, borders):
    """The small global step, from the histogram of the rows summed over the
    chunks and every chunk's ``border`` (in row order).

    Quotas of the ties at ``t_beta`` (first rows first, as in memory),
    ``c[j] = #{i : r_i >= j}`` (Appendix B.1), the loss count, and per chunk
    how many selected negatives tied at the straddling value the later chunks
    hold.
    """
    remaining = j_beta - sum(b["above"] for b in borders)
    quotas = []
    for b in borders:
        quotas.append(min(b["at"], remaining))
        remaining -= quotas[-1]
    counts = np.cumsum(hist[::-1])[::-1]
    straddle = straddling_value(top, j_alpha)
    later = np.zeros(len(borders), dtype=np.int64)
    if straddle is not None:
        # selected ties per chunk: all of them above t_beta, the quota at it
        held = np.array([q if straddle == top[0] else b["straddle"]
                         for q, b in zip(quotas, borders)], dtype=np.int64)
        later = np.concatenate((np.cumsum(held[::-1])[::-1][1:], [0]))
    return {"quotas": quotas, "counts": counts, "straddle": straddle, "later": later,
            "loss": sum(b["loss"] for b in borders)}


def window_coef(s, pos, top, coef, border, plan, k, inv_n, xb):
    """Chunk ``k``'s coefficients -- ``coef`` of :func:`window_rows` on its
    positives, ``-c_(rank) * inv_n`` on its selected negatives (rank in ``T``),
    0 on the others -- and its parts of ``X.T @ coef`` and ``s @ coef``:
    ``(coef, X_k^T coef_k, s_k . coef_k, loss count)``."""
    s = np.asarray(s, dtype=np.float64)
    pos = np.asarray(pos, dtype=bool)
    counts = plan["counts"]
    coef = coef.copy()
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
    return with_products(coef, s, xb) + (border["loss"],)


# --------------------------------------------------------------------------
# AUC cut (Joachims): every positive against every negative
# --------------------------------------------------------------------------

def auc_sort(s, pos):
    """A chunk's shifted positives ``p - 1`` and its negatives, each sorted,
    with the row of each sorted value (to give the counts back to the rows):
    the packed-key sort of the in-memory search, which carries the row
    numbers at the cost of a plain sort."""
    s = finite_scores(s)
    pos = np.ascontiguousarray(pos, dtype=bool)
    n_neg = s.shape[0] - int(np.count_nonzero(pos))
    # every row is a candidate (t_beta = -inf): nothing is written to ``unused``
    unused = np.empty(s.shape[0])
    values, rows = sorted_candidates(s, pos.view(np.uint8), n_neg, -np.inf, 0, unused)
    return (values[n_neg:] - 1.0, values[:n_neg]), (rows[n_neg:], rows[:n_neg])


def auc_prepare(s, pos):
    """The chunk's sorted shifted positives ``p - 1`` and sorted negatives
    (the values of :func:`auc_sort`, without the rows)."""
    p, z = split_by_label(finite_scores(s), pos)
    return np.sort(p - 1.0), np.sort(z)


def auc_coef(mine, rows, inv_n, lists, size):
    """Coefficients of the rows sorted in ``mine`` against every sorted list:
    ``r_i = #{z > p_i - 1}`` (negatives the positive is ranked below) and
    ``c_j = #{i : p_i - 1 < z_j}`` (positives ranked below the negative),
    Joachims' search (eq. (7) of [1]_) in the count representation; each
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


def auc_chunk(s, pos, inv_n, xb, *prepared):
    """One chunk's AUC coefficients against every chunk's sorted lists, with its
    products: ``(coef, X_k^T coef_k, s_k . coef_k, loss count)``."""
    s = np.asarray(s, dtype=np.float64)
    mine, rows = auc_sort(s, pos)
    coef, loss = auc_coef(mine, rows, inv_n, prepared, s.shape[0])
    return with_products(coef, s, xb) + (loss,)


# --------------------------------------------------------------------------
# Order statistics of the threshold rule (pauc._threshold)
# --------------------------------------------------------------------------

def class_sorted(s, pos, want_pos):
    """One class's scores of a chunk, ascending."""
    s = np.asarray(s, dtype=np.float64)
    return np.sort(s[pos] if want_pos else s[~pos])


def max_below(s, cut):
    """The chunk's highest score below ``cut``; ``-inf`` if none."""
    s = np.asarray(s, dtype=np.float64)
    below = s[s < cut]
    return float(below.max()) if below.shape[0] else -np.inf


def min_above(s, pos, level):
    """The chunk's lowest positive score above ``level``; ``inf`` if none."""
    p = np.asarray(s, dtype=np.float64)[pos]
    above = p[p > level]
    return float(above.min()) if above.shape[0] else np.inf
