"""The window objective and the window pAUC metric of XGBoost's distributed training.

:class:`GlobalWindowObjective` and :class:`GlobalWindowMetric` are XGBoost
callables (``obj(predt, dtrain) -> (grad, hess)``, ``custom_metric(predt,
dmatrix) -> (name, value)``) for ``xgboost.dask.train`` -- or any XGBoost
training inside a communicator (Spark, Ray).  Each worker calls them on its
own partition; they reduce across the workers with
:func:`xgboost.collective.allreduce`, so that:

* the objective boosts the window loss of the **global** window -- the
  ``j_alpha + 1 .. j_beta``-th highest negatives of all rows
  (:mod:`pauc.distributed._global_window`) -- with O(bins) numbers sent per
  worker and round, no row leaving its worker;
* the metric is the exact partial AUC of every validation row of every worker
  (every pair counted, unlike XGBoost's distributed ``auc``, which averages
  per-worker areas), the same value on every worker, so that early stopping
  stops every worker at the same round.

Both refuse sample weights (``DMatrix(weight=...)``): a weighted window would
need the FPR range measured in negative weight.  Labels must be 0 / 1.

Losses: ``"exponential"`` (the factorised window exponential loss) and
``"logloss"`` (pointwise, no reduction: the reference), and their mixture
``logloss_weight * logloss + exponential``.  The hinge losses need the sorted
window and are single-process only.

Scale: as in :mod:`pauc.objectives`, the gradients are those of the mean loss
times the number of rows of *all* workers, and the exponential alone is
divided by its largest gradient entry (over all workers).

Timeouts: a dead worker makes the others' next allreduce fail once XGBoost's
communicator times out (``coll_cfg=xgboost.collective.Config(timeout=...)``);
the failure is raised as :class:`pauc.distributed._collective.CollectiveError`.

References
----------
Chen, T. and Guestrin, C. "XGBoost: A Scalable Tree Boosting System." KDD 2016.

Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for Optimizing the
Partial Area Under the ROC Curve." Neural Computation 29(7), 2017.
"""

import uuid

import numpy as np

from .. import _ranking
from .._loss import _window as _window_losses
from .._loss import loss_names, loss_row
from .._loss._bound import mixture
from ..gbm.objectives import as_scores
from ..gbm._sample_weights import refuse_sample_weights
from .._validation import check_fpr_range
from ._collective import XGBoostCollective
from ._folds import decode_labels
from ._global_window import global_counts
from ._rank_selection import DEFAULT_BINS, select_ranks

__all__ = ["DISTRIBUTED_LOSSES", "GlobalWindowObjective", "GlobalWindowMetric", "records",
           "forget"]

# the rows of the loss table with a global kernel (or pointwise): see its "global"
DISTRIBUTED_LOSSES = loss_names("global")

# Per-call records of objectives built with ``record=name``, in the process that
# called them (a Dask worker): read with ``client.run(records, name)``.
_RECORDS = {}


def records(name):
    """The records of the objectives built with ``record=name`` in this process."""
    return _RECORDS.get(name, [])


def forget(name):
    """Drop the records kept under ``name`` in this process."""
    _RECORDS.pop(name, None)


def _labels(dmatrix, fold_coded=False, held_out=None):
    """The positives of the local rows (labels 0 / 1), and with ``fold_coded``
    (labels ``is_positive + 2 fold``, :func:`pauc.distributed._folds.fold_labels`)
    the rows outside fold ``held_out`` (None when every row counts)."""
    refuse_sample_weights(dmatrix)
    if fold_coded:
        return decode_labels(dmatrix.get_label(), held_out)
    if held_out is not None:
        raise ValueError("held_out needs fold-coded labels (fold_coded=True)")
    y = dmatrix.get_label()
    bad = (y != 0) & (y != 1)
    if bad.any():
        raise ValueError("the distributed window objective and metric take labels 0 / 1 "
                         f"(1 positive), got {np.unique(y[bad])[:5].tolist()}")
    return y == 1, None


