"""Multi-reader multi-case (MRMC) ROC studies: the Obuchowski-Rockette analysis.

Several readers rate the same cases in several modalities (or a model is read
against a reader panel).  The figures of merit ``θ_ij`` of modality ``i`` and
reader ``j`` are correlated through the cases (every reader saw them) and
through the readers (each read every modality).  Obuchowski & Rockette (1995)
model them as

    θ_ij = μ + τ_i + R_j + (τR)_ij + ε_ij,

readers' effects ``R_j`` and ``(τR)_ij`` random, and the case-sampling errors
``ε_ij`` with variance ``Var`` and three covariances: ``Cov1`` (same reader,
different modalities), ``Cov2`` (different readers, same modality), ``Cov3``
(different readers and modalities).  These four are the averages of the
matching entries of the (t·r) x (t·r) case-sampling covariance matrix of the
``θ_ij``, estimated here by

* the jackknife over cases: ``(K − 1)/K Σ_k (θ_(k) − θ_(·))(θ'_(k) − θ'_(·))``
  with ``θ_(k)`` the figure of merit without case ``k``, obtained for every case
  in O(K log K) per reader x modality (:mod:`pauc.inference._leave_one_out`), not by K
  refits;
* DeLong's method (AUC only): ``S10/m + S01/n`` from the placement values
  (DeLong et al. 1988);
* the case bootstrap: cases redrawn within each class, the same cases for
  every reader and modality.

With ``MS(T) = r/(t−1) Σ_i (θ_i· − θ_··)²`` and ``MS(T*R) = 1/((t−1)(r−1))
Σ_ij (θ_ij − θ_i· − θ_·j + θ_··)²``, the analyses are (Hillis 2007):

* random readers and cases: ``F = MS(T) / (MS(T*R) + r max(Cov2 − Cov3, 0))``
  on ``t − 1`` and Hillis's ``ddf_H = [MS(T*R) + r max(Cov2 − Cov3, 0)]² /
  ([MS(T*R)]² / ((t−1)(r−1)))`` degrees of freedom; a difference of two
  modalities has standard error ``sqrt(2/r [MS(T*R) + r max(Cov2 − Cov3, 0)])``
  and a t(ddf_H) interval; a modality alone ``sqrt([MS(R)_i + r max(Cov2_i,
  0)] / r)`` with its own ddf from its readers (Hillis, Obuchowski, Schartz &
  Berbaum 2005; Hillis 2007);
* fixed readers, random cases: ``χ² = (t − 1) MS(T) / (Var − Cov1 + (r − 1)(Cov2
  − Cov3))`` on ``t − 1`` degrees of freedom (reported as ``F = χ²/(t − 1)`` on
  ``(t − 1, ∞)``), differences with standard error ``sqrt(2/r (Var − Cov1 + (r
  − 1)(Cov2 − Cov3)))`` and normal intervals;
* random readers, fixed cases: the two-way ANOVA of the reader x modality
  table, ``F = MS(T) / MS(T*R)`` on ``(t − 1, (t − 1)(r − 1))``.

With one reader, readers cannot be random: the analysis is the fixed-reader one,
which for two modalities is DeLong's paired test of the two rating vectors
(:func:`pauc.metrics.compare_rankers`).

References
----------
Obuchowski, N. A. and Rockette, H. E. "Hypothesis testing of diagnostic
accuracy for multiple readers and multiple tests: an ANOVA approach with
dependent observations." Communications in Statistics - Simulation and
Computation 24(2), 1995.  Hillis, S. L. "A comparison of denominator degrees of
freedom methods for multiple observer ROC analysis." Statistics in Medicine
26(3), 2007.  Hillis, S. L., Obuchowski, N. A., Schartz, K. M. and Berbaum,
K. S. "A comparison of the Dorfman-Berbaum-Metz and Obuchowski-Rockette
methods for receiver operating characteristic (ROC) data." Statistics in
Medicine 24(10), 2005.  DeLong, E. R., DeLong, D. M. and Clarke-Pearson, D. L.
"Comparing the Areas under Two or More Correlated Receiver Operating
Characteristic Curves: A Nonparametric Approach." Biometrics 44(3), 1988.
"""

import math
from dataclasses import dataclass, field, fields
from itertools import combinations

import numpy as np
from scipy import stats
from threadpoolctl import ThreadpoolController

from ._delong import delong_covariance
from ._intervals import _check_choice, _check_confidence_level, normalized_area
from ._leave_one_out import (PlacedScores, auc_kernel, interpolated_tpr_kernel,
                             jackknife_into, partial_area_kernel, threshold_tpr_kernel)
from ._reader_kernels import arrange, code_ranges
from ._p_adjust import adjust_pvalues, check_p_adjust
from .._validation import _classes, check_binary_classes, check_fpr_range, check_int, check_rate

METRICS = ("auc", "partial_auc", "tpr_at_fpr")
COVARIANCES = ("jackknife", "delong", "bootstrap")
ANALYSES = ("random", "fixed_readers", "fixed_cases")
_NORMALIZATIONS = ("range", "mcclish", "none")
# the label of the readers' average in the single-modality design (model vs readers)
READERS = "readers"


@dataclass(frozen=True)
class ModalityEstimate:
    """A modality's reader-averaged figure of merit with its confidence interval.

    Attributes
    ----------
    modality
        The modality's label (or the model's, or ``"readers"``).
    estimate : float
        The mean over the readers of the figure of merit.
    low, high : float
    standard_error : float
    df : float
        Degrees of freedom of the t interval (``inf``: a normal interval).
    """

    modality: object
    estimate: float
    low: float
    high: float
    standard_error: float
    df: float


