"""Aggregating B ranking trees into one ranking (Ranking Forests, §3.2 and §3.3, step 3).

Every tree b ranks its leaves (leaf 0 first).  On a reference sample, the
*cells* of the common refinement P* = ∩_b P_b (§3.2, App. B) are
the distinct leaf signatures ``(leaf_1(x), …, leaf_B(x))``; a cell's mass is
the number of reference points in it.  Each tree induces a ranking of the
cells (cells in one leaf of tree b are tied in it): this is the *profile*
Π* = {≼*_b}, and the forest's ranking is a consensus of that profile.

Aggregations (``RankingForest(aggregation=...)``)

``"kemeny"``
    the paper's choice (§3.3 step 3 with d = Kendall τ, §5): an approximate
    Kendall median of the profile — the bucket order (ties allowed)
    minimising Σ_b d_τX(≼, ≼*_b), with the cell form (4) of d_τX — by
    simulated annealing started from the mean-rank order (§5), followed by a
    best-insertion local search.  It never returns an order worse than its
    start.  The problem is NP-hard (§3.2.3) and the search is a heuristic: the
    consistency results of §4 assume an exact median.
``"mean_rank"``
    cells ordered by their mean rank over the B trees (Borda; the starting
    point of the paper's annealing).  For strict rankings of unit-mass cells
    it is an exact Spearman-ρ median (rearrangement inequality).
``"median_rank"``
    cells ordered by their median rank over the trees (the paper's other
    starting point).
``"footrule"``
    exact Spearman-footrule median over strict rankings of the cells, a
    minimum-cost assignment of cells to positions
    (``scipy.optimize.linear_sum_assignment``; Dwork et al. 2001); also a
    2-approximation of the Kendall median.
``"plugin"``
    "plug-in bagging" (Remark 6, eq. (8)): the mean over the trees of the
    empirical cdf of the in-bag negatives below a point's leaf, each tree
    normalised by its own number of negatives.
``"mean_score"``
    the mean of the trees' scores.  **Not from the paper**: a cheap baseline.

Ranks follow App. A: ascending (larger = better) mid-ranks, each cell
weighted by its mass.

The full references are in the docstrings of :class:`pauc.tree.RankingForest` and of the functions below.
"""

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment
from sklearn.utils import check_random_state

from ._kemeny import _transpose, anneal, insert_points, kemeny_cost, pairwise_wins, polish

AGGREGATIONS = ("kemeny", "mean_rank", "median_rank", "footrule", "plugin", "mean_score")


@dataclass
class CellProfile:
    """The cells of P* seen in a reference sample and the trees' leaves on them.

    Attributes
    ----------
    cell_leaves : int32 array of shape (K, B)
        Leaf of tree b holding cell k (0 = the tree's best leaf).
    weights : float64 array of shape (K,)
        Number of reference points in each cell (the empirical μ(C_k), unnormalised).
    inverse : int64 array of shape (n_reference,)
        The cell of each reference point.

    References
    ----------
    .. [1] Clémençon, S., Depecker, M. and Vayatis, N. "Ranking Forests." Journal
       of Machine Learning Research 14, 2013 (preprint hal-00452577),
       §3.2 and Appendix B (the cells of P*).
    """

    cell_leaves: np.ndarray
    weights: np.ndarray
    inverse: np.ndarray

    @property
    def n_cells(self):
        return self.cell_leaves.shape[0]

    @property
    def n_trees(self):
        return self.cell_leaves.shape[1]


def cell_profile(leaves, sample_weight=None):
    """Group reference points by leaf signature (the cells of P*, §3.2, App. B).

    Parameters
    ----------
    leaves : int array of shape (n_reference, B)
        ``leaves[i, b]`` = leaf of tree b holding point i, 0 = best-ranked leaf.
    sample_weight : array of shape (n_reference,), default=None
        Mass of each reference point (default 1).

    References
    ----------
    .. [1] Clémençon, S., Depecker, M. and Vayatis, N. "Ranking Forests." Journal
       of Machine Learning Research 14, 2013 (preprint hal-00452577),
       §3.2 and Appendix B.
    """
    leaves = np.asarray(leaves)
    if leaves.ndim != 2 or leaves.shape[0] == 0 or leaves.shape[1] == 0:
        raise ValueError(f"leaves must be a non-empty 2-d array, got shape {leaves.shape}")
    cells, inverse = np.unique(leaves, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1).astype(np.int64)
    w = np.ones(leaves.shape[0]) if sample_weight is None else np.asarray(sample_weight, float)
    weights = np.bincount(inverse, weights=w, minlength=cells.shape[0])
    return CellProfile(np.ascontiguousarray(cells, dtype=np.int32), weights, inverse)


