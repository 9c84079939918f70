"""Pictures where a picture beats a table: ROC curves with the partial-AUC band.

matplotlib is an optional dependency (``pip install "pauc[plot]"``); it is
imported when a function here is called, with a clear message when missing.
"""

import numpy as np

from ._validation import check_fpr_range
from .metrics import partial_auc, roc_curve
from .surrogates import surrogate

__all__ = ["plot_convergence", "plot_roc", "plot_roc_band", "plot_surrogates"]


def _pyplot():
    try:
        import matplotlib

        if matplotlib.get_backend().lower() not in ("agg", "module://matplotlib_inline.backend_inline"):
            # Files, not windows: the command line and the tests run headless.
            matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - exercised only without matplotlib
        raise ImportError(
            "pauc.plotting needs matplotlib: pip install 'pauc[plot]' (or pip install matplotlib)"
        ) from exc
    return plt


def plot_roc(y_true, scores, *, fpr_range=(0.0, 0.1), ax=None, inset=True, pos_label=None,
             title=None):
    """Draw ROC curves with the FPR window [α, β] shaded.

    Parameters
    ----------
    y_true : array of shape (n_samples,)
        Binary labels.
    scores : dict of {name: array of shape (n_samples,)} or a single array
        Scores of one or several rankers on the same samples.
    fpr_range : (float, float), default=(0.0, 0.1)
        The window shaded on the plot; each legend entry gives the ranker's
        AUC and partial AUC in it (``normalize="range"``).
    ax : matplotlib Axes, default=None
        Where to draw; a new figure when None.
    inset : bool, default=True
        Add a zoomed inset of the window (the part of the curve that the
        partial AUC measures is often a thin sliver of the full plot).
    pos_label : label, default=None
    title : str, default=None

    Returns
    -------
    ax : matplotlib Axes
    """
    plt = _pyplot()
    alpha, beta = check_fpr_range(fpr_range)
    if not isinstance(scores, dict):
        scores = {"scores": scores}
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 5.6))
    curves = {}
    for name, s in scores.items():
        fpr, tpr, _ = roc_curve(y_true, s, pos_label=pos_label)
        auc = np.trapezoid(tpr, fpr) if hasattr(np, "trapezoid") else np.trapz(tpr, fpr)
        p = partial_auc(y_true, s, fpr_range=(alpha, beta), pos_label=pos_label)
        curves[name] = (fpr, tpr)
        ax.plot(fpr, tpr, lw=1.6, label=f"{name}: AUC {auc:.3f}, pAUC {p:.3f}")
    ax.plot([0, 1], [0, 1], ls=":", color="0.5", lw=1)
    ax.axvspan(alpha, beta, color="tab:orange", alpha=0.15,
               label=f"FPR window [{alpha:g}, {beta:g}]")
    ax.set(xlim=(0, 1), ylim=(0, 1.01), xlabel="false-positive rate",
           ylabel="true-positive rate", title=title or "ROC curves")
    ax.legend(loc="lower right", fontsize="small")
    if inset and beta - alpha < 0.5:
        # above the legend (lower right), below the curves' plateau
        sub = ax.inset_axes([0.47, 0.5, 0.49, 0.3])
        pad = 0.1 * (beta - alpha)
        lo_x, hi_x = max(0.0, alpha - pad), min(1.0, beta + pad)
        lo_y, hi_y = 1.0, 0.0
        for fpr, tpr in curves.values():
            sub.plot(fpr, tpr, lw=1.4)
            grid = np.linspace(lo_x, hi_x, 50)
            heights = np.interp(grid, fpr, tpr)
            lo_y, hi_y = min(lo_y, heights.min()), max(hi_y, heights.max())
        sub.axvspan(alpha, beta, color="tab:orange", alpha=0.15)
        margin = 0.05 * max(hi_y - lo_y, 0.05)
        sub.set(xlim=(lo_x, hi_x), ylim=(max(0.0, lo_y - margin), min(1.01, hi_y + margin)))
        sub.tick_params(labelsize="x-small")
        sub.set_title("zoom on the window", fontsize="x-small")
        ax.indicate_inset_zoom(sub, edgecolor="0.4")
    return ax


