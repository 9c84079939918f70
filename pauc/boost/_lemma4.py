"""Lemma 4 of Long & Servedio: a weak ranker becomes a balanced two-sided weak classifier.

Long & Servedio, §3, Lemma 4 and Figure 1.  Given a
ranking function ``h`` with AUC ½ + γ on (D+, D−):

1. pick θ maximising ``D+[h ≥ θ] − D−[h ≥ θ]`` (the end of §3: "minimize the sum
   of the error rates on the positive and negative examples");
2. ``p+ = D+[h < θ]`` (false negatives), ``p− = D−[h ≥ θ]`` (false positives);
3. if ``p− ≤ p+``, the side ``h < θ`` votes +1 with probability
   ``ζ = (p+ − p−)/(1 + p+ − p−)``; otherwise, symmetrically, the side ``h ≥ θ``
   votes −1 with probability ``ζ = (p− − p+)/(1 + p− − p+)``;
4. both class-conditional errors then equal
   ``ε = max(p+, p−)/(1 + |p+ − p−|) ≤ ½ − γ/4``  (eq. (1)).

No deterministic threshold can replace the coin: there are rankers with
AUC ¾ and zero two-sided advantage at every threshold, while Lemma 4 reaches ⅙.

Under label noise at a known rate η (Long & Servedio, §4-5) θ is unchanged
(TPR − FPR only shrinks by a positive factor), but ζ needs the *clean* rates;
:func:`denoise_rates` gives the de-biased estimators.
"""

from dataclasses import dataclass

import numpy as np

from ._weak import youden_threshold


@dataclass(frozen=True)
class BalancedClassifier:
    """The randomized classifier ``g(x, r)`` of Lemma 4 built on a ranking function.

    Attributes
    ----------
    theta : float
        Threshold of the rule ``h(x) ≥ θ``.
    p_pos : float
        ``D+[h < θ]``, the false-negative rate of the rule.
    p_neg : float
        ``D−[h ≥ θ]``, the false-positive rate of the rule.
    """

    theta: float
    p_pos: float
    p_neg: float

    @property
    def randomize_low(self):
        """True for step 3 (the side ``h < θ`` is randomized), False for step 4."""
        return self.p_neg <= self.p_pos

    @property
    def zeta(self):
        """Probability ζ of the coin on the randomized side (Lemma 4, step 3/4)."""
        d = abs(self.p_pos - self.p_neg)
        return d / (1.0 + d)

    @property
    def error(self):
        """The common class-conditional error ε of eq. (1)."""
        return max(self.p_pos, self.p_neg) / (1.0 + abs(self.p_pos - self.p_neg))

    @property
    def youden(self):
        """``J = 1 − p+ − p−``; the two-sided advantage is ½ − ε = J/(2(1 + |p+ − p−|))."""
        return 1.0 - self.p_pos - self.p_neg

    def prob_positive(self, h):
        """``Pr_r[g(x, r) = +1]`` for each score ``h(x)``."""
        high = np.asarray(h) >= self.theta
        if self.randomize_low:
            return np.where(high, 1.0, self.zeta)
        return np.where(high, 1.0 - self.zeta, 0.0)

    def expected_vote(self, h):
        """``E_r[g(x, r)] ∈ [−1, 1]``, the confidence-rated ("soft") output."""
        return 2.0 * self.prob_positive(h) - 1.0

    def draw(self, h, u):
        """``g(x, r)`` in {−1, +1} with coins ``u`` uniform on [0, 1), one per score."""
        return np.where(np.asarray(u) < self.prob_positive(h), 1, -1).astype(np.int8)


