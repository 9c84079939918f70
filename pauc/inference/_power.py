"""Power and sample size of tests on the AUC and the partial AUC (pROC's ``power.roc.test``).

Every case solves one equation of the normal test's power,

    sqrt(n_cases) |Δ| = z_α sqrt(V0) + z_β sqrt(VA),

for whichever of ``n_cases``, ``sig_level`` (through ``z_α``, ``1 - α/2``
quantile two-sided, ``1 - α`` one-sided), ``power`` (``z_β``, its quantile) or
the AUC is left None. ``V0`` and ``VA`` are the variances of the estimate per
case under the null and the alternative hypotheses.

* One ROC curve (Obuchowski, Lieber & Wians 2004, eqs. 2-3): the AUC ``θ``
  against 0.5 with the binormal variance of Hanley & McNeil's approximation,
  ``V(θ) = 0.0099 exp(-A²/2) ((5A² + 8) + (A² + 8)/κ)``, ``A = 1.414 Φ⁻¹(θ)``,
  ``κ = n_controls / n_cases``; ``V0 = V(0.5)``, ``VA = V(θ)``.
* Two paired ROC curves given by binormal parameters (Obuchowski & McClish
  1997): curve ``k`` is ``TPR = Φ(a_k + b_k Φ⁻¹(FPR))``; its AUC or partial AUC
  over an FPR window is a function of ``(a_k, b_k)`` whose derivatives ``f_k =
  ∂θ/∂a``, ``g_k = ∂θ/∂b`` have closed forms (McClish 1989), and the variance of
  the difference is the delta method over the large-sample (co)variances of
  ``â_k, b̂_k``, with ``rn`` and ``ra`` the correlations of the two tests' scores
  among negatives and positives and ``R = κ`` the ratio of negatives to
  positives::

      n V(â_k) = 1 + b_k² / R + a_k² / 2        n V(b̂_k) = b_k² (1 + R) / (2 R)
      n C(â_1, â_2) = ra + rn b_1 b_2 / R + ra² a_1 a_2 / 2
      n C(b̂_1, b̂_2) = b_1 b_2 (rn² / R + ra²) / 2
      n C(â_1, b̂_2) = ra² a_1 b_2 / 2           n C(â_2, b̂_1) = ra² a_2 b_1 / 2

  ``VA = V_1 + V_2 - 2 C_12``; under the null hypothesis the second curve is
  the first (the reference): ``V0 = 2 V_1 - 2 C_12``. ``Δ`` is the difference of
  (partial) AUCs to detect, given apart from the curves, as pROC takes it.
  pROC takes ``â`` and ``b̂`` of one curve as uncorrelated; so does this module,
  to give pROC's numbers.
* Two paired ROC curves from data: ``Δ`` is the observed difference of AUCs,
  ``VA = n_cases (var_1 + var_2 - 2 cov)`` and ``V0 = n_cases (2 var_1 - 2 cov)``
  from DeLong's (co)variances, the first curve the reference; ``n_controls``
  follows ``n_cases`` through ``κ`` (the data's ratio unless given). For the
  partial AUC (``metric="partial_auc"``) the (co)variances are the paired
  stratified bootstrap's, as pROC's default for partial areas (random: pROC's
  and pauc's agree within Monte Carlo error).
* Two paired ROC curves from data with ``method="obuchowski"`` (pROC's
  ``method = "obuchowski"``, the full AUC only): the variances of the binormal
  case above, with each curve's ``(a_k, b_k)`` fitted to the data as pROC
  fits them (its binormal ``smooth``): the least-squares line of
  ``Φ⁻¹(specificity)`` on ``Φ⁻¹(sensitivity)`` over the empirical ROC points
  strictly inside the unit square, ``a`` its intercept and ``b`` minus its
  slope. These are the binormal parameters of the curve with its axes exchanged
  (specificity against 1 - sensitivity), which has the same AUC; pROC puts them
  into Obuchowski & McClish's formulas as they are, and so does this module.
  ``rn`` and ``ra`` are Pearson's correlations of the two scores among the
  negatives and among the positives, ``R`` the data's ratio of negatives to
  positives (``kappa`` changes only ``n_controls``, as in pROC), ``Δ`` the
  observed difference of AUCs. pROC also returns numbers for a partial AUC by
  this method, but they are the binormal area of another region: it integrates
  the exchanged-axes curve over its x axis (1 - sensitivity) between the
  specificity bounds, so a window of high specificity becomes one of low
  sensitivity (on pROC's own help-page example, 1.8 cases for a power of 0.9).
  This module refuses the partial AUC by this method; give the binormal
  parameters and the window (``binormal=``) instead.
* With binormal parameters each curve can have its own FPR window
  (``fpr_range1``, ``fpr_range2``; pROC's ``FPR11``-``FPR12`` and
  ``FPR21``-``FPR22``): ``f_k, g_k`` are taken over curve ``k``'s window and
  ``Δ`` is the difference of the two partial areas.

All results equal pROC 1.18's ``power.roc.test`` (tests/inference/test_inference_proc_47.py). A
sample size is returned unrounded, as pROC does: round it up for a design.
"""

