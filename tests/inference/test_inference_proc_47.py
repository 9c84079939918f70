"""Venkatraman's tests, power / sample size and the multi-class AUC against R's pROC.

The values in tests/data/proc_reference_47.json were produced by
tests/data/proc_reference_47.R (``Rscript tests/data/proc_reference_47.R``) with
pROC 1.18.0, Debian bookworm's ``r-cran-proc 1.18.0-1+b1``, on R 4.2.2. Each case
stores its inputs: random draws of the script's fixed seeds, or the numeric examples
of pROC's help pages (``?power.roc.test``, ``?multiclass.roc``). These tests need no R.

pROC's aSAH data (Turck et al. 2010, shipped with pROC under its GPL licence; not
public-domain) are not copied. The help-page examples on them are stored in a numeric
form that gives pROC's results without the data:

* ``?power.roc.test``, one curve: the AUC and counts the page itself passes;
* ``?power.roc.test``, two curves (ndka against wfns, 41 cases, 72 controls): for
  DeLong pROC's two AUCs, variances and covariance (``var``, ``cov``), for Obuchowski
  the binormal parameters of pROC's fits (``smooth``'s linear model), the scores'
  correlations in each class and the AUCs; and with Obuchowski on the partial AUC
  over specificity in [0.9, 1] the same, to pin which area pROC's numbers are of
  (pauc refuses that case, see :mod:`pauc.inference._power`); the examples marked "Not run"
  (bootstrap variances) are not stored;
* ``?multiclass.roc``: the artificial example (its random draws are stored), with
  the default direction and with ``direction = ">"`` and ``"<"``. The examples on
  aSAH's gos6 and s100b, and iris with nnet, need the scores themselves; the one with
  ``partial.auc = c(100, 90), partial.auc.focus = "se"`` is not covered (pauc's
  multi-class AUC has no partial area);
* ``?roc.test`` with ``method = "venkatraman"`` (s100b against wfns, paired; s100b
  against its first 100 rows, unpaired): the statistic depends on every score's rank,
  so these cannot be reproduced without the data and are not stored (pROC gives
  E = 578, p = 0.0235 paired and E = 0.010169 unpaired, boot.n = 2000). The random
  inputs cover the same code paths.

What is compared, and how closely:

* Venkatraman's paired statistic ``E``: exactly (an integer, ties included);
* Venkatraman's p-values: within Monte Carlo error (pROC and pauc draw different
  permutations), four standard deviations of the difference of two permutation
  p-values plus 2 / n_permutations;
* Venkatraman's unpaired statistic: pauc's is the exact area between the two error
  curves, checked against a brute-force integral; pROC's is compared within 5 % on
  the three larger random cases only, because pauc does not reproduce it in general
  (below);
* power, sample size and significance level: to 1e-9 relative (the partial AUC from
  data, whose variances pROC and pauc bootstrap: within Monte Carlo error); the AUC pROC solves
  by ``uniroot`` (tolerance about 1e-4) to 1e-4, and pauc's exact root is checked
  to give the requested power; this holds for one curve, for binormal parameters
  with one FPR window or one per curve, for two curves from data by DeLong and by
  Obuchowski (``method="obuchowski"``: pROC's binormal fits and variances, to 1e-9
  too);
* the multi-class AUC and its pairwise AUCs: to 1e-12.

pROC's unpaired Venkatraman statistic, probed as a black box (its public
``roc.test`` on hand-made and random inputs, and its help pages; its source was not
read). What was found:

* it depends on each sample's ranks only (shifting one sample's scores changes
  nothing);
* when both samples have the same numbers of cases and of controls it is the area
  between the two error curves (pooled mixing proportion π) from the later of the
  two curves' first knots to 1, the points (0, 1 - π) left out: pauc's exact area
  minus the part before the first knots. Exact (1e-12) on 78 hand-made designs and
  30 random ones with ties (``venkatraman_unpaired_equal``, tested);
* on unequal designs it is not an area between the two curves: it depends on the
  order of the two curves ([1, 0] against [0, 1, 0], labels in score order: 1/16, the
  other way 1/9); one ROC curve (perfect) at 1 + 1 and 4 + 4 rows gives 0.059, at
  12 + 12 rows 3.05; a perfect 1 + 1 sample against a reversed one with j cases and
  j controls gives (5j + 1)(j - 3) / (16j) for j >= 4 (14.7 at j = 50, above any area
  in the unit square) and fails at j = 3 ("need at least two non-NA values to
  interpolate", from ``approxfun``); reversed 1 + 1 against perfect j + j gives 0
  from j = 4 on (``venkatraman_unpaired_probes``, tested).
* rules tried on 686 hand-made designs (every label order of samples up to 2 + 2
  against each other, reversed samples up to 4 + 4 against perfect ones up to 4 + 4,
  and 1 + 1 samples against every order of samples up to 4 + 3; pROC fails on 55 of
  them), as the share matched exactly: the exact area with the pooled π 11 % (41 % of
  the 78 equal designs); the area from the later first knot, pooled π, 25 % (100 % of
  the equal designs, 15 % of the others); the same with the first curve's share of
  cases as π, 35 % (100 % / 26 %). Some 3,000 more variants (overlapping) matched no
  more than two thirds of the 196 designs up to 2 + 2 nor 44 % of the larger sets:
  the mixture quantile with each sample's own, the
  pooled, the first or the second sample's π (for the quantile and the error
  separately); knots at, before or midway through each row's jump; each curve
  normalised by its own, the other or the first sample's counts; grids of the union
  of the knots, either curve's knots or j / G for G among the sample sizes, their
  sum and products; linear interpolation with or without extrapolation; trapezoid,
  left, right sums or plain sums. On the 33 random reference cases the exact area is
  within 1.8 % of pROC's (median; 90th percentile 11 %; one case pROC gives 0).

No option reproduces pROC here: a rule matched only on equal designs would mislead,
and on unequal designs pROC's number is not a comparison of the two curves. The
p-values agree within Monte Carlo error on the random cases (tested above).
"""

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scipy.special import ndtri