@dataclass(frozen=True)
class ModalityComparison:
    """Two modalities' reader-averaged figures of merit: ``difference = a − b``.

    Attributes
    ----------
    modality_a, modality_b
    estimate_a, estimate_b, difference : float
    low, high : float
        Confidence interval of the difference.
    standard_error : float
    statistic : float
        ``F = (difference / standard_error)²`` on ``(1, df)`` degrees of freedom.
    df : float
        Denominator degrees of freedom (``inf``: a normal test).
    pvalue : float
        Two-sided.
    """

    modality_a: object
    modality_b: object
    estimate_a: float
    estimate_b: float
    difference: float
    low: float
    high: float
    standard_error: float
    statistic: float
    df: float
    pvalue: float


@dataclass(frozen=True, repr=False)
class ReaderStudy:
    """The Obuchowski-Rockette analysis of a reader study (:func:`reader_study`).

    Attributes
    ----------
    metric : str
        ``"auc"``, ``"partial_auc"`` or ``"tpr_at_fpr"``.
    settings : dict
        The metric's parameters (``fpr_range`` and ``normalize``, or ``fpr`` and
        ``interpolate``).
    covariance : str
        ``"jackknife"``, ``"delong"`` or ``"bootstrap"``.
    analysis : str
        ``"random"`` (readers and cases), ``"fixed_readers"`` or ``"fixed_cases"``.
    modalities, readers : tuple
        In sorted order; with ``model``, ``modalities`` is ``(model, "readers")``.
    n_cases, n_positives : int
    reader_estimates : float64 array of shape (t, r)
        The figure of merit of each modality (row) and reader (column).
    estimates : dict
        ``modality -> reader-averaged figure of merit``.
    modality_estimates : tuple of ModalityEstimate
        Each modality's estimate with its interval.
    statistic : float
        The F statistic of "all modalities are equal" (NaN with one modality
        and no model).
    df : (float, float)
        Its numerator and denominator degrees of freedom (``inf``: chi-square).
    pvalue : float
    comparisons : tuple of ModalityComparison
        Every pair of modalities (the model against the readers' average).
    pvalue_adjusted : float64 array
        The pairs' p-values adjusted by ``p_adjust``.
    p_adjust : str or None
    confidence_level : float
    variance_components : dict
        ``var``, ``cov1``, ``cov2``, ``cov3`` (case sampling), ``ms_t``,
        ``ms_tr`` (mean squares of the reader x modality table; what a design
        leaves undefined is NaN).
    covariance_matrix : float64 array of shape (t·r, t·r)
        The case-sampling covariance of the ``θ_ij``, modality-major
        (``i·r + j``).
    model : object or None
        The reader label of the model in the single-modality design.
    n_resamples : int or None
    """

    metric: str
    settings: dict
    covariance: str
    analysis: str
    modalities: tuple
    readers: tuple
    n_cases: int
    n_positives: int
    reader_estimates: np.ndarray = field(repr=False)
    estimates: dict
    modality_estimates: tuple
    statistic: float
    df: tuple
    pvalue: float
    comparisons: tuple
    pvalue_adjusted: np.ndarray
    p_adjust: str
    confidence_level: float
    variance_components: dict
    covariance_matrix: np.ndarray = field(repr=False)
    model: object = None
    n_resamples: int = None

    @property
    def pairs(self):
        """The compared pairs ``(modality_a, modality_b)``, in the order of ``comparisons``."""
        return tuple((c.modality_a, c.modality_b) for c in self.comparisons)

    def __getitem__(self, pair):
        try:
            return self.comparisons[self.pairs.index(tuple(pair))]
        except ValueError:
            raise KeyError(f"no comparison {tuple(pair)!r}; the pairs are {self.pairs}") \
                from None

    def to_dicts(self, table="pairs"):
        """Rows of one table as dicts.

        Parameters
        ----------
        table : {"pairs", "modalities", "readers"}, default="pairs"
            ``"pairs"``: one row per compared pair (the fields of
            ModalityComparison and ``pvalue_adjusted``); ``"modalities"``: one
            per modality (ModalityEstimate); ``"readers"``: one per modality x
            reader with its figure of merit.
        """
        if table == "pairs":
            rows = []
            for comparison, adjusted in zip(self.comparisons, self.pvalue_adjusted):
                row = {f.name: getattr(comparison, f.name) for f in fields(comparison)}
                row["pvalue_adjusted"] = float(adjusted)
                rows.append(row)
            return rows
        if table == "modalities":
            return [{f.name: getattr(e, f.name) for f in fields(e)}
                    for e in self.modality_estimates]
        if table == "readers":
            modalities = (self.modalities if self.model is None
                          else self.modalities[1:])
            rows = [{"modality": mod, "reader": reader,
                     "estimate": float(self.reader_estimates[i, j])}
                    for i, mod in enumerate(modalities)
                    for j, reader in enumerate(self.readers)]
            if self.model is not None:
                rows.insert(0, {"modality": modalities[0], "reader": self.model,
                                "estimate": self.estimates[self.model]})
            return rows
        raise ValueError(f"table must be 'pairs', 'modalities' or 'readers', got {table!r}")

    def to_frame(self, table="pairs"):
        """:meth:`to_dicts` as a pandas DataFrame (pandas needed)."""
        try:
            import pandas as pd
        except ImportError as error:
            raise ImportError("to_frame needs pandas (pip install pandas); to_dicts does "
                              "not") from error
        return pd.DataFrame(self.to_dicts(table))

    def __repr__(self):
        level = f"{100 * self.confidence_level:g}% CI"
        what = self.metric + "".join(f", {k}={v!r}" for k, v in self.settings.items())
        lines = [f"ReaderStudy({what}, covariance={self.covariance!r}, "
                 f"analysis={self.analysis!r}, {len(self.readers)} readers, "
                 f"{self.n_cases} cases ({self.n_positives} positive))"]
        width = max([8] + [len(str(e.modality)) for e in self.modality_estimates])
        lines.append(f"{'modality':<{width}} {'estimate':>9} {level:>20} {'df':>8}")
        for e in self.modality_estimates:
            lines.append(f"{str(e.modality):<{width}} {e.estimate:>9.4f} "
                         f"{f'[{e.low:.4f}, {e.high:.4f}]':>20} {e.df:>8.2f}")
        if self.comparisons:
            adjusted = {"holm": "Holm", "bh": "BH", None: "none"}[self.p_adjust]
            lines.append(f"F = {self.statistic:.4f} on ({self.df[0]:g}, {self.df[1]:.4g}) "
                         f"df, p = {self.pvalue:.4g}")
            lines.append(f"{'A':<{width}} {'B':<{width}} {'A - B':>8} {level:>20} "
                         f"{'F':>8} {'df':>8} {'p-value':>9} {'adj. ' + adjusted:>9}")
            for c, p in zip(self.comparisons, self.pvalue_adjusted):
                lines.append(f"{str(c.modality_a):<{width}} {str(c.modality_b):<{width}} "
                             f"{c.difference:>8.4f} {f'[{c.low:.4f}, {c.high:.4f}]':>20} "
                             f"{c.statistic:>8.4f} {c.df:>8.2f} {c.pvalue:>9.4g} {p:>9.4g}")
        return "\n".join(lines)

    __str__ = __repr__


