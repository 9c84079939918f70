"""Clustered rows: the group labels, and the cluster bootstrap of ROC areas.

Rows of one cluster (the lesions of one patient, the transactions of one
account) are not independent: a resample of rows treats them as if they were,
and its intervals are too narrow.  The cluster bootstrap resamples whole
groups ([1]_, Sec. 3.8; [2]_), keeping the class strata as far as groups allow.

**The stratification rule.**  Each group falls in one of three strata by the
labels of its rows: *positives only*, *negatives only*, or *both*.  A resample
draws, in every stratum, as many groups as the stratum holds, uniformly with
replacement, and a row counts as many times as its group was drawn.  So every
resample holds at least one positive and one negative, the number of groups
of each composition is fixed, and with one row per group (the strata are then
the positives and the negatives) it is exactly the stratified row bootstrap:
given the same multiplicities the areas are the row bootstrap's to the last
bit.  The resampled class sizes vary when groups differ in size or when
groups hold both classes; each resample's ROC curve is normalised by its own
class totals.

References
----------
.. [1] Davison, A. C. and Hinkley, D. V. "Bootstrap Methods and their
   Application." Cambridge University Press, 1997.
.. [2] Field, C. A. and Welsh, A. H. "Bootstrapping clustered data." Journal of
   the Royal Statistical Society B 69(3), 2007.
"""

import math
import warnings

import numpy as np
from joblib import Parallel, delayed

from . import _bootstrap, _cluster_bootstrap
from ._resampling import (StratifiedBootstrap, _descending, blocks, kernel_state,
                          resample_blocks)

STRATA = ("positives only", "negatives only", "both")


def _run_of_entry(ends, first):
    """The run (global index) of each sorted entry, from the runs' ends (int32)."""
    lengths = np.diff(np.concatenate(([0], ends)))
    return np.repeat(np.arange(first, first + ends.shape[0], dtype=np.intc), lengths)


def _is_missing(label):
    """Whether one label (of an object array) is a missing value, whatever its type:
    None; a value unequal to itself (float NaN of any width, NaT, Decimal NaN); or
    a value whose comparison with itself is itself (``pandas.NA``, whose
    comparisons are NA) -- ``pandas.isna``'s cases, without importing pandas."""
    if label is None:
        return True
    try:
        differs = label != label
    except Exception:        # (an incomparable label: refused below as unsortable)
        return False
    if isinstance(differs, (bool, np.bool_)):
        return bool(differs)
    return differs is label


def check_groups(groups, n_samples):
    """The group of each row as integer codes ``0..G-1`` (None stays None).

    Any sortable labels (ints, strings, ...), one per row.  Missing labels are
    refused whatever the dtype (NaN or infinity in a float array; None, NaN,
    ``pandas.NA`` or NaT in an object array, as a pandas column with missing
    values becomes): a missing id names no cluster, and NaN among objects
    scrambles the sort that codes them (rows of one cluster got different codes).
    """
    if groups is None:
        return None
    labels = np.asarray(groups)
    if labels.ndim != 1:
        raise ValueError(f"groups must be one label per row (1-D), got shape {labels.shape}")
    if labels.shape[0] != n_samples:
        raise ValueError(f"groups and y_true differ in length: {labels.shape[0]} != "
                         f"{n_samples}")
    if labels.dtype.kind == "f" and not np.isfinite(labels).all():
        raise ValueError("groups contains NaN or infinity: missing cluster ids; give every "
                         "row its cluster")
    if labels.dtype.kind == "O":
        missing = np.flatnonzero([_is_missing(label) for label in labels])
        if missing.shape[0]:
            raise ValueError(
                f"groups contains {missing.shape[0]} missing ids (None, NaN, NA or NaT), "
                f"at rows {missing[:5].tolist()}{' ...' if missing.shape[0] > 5 else ''}: "
                "give every row its cluster (or drop the rows)")
    if labels.dtype.kind not in "biufUSO":
        raise ValueError(f"groups must hold integer or string labels, got dtype {labels.dtype}")
    try:
        _, codes = np.unique(labels, return_inverse=True)
    except TypeError:
        raise ValueError("groups must hold labels of one sortable kind "
                         "(all ints or all strings)") from None
    return codes.reshape(-1).astype(np.int64)


