"""Routing rows down a fitted ranking tree (``pauc.tree._apply``) against a walk
in Python: each master node asks its LeafRank tree whether the row lies in C,
the left, higher-ranked child (Clémençon & Vayatis, "Tree-based ranking
methods", IEEE Trans. Inf. Theory 2009, Sec. IV-A)."""

import numpy as np
import pytest

from pauc.tree import TreeRank, _apply


def python_route(tree, x):
    node = 0
    while tree.children_left[node] != -1:
        k = tree.split_root[node]
        while tree.leafrank_left[k] != -1:
            go_left = x[tree.leafrank_feature[k]] <= tree.leafrank_threshold[k]
            k = tree.leafrank_left[k] if go_left else tree.leafrank_right[k]
        node = tree.children_left[node] if tree.leafrank_in_left[k] else \
            tree.children_right[node]
    return tree.leaf_index[node]


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 4)).round(1)
    y = (X[:, 0] * X[:, 1] + X[:, 2] + 0.5 * rng.normal(size=400) > 0).astype(int)
    model = TreeRank(max_depth=5, leafrank_max_depth=3, min_samples_split=10,
                     min_samples_leaf=3, random_state=0).fit(X, y)
    return model.tree_, rng.normal(size=(300, 4)).round(1)


def test_routing_equals_the_python_walk_in_any_layout(fitted):
    tree, X = fitted
    expected = np.array([python_route(tree, x) for x in X])
    for layout in (np.ascontiguousarray(X), np.asfortranarray(X), X[:, ::-1][:, ::-1]):
        np.testing.assert_array_equal(tree.apply(layout), expected)
    assert tree.n_leaves > 4 and set(expected) <= set(range(tree.n_leaves))


def test_routing_some_rows_leaves_the_others(fitted):
    tree, X = fitted
    rows = np.array([5, 0, 299, 17], dtype=np.intp)
    out = np.full(X.shape[0], -7, dtype=np.intp)
    tree.apply(np.asfortranarray(X), out, rows=rows)
    np.testing.assert_array_equal(out[rows], [python_route(tree, X[i]) for i in rows])
    assert (np.delete(out, rows) == -7).all()


def test_one_leaf_tree_routes_everything_to_leaf_0():
    X = np.zeros((10, 2))
    y = np.array([0, 1] * 5)
    tree = TreeRank(random_state=0).fit(X, y).tree_
    assert tree.n_leaves == 1 and tree.leafrank_feature.size == 0
    np.testing.assert_array_equal(tree.apply(X), np.zeros(10))


def test_bad_arguments(fitted):
    tree, X = fitted
    args = (tree.children_left, tree.children_right, tree.split_root, tree.leaf_index,
            tree.leafrank_feature, tree.leafrank_threshold, tree.leafrank_left,
            tree.leafrank_right, tree.leafrank_in_left)
    with pytest.raises(ValueError, match="wrong length"):
        _apply.apply_tree(X, *args, np.empty(3, dtype=np.intp))
    with pytest.raises(ValueError, match="out of range"):
        _apply.apply_tree(X, *args, np.empty(300, dtype=np.intp),
                          np.array([300], dtype=np.intp))
    with pytest.raises(ValueError, match="differ in length"):
        _apply.apply_tree(X, *args[:3], args[3][:-1], *args[4:], np.empty(300, dtype=np.intp))