# ---------------------------------------------------------------- the table

def _column(data, name, role):
    """A column of ``data`` by name, or the array itself when ``data`` is None."""
    if data is None:
        if isinstance(name, str):
            raise ValueError(f"without data, {role}= must be an array (got the string "
                             f"{name!r}); or pass the table as data")
        values = name
    else:
        if not isinstance(name, str):
            raise ValueError(f"with a table in data, {role}= names one of its columns, got "
                             f"{type(name).__name__}")
        try:
            values = data[name]
        except (KeyError, IndexError, ValueError):
            columns = list(data.keys()) if hasattr(data, "keys") else "?"
            raise ValueError(f"the table has no column {name!r} ({role}); its columns are "
                             f"{columns}; name them with {role}=...") from None
    values = np.asarray(values)
    if values.ndim != 1:
        raise ValueError(f"the {role} column must be one-dimensional, got shape "
                         f"{values.shape}")
    return values


def _missing(values):
    """True when an object column holds None or NaN."""
    return values.dtype.kind == "O" and any(v is None or (isinstance(v, float) and v != v)
                                            for v in values)


def _factorize(values, role, exact=True):
    """``(codes, labels, offset)``: row ``i`` holds label ``labels[codes[i] - offset]``
    (labels sorted).

    Integer labels (reader, case numbers) are coded without a sort.  With
    ``exact=False`` the codes are the labels themselves and the offset the
    smallest (no array is made: a table of millions of ratings is read once);
    the labels are then the whole range, some perhaps absent, which the design
    check sees as missing ratings before it asks for the exact coding (by
    counting the labels present).
    """
    if values.shape[0] == 0:
        raise ValueError("the table has no rows")
    if values.dtype.kind == "f" and not np.isfinite(values).all():
        raise ValueError(f"the {role} column holds NaN or infinity")
    if _missing(values):
        raise ValueError(f"the {role} column holds missing values (None or NaN)")
    if values.dtype.kind in "iu":
        low, high = int(values.min()), int(values.max())
        if high - low <= 4 * values.shape[0]:
            if not exact:
                if values.dtype.kind == "u":
                    values = values.astype(np.intp)
                return values, np.arange(low, high + 1), low
            shifted = np.subtract(values, low, dtype=np.intp)
            present = np.bincount(shifted, minlength=high - low + 1) > 0
            rank = np.cumsum(present) - 1
            return rank[shifted], np.flatnonzero(present) + low, 0
    try:
        labels, codes = np.unique(values, return_inverse=True)
    except TypeError:
        raise ValueError(f"the {role} column mixes labels that cannot be ordered "
                         "(e.g. numbers and strings)") from None
    return codes.ravel(), labels, 0


def _cells(columns, n_rows, exact):
    """Each row's cell ``(modality, reader, case)`` as one index, and the labels."""
    coded = [(None, np.array([None]), 0) if values is None
             else _factorize(values, role, exact) for values, role in columns]
    (mod, modalities, mod_low), (rdr, readers, rdr_low), (case, cases, case_low) = coded
    r, k = readers.shape[0], cases.shape[0]
    # one array, built in place: the table may hold millions of ratings
    cell = (np.zeros(n_rows, dtype=np.intp) if mod is None
            else np.subtract(mod, mod_low, dtype=np.intp))
    cell *= r
    cell += rdr
    cell -= rdr_low
    cell *= k
    cell += case
    cell -= case_low
    return cell, modalities, readers, cases


def _fills_every_cell(cell, n_cells):
    """True when the rows fill every cell once (as many rows as cells, none empty)."""
    if cell.shape[0] != n_cells:
        return False
    seen = np.zeros(n_cells, dtype=bool)
    seen[cell] = True
    return bool(seen.all())


