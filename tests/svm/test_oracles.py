"""The structural-SVM oracles against enumeration and against the paper's theorems.

The enumeration references (every subset of negatives, every valid ordering)
and the tiny-problem strategy are in ``tests/_structural.py``.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pauc._loss import _structural as _oracles
from pauc.svm.oracles import (
    auc_oracle,
    pauc_naive_oracle,
    pauc_tight_oracle,
    structural_surrogate,
)

from _structural import brute_force, tiny_problems

# --------------------------------------------------------------------------
# brute force
# --------------------------------------------------------------------------

def decode_and_check(coef, loss, scores, is_pos, j_alpha, j_beta, size):
    """Check that (coef, loss) is the count representation of a valid ordering.

    Positives carry r_i / N (0 <= r_i <= size); the negatives' counts, sorted
    descending, must be #{i : r_i >= j} for j = 1..size (rows are prefixes of
    one order of the negatives) and zero beyond; the loss must be the sum of
    the rows' window coverage over N.
    """
    m = int(is_pos.sum())
    big_n = m * (j_beta - j_alpha)
    r = coef[is_pos] * big_n
    c = -coef[~is_pos] * big_n
    assert np.allclose(r, np.round(r), atol=1e-9) and np.allclose(c, np.round(c), atol=1e-9)
    r = np.round(r).astype(int)
    c = np.round(c).astype(int)
    assert r.min() >= 0 and r.max() <= size
    assert c.min() >= 0
    conjugate = np.array([(r >= j).sum() for j in range(1, size + 1)], dtype=int)
    c_sorted = np.sort(c)[::-1]
    assert np.array_equal(c_sorted[:size], conjugate)
    assert np.all(c_sorted[size:] == 0)
    assert loss == pytest.approx(np.clip(r - j_alpha, 0, j_beta - j_alpha).sum() / big_n,
                                 abs=1e-12)


def _value(coef, loss, scores):
    return loss - scores @ coef


@settings(max_examples=500, deadline=None)
@given(tiny_problems())
def test_auc_oracle_equals_brute_force(problem):
    scores, is_pos, _, _ = problem
    coef, loss = auc_oracle(scores, is_pos)
    n = int((~is_pos).sum())
    expected = brute_force(scores[is_pos], scores[~is_pos], 0, n, "auc")
    assert _value(coef, loss, scores) == pytest.approx(expected, abs=1e-12)
    decode_and_check(coef, loss, scores, is_pos, 0, n, n)


@settings(max_examples=500, deadline=None)
@given(tiny_problems(with_alpha=False))
def test_tight_zero_beta_oracle_equals_brute_force(problem):
    scores, is_pos, j_alpha, j_beta = problem
    coef, loss = pauc_tight_oracle(scores, is_pos, j_alpha, j_beta)
    expected = brute_force(scores[is_pos], scores[~is_pos], j_alpha, j_beta, "tight")
    assert _value(coef, loss, scores) == pytest.approx(expected, abs=1e-12)
    decode_and_check(coef, loss, scores, is_pos, j_alpha, j_beta, j_beta)


@settings(max_examples=500, deadline=None)
@given(tiny_problems(with_alpha=True))
def test_tight_alpha_beta_oracle_equals_brute_force(problem):
    scores, is_pos, j_alpha, j_beta = problem
    coef, loss = pauc_tight_oracle(scores, is_pos, j_alpha, j_beta)
    expected = brute_force(scores[is_pos], scores[~is_pos], j_alpha, j_beta, "tight")
    assert _value(coef, loss, scores) == pytest.approx(expected, abs=1e-12)
    decode_and_check(coef, loss, scores, is_pos, j_alpha, j_beta, j_beta)
    # the negatives outside the top j_beta carry no coefficient (Proposition 2)
    assert np.count_nonzero(coef[~is_pos]) <= j_beta


@settings(max_examples=500, deadline=None)
@given(tiny_problems())
def test_naive_oracle_equals_brute_force(problem):
    scores, is_pos, j_alpha, j_beta = problem
    coef, loss = pauc_naive_oracle(scores, is_pos, j_alpha, j_beta)
    n = int((~is_pos).sum())
    expected = brute_force(scores[is_pos], scores[~is_pos], j_alpha, j_beta, "naive")
    assert _value(coef, loss, scores) == pytest.approx(expected, abs=1e-12)
    decode_and_check(coef, loss, scores, is_pos, j_alpha, j_beta, n)


@pytest.mark.parametrize("kind", ["auc", "tight0", "tight", "naive"])
def test_brute_force_at_the_largest_size(kind):
    """m = n = 6 every time (hypothesis favours small draws)."""
    rng = np.random.default_rng(7)
    for _ in range(25):
        scores = rng.integers(-4, 5, size=12) / 2
        is_pos = np.zeros(12, bool)
        is_pos[rng.choice(12, 6, replace=False)] = True
        j_alpha = 0 if kind in ("auc", "tight0") else int(rng.integers(1, 5))
        j_beta = 6 if kind == "auc" else int(rng.integers(j_alpha + 1, 7))
        if kind == "auc":
            coef, loss = auc_oracle(scores, is_pos)
        elif kind == "naive":
            coef, loss = pauc_naive_oracle(scores, is_pos, j_alpha, j_beta)
        else:
            coef, loss = pauc_tight_oracle(scores, is_pos, j_alpha, j_beta)
        brute_kind = {"auc": "auc", "naive": "naive"}.get(kind, "tight")
        expected = brute_force(scores[is_pos], scores[~is_pos], j_alpha, j_beta, brute_kind)
        assert _value(coef, loss, scores) == pytest.approx(expected, abs=1e-12)
        decode_and_check(coef, loss, scores, is_pos, j_alpha, j_beta,
                         j_beta if brute_kind == "tight" else 6)


def test_brute_force_can_fail():
    """The reference is not vacuous: a wrong cut (all rows empty) is far below it."""
    scores = np.array([0.0, 0.5, 1.0, -1.0])
    is_pos = np.array([True, True, False, False])
    assert brute_force(scores[is_pos], scores[~is_pos], 0, 2, "auc") > 0.5
    assert brute_force(scores[is_pos], scores[~is_pos], 1, 2, "naive") >= \
        brute_force(scores[is_pos], scores[~is_pos], 1, 2, "tight")


# --------------------------------------------------------------------------
# the theorems at random scores (real-valued, larger samples)
# --------------------------------------------------------------------------

def _random_problem(rng, m, n, spread=1.0):
    scores = rng.normal(scale=spread, size=m + n)
    is_pos = np.zeros(m + n, bool)
    is_pos[rng.choice(m + n, m, replace=False)] = True
    return scores, is_pos


def _pair_hinge(pos, neg, margin):
    return np.maximum(margin - (pos[:, None] - neg[None, :]), 0.0)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 40), st.integers(1, 40),
       st.sampled_from([0.1, 1.0, 5.0]))
def test_theorem_1_auc_surrogate_is_pairwise_hinge(seed, m, n, spread):
    scores, is_pos = _random_problem(np.random.default_rng(seed), m, n, spread)
    hinge = _pair_hinge(scores[is_pos], scores[~is_pos], 1.0).mean()        # eq. (4)
    assert structural_surrogate(auc_oracle, scores, is_pos) == pytest.approx(hinge, abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 40), st.integers(1, 40),
       st.sampled_from([0.1, 1.0, 5.0]), st.floats(0.01, 1.0))
def test_theorem_5_tight_zero_beta_is_hinge_on_top_negatives(seed, m, n, spread, beta):
    scores, is_pos = _random_problem(np.random.default_rng(seed), m, n, spread)
    j_beta = int(np.ceil(n * beta))
    top = np.sort(scores[~is_pos])[::-1][:j_beta]
    hinge = _pair_hinge(scores[is_pos], top, 1.0).mean()                    # eq. (10)
    value = structural_surrogate(pauc_tight_oracle, scores, is_pos, j_alpha=0, j_beta=j_beta)
    assert value == pytest.approx(hinge, abs=1e-12)


def _theorem_7_bounds(pos, neg, j_alpha, j_beta):
    """Lower and upper bounds of Theorem 7 (normaliser N = m (j_beta - j_alpha)).

    The lower bound's sums run over the window j_alpha+1..j_beta (margin 1)
    and over 1..j_alpha (margin 0), for the positives scored below the
    j_alpha-th negative -- the value of the ordering pi-hat of the proof in
    Appendix A.3 (the statement's first sum prints 1..j_alpha, a typo: the
    proof's pi-hat covers the window with margin 1).
    """
    z = np.sort(neg)[::-1][:j_beta]
    big_n = len(pos) * (j_beta - j_alpha)
    head, window = z[:j_alpha], z[j_alpha:]
    zero_margin = _pair_hinge(pos, head, 0.0).sum(axis=1)                   # eta terms
    unit_margin = _pair_hinge(pos, window, 1.0).sum(axis=1)                 # hinge (9)
    upper = (zero_margin + unit_margin).sum() / big_n
    below = pos < z[j_alpha - 1]
    lower = (zero_margin[below] + unit_margin[below]).sum() / big_n
    return lower, upper


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 30), st.integers(2, 30),
       st.sampled_from([0.3, 1.0, 3.0]), st.floats(0.0, 0.9), st.floats(0.05, 1.0))
def test_theorem_7_bounds(seed, m, n, spread, alpha, width):
    scores, is_pos = _random_problem(np.random.default_rng(seed), m, n, spread)
    j_alpha = max(1, int(np.floor(n * alpha)))
    j_beta = min(n, max(j_alpha + 1, int(np.ceil(n * min(1.0, alpha + width)))))
    if j_alpha >= j_beta:
        return
    value = structural_surrogate(pauc_tight_oracle, scores, is_pos,
                                 j_alpha=j_alpha, j_beta=j_beta)
    lower, upper = _theorem_7_bounds(scores[is_pos], scores[~is_pos], j_alpha, j_beta)
    assert lower - 1e-12 <= value <= upper + 1e-12


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 30), st.integers(2, 30),
       st.floats(0.0, 0.9), st.floats(0.05, 1.0))
def test_theorem_7_equality_when_margins_are_wide(seed, m, n, alpha, width):
    rng = np.random.default_rng(seed)
    # Integers spaced by 2, positives on odd and negatives on even numbers:
    # every positive-negative score difference has |difference| >= 1.
    pos = 2 * rng.integers(-5, 5, size=m) + 1.0
    neg = 2 * rng.integers(-5, 5, size=n) + 0.0
    scores = np.concatenate([pos, neg])
    is_pos = np.concatenate([np.ones(m, bool), np.zeros(n, bool)])
    j_alpha = max(1, int(np.floor(n * alpha)))
    j_beta = min(n, max(j_alpha + 1, int(np.ceil(n * min(1.0, alpha + width)))))
    if j_alpha >= j_beta:
        return
    value = structural_surrogate(pauc_tight_oracle, scores, is_pos,
                                 j_alpha=j_alpha, j_beta=j_beta)
    _, upper = _theorem_7_bounds(pos, neg, j_alpha, j_beta)
    assert value == pytest.approx(upper, abs=1e-12)


def test_theorem_7_bounds_can_be_strict():
    """Without the margin condition the surrogate may sit strictly inside the bounds."""
    # Covering the window forces the row over the head negative 0.2 < 0.3,
    # which the upper bound (entries maximised one by one) leaves out.
    pos = np.array([0.3])
    neg = np.array([0.2, 0.0])
    scores = np.concatenate([pos, neg])
    is_pos = np.array([True, False, False])
    value = structural_surrogate(pauc_tight_oracle, scores, is_pos, j_alpha=1, j_beta=2)
    lower, upper = _theorem_7_bounds(pos, neg, 1, 2)
    assert value == pytest.approx(1 + 0.2 + 0.0 - 2 * 0.3)
    assert upper == pytest.approx(0.7)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 30), st.integers(1, 30),
       st.sampled_from([0.1, 1.0, 5.0]), st.floats(0.0, 0.9), st.floats(0.05, 1.0))
def test_naive_surrogate_is_never_tighter(seed, m, n, spread, alpha, width):
    scores, is_pos = _random_problem(np.random.default_rng(seed), m, n, spread)
    j_alpha = int(np.floor(n * alpha))
    j_beta = min(n, max(j_alpha + 1, int(np.ceil(n * min(1.0, alpha + width)))))
    if j_alpha >= j_beta:
        return
    kw = dict(j_alpha=j_alpha, j_beta=j_beta)
    tight = structural_surrogate(pauc_tight_oracle, scores, is_pos, **kw)
    naive = structural_surrogate(pauc_naive_oracle, scores, is_pos, **kw)
    assert naive >= tight - 1e-12


def test_naive_is_strictly_looser_when_tail_negatives_outrank_positives():
    # The only positive is below a negative that lies beyond the window.
    scores = np.array([0.0, 5.0, 4.0, 3.0])
    is_pos = np.array([True, False, False, False])
    kw = dict(j_alpha=0, j_beta=1)
    tight = structural_surrogate(pauc_tight_oracle, scores, is_pos, **kw)
    naive = structural_surrogate(pauc_naive_oracle, scores, is_pos, **kw)
    assert tight == pytest.approx(6.0)               # 1 - (0 - 5)
    assert naive == pytest.approx(6.0 + 4.0 + 3.0)   # plus zero-margin terms beyond j_beta


def test_full_range_surrogates_reduce_to_auc():
    scores, is_pos = _random_problem(np.random.default_rng(3), 17, 23)
    auc = auc_oracle(scores, is_pos)
    for oracle in (pauc_tight_oracle, pauc_naive_oracle):
        coef, loss = oracle(scores, is_pos, 0, 23)
        np.testing.assert_allclose(coef, auc[0], atol=1e-15)
        assert loss == pytest.approx(auc[1], abs=1e-15)


# --------------------------------------------------------------------------
# contract: signs, dtypes, large inputs, bad input
# --------------------------------------------------------------------------

ORACLES = [
    ("auc", lambda s, y: auc_oracle(s, y)),
    ("tight0", lambda s, y: pauc_tight_oracle(s, y, 0, max(1, (~y).sum() // 10))),
    ("tight", lambda s, y: pauc_tight_oracle(s, y, (~y).sum() // 50, (~y).sum() // 20)),
    ("naive", lambda s, y: pauc_naive_oracle(s, y, (~y).sum() // 50, (~y).sum() // 20)),
]


@pytest.mark.parametrize("name,oracle", ORACLES)
def test_float32_and_float64_agree(name, oracle):
    rng = np.random.default_rng(0)
    scores, is_pos = _random_problem(rng, 300, 2000)
    scores32 = (scores * 4).round().astype(np.float32) / np.float32(4)   # many ties
    c32, l32 = oracle(scores32, is_pos)
    c64, l64 = oracle(scores32.astype(np.float64), is_pos)
    assert c32.dtype == np.float64
    np.testing.assert_array_equal(c32, c64)
    assert l32 == l64


@pytest.mark.parametrize("name,oracle", ORACLES)
def test_signs_sums_and_value_on_larger_input(name, oracle):
    rng = np.random.default_rng(1)
    scores, is_pos = _random_problem(rng, 700, 5000, spread=2.0)
    coef, loss = oracle(scores, is_pos)
    assert np.all(coef[is_pos] >= 0) and np.all(coef[~is_pos] <= 0)
    # every violated pair is counted once from each side
    assert coef[is_pos].sum() == pytest.approx(-coef[~is_pos].sum(), rel=1e-12)
    assert loss - scores @ coef >= -1e-12


@pytest.mark.parametrize("name,oracle", ORACLES)
def test_all_scores_tied(name, oracle):
    """w = 0 (first cutting-plane iteration): every pair violated by margin 1."""
    is_pos = np.zeros(500, bool)
    is_pos[::5] = True
    coef, loss = oracle(np.zeros(500), is_pos)
    assert loss == pytest.approx(1.0)          # the whole window is misranked
    assert np.all(coef[is_pos] > 0)            # every positive below the window


def test_label_encodings_agree():
    scores, is_pos = _random_problem(np.random.default_rng(2), 20, 30)
    ref = pauc_tight_oracle(scores, is_pos, 2, 9)
    for y in (is_pos.astype(int), is_pos.astype(np.float64), list(is_pos)):
        coef, loss = pauc_tight_oracle(scores, y, 2, 9)
        np.testing.assert_array_equal(coef, ref[0])
        assert loss == ref[1]


@pytest.mark.parametrize("oracle,kw", [
    (auc_oracle, {}),
    (pauc_tight_oracle, dict(j_alpha=1, j_beta=2)),
    (pauc_naive_oracle, dict(j_alpha=1, j_beta=2)),
])
def test_bad_input_raises(oracle, kw):
    s = np.array([0.1, 0.2, 0.3, 0.4])
    y = np.array([True, False, False, True])
    with pytest.raises(ValueError, match="differ in length"):
        oracle(s[:3], y, **kw)
    with pytest.raises(ValueError, match="one class"):
        oracle(s, np.ones(4, bool), **kw)
    with pytest.raises(ValueError, match="one class"):
        oracle(s, np.zeros(4, bool), **kw)
    with pytest.raises(ValueError, match="NaN"):
        oracle(np.array([0.1, np.nan, 0.3, 0.4]), y, **kw)
    with pytest.raises(ValueError, match="NaN"):
        oracle(np.array([0.1, np.inf, 0.3, 0.4]), y, **kw)
    with pytest.raises(ValueError, match="1-d"):
        oracle(s.reshape(2, 2), y, **kw)
    with pytest.raises(ValueError, match="0 and 1"):
        oracle(s, np.array([0, 1, 2, 1]), **kw)


@pytest.mark.parametrize("oracle", [pauc_tight_oracle, pauc_naive_oracle])
def test_bad_indices_raise(oracle):
    s = np.array([0.1, 0.2, 0.3, 0.4, 0.5])
    y = np.array([True, False, False, False, True])
    with pytest.raises(ValueError, match="exceeds"):
        oracle(s, y, 0, 4)
    with pytest.raises(ValueError, match=">= 1"):
        oracle(s, y, 2, 2)
    with pytest.raises(ValueError, match=">= 1"):
        oracle(s, y, 2, 1)
    with pytest.raises(ValueError, match=">= 0"):
        oracle(s, y, -1, 2)
    with pytest.raises(ValueError, match="integer"):
        oracle(s, y, 0.5, 2)


# --------------------------------------------------------------------------
# the packed-key sort behind every oracle (module docstring of _oracles)
# --------------------------------------------------------------------------

def _check_sorted_candidates(scores, is_pos):
    coef = np.empty(len(scores))
    n_neg = int((~is_pos).sum())
    values, rows = _oracles.sorted_candidates(scores, is_pos.view(np.uint8), n_neg,
                                               -np.inf, 0, coef)
    np.testing.assert_array_equal(values, scores[rows])
    neg_rows, pos_rows = rows[:n_neg], rows[n_neg:]
    np.testing.assert_array_equal(np.sort(neg_rows), np.flatnonzero(~is_pos))
    np.testing.assert_array_equal(np.sort(pos_rows), np.flatnonzero(is_pos))
    assert np.all(np.diff(values[:n_neg]) >= 0) and np.all(np.diff(values[n_neg:]) >= 0)


def test_keys_sharing_leading_bits_are_repaired():
    # 200 rows -> 8 index bits, keys keep the 55 leading bits of each score:
    # scores one ulp apart inside an aligned block of 512 ulps share them and
    # come out of the integer sort in row order; here that order is reversed
    # in pairs (short runs: the insertion repair).
    ulp = np.spacing(1.0)
    blocks = 1.0 + 512 * ulp * np.repeat(np.arange(100), 2)
    scores = blocks + ulp * np.tile([1.0, 0.0], 100)
    is_pos = np.zeros(200, bool)
    is_pos[::3] = True
    _check_sorted_candidates(scores, is_pos)


def test_long_runs_sharing_leading_bits_fall_back_to_argsort():
    ulp = np.spacing(1.0)
    scores = 1.0 + ulp * np.arange(300)[::-1]          # one reversed run of 300
    is_pos = np.zeros(300, bool)
    is_pos[::4] = True
    _check_sorted_candidates(scores, is_pos)
    coef, loss = auc_oracle(scores, is_pos)
    decode_and_check(coef, loss, scores, is_pos, 0, 225, 225)
    coef, loss = pauc_naive_oracle(scores, is_pos, 3, 40)
    decode_and_check(coef, loss, scores, is_pos, 3, 40, 225)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 3000), st.sampled_from([0, 1, 2]))
def test_sorted_candidates_random(seed, n, mode):
    rng = np.random.default_rng(seed)
    ulp = np.spacing(1.0)
    if mode == 0:
        scores = rng.normal(size=n)
    elif mode == 1:
        scores = rng.integers(-3, 3, size=n).astype(float)            # heavy ties
    else:
        scores = 1.0 + ulp * rng.integers(0, 4096, size=n)            # near-ties
    is_pos = rng.random(n) < 0.3
    _check_sorted_candidates(scores, is_pos)


# --------------------------------------------------------------------------
# weighted AUC oracle
# --------------------------------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(tiny_problems(), st.lists(st.integers(0, 3), min_size=12, max_size=12))
def test_integer_weights_act_as_repeated_rows(problem, counts):
    scores, is_pos, _, _ = problem
    counts = np.array(counts[:len(scores)])
    if counts[is_pos].sum() == 0 or counts[~is_pos].sum() == 0:
        counts[:] = 1
    coef, loss = auc_oracle(scores, is_pos, sample_weight=counts.astype(float))
    rep = np.repeat(np.arange(len(scores)), counts)
    coef_rep, loss_rep = auc_oracle(scores[rep], is_pos[rep])
    assert loss == pytest.approx(loss_rep, abs=1e-12)
    # each original row's coefficient is the sum over its copies
    np.testing.assert_allclose(coef, np.bincount(rep, coef_rep, minlength=len(scores)),
                               atol=1e-12)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 30), st.integers(1, 30))
def test_weighted_auc_surrogate_is_weighted_pairwise_hinge(seed, m, n):
    rng = np.random.default_rng(seed)
    scores, is_pos = _random_problem(rng, m, n)
    weight = rng.exponential(size=m + n)
    hinge = _pair_hinge(scores[is_pos], scores[~is_pos], 1.0)
    pair_w = weight[is_pos][:, None] * weight[~is_pos][None, :]
    expected = (pair_w * hinge).sum() / pair_w.sum()
    value = structural_surrogate(auc_oracle, scores, is_pos, sample_weight=weight)
    assert value == pytest.approx(expected, abs=1e-12)
    unit = auc_oracle(scores, is_pos, sample_weight=np.ones(m + n))
    ref = auc_oracle(scores, is_pos)
    np.testing.assert_allclose(unit[0], ref[0], atol=1e-15)


def test_bad_sample_weight_raises():
    s = np.array([0.1, 0.2, 0.3, 0.4])
    y = np.array([True, False, False, True])
    with pytest.raises(ValueError, match="length"):
        auc_oracle(s, y, sample_weight=np.ones(3))
    with pytest.raises(ValueError, match="non-negative"):
        auc_oracle(s, y, sample_weight=np.array([1.0, -1.0, 1.0, 1.0]))
    with pytest.raises(ValueError, match="non-negative"):
        auc_oracle(s, y, sample_weight=np.array([1.0, np.nan, 1.0, 1.0]))
    with pytest.raises(ValueError, match="total weight of zero"):
        auc_oracle(s, y, sample_weight=np.array([0.0, 1.0, 1.0, 0.0]))