def plot_roc_band(y_true, y_score, *, fpr_range=(0.0, 0.1), ax=None, label=None,
                  confidence_level=0.95, n_resamples=2000, n_points=60, random_state=None,
                  n_jobs=None, pos_label=None, color=None):
    """Shade a pointwise bootstrap band of one ranker's ROC curve over the FPR window.

    The band is :func:`pauc.metrics.roc_confidence_band`: at each of
    ``n_points`` FPRs of the window, the percentile interval of the heights
    of the stratified bootstrap resamples' curves.  Drawn on ``ax`` and on its
    inset axes (the zoom that :func:`plot_roc` adds), so that it sits under
    the curve it belongs to.

    Parameters
    ----------
    y_true, y_score : arrays of shape (n_samples,)
    fpr_range : (float, float), default=(0.0, 0.1)
    ax : matplotlib Axes, default=None
        Typically the axes returned by :func:`plot_roc`; a new figure when None.
    label : str, default=None
        Legend entry ("<label>: 95% band").
    confidence_level, n_resamples, n_points, random_state, n_jobs, pos_label
        As in :func:`pauc.metrics.roc_confidence_band`.
    color : matplotlib color, default=None
        The band's color (default: that of the curve labelled ``label`` by
        :func:`plot_roc` on ``ax``, else grey).

    Returns
    -------
    ax : matplotlib Axes

    References
    ----------
    .. [1] Efron, B. and Tibshirani, R. J. "An Introduction to the Bootstrap."
       Chapman & Hall, 1993.
    """
    from .metrics import roc_confidence_band

    plt = _pyplot()
    band = roc_confidence_band(y_true, y_score, fpr_range=fpr_range, n_points=n_points,
                               confidence_level=confidence_level, n_resamples=n_resamples,
                               random_state=random_state, n_jobs=n_jobs, pos_label=pos_label)
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 5.6))
    text = f"{100 * confidence_level:g}% bootstrap band"
    text = f"{label}: {text}" if label else text
    if color is None:
        # plot_roc labels each curve "<name>: AUC ..., pAUC ..."
        curves = [line for line in ax.get_lines()
                  if label and str(line.get_label()).startswith(f"{label}: ")]
        color = curves[0].get_color() if curves else "0.3"
    for k, axes in enumerate([ax] + list(ax.child_axes)):
        axes.fill_between(band.fpr, band.low, band.high, color=color, alpha=0.25,
                          lw=0, label=text if k == 0 else None, zorder=0)
    ax.legend(loc="lower right", fontsize="small")
    return ax


def plot_surrogates(X, y, w0, direction, *, fpr_range=(0.0, 0.1), t=None,
                    surrogates=("zero_one", "hinge", "tight", "naive"), ax=None, title=None):
    """Draw partial-AUC surrogates along the line ``w0 + t · direction``.

    A one-dimensional slice makes the differences visible: the 0-1 risk is a
    staircase, the hinge surrogate is continuous but (for α > 0) not convex
    (Theorem 2), the structural ones are convex and lie above the risk, the
    naive one above the tight one ([1]_, Figure 3).

    Parameters
    ----------
    X : array or scipy.sparse matrix of shape (n_samples, n_features)
    y : array of shape (n_samples,)
    w0, direction : arrays of shape (n_features,)
    fpr_range : (float, float), default=(0.0, 0.1)
    t : array, default=None
        Positions along the line (default: 201 points in [-2, 2]).
    surrogates : sequence of str
        Names understood by :func:`pauc.surrogates.surrogate`.
    ax : matplotlib Axes, default=None
    title : str, default=None

    Returns
    -------
    ax : matplotlib Axes

    References
    ----------
    .. [1] Narasimhan, H. and Agarwal, S. "Support Vector Algorithms for
       Optimizing the Partial Area Under the ROC Curve." Neural Computation
       29(7), 2017 (arXiv:1605.04337).
    """

    plt = _pyplot()
    w0 = np.asarray(w0, dtype=np.float64).ravel()
    direction = np.asarray(direction, dtype=np.float64).ravel()
    if w0.shape != direction.shape:
        raise ValueError(f"w0 and direction differ in shape: {w0.shape} != {direction.shape}")
    t = np.linspace(-2.0, 2.0, 201) if t is None else np.asarray(t, dtype=np.float64)
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 4.4))
    styles = {"zero_one": dict(color="black", lw=1.2, drawstyle="steps-mid"),
              "hinge": dict(color="tab:red", lw=1.8),
              "tight": dict(color="tab:blue", lw=1.8),
              "naive": dict(color="tab:gray", lw=1.5, ls="--")}
    for name in surrogates:
        values = [surrogate(name, w0 + ti * direction, X, y, fpr_range=fpr_range)[0] for ti in t]
        ax.plot(t, values, label=name.replace("_", "-"), **styles.get(name, {}))
    a, b = fpr_range
    ax.set(xlabel="t  (w = w0 + t · d)", ylabel="risk / surrogate",
           title=title or f"partial-AUC surrogates, FPR window [{a:g}, {b:g}]")
    ax.legend(fontsize="small")
    return ax


