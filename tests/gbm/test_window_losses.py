"""The window-loss kernels against enumeration, finite differences and each other.

Brute force: on tiny problems every order of the negatives that is consistent
with their scores (tied negatives in every order) is enumerated; each order
puts the negatives at positions j_alpha+1..j_beta in the window, the loss of
that order is the plain sum over (positive, window negative) pairs, and the
kernels must return the value (the same for every order) and the *average*
gradient and Hessian diagonal over the orders.  Scores on a half-integer grid
make ties between negatives at the borders, between classes, and pairs at the
squared hinge's kink t = 1 frequent.
"""

from itertools import permutations, product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pauc._loss import _window as W
from pauc.svm.oracles import pauc_tight_oracle, structural_surrogate

from _structural import brute_force, tiny_problems

KERNELS = {"exponential": W.exponential, "squared_hinge": W.squared_hinge,
           "tight_hinge": W.tight_hinge}


def pair_terms(kind, p, z):
    """(l, dl/dp, d2l/dp2) of the pair (positive score p, negative score z)."""
    if kind == "exponential":
        e = np.exp(z - p)
        return e, -e, e
    deficit = z - (p - 1.0)          # the kernels' activity test: z > p - 1
    if deficit > 0:
        return deficit * deficit, -2.0 * deficit, 2.0
    return 0.0, 0.0, 0.0


def orders(scores, is_pos):
    """Every order of the negatives' rows that sorts their scores descending:
    the tie groups from the highest score down, each in every order."""
    neg = [k for k in range(len(scores)) if not is_pos[k]]
    groups = [[k for k in neg if scores[k] == v]
              for v in sorted({scores[k] for k in neg}, reverse=True)]
    for parts in product(*(permutations(g) for g in groups)):
        yield sum(parts, ())


def enumerate_window_loss(kind, scores, is_pos, j_alpha, j_beta):
    """(value per order, mean window membership, mean gradient, mean Hessian diagonal).

    Each order's loss is linear in its window's membership vector, so the mean
    derivatives over the orders are those of the mean membership.
    """
    pos, neg = np.flatnonzero(is_pos), np.flatnonzero(~is_pos)
    terms = np.array([[pair_terms(kind, scores[i], scores[j]) for j in neg] for i in pos])
    L, D1, D2 = terms[..., 0], terms[..., 1], terms[..., 2]      # (m, n_neg) each
    big_n = len(pos) * (j_beta - j_alpha)
    members = []
    for perm in orders(scores, is_pos):
        members.append(np.isin(neg, perm[j_alpha:j_beta]).astype(float))
    members = np.array(members)
    values = (members @ L.sum(axis=0)) / big_n
    member = members.mean(axis=0)
    g, h, omega = np.zeros(len(scores)), np.zeros(len(scores)), np.zeros(len(scores))
    g[pos], g[neg] = D1 @ member, -(D1 * member).sum(axis=0)
    h[pos], h[neg] = D2 @ member, (D2 * member).sum(axis=0)
    omega[neg] = member
    return values, omega, g / big_n, h / big_n


def call(kind, scores, is_pos, j_alpha, j_beta, scale=1.0, **kwargs):
    grad = np.zeros(scores.shape[0])
    hess = np.zeros(scores.shape[0])
    value = KERNELS[kind](scores, is_pos.view(np.uint8), int(is_pos.sum()), j_alpha, j_beta,
                          grad, hess, scale=scale, **kwargs)
    return value, grad, hess


# --------------------------------------------------------------------------
# brute force over all pairs and all orders of the tied negatives
# --------------------------------------------------------------------------