from pauc.inference._power import _solve, binormal_difference_variances, binormal_fit
from pauc.inference._venkatraman import mixture_curve
from pauc.metrics import (compare_rankers, multiclass_roc_auc, power_roc_test, roc_auc,
                          venkatraman_test)

_REFERENCE = json.loads((Path(__file__).parent / "data" / "proc_reference_47.json").read_text())


def _args(entry):
    # jsonlite writes an empty R list as []
    return {} if isinstance(entry, list) else entry


def _alternative(args):
    return "one-sided" if args.get("alternative") == "one.sided" else "two-sided"


def test_reference_is_proc_1_18_0():
    assert _REFERENCE["pROC_version"] == "1.18.0"


# ------------------------------------------------------------------- Venkatraman

PAIRED = _REFERENCE["venkatraman_paired"]
UNPAIRED = _REFERENCE["venkatraman_unpaired"]


def _within_monte_carlo(p_ours, n_ours, p_proc, n_proc):
    p = min(max(p_proc, 1.0 / n_proc), 1 - 1.0 / n_proc)
    sd = math.sqrt(p * (1 - p) * (1.0 / n_ours + 1.0 / n_proc))
    return abs(p_ours - p_proc) <= 4 * sd + 2.0 / n_ours


@pytest.mark.parametrize("case", PAIRED + _REFERENCE["venkatraman_paired_stat"])
def test_paired_statistic_equals_proc(case):
    result = venkatraman_test(case["y"], case["a"], case["b"], n_permutations=1, random_state=0)
    assert result.statistic == case["statistic"]
    assert result.paired
    # the same test through compare_rankers' dispatch
    comparison = compare_rankers(case["y"], case["a"], case["b"], method="venkatraman",
                                 n_resamples=2, random_state=0)
    assert comparison.statistic == case["statistic"]
    assert comparison.difference == pytest.approx(roc_auc(case["y"], case["a"])
                                                  - roc_auc(case["y"], case["b"]))


@pytest.mark.parametrize("case", PAIRED, ids=[c["name"] for c in PAIRED])
def test_paired_pvalue_agrees_with_proc(case):
    n = 1000
    result = venkatraman_test(case["y"], case["a"], case["b"], n_permutations=n,
                              random_state=47)
    assert result.permuted.shape == (n,)
    assert _within_monte_carlo(result.pvalue, n, case["pvalue"], case["boot_n"]), \
        (result.pvalue, case["pvalue"])


@pytest.mark.parametrize("case", UNPAIRED, ids=[c["name"] for c in UNPAIRED])
def test_unpaired_pvalue_agrees_with_proc(case):
    n = 1000
    result = venkatraman_test(case["y_a"], case["a"], case["b"], y_true_b=case["y_b"],
                              n_permutations=n, random_state=47)
    assert not result.paired
    assert _within_monte_carlo(result.pvalue, n, case["pvalue"], case["boot_n"]), \
        (result.pvalue, case["pvalue"])
    # pROC's statistic is its own discretisation of the same area
    assert result.statistic == pytest.approx(case["statistic"], rel=0.05)


def _brute_force_area(y_a, a, y_b, b, grid=200_001):
    """∫ |e_A - e_B| on a fine grid of mixture quantiles (the curves linear between
    their knots), against pauc's exact piecewise computation."""
    y_a, y_b = np.asarray(y_a, bool), np.asarray(y_b, bool)
    mixing = (y_a.sum() + y_b.sum()) / (y_a.size + y_b.size)
    xs = np.linspace(0, 1, grid)
    curves = [mixture_curve(y[np.argsort(s, kind="stable")], mixing)
              for y, s in ((y_a, np.asarray(a)), (y_b, np.asarray(b)))]
    diff = np.abs(np.interp(xs, *curves[0]) - np.interp(xs, *curves[1]))
    return float(np.sum((diff[1:] + diff[:-1]) / 2 * np.diff(xs)))


@pytest.mark.parametrize("case", UNPAIRED + _REFERENCE["venkatraman_unpaired_stat"][:10])
def test_unpaired_statistic_is_the_area_between_error_curves(case):
    result = venkatraman_test(case["y_a"], case["a"], case["b"], y_true_b=case["y_b"],
                              n_permutations=1, random_state=0)
    expected = _brute_force_area(case["y_a"], case["a"], case["y_b"], case["b"])
    assert result.statistic == pytest.approx(expected, abs=1e-8)


def _proc_equal_design_area(y_a, a, y_b, b):
    """The area between the two error curves (pooled π) from the later of the two
    curves' first knots to 1, the point (0, 1 - π) left out: pROC's unpaired statistic
    when both samples have the same numbers of cases and of controls."""
    y_a, y_b = np.asarray(y_a, bool), np.asarray(y_b, bool)
    mixing = (y_a.sum() + y_b.sum()) / (y_a.size + y_b.size)
    (x1, e1), (x2, e2) = [
        tuple(v[1:] for v in mixture_curve(y[np.argsort(s, kind="stable")], mixing))
        for y, s in ((y_a, np.asarray(a, float)), (y_b, np.asarray(b, float)))]
    xs = np.union1d(x1, x2)
    xs = xs[xs >= max(x1[0], x2[0])]
    diff = np.abs(np.interp(xs, x1, e1) - np.interp(xs, x2, e2))
    return float(np.sum((diff[1:] + diff[:-1]) / 2 * np.diff(xs)))