import math
import numbers
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq
from scipy.special import ndtr, ndtri

from .. import _ranking
from ._clusters import bootstrap_of
from ._intervals import _check_common, _comparison_scale, _comparison_settings
from ._obuchowski import auc_covariance
from .._validation import check_binary_scores

_ALTERNATIVES = ("two-sided", "one-sided")
_BINORMAL_KEYS = {"a1", "b1", "a2", "b2", "rn", "ra", "delta"}
_WINDOW_KEYS = {"fpr_range", "fpr_range1", "fpr_range2"}


@dataclass(frozen=True)
class RocPower:
    """Result of :func:`power_roc_test`: the given values and the solved one.

    Attributes
    ----------
    n_cases, n_controls : float
        Positives and negatives (unrounded when solved for).
    sig_level, power : float
    auc : float or None
        One ROC curve: the AUC tested against 0.5.
    delta : float or None
        Two ROC curves: the difference of (partial) AUCs.
    alternative : str
    method : str
        ``"one curve"``, ``"binormal"``, ``"delong"``, ``"bootstrap"`` or
        ``"obuchowski"``.
    solved : str
        Which of ``"n_cases"``, ``"sig_level"``, ``"power"``, ``"auc"`` was computed.
    """

    n_cases: float
    n_controls: float
    sig_level: float
    power: float
    auc: float
    delta: float
    alternative: str
    method: str
    solved: str


def _z_alpha(sig_level, alternative):
    return float(ndtri(1.0 - sig_level / 2.0 if alternative == "two-sided" else 1.0 - sig_level))


def _sig_level(z_alpha, alternative):
    # ndtr(-z), not 1 - ndtr(z): small levels keep their digits
    tail = float(ndtr(-z_alpha))
    return 2.0 * tail if alternative == "two-sided" else tail


def _check_probability(value, name):
    if value is None:
        return None
    if not isinstance(value, numbers.Real) or isinstance(value, bool) \
            or not 0.0 < value < 1.0:
        raise ValueError(f"{name} must be a number in (0, 1) or None, got {value!r}")
    return float(value)


def _check_count(value, name):
    if value is None:
        return None
    if not isinstance(value, numbers.Real) or isinstance(value, bool) \
            or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive number or None, got {value!r}")
    return float(value)


def _solve(n_cases, delta, v0, va, sig_level, power, alternative):
    """The one unknown among ``n_cases``, ``sig_level``, ``power`` (None) of
    ``sqrt(n) |delta| = z_α sqrt(V0) + z_β sqrt(VA)``."""
    delta = abs(delta)
    if n_cases is None:
        z = _z_alpha(sig_level, alternative) * math.sqrt(v0) + float(ndtri(power)) * math.sqrt(va)
        return "n_cases", z * z / (delta * delta)
    if power is None:
        z_beta = (math.sqrt(n_cases) * delta - _z_alpha(sig_level, alternative) * math.sqrt(v0)) \
            / math.sqrt(va)
        return "power", float(ndtr(z_beta))
    z_alpha = (math.sqrt(n_cases) * delta - float(ndtri(power)) * math.sqrt(va)) / math.sqrt(v0)
    level = _sig_level(z_alpha, alternative)
    if level >= 1.0:
        # pROC returns this number (above 1); no test has such a level
        raise ValueError(f"no significance level gives power {power} with {n_cases:g} cases "
                         f"and a difference of {delta:g}: the level would be {level:.4g} > 1")
    return "sig_level", level


