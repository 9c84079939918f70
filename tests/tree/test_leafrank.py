"""The node split of TreeRank (``pauc.tree._leafrank``) against brute force.

Oracles: Clémençon & Vayatis, "Tree-based ranking methods" (IEEE Trans. Inf.
Theory 2009), Sec. IV-A step 2a: the argmax of Λ over orthogonal stumps, both
orientations (Remark 12), the larger set among tied maximisers (Remark 10); and
LeafRank (Clémençon, Depecker & Vayatis, "Ranking Forests", JMLR 2013, §2.3.1):
C is the union of the cost-sensitive CART's leaves with Λ >= 0.
All gains are compared exactly, in the integer count form
n+ n- Λ(C) = W-(node)·P(C) − W+(node)·N(C).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pauc.tree import _grow, _leafrank


def run_split(X, is_pos, w, *, max_depth=1, features=None, max_features=None,
              min_samples_split=2, min_samples_leaf=1, criterion=_leafrank.GAIN, seed=0):
    n, p = X.shape
    X = np.asfortranarray(X, dtype=np.float64)
    features = np.arange(p, dtype=np.intp) if features is None else np.asarray(features, np.intp)
    max_features = len(features) if max_features is None else max_features
    cap = min(2 ** (max_depth + 1) - 1, 2 * n - 1)
    bufs = (np.empty(cap, np.intp), np.empty(cap), np.empty(cap, np.intp),
            np.empty(cap, np.intp), np.zeros(cap, np.uint8))
    samples = np.arange(n, dtype=np.intp)
    n_nodes, n_in_c, p_c, q_c = _leafrank.leafrank_split(
        X, is_pos.astype(np.uint8), np.asarray(w, np.float64), _grow.rank_features(X),
        samples, 0, n, features,
        max_features, max_depth, min_samples_split, min_samples_leaf, criterion, seed, *bufs)
    feat, thr, left, right, in_c = (b[:n_nodes] for b in bufs)
    return dict(samples=samples, n_in_c=n_in_c, p_c=p_c, q_c=q_c, feature=feat,
                threshold=thr, left=left, right=right, in_c=in_c, X=X)


def route(out, x):
    """LeafRank leaf reached by x (pure Python)."""
    k = 0
    while out["left"][k] != -1:
        k = out["left"][k] if x[out["feature"][k]] <= out["threshold"][k] else out["right"][k]
    return k


def lam(mask, is_pos, w):
    """Count-form Λ of the set ``mask`` inside the node (exact integers)."""
    P, N = int(round(w[is_pos].sum())), int(round(w[~is_pos].sum()))
    return N * int(round(w[mask & is_pos].sum())) - P * int(round(w[mask & ~is_pos].sum()))


def brute_force_stump(X, is_pos, w):
    """max over features, thresholds between distinct values and both orientations
    of Λ(C), and the largest weight of C among the maximisers."""
    best, size = 0, None
    for j in range(X.shape[1]):
        values = np.unique(X[:, j])
        for t in values[:-1]:
            for mask in (X[:, j] <= t, X[:, j] > t):
                g = lam(mask, is_pos, w)
                s = int(round(w[mask].sum()))
                if g > best or (g == best and g > 0 and s > size):
                    best, size = g, s
    return best, size


@st.composite
def tiny_problems(draw, max_n=12, max_p=3):
    n = draw(st.integers(2, max_n))
    p = draw(st.integers(1, max_p))
    X = np.array(draw(st.lists(st.lists(st.integers(0, 3), min_size=p, max_size=p),
                               min_size=n, max_size=n)), dtype=np.float64)
    is_pos = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    weighted = draw(st.booleans())
    w = (np.array(draw(st.lists(st.integers(1, 3), min_size=n, max_size=n)), np.float64)
         if weighted else np.ones(n))
    return X, is_pos, w


@settings(max_examples=500, deadline=None)
@given(tiny_problems())
def test_stump_equals_brute_force(problem):
    X, is_pos, w = problem
    out = run_split(X, is_pos, w, max_depth=1)
    best, size = brute_force_stump(X, is_pos, w)
    n = X.shape[0]
    C = np.zeros(n, bool)
    C[out["samples"][:out["n_in_c"]]] = True
    if best <= 0:
        # No positive gain: the node stays whole (Remark 10).
        assert out["n_in_c"] == n
        return
    assert 0 < out["n_in_c"] < n
    assert lam(C, is_pos, w) == best
    assert int(round(w[C].sum())) == size
    # The returned weights describe C, and C is the stump x_f <= t or its complement.
    assert out["p_c"] == w[C & is_pos].sum() and out["q_c"] == w[C & ~is_pos].sum()
    f, t = out["feature"][0], out["threshold"][0]
    low = X[:, f] <= t
    expected = low if out["in_c"][out["left"][0]] else ~low
    np.testing.assert_array_equal(C, expected)
    # The threshold lies strictly between two observed values of the feature.
    assert X[low, f].max() <= t < X[~low, f].min()


@settings(max_examples=500, deadline=None)
@given(tiny_problems(max_n=16, max_p=3), st.integers(2, 3), st.sampled_from(["gain", "gini"]),
       st.integers(1, 3))
def test_leafrank_is_union_of_nonnegative_leaves(problem, depth, criterion, min_leaf):
    X, is_pos, w = problem
    code = _leafrank.GAIN if criterion == "gain" else _leafrank.GINI
    out = run_split(X, is_pos, w, max_depth=depth, criterion=code, min_samples_leaf=min_leaf,
                    min_samples_split=2)
    n = X.shape[0]
    leaf_of = np.array([route(out, x) for x in X])
    C = np.zeros(n, bool)
    C[out["samples"][:out["n_in_c"]]] = True
    leaves = np.unique(leaf_of)
    for leaf in leaves:
        members = leaf_of == leaf
        assert out["left"][leaf] == -1
        # Leaves of Λ >= 0 form C (Remark 10: zero-gain leaves join the larger set).
        assert bool(out["in_c"][leaf]) == (lam(members, is_pos, w) >= 0)
        np.testing.assert_array_equal(C[members], bool(out["in_c"][leaf]))
        if out["n_in_c"] not in (0,) and len(leaves) > 1:
            assert members.sum() >= min_leaf
    # Λ additive: Λ(C) is the sum of the positive leaf gains, the best union of leaves.
    gains = [lam(leaf_of == leaf, is_pos, w) for leaf in leaves]
    assert lam(C, is_pos, w) == sum(g for g in gains if g > 0)
    # The LeafRank tree respects its depth.
    depth_of = {0: 0}
    for k in range(len(out["left"])):
        if out["left"][k] != -1:
            depth_of[out["left"][k]] = depth_of[out["right"][k]] = depth_of[k] + 1
    assert max(depth_of.values()) <= depth
    if criterion == "gain" and min_leaf == 1:
        # The gain criterion's first cut is the stump; deeper cuts only add gain.
        assert lam(C, is_pos, w) >= brute_force_stump(X, is_pos, w)[0]


def test_pure_node_is_not_split():
    X = np.arange(6, dtype=float).reshape(-1, 1)
    out = run_split(X, np.ones(6, bool), np.ones(6), max_depth=3)
    assert out["n_in_c"] == 6 and out["left"][0] == -1


def test_fr2_draws_only_among_master_features():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 6))
    is_pos = X[:, 0] + X[:, 3] + 0.3 * rng.normal(size=200) > 0
    used = set()
    for seed in range(20):
        out = run_split(X, is_pos, np.ones(200), max_depth=3, features=[1, 3, 5],
                        max_features=1, seed=seed)
        f = out["feature"][out["left"] != -1]
        assert set(f.tolist()) <= {1, 3, 5}
        used |= set(f.tolist())
        again = run_split(X, is_pos, np.ones(200), max_depth=3, features=[1, 3, 5],
                          max_features=1, seed=seed)
        np.testing.assert_array_equal(out["samples"], again["samples"])
    assert len(used) > 1   # the draw does vary with the seed


def test_bad_buffers_and_arguments():
    X = np.asfortranarray(np.zeros((4, 2)))
    args = (X, np.array([1, 0, 1, 0], np.uint8), np.ones(4), _grow.rank_features(X),
            np.arange(4, dtype=np.intp), 0, 4)
    bufs = (np.empty(1, np.intp), np.empty(1), np.empty(1, np.intp), np.empty(1, np.intp),
            np.zeros(1, np.uint8))
    with pytest.raises(ValueError, match="max_features"):
        _leafrank.leafrank_split(*args, np.arange(2, dtype=np.intp), 3, 1, 2, 1, 0, 0, *bufs)
    with pytest.raises(ValueError, match="max_depth"):
        _leafrank.leafrank_split(*args, np.arange(2, dtype=np.intp), 2, 0, 2, 1, 0, 0, *bufs)