def denoise_rates(tpr, fpr, pos_fraction, noise_rate):
    """Clean class rates of a set S from rates measured on noisy labels.

    Long & Servedio, §4-5: with flips at rate η, ``D̃+ = a·D+ + (1−a)·D−`` and
    ``D̃− = b·D+ + (1−b)·D−`` where ``π = (π̃ − η)/(1 − 2η)``,
    ``a = (1−η)π/π̃`` and ``b = ηπ/(1−π̃)``; inverting,

    ``D+(S) = [(1−b)·D̃+(S) − (1−a)·D̃−(S)]/(a−b)``,
    ``D−(S) = [a·D̃−(S) − b·D̃+(S)]/(a−b)``, both clipped to [0, 1].

    Parameters
    ----------
    tpr, fpr : float, ``D̃+(S)`` and ``D̃−(S)`` measured with the noisy labels.
    pos_fraction : float, ``π̃``, the noisy positive fraction of the sample.
    noise_rate : float in [0, ½).

    Returns
    -------
    tpr, fpr : float, the estimates of ``D+(S)`` and ``D−(S)``.
    """
    eta = float(noise_rate)
    if eta == 0.0:
        return float(tpr), float(fpr)
    pi = clean_fraction(pos_fraction, eta)
    # Recompute π̃ from the clipped π so that a − b > 0 always holds.
    pi_noisy = eta + (1.0 - 2.0 * eta) * pi
    a = (1.0 - eta) * pi / pi_noisy
    b = eta * pi / (1.0 - pi_noisy)
    clean_tpr = ((1.0 - b) * tpr - (1.0 - a) * fpr) / (a - b)
    clean_fpr = (a * fpr - b * tpr) / (a - b)
    return float(np.clip(clean_tpr, 0.0, 1.0)), float(np.clip(clean_fpr, 0.0, 1.0))


def clean_fraction(pos_fraction, noise_rate, floor=1e-12):
    """``π = (π̃ − η)/(1 − 2η)`` (paper §5), clipped into the open interval (0, 1)."""
    eta = float(noise_rate)
    pi = (float(pos_fraction) - eta) / (1.0 - 2.0 * eta)
    return min(max(pi, floor), 1.0 - floor)


def noise_contraction(pos_fraction, noise_rate):
    """``a − b`` (Long & Servedio, §4-5): the factor noise puts on AUC − ½ and on TPR − FPR.

    ``a − b = π(1 − η − π̃)/(π̃(1 − π̃))`` with π de-biased from π̃ (and π̃
    recomputed from the clipped π); 1 without noise, → 0 as the sample
    becomes pure in one true class.
    """
    eta = float(noise_rate)
    if eta == 0.0:
        return 1.0
    pi = clean_fraction(pos_fraction, eta)
    pi_noisy = eta + (1.0 - 2.0 * eta) * pi
    return pi * (1.0 - eta - pi_noisy) / (pi_noisy * (1.0 - pi_noisy))


def convert(h, is_pos, weight, noise_rate=0.0):
    """Lemma 4: the balanced classifier of a ranking function on a weighted sample.

    Parameters
    ----------
    h : float array (n,), the ranking function's scores.
    is_pos : bool or uint8 array (n,), (possibly noisy) labels.
    weight : float array (n,), the distribution; only the class-conditional
        renormalisations D+ and D− matter (not to be mixed with the
        joint weights AdaBoost uses for its error).
    noise_rate : float, known label-noise rate η; the rates at θ are de-biased
        with :func:`denoise_rates` before ζ is computed.

    Returns
    -------
    BalancedClassifier
    """
    h = np.ascontiguousarray(h, dtype=np.float64)
    is_pos = np.ascontiguousarray(is_pos, dtype=np.uint8)
    weight = np.ascontiguousarray(weight, dtype=np.float64)
    order = np.argsort(h, kind="stable")
    theta, tpr, fpr = youden_threshold(h[order], is_pos[order], weight[order])
    if noise_rate > 0.0:
        w_pos = weight[is_pos == 1].sum()
        tpr, fpr = denoise_rates(tpr, fpr, w_pos / weight.sum(), noise_rate)
    return BalancedClassifier(theta=float(theta), p_pos=1.0 - tpr, p_neg=fpr)