def _check_finite(scores, comm):
    # every worker must raise together, or the others would wait in the next allreduce
    bad = int(comm.sum(np.array([0 if np.isfinite(scores).all() else 1], dtype=np.int64))[0])
    if bad:
        raise ValueError("scores contain NaN or infinity (the boosted scores diverged: "
                         "lower the learning rate)")


class GlobalWindowObjective:
    """XGBoost custom objective: a window loss over the global window of every worker.

    Parameters
    ----------
    fpr_range : (float, float), default=(0.0, 0.1)
    loss : {"exponential", "logloss"}, default="exponential"
    logloss_weight : float >= 0, default=0.0
        ``w`` of the mixture ``w * logloss + exponential``.
    bins : int, default=1024
        Histogram bins per border and selection round (a power of two).
    record : str or None, default=None
        Keep a record of each call (window, sums, reductions, bytes) under this
        name in the calling process (:func:`records`); ``record_scores`` also
        keeps the local scores and labels.
    fold_coded : bool, default=False
        The labels carry each row's fold, ``is_positive + 2 fold``
        (:mod:`pauc.distributed._folds`): one XGBoost matrix of every row
        serves every fold of a cross-fitted fit.
    held_out : int or None, default=None
        With ``fold_coded``: the rows of this fold are held out -- their
        gradient and Hessian are zero, so no tree reads their labels -- and
        the window and its sums are those of the other rows.

    Attributes
    ----------
    history : list of dict
        The records of this object's calls (in the process that called it).
    """

    def __init__(self, fpr_range=(0.0, 0.1), loss="exponential", *, logloss_weight=0.0,
                 bins=DEFAULT_BINS, record=None, record_scores=False, fold_coded=False,
                 held_out=None):
        self.fpr_range = check_fpr_range(fpr_range)
        self.loss = loss
        self.row = loss_row(loss, "global")
        if not self.row.window and logloss_weight:
            raise ValueError("logloss_weight mixes log-loss into the window loss; "
                             "it has no meaning with loss='logloss'")
        if not logloss_weight >= 0:
            raise ValueError(f"logloss_weight must be >= 0, got {logloss_weight!r}")
        self.logloss_weight = float(logloss_weight)
        self.bins = int(bins)
        self.record, self.record_scores = record, record_scores
        if held_out is not None and not fold_coded:
            raise ValueError("held_out needs fold-coded labels (fold_coded=True)")
        self.fold_coded, self.held_out = bool(fold_coded), held_out
        self._counts = self._is_pos = self._is_neg = self._role = None
        self._data = self._training = None
        self.history = []

    def __call__(self, predt, dtrain):
        comm = XGBoostCollective()
        data = (dtrain.handle.value, dtrain.num_row())
        if self._is_pos is None or self._data != data:
            self._is_pos, self._training = _labels(dtrain, self.fold_coded, self.held_out)
            self._data = data
            # each row's role, 1 byte: 1 positive, 0 negative, 2 held out -- the kernels
            # skip a held-out row in place (a copy of the training rows' scores and
            # derivatives would cost 12 bytes per row)
            self._role = self._is_pos.view(np.uint8)
            if self._training is not None:
                self._role = np.where(self._training, self._role, np.uint8(2))
            self._is_neg = self._role == 0
            training = self._is_pos if self._training is None \
                else self._is_pos[self._training]
            self._counts = global_counts(training, self.fpr_range, comm)
        scores = as_scores(predt, dtrain.num_row())
        _check_finite(scores, comm)
        return self._derivatives(scores, comm)

    def _derivatives(self, scores, comm):
        """The loss's gradient and Hessian at ``scores`` (zero on a held-out row), by
        the row's protocol (:class:`pauc._loss._bound.BoundLoss`'s, on the global
        window): the pointwise log-loss part per row, the window part by the row's
        global kernel."""
        role, counts, row = self._role, self._counts, self.row
        pointwise, normalize = mixture(row, self.logloss_weight)
        # XGBoost keeps float32 gradients: a window loss alone adds its float64
        # derivatives into float32 zeros (one rounding, as XGBoost's own cast would do),
        # 8 bytes per row fewer and no copy; the log-loss kernel writes float64
        dtype = np.float32 if pointwise == 0 else np.float64
        grad, hess = np.zeros(scores.shape[0], dtype), np.zeros(scores.shape[0], dtype)
        record = {"rank": comm.rank, "world_size": comm.world_size}
        if pointwise > 0 and scores.shape[0]:
            # pointwise: the per-row gradient w (p - y) needs no reduction
            _window_losses.logloss(scores, role, grad, hess,
                                   scale=pointwise * scores.shape[0], with_value=False)
            if self._training is not None:
                # pointwise: a held-out row's (role 2 reads as positive) is dropped
                grad[~self._training] = 0.0
                hess[~self._training] = 0.0
        if row.window:
            # the negatives read in place (a copy of them would cost 4 bytes per row)
            record.update(row.global_derivatives(
                scores, role, counts, comm, grad, hess, mask=self._is_neg, bins=self.bins,
                scale=float(counts.n_rows), normalize=normalize,
                curvature=row.curvature))
        record.update(allreduces=comm.n_calls, bytes_sent=comm.bytes_sent)
        if self.record_scores:
            record.update(scores=scores.copy(), is_pos=self._is_pos.copy())
        self.history.append(record)
        if self.record is not None:
            _RECORDS.setdefault(self.record, []).append(record)
        return grad, hess

    def __repr__(self):
        return (f"GlobalWindowObjective(fpr_range={self.fpr_range!r}, loss={self.loss!r}, "
                f"logloss_weight={self.logloss_weight!r})")


