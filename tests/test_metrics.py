"""ROC metrics against brute force, against scikit-learn, and on bad input."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score
from sklearn.metrics import roc_curve as sk_roc_curve

import _brute_force as bf
from pauc.metrics import (
    mean_partial_auc,
    partial_auc,
    roc_auc,
    roc_curve,
    tpr_at_fpr,
    two_way_partial_auc,
)

# ---------------------------------------------------------------- strategies


@st.composite
def ranking_problems(draw, weighted=False):
    """Small binary problems with many ties and sometimes extreme imbalance."""
    shape = draw(st.sampled_from(["balanced", "few_pos", "few_neg"]))
    if shape == "balanced":
        m = draw(st.integers(1, 15))
        n = draw(st.integers(1, 15))
    elif shape == "few_pos":
        m, n = draw(st.integers(1, 2)), draw(st.integers(10, 40))
    else:
        m, n = draw(st.integers(10, 40)), draw(st.integers(1, 2))
    levels = draw(st.integers(1, 6))           # few distinct scores -> many ties
    scores = draw(st.lists(st.integers(0, levels), min_size=m + n, max_size=m + n))
    scale = draw(st.sampled_from([1.0, 0.1, 1e-3, 7.25]))
    y = np.array([1] * m + [0] * n)
    order = draw(st.permutations(range(m + n)))
    y = y[list(order)]
    s = np.array(scores, dtype=np.float64) * scale
    w = None
    if weighted:
        w = np.array(draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.25]),
                                   min_size=m + n, max_size=m + n)))
        # keep both classes alive
        w[np.flatnonzero(y == 1)[0]] = 1.0
        w[np.flatnonzero(y == 0)[0]] = 1.0
    return y, s, w


@st.composite
def fpr_windows(draw):
    kind = draw(st.sampled_from(["float", "grid"]))
    if kind == "grid":
        a, b = sorted(draw(st.lists(st.integers(0, 20), min_size=2, max_size=2, unique=True)))
        return a / 20, b / 20
    a = draw(st.floats(0.0, 1.0, allow_nan=False))
    b = draw(st.floats(0.0, 1.0, allow_nan=False))
    if a == b:
        b = min(1.0, a + 0.01) if a < 1.0 else 1.0
        a = a if a < b else 0.99
    return (a, b) if a < b else (b, a)


MANY = settings(max_examples=500, deadline=None)

# ---------------------------------------------------------------- brute force


@MANY
@given(ranking_problems())
def test_roc_auc_equals_pairs_and_exact_area(problem):
    y, s, _ = problem
    is_pos = y == 1
    expected = bf.auc_by_pairs(is_pos, s)
    assert roc_auc(y, s) == pytest.approx(expected, abs=1e-12)
    assert roc_auc(y, s) == pytest.approx(float(bf.area(is_pos, s)), abs=1e-12)


@MANY
@given(ranking_problems(weighted=True))
def test_weighted_roc_auc_equals_weighted_pairs(problem):
    y, s, w = problem
    assert roc_auc(y, s, sample_weight=w) == pytest.approx(
        bf.auc_by_pairs(y == 1, s, w), abs=1e-12)


@MANY
@given(ranking_problems(), fpr_windows())
def test_partial_auc_equals_exact_area(problem, window):
    y, s, _ = problem
    a, b = window
    raw = float(bf.area(y == 1, s, a, b))
    assert partial_auc(y, s, fpr_range=window, normalize="none") == pytest.approx(raw, abs=1e-12)
    assert partial_auc(y, s, fpr_range=window) == pytest.approx(raw / (b - a), abs=1e-12 / (b - a))


@MANY
@given(ranking_problems(weighted=True), fpr_windows())
def test_weighted_partial_auc_equals_exact_area(problem, window):
    y, s, w = problem
    raw = float(bf.area(y == 1, s, *window, weight=w))
    assert partial_auc(y, s, fpr_range=window, normalize="none",
                       sample_weight=w) == pytest.approx(raw, abs=1e-12)


@MANY
@given(ranking_problems(), st.floats(0.01, 1.0), st.floats(0.0, 0.99))
def test_two_way_partial_auc_equals_exact_area(problem, max_fpr, min_tpr):
    y, s, _ = problem
    raw = float(bf.area(y == 1, s, 0.0, max_fpr, min_tpr))
    assert two_way_partial_auc(y, s, max_fpr=max_fpr, min_tpr=min_tpr,
                               normalize="none") == pytest.approx(raw, abs=1e-12)


@MANY
@given(ranking_problems(), st.floats(0.0, 1.0))
def test_tpr_at_fpr_equals_best_threshold(problem, fpr):
    y, s, _ = problem
    assert tpr_at_fpr(y, s, fpr) == pytest.approx(
        bf.tpr_at_fpr_by_thresholds(y == 1, s, fpr), abs=1e-12)


@MANY
@given(ranking_problems(), st.floats(0.0, 1.0))
def test_interpolated_tpr_at_fpr_is_the_height_of_the_curve(problem, fpr):
    # The exact area over a tiny window [fpr, fpr + h], divided by h, is the
    # curve's height just right of fpr up to slope * h / 2 (slope <= n <= 40).
    y, s, _ = problem
    t_lin = tpr_at_fpr(y, s, fpr, interpolate=True)
    assert t_lin >= tpr_at_fpr(y, s, fpr) - 1e-12
    if fpr < 1.0:
        h = min(1e-8, 1.0 - fpr)
        height = float(bf.area(y == 1, s, fpr, fpr + h)) / h
        assert t_lin == pytest.approx(height, abs=1e-6)


# ---------------------------------------------------------------- scikit-learn


@MANY
@given(ranking_problems(), st.floats(0.001, 1.0))
def test_mcclish_equals_sklearn_max_fpr(problem, beta):
    y, s, _ = problem
    expected = roc_auc_score(y, s, max_fpr=beta)
    got = partial_auc(y, s, fpr_range=(0.0, beta), normalize="mcclish")
    assert got == pytest.approx(expected, abs=1e-12)


@MANY
@given(ranking_problems(weighted=True), st.booleans(), st.booleans())
def test_roc_curve_equals_sklearn(problem, weighted, drop_intermediate):
    y, s, w = problem
    w = w if weighted else None
    ours = roc_curve(y, s, sample_weight=w, drop_intermediate=drop_intermediate)
    theirs = sk_roc_curve(y, s, sample_weight=w, drop_intermediate=drop_intermediate)
    for a, b in zip(ours, theirs):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)


def test_roc_auc_equals_sklearn_on_large_random_data():
    rng = np.random.default_rng(0)
    y = rng.random(20_000) < 0.1
    s = np.round(rng.normal(size=20_000) + y, 2)     # many ties
    assert roc_auc(y, s) == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    for beta in (0.01, 0.1, 0.5):
        assert partial_auc(y, s, fpr_range=(0, beta), normalize="mcclish") == pytest.approx(
            roc_auc_score(y, s, max_fpr=beta), abs=1e-12)


def test_float32_scores_match_float64():
    rng = np.random.default_rng(1)
    y = rng.random(500) < 0.3
    s = rng.normal(size=500).astype(np.float32)
    assert roc_auc(y, s) == roc_auc(y, s.astype(np.float64))
    assert partial_auc(y, s, fpr_range=(0.05, 0.2)) == partial_auc(
        y, s.astype(np.float64), fpr_range=(0.05, 0.2))


# ---------------------------------------------------------------- paper example

Y_PAPER = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0])
F1 = np.array([9.1, 6.8, 6.1, 5.7, 8.5, 8.1, 4.2, 3.6, 2.3])
F2 = np.array([9.9, 8.7, 3.3, 2.1, 7.6, 5.3, 4.9, 4.4, 0.8])


def test_paper_example_auc_and_partial_auc_disagree():
    """Narasimhan & Agarwal (2017), Section 2.1: f1 has the higher AUC, f2 the higher pAUC
    in [0.1, 0.2]."""
    assert roc_auc(Y_PAPER, F1) == pytest.approx(14 / 20)
    assert roc_auc(Y_PAPER, F2) == pytest.approx(12 / 20)
    for normalize in ("range", "mcclish", "none"):
        p1 = partial_auc(Y_PAPER, F1, fpr_range=(0.1, 0.2), normalize=normalize)
        p2 = partial_auc(Y_PAPER, F2, fpr_range=(0.1, 0.2), normalize=normalize)
        assert p2 > p1
    # j_alpha = floor(0.5) = 0, j_beta = ceil(1.0) = 1: eq. (2) counts the
    # positives above the top negative: 1/4 for f1, 2/4 for f2.
    assert partial_auc(Y_PAPER, F1, fpr_range=(0.0, 0.2)) == pytest.approx(0.25)
    assert partial_auc(Y_PAPER, F2, fpr_range=(0.0, 0.2)) == pytest.approx(0.5)


def test_module_docstring_example_runs():
    import doctest

    import pauc.metrics

    failures, tried = doctest.testmod(pauc.metrics, verbose=False)
    assert tried > 0 and failures == 0


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(y_true=[1, 1, 1], y_score=[0.1, 0.2, 0.3]), "one class"),
        (dict(y_true=[0, 1, 1], y_score=[0.1, np.nan, 0.3]), "NaN or infinity"),
        (dict(y_true=[0, 1, 1], y_score=[0.1, np.inf, 0.3]), "NaN or infinity"),
        (dict(y_true=[0, 1, 1], y_score=[0.1, 0.2]), "differ in length"),
        (dict(y_true=[0, 1, 2], y_score=[0.1, 0.2, 0.3]), "binary"),
        (dict(y_true=["a", "b", "b"], y_score=[0.1, 0.2, 0.3]), "pos_label"),
        (dict(y_true=[2, 3, 3], y_score=[0.1, 0.2, 0.3]), "pos_label"),
        (dict(y_true=[0, 1, 1], y_score=[0.1, 0.2, 0.3], pos_label=5), "pos_label"),
        (dict(y_true=[0, 1, 1], y_score=[0.1, 0.2, 0.3], sample_weight=[1, -1, 1]),
         "non-negative"),
    ],
)
def test_bad_input_names_the_problem(kwargs, message):
    for metric in (roc_auc, partial_auc, roc_curve):
        with pytest.raises(ValueError, match=message):
            metric(**kwargs)


@pytest.mark.parametrize("window", [(0.2, 0.2), (0.3, 0.1), (-0.1, 0.5), (0.0, 1.5),
                                    (np.nan, 0.5), (0.1,), "ab"])
def test_invalid_fpr_range(window):
    with pytest.raises(ValueError, match="fpr_range"):
        partial_auc([0, 1], [0.0, 1.0], fpr_range=window)


def test_invalid_normalize():
    with pytest.raises(ValueError, match="normalize"):
        partial_auc([0, 1], [0.0, 1.0], normalize="area")


def test_pos_label_selects_the_positive_class():
    y = np.array(["spam", "ham", "spam", "ham"])
    s = np.array([0.9, 0.1, 0.4, 0.6])
    assert roc_auc(y, s, pos_label="spam") == pytest.approx(0.75)
    assert roc_auc(y, s, pos_label="ham") == pytest.approx(0.25)


# ---------------------------------------------------------------- integer scores


def test_integer_scores_beyond_2_53_issue_example():
    """Issue 21, item 7: distinct int64 scores that float64 rounds together."""
    y = [0, 1, 0, 1]
    s = [1700000000000000001, 1700000000000000003, 1700000000000000000, 1700000000000000002]
    assert roc_auc_score(y, s) == 1.0
    assert roc_auc(y, s) == 1.0
    assert roc_auc(y, np.array(s, dtype=np.uint64)) == 1.0
    # Python integers beyond int64 too (an object array)
    assert roc_auc(y, [2 ** 70 + 1, 2 ** 70 + 3, 2 ** 70, 2 ** 70 + 2]) == 1.0
    assert partial_auc(y, s, fpr_range=(0.0, 0.5)) == 1.0
    assert tpr_at_fpr(y, s, 0.0) == 1.0


@settings(max_examples=200, deadline=None)
@given(ranking_problems(weighted=True), st.booleans(), fpr_windows(),
       st.sampled_from([1_700_000_000_000_000_000, -(2 ** 62), 2 ** 53 - 3]))
def test_large_integer_scores_rank_as_sklearn_ranks_them(problem, weighted, window, offset):
    """Small integer gaps on a huge offset (timestamps in ns): every metric equals its
    value on the gaps alone (exact), and scikit-learn's (which ranks integers exactly)."""
    y, s, w = problem
    w = w if weighted else None
    gaps = np.round(s * 1000).astype(np.int64)
    big = gaps + np.int64(offset)
    assert roc_auc(y, big, sample_weight=w) == roc_auc(y, gaps, sample_weight=w)
    assert roc_auc(y, big, sample_weight=w) == pytest.approx(
        roc_auc_score(y, big, sample_weight=w), abs=1e-12)
    assert partial_auc(y, big, fpr_range=window, sample_weight=w) == partial_auc(
        y, gaps, fpr_range=window, sample_weight=w)
    assert tpr_at_fpr(y, big, window[1], sample_weight=w) == tpr_at_fpr(
        y, gaps, window[1], sample_weight=w)
    ours = roc_curve(y, big, sample_weight=w, drop_intermediate=False)
    theirs = sk_roc_curve(y, big, sample_weight=w, drop_intermediate=False)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)
    # the rates are those of the integers: one knot per distinct integer score
    assert ours[0].shape[0] == np.unique(big[w != 0] if w is not None else big).shape[0] + 1