@pytest.mark.parametrize("case", _REFERENCE["venkatraman_unpaired_equal"])
def test_proc_unpaired_statistic_on_equal_designs(case):
    """What pROC's unpaired statistic is where it is understood (module docstring)."""
    assert sum(case["y_a"]) == sum(case["y_b"]) and len(case["y_a"]) == len(case["y_b"])
    assert _proc_equal_design_area(case["y_a"], case["a"], case["y_b"], case["b"]) == \
        pytest.approx(case["statistic"], rel=1e-12, abs=1e-15)
    # pauc's statistic adds the part before the first knots
    exact = venkatraman_test(case["y_a"], case["a"], case["b"], y_true_b=case["y_b"],
                             n_permutations=1, random_state=0).statistic
    assert exact >= case["statistic"] - 1e-12


def test_proc_unpaired_statistic_is_not_an_area_on_unequal_designs():
    """The stored probes behind the module docstring's account: on samples of unequal
    designs pROC's statistic is not the area between the error curves (pauc's)."""
    probes = {}
    for probe in _REFERENCE["venkatraman_unpaired_probes"]:
        probes.setdefault(probe["kind"], []).append(probe)

    def pauc_statistic(probe):
        return venkatraman_test(probe["y_a"], np.arange(len(probe["y_a"])),
                                np.arange(len(probe["y_b"])), y_true_b=probe["y_b"],
                                n_permutations=1, random_state=0).statistic

    # one ROC curve (perfect) at different sizes: pauc 0; pROC grows with the size
    same = probes["same"]
    assert [pauc_statistic(p) for p in same] == pytest.approx([0.0] * len(same), abs=1e-12)
    assert [p["statistic"] for p in same] == pytest.approx([0, 0.05859375, 0.966796875,
                                                            3.046875])
    # a perfect ranker (1 case, 1 control) against a reversed one with j of each: the
    # area is 1/2 for every j; pROC's is (5j + 1)(j - 3) / (16 j) from j = 4 on (14.7 at
    # j = 50), and fails at j = 3
    for p in probes["perfect_reversed"]:
        j = len(p["y_b"]) // 2
        assert pauc_statistic(p) == pytest.approx(0.5)
        if j == 3:
            assert "need at least two non-NA values" in p["statistic"]
        elif j >= 4:
            assert p["statistic"] == pytest.approx((5 * j + 1) * (j - 3) / (16 * j))
    # the reverse order of the two: 0 from j = 4 on
    assert [p["statistic"] for p in probes["reversed_perfect"] if len(p["y_b"]) >= 8] == [0, 0]
    # pROC's statistic depends on the order of the curves, pauc's does not
    one, two = probes["order"]
    assert (one["statistic"], two["statistic"]) == pytest.approx((1 / 16, 1 / 9))
    assert pauc_statistic(one) == pytest.approx(pauc_statistic(two))


def test_perfect_and_reversed_rankers_are_half_apart():
    # a perfect ranker's error curve falls to 0 at x = 1 - π, a reversed one's rises
    # to 1 there: the area between them is 1/2 for any sizes (π = 1/2 here)
    y = np.array([0, 0, 1, 1])
    result = venkatraman_test(y, [1, 2, 3, 4], [4, 3, 2, 1], y_true_b=y,
                              n_permutations=50, random_state=0)
    assert result.statistic == pytest.approx(0.5)
    y_b = np.array([1, 1, 1, 0, 0, 0])
    result = venkatraman_test(y, [1, 2, 3, 4], [1, 2, 3, 4, 5, 6], y_true_b=y_b,
                              n_permutations=50, random_state=0)
    assert result.statistic == pytest.approx(0.5)


def test_venkatraman_is_reproducible_and_seeded():
    case = PAIRED[0]
    one = venkatraman_test(case["y"], case["a"], case["b"], n_permutations=200, random_state=3)
    two = venkatraman_test(case["y"], case["a"], case["b"], n_permutations=200, random_state=3)
    other = venkatraman_test(case["y"], case["a"], case["b"], n_permutations=200,
                             random_state=4)
    np.testing.assert_array_equal(one.permuted, two.permuted)
    assert not np.array_equal(one.permuted, other.permuted)
    assert one.pvalue == (1 + np.sum(one.permuted >= one.statistic)) / 201


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(4, 40))
def test_identical_scores_give_zero_and_pvalue_one(seed, n):
    rng = np.random.default_rng(seed)
    y = np.r_[0, 1, rng.integers(0, 2, n - 2)]
    s = rng.normal(size=n).round(1)                 # ties too
    paired = venkatraman_test(y, s, s.copy(), n_permutations=30, random_state=seed)
    assert paired.statistic == 0 and paired.pvalue == 1.0
    unpaired = venkatraman_test(y, s, s.copy(), y_true_b=y, n_permutations=30,
                                random_state=seed)
    assert unpaired.statistic == pytest.approx(0, abs=1e-12) and unpaired.pvalue == 1.0


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2 ** 32 - 1))
def test_paired_statistic_is_symmetric_and_rank_invariant(seed):
    rng = np.random.default_rng(seed)
    y = np.r_[0, 1, rng.integers(0, 2, 30)]
    a, b = rng.normal(size=(2, 32))
    e = venkatraman_test(y, a, b, n_permutations=1, random_state=0).statistic
    assert venkatraman_test(y, b, a, n_permutations=1, random_state=0).statistic == e
    # a monotone map of a score keeps its ranks, hence E
    assert venkatraman_test(y, np.exp(a), 3 * b - 1, n_permutations=1,
                            random_state=0).statistic == e


