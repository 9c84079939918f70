"""The operating threshold of every ranker's predict (pauc._threshold), against
brute force over the candidate thresholds."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from pauc._threshold import operating_threshold


@st.composite
def scored(draw):
    n = draw(st.integers(2, 30))
    # few distinct values: ties between and within the classes
    scores = np.array(draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n)), dtype=float)
    is_pos = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    is_pos[0], is_pos[1] = True, False
    return scores, is_pos


@settings(max_examples=500, deadline=None)
@given(scored())
def test_fpr_zero_admits_no_negative(problem):
    """operating_fpr=0: no training negative predicted positive, and every positive
    scored above all negatives is (it failed when the top negative tied the top
    positive: the threshold landed on the negative's score)."""
    scores, is_pos = problem
    t = operating_threshold(scores, is_pos, 0.0)
    assert not (scores[~is_pos] >= t).any()
    top_negative = scores[~is_pos].max()
    assert (scores[is_pos & (scores > top_negative)] >= t).all()


@settings(max_examples=500, deadline=None)
@given(scored(), st.floats(0.01, 1.0))
def test_positive_fpr_never_overshoots_and_leaves_a_tie_block_out(problem, fpr):
    """One tie rule for every ranker: the most negatives a threshold can admit
    without passing ceil(n f) (a tie block that reaches past the k-th negative is
    left out whole), and every positive above the highest negative left out.
    (It failed before: a tie block was admitted whole, a training FPR of 0.395
    at beta = 0.1 with a binary feature.)"""
    scores, is_pos = problem
    t = operating_threshold(scores, is_pos, fpr)
    neg = scores[~is_pos]
    k = int(np.ceil(round(neg.shape[0] * fpr, 9)))
    reachable = [c for c in np.append(np.unique(neg), np.inf) if (neg >= c).sum() <= k]
    best = max((neg >= c).sum() for c in reachable)
    assert (neg >= t).sum() == best
    ranked, pos = np.sort(neg)[::-1], scores[is_pos]
    if k < ranked.shape[0] and ranked[k - 1] == ranked[k]:
        # the tie block is out: the threshold sits just above it
        assert ((pos >= t) == (pos > ranked[k - 1])).all()
    else:
        # just below the k-th negative
        assert ((pos >= t) == (pos >= ranked[k - 1])).all()
    # the threshold sits strictly between training scores (recomputed scores cannot
    # flip), unless it is the lowest score, with nothing below it
    assert not np.isin(t, scores) or t == scores.min()


def test_constant_scores_predict_every_row_negative():
    scores, is_pos = np.zeros(10), np.arange(10) < 3
    assert not (scores >= operating_threshold(scores, is_pos, 0.1)).any()
    # FPR 1 admits every negative, ties and all
    assert (scores >= operating_threshold(scores, is_pos, 1.0)).all()


@settings(max_examples=300, deadline=None)
@given(scored())
def test_youden_threshold_is_the_best_by_brute_force(problem):
    scores, is_pos = problem
    t = operating_threshold(scores, is_pos, None)
    m, n = is_pos.sum(), (~is_pos).sum()

    def youden(c):
        return (scores[is_pos] >= c).sum() / m - (scores[~is_pos] >= c).sum() / n

    best = max([youden(c) for c in np.unique(scores)] + [0.0])
    assert np.isclose(youden(t), best)
