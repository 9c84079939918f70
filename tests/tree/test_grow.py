"""Whole-tree growth in Cython (``_grow.grow_tree``) against independent oracles.

* The master loop of TREERANK (Clémençon & Vayatis, "Tree-based ranking
  methods", IEEE Trans. Inf. Theory 2009, Sec. IV-A): depth-first, left child
  first, each node split by LeafRank until the stopping rules -- replayed here in
  pure Python on top of ``leafrank_split`` (the node split, checked against
  brute force in ``test_leafrank.py``).
* The two sweeps of a LeafRank node (value buckets for features with few
  distinct values for the cell's size, sorting otherwise) must choose the same
  cuts: the same cell is split once inside a large sample (sort sweep) and once
  alone (bucket sweep).
* Rows with multiplicities (a bootstrap resample) equal the rows repeated.
* Trees grown in threads at the same time equal trees grown one by one.
* ``rank_features`` gives the dense ranks the growth trusts, and refuses an
  ``order`` that is not an argsort of X.
"""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pauc.tree import TreeRank, _grow, _leafrank
from pauc.tree._treerank import RankingTreeStructure

NODE_FIELDS = ("children_left", "children_right", "depth", "pos_weight", "neg_weight",
               "n_samples", "gain", "split_root")
LR_FIELDS = ("leafrank_feature", "leafrank_threshold", "leafrank_left", "leafrank_right",
             "leafrank_in_left")


def grow(X, is_pos, w, counts=None, *, max_depth=3, lr_depth=2, min_split=2, min_leaf=1,
         criterion=_leafrank.GAIN, q0=None, q1=None, seed=0):
    X = np.asfortranarray(X, dtype=np.float64)
    q = X.shape[1]
    counts = np.ones(X.shape[0], np.int32) if counts is None else np.asarray(counts, np.int32)
    return _grow.grow_tree(
        X, np.asarray(is_pos, np.uint8), np.asarray(w, np.float64), counts,
        *_grow.rank_features(X), q if q0 is None else q0, q if q1 is None else q1,
        max_depth, lr_depth, min_split, min_leaf, criterion, seed)


def reference_grow(X, is_pos, w, *, max_depth, lr_depth, min_split, min_leaf, criterion):
    """TREERANK's growing stage in Python, every feature allowed (no random draw)."""
    X = np.asfortranarray(X, dtype=np.float64)
    n, q = X.shape
    is_pos = np.asarray(is_pos, bool)
    pos_total, neg_total = w[is_pos].sum(), w[~is_pos].sum()
    samples = np.arange(n, dtype=np.intp)
    ranks = _grow.rank_features(X)
    nodes = {name: [None] for name in NODE_FIELDS}
    lr = {name: [] for name in LR_FIELDS}
    row_node = np.full(n, -1, np.intp)
    stack = [(0, 0, n, 0)]
    while stack:
        node, start, end, depth = stack.pop()
        idx = samples[start:end]
        p, qq = w[idx][is_pos[idx]].sum(), w[idx][~is_pos[idx]].sum()
        rec = dict(children_left=-1, children_right=-1, depth=depth, pos_weight=p,
                   neg_weight=qq, n_samples=end - start, gain=0.0, split_root=-1)
        m = end - start
        split = False
        if depth < max_depth and m >= min_split and m >= 2 * min_leaf and p > 0 and qq > 0:
            cap = min(2 ** (lr_depth + 1) - 1, 2 * m - 1)
            bufs = (np.empty(cap, np.intp), np.empty(cap), np.empty(cap, np.intp),
                    np.empty(cap, np.intp), np.zeros(cap, np.uint8))
            n_lr, n_in_c, p_c, q_c = _leafrank.leafrank_split(
                X, is_pos.astype(np.uint8), w, ranks, samples, start, end,
                np.arange(q, dtype=np.intp), q, lr_depth, min_split, min_leaf, criterion, 0,
                *bufs)
            if 0 < n_in_c < m:
                split = True
                left = len(nodes["depth"])
                for name in nodes:
                    nodes[name].extend((None, None))
                rec.update(children_left=left, children_right=left + 1,
                           gain=0.5 * (qq * p_c - p * q_c) / (pos_total * neg_total),
                           split_root=len(lr["leafrank_feature"]))
                offset = len(lr["leafrank_feature"])
                lr["leafrank_feature"].extend(bufs[0][:n_lr])
                lr["leafrank_threshold"].extend(bufs[1][:n_lr])
                lr["leafrank_left"].extend([k + offset if k != -1 else -1 for k in bufs[2][:n_lr]])
                lr["leafrank_right"].extend([k + offset if k != -1 else -1 for k in bufs[3][:n_lr]])
                lr["leafrank_in_left"].extend(bufs[4][:n_lr])
                stack.append((left + 1, start + n_in_c, end, depth + 1))
                stack.append((left, start, start + n_in_c, depth + 1))
        if not split:
            row_node[idx] = node
        for name, value in rec.items():
            nodes[name][node] = value
    return {**{k: np.array(v) for k, v in nodes.items()},
            **{k: np.array(v) for k, v in lr.items()}, "row_node": row_node}