def _check_profile(cell_leaves, weights):
    cell_leaves = np.ascontiguousarray(cell_leaves, dtype=np.int32)
    if cell_leaves.ndim != 2 or cell_leaves.shape[0] == 0 or cell_leaves.shape[1] == 0:
        raise ValueError(
            f"cell_leaves must be a non-empty (K, B) array, got shape {cell_leaves.shape}")
    if weights is None:
        weights = np.ones(cell_leaves.shape[0])
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    if weights.shape != (cell_leaves.shape[0],):
        raise ValueError(
            f"weights must have shape ({cell_leaves.shape[0]},), got {weights.shape}")
    if not np.isfinite(weights).all() or (weights <= 0).any():
        raise ValueError("cell weights must be finite and positive")
    return cell_leaves, weights


def cell_ranks(cell_leaves, weights=None):
    """Mid-rank of every cell in every tree's ranking, App. A convention.

    ``R_b(k) = Σ_l w_l (1{l strictly below k in tree b} + ½·1{l tied with k})``:
    ascending (larger = better), each cell weighted by its mass.  Unit weights
    give the paper's ranks on the set of cells.

    Returns
    -------
    ranks : float64 array of shape (K, B)

    References
    ----------
    .. [1] Clémençon, S., Depecker, M. and Vayatis, N. "Ranking Forests." Journal
       of Machine Learning Research 14, 2013 (preprint hal-00452577),
       Appendix A (ranks).
    """
    cell_leaves, weights = _check_profile(cell_leaves, weights)
    ranks = np.empty(cell_leaves.shape, dtype=np.float64)
    for b in range(cell_leaves.shape[1]):
        ranks[:, b] = _leaf_midranks(cell_leaves[:, b], weights)[cell_leaves[:, b]]
    return ranks


def _leaf_midranks(leaf_of_point, weights, n_leaves=None):
    """Mass-weighted mid-rank of each leaf (leaf 0 = best = largest rank)."""
    n_leaves = int(leaf_of_point.max()) + 1 if n_leaves is None else n_leaves
    mass = np.bincount(leaf_of_point, weights=weights, minlength=n_leaves)
    below = mass[::-1].cumsum()[::-1] - mass     # mass in worse leaves (larger index)
    return below + 0.5 * mass


def kendall_cost(keys, cell_leaves, weights=None):
    """Σ_b d_τ(≼_keys, ≼*_b) with cell masses: the objective of the Kendall median.

    ``keys[k]`` scores cell k (larger = ranked higher, equal = tied).  Equals
    Σ_b ``kendall_tau_distance(keys, −cell_leaves[:, b], sample_weight=weights)``;
    computed here from the pairwise table in O(K² + K²B).

    References
    ----------
    .. [1] Clémençon, S., Depecker, M. and Vayatis, N. "Ranking Forests." Journal
       of Machine Learning Research 14, 2013 (preprint hal-00452577),
       §3.2.2, eq. (4) and (7).
    """
    cell_leaves, weights = _check_profile(cell_leaves, weights)
    keys = np.ascontiguousarray(keys, dtype=np.float64)
    return kemeny_cost(keys, pairwise_wins(cell_leaves), weights, cell_leaves.shape[1])


def _dense(values):
    """Dense ranks 0..m−1 of ``values`` as floats (equal values stay tied)."""
    return np.unique(values, return_inverse=True)[1].reshape(-1).astype(np.float64)


