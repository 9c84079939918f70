"""The Cython counting primitives of pauc._ranking against brute force."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from pauc import _ranking

scores = arrays(np.float64, st.integers(0, 30), elements=st.integers(-4, 4).map(float))


@settings(max_examples=500, deadline=None)
@given(scores, scores)
def test_count_above_equals_pairwise_count(ref, query):
    ref, query = np.sort(ref), np.sort(query)
    greater, equal = _ranking.count_above(ref, query)
    assert greater.tolist() == [int((ref > q).sum()) for q in query]
    assert equal.tolist() == [int((ref == q).sum()) for q in query]


@settings(max_examples=500, deadline=None)
@given(scores.filter(len), scores.filter(len))
def test_roc_knots_are_cumulative_counts_per_distinct_score(pos, neg):
    pos, neg = np.sort(pos), np.sort(neg)
    fps, tps, thr = _ranking.roc_knots(pos, neg)
    distinct = np.unique(np.concatenate([pos, neg]))[::-1]
    np.testing.assert_array_equal(thr, distinct)
    np.testing.assert_array_equal(tps, [(pos >= t).sum() for t in distinct])
    np.testing.assert_array_equal(fps, [(neg >= t).sum() for t in distinct])


@settings(max_examples=200, deadline=None)
@given(scores.filter(len), scores.filter(len))
def test_float32_and_float64_agree(pos, neg):
    pos, neg = np.sort(pos), np.sort(neg)
    for lo, hi in [(0.0, 1.0), (0.1, 0.35)]:
        assert _ranking.partial_area(pos, neg, lo, hi) == _ranking.partial_area(
            pos.astype(np.float32), neg.astype(np.float32), lo, hi)


def test_split_by_label_keeps_order():
    rng = np.random.default_rng(0)
    s = rng.normal(size=1000)
    is_pos = rng.random(1000) < 0.3
    pos, neg = _ranking.split_by_label(s, is_pos)
    np.testing.assert_array_equal(pos, s[is_pos])
    np.testing.assert_array_equal(neg, s[~is_pos])
    pos32, _ = _ranking.split_by_label(s.astype(np.float32), is_pos)
    assert pos32.dtype == np.float32


def test_weights_must_match_and_come_in_pairs():
    pos, neg = np.array([1.0, 2.0]), np.array([0.0])
    with pytest.raises(ValueError, match="length"):
        _ranking.partial_area(pos, neg, w_pos=np.ones(3), w_neg=np.ones(1))
    with pytest.raises(ValueError, match="both classes"):
        _ranking.roc_knots(pos, neg, w_pos=np.ones(2))
    with pytest.raises(ValueError, match="positive total weight"):
        _ranking.partial_area(pos, neg, w_pos=np.zeros(2), w_neg=np.ones(1))