def gather(values, comm):
    """Every worker's ``values`` concatenated in rank order, on every worker: each
    worker writes its values into its slot of a zero vector, one ``sum``."""
    values = np.asarray(values, dtype=np.float64)
    sizes = np.zeros(comm.world_size, dtype=np.int64)
    sizes[comm.rank] = values.shape[0]
    sizes = comm.sum(sizes)
    start = int(sizes[:comm.rank].sum())
    slots = np.zeros(int(sizes.sum()))
    slots[start:start + values.shape[0]] = values
    return comm.sum(slots)


def global_class_counts(is_pos, comm):
    """``(positives, negatives)`` of the rows of every worker (one ``sum`` of two
    numbers); both classes are needed."""
    n_pos_local = int(np.count_nonzero(is_pos))
    m, n = (int(v) for v in comm.sum(np.array(
        [n_pos_local, is_pos.shape[0] - n_pos_local], dtype=np.int64)))
    if m == 0 or n == 0:
        raise ValueError(f"the evaluation rows of all workers hold {m} positives and "
                         f"{n} negatives; the partial AUC needs both classes")
    return m, n


class GlobalWindowMetric:
    """XGBoost custom metric: the exact validation partial AUC over every worker's rows.

    The mean of ``partial_auc(..., normalize="range")`` over ``windows`` of the
    scores of every worker.  The area over FPR ``<= beta`` depends only on the
    negatives down to the ``k = floor(n beta) + 1``-th highest and the
    positives scored at least as high (:func:`pauc.metrics.partial_auc`
    selects them the same way): that cutoff is found by the distributed
    selection, then those scores -- the top of the ROC curve, about ``beta n``
    negatives and the positives above them -- are gathered on every worker
    and the in-memory walk (:func:`pauc._ranking.partial_area`) runs there.

    Parameters
    ----------
    windows : list of (float, float)
        FPR windows whose mean pAUC is reported (one window: its pAUC).
    bins : int, default=1024
    record : str or None, default=None
        Keep each value, at full precision, under this name in the calling
        process (:func:`records`); XGBoost's evaluation log rounds it.
    with_logloss : bool, default=False
        Also report the mean log-loss of the raw margins over every worker's
        rows (one ``sum`` of two numbers), named ``"logloss"``.
    fold_coded : bool, default=False
        The labels carry each row's fold (:class:`GlobalWindowObjective`).
    held_out : int or None, default=None
        With ``fold_coded``: evaluate the rows of this fold only -- the
        held-out rows of the training matrix itself, whose margins XGBoost
        keeps in its prediction cache (no second matrix, no prediction).
    """

    def __init__(self, windows, bins=DEFAULT_BINS, record=None, with_logloss=False,
                 fold_coded=False, held_out=None):
        if isinstance(windows, tuple) and len(windows) == 2 and np.isscalar(windows[0]):
            windows = [windows]
        self.windows = [check_fpr_range(w) for w in windows]
        self.bins = int(bins)
        self.name = "+".join(f"pauc[{a:g},{b:g}]" for a, b in self.windows)
        self.record, self.with_logloss = record, with_logloss
        if held_out is not None and not fold_coded:
            raise ValueError("held_out needs fold-coded labels (fold_coded=True)")
        self.fold_coded, self.held_out = bool(fold_coded), held_out
        self._labels = {}
        self.bytes_sent = []
        self.history = []
        # each metric pickles to bytes of its own: dask.distributed (2024.x) caches the
        # functions it unpickles by their bytes, and a training whose metric and
        # stopping callback came from that cache would start from another's records
        self._token = uuid.uuid4().hex

    def _counts(self, dmatrix, comm):
        key = (dmatrix.handle.value, dmatrix.num_row())
        if key not in self._labels:
            is_pos, training = _labels(dmatrix, self.fold_coded, self.held_out)
            rows = None if training is None else ~training
            if rows is not None:
                is_pos = is_pos[rows]
            self._labels[key] = (is_pos, rows, *global_class_counts(is_pos, comm))
        return self._labels[key]

    def value(self, predt, dmatrix):
        comm = XGBoostCollective()
        is_pos, rows, m, n = self._counts(dmatrix, comm)
        scores = as_scores(predt, dmatrix.num_row())
        if rows is not None:
            scores = scores[rows]
        return self.value_of(scores, is_pos, m, n, comm)

    def value_of(self, scores, is_pos, m, n, comm):
        """The record of local ``scores`` and labels ``is_pos`` of ``m`` positives and
        ``n`` negatives over every worker (:func:`global_class_counts`)."""
        _check_finite(scores, comm)
        pos, neg = scores[is_pos], scores[~is_pos]
        k = min(n, int(np.floor(n * max(b for _, b in self.windows))) + 1)
        if k < n:
            (cutoff,), _ = select_ranks(neg, [k], n, comm, self.bins)
            pos, neg = pos[pos >= cutoff.value], neg[neg >= cutoff.value]
        pos, neg = np.sort(gather(pos, comm)), np.sort(gather(neg, comm))
        self.bytes_sent.append(comm.bytes_sent)
        value = float(np.mean([
            _ranking.partial_area(pos, neg, a, b, 0.0, tp_total=float(m), fp_total=float(n))
            / (b - a) for a, b in self.windows]))
        record = {"value": value, "bytes_sent": comm.bytes_sent, "rows": int(is_pos.shape[0])}
        if self.with_logloss:
            margin = np.where(is_pos, scores, -scores).astype(np.float64)
            total = float(comm.sum(np.array([np.logaddexp(0.0, -margin).sum()]))[0])
            record["logloss"] = total / (m + n)
        if self.record is not None:
            _RECORDS.setdefault(self.record, []).append(record)
        self.last = record
        self.history.append(record)
        return record

    def values(self):
        """This object's records so far, one per call (in the process that called
        it): what a stopping callback pickled with it reads."""
        return self.history

    def __call__(self, predt, dmatrix):
        record = self.value(predt, dmatrix)
        if self.with_logloss:
            return [(self.name, record["value"]), ("logloss", record["logloss"])]
        return self.name, record["value"]

    def __repr__(self):
        return f"GlobalWindowMetric(windows={self.windows!r})"
