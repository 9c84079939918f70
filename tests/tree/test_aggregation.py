"""Aggregation of ranking trees (Clémençon, Depecker & Vayatis, "Ranking Forests",
JMLR 2013, §3.2-3.3) against brute force on tiny profiles."""

from functools import lru_cache
from itertools import permutations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pauc.metrics import kendall_tau_distance
from pauc.tree import _aggregation as agg
from pauc.tree import _kemeny


# ----------------------------------------------------------------- brute-force helpers
@lru_cache(maxsize=None)
def all_weak_orders(n_cells):
    """Every ranking with ties of n_cells items, as dense levels (one row each)."""
    grid = np.indices((n_cells,) * n_cells, dtype=np.int8).reshape(n_cells, -1).T
    srt = np.sort(grid, axis=1)
    n_distinct = 1 + (np.diff(srt, axis=1) != 0).sum(axis=1)
    return grid[grid.max(axis=1) + 1 == n_distinct].astype(np.float64)


def brute_cost(levels, cell_leaves, weights):
    """Σ_b d_τ(≼, ≼_b) for each row of ``levels``, pair by pair (vectorised over rows)."""
    n_cells, n_trees = cell_leaves.shape
    levels = np.atleast_2d(levels)
    total = np.zeros(levels.shape[0])
    for k in range(n_cells):
        for l in range(k + 1, n_cells):
            mine = np.sign(levels[:, k] - levels[:, l])
            for b in range(n_trees):
                theirs = np.sign(cell_leaves[l, b] - cell_leaves[k, b])   # leaf 0 = best
                u = np.where(mine * theirs < 0, 1.0,
                             np.where((mine == 0) != (theirs == 0), 0.5, 0.0))
                total += weights[k] * weights[l] * u
    return total


profiles = st.integers(1, 7).flatmap(lambda k: st.tuples(
    st.lists(st.lists(st.integers(0, 3), min_size=5, max_size=5), min_size=k, max_size=k),
    st.lists(st.integers(1, 3), min_size=k, max_size=k),
    st.integers(0, 2**31 - 1)))


def _unpack(profile, n_trees=None):
    leaves, weights, seed = profile
    leaves = np.array(leaves, dtype=np.int32)
    if n_trees is not None:
        leaves = leaves[:, :n_trees]
    return np.ascontiguousarray(leaves), np.array(weights, dtype=float), seed


# ----------------------------------------------------------------- the enumerator itself
def test_weak_order_counts_are_the_fubini_numbers():
    # Ranking Forests §3.2.3: #R(Z) = Σ_k (−1)^k Σ_m (−1)^m C(k,m) m^N (the Fubini numbers).
    assert [len(all_weak_orders(n)) for n in range(1, 8)] == [1, 3, 13, 75, 541, 4683, 47293]


# ----------------------------------------------------------------- Kendall objective
@settings(max_examples=200, deadline=None)
@given(profiles)
def test_kendall_cost_table_equals_sum_of_kendall_distances(profile):
    leaves, weights, seed = _unpack(profile)
    keys = np.random.default_rng(seed).integers(0, 3, leaves.shape[0]).astype(float)
    expected = sum(kendall_tau_distance(keys, -leaves[:, b], sample_weight=weights)
                   for b in range(leaves.shape[1]))
    assert agg.kendall_cost(keys, leaves, weights) == pytest.approx(expected, abs=1e-9)
    assert agg.kendall_cost(keys, leaves, weights) == pytest.approx(
        brute_cost(keys, leaves, weights)[0], abs=1e-9)


@settings(max_examples=300, deadline=None)
@given(profiles, st.booleans())
def test_kemeny_is_the_exact_median_on_at_most_seven_cells(profile, ties):
    leaves, weights, seed = _unpack(profile)
    result = agg.kemeny_median(leaves, weights, allow_ties=ties, random_state=seed)
    candidates = all_weak_orders(leaves.shape[0])
    if not ties:                        # total orders only: the rows without repeated levels
        candidates = candidates[candidates.max(axis=1) == leaves.shape[0] - 1]
    optimum = brute_cost(candidates, leaves, weights).min()
    assert result.cost == pytest.approx(optimum, abs=1e-9)
    assert brute_cost(result.keys, leaves, weights)[0] == pytest.approx(result.cost, abs=1e-9)
    assert result.cost <= result.start_cost + 1e-9