def test_venkatraman_refuses_bad_input():
    y, s = [0, 1, 0, 1], [1.0, 2.0, 3.0, 4.0]
    with pytest.raises(ValueError, match="n_permutations"):
        venkatraman_test(y, s, s, n_permutations=0)
    with pytest.raises(ValueError, match="differ in length"):
        venkatraman_test(y, s, s[:3])
    with pytest.raises(ValueError, match="NaN"):
        venkatraman_test(y, s, [1.0, np.nan, 2.0, 3.0])
    with pytest.raises(ValueError):
        venkatraman_test([1, 1, 1, 1], s, s)            # one class only
    with pytest.raises(ValueError, match="partial AUC"):
        compare_rankers(y, s, s, method="venkatraman", metric="partial_auc")
    with pytest.raises(ValueError, match="groups"):
        compare_rankers(y, s, s, method="venkatraman", groups=[0, 0, 1, 1])


# -------------------------------------------------------------------------- power


@pytest.mark.parametrize("case", _REFERENCE["power_one"])
def test_one_curve_power_equals_proc(case):
    args, expected = _args(case["args"]), case["result"]
    result = power_roc_test(args.get("auc"), n_cases=args.get("ncases"),
                            n_controls=args.get("ncontrols"),
                            sig_level=args.get("sig.level", 0.05), power=args.get("power"),
                            kappa=args.get("kappa"), alternative=_alternative(args))
    got = {"ncases": result.n_cases, "ncontrols": result.n_controls, "auc": result.auc,
           "sig.level": result.sig_level, "power": result.power}
    for key, value in expected.items():
        if key == "auc" and result.solved == "auc":
            # pROC's uniroot stops at a tolerance of about 1e-4
            assert got[key] == pytest.approx(value, abs=1e-4)
        else:
            assert got[key] == pytest.approx(value, rel=1e-9, abs=1e-12), key
    if result.solved == "auc":
        again = power_roc_test(result.auc, n_cases=result.n_cases,
                               n_controls=result.n_controls, sig_level=result.sig_level,
                               alternative=result.alternative)
        assert again.power == pytest.approx(expected["power"], abs=1e-9)


def _binormal(params):
    out = {"a1": params["A1"], "b1": params["B1"], "a2": params["A2"], "b2": params["B2"],
           "rn": params["rn"], "ra": params["ra"], "delta": params["delta"]}
    if "FPR11" in params:
        # pROC's two bounds of the window, for curve 1 (= curve 2's here)
        assert (params["FPR11"], params["FPR12"]) == (params["FPR21"], params["FPR22"])
        out["fpr_range"] = tuple(sorted((params["FPR11"], params["FPR12"])))
    return out


def _assert_binormal_power_equals_proc(binormal, case):
    args, expected = _args(case["args"]), case["result"]
    result = power_roc_test(binormal=binormal, n_cases=args.get("ncases"),
                            sig_level=args.get("sig.level", 0.05), power=args.get("power"),
                            kappa=args.get("kappa"), alternative=_alternative(args))
    got = {"ncases": result.n_cases, "ncontrols": result.n_controls,
           "sig.level": result.sig_level, "power": result.power}
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, rel=1e-9, abs=1e-12), key


@pytest.mark.parametrize("case", _REFERENCE["power_params"])
def test_binormal_two_curves_power_equals_proc(case):
    _assert_binormal_power_equals_proc(_binormal(case["params"]), case)


def test_obuchowski_mcclish_example_2():
    # pROC's help page, from Obuchowski & McClish (1997), example 2: 107 cases
    params = dict(a1=2.6, b1=1, a2=1.9, b2=1, rn=0.6, ra=0.6, delta=0.037, fpr_range=(0, 0.2))
    assert power_roc_test(binormal=params, power=0.8).n_cases == pytest.approx(107.02375,
                                                                               abs=1e-5)


@pytest.mark.parametrize("i", range(len(_REFERENCE["power_paired"])))
def test_paired_curves_from_data_equal_proc(i):
    case = _REFERENCE["power_paired"][i]
    for call in case["calls"]:
        args, expected = _args(call["args"]), call["result"]
        kwargs = dict(y_true=case["y"], score_a=case["a"], score_b=case["b"],
                      sig_level=args.get("sig.level", 0.05), power=args.get("power"),
                      kappa=args.get("kappa"))
        if expected["sig.level"] > 1:
            # pROC returns a "level" above 1 when no level reaches the power: refused
            with pytest.raises(ValueError, match="no significance level"):
                power_roc_test(**kwargs)
            continue
        result = power_roc_test(**kwargs)
        got = {"ncases": result.n_cases, "ncontrols": result.n_controls,
               "sig.level": result.sig_level, "power": result.power}
        for key, value in expected.items():
            assert got[key] == pytest.approx(value, rel=1e-9, abs=1e-12), key