def test_mcclish_can_fall_below_one_half_and_below_zero():
    """Documented: McClish's standardisation is 0.5 at chance, not a floor; for
    alpha + beta > 1 the reversed ranking scores below 0 (-1 on (0.5, 1))."""
    y = np.array([1, 1, 0, 0])
    reversed_scores = np.array([0.0, 1.0, 2.0, 3.0])
    assert partial_auc(y, reversed_scores, fpr_range=(0.5, 1.0), normalize="mcclish") == -1.0
    beta = 0.3
    assert partial_auc(y, reversed_scores, fpr_range=(0.0, beta),
                       normalize="mcclish") == pytest.approx((1 - beta) / (2 - beta))
    assert "below 0" in partial_auc.__doc__ or "below 0" in " ".join(
        partial_auc.__doc__.split())


def test_roc_curve_documents_its_one_class_contract():
    """scikit-learn's roc_curve warns and returns NaN on one class; ours refuses, and says so."""
    doc = " ".join(roc_curve.__doc__.split())
    assert "one class" in doc and "NaN" in doc
    with pytest.raises(ValueError, match="one class"):
        roc_curve([1, 1, 1], [0.1, 0.2, 0.3])


# --------------------------------------------------------------- mean_partial_auc
@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=4, max_size=40), st.randoms(use_true_random=False))
def test_mean_partial_auc_is_the_mean_of_the_windows_partial_aucs(levels, rnd):
    # integer scores: ties; every window, at the ends too
    y = np.array([rnd.random() < 0.4 for _ in levels])
    y[:2] = [True, False]
    s = np.array(levels, dtype=np.float64)
    windows = [(0.0, 0.05), (0.1, 0.6), (0.0, 1.0), (0.3, 0.35)][:rnd.randint(1, 4)]
    expected = np.mean([partial_auc(y, s, fpr_range=w) for w in windows])
    assert mean_partial_auc(y, s, windows) == pytest.approx(expected, abs=1e-12)
    assert mean_partial_auc(y, s, windows, check_input=False) == pytest.approx(expected,
                                                                               abs=1e-12)
    labels = np.where(y, "spam", "ham")
    assert mean_partial_auc(labels, s, windows, pos_label="spam") == pytest.approx(expected,
                                                                                   abs=1e-12)


def test_mean_partial_auc_checks_its_input():
    y, s = np.array([0, 1, 0, 1]), np.array([0.1, 0.4, 0.35, 0.8])
    with pytest.raises(ValueError, match="no window"):
        mean_partial_auc(y, s, [])
    with pytest.raises(ValueError):
        mean_partial_auc(y, s, [(0.3, 0.1)])
    with pytest.raises(ValueError):
        mean_partial_auc(y, np.array([0.1, np.nan, 0.3, 0.2]), [(0.0, 0.5)])