def _one_curve_variance(auc, kappa):
    """Obuchowski et al. (2004) eq. 3: the per-case variance of the AUC estimate."""
    a = 1.414 * float(ndtri(auc))
    return 0.0099 * math.exp(-a * a / 2.0) * ((5.0 * a * a + 8.0) + (a * a + 8.0) / kappa)


def _one_curve(auc, n_cases, n_controls, sig_level, power, kappa, alternative):
    if auc is not None and not 0.5 < auc < 1.0:
        raise ValueError(f"auc must be in (0.5, 1) (tested against 0.5), got {auc!r}")
    if (n_cases is None) != (n_controls is None):
        raise ValueError("give both n_cases and n_controls, or neither (to solve for them, "
                         "n_controls = kappa * n_cases)")
    unknown = [name for name, v in (("auc", auc), ("sig_level", sig_level), ("power", power),
                                    ("n_cases", n_cases)) if v is None]
    if len(unknown) != 1:
        raise ValueError("leave exactly one of auc, sig_level, power or (n_cases, n_controls) "
                         f"None to solve for it; None now: {unknown or 'nothing'}")
    if n_cases is not None:
        if kappa is not None:
            raise ValueError("kappa is n_controls / n_cases: with both counts given, leave "
                             "kappa None")
        kappa = n_controls / n_cases
    elif kappa is None:
        kappa = 1.0
    v0 = _one_curve_variance(0.5, kappa)
    if auc is None:
        z_alpha, z_beta = _z_alpha(sig_level, alternative), float(ndtri(power))

        def gap(theta):
            return math.sqrt(n_cases) * (theta - 0.5) - z_alpha * math.sqrt(v0) \
                - z_beta * math.sqrt(_one_curve_variance(theta, kappa))

        high = 1.0 - 1e-12
        if gap(high) < 0:
            raise ValueError(f"no AUC below 1 reaches power {power} at level {sig_level} "
                             f"with {n_cases:g} cases")
        auc = brentq(gap, 0.5, high, xtol=1e-14, rtol=4 * np.finfo(float).eps)
        solved, value = "auc", auc
    else:
        solved, value = _solve(n_cases, auc - 0.5, v0, _one_curve_variance(auc, kappa),
                               sig_level, power, alternative)
    return _result(solved, value, n_cases, kappa, sig_level, power, alternative, "one curve",
                   auc=auc)


def _result(solved, value, n_cases, kappa, sig_level, power, alternative, method, auc=None,
            delta=None):
    if solved == "n_cases":
        n_cases = value
    elif solved == "power":
        power = value
    elif solved == "sig_level":
        sig_level = value
    return RocPower(float(n_cases), float(kappa * n_cases), float(sig_level), float(power),
                    None if auc is None else float(auc), None if delta is None else float(delta),
                    alternative, method, solved)


def binormal_derivatives(a, b, fpr_lo, fpr_hi):
    """``(∂θ/∂a, ∂θ/∂b)`` of the binormal area ``θ = ∫ Φ(a + b Φ⁻¹(x)) dx`` over
    ``x`` in [fpr_lo, fpr_hi] (McClish 1989; the full AUC over [0, 1])."""
    s2 = 1.0 + b * b
    s = math.sqrt(s2)
    shift = a * b / s2
    # h = s (Φ⁻¹(x) + shift) at the window's ends; ±inf at 0 and 1
    h = [s * (float(ndtri(x)) + shift) if 0.0 < x < 1.0 else (-math.inf if x <= 0 else math.inf)
         for x in (fpr_lo, fpr_hi)]
    mass = float(ndtr(h[1]) - ndtr(h[0]))
    scale = math.exp(-a * a / (2.0 * s2))
    density = [0.0 if math.isinf(v) else math.exp(-v * v / 2.0) for v in h]
    f = scale / math.sqrt(2.0 * math.pi * s2) * mass
    g = scale / (2.0 * math.pi * s2) * (density[0] - density[1]) \
        - a * b * scale / (math.sqrt(2.0 * math.pi) * s ** 3) * mass
    return f, g