@pytest.mark.parametrize("i", range(len(_REFERENCE["power_paired_partial"])))
def test_paired_partial_auc_power_agrees_with_proc(i):
    """pROC's default for partial areas: bootstrap (co)variances, so the two agree
    within Monte Carlo error only. pROC draws var(A), var(B) and cov(A, B) from three
    separate sets of 4,000 resamples, pauc all three from one set of 2,000 paired
    resamples; each variance from B resamples is off by about sqrt(2 / B) (3 %), and
    var(A) + var(B) - 2 cov(A, B) of two rankers correlated 0.6 amplifies pROC's three
    independent errors. Measured over seeds: n_cases within 10 %, power within 0.06."""
    case = _REFERENCE["power_paired_partial"][i]
    for call in case["calls"]:
        args, expected = _args(call["args"]), call["result"]
        result = power_roc_test(y_true=case["y"], score_a=case["a"], score_b=case["b"],
                                metric="partial_auc", fpr_range=tuple(case["fpr_range"]),
                                normalize="none", power=args.get("power"), random_state=i)
        assert result.method == "bootstrap"
        if result.solved == "n_cases":
            assert result.n_cases == pytest.approx(expected["ncases"], rel=0.25)
        else:
            assert result.n_cases == expected["ncases"]
            assert result.power == pytest.approx(expected["power"], abs=0.1)


def _obuchowski_parts(case):
    """pauc's binormal fits, correlations and per-case (V0, VA) of a stored case."""
    y = np.asarray(case["y"], bool)
    a, b = np.asarray(case["a"], float), np.asarray(case["b"], float)
    fit_a, fit_b = binormal_fit(y, a), binormal_fit(y, b)
    rn = np.corrcoef(a[~y], b[~y])[0, 1]
    ra = np.corrcoef(a[y], b[y])[0, 1]
    return y, fit_a, fit_b, rn, ra


def _proc_variances(case, m):
    """pROC's var and cov, as the per-case (V0, VA) of the module's formulas."""
    return (m * (2 * case["var_a"] - 2 * case["cov"]),
            m * (case["var_a"] + case["var_b"] - 2 * case["cov"]))


@pytest.mark.parametrize("i", range(len(_REFERENCE["power_obuchowski"])))
def test_obuchowski_power_from_data_equals_proc(i):
    """method="obuchowski": pROC's binormal fit (its smooth's linear model), its
    var / cov (method = "obuchowski") and power.roc.test's results, to 1e-9."""
    case = _REFERENCE["power_obuchowski"][i]
    y, fit_a, fit_b, rn, ra = _obuchowski_parts(case)
    # pROC's model is qnorm(sp) ~ qnorm(se): a = intercept, b = -slope
    for fit, coef in ((fit_a, case["coef_a"]), (fit_b, case["coef_b"])):
        assert fit == pytest.approx((coef[0], -coef[1]), rel=1e-9, abs=1e-12)
    assert (rn, ra) == pytest.approx((case["rn"], case["ra"]), rel=1e-9, abs=1e-12)
    m, n = int(y.sum()), int((~y).sum())
    v0, va = binormal_difference_variances(*fit_a, *fit_b, rn, ra, n / m, (0.0, 1.0))
    assert (v0, va) == pytest.approx(_proc_variances(case, m), rel=1e-9)
    for call in case["calls"]:
        args, expected = _args(call["args"]), call["result"]
        kwargs = dict(y_true=case["y"], score_a=case["a"], score_b=case["b"],
                      method="obuchowski", sig_level=args.get("sig.level", 0.05),
                      power=args.get("power"), kappa=args.get("kappa"))
        if "kappa" in args and "power" not in args:
            # pROC ignores kappa unless it solves for the sample size; pauc refuses it
            assert expected["ncontrols"] == n
            with pytest.raises(ValueError, match="kappa is n_controls / n_cases"):
                power_roc_test(**kwargs)
            continue
        if expected["sig.level"] > 1:
            # pROC returns a "level" above 1 when no level reaches the power: refused
            with pytest.raises(ValueError, match="no significance level"):
                power_roc_test(**kwargs)
            continue
        result = power_roc_test(**kwargs)
        assert result.method == "obuchowski"
        got = {"ncases": result.n_cases, "ncontrols": result.n_controls,
               "sig.level": result.sig_level, "power": result.power}
        for key, value in expected.items():
            assert got[key] == pytest.approx(value, rel=1e-9, abs=1e-12), key


@pytest.mark.parametrize("i", range(len(_REFERENCE["obuchowski_partial"]) + 1))
def test_obuchowski_partial_auc_from_data_is_refused(i):
    """pROC's var(method = "obuchowski") of a partial AUC over specificity in [s1, s2]
    is the binormal variance over x in [s1, s2] of its fitted curve, whose x axis is
    1 - sensitivity (the coefficients are of qnorm(sp) on qnorm(se)): the area of
    another region. Pinned here to 1e-9 (the stored cases and pROC's help-page example
    on aSAH); pauc refuses the case."""
    if i < len(_REFERENCE["obuchowski_partial"]):
        case = _REFERENCE["obuchowski_partial"][i]
        y, fit_a, fit_b, rn, ra = _obuchowski_parts(case)
        assert fit_a == pytest.approx((case["coef_a"][0], -case["coef_a"][1]), rel=1e-9)
        m, n = int(y.sum()), int((~y).sum())
        high_fpr = 1 - min(case["specificity"])
        with pytest.raises(ValueError, match="method='obuchowski' is for metric='roc_auc'"):
            power_roc_test(y_true=case["y"], score_a=case["a"], score_b=case["b"],
                           method="obuchowski", metric="partial_auc",
                           fpr_range=(1 - max(case["specificity"]), high_fpr))
    else:
        help_case = _REFERENCE["power_help_aSAH"]
        case = help_case["obuchowski_partial"]
        fit_a = (case["coef_a"][0], -case["coef_a"][1])
        fit_b = (case["coef_b"][0], -case["coef_b"][1])
        rn, ra = case["rn"], case["ra"]
        m, n = help_case["ncases"], help_case["ncontrols"]
    window = tuple(sorted(case["specificity"]))
    v0, va = binormal_difference_variances(*fit_a, *fit_b, rn, ra, n / m, window)
    assert (v0, va) == pytest.approx(_proc_variances(case, m), rel=1e-9)
    # the region asked for, FPR in [1 - s2, 1 - s1], has another variance
    right = binormal_difference_variances(*fit_a, *fit_b, rn, ra, n / m,
                                          (1 - window[1], 1 - window[0]))
    assert abs(right[1] / va - 1) > 0.5