def _design(truth, rating, reader, modality, case, pos_label):
    """The fully crossed design: ``(is_pos (K,), ratings (t, r, K), modalities,
    readers, K)``; anything else is refused with the reason."""
    n_rows = rating.shape[0]
    for values, role in ((truth, "truth"), (reader, "reader"), (case, "case")) + (
            () if modality is None else ((modality, "modality"),)):
        if values.shape[0] != n_rows:
            raise ValueError(f"the {role} column has {values.shape[0]} rows, the rating "
                             f"column {n_rows}")
    if rating.dtype.kind not in "iuf" or rating.dtype.kind == "b":
        try:
            rating = rating.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError("the rating column must hold numbers") from None
    if rating.dtype.kind == "f" and not np.isfinite(rating).all():
        raise ValueError("the rating column holds NaN or infinity: every reader must rate "
                         "every case (drop the incomplete cases, or impute, before the "
                         "analysis)")
    if (truth.dtype.kind == "f" and not np.isfinite(truth).all()) or _missing(truth):
        raise ValueError("the truth column holds NaN, infinity or missing values")
    columns = ((modality, "modality"), (reader, "reader"), (case, "case"))
    arranged = _arranged_design(truth, rating, columns, n_rows, pos_label)
    if arranged is not None:
        return arranged
    # the checking path: says why a table is refused, takes any dtype
    cell, modalities, readers, cases = _cells(columns, n_rows, exact=False)
    t, r, k = modalities.shape[0], readers.shape[0], cases.shape[0]
    if not _fills_every_cell(cell, t * r * k):
        # perhaps labels absent from a range of integers: code them exactly
        cell, modalities, readers, cases = _cells(columns, n_rows, exact=True)
        t, r, k = modalities.shape[0], readers.shape[0], cases.shape[0]
        if not _fills_every_cell(cell, t * r * k):
            _refuse_design(cell, modalities, readers, cases, n_rows)
    ratings = np.empty(t * r * k, dtype=rating.dtype)
    ratings[cell] = rating
    pos_label = check_binary_classes(_classes(truth), pos_label)
    positive = np.empty(t * r * k, dtype=bool)
    positive[cell] = truth == pos_label
    positive = positive.reshape(t * r, k)
    differs = (positive != positive[0]).any(axis=0)
    if differs.any():
        raise ValueError(f"case {cases[np.flatnonzero(differs)[0]]!r} has two different "
                         "truths: the truth is a property of the case, the same for every "
                         "reader and modality")
    is_pos = positive[0].copy()
    return (is_pos, ratings.reshape(t, r, k), tuple(modalities.tolist()),
            tuple(readers.tolist()), k)


def _arranged_design(truth, rating, columns, n_rows, pos_label):
    """The design of :func:`_design` read by one compiled pass
    (:func:`pauc.inference._reader_kernels.arrange`), or None when the table needs the
    checking path: a refusal to explain, labels absent from a range of integers,
    a truth column of labels.

    Each column is read once, and a table already in cell order (modality, reader,
    case), as tidy exports usually are, is used as it is: at 10^6 ratings the
    per-cell index arrays of the checking path cost more than the analysis.
    """
    if truth.dtype.kind not in "biuf" or rating.dtype.kind not in "iuf":
        return None
    if rating.dtype.kind == "u" and rating.dtype.itemsize == 8:
        return None                   # beyond int64: the checking path keeps them
    if truth.dtype.kind == "f" and not np.isfinite(truth).all():
        return None
    rating = np.ascontiguousarray(rating, dtype=np.int64 if rating.dtype.kind in "iu"
                                  else np.float64)
    flags = truth.dtype.kind == "b"
    truth = (np.ascontiguousarray(truth).view(np.uint8) if flags else np.ascontiguousarray(
        truth, dtype=np.int64 if truth.dtype.kind in "iu" else np.float64))
    # int64 labels (reader and case numbers) are their own codes, their range the labels
    # (as _factorize(exact=False) codes them)
    wide = [values for values, _ in columns
            if values is not None and values.dtype == np.int64 and values.flags.c_contiguous]
    if len(wide) == sum(values is not None for values, _ in columns):
        # a table in cell order starts at the smallest labels and ends at the largest:
        # one pass tries those ranges (and checks them), no pass looks for them
        ranges = [None if values is None else (int(values[0]), int(values[-1]))
                  for values, _ in columns]
        arranged = _arrange(columns, ranges, n_rows, rating, truth, True)
        if arranged is not None and arranged[0] == 0:
            return _designed(arranged, rating, flags, pos_label)
        # anything else (another order, a refusal to explain) is read with the ranges
    ranges = code_ranges(wide) if wide else ()
    ranges = dict(zip(map(id, wide), ranges))
    coded = []
    for values, role in columns:
        if values is None or id(values) in ranges:
            coded.append(ranges.get(id(values)))
        else:
            codes, labels, low = _factorize(values, role, False)
            coded.append((codes, labels, low))
    return _designed(_arrange(columns, coded, n_rows, rating, truth, False), rating, flags,
                     pos_label)


def _arrange(columns, ranges, n_rows, rating, truth, guessed):
    """:func:`pauc.inference._reader_kernels.arrange` on the columns: ``(status, ratings, case
    truths, labels)``, or None when the table needs the checking path; ``ranges``
    holds per column ``(low, high)`` of int64 labels, ``(codes, labels, low)`` of
    others, or None (no modality column)."""
    codes, lows, labels = [], [], []
    for (values, _), coded in zip(columns, ranges):
        if values is None:
            codes.append(None)
            lows.append(0)
            labels.append(np.array([None]))
        elif len(coded) == 2:
            low, high = coded
            if not 0 <= high - low <= 4 * n_rows:
                return None
            codes.append(values)
            lows.append(low)
            labels.append(np.arange(low, high + 1))
        else:
            codes.append(np.ascontiguousarray(coded[0], dtype=np.intp))
            lows.append(coded[2])
            labels.append(coded[1])
    t, r, k = (x.shape[0] for x in labels)
    if n_rows != t * r * k:
        return None
    case_truth = np.empty(k, dtype=truth.dtype)
    # np.empty does not touch the pages: a table in cell order never writes them
    out = np.empty(n_rows, dtype=rating.dtype)
    status = arrange(codes[0], lows[0], codes[1], lows[1], codes[2], lows[2], t, r, k,
                     rating, truth, out, case_truth, guessed)
    if status < 0:
        return None
    return status, out, case_truth, labels