def assert_same_tree(a, b, fields=NODE_FIELDS + LR_FIELDS + ("row_node",)):
    for name in fields:
        np.testing.assert_array_equal(np.asarray(a[name]).astype(np.float64),
                                      np.asarray(b[name]).astype(np.float64), err_msg=name)


@st.composite
def problems(draw, max_n=30, max_q=3, weighted=True):
    n = draw(st.integers(2, max_n))
    q = draw(st.integers(1, max_q))
    X = np.array(draw(st.lists(st.lists(st.integers(0, 4), min_size=q, max_size=q),
                               min_size=n, max_size=n)), dtype=np.float64)
    is_pos = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    if is_pos.all() or not is_pos.any():
        is_pos[0] = not is_pos[0]
    w = (np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), np.float64)
         if weighted and draw(st.booleans()) else np.ones(n))
    return X, is_pos, w


@settings(max_examples=500, deadline=None)
@given(problems(), st.integers(0, 4), st.integers(1, 3), st.integers(2, 6), st.integers(1, 4),
       st.sampled_from([_leafrank.GAIN, _leafrank.GINI]))
def test_grow_tree_equals_python_master_loop(problem, depth, lr_depth, min_split, min_leaf,
                                             criterion):
    X, is_pos, w = problem
    got = grow(X, is_pos, w, max_depth=depth, lr_depth=lr_depth, min_split=min_split,
               min_leaf=min_leaf, criterion=criterion)
    ref = reference_grow(X, is_pos, w, max_depth=depth, lr_depth=lr_depth, min_split=min_split,
                         min_leaf=min_leaf, criterion=criterion)
    assert_same_tree(got, ref)
    # Every row lands in a leaf, and the leaves' class masses add up to the root's.
    leaves = got["children_left"] == -1
    assert leaves[got["row_node"]].all()
    np.testing.assert_allclose(got["pos_weight"][leaves].sum(), w[is_pos].sum())
    assert got["n_samples"][leaves].min() >= (min_leaf if leaves.sum() > 1 else 1)


@settings(max_examples=500, deadline=None)
@given(st.integers(30, 120), st.integers(3, 25), st.integers(1, 3),
       st.sampled_from([_leafrank.GAIN, _leafrank.GINI]), st.integers(1, 3),
       st.integers(0, 2**32))
def test_sort_sweep_and_bucket_sweep_choose_the_same_cuts(n, m, lr_depth, criterion,
                                                          min_leaf, seed):
    """A small cell of a sample with many distinct values is swept by sorting;
    the same cell alone (every value distinct within it, few overall) by buckets."""
    rng = np.random.default_rng(seed)
    m = min(m, n)
    X = rng.integers(0, 4 * n, size=(n, 2)).astype(np.float64)
    is_pos = rng.random(n) < 0.5
    w = rng.integers(1, 4, n).astype(np.float64)
    cell = np.sort(rng.choice(n, m, replace=False))
    cap = 2 ** (lr_depth + 1) - 1

    def split(Xs, pos, ws, samples):
        bufs = (np.empty(cap, np.intp), np.empty(cap), np.empty(cap, np.intp),
                np.empty(cap, np.intp), np.zeros(cap, np.uint8))
        Xs = np.asfortranarray(Xs)
        res = _leafrank.leafrank_split(Xs, pos.astype(np.uint8), ws, _grow.rank_features(Xs),
                                       samples, 0, samples.size, np.arange(2, dtype=np.intp),
                                       2, lr_depth, 2, min_leaf, criterion, 0, *bufs)
        return res, [b[:res[0]] for b in bufs], samples

    big = split(X, is_pos, w, cell.copy())
    alone = split(X[cell], is_pos[cell], w[cell], np.arange(m, dtype=np.intp))
    assert big[0] == alone[0]
    for a, b in zip(big[1], alone[1]):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(big[2], cell[alone[2]])