def _windows(params):
    out = {"a1": params["A1"], "b1": params["B1"], "a2": params["A2"], "b2": params["B2"],
           "rn": params["rn"], "ra": params["ra"], "delta": params["delta"],
           "fpr_range1": (params["FPR11"], params["FPR12"]),
           "fpr_range2": (params["FPR21"], params["FPR22"])}
    assert out["fpr_range1"] != out["fpr_range2"]
    return out


@pytest.mark.parametrize("case", _REFERENCE["power_params_windows"])
def test_binormal_power_with_a_window_per_curve_equals_proc(case):
    _assert_binormal_power_equals_proc(_windows(case["params"]), case)


def test_one_window_per_curve_is_not_one_window():
    shared = dict(a1=1.2, b1=0.9, a2=0.8, b2=1.1, rn=0.4, ra=0.5, delta=0.03)
    params = dict(shared, fpr_range1=(0.0, 0.2), fpr_range2=(0.1, 0.3))
    per_curve = power_roc_test(binormal=params, n_cases=100).power
    assert 0.05 < per_curve < 0.95
    for window in (params["fpr_range1"], params["fpr_range2"]):
        assert power_roc_test(binormal=dict(shared, fpr_range=window),
                              n_cases=100).power != pytest.approx(per_curve, rel=1e-6)
    # both windows equal: the one-window case
    same = dict(shared, fpr_range1=(0.0, 0.3), fpr_range2=(0.0, 0.3))
    assert power_roc_test(binormal=same, n_cases=100).power == \
        power_roc_test(binormal=dict(shared, fpr_range=(0.0, 0.3)), n_cases=100).power


_HELP = _REFERENCE["power_help_aSAH"]


@pytest.mark.parametrize("method", ["delong", "obuchowski"])
def test_help_page_two_curve_examples_equal_proc(method):
    """?power.roc.test's two-curve examples (ndka against wfns on aSAH, 41 cases and 72
    controls), in numeric form: DeLong from pROC's AUCs, variances and covariance;
    Obuchowski as binormal parameters (pROC's fits and the scores' correlations), which
    is what pROC's method = "obuchowski" computes from the data. To 1e-9."""
    case = _HELP[method]
    m, n = _HELP["ncases"], _HELP["ncontrols"]
    delta = case["auc_a"] - case["auc_b"]
    for call in case["calls"]:
        args, expected = _args(call["args"]), call["result"]
        sig_level, power = args.get("sig.level", 0.05), args.get("power")
        if method == "delong":
            v0, va = _proc_variances(case, m)
            solved, value = _solve(None if power is not None and sig_level is not None else m,
                                   delta, v0, va, sig_level, power, "two-sided")
            got = {"ncases": m, "ncontrols": n, "sig.level": sig_level, "power": power}
            got[{"n_cases": "ncases", "sig_level": "sig.level", "power": "power"}[solved]] \
                = value
            if solved == "n_cases":
                got["ncontrols"] = value * n / m
        else:
            params = dict(a1=case["coef_a"][0], b1=-case["coef_a"][1], a2=case["coef_b"][0],
                          b2=-case["coef_b"][1], rn=case["rn"], ra=case["ra"], delta=delta)
            solve_n = power is not None and sig_level is not None
            result = power_roc_test(binormal=params, n_cases=None if solve_n else m,
                                    kappa=n / m, sig_level=sig_level, power=power)
            got = {"ncases": result.n_cases, "ncontrols": result.n_controls,
                   "sig.level": result.sig_level, "power": result.power}
        for key, value in expected.items():
            assert got[key] == pytest.approx(value, rel=1e-9, abs=1e-12), key


def test_obuchowski_power_refuses_bad_input():
    case = _REFERENCE["power_obuchowski"][0]
    data = dict(y_true=case["y"], score_a=case["a"], score_b=case["b"], method="obuchowski")
    with pytest.raises(ValueError, match="for method='bootstrap'"):
        power_roc_test(**data, n_resamples=100)
    with pytest.raises(ValueError, match="fpr_range is for metric='partial_auc'"):
        power_roc_test(**data, fpr_range=(0, 0.2))
    with pytest.raises(ValueError, match="kappa is n_controls / n_cases"):
        power_roc_test(**data, kappa=2.0)
    # one ROC point strictly inside the unit square: no line to fit (pROC: "ROC curve
    # not smoothable (not enough points)")
    y = [0, 0, 0, 1, 1, 1, 0, 1, 1, 0, 1, 0]
    with pytest.raises(ValueError, match="1 such point"):
        power_roc_test(y_true=y, score_a=[1, 2, 2, 3, 3, 4, 1, 5, 2, 3, 4, 2],
                       score_b=np.arange(12.0), method="obuchowski")
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 20)
    a = rng.normal(size=40) + y
    b = np.where(y == 1, 1.0, rng.normal(size=40))        # constant among positives
    with pytest.raises(ValueError):
        power_roc_test(y_true=y, score_a=a, score_b=b, method="obuchowski")
    params = dict(a1=1, b1=1, a2=1, b2=1, rn=0, ra=0, delta=0.1)
    with pytest.raises(ValueError, match="not fpr_range and fpr_range1"):
        power_roc_test(binormal=dict(params, fpr_range=(0, .2), fpr_range1=(0, .2),
                                     fpr_range2=(0, .3)), power=0.8)
    with pytest.raises(ValueError, match="one for each"):
        power_roc_test(binormal=dict(params, fpr_range1=(0, .2)), power=0.8)
    with pytest.raises(ValueError, match="fpr_range2 must satisfy"):
        power_roc_test(binormal=dict(params, fpr_range1=(0, .2), fpr_range2=(.3, .1)),
                       power=0.8)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(10, 80))