def rank_order(cell_leaves, weights=None, reduce="mean"):
    """Consensus by mean rank (Borda, ``reduce="mean"``) or median rank
    (``reduce="median"``): keys = the mean or median over trees of the cell's
    mid-rank.

    References
    ----------
    .. [1] Clémençon, S., Depecker, M. and Vayatis, N. "Ranking Forests." Journal
       of Machine Learning Research 14, 2013 (preprint hal-00452577),
       §5 (the mean and the median ranks, the starts of the annealing).
    """
    if reduce not in ("mean", "median"):
        raise ValueError(f"reduce must be 'mean' or 'median', got {reduce!r}")
    ranks = cell_ranks(cell_leaves, weights)
    return ranks.mean(axis=1) if reduce == "mean" else np.median(ranks, axis=1)


def footrule_median(cell_leaves, weights=None):
    """Exact Spearman-footrule median over strict rankings of the cells.

    Minimises Σ_k w_k Σ_b |π(k) − R_b(k)| over permutations π (positions
    1..K, larger = better), with R_b the unweighted mid-ranks of the cells in
    tree b: a minimum-cost assignment of cells to positions (Dwork et al.),
    solved exactly by ``linear_sum_assignment``.  O(K²B) to build the cost
    matrix and O(K³) to solve, so meant for K up to a few thousand.

    Returns
    -------
    keys : float64 array of shape (K,)
        The position of each cell, 1..K.

    References
    ----------
    .. [1] Clémençon, S., Depecker, M. and Vayatis, N. "Ranking Forests." Journal
       of Machine Learning Research 14, 2013 (preprint hal-00452577),
       §3.2.1 (Spearman footrule).
    .. [2] Dwork, C., Kumar, R., Naor, M. and Sivakumar, D. "Rank aggregation
       methods for the Web." Proceedings of the 10th International World Wide
       Web Conference (WWW), 2001.
    """
    cell_leaves, weights = _check_profile(cell_leaves, weights)
    ranks = cell_ranks(cell_leaves, None)                 # (K, B) unweighted mid-ranks
    n_cells = ranks.shape[0]
    positions = np.arange(1, n_cells + 1, dtype=np.float64)
    cost = np.zeros((n_cells, n_cells))
    for b in range(ranks.shape[1]):                       # one K×K pass per tree
        cost += np.abs(ranks[:, b, None] - positions[None, :])
    cost *= weights[:, None]
    rows, cols = linear_sum_assignment(cost)
    keys = np.empty(n_cells)
    keys[rows] = positions[cols]
    return keys


@dataclass
class KemenyResult:
    """Output of :func:`kemeny_median`.

    Attributes
    ----------
    keys : float64 array of shape (K,)
        Bucket level of each cell: 0 = bottom bucket, ties = same bucket.
    cost : float
        Kendall objective Σ_b Σ_{k<l} w_k w_l U_kl(≼, ≼*_b) of ``keys``.
    start_cost : float
        The same objective for the starting (mean-rank) order.
    n_iter : int
        Annealing moves proposed.

    References
    ----------
    .. [1] Clémençon, S., Depecker, M. and Vayatis, N. "Ranking Forests." Journal
       of Machine Learning Research 14, 2013 (preprint hal-00452577),
       §3.2.3, eq. (7).
    """

    keys: np.ndarray
    cost: float
    start_cost: float
    n_iter: int