@settings(max_examples=500, deadline=None)
@given(problems(max_n=20, weighted=False), st.data(), st.integers(1, 4), st.integers(1, 3),
       st.sampled_from([_leafrank.GAIN, _leafrank.GINI]))
def test_counts_equal_repeated_rows(problem, data, depth, lr_depth, criterion):
    X, is_pos, _ = problem
    n = X.shape[0]
    counts = np.array(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), np.int32)
    if counts.sum() == 0:
        counts[0] = 1
    rows = np.repeat(np.arange(n), counts)
    if is_pos[rows].all() or not is_pos[rows].any():
        return
    kw = dict(max_depth=depth, lr_depth=lr_depth, min_split=4, min_leaf=2, criterion=criterion)
    got = grow(X, is_pos, counts.astype(np.float64), counts, **kw)
    rep = grow(X[rows], is_pos[rows], np.ones(rows.size), **kw)
    assert_same_tree(got, rep, NODE_FIELDS + LR_FIELDS)
    np.testing.assert_array_equal(got["row_node"][rows], rep["row_node"])
    assert (got["row_node"][counts == 0] == -1).all()


def test_threshold_between_huge_negative_values_separates_them():
    """The midpoint of two adjacent values must lie in [lo, v): with lo + v
    overflowing to -inf the cut ``x <= -inf`` would send every row right."""
    X = np.array([[-1.7e308], [-1.6e308], [-1.5e308], [0.0]])
    is_pos = np.array([False, True, True, True])
    for criterion in (_leafrank.GAIN, _leafrank.GINI):
        tree = grow(X, is_pos, np.ones(4), max_depth=1, lr_depth=1, criterion=criterion)
        t = tree["leafrank_threshold"][0]
        assert -1.7e308 <= t < -1.6e308
        # The split separates the negative from the positives, as evaluated.
        assert tree["n_samples"].tolist() == [4, 3, 1]
        assert tree["gain"][0] == 0.5


def test_degenerate_nodes_are_leaves():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    is_pos = X[:, 0] > 0
    w = np.ones(40)
    # max_depth = 0: the root is the only node.
    tree = grow(X, is_pos, w, max_depth=0)
    assert tree["children_left"].tolist() == [-1] and (tree["row_node"] == 0).all()
    # max_depth = 1: at most one split.
    assert grow(X, is_pos, w, max_depth=1)["children_left"].size <= 3
    # min_samples_leaf larger than half the node: no split.
    assert grow(X, is_pos, w, min_leaf=21)["children_left"].tolist() == [-1]
    # Constant features, all-equal rows: nothing to cut.
    assert grow(np.ones((40, 3)), is_pos, w)["children_left"].tolist() == [-1]
    # One class only (by weight): Λ ≡ 0, no split.
    assert grow(X, is_pos, is_pos.astype(float))["children_left"].tolist() == [-1]
    # A feature that separates the classes perfectly: one split of gain ½·AUC-excess.
    tree = grow(X, is_pos, w, max_depth=5, lr_depth=1)
    assert tree["gain"].sum() == pytest.approx(0.5)


def test_trees_grown_in_threads_equal_trees_grown_alone():
    rng = np.random.default_rng(1)
    X = np.asfortranarray(rng.normal(size=(600, 8)).round(1))
    is_pos = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(size=600) > 0).astype(np.uint8)
    ranks = _grow.rank_features(X)

    def one(seed):
        counts = np.bincount(np.random.RandomState(seed).randint(0, 600, 600),
                             minlength=600).astype(np.int32)
        return _grow.grow_tree(X, is_pos, counts.astype(np.float64), counts, *ranks,
                                   5, 2, 8, 4, 10, 3, _leafrank.GINI, seed)

    alone = [one(s) for s in range(16)]
    with ThreadPoolExecutor(4) as pool:
        threaded = list(pool.map(one, range(16)))
    for a, b in zip(alone, threaded):
        assert_same_tree(a, b)