@pytest.mark.parametrize("with_alpha", [False, True], ids=["alpha0", "alpha>0"])
@settings(max_examples=500, deadline=None)
@given(problem=tiny_problems(), data=st.data())
def test_pairwise_losses_equal_enumeration(with_alpha, problem, data):
    """500 problems per window kind, each checked for both pairwise losses."""
    scores, is_pos, j_alpha, j_beta = problem
    n_neg = int((~is_pos).sum())
    if with_alpha:
        if n_neg < 2:
            return
        j_alpha = data.draw(st.integers(1, n_neg - 1))
        j_beta = data.draw(st.integers(j_alpha + 1, n_neg))
    else:
        j_alpha = 0
    for kind in ("exponential", "squared_hinge"):
        values, omega, grad, hess = enumerate_window_loss(kind, scores, is_pos, j_alpha,
                                                          j_beta)
        # the value does not depend on how tied negatives are ordered
        assert np.ptp(values) <= 1e-12 * max(1.0, abs(values[0]))
        for dtype in (np.float64, np.float32):
            v, g, h = call(kind, scores.astype(dtype), is_pos, j_alpha, j_beta)
            assert v == pytest.approx(values[0], rel=1e-12, abs=1e-12)
            np.testing.assert_allclose(g, grad, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(h, hess, rtol=1e-12, atol=1e-12)
    # the tie rule: each negative weighs its mean membership of the window
    np.testing.assert_allclose(
        W.window_weights(scores, is_pos.view(np.uint8), j_alpha, j_beta), omega, atol=1e-12)


@pytest.mark.parametrize("with_alpha", [False, True], ids=["alpha0", "alpha>0"])
@settings(max_examples=500, deadline=None)
@given(problem=tiny_problems(), data=st.data())
def test_tight_hinge_value_and_subgradient_by_enumeration(with_alpha, problem, data):
    """The value is the structural surrogate by enumeration of every ordering, and
    ``grad`` is a subgradient: f(s') >= f(s) + grad . (s' - s) for other scores s',
    with f by enumeration too."""
    scores, is_pos, _, _ = problem
    n_neg = int((~is_pos).sum())
    if with_alpha and n_neg < 2:
        return
    j_alpha = data.draw(st.integers(1, n_neg - 1)) if with_alpha else 0
    j_beta = data.draw(st.integers(j_alpha + 1, n_neg))

    def f(s):
        return brute_force(s[is_pos], s[~is_pos], j_alpha, j_beta, "tight")

    value, grad, hess = call("tight_hinge", scores, is_pos, j_alpha, j_beta)
    assert value == pytest.approx(f(scores), abs=1e-12)
    other = scores + np.array(data.draw(st.lists(st.integers(-4, 4), min_size=len(scores),
                                                 max_size=len(scores)))) / 4
    assert f(other) >= value + grad @ (other - scores) - 1e-12
    # the constant Hessian: 1/m on positives, the share of the top j_beta over the width
    top = W.window_weights(scores, is_pos.view(np.uint8), 0, j_beta)
    expected = np.where(is_pos, 1.0 / is_pos.sum(), top / (j_beta - j_alpha))
    np.testing.assert_allclose(hess, expected, atol=1e-15)


def test_tight_hinge_is_the_oracle_surrogate():
    rng = np.random.default_rng(0)
    scores = rng.normal(size=300)
    is_pos = rng.random(300) < 0.3
    for j_alpha, j_beta in [(0, 20), (5, 40)]:
        value, grad, _ = call("tight_hinge", scores, is_pos, j_alpha, j_beta, scale=3.0)
        coef, _ = pauc_tight_oracle(scores, is_pos, j_alpha, j_beta)
        assert value == pytest.approx(structural_surrogate(
            pauc_tight_oracle, scores, is_pos, j_alpha=j_alpha, j_beta=j_beta))
        np.testing.assert_array_equal(grad, -3.0 * coef)


# --------------------------------------------------------------------------
# larger problems: an O(m k) numpy reference, finite differences
# --------------------------------------------------------------------------

def dense_reference(kind, scores, is_pos, j_alpha, j_beta):
    """All pairs as an m x k matrix (no ties among negatives: a plain sort)."""
    pos = np.flatnonzero(is_pos)
    neg = np.flatnonzero(~is_pos)
    window = neg[np.argsort(-scores[neg], kind="stable")][j_alpha:j_beta]
    P, Z = scores[pos][:, None], scores[window][None, :]
    if kind == "exponential":
        L = np.exp(Z - P)
        D1, D2 = -L, L
    else:
        deficit = np.where(Z > P - 1.0, Z - (P - 1.0), 0.0)
        L, D1, D2 = deficit ** 2, -2.0 * deficit, 2.0 * (deficit > 0)
    big_n = len(pos) * (j_beta - j_alpha)
    g = np.zeros(len(scores))
    h = np.zeros(len(scores))
    g[pos], g[window] = D1.sum(1), -D1.sum(0)
    h[pos], h[window] = D2.sum(1), D2.sum(0)
    return L.sum() / big_n, g / big_n, h / big_n


@pytest.mark.parametrize("kind", ["exponential", "squared_hinge"])
@pytest.mark.parametrize("window", [(0, 1), (0, 0.05), (0.02, 0.05), (0.3, 0.9)])
@pytest.mark.parametrize("spread", [0.3, 5.0])
def test_larger_problems_equal_the_pair_matrix(kind, window, spread):
    rng = np.random.default_rng(1)
    n = 3000
    is_pos = rng.random(n) < 0.2
    scores = rng.normal(size=n) * spread + is_pos
    n_neg = int((~is_pos).sum())
    j_alpha, j_beta = int(np.floor(n_neg * window[0])), int(np.ceil(n_neg * window[1]))
    value, grad, hess = call(kind, scores, is_pos, j_alpha, j_beta)
    ref_value, ref_grad, ref_hess = dense_reference(kind, scores, is_pos, j_alpha, j_beta)
    assert value == pytest.approx(ref_value, rel=1e-10)
    scale = np.abs(ref_grad).max()
    np.testing.assert_allclose(grad, ref_grad, rtol=1e-9, atol=1e-12 * scale)
    np.testing.assert_allclose(hess, ref_hess, rtol=1e-9, atol=1e-12 * np.abs(ref_hess).max())


@pytest.mark.parametrize("kind", ["exponential", "squared_hinge"])
@pytest.mark.parametrize("j_alpha, j_beta", [(0, 7), (3, 9), (0, 40)])
def test_gradient_and_hessian_equal_finite_differences(kind, j_alpha, j_beta):
    """Distinct scores, far from the squared hinge's kink: both losses are smooth
    there (the window does not change under a small step)."""
    rng = np.random.default_rng(2)
    is_pos = np.arange(60) % 3 == 0
    scores = rng.permutation(np.linspace(-2.0, 2.0, 60)) + 0.0137
    eps = 1e-6
    value, grad, hess = call(kind, scores, is_pos, j_alpha, j_beta)
    for k in range(60):
        up, down = scores.copy(), scores.copy()
        up[k] += eps
        down[k] -= eps
        v_up, g_up, _ = call(kind, up, is_pos, j_alpha, j_beta)
        v_down, g_down, _ = call(kind, down, is_pos, j_alpha, j_beta)
        assert (v_up - v_down) / (2 * eps) == pytest.approx(grad[k], rel=1e-6, abs=1e-9)
        assert (g_up[k] - g_down[k]) / (2 * eps) == pytest.approx(hess[k], rel=1e-5,
                                                                   abs=1e-8)


# --------------------------------------------------------------------------
# scale, normalisation, accumulation, dtypes, log-loss
# --------------------------------------------------------------------------

def test_exponential_normalize_rescales_and_never_overflows():
    rng = np.random.default_rng(3)
    is_pos = rng.random(500) < 0.3
    scores = rng.normal(size=500)
    _, g, h = call("exponential", scores, is_pos, 0, 30)
    _, gn, hn = call("exponential", scores, is_pos, 0, 30, scale=2.0, normalize=True)
    assert np.abs(gn).max() == pytest.approx(2.0)
    np.testing.assert_allclose(gn * np.abs(g).max() / 2.0, g, rtol=1e-12)
    np.testing.assert_allclose(hn * np.abs(g).max() / 2.0, h, rtol=1e-12)
    # scores 1000 apart: exp(1000) overflows, the normalised derivatives do not
    far = scores * 1000.0
    value, gn, hn = call("exponential", far, is_pos, 0, 30, normalize=True)
    assert np.isinf(value)
    assert np.isfinite(gn).all() and np.abs(gn).max() == pytest.approx(1.0)
    assert np.isfinite(hn).all()


@pytest.mark.parametrize("kind", ["exponential", "squared_hinge", "tight_hinge"])
def test_kernels_add_scale_times_the_derivatives(kind):
    rng = np.random.default_rng(4)
    is_pos = rng.random(400) < 0.25
    scores = rng.normal(size=400)
    v1, g1, h1 = call(kind, scores, is_pos, 2, 30)
    grad, hess = np.ones(400), np.full(400, 2.0)
    v3 = KERNELS[kind](scores, is_pos.view(np.uint8), int(is_pos.sum()), 2, 30, grad, hess,
                       scale=3.0)
    assert v3 == v1
    np.testing.assert_allclose(grad, 1.0 + 3.0 * g1, rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(hess, 2.0 + 3.0 * h1, rtol=1e-14, atol=1e-14)


def test_logloss_kernel():
    rng = np.random.default_rng(5)
    is_pos = rng.random(200) < 0.4
    scores = np.concatenate([rng.normal(size=190) * 3, [800.0, -800.0, 40, -40, 0, 0, 1, 2,
                                                          3, 4]])
    grad, hess = np.zeros(200), np.zeros(200)
    value = W.logloss(scores, is_pos.view(np.uint8), grad, hess, scale=200.0)
    y = np.where(is_pos, 1.0, -1.0)
    assert value == pytest.approx(np.mean(np.logaddexp(0.0, -y * scores)), rel=1e-13)
    p = 0.5 * (1.0 + np.tanh(scores / 2))
    np.testing.assert_allclose(grad, p - is_pos, atol=1e-15)
    np.testing.assert_allclose(hess, p * (1 - p), atol=1e-15)


@pytest.mark.parametrize("kind", ["exponential", "squared_hinge", "tight_hinge"])
def test_float32_scores_give_the_float64_result_of_the_same_values(kind):
    rng = np.random.default_rng(6)
    is_pos = rng.random(1000) < 0.1
    s32 = rng.normal(size=1000).astype(np.float32)
    v32, g32, h32 = call(kind, s32, is_pos, 10, 90)
    v64, g64, h64 = call(kind, s32.astype(np.float64), is_pos, 10, 90)
    assert v32 == pytest.approx(v64, rel=1e-12)
    np.testing.assert_allclose(g32, g64, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(h32, h64, rtol=1e-12, atol=1e-15)


def test_all_scores_tied_spread_the_window_evenly():
    """The first boosting round: every negative weighs (j_beta - j_alpha) / n."""
    is_pos = np.arange(50) < 10
    omega = W.window_weights(np.zeros(50), is_pos.view(np.uint8), 4, 12)
    np.testing.assert_allclose(omega[~is_pos], 8 / 40)
    _, g, _ = call("exponential", np.zeros(50), is_pos, 4, 12)
    np.testing.assert_allclose(g[~is_pos], (8 / 40) * 10 / (10 * 8))
    np.testing.assert_allclose(g[is_pos], -1 / 10)


@settings(max_examples=300, deadline=None)
@given(n=st.integers(2, 60), share=st.floats(0.05, 0.95), grid=st.sampled_from([0.5, 0.1, 0.0]),
       window=st.tuples(st.floats(0, 1), st.floats(0, 1)), seed=st.integers(0, 2**32 - 1),
       single=st.booleans())
def test_torch_batch_kernels_equal_the_boosting_kernel_bit_for_bit(n, share, grid, window, seed,
                                                                   single):
    """``squared_hinge_gradient`` and ``squared_hinge_batch`` (pauc.torch's training
    step: a selection of the bottom border, a sort of the negatives above it) give
    the boosting kernel's value and gradient exactly, ties at the borders included."""
    rng = np.random.default_rng(seed)
    scores = rng.normal(scale=2.0, size=n)
    if grid:
        scores = np.round(scores / grid) * grid          # ties within and across classes
    is_pos = rng.random(n) < share
    n_pos = int(is_pos.sum())
    if n_pos == 0 or n_pos == n:
        is_pos[0], is_pos[-1] = True, False
        n_pos = int(is_pos.sum())
    n_neg = n - n_pos
    lo, hi = sorted(window)
    j_alpha = min(int(lo * n_neg), n_neg - 1)
    j_beta = max(j_alpha + 1, min(n_neg, int(np.ceil(hi * n_neg))))
    flags = is_pos.view(np.uint8)
    grad, hess = np.zeros(n), np.zeros(n)
    expected = W.squared_hinge(scores, flags, n_pos, j_alpha, j_beta, grad, hess)
    g = np.zeros(n)
    assert W.squared_hinge_gradient(scores, flags, n_pos, j_alpha, j_beta, g) == expected
    np.testing.assert_array_equal(g, grad)
    dtype = np.float32 if single else np.float64
    values = scores.astype(dtype)
    out = np.empty(n, dtype=dtype)
    if single:                     # the boosting kernel at the float32 values
        grad, hess = np.zeros(n), np.zeros(n)
        expected = W.squared_hinge(values, flags, n_pos, j_alpha, j_beta, grad, hess)
    labels = is_pos.astype(rng.choice([np.float32, np.int64, np.uint8]))
    status, value = W.squared_hinge_batch(values, labels, out, lambda n_neg: (j_alpha, j_beta))
    assert status == 1 and value == expected
    np.testing.assert_array_equal(out, grad.astype(dtype))


@pytest.mark.parametrize("order", ["organ pipe", "ascending", "descending", "two values"])
@pytest.mark.parametrize("window", [(0, 0.05), (0.1, 0.6), (0, 1)])
def test_torch_batch_kernels_on_orders_that_defeat_a_middle_pivot(order, window):
    """Scores that rise then fall defeat the selection's middle pivot: past its budget
    of partitions it heap-sorts the rest, and the result is still the boosting kernel's."""
    n = 3000
    i = np.arange(n, dtype=np.float64)
    scores = {"organ pipe": np.minimum(i, n - i), "ascending": i, "descending": -i,
              "two values": (i % 2).astype(np.float64)}[order]
    is_pos = np.arange(n) % 7 == 0
    n_pos, n_neg = int(is_pos.sum()), int((~is_pos).sum())
    j_alpha, j_beta = int(np.floor(n_neg * window[0])), int(np.ceil(n_neg * window[1]))
    grad, hess = np.zeros(n), np.zeros(n)
    expected = W.squared_hinge(scores, is_pos.view(np.uint8), n_pos, j_alpha, j_beta, grad, hess)
    out = np.empty(n)
    status, value = W.squared_hinge_batch(scores, is_pos.astype(np.uint8), out,
                                          lambda _: (j_alpha, j_beta))
    assert status == 1 and value == expected
    np.testing.assert_array_equal(out, grad)