def kemeny_median(cell_leaves, weights=None, *, n_iter=None, init="mean_rank",
                  temperature=1.0, allow_ties=True, max_sweeps=50, random_state=None):
    """Approximate Kendall median of the trees' rankings of the cells.

    Ranking Forests, §3.2.3 (eq. (7) with d = d_τ) and §5: simulated annealing
    over bucket orders (ties allowed), started from the mean- or median-rank
    order, then a best-insertion local search.  The pairwise table
    ``A[k, l] = #{b : k strictly above l in tree b}`` is built once (O(K²B)
    time, K² int16 memory); a move then costs O(K).  The best order visited is
    kept, so ``cost <= start_cost`` always.

    Parameters
    ----------
    cell_leaves : int array of shape (K, B)
        Leaf of tree b holding cell k (0 = best).
    weights : array of shape (K,), default=None
        Cell masses (default 1).
    n_iter : int, default=None
        Annealing moves; ``None`` gives ``max(2000, K, min(20000, 4·10⁶/K))``
        (20,000 up to K = 200 cells, 2,000 at K = 2,000); 0 skips the
        annealing (local search only).  On large profiles the best-insertion
        descent does most of the improvement (figures in the notes of
        ``bench/bench_tree.py``); the default budget keeps the paper's
        annealing step at a small cost.
    init : {"mean_rank", "median_rank"}, default="mean_rank"
        Starting order (the paper's two options).
    temperature : float, default=1.0
        Initial temperature as a multiple of the mean uphill move cost
        (measured on 200 trial moves); it cools geometrically to 1/1000 of it.
    allow_ties : bool, default=True
        True: median over all rankings with ties (bucket orders), as in the
        paper (eq. (7) over R(Z)).  False: median over total orders (the
        classical Kemeny ranking); the start's ties are broken by cell index.
    max_sweeps : int, default=50
        Sweeps of the final local search.
    random_state : int, RandomState instance or None
        Seeds the annealing.

    Returns
    -------
    KemenyResult

    References
    ----------
    .. [1] Clémençon, S., Depecker, M. and Vayatis, N. "Ranking Forests." Journal
       of Machine Learning Research 14, 2013 (preprint hal-00452577),
       §3.2.3, eq. (7), and §5.
    """
    cell_leaves, weights = _check_profile(cell_leaves, weights)
    if init not in ("mean_rank", "median_rank"):
        raise ValueError(f"init must be 'mean_rank' or 'median_rank', got {init!r}")
    n_cells, n_trees = cell_leaves.shape
    if n_iter is None:
        # A move costs O(K): 20,000 moves on small profiles (where the annealing
        # matters: it finds the exact median), a budget of 4·10⁶ pair updates
        # on larger ones, and at least K moves.
        n_iter = max(2000, n_cells, min(20000, 4_000_000 // n_cells))
    if not (isinstance(n_iter, (int, np.integer)) and n_iter >= 0):
        raise ValueError(f"n_iter must be a non-negative integer, got {n_iter!r}")
    if not (np.isfinite(temperature) and temperature > 0):
        raise ValueError(f"temperature must be positive, got {temperature!r}")
    rng = check_random_state(random_state)
    start = rank_order(cell_leaves, weights, init.removesuffix("_rank"))
    start_keys = _dense(start) if allow_ties else \
        np.argsort(np.argsort(start, kind="stable"), kind="stable").astype(np.float64)
    table = pairwise_wins(cell_leaves)
    keys = start_keys.copy()
    seed = int(rng.randint(0, 2**31 - 1)) * 2654435761 + 1
    table_t = _transpose(table)
    start_cost, _ = anneal(keys, table, weights, n_trees, int(n_iter), float(temperature),
                           seed % 2**64, bool(allow_ties), table_t)
    cost, _ = polish(keys, table, weights, n_trees, int(max_sweeps), bool(allow_ties), table_t)
    # Single-cell moves cannot merge, split or swap whole groups of cells that
    # the trees treat alike; alternate them with such block moves until stable.
    for _ in range(int(max_sweeps)):
        if not _block_moves(keys, table, weights, n_trees, bool(allow_ties)):
            break
        cost, _ = polish(keys, table, weights, n_trees, int(max_sweeps), bool(allow_ties),
                         table_t)
    if cost > start_cost:                   # cannot happen; guard against rounding
        keys, cost = start_keys, start_cost
    return KemenyResult(_dense(keys), float(cost), float(start_cost), int(n_iter))


def _block_moves(keys, table, weights, n_trees, allow_ties):
    """One pass of group moves on a bucket order; True if the objective decreased.

    For adjacent buckets U (above) and L, with ``A`` the pairwise table and
    ``S(U, L) = Σ_{k∈U, l∈L} w_k w_l A[k, l]``, ``W = Σ w_k w_l``:
    swapping them changes the cost by ``S(U, L) − S(L, U)``, merging them by
    ``S(U, L) − W·B/2``.  A bucket is split at the best threshold of its cells'
    mean-rank order: putting the top part T above the rest R changes the cost
    by ``W·B/2 − S(T, R)``.  Each move is applied only if it strictly lowers
    the Kendall objective.
    """
    half = 0.5 * n_trees
    keys[:] = _dense(keys)                         # unit gaps: room for the splits below
    levels = np.unique(keys)
    improved = False
    tol = 1e-12 * (1.0 + weights.sum() ** 2 * n_trees)

    def block(rows, cols):
        sub = table[np.ix_(rows, cols)].astype(np.float64)
        return float(weights[rows] @ sub @ weights[cols]), float(weights[rows].sum()
                                                                 * weights[cols].sum())

    j = len(levels) - 1
    while j >= 1:                                  # adjacent pairs, top down
        up = np.flatnonzero(keys == levels[j])
        low = np.flatnonzero(keys == levels[j - 1])
        s_ul, mass = block(up, low)
        s_lu, _ = block(low, up)
        swap, merge = s_ul - s_lu, (s_ul - mass * half if allow_ties else np.inf)
        if min(swap, merge) < -tol:
            if swap <= merge:
                keys[up], keys[low] = levels[j - 1], levels[j]
            else:
                keys[up] = levels[j - 1]
            improved = True
            levels = np.unique(keys)
            j = min(j, len(levels) - 1)
        j -= 1
    for level in np.unique(keys):
        members = np.flatnonzero(keys == level)
        if members.size < 2:
            continue
        # order the bucket's cells by their net wins against the other members
        sub = table[np.ix_(members, members)].astype(np.float64)
        net = (sub - sub.T) @ weights[members]
        by_wins = np.argsort(-net, kind="stable")
        members, sub = members[by_wins], sub[np.ix_(by_wins, by_wins)]
        # Grow the top part T one member at a time, updating S(T, R) and W in O(m).
        wm = weights[members]
        s_tr, mass_t, mass_r = 0.0, 0.0, float(wm.sum())
        best, best_t = -tol, 0
        for t in range(1, members.size):
            m = t - 1                              # member m moves from R to T
            s_tr += wm[m] * float(sub[m, t:] @ wm[t:]) - float(wm[:m] @ sub[:m, m]) * wm[m]
            mass_t += wm[m]
            mass_r -= wm[m]
            delta = mass_t * mass_r * half - s_tr
            if delta < best:
                best, best_t = delta, t
        if best_t:
            upper = np.unique(keys[keys > level])
            above = upper[0] if upper.size else level + 1.0
            keys[members[:best_t]] = 0.5 * (level + above)
            improved = True
    return improved


# ------------------------------------------------------------------ scoring new points
class LeafTableScorer:
    """Score = mean (or median) over trees of a per-leaf value.

    Used by ``"mean_rank"`` / ``"median_rank"`` (the value of a leaf is its
    mass-weighted mid-rank on the reference sample, so that on reference
    cells the score is the cell's mean / median rank) and by ``"plugin"``
    (the value is eq. (8)'s empirical cdf of negatives).  Any point, seen or
    not, is scored in O(B).

    References
    ----------
    .. [1] Clémençon, S., Depecker, M. and Vayatis, N. "Ranking Forests." Journal
       of Machine Learning Research 14, 2013 (preprint hal-00452577),
       §3.2.4 and Remark 6, eq. (8).
    """

    def __init__(self, tables, reduce="mean"):
        self.tables = tables                  # (B, max_leaves)
        self.reduce = reduce

    def score(self, leaves):
        values = self.tables[np.arange(self.tables.shape[0])[None, :], leaves]
        if self.reduce == "median":
            return np.median(values, axis=1)
        return values.mean(axis=1)


def midrank_tables(leaves, n_leaves):
    """Per tree, the mid-rank of each leaf among the reference points (App. A).

    References
    ----------
    .. [1] Clémençon, S., Depecker, M. and Vayatis, N. "Ranking Forests." Journal
       of Machine Learning Research 14, 2013 (preprint hal-00452577),
       Appendix A.
    """
    n_trees = leaves.shape[1]
    tables = np.zeros((n_trees, int(max(n_leaves))))
    weights = np.ones(leaves.shape[0])
    for b in range(n_trees):
        tables[b, :n_leaves[b]] = _leaf_midranks(leaves[:, b], weights, n_leaves[b])
    return tables / leaves.shape[0]


def plugin_tables(inbag_leaves, inbag_negative, n_leaves):
    """Remark 6 (eq. (8)): per tree, Ŝ(leaf) = share of its in-bag negatives in leaves
    ranked at or below ``leaf`` (the empirical cdf of negatives, normalised by each
    bootstrap sample's own number of negatives).

    ``inbag_leaves[b]``: leaves of tree b's in-bag points (with repetitions);
    ``inbag_negative[b]``: their negative-class mask.

    References
    ----------
    .. [1] Clémençon, S., Depecker, M. and Vayatis, N. "Ranking Forests." Journal
       of Machine Learning Research 14, 2013 (preprint hal-00452577),
       Remark 6, eq. (8).
    """
    tables = np.zeros((len(n_leaves), int(max(n_leaves))))
    for b, (leaf, neg) in enumerate(zip(inbag_leaves, inbag_negative)):
        counts = np.bincount(leaf[neg], minlength=n_leaves[b]).astype(np.float64)
        at_or_below = counts[::-1].cumsum()[::-1]
        tables[b, :n_leaves[b]] = at_or_below / max(counts.sum(), 1.0)
    return tables


class ConsensusScorer:
    """Score from a consensus bucket order of the reference cells (``"kemeny"``, ``"footrule"``).

    A point whose leaf signature is a reference cell gets its bucket's level
    ``2j + 1`` (bucket j, 0 = bottom).  A point in a cell unseen in the
    reference sample is inserted where its Kendall cost against the B trees is
    least (``insert_points``: O(K·B) per point, the consensus staying fixed):
    joining bucket j gives ``2j + 1``, a new bucket in the gap above g
    buckets gives ``2g``.  Unseen points that land in the same gap are then
    ordered by their mean rank (an offset within ±¼, which never crosses a
    bucket), so that they are not all tied.

    References
    ----------
    .. [1] Clémençon, S., Depecker, M. and Vayatis, N. "Ranking Forests." Journal
       of Machine Learning Research 14, 2013 (preprint hal-00452577),
       §3.2.3 (the placement of unseen cells is pauc's, not the paper's).
    """

    def __init__(self, profile, keys, mean_rank_tables):
        self.cell_leaves = profile.cell_leaves
        self.weights = profile.weights
        self.levels = _dense(keys)
        self.mean_rank_tables = mean_rank_tables
        self.index = {row.tobytes(): k for k, row in enumerate(self.cell_leaves)}

    def cell_of(self, leaves):
        """Reference cell of each row of ``leaves``, −1 when unseen."""
        leaves = np.ascontiguousarray(leaves, dtype=np.int32)
        return np.fromiter((self.index.get(row.tobytes(), -1) for row in leaves),
                           dtype=np.int64, count=leaves.shape[0])

    def score(self, leaves, n_jobs=None):
        leaves = np.ascontiguousarray(leaves, dtype=np.int32)
        cells = self.cell_of(leaves)
        out = np.empty(leaves.shape[0])
        seen = cells >= 0
        out[seen] = 2.0 * self.levels[cells[seen]] + 1.0
        unseen = np.flatnonzero(~seen)
        if unseen.size:
            new = leaves[unseen]
            position = _insert_parallel(new, self.cell_leaves, self.weights, self.levels,
                                        n_jobs)
            in_gap = np.mod(position, 2.0) != 1.0
            mean_rank = LeafTableScorer(self.mean_rank_tables).score(new)   # in [0, 1]
            position[in_gap] += 0.5 * (mean_rank[in_gap] - 0.5)
            out[unseen] = position
        return out


def _insert_parallel(points, cell_leaves, weights, levels, n_jobs):
    from joblib import Parallel, delayed, effective_n_jobs

    n_chunks = min(effective_n_jobs(n_jobs), max(1, points.shape[0] // 64))
    if n_chunks <= 1:
        return insert_points(points, cell_leaves, weights, levels)
    chunks = np.array_split(np.arange(points.shape[0]), n_chunks)
    # insert_points releases the GIL: threads share the tables without copies.
    parts = Parallel(n_jobs=n_chunks, prefer="threads")(
        delayed(insert_points)(np.ascontiguousarray(points[c]), cell_leaves, weights, levels)
        for c in chunks)
    return np.concatenate(parts)