def _designed(arranged, rating, flags, pos_label):
    """The return value of :func:`_design` from :func:`_arrange`'s (None: None)."""
    if arranged is None:
        return None
    status, out, case_truth, (modalities, readers, cases) = arranged
    t, r, k = modalities.shape[0], readers.shape[0], cases.shape[0]
    ratings = rating if status == 0 else out
    if flags:
        case_truth = case_truth.view(bool)
    pos_label = check_binary_classes(_classes(case_truth), pos_label)
    is_pos = case_truth == pos_label
    return (is_pos, ratings.reshape(t, r, k), tuple(modalities.tolist()),
            tuple(readers.tolist()), k)


def _refuse_design(cell, modalities, readers, cases, n_rows):
    """The reason the rows do not fill the modality x reader x case table once."""
    t, r, k = modalities.shape[0], readers.shape[0], cases.shape[0]
    per_cell = np.bincount(cell, minlength=t * r * k)
    if per_cell.max() > 1:
        where = np.unravel_index(int(np.argmax(per_cell)), (t, r, k))
        raise ValueError(f"modality {modalities[where[0]]!r}, reader {readers[where[1]]!r} "
                         f"rated case {cases[where[2]]!r} {int(per_cell.max())} times: each "
                         "reader rates each case once in each modality")
    where = np.unravel_index(int(np.argmin(per_cell)), (t, r, k))
    raise ValueError(f"the design is not fully crossed: {n_rows} ratings for {t} "
                     f"modalities x {r} readers x {k} cases (e.g. modality "
                     f"{modalities[where[0]]!r}, reader {readers[where[1]]!r} did not "
                     f"rate case {cases[where[2]]!r}); the Obuchowski-Rockette analysis "
                     "here needs every reader to rate every case in every modality")


# ---------------------------------------------------------------- figures of merit

def _merit(metric, fpr_range, normalize, fpr, interpolate):
    """``(kernel h, scale, settings)``: the figure of merit is ``scale(Σ h / m)``."""
    if metric == "auc":
        if fpr_range is not None or fpr is not None:
            raise ValueError("metric='auc' takes neither fpr_range nor fpr")
        return auc_kernel(), (lambda x: x), {}
    if metric == "partial_auc":
        if fpr is not None:
            raise ValueError("metric='partial_auc' takes fpr_range, not fpr")
        alpha, beta = check_fpr_range((0.0, 0.1) if fpr_range is None else fpr_range)
        _check_choice(normalize, "normalize", _NORMALIZATIONS)
        return (partial_area_kernel(alpha, beta),
                lambda x: normalized_area(x, alpha, beta, normalize),
                {"fpr_range": (alpha, beta), "normalize": normalize})
    if fpr_range is not None:
        raise ValueError("metric='tpr_at_fpr' takes fpr, not fpr_range")
    fpr = check_rate(0.1 if fpr is None else fpr, "fpr")
    if not isinstance(interpolate, (bool, np.bool_)):
        raise ValueError(f"interpolate must be True or False, got {interpolate!r}")
    kernel = interpolated_tpr_kernel(fpr) if interpolate else threshold_tpr_kernel(fpr)
    return kernel, (lambda x: x), {"fpr": fpr, "interpolate": bool(interpolate)}


def _slope(scale):
    """The slope of the affine normalisation (covariances scale by its square)."""
    return scale(1.0) - scale(0.0)


def _figures_and_covariance(is_pos, vectors, h, scale, covariance, n_resamples,
                            random_state):
    """The figures of merit of the score vectors and their case-sampling covariance."""
    k = is_pos.shape[0]
    if covariance == "jackknife":
        figures, left_out = np.empty(len(vectors)), np.empty((len(vectors), k))
        m, work = int(np.count_nonzero(is_pos)), np.empty(k, dtype=np.uint64)
        for u, v in enumerate(vectors):
            # each row of left_out: the K leave-one-out figures, centred
            figures[u] = jackknife_into(is_pos, v, h, left_out[u], m, work)
        # a (t·r) x K by K x (t·r) product: one BLAS thread does it in milliseconds, while
        # threads that spin for a core on a busy machine can take a hundred times longer
        with _one_blas_thread():
            cov = (k - 1) / k * (left_out @ left_out.T)
        slope = _slope(scale)
        return scale(figures), cov * (slope * slope)
    placed = [PlacedScores(is_pos, v) for v in vectors]
    figures = np.array([p.figure(h) for p in placed])
    if covariance == "delong":
        v10, v01 = zip(*(p.placement_values() for p in placed))
        cov = delong_covariance(np.array(v10), np.array(v01))
    else:
        cov = _bootstrap_covariance(is_pos, placed, h, n_resamples, random_state)
    slope = _slope(scale)
    return scale(figures), cov * (slope * slope)


_CONTROLLER = []


def _one_blas_thread():
    """A context in which BLAS runs on one thread.

    ``threadpool_limits`` looks for the loaded libraries at every call (about
    half a millisecond, a third of the one-reader AUC interval it is compared
    with); the controller it builds is kept and only its limit set per call.
    """
    if not _CONTROLLER:
        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0].limit(limits=1, user_api="blas")