def binormal_difference_variances(a1, b1, a2, b2, rn, ra, ratio, window, window2=None):
    """Per-case variances ``(V0, VA)`` of the difference of two binormal (partial) AUCs
    (module docstring; Obuchowski & McClish 1997, Table 1 and eqs. 4-5); curve 2 over
    ``window2`` if given, else over ``window``."""
    f1, g1 = binormal_derivatives(a1, b1, *window)
    f2, g2 = binormal_derivatives(a2, b2, *(window if window2 is None else window2))

    def own(a, b, f, g):
        return f * f * (1.0 + b * b / ratio + a * a / 2.0) + g * g * b * b * (1.0 + ratio) \
            / (2.0 * ratio)

    cross = f1 * f2 * (ra + rn * b1 * b2 / ratio + ra * ra * a1 * a2 / 2.0) \
        + g1 * g2 * b1 * b2 * (rn * rn / ratio + ra * ra) / 2.0 \
        + f1 * g2 * ra * ra * a1 * b2 / 2.0 + g1 * f2 * ra * ra * a2 * b1 / 2.0
    v1 = own(a1, b1, f1, g1)
    return 2.0 * v1 - 2.0 * cross, v1 + own(a2, b2, f2, g2) - 2.0 * cross


def _check_binormal(binormal):
    if not isinstance(binormal, dict):
        raise ValueError("binormal must be a dict with keys a1, b1, a2, b2, rn, ra, delta "
                         f"and optionally fpr_range; got {type(binormal).__name__}")
    keys = set(binormal)
    if not _BINORMAL_KEYS <= keys or keys - _BINORMAL_KEYS - _WINDOW_KEYS:
        raise ValueError(f"binormal needs the keys {sorted(_BINORMAL_KEYS)} (and optionally "
                         f"fpr_range, or fpr_range1 and fpr_range2), got {sorted(keys)}")
    values = {}
    for key in _BINORMAL_KEYS:
        v = binormal[key]
        if not isinstance(v, numbers.Real) or isinstance(v, bool) or not math.isfinite(v):
            raise ValueError(f"binormal[{key!r}] must be a finite number, got {v!r}")
        values[key] = float(v)
    for key in ("b1", "b2"):
        if values[key] <= 0:
            raise ValueError(f"binormal[{key!r}] (a ratio of standard deviations) must be > 0")
    for key in ("rn", "ra"):
        if not -1.0 < values[key] < 1.0:
            raise ValueError(f"binormal[{key!r}] (a correlation) must be in (-1, 1)")
    if values["delta"] == 0:
        raise ValueError("binormal['delta'] (the difference to detect) must not be 0")
    per_curve = {"fpr_range1", "fpr_range2"} & keys
    if per_curve:
        if "fpr_range" in keys or len(per_curve) == 1:
            raise ValueError("give one window for both curves (fpr_range) or one for each "
                             "(fpr_range1 and fpr_range2), not "
                             + " and ".join(sorted(_WINDOW_KEYS & keys)))
        return values, (_check_window(binormal["fpr_range1"], "fpr_range1"),
                        _check_window(binormal["fpr_range2"], "fpr_range2"))
    window = _check_window(binormal.get("fpr_range", (0.0, 1.0)), "fpr_range")
    return values, (window, window)


def _check_window(window, name):
    try:
        lo, hi = (float(x) for x in window)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a pair (low, high), got {window!r}") from None
    if not 0.0 <= lo < hi <= 1.0:
        raise ValueError(f"{name} must satisfy 0 <= low < high <= 1, got {window!r}")
    return lo, hi