@settings(max_examples=100, deadline=None)
@given(st.integers(8, 60), st.integers(2, 12), st.integers(0, 2**31 - 1), st.booleans())
def test_kemeny_never_worse_than_its_mean_rank_start(n_cells, n_trees, seed, ties):
    rng = np.random.default_rng(seed)
    # Correlated trees (noisy copies of one ranking) and independent ones, mixed.
    base = rng.permutation(n_cells)
    noisy = base[:, None] + rng.integers(-n_cells // 3 - 1, n_cells // 3 + 2, (n_cells, n_trees))
    leaves = np.ascontiguousarray(np.unique(noisy, return_inverse=True)[1].reshape(noisy.shape)
                                  // rng.integers(1, 4), dtype=np.int32)
    weights = rng.integers(1, 5, n_cells).astype(float)
    result = agg.kemeny_median(leaves, weights, n_iter=int(rng.integers(0, 3000)),
                               init=("mean_rank", "median_rank")[seed % 2], allow_ties=ties,
                               random_state=seed)
    start = agg.rank_order(leaves, weights, "mean" if seed % 2 == 0 else "median")
    if ties:
        assert result.start_cost == pytest.approx(agg.kendall_cost(start, leaves, weights))
    assert result.cost <= result.start_cost + 1e-9
    assert result.cost == pytest.approx(agg.kendall_cost(result.keys, leaves, weights))
    if not ties:
        assert len(np.unique(result.keys)) == n_cells


def test_anneal_alone_keeps_the_best_order_and_is_seeded():
    rng = np.random.default_rng(0)
    leaves = rng.integers(0, 6, (40, 9)).astype(np.int32)
    weights = np.ones(40)
    table = _kemeny.pairwise_wins(leaves)
    outs = []
    for _ in range(2):
        keys = agg.rank_order(leaves, weights)
        start, best = _kemeny.anneal(keys, table, weights, 9, 5000, 0.5, 12345)
        assert best <= start
        assert best == pytest.approx(agg.kendall_cost(keys, leaves, weights))
        outs.append(keys.copy())
    np.testing.assert_array_equal(outs[0], outs[1])


def test_pairwise_table_against_definition():
    rng = np.random.default_rng(1)
    leaves = rng.integers(0, 4, (12, 7)).astype(np.int32)
    table = _kemeny.pairwise_wins(leaves)
    expected = (leaves[:, None, :] < leaves[None, :, :]).sum(axis=2)
    np.testing.assert_array_equal(table, expected)


# ----------------------------------------------------------------- other medians
@settings(max_examples=150, deadline=None)
@given(profiles)
def test_footrule_median_is_exact_over_permutations(profile):
    leaves, weights, _ = _unpack(profile)
    n_cells = leaves.shape[0]
    if n_cells > 6:
        leaves, weights = leaves[:6], weights[:6]
        n_cells = 6
    ranks = agg.cell_ranks(leaves)                                  # unweighted mid-ranks
    def cost(pi):
        return float((weights[:, None] * np.abs(np.asarray(pi)[:, None] - ranks)).sum())
    best = min(cost(pi) for pi in permutations(range(1, n_cells + 1)))
    keys = agg.footrule_median(leaves, weights)
    assert sorted(keys) == list(range(1, n_cells + 1))
    assert cost(keys) == pytest.approx(best, abs=1e-9)


@settings(max_examples=150, deadline=None)
@given(profiles)
def test_mean_rank_is_the_exact_spearman_median_over_permutations(profile):
    leaves, _, _ = _unpack(profile)
    n_cells = min(leaves.shape[0], 6)
    leaves = np.ascontiguousarray(leaves[:n_cells])
    ranks = agg.cell_ranks(leaves)
    def cost(pi):
        return float(((np.asarray(pi, dtype=float)[:, None] - ranks) ** 2).sum())
    best = min(cost(pi) for pi in permutations(range(1, n_cells + 1)))
    order = agg.rank_order(leaves)
    positions = np.empty(n_cells)
    positions[np.argsort(order, kind="stable")] = np.arange(1, n_cells + 1)
    assert cost(positions) == pytest.approx(best, abs=1e-9)


def test_cell_ranks_follow_appendix_a():
    # Two trees, three cells of masses 1, 2, 3; tree 0 ranks cell 0 > 1 = 2, tree 1 all tied.
    leaves = np.array([[0, 0], [1, 0], [1, 0]], dtype=np.int32)
    ranks = agg.cell_ranks(leaves, [1.0, 2.0, 3.0])
    # R(z) = Σ_{z'} w(z') (1{z' below z} + ½ 1{z' tied with z}), self included
    np.testing.assert_allclose(ranks[:, 0], [5 + 0.5, 2.5, 2.5])
    np.testing.assert_allclose(ranks[:, 1], [3.0, 3.0, 3.0])


def test_cell_profile_groups_signatures():
    leaves = np.array([[0, 1], [2, 0], [0, 1], [0, 1], [2, 0], [1, 1]])
    profile = agg.cell_profile(leaves)
    assert profile.n_cells == 3 and profile.n_trees == 2
    np.testing.assert_array_equal(profile.cell_leaves[profile.inverse], leaves)
    assert sorted(profile.weights.tolist()) == [1.0, 2.0, 3.0]


# ----------------------------------------------------------------- scoring new points
@settings(max_examples=150, deadline=None)
@given(profiles, st.lists(st.integers(0, 3), min_size=5, max_size=5))
def test_unseen_point_goes_where_its_kendall_cost_is_least(profile, point):
    leaves, weights, seed = _unpack(profile)
    keys = np.random.default_rng(seed).integers(0, 4, leaves.shape[0]).astype(float)
    levels = np.unique(keys, return_inverse=True)[1].astype(float)
    n_buckets = int(levels.max()) + 1
    point = np.array([point], dtype=np.int32)
    position = _kemeny.insert_points(point, leaves, weights, levels)[0]
    # Brute force: the point's cost against the trees at each of the 2m+1 positions.
    with_point = np.vstack((leaves, point))
    w = np.append(weights, 1.0)
    costs = []
    for code in range(2 * n_buckets + 1):
        extended = np.append(2 * levels + 1, code)
        costs.append(brute_cost(extended, with_point, w)[0])
    costs = np.array(costs)
    optimal = np.flatnonzero(costs <= costs.min() + 1e-9)
    assert position == pytest.approx(0.5 * (optimal.min() + optimal.max()))


def test_plugin_tables_are_the_empirical_cdf_of_negatives():
    inbag = [np.array([0, 0, 1, 2, 2, 2])]
    negative = [np.array([False, True, True, False, True, True])]
    table = agg.plugin_tables(inbag, negative, [3])
    # negatives per leaf: 1, 1, 2 of 4; share in leaves ranked at or below each leaf
    np.testing.assert_allclose(table[0], [4 / 4, 3 / 4, 2 / 4])


def test_consensus_scorer_scores_seen_cells_by_bucket():
    leaves = np.array([[0, 0], [1, 1], [2, 2], [0, 0]], dtype=np.int32)
    profile = agg.cell_profile(leaves)
    result = agg.kemeny_median(profile.cell_leaves, profile.weights, random_state=0)
    tables = agg.midrank_tables(leaves, [3, 3])
    scorer = agg.ConsensusScorer(profile, result.keys, tables)
    scores = scorer.score(leaves)
    assert scores[0] == scores[3] > scores[1] > scores[2]
    # An unseen signature between the two trees' opinions lands between buckets.
    unseen = scorer.score(np.array([[0, 2]], dtype=np.int32))[0]
    assert scores[2] < unseen < scores[0]


def test_invalid_arguments():
    leaves = np.zeros((3, 2), dtype=np.int32)
    with pytest.raises(ValueError, match="init"):
        agg.kemeny_median(leaves, init="borda")
    with pytest.raises(ValueError, match="n_iter"):
        agg.kemeny_median(leaves, n_iter=-1)
    with pytest.raises(ValueError, match="weights"):
        agg.kemeny_median(leaves, weights=[1.0, 0.0, 1.0])
    with pytest.raises(ValueError, match="cell_leaves"):
        agg.rank_order(np.zeros((0, 2)))
    with pytest.raises(ValueError, match="reduce"):
        agg.rank_order(leaves, reduce="mode")
