"""The figures of one evaluation (`streamrank.plot`): the metric over training epochs
(`plot_epochs`) and a ROC or precision-recall curve (`plot_curve`)."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from .._extras import require as _require
from .._validation import describe, param_error

if TYPE_CHECKING:   # annotations only
    from matplotlib.figure import Figure

__all__ = ["plot_curve", "plot_epochs"]


# ============================================================ streamrank epochs
def plot_epochs(report: Mapping[str, Any],
                path: str | os.PathLike[str] | None = None) -> Figure:
    """Draw a `streamrank.epochs.summarize_epochs` report: metric, right/wrong ratio, churn.

    Three panels over the epochs, sharing the x axis: ``auc`` (or ``c_index`` and
    ``tau_b``) with the best epoch marked; the right/wrong ratio ``(C + T) / (D + T)``;
    the churn as bars (% of all pairs flipped since the epoch before). Built on
    ``matplotlib.figure.Figure`` (no ``pyplot``, no global backend), rendered by Agg.

    Parameters
    ----------
    report : dict
        From `streamrank.epochs.summarize_epochs`.
    path : str or path-like, optional
        Save the figure there (PNG, at 110 dpi).

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    Runtime complexity: ``O(epochs)`` to build the figure, plus matplotlib's rendering when
    it is saved.

    Examples
    --------
    >>> from streamrank.epochs import summarize_epochs
    >>> from streamrank.plot import plot_epochs
    >>> fig = plot_epochs(summarize_epochs([0, 1, 1], [[0.2, 0.1, 0.5], [0.1, 0.3, 0.5]]))
    >>> len(fig.axes)
    3
    """
    _require("matplotlib", "plot", "streamrank.plot")
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    def count(value) -> str:
        """An exact integer count as is, a weighted (float) one to 6 significant digits."""
        return str(value) if isinstance(value, int) else f"{value:.6g}"

    records = report["epochs"]
    metric = report["metric"]
    x = np.array([r["epoch"] for r in records])

    def column(name):
        return np.array([math.nan if r.get(name) is None else float(r[name])
                         for r in records])

    fig = Figure(figsize=(7.5, 7.0), layout="constrained")
    ax_metric, ax_ratio, ax_churn = fig.subplots(3, 1, sharex=True,
                                                 gridspec_kw={"height_ratios": [3, 2, 2]})
    label = "AUC" if metric == "auc" else "C-index"
    ax_metric.plot(x, column(metric), "o-", color="#1f77b4", label=label)
    if metric == "c_index":
        ax_metric.plot(x, column("tau_b"), "s--", color="#2ca02c", label="Kendall tau-b")
    best = report.get("best_epoch")
    if best is not None:
        for ax in (ax_metric, ax_ratio, ax_churn):
            ax.axvline(best, color="#d62728", ls=":", lw=1.2)
        ax_metric.plot([best], [column(metric)[best - 1]], "*", ms=14, color="#d62728",
                       label=f"best epoch {best}")
    stop = report.get("stop_epoch")
    if stop is not None:
        ax_metric.axvline(stop, color="0.3", ls="--", lw=1,
                          label=f"early stop (patience {report['patience']})")
    ax_metric.set_ylabel(label if metric == "auc" else "C-index / tau-b")
    ax_metric.legend(fontsize=8, loc="best")
    weighted = " (weighted)" if report.get("weighted") else ""
    ax_metric.set_title(f"{report['items']} items, {report['label_levels']} label levels, "
                        f"{count(report['comparable_pairs'])} comparable pairs{weighted}",
                        fontsize=10)
    ratio = column("right_wrong")
    ax_ratio.plot(x, np.where(np.isfinite(ratio), ratio, np.nan), "o-", color="#ff7f0e")
    ax_ratio.set_ylabel("right / wrong\n(C+T)/(D+T)")
    churn = 100.0 * column("churn_rate")
    ax_churn.bar(x, np.nan_to_num(churn), color="#9467bd", width=0.7)
    ax_churn.set_ylabel("churn\n% pairs flipped")
    ax_churn.set_xlabel("epoch")
    ax_churn.xaxis.set_major_locator(MaxNLocator(integer=True))
    for ax in (ax_metric, ax_ratio, ax_churn):
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize=8)
    if path is not None:
        fig.savefig(path, dpi=110)
    return fig


# ============================================================ streamrank eval --curve
_CURVES = ("roc", "pr")


def plot_curve(kind: str, x: ArrayLike, y: ArrayLike,
               path: str | os.PathLike[str] | None = None, *, area: float | None = None,
               interval: Any = None, title: str | None = None) -> Figure:
    """Draw a ROC curve (``kind="roc"``) or a precision-recall curve (``kind="pr"``).

    ROC: ``x`` the false and ``y`` the true positive rates of `streamrank.roc_curve`,
    joined by straight segments (a tie in score is a diagonal step), with the diagonal of
    a random ranking. PR: ``x`` the recall and ``y`` the precision of
    `streamrank.precision_recall_curve`, as a step curve, with the horizontal line of
    the positive rate (``y[0]``, the precision of all samples together). The legend
    shows ``area``: the AUC of a ROC curve, the average precision of a PR curve, and with
    ``interval`` (an `streamrank.AUCInterval`) its interval, also in the title. Built on
    ``matplotlib.figure.Figure`` (no ``pyplot``, no global backend), rendered by Agg.

    Parameters
    ----------
    kind : {"roc", "pr"}
    x, y : array-like of shape (m,)
        The curve's points.
    path : str or path-like, optional
        Save the figure there (PNG, at 110 dpi).
    area : float, optional
        The area shown in the legend (AUC or average precision).
    interval : AUCInterval, optional
        The interval of the AUC (ROC only): its ``low``, ``high``, ``level`` and
        ``method``.
    title : str, optional
        The title (default: the kind of curve, and the interval if any).

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    Runtime complexity: ``O(m)`` to build the figure, plus matplotlib's rendering when it
    is saved.

    Examples
    --------
    >>> from streamrank import roc_auc_ci, roc_curve
    >>> from streamrank.plot import plot_curve
    >>> y, s = [0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.2, 0.7]
    >>> fpr, tpr, _ = roc_curve(y, s)
    >>> ci = roc_auc_ci(y, s)
    >>> fig = plot_curve("roc", fpr, tpr, area=ci.auc, interval=ci)
    >>> fig.axes[0].get_xlabel(), len(fig.axes[0].lines)
    ('false positive rate', 2)
    """
    if kind not in _CURVES:
        raise param_error("kind", "plot_curve", f"one of {_CURVES}", describe(kind))
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.ndim != 1 or x.shape != y.shape:
        raise param_error("y", "plot_curve", f"a 1-D array of the shape of x {x.shape}",
                          f"an array of shape {y.shape}")
    if interval is not None and kind != "roc":
        raise param_error("interval", "plot_curve", "None for a precision-recall curve "
                          "(the interval is the ROC AUC's)", describe(interval))
    _require("matplotlib", "plot", "streamrank.plot")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.0, 6.0), dpi=110, layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    name = "AUC" if kind == "roc" else "AP"
    label = "curve" if area is None or area != area else f"{name} = {area:.4f}"
    ci = ""
    if interval is not None and interval.low == interval.low:
        ci = (f"{100 * interval.level:g}% CI [{interval.low:.4f}, {interval.high:.4f}] "
              f"({interval.method})")
        label += f", {ci}"
    if kind == "roc":
        ax.plot([0, 1], [0, 1], ls="--", color="0.5", lw=1, label="random ranking")
        ax.plot(x, y, color="#1f77b4", lw=2, label=label)
        ax.set_xlabel("false positive rate")
        ax.set_ylabel("true positive rate")
    else:
        if y.size:
            ax.axhline(y[0], ls="--", color="0.5", lw=1,
                       label=f"positive rate = {y[0]:.4f}")
        ax.plot(x, y, color="#1f77b4", lw=2, drawstyle="steps-post", label=label)
        ax.set_xlabel("recall")
        ax.set_ylabel("precision")
    ax.set_xlim(-0.01, 1.01)
    ax.set_ylim(-0.01, 1.01)
    ax.set_aspect("equal")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right" if kind == "roc" else "lower left", fontsize=9)
    if title is None:
        title = "ROC curve" if kind == "roc" else "Precision-recall curve"
        if ci:
            title += f"\nAUC {area:.4f}, {ci}"
    ax.set_title(title, fontsize=10)
    if path is not None:
        fig.savefig(path, format="png")
    return fig