def test_treerank_apply_routes_training_rows_to_their_growth_leaves():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 4)) * np.array([1e-300, 1.0, 1e300, 1.0])
    y = (X[:, 0] * 1e300 + X[:, 1] > 0).astype(int)
    tree = TreeRank(max_depth=6, leafrank_max_depth=3, min_samples_split=4,
                    min_samples_leaf=2, random_state=0).fit(X, y)
    grown = grow(X, y, np.ones(300), max_depth=6, lr_depth=3, min_split=4, min_leaf=2)
    np.testing.assert_array_equal(tree.apply(X), tree.tree_.leaf_index[grown["row_node"]])


@settings(max_examples=500, deadline=None)
@given(problems(max_n=40, max_q=5), st.data(), st.integers(0, 5), st.integers(1, 4),
       st.integers(2, 8), st.integers(1, 4), st.sampled_from([_leafrank.GAIN, _leafrank.GINI]),
       st.integers(0, 2**64 - 1))
def test_random_feature_draws_give_a_consistent_tree(problem, data, depth, lr_depth, min_split,
                                                     min_leaf, criterion, seed):
    """FR1/FR2 (q1 <= q0 <= q drawn at random): whatever the draws, the tree routes
    every in-sample row to the leaf its growth recorded, children partition their
    parent, leaves respect min_samples_leaf, and the same seed gives the same tree."""
    X, is_pos, w = problem
    n, q = X.shape
    q0 = data.draw(st.integers(1, q))
    q1 = data.draw(st.integers(1, q0))
    counts = np.array(data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)), np.int32)
    if counts.sum() == 0:
        counts[0] = 1
    kw = dict(max_depth=depth, lr_depth=lr_depth, min_split=min_split, min_leaf=min_leaf,
              criterion=criterion, q0=q0, q1=q1, seed=seed)
    tree = grow(X, is_pos, w * counts, counts, **kw)
    assert_same_tree(tree, grow(X, is_pos, w * counts, counts, **kw))
    left, right = tree["children_left"], tree["children_right"]
    internal = np.flatnonzero(left != -1)
    for name in ("n_samples", "pos_weight", "neg_weight"):
        np.testing.assert_array_equal(tree[name][internal],
                                      tree[name][left[internal]] + tree[name][right[internal]])
    assert (tree["depth"] <= depth).all()
    if internal.size:
        assert tree["n_samples"][left == -1].min() >= min_leaf
        assert set(tree["leafrank_feature"][tree["leafrank_left"] != -1].tolist()) <= set(range(q))
    structure = RankingTreeStructure(**{k: v for k, v in tree.items() if k != "row_node"})
    routed = structure.apply(np.ascontiguousarray(X))
    inbag = counts > 0
    leaf_index = structure.leaf_index
    np.testing.assert_array_equal(routed[inbag], leaf_index[tree["row_node"][inbag]])
    assert (tree["row_node"][~inbag] == -1).all()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.integers(-3, 3), min_size=3, max_size=3), min_size=1, max_size=40))
def test_rank_features_are_dense_ranks(rows):
    X = np.asfortranarray(np.array(rows, dtype=np.float64))
    ranks, n_values, values, offsets = _grow.rank_features(X)
    for f in range(X.shape[1]):
        distinct, inverse = np.unique(X[:, f], return_inverse=True)
        np.testing.assert_array_equal(ranks[f], inverse.ravel())
        assert n_values[f] == distinct.size
        np.testing.assert_array_equal(values[offsets[f]:offsets[f + 1]], distinct)


def test_rank_features_refuses_a_wrong_order():
    X = np.asfortranarray(np.arange(12, dtype=np.float64).reshape(4, 3))
    with pytest.raises(ValueError, match="argsort"):
        _grow.rank_features(X, np.zeros((4, 3), dtype=np.intp) + np.array([[3], [2], [1], [0]]))
    # Sorted values but a repeated index: not a permutation (a rank left unwritten
    # would send the growth out of its buffers).
    X = np.asfortranarray(np.zeros((4, 1)))
    with pytest.raises(ValueError, match="argsort"):
        _grow.rank_features(X, np.array([[0], [1], [1], [3]], dtype=np.intp))