def group_composition(is_pos, group_index):
    """``(positives, negatives)`` of each group (int64 arrays of shape (G,)),
    refusing fewer than two groups holding each class (nothing then varies
    between clusters of that class)."""
    n_groups = int(group_index.max()) + 1 if group_index.shape[0] else 0
    group_pos = np.bincount(group_index[is_pos], minlength=n_groups).astype(np.int64)
    group_neg = np.bincount(group_index[~is_pos], minlength=n_groups).astype(np.int64)
    with_pos, with_neg = np.count_nonzero(group_pos), np.count_nonzero(group_neg)
    if with_pos < 2 or with_neg < 2:
        raise ValueError(f"clustered inference needs at least 2 groups holding positives and "
                         f"2 holding negatives (got {with_pos} and {with_neg}); without groups= "
                         "the rows are taken as independent")
    return group_pos, group_neg


# Below this many clusters holding a class (and redrawn by the resamples), the cluster
# bootstrap's interval is too narrow: a resample shows that class's spread through as
# many draws as there are such clusters, as the row bootstrap shows it through the rows
# of the rarer class (pauc.inference._intervals.FEW_CLASS_ROWS, the same count).  From 20
# clusters on, the coverage of the nominal 95 % AUC interval is that of many clusters
# (measured: bench/bench_cluster_coverage.py; the table is in
# docs/user_guide/inference.rst, 'Few clusters').
FEW_CLASS_CLUSTERS = 20


def strata_of(group_pos, group_neg):
    """The stratum of each group (0 positives only, 1 negatives only, 2 both)."""
    return np.where(group_neg == 0, 0, np.where(group_pos == 0, 1, 2))


def check_cluster_resampling(is_pos, group_index, stacklevel=2):
    """Refuse a class that no cluster resample varies, warn when few clusters do.

    A resample draws, in each stratum, as many clusters as the stratum holds: a
    cluster alone in its stratum is drawn once in every resample.  When every
    cluster holding a class is so (issue 46: 15 positives alone in "positives
    only", 15 more in the one cluster of "both"), every resample holds the
    same rows of that class, and the interval ignores that class's spread
    altogether -- the clustered analogue of one row of a class, which the row
    bootstrap refuses.  Obuchowski's variance (``method="delong"`` for the AUC)
    has no strata and is not concerned.  Below ``FEW_CLASS_CLUSTERS`` redrawn
    clusters holding a class, the interval is too narrow: warn.
    """
    group_pos, group_neg = group_composition(is_pos, group_index)
    stratum = strata_of(group_pos, group_neg)
    redrawn = np.bincount(stratum, minlength=len(STRATA))[stratum] >= 2
    counts = {}
    for name, in_class in (("positives", group_pos > 0), ("negatives", group_neg > 0)):
        varying = int(np.count_nonzero(in_class & redrawn))
        if varying == 0:
            lonely = [STRATA[k] for k in np.unique(stratum[in_class])]
            raise ValueError(
                f"the cluster bootstrap cannot vary the {name}: every cluster holding "
                f"{name} is alone in its stratum ({', '.join(map(repr, lonely))}), so every "
                f"resample draws the same {name} and the interval would ignore their spread; "
                "use Obuchowski's variance (roc_auc_ci or compare_rankers with "
                "method='delong', the AUC only), or label more clusters")
        counts[name] = (varying, int(np.count_nonzero(in_class & ~redrawn)))
    name = min(counts, key=lambda k: counts[k][0])
    varying, fixed = counts[name]
    if varying < FEW_CLASS_CLUSTERS:
        also = (f" (and {fixed} alone in its stratum, drawn in every resample)" if fixed
                else "")
        warnings.warn(
            f"{varying} clusters holding {name} are redrawn by the cluster bootstrap{also}: "
            f"below {FEW_CLASS_CLUSTERS} its intervals are too narrow (a nominal 95 % AUC "
            "interval covers about 0.85 with 5 clusters, 0.65 with 2) and its p-values too "
            "small; Obuchowski's interval (method='delong', the AUC) is a little wider but "
            "no cure", UserWarning, stacklevel=stacklevel + 1)


