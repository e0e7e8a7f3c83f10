"""Every figure streamrank draws, as PNG files; matplotlib is imported inside each function
(only when a figure is drawn), and figures render through Agg, without ``pyplot``.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["plot_epochs"]


def plot_epochs(report: dict, path=None):
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