def test_binormal_fit_is_the_least_squares_line_over_the_roc_points(seed, n):
    """Against a direct loop over thresholds and numpy's polyfit."""
    rng = np.random.default_rng(seed)
    y = np.r_[[0, 0, 1, 1], rng.integers(0, 2, n)].astype(bool)
    s = (rng.normal(size=y.size) + y).round(int(rng.integers(0, 3)))
    t = np.unique(s)
    se = np.array([(s[y] >= v).mean() for v in t])
    sp = np.array([(s[~y] < v).mean() for v in t])
    keep = (se > 0) & (se < 1) & (sp > 0) & (sp < 1)
    if np.unique(se[keep]).size < 2:
        return
    slope, intercept = np.polyfit(ndtri(se[keep]), ndtri(sp[keep]), 1)
    if abs(slope) < 1e-9:
        return                  # a flat line: its sign is rounding's (refused when >= 0)
    if slope > 0:
        with pytest.raises(ValueError, match="slope"):
            binormal_fit(y, s)
        return
    assert binormal_fit(y, s) == pytest.approx((intercept, -slope), rel=1e-9, abs=1e-12)


def test_power_of_the_partial_auc_does_not_depend_on_its_normalisation():
    # McClish's and the range normalisation are affine maps of the raw area: the
    # difference and its standard deviation scale alike
    case = _REFERENCE["power_paired_partial"][0]
    powers = [power_roc_test(y_true=case["y"], score_a=case["a"], score_b=case["b"],
                             metric="partial_auc", fpr_range=(0.0, 0.2), normalize=k,
                             random_state=5).power for k in ("none", "mcclish", "range")]
    assert powers == pytest.approx([powers[0]] * 3, rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(st.floats(0.55, 0.95), st.floats(0.2, 5.0), st.floats(5, 500), st.floats(0.01, 0.2))
def test_power_grows_with_the_sample_and_inverts_the_sample_size(auc, kappa, n, level):
    small = power_roc_test(auc, n_cases=n, n_controls=kappa * n, sig_level=level).power
    large = power_roc_test(auc, n_cases=2 * n, n_controls=2 * kappa * n, sig_level=level).power
    assert large >= small
    # the sample size for the power just computed is n again
    if 1e-6 < small < 1 - 1e-6:
        size = power_roc_test(auc, power=small, kappa=kappa, sig_level=level)
        assert size.n_cases == pytest.approx(n, rel=1e-6)
        assert size.n_controls == pytest.approx(kappa * n, rel=1e-6)


@settings(max_examples=30, deadline=None)
@given(st.floats(0.3, 2.5), st.floats(0.5, 1.5), st.floats(0.0, 0.8), st.floats(0.05, 0.5))
def test_binormal_power_grows_with_the_sample(a, b, rho, width):
    params = dict(a1=a + 0.3, b1=b, a2=a, b2=b, rn=rho, ra=rho, delta=0.05,
                  fpr_range=(0.0, width))
    powers = [power_roc_test(binormal=params, n_cases=n).power for n in (50, 100, 400)]
    assert powers[0] <= powers[1] <= powers[2]


def test_power_refuses_bad_input():
    with pytest.raises(ValueError, match="exactly one"):
        power_roc_test(0.7, n_cases=10, n_controls=10, power=0.8)   # nothing to solve
    with pytest.raises(ValueError, match="exactly one"):
        power_roc_test(None, sig_level=None, power=0.8)
    with pytest.raises(ValueError, match="both n_cases and n_controls"):
        power_roc_test(0.7, n_cases=10)
    with pytest.raises(ValueError, match=r"auc must be in \(0.5, 1\)"):
        power_roc_test(0.4, n_cases=10, n_controls=10)
    with pytest.raises(ValueError, match="sig_level"):
        power_roc_test(0.7, n_cases=10, n_controls=10, sig_level=1.5)
    with pytest.raises(ValueError, match="alternative"):
        power_roc_test(0.7, n_cases=10, n_controls=10, alternative="less")
    with pytest.raises(ValueError, match="binormal needs"):
        power_roc_test(binormal={"a1": 1}, power=0.8)
    with pytest.raises(ValueError, match="correlation"):
        power_roc_test(binormal=dict(a1=1, b1=1, a2=1, b2=1, rn=1.5, ra=0, delta=0.1),
                       power=0.8)
    with pytest.raises(ValueError, match="fpr_range"):
        power_roc_test(binormal=dict(a1=1, b1=1, a2=1, b2=1, rn=0, ra=0, delta=0.1,
                                     fpr_range=(0.3, 0.1)), power=0.8)
    with pytest.raises(ValueError, match="not both"):
        power_roc_test(binormal=dict(a1=1, b1=1, a2=1, b2=1, rn=0, ra=0, delta=0.1),
                       y_true=[0, 1], score_a=[0, 1], score_b=[1, 0])
    with pytest.raises(ValueError, match=r"same \(partial\) AUC"):
        power_roc_test(y_true=[0, 1, 0, 1], score_a=[1, 2, 3, 4], score_b=[1, 2, 3, 4])


# --------------------------------------------------------------------- multi-class


@pytest.mark.parametrize("case", _REFERENCE["multiclass_univariate"])
def test_univariate_multiclass_equals_proc(case):
    auc, pairs = multiclass_roc_auc(case["y"], case["score"], return_pairs=True)
    assert auc == pytest.approx(case["auc"], abs=1e-12)
    # pROC's rocs come in the order of combn(levels, 2), as pauc's pairs
    assert list(pairs.values()) == pytest.approx(case["pair_aucs"], abs=1e-12)


@pytest.mark.parametrize("case", _REFERENCE["multiclass_multivariate"])
def test_multivariate_multiclass_equals_proc(case):
    assert multiclass_roc_auc(case["y"], np.asarray(case["score"])) == \
        pytest.approx(case["auc"], abs=1e-12)


@pytest.mark.parametrize("case", _REFERENCE["multiclass_directions"])
def test_multivariate_direction_equals_proc(case):
    """A score matrix: pROC's default direction ">" (and pauc's "auto") and "<"
    (1 - M), on ?multiclass.roc's artificial example and random matrices whose columns
    score their class lower or higher; to 1e-12. pROC refuses "auto" by name."""
    y, score = case["y"], np.asarray(case["score"])
    assert multiclass_roc_auc(y, score) == pytest.approx(case["default"], abs=1e-12)
    assert multiclass_roc_auc(y, score, direction=">") == \
        pytest.approx(case["greater"], abs=1e-12)
    auc, pairs = multiclass_roc_auc(y, score, direction="<", return_pairs=True)
    assert auc == pytest.approx(case["less"], abs=1e-12)
    _, forward = multiclass_roc_auc(y, score, return_pairs=True)
    assert list(pairs.values()) == pytest.approx([1 - v for v in forward.values()],
                                                 abs=1e-15)
    assert "not available for multivariate" in case["auto"]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(4, 60))