def power_roc_test(auc=None, *, n_cases=None, n_controls=None, sig_level=0.05, power=None,
                   kappa=None, alternative="two-sided", binormal=None, y_true=None,
                   score_a=None, score_b=None, metric="roc_auc", fpr_range=None,
                   normalize="none", method=None, n_resamples=2000, random_state=None,
                   pos_label=None):
    """Power, sample size or significance level of a test on the (partial) AUC.

    pROC's ``power.roc.test`` [1]_: exactly one of the quantities is left None
    and computed from the others. Three designs:

    * one ROC curve, its AUC against 0.5: ``power_roc_test(auc, n_cases=...,
      n_controls=..., ...)``, Obuchowski et al.'s formulas [2]_; ``auc=None``
      solves for the smallest detectable AUC;
    * two paired ROC curves by their binormal parameters, for the AUC or a
      partial AUC: ``power_roc_test(binormal={...}, ...)``, Obuchowski &
      McClish's variances [3]_;
    * two paired ROC curves from data: ``power_roc_test(y_true=y,
      score_a=a, score_b=b, ...)``, DeLong's covariance [4]_ and the observed
      difference of AUCs, or with ``metric="partial_auc"`` the bootstrap's
      covariance and difference of partial AUCs, or with
      ``method="obuchowski"`` Obuchowski & McClish's binormal variances [3]_
      of binormal curves fitted to the data as pROC fits them; ``n_cases``
      defaults to the data's positives.

    The formulas are in :mod:`pauc.inference._power`.

    Parameters
    ----------
    auc : float in (0.5, 1), default=None
        One ROC curve: the expected AUC (None: solve for it).
    n_cases, n_controls : float, default=None
        Positives and negatives. One curve: both or neither (neither: solve for
        them). Two curves: ``n_cases`` (None: solve for it, or with data the
        data's positives); ``n_controls`` is always ``kappa * n_cases``.
    sig_level : float in (0, 1) or None, default=0.05
        The test's level (None: solve for it).
    power : float in (0, 1) or None, default=None
        None: compute the power.
    kappa : float, default=None
        ``n_controls / n_cases`` when solving for the sample size. None: 1, or
        with data the data's ratio.
    alternative : {"two-sided", "one-sided"}, default="two-sided"
    binormal : dict, default=None
        Two curves by parameters: ``a1, b1, a2, b2`` (``TPR = Φ(a + b
        Φ⁻¹(FPR))``), ``rn`` and ``ra`` (the correlations of the two tests'
        scores among negatives and among positives), ``delta`` (the difference
        of (partial) AUCs to detect) and optionally ``fpr_range=(low, high)``
        for the partial AUC over that FPR window for both curves, or
        ``fpr_range1`` and ``fpr_range2``, one window for each curve (pROC's
        ``FPR11``-``FPR12`` and ``FPR21``-``FPR22``).
    y_true, score_a, score_b : arrays of shape (n_samples,), default=None
        Two curves from data (paired: the same rows); ``score_a`` is the
        reference curve of the null hypothesis.
    metric, fpr_range, normalize, method : default "roc_auc", None, "none", None
        Two curves from data: the compared metric, as in
        :func:`pauc.metrics.compare_rankers` (``method`` "delong", the AUC's
        default, "bootstrap", the partial AUC's, or "obuchowski", binormal,
        for the AUC only: see :mod:`pauc.inference._power`). pROC's ``partial.auc = c(1,
        1 - β)`` is ``fpr_range=(0, β)`` with ``normalize="none"``, and with
        ``partial.auc.correct = TRUE`` ``normalize="mcclish"``.
    n_resamples, random_state
        The bootstrap's (``method="bootstrap"``).
    pos_label : label, default=None

    Returns
    -------
    RocPower

    References
    ----------
    .. [1] Robin, X., Turck, N., Hainard, A., Tiberti, N., Lisacek, F., Sanchez,
       J.-C. and Müller, M. "pROC: an open-source package for R and S+ to analyze
       and compare ROC curves." BMC Bioinformatics 12:77, 2011.
    .. [2] Obuchowski, N. A., Lieber, M. L. and Wians, F. H. "ROC Curves in
       Clinical Chemistry: Uses, Misuses, and Possible Solutions." Clinical
       Chemistry 50(7), 1118-1125, 2004.
    .. [3] Obuchowski, N. A. and McClish, D. K. "Sample size determination for
       diagnostic accuracy studies involving binormal ROC curve indices."
       Statistics in Medicine 16(13), 1529-1542, 1997.
    .. [4] DeLong, E. R., DeLong, D. M. and Clarke-Pearson, D. L. "Comparing the
       Areas under Two or More Correlated Receiver Operating Characteristic
       Curves: A Nonparametric Approach." Biometrics 44(3), 837-845, 1988.

    Examples
    --------
    The examples of pROC's help page:

    >>> from pauc.metrics import power_roc_test
    >>> round(power_roc_test(0.73, n_cases=41, n_controls=72).power, 4)
    0.9897
    >>> round(power_roc_test(0.73, power=0.95, kappa=1.7).n_cases, 2)
    29.67
    >>> params = dict(a1=2.6, b1=1, a2=1.9, b2=1, rn=0.6, ra=0.6, delta=0.037,
    ...               fpr_range=(0, 0.2))
    >>> round(power_roc_test(binormal=params, power=0.8).n_cases, 1)
    107.0
    """
    if alternative not in _ALTERNATIVES:
        raise ValueError(f"alternative must be one of {_ALTERNATIVES}, got {alternative!r}")
    sig_level = _check_probability(sig_level, "sig_level")
    power = _check_probability(power, "power")
    n_cases = _check_count(n_cases, "n_cases")
    n_controls = _check_count(n_controls, "n_controls")
    kappa = _check_count(kappa, "kappa")
    data = y_true is not None or score_a is not None or score_b is not None
    if data and binormal is not None:
        raise ValueError("give binormal parameters or data (y_true, score_a, score_b), not both")
    if (data or binormal is not None) and auc is not None:
        raise ValueError("auc is for one ROC curve; two curves take binormal['delta'] or data")
    if not data and (metric != "roc_auc" or fpr_range is not None or method is not None
                     or normalize != "none" or n_resamples != 2000
                     or random_state is not None or pos_label is not None):
        raise ValueError("metric, fpr_range, normalize, method, n_resamples, random_state and "
                         "pos_label are for two curves from data; binormal parameters take "
                         "binormal['fpr_range']")
    if not data and binormal is None:
        return _one_curve(auc, n_cases, n_controls, sig_level, power, kappa, alternative)
    if n_controls is not None:
        raise ValueError("two ROC curves: n_controls is kappa * n_cases; give kappa")
    if data:
        if y_true is None or score_a is None or score_b is None:
            raise ValueError("two curves from data need y_true, score_a and score_b")
        if method == "obuchowski":
            if metric != "roc_auc":
                raise ValueError(
                    "method='obuchowski' is for metric='roc_auc': pROC's binormal variance of "
                    "a partial AUC from data is that of another region of its fitted curve "
                    "(see pauc.inference._power); for a partial AUC give binormal parameters with "
                    "binormal['fpr_range'], or use method='bootstrap'")
            _comparison_settings(metric, "delong", fpr_range, normalize)
            if n_resamples != 2000 or random_state is not None:
                raise ValueError("n_resamples and random_state are for method='bootstrap'")
            delta, v0, va, data_cases, data_ratio = _obuchowski_from_data(
                y_true, score_a, score_b, pos_label)
        else:
            method, alpha, beta = _comparison_settings(metric, method, fpr_range, normalize)
            if method == "venkatraman":
                raise ValueError("method must be 'delong', 'bootstrap' or 'obuchowski': the "
                                 "power is of a test on the (partial) AUC")
            _, n_resamples = _check_common(0.95, n_resamples)
            delta, v0, va, data_cases, data_ratio = _from_data(
                y_true, score_a, score_b, pos_label, method,
                _comparison_scale(metric, alpha, beta, normalize), alpha, beta, n_resamples,
                random_state)
        if n_cases is None and (power is None or sig_level is None):
            n_cases = data_cases            # pROC: the data's cases unless solving for them
            if kappa is not None:
                # pROC ignores it here (its n_controls stays the data's)
                raise ValueError("kappa is n_controls / n_cases when solving for the sample "
                                 "size (power and sig_level given); here the data's counts "
                                 "are used: leave kappa None")
        ratio = data_ratio if kappa is None else kappa
    else:
        values, window = _check_binormal(binormal)
        ratio = 1.0 if kappa is None else kappa
        delta = values["delta"]
        v0, va = binormal_difference_variances(values["a1"], values["b1"], values["a2"],
                                               values["b2"], values["rn"], values["ra"],
                                               ratio, *window)
        method = "binormal"
    unknown = [name for name, v in (("sig_level", sig_level), ("power", power),
                                    ("n_cases", n_cases)) if v is None]
    if len(unknown) != 1:
        raise ValueError("leave exactly one of sig_level, power or n_cases None to solve for "
                         f"it; None now: {unknown or 'nothing'}")
    solved, value = _solve(n_cases, delta, v0, va, sig_level, power, alternative)
    return _result(solved, value, n_cases, ratio, sig_level, power, alternative, method,
                   delta=delta)