def _bootstrap_covariance(is_pos, placed, h, n_resamples, random_state):
    """The covariance of the figures over stratified case resamples: each class's
    cases redrawn with replacement, the same cases for every reader and modality."""
    from sklearn.utils import check_random_state

    rng = check_random_state(random_state)
    k = is_pos.shape[0]
    pos_rows, neg_rows = np.flatnonzero(is_pos), np.flatnonzero(~is_pos)
    # a block of resamples at a time: their multiplicities are a (block, K) array
    block = max(1, min(n_resamples, 4_000_000 // max(k, 1)))
    values = np.empty((n_resamples, len(placed)))
    for start in range(0, n_resamples, block):
        stop = min(n_resamples, start + block)
        weights = np.zeros((stop - start, k))
        for row in range(stop - start):
            weights[row] += np.bincount(rng.choice(pos_rows, pos_rows.shape[0]), minlength=k)
            weights[row] += np.bincount(rng.choice(neg_rows, neg_rows.shape[0]), minlength=k)
        for u, p in enumerate(placed):
            values[start:stop, u] = p.weighted_figures(h, weights)
    return np.atleast_2d(np.cov(values, rowvar=False, ddof=1))


# ---------------------------------------------------------------- the analysis

def _f_pvalue(statistic, df_num, df_den):
    if not np.isfinite(statistic):
        return math.nan
    if math.isinf(df_den):
        return float(stats.chi2.sf(statistic * df_num, df_num))
    return float(stats.f.sf(statistic, df_num, df_den))


def _interval(estimate, standard_error, df, confidence_level):
    """``estimate ± q se`` with ``q`` the t(df) quantile (normal for df = inf)."""
    tail = 0.5 * (1.0 + confidence_level)
    if not (standard_error >= 0.0 and df > 0):
        return math.nan, math.nan
    q = stats.norm.ppf(tail) if math.isinf(df) else stats.t.ppf(tail, df)
    return float(estimate - q * standard_error), float(estimate + q * standard_error)


def _hillis_df(ms, correlation_term, df_ms):
    """Hillis's (2007) ddf: ``(ms + term)² / (ms² / df_ms)``; infinite when ``ms`` is 0
    (the readers agree exactly: only the cases vary)."""
    if ms == 0.0:
        return math.inf
    return (ms + correlation_term) ** 2 / (ms * ms / df_ms)


def _mean_off_diagonal(block):
    r = block.shape[0]
    if r < 2:
        return math.nan
    return float((block.sum() - np.trace(block)) / (r * (r - 1)))


def single_modality(values, cov, analysis, confidence_level):
    """The reader-averaged figure of ``r`` readers in one modality (values (r,), their
    case covariance (r, r)): ``(estimate, standard error, df, low, high)``."""
    r = values.shape[0]
    estimate = float(values.mean())
    ms_r = float(values.var(ddof=1)) if r > 1 else math.nan
    cov2 = _mean_off_diagonal(cov)
    if analysis == "random":
        term = r * max(cov2, 0.0)
        variance, df = (ms_r + term) / r, _hillis_df(ms_r, term, r - 1)
    elif analysis == "fixed_readers":
        # Var(θ̄) over cases only: (Var + (r − 1) Cov2) / r, the mean of the block
        variance, df = float(cov.mean()), math.inf
    else:
        variance, df = ms_r / r, float(r - 1)
    se = math.sqrt(variance) if variance >= 0 else math.nan
    low, high = _interval(estimate, se, df, confidence_level)
    return estimate, se, df, low, high


def _components(theta, cov):
    """Var, Cov1, Cov2, Cov3 (averages of the covariance matrix's blocks) and the mean
    squares of the t x r table."""
    t, r = theta.shape
    c = cov.reshape(t, r, t, r)
    same_mod = np.eye(t, dtype=bool)[:, None, :, None]
    same_rdr = np.eye(r, dtype=bool)[None, :, None, :]

    def mean(mask):
        mask = np.broadcast_to(mask, c.shape)
        return float(c[mask].mean()) if mask.any() else math.nan

    var = mean(same_mod & same_rdr)
    cov1 = mean(~same_mod & same_rdr)
    cov2 = mean(same_mod & ~same_rdr)
    cov3 = mean(~same_mod & ~same_rdr)
    grand = theta.mean()
    by_mod, by_rdr = theta.mean(axis=1), theta.mean(axis=0)
    ms_t = r * float(((by_mod - grand) ** 2).sum()) / (t - 1) if t > 1 else math.nan
    resid = theta - by_mod[:, None] - by_rdr[None, :] + grand
    ms_tr = (float((resid ** 2).sum()) / ((t - 1) * (r - 1)) if t > 1 and r > 1
             else math.nan)
    return {"var": var, "cov1": cov1, "cov2": cov2, "cov3": cov3, "ms_t": ms_t,
            "ms_tr": ms_tr}


def _difference_scale(comp, analysis, t, r):
    """``(variance of one modality difference, its df; F's denominator, ddf)``."""
    if analysis == "random":
        term = r * max(comp["cov2"] - comp["cov3"], 0.0)
        denominator = comp["ms_tr"] + term
        ddf = _hillis_df(comp["ms_tr"], term, (t - 1) * (r - 1))
    elif analysis == "fixed_readers":
        # Var(θ̄_i − θ̄_i')·r/2 over cases: Var − Cov1 + (r − 1)(Cov2 − Cov3)
        spread = 0.0 if r == 1 else (r - 1) * (comp["cov2"] - comp["cov3"])
        denominator, ddf = comp["var"] - comp["cov1"] + spread, math.inf
    else:
        denominator, ddf = comp["ms_tr"], float((t - 1) * (r - 1))
    return 2.0 * denominator / r, ddf, denominator


def _compare(name_a, name_b, est_a, est_b, variance, df, confidence_level):
    difference = est_a - est_b
    se = math.sqrt(variance) if variance > 0 else (0.0 if variance == 0 else math.nan)
    if se > 0:
        statistic = (difference / se) ** 2
    else:
        statistic = 0.0 if difference == 0 and se == 0 else math.nan
    pvalue = 1.0 if statistic == 0.0 else _f_pvalue(statistic, 1, df)
    low, high = _interval(difference, se, df, confidence_level)
    return ModalityComparison(name_a, name_b, float(est_a), float(est_b), float(difference),
                              low, high, se, float(statistic), float(df), pvalue)


def _check_analysis(analysis, r):
    if analysis is None:
        # one reader cannot stand for a population of readers
        return "random" if r > 1 else "fixed_readers"
    if not isinstance(analysis, str) or analysis not in ANALYSES:
        raise ValueError(f"analysis must be one of {ANALYSES} or None, got {analysis!r}")
    if r < 2 and analysis != "fixed_readers":
        raise ValueError(f"analysis={analysis!r} treats the readers as a random sample and "
                         "needs at least 2 readers; with one reader use "
                         "analysis='fixed_readers' (the paired comparison of its ratings)")
    return analysis


def reader_study(data=None, *, metric="auc", fpr_range=None, normalize="range", fpr=None,
                 interpolate=False, covariance="jackknife", analysis=None, model=None,
                 confidence_level=0.95, p_adjust="holm", n_resamples=2000,
                 random_state=None, pos_label=None, truth="truth", rating="rating",
                 reader="reader", modality="modality", case="case"):
    """Obuchowski-Rockette analysis of a multi-reader multi-case ROC study.

    Each reader rates each case in each modality; the figure of merit (the
    AUC, a partial AUC or the TPR at an FPR) is computed per reader and
    modality, averaged over the readers, and the modalities are compared with
    the readers' and the cases' variability both accounted for (Obuchowski &
    Rockette [1]_, Hillis's denominator degrees of freedom [2]_).  Ignoring the
    readers (pooling their ratings, or testing one reader) gives intervals and
    p-values that are wrong in both directions.

    Parameters
    ----------
    data : DataFrame, dict of arrays, or None
        The tidy table, one row per rating (anything whose ``data[name]`` is a
        column: a pandas DataFrame, a dict).  None: ``truth``, ``rating``,
        ``reader``, ``modality`` and ``case`` are the columns themselves.
    metric : {"auc", "partial_auc", "tpr_at_fpr"}, default="auc"
        The figure of merit, as :func:`roc_auc`, :func:`partial_auc` and
        :func:`tpr_at_fpr` compute it on each reader's ratings (the empirical,
        trapezoidal ROC curve; tied ratings count one half).
    fpr_range : (float, float), default=None
        The window of ``metric="partial_auc"`` (None: (0, 0.1)).
    normalize : {"range", "mcclish", "none"}, default="range"
        Of the partial AUC.
    fpr : float, default=None
        The FPR of ``metric="tpr_at_fpr"`` (None: 0.1).
    interpolate : bool, default=False
        Of ``metric="tpr_at_fpr"``: the best threshold rule (False) or the
        interpolated ROC curve's height (True).
    covariance : {"jackknife", "delong", "bootstrap"}, default="jackknife"
        How the case-sampling covariances of the figures are estimated: the
        jackknife over cases (O(K log K) per reader and modality, exact),
        DeLong's placement values [4]_ (``metric="auc"`` only), or the
        bootstrap of cases within each class (``n_resamples``,
        ``random_state``).
    analysis : {"random", "fixed_readers", "fixed_cases"}, default=None
        ``"random"``: random readers and cases (generalise to both
        populations); ``"fixed_readers"``: conclusions for these readers only;
        ``"fixed_cases"``: for these cases only (the ANOVA of the reader x
        modality table).  None: "random", or "fixed_readers" with one reader.
    model : reader label, default=None
        The single-modality design: the ratings of reader ``model`` are a
        model's scores, compared with the average of the other readers (one
        modality only).  The model is fixed; the readers and the cases follow
        ``analysis``.
    confidence_level : float, default=0.95
    p_adjust : {"holm", "bh"} or None, default="holm"
        Adjustment of the pairwise p-values for the family of pairs.
    n_resamples : int, default=2000
        Bootstrap resamples (``covariance="bootstrap"``).
    random_state : int, Generator or None
    pos_label : label, default=None
        The truth of the diseased (positive) cases; None: 1 (or True).
    truth, rating, reader, modality, case : str or array
        The column names (or, without ``data``, the columns).  ``modality=None``:
        one modality.

    Returns
    -------
    ReaderStudy
        ``estimates`` (per modality), ``modality_estimates`` (with intervals),
        ``statistic``, ``df``, ``pvalue`` (all modalities equal),
        ``comparisons`` (each pair: difference, interval, F, df, p-value) and
        ``pvalue_adjusted``; ``to_frame()`` tabulates them.

    Notes
    -----
    The design must be fully crossed (every reader rates every case in every
    modality, once): anything else is refused, naming a missing or repeated
    rating.  The variance components are those of [1]_ and [3]_: ``Var``,
    ``Cov1`` (same reader, other modality), ``Cov2`` (other reader, same
    modality), ``Cov3`` (other reader and modality), averaged from the case
    covariance matrix of the ``t x r`` figures.  See the module
    :mod:`pauc.inference._reader_study` for the formulas of the three analyses.

    With one reader and two modalities the analysis is DeLong's paired
    comparison of the two rating vectors (``covariance="delong"``), the same as
    :func:`compare_rankers` gives.

    References
    ----------
    .. [1] Obuchowski, N. A. and Rockette, H. E. "Hypothesis testing of
       diagnostic accuracy for multiple readers and multiple tests: an ANOVA
       approach with dependent observations." Communications in Statistics -
       Simulation and Computation 24(2), 1995.
    .. [2] Hillis, S. L. "A comparison of denominator degrees of freedom methods
       for multiple observer ROC analysis." Statistics in Medicine 26(3), 2007.
    .. [3] Hillis, S. L., Obuchowski, N. A., Schartz, K. M. and Berbaum, K. S.
       "A comparison of the Dorfman-Berbaum-Metz and Obuchowski-Rockette
       methods for receiver operating characteristic (ROC) data." Statistics
       in Medicine 24(10), 2005.
    .. [4] DeLong, E. R., DeLong, D. M. and Clarke-Pearson, D. L. "Comparing the
       Areas under Two or More Correlated Receiver Operating Characteristic
       Curves: A Nonparametric Approach." Biometrics 44(3), 1988.

    Examples
    --------
    >>> from pauc.datasets import load_vandyke
    >>> from pauc.metrics import reader_study
    >>> result = reader_study(load_vandyke())
    >>> {m: round(e, 4) for m, e in result.estimates.items()}
    {1: 0.897, 2: 0.9408}
    >>> round(result.statistic, 4), round(result.df[1], 3), round(result.pvalue, 4)
    (4.4563, 15.26, 0.0517)
    """
    _check_choice(metric, "metric", METRICS)
    _check_choice(covariance, "covariance", COVARIANCES)
    if covariance == "delong" and metric != "auc":
        raise ValueError("covariance='delong' is the AUC's (placement values); for a partial "
                         "AUC or a TPR use 'jackknife' or 'bootstrap'")
    confidence_level = _check_confidence_level(confidence_level)
    check_p_adjust(p_adjust)
    if covariance == "bootstrap":
        n_resamples = check_int(n_resamples, "n_resamples", 2)
    h, scale, settings = _merit(metric, fpr_range, normalize, fpr, interpolate)
    columns = [_column(data, truth, "truth"), _column(data, rating, "rating"),
               _column(data, reader, "reader"),
               None if modality is None else _column(data, modality, "modality"),
               _column(data, case, "case")]
    is_pos, ratings, modalities, readers, k = _design(*columns, pos_label)
    t = len(modalities)
    if model is not None:
        return _model_study(is_pos, ratings, modalities, readers, k, model, h, scale,
                            metric, settings, covariance, analysis, confidence_level,
                            p_adjust, n_resamples, random_state)
    r = len(readers)
    analysis = _check_analysis(analysis, r)
    vectors = [ratings[i, j] for i in range(t) for j in range(r)]
    figures, cov = _figures_and_covariance(is_pos, vectors, h, scale, covariance,
                                           n_resamples, random_state)
    theta = figures.reshape(t, r)
    comp = _components(theta, cov)
    per_modality = []
    for i, name in enumerate(modalities):
        block = cov[i * r:(i + 1) * r, i * r:(i + 1) * r]
        est, se, df, low, high = single_modality(theta[i], block, analysis, confidence_level)
        per_modality.append(ModalityEstimate(name, est, low, high, se, df))
    comparisons, statistic, df_pair, pvalue = [], math.nan, (math.nan, math.nan), math.nan
    if t > 1:
        variance, ddf, denominator = _difference_scale(comp, analysis, t, r)
        statistic = comp["ms_t"] / denominator if denominator > 0 else math.nan
        df_pair, pvalue = (float(t - 1), float(ddf)), _f_pvalue(statistic, t - 1, ddf)
        means = theta.mean(axis=1)
        comparisons = [_compare(modalities[a], modalities[b], means[a], means[b], variance,
                                ddf, confidence_level)
                       for a, b in combinations(range(t), 2)]
    adjusted = adjust_pvalues([c.pvalue for c in comparisons], p_adjust)
    return ReaderStudy(metric, settings, covariance, analysis, modalities, readers, k,
                       int(is_pos.sum()), theta,
                       {e.modality: e.estimate for e in per_modality}, tuple(per_modality),
                       float(statistic), df_pair, pvalue, tuple(comparisons), adjusted,
                       p_adjust, confidence_level, comp, cov, None,
                       n_resamples if covariance == "bootstrap" else None)


def _model_study(is_pos, ratings, modalities, readers, k, model, h, scale, metric, settings,
                 covariance, analysis, confidence_level, p_adjust, n_resamples, random_state):
    """The single-modality design: a model (one reader's column) against the others'
    average.  The per-reader differences ``D_j = θ_model − θ_j`` are analysed as
    one modality's figures: their mean is the difference, their spread over the
    readers its reader variance, the case covariance of the ``D_j`` its case
    variance (the model, fixed, adds no reader variance)."""
    if len(modalities) != 1:
        raise ValueError(f"model= compares a model with the readers in one modality; the "
                         f"table has {len(modalities)} modalities {list(modalities)}: pass "
                         "the rows of one modality")
    if model not in readers:
        raise ValueError(f"model={model!r} is not one of the readers {list(readers)}")
    index = readers.index(model)
    others = tuple(x for x in readers if x != model)
    r = len(others)
    if r < 1:
        raise ValueError("model= needs at least one reader besides the model")
    analysis = _check_analysis(analysis, r)
    order = [index] + [j for j in range(len(readers)) if j != index]
    vectors = [ratings[0, j] for j in order]
    figures, cov = _figures_and_covariance(is_pos, vectors, h, scale, covariance,
                                           n_resamples, random_state)
    theta_model, theta = figures[0], figures[1:]
    contrast = np.hstack((np.ones((r, 1)), -np.eye(r)))     # D_j = θ_model − θ_j
    diffs, diff_cov = contrast @ figures, contrast @ cov @ contrast.T
    est, se, df, low, high = single_modality(diffs, diff_cov, analysis, confidence_level)
    comparison = _compare(model, READERS, theta_model, theta.mean(), se * se, df,
                          confidence_level)
    model_se = math.sqrt(cov[0, 0])
    model_low, model_high = _interval(theta_model, model_se, math.inf, confidence_level)
    readers_est = single_modality(theta, cov[1:, 1:], analysis, confidence_level)
    per_modality = (ModalityEstimate(model, float(theta_model), model_low, model_high,
                                     model_se, math.inf),
                    ModalityEstimate(READERS, readers_est[0], readers_est[3], readers_est[4],
                                     readers_est[1], readers_est[2]))
    comp = _components(theta[None, :], cov[1:, 1:])
    return ReaderStudy(metric, settings, covariance, analysis, (model, READERS), others, k,
                       int(is_pos.sum()), theta[None, :],
                       {model: float(theta_model), READERS: readers_est[0]}, per_modality,
                       comparison.statistic, (1.0, comparison.df), comparison.pvalue,
                       (comparison,), adjust_pvalues([comparison.pvalue], p_adjust), p_adjust,
                       confidence_level, comp, cov, model,
                       n_resamples if covariance == "bootstrap" else None)