def _positive(values):
    """Values for a log axis: non-positive entries become NaN (not drawn).

    A violation can end slightly below zero (the stopping test is
    ``violation <= tol``) and ``xi`` is zero before the first cut; neither has
    a logarithm, and clipping them to a tiny number would draw a fake plunge.
    """
    values = np.asarray(values, dtype=np.float64)
    return np.where(values > 0, values, np.nan)


def _convergence_gap(history):
    """Objective gap per cutting-plane iteration, and how it was measured.

    ``primal - best dual so far`` (the master dual value is a lower bound on
    the optimum, so the gap bounds the suboptimality of that iterate); when
    no finite dual value was recorded, ``primal - final primal``.

    Parameters
    ----------
    history : dict of ndarray
        ``history_`` of a fitted structural SVM (keys ``primal`` and ``dual``).

    Returns
    -------
    gap : ndarray of shape (n_iter,)
        NaN where no dual value is available yet (the first iteration).
    label : str
    """
    primal = np.asarray(history["primal"], dtype=np.float64)
    dual = np.asarray(history["dual"], dtype=np.float64)
    if np.isfinite(dual).any():
        best_dual = np.maximum.accumulate(np.where(np.isfinite(dual), dual, -np.inf))
        with np.errstate(invalid="ignore"):
            gap = np.where(np.isfinite(best_dual), primal - best_dual, np.nan)
        return gap, "primal − best dual"
    return primal - primal[-1], "primal − final primal"