def _from_data(y_true, score_a, score_b, pos_label, method, scale, alpha, beta, n_resamples,
               random_state):
    """``(Δ, V0, VA)`` per case of two paired curves (DeLong's covariance, or the paired
    stratified bootstrap's of the scaled areas over FPR [alpha, beta]), and the data's
    cases and controls-per-case."""
    is_pos, a, _, _ = check_binary_scores(y_true, score_a, pos_label=pos_label, exact_ranks=True)
    _, b, _, _ = check_binary_scores(y_true, score_b, pos_label=pos_label, exact_ranks=True)
    if method == "delong":
        (auc_a, auc_b), cov = auc_covariance(is_pos, [a, b])
    else:
        boot = bootstrap_of(is_pos, [a, b], beta)
        auc_a, auc_b = scale(boot.observed(alpha, beta, 0.0))
        areas = scale(boot.resample(n_resamples, random_state, alpha, beta, 0.0))
        cov = np.cov(areas, rowvar=False)
    m = int(is_pos.sum())
    n = is_pos.shape[0] - m
    delta = float(auc_a - auc_b)
    if delta == 0:
        raise ValueError("the two curves have the same (partial) AUC: no difference to "
                         "power a test for")
    v0 = m * (2.0 * cov[0, 0] - 2.0 * cov[0, 1])
    va = m * (cov[0, 0] + cov[1, 1] - 2.0 * cov[0, 1])
    return delta, v0, va, float(m), n / m