class ClusterBootstrap:
    """Resampled ROC areas of one or several score vectors, whole groups drawn.

    The same interface as :class:`pauc.inference._resampling.StratifiedBootstrap`
    (``observed``, ``resample``), for clustered rows; see the module's
    stratification rule.

    Parameters
    ----------
    is_pos : bool array of shape (n_samples,)
    scores : list of float arrays of shape (n_samples,)
    group_index : int64 array of shape (n_samples,)
        Codes ``0..G-1`` (:func:`check_groups`).
    """

    def __init__(self, is_pos, scores, group_index):
        is_pos = np.asarray(is_pos, dtype=bool)
        self.m = int(np.count_nonzero(is_pos))
        self.n = int(is_pos.shape[0] - self.m)
        self.group_pos, self.group_neg = group_composition(is_pos, group_index)
        stratum = strata_of(self.group_pos, self.group_neg)
        self.stratum_groups = np.argsort(stratum, kind="stable").astype(np.int64)
        self.stratum_start = np.searchsorted(stratum[self.stratum_groups],
                                             np.arange(len(STRATA) + 1)).astype(np.int64)
        self.pos, self.pos_group = self._sorted(scores, is_pos, group_index)
        self.neg, self.neg_group = self._sorted(scores, ~is_pos, group_index)
        # each score's merged order in runs (straight pieces of every resampled curve)
        runs = [_bootstrap.merged_runs(p, q, -np.inf) for p, q in zip(self.pos, self.neg)]
        self.pos_end = np.concatenate([r[0] for r in runs])
        self.neg_end = np.concatenate([r[1] for r in runs])
        self.run_start = np.cumsum([0] + [r[0].shape[0] for r in runs]).astype(np.int64)
        # the resamples' walks stream through the groups and their runs (int32)
        self.pos_group32 = self.pos_group.astype(np.intc)
        self.neg_group32 = self.neg_group.astype(np.intc)
        self.run_of_pos_entry = np.stack([
            _run_of_entry(ends, first) for (ends, _, _), first in zip(runs, self.run_start)])
        self.run_of_neg_entry = np.stack([
            _run_of_entry(ends, first) for (_, ends, _), first in zip(runs, self.run_start)])

    @staticmethod
    def _sorted(scores, in_class, group_index):
        """Each score vector's rows of one class sorted descending, and their groups."""
        rows = np.flatnonzero(in_class)
        values, groups = [], []
        for s in scores:
            descending, order = _descending(np.asarray(s, dtype=np.float64)[rows], True)
            values.append(descending)
            groups.append(group_index[rows[order]])
        return np.stack(values), np.ascontiguousarray(np.stack(groups), dtype=np.int64)

    def weighted(self, group_counts, fpr_lo, fpr_hi, tpr_floor, grid=None):
        """Areas (shape (S,)) of the rows counted as often as their group."""
        return _cluster_bootstrap.group_areas(
            self.pos, self.pos_group, self.neg, self.neg_group, self.group_pos,
            self.group_neg, np.ascontiguousarray(group_counts, dtype=np.intc), fpr_lo, fpr_hi,
            tpr_floor, grid)

    def observed(self, fpr_lo, fpr_hi, tpr_floor, grid=None):
        """The sample's own areas (every group once), and heights at ``grid`` if given."""
        return self.weighted(np.ones(self.group_pos.shape[0], dtype=np.intc), fpr_lo, fpr_hi,
                             tpr_floor, grid)

    def _prefix_runs(self, fpr_hi):
        """Per score, the runs a resample's walk to FPR ``fpr_hi`` is expected to need:
        down to the ``k``-th negative, ``k`` a generous margin above ``fpr_hi n`` (a
        resample of clusters spreads more than one of rows; a walk needing more
        redoes itself over every run, so the margin changes the cost only)."""
        target = fpr_hi * self.n
        k = math.ceil(1.2 * target + 6.0 * math.sqrt(target) + 10.0)
        prefix = []
        for s in range(self.pos.shape[0]):
            ends = self.neg_end[self.run_start[s]:self.run_start[s + 1]]
            prefix.append(ends.shape[0] if k >= self.n
                          else int(np.searchsorted(ends, k, side="left")) + 1)
        return np.array(prefix, dtype=np.int64)

    def _block(self, seed, size, fpr_lo, fpr_hi, tpr_floor, grid, counts_out=None):
        state = kernel_state(np.random.Generator(np.random.PCG64(seed)))
        return _cluster_bootstrap.cluster_resample_areas(
            self.pos_group32, self.neg_group32, self.run_of_pos_entry, self.run_of_neg_entry,
            self.pos_end, self.neg_end, self.run_start, self._prefix_runs(fpr_hi),
            self.group_pos, self.group_neg, self.stratum_groups, self.stratum_start, size, state,
            fpr_lo, fpr_hi, tpr_floor, grid, counts_out)

    def _tpr_block(self, seed, size, fpr, group_counts=None):
        state = kernel_state(np.random.Generator(np.random.PCG64(seed)))
        return _cluster_bootstrap.cluster_resample_tpr(
            self.pos[0], self.pos_group[0], self.neg[0], self.neg_group[0], self.group_pos,
            self.group_neg, self.stratum_groups, self.stratum_start, size, state, fpr,
            None if group_counts is None else np.ascontiguousarray(group_counts,
                                                                   dtype=np.intc))

    def weighted_tpr(self, group_counts, fpr):
        """:func:`pauc.metrics.tpr_at_fpr` of the (first) score vector with the rows
        counted as often as their group (all ones: the sample's own value)."""
        return float(self._tpr_block(np.random.SeedSequence(0), 1, fpr, group_counts)[0])

    def resample_tpr(self, n_resamples, random_state, fpr, *, n_jobs=None):
        """:func:`pauc.metrics.tpr_at_fpr` of ``n_resamples`` cluster resamples of the
        (first) score vector: array (n_resamples,)."""
        return np.concatenate(Parallel(n_jobs=n_jobs, backend="threading")(
            delayed(self._tpr_block)(seed, size, fpr)
            for seed, size in blocks(n_resamples, random_state)))

    def one_block(self, seed, size, fpr_lo, fpr_hi, tpr_floor):
        """One block's areas (size, S) and group multiplicities (size, G), for tests
        and replays."""
        counts = np.zeros((size, self.group_pos.shape[0]), dtype=np.intc)
        return self._block(seed, size, fpr_lo, fpr_hi, tpr_floor, None, counts), counts

    def resample(self, n_resamples, random_state, fpr_lo, fpr_hi, tpr_floor, *,
                 n_jobs=None, grid=None):
        """Areas of ``n_resamples`` cluster resamples: array (n_resamples, S); with
        ``grid`` also the heights (n_resamples, G) of the (single) resampled curve.
        Blocks are seeded as the row bootstrap's: the same ``random_state`` gives
        the same resamples whatever ``n_jobs``."""
        return resample_blocks(self._block, n_resamples, random_state, fpr_lo, fpr_hi,
                               tpr_floor, n_jobs=n_jobs, grid=grid)


def bootstrap_of(is_pos, scores, fpr_hi, group_index=None):
    """The row bootstrap (stratified by class), or with groups the cluster bootstrap."""
    if group_index is None:
        return StratifiedBootstrap(is_pos, scores, fpr_hi)
    return ClusterBootstrap(is_pos, scores, group_index)