def plot_convergence(estimator, *, axes=None, title=None):
    """Draw the cutting-plane run of a fitted structural SVM, per iteration.

    Three panels from ``estimator.history_`` (Algorithm 1 of Narasimhan &
    Agarwal; one point per oracle call): the **violation** of the most
    violated constraint beyond the slack (``H(w) − ξ``; the method stops
    once it falls to ``tol``, drawn as a dashed line when the estimator has
    one) -- for the iterations of the proximal method (``history_["proximal"]``:
    a coarse-to-fine start, the CCCP steps) its stopping measure instead, the
    gap between ``J`` and its lower bound over ``C`` --, the **slack** ``ξ`` of
    the cuts held (of the model at the prox point), and the **objective gap**
    (primal minus the best master dual value, or
    minus the final primal when no dual value was recorded).  The violation
    and the gap are drawn on a log scale, where non-positive values are left
    out; ``ξ`` on a linear scale.

    Parameters
    ----------
    estimator : fitted AUCSVM, PartialAUCSVM or CuttingPlaneSolver
        Anything with a ``history_`` dict holding ``violation``, ``xi``,
        ``primal`` and ``dual`` arrays.
    axes : sequence of 3 matplotlib Axes, default=None
        Where to draw; a new figure with three panels side by side when None.
    title : str, default=None
        Title of the figure.

    Returns
    -------
    axes : ndarray of 3 matplotlib Axes
        Violation, ξ and gap panels.
    """
    history = getattr(estimator, "history_", None)
    if history is None:
        raise ValueError(
            f"{type(estimator).__name__} has no history_: plot_convergence needs a fitted "
            "cutting-plane estimator (AUCSVM, PartialAUCSVM); call fit first")
    missing = [k for k in ("violation", "xi", "primal", "dual")
               if not isinstance(history, dict) or k not in history]
    if missing:
        raise ValueError(f"history_ lacks the cutting-plane records {missing}")
    violation = np.asarray(history["violation"], dtype=np.float64)
    if violation.size == 0:
        raise ValueError("history_ is empty: the solver made no iteration")
    plt = _pyplot()
    if axes is None:
        fig, axes = plt.subplots(1, 3, figsize=(11.0, 3.4), layout="constrained")
    axes = np.asarray(axes, dtype=object).ravel()
    if axes.size != 3:
        raise ValueError(f"axes must hold 3 Axes, got {axes.size}")
    iteration = np.arange(1, violation.size + 1)
    gap, gap_label = _convergence_gap(history)

    ax = axes[0]
    ax.plot(iteration, _positive(violation), marker=".", color="tab:red", label="violation")
    tol = getattr(estimator, "tol", None)
    if tol is not None:
        ax.axhline(float(tol), ls="--", color="0.4", lw=1, label=f"tol = {float(tol):g}")
    proximal = np.asarray(history.get("proximal", np.zeros(violation.size, dtype=bool)),
                          dtype=bool)
    ylabel = ("H(w) − ξ" if not proximal.any() else
              "gap / C" if proximal.all() else "H(w) − ξ  or  gap / C (proximal)")
    ax.set(yscale="log", xlabel="iteration", ylabel=ylabel,
           title="most violated constraint" if not proximal.any() else "stopping measure")
    ax.legend(fontsize="small")

    ax = axes[1]
    ax.plot(iteration, np.asarray(history["xi"], dtype=np.float64), marker=".",
            color="tab:blue", label="ξ")
    ax.set(xlabel="iteration", ylabel="ξ", title="slack of the cuts held")

    ax = axes[2]
    ax.plot(iteration, _positive(gap), marker=".", color="tab:green", label=gap_label)
    ax.set(yscale="log", xlabel="iteration", ylabel=gap_label, title="objective gap")
    ax.legend(fontsize="small")
    if title is not None:
        axes[0].figure.suptitle(title)
    return axes


def plot_validation_history(ranker, *, ax=None, title=None):
    """Draw the validation criterion per boosting round of each candidate loss.

    The criterion is the validation pAUC of the window (averaged with that of a
    widened window when the window holds fewer than 100 validation negatives:
    ``validation_windows_``, named on the y axis).

    One curve per loss of a fitted :class:`pauc.gbm.GradientBoostingRanker`
    (``validation_history_``), each ending where early stopping stopped it, a
    marker at the round it kept (the middle of its best stretch of
    ``n_iter_no_change // 4`` rounds, whose mean is ``validation_score_``), and
    the kept loss drawn thicker.

    Parameters
    ----------
    ranker : fitted GradientBoostingRanker
        Fitted with a validation split (``early_stopping`` on).
    ax : matplotlib Axes, default=None
    title : str, default=None

    Returns
    -------
    ax : matplotlib Axes
    """
    history = getattr(ranker, "validation_history_", None)
    if not history:
        raise ValueError(
            f"{type(ranker).__name__} has no validation history: plot_validation_history "
            "needs a GradientBoostingRanker fitted with a validation split "
            "(early_stopping=True, or 'auto' with enough rows)")
    plt = _pyplot()
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 4.0))
    for loss, curve in history.items():
        kept = loss == ranker.best_loss_
        rounds = np.arange(1, len(curve) + 1)
        line, = ax.plot(rounds, curve, lw=2.2 if kept else 1.2,
                        label=f"{loss}: {ranker.validation_score_[loss]:.4f}"
                              + (" (kept)" if kept else ""))
        for label, at in ranker.validation_rounds_.items():
            if label.split("@")[0] == loss:
                ax.plot([at], [curve[at - 1]], "o" if "@" not in label else "s",
                        color=line.get_color(), ms=7 if (kept and at == ranker.n_iter_) else 4)
    windows = " and ".join(f"[{a:.3g}, {b:.3g}]" for a, b in ranker.validation_windows_)
    ylabel = (f"validation pAUC {windows}" if len(ranker.validation_windows_) == 1
              else f"validation: mean pAUC over {windows}")
    ax.set(xlabel="boosting round", ylabel=ylabel,
           title=title or "validation criterion per round")
    ax.legend(loc="lower right", fontsize="small")
    return ax