def binormal_fit(is_pos, score):
    """pROC's binormal parameters ``(a, b)`` of one empirical ROC curve: the
    least-squares line ``Φ⁻¹(sp) = a - b Φ⁻¹(se)`` over the curve's points (one per
    distinct score as threshold, a row positive when its score is at least the
    threshold) with sensitivity and specificity strictly between 0 and 1. O(n log n)."""
    pos, neg = _ranking.split_by_label(score, is_pos)
    pos.sort()
    neg.sort()
    fps, tps, _ = _ranking.roc_knots(pos, neg)      # one knot per distinct score
    se, sp = tps / tps[-1], 1.0 - fps / fps[-1]
    inside = (se > 0) & (se < 1) & (sp > 0) & (sp < 1)
    if np.count_nonzero(inside) < 2:
        raise ValueError("method='obuchowski' fits a binormal curve to the ROC points with "
                         "sensitivity and specificity strictly between 0 and 1; a curve has "
                         f"{np.count_nonzero(inside)} such point(s), at least 2 are needed")
    x, y = ndtri(se[inside]), ndtri(sp[inside])
    xc = x - x.mean()
    sxx = float(xc @ xc)
    if sxx == 0:
        raise ValueError("method='obuchowski': the ROC points have one sensitivity; no "
                         "binormal curve can be fitted")
    slope = float(xc @ (y - y.mean())) / sxx
    intercept = float(y.mean() - slope * x.mean())
    if not slope < 0:
        raise ValueError("method='obuchowski': the binormal fit of a curve has a slope "
                         f"b = {-slope:.4g} <= 0 (not a binormal ROC curve)")
    return intercept, -slope


def _class_correlation(a, b, which):
    a, b = a[which], b[which]
    a, b = a - a.mean(), b - b.mean()
    denom = math.sqrt(float(a @ a) * float(b @ b))
    if denom == 0:
        raise ValueError("method='obuchowski' needs the correlation of the two scores among "
                         "the positives and among the negatives: a score is constant in one "
                         "class")
    return float(a @ b) / denom


def _obuchowski_from_data(y_true, score_a, score_b, pos_label):
    """``(Δ, V0, VA)`` per case of two paired curves by Obuchowski & McClish's binormal
    variances, the binormal parameters fitted as pROC fits them (module docstring), and
    the data's cases and controls-per-case."""
    is_pos, a, _ = check_binary_scores(y_true, score_a, pos_label=pos_label)
    _, b, _ = check_binary_scores(y_true, score_b, pos_label=pos_label)
    a, b = a.astype(np.float64), b.astype(np.float64)
    m = int(is_pos.sum())
    ratio = (is_pos.shape[0] - m) / m
    a1, b1 = binormal_fit(is_pos, a)
    a2, b2 = binormal_fit(is_pos, b)
    rn, ra = _class_correlation(a, b, ~is_pos), _class_correlation(a, b, is_pos)
    (auc_a, auc_b), _ = auc_covariance(is_pos, [a, b])
    delta = float(auc_a - auc_b)
    if delta == 0:
        raise ValueError("the two curves have the same AUC: no difference to power a test "
                         "for")
    v0, va = binormal_difference_variances(a1, b1, a2, b2, rn, ra, ratio, (0.0, 1.0))
    return delta, v0, va, float(m), ratio