def test_two_classes_give_the_auc(seed, n):
    rng = np.random.default_rng(seed)
    y = np.r_[0, 1, rng.integers(0, 2, n - 2)]
    p = rng.random(n).round(2)
    assert multiclass_roc_auc(y, np.c_[1 - p, p]) == pytest.approx(roc_auc(y, p), abs=1e-12)
    assert multiclass_roc_auc(y, p, direction="<") == pytest.approx(roc_auc(y, p), abs=1e-12)
    assert multiclass_roc_auc(y, p, direction=">") == \
        pytest.approx(1 - roc_auc(y, p), abs=1e-12)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2 ** 32 - 1))
def test_multiclass_matches_sklearn_ovo_on_probabilities(seed):
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(seed)
    y = np.r_[0, 1, 2, 3, rng.integers(0, 4, 40)]
    logits = rng.normal(size=(44, 4))
    proba = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    assert multiclass_roc_auc(y, proba) == \
        pytest.approx(roc_auc_score(y, proba, multi_class="ovo"), abs=1e-12)


def test_multiclass_labels_order_and_subset():
    y = np.array(["b", "a", "c", "a", "b", "c", "a"])
    score = np.array([[.1, .7, .2], [.8, .1, .1], [.2, .2, .6], [.5, .3, .2],
                      [.3, .4, .3], [.1, .3, .6], [.6, .2, .2]])
    auc = multiclass_roc_auc(y, score)
    # the columns follow labels: reordering both gives the same value
    assert multiclass_roc_auc(y, score[:, [2, 0, 1]], labels=["c", "a", "b"]) == \
        pytest.approx(auc)
    # a subset of the classes leaves the other rows out (the column of "a" and "b")
    keep = y != "c"
    assert multiclass_roc_auc(y, score[:, :2], labels=["a", "b"]) == \
        pytest.approx(multiclass_roc_auc(y[keep], score[keep, :2]))


def test_multiclass_refuses_bad_input():
    y = np.array([0, 1, 2, 0, 1, 2])
    with pytest.raises(ValueError, match="columns"):
        multiclass_roc_auc(y, np.ones((6, 2)))
    with pytest.raises(ValueError, match="at least 2 classes"):
        multiclass_roc_auc(np.zeros(4), np.arange(4.0))
    with pytest.raises(ValueError, match="no row"):
        multiclass_roc_auc(y, np.arange(6.0), labels=[0, 1, 5])
    with pytest.raises(ValueError, match="direction"):
        multiclass_roc_auc(y, np.arange(6.0), direction="up")
    with pytest.raises(ValueError, match="differ in length"):
        multiclass_roc_auc(y, np.arange(5.0))
    with pytest.raises(ValueError):
        multiclass_roc_auc(y, np.array([0, 1, np.nan, 3, 4, 5.0]))


@pytest.mark.parametrize("kwargs", [{"normalize": "mcclish"}, {"n_resamples": 500},
                                    {"random_state": 0}, {"pos_label": 1}])
def test_power_refuses_data_parameters_without_data(kwargs):
    """normalize, n_resamples, random_state and pos_label act only on two curves from
    data: elsewhere they were accepted and ignored."""
    with pytest.raises(ValueError, match="are for two curves from data"):
        power_roc_test(0.73, n_cases=41, n_controls=72, **kwargs)


def test_power_of_one_curve_refuses_kappa_beside_both_counts():
    """kappa was silently replaced by n_controls / n_cases."""
    with pytest.raises(ValueError, match="kappa is n_controls / n_cases"):
        power_roc_test(0.73, n_cases=41, n_controls=72, kappa=2.0)
