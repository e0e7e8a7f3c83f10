"""Every figure streamrank draws: one function per figure, each writing a PNG.

* `plot_history`: a `streamrank.monitor.Monitor`'s history (``streamrank monitor --plot``);
* `plot_segments`: a `streamrank.monitor.SegmentedMonitor`'s (``--segment COL --plot``);
* `plot_run`: the drifting stream of ``streamrank demo``, with River's binned ``ROCAUC``;
* `plot_comparison`: the GSD dominance graph and permutation tests of
  `streamrank.compare` (``streamrank compare --plot``);
* `plot_epochs`: a `streamrank.epochs.summarize_epochs` report (``streamrank epochs --plot``);
* `plot_curve`: a ROC or precision-recall curve (``streamrank eval --curve --plot``).

matplotlib is imported inside each function, so importing this module (or the command
line) does not import it. Figures are built on ``matplotlib.figure.Figure`` directly and
rendered by the Agg canvas: no ``pyplot``, no display, no change to matplotlib's global
backend, so they work headless, in threads and inside other applications.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
from numpy.typing import ArrayLike

from ._extras import require as _require
from ._validation import describe, param_error

if TYPE_CHECKING:   # annotations only; plot_comparison imports them when it runs
    from matplotlib.figure import Figure

    from .compare import GSDFront, GSDTestResult
    from .monitor import Report

__all__ = ["plot_comparison", "plot_curve", "plot_epochs", "plot_history", "plot_run",
           "plot_segments"]

#: The path a PNG is written to (`plot_history` and `plot_run` return it as given).
_Path = TypeVar("_Path", bound="str | os.PathLike[str]")


# ============================================================ streamrank monitor: a history
def plot_history(history: Iterable[Report], path: _Path, *,
                 extra: Mapping[str, tuple[ArrayLike, ArrayLike]] | None = None,
                 marks: Mapping[str, float] | None = None, title: str | None = None,
                 dates: bool = False, dpi: int = 100) -> _Path:
    """Draw a monitor's history to a PNG: the metric against events (or time), the
    reference and its band, the alerts and drifts marked.

    The x axis is the event count, or the time when every report has one (as numbers,
    or dates with ``dates=True``; ``extra`` and ``marks`` positions are then POSIX
    seconds too). The reference band is ``reference AUC +/- 1.96 SE``. Alerts
    (``p < alpha``) are red triangles on the curve; detector drifts are orange dotted
    vertical lines. With ``Monitor(estimate=True)``, the estimated AUC (which needs no
    label) is a dashed line beside the realized one. A lower panel shows the labeled and
    pending predictions in the window. Uses matplotlib's Agg canvas (no display, no
    global pyplot state).

    Parameters
    ----------
    history : iterable of Report or of PairedReport
        ``Monitor.history``; or ``PairedMonitor.history``: the champion's curve,
        reference and alerts as a single monitor's, the challenger's AUC as a second
        curve, and the paired alerts (the challenger significantly worse or better) as
        purple diamonds on it.
    path : str or path-like
        The PNG to write.
    extra : dict, optional
        ``{"name": (x, y)}``: more series on the same axes (e.g. River's approximate
        ``ROCAUC`` at the same events).
    marks : dict, optional
        ``{"name": x}``: labelled vertical lines (e.g. a known drift point).
    title : str, optional
        The figure title.
    dates : bool, default False
        The times are POSIX seconds (as `streamrank.io.events.parse_time` gives for ISO 8601
        timestamps): draw a calendar (UTC) axis.
    dpi : int, default 100
        The resolution of the PNG.

    Returns
    -------
    str or path-like
        ``path``.

    Examples
    --------
    >>> import os, tempfile
    >>> from streamrank.monitor import Monitor
    >>> m = Monitor(window=4, min_window=2)
    >>> for i, (s, y) in enumerate([(0.9, 1), (0.2, 0), (0.8, 1), (0.3, 0), (0.1, 1)]):
    ...     m.observe(i, score=s, label=y)
    ...     _ = m.report()
    >>> path = os.path.join(tempfile.mkdtemp(), "monitor.png")
    >>> plot_history(m.history, path) == path
    True
    >>> with open(path, "rb") as f:      # a PNG signature
    ...     f.read(4)[1:]
    b'PNG'
    """
    _require("matplotlib", "plot", "streamrank.plot")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    history = list(history)
    paired = [r for r in history if hasattr(r, "challenger")]
    if paired:      # a PairedMonitor's history: the champion's reports drawn as one
        history = [r.champion for r in paired]
    use_time = bool(history) and all(r.time is not None for r in history)
    x = np.array([r.time if use_time else r.events for r in history], dtype=float)
    as_x = _to_dates if use_time and dates else (lambda v: np.asarray(v, dtype=float))
    x = as_x(x)
    auc = np.array([r.auc for r in history], dtype=float)
    metric = history[-1].metric if history else "auc"
    ylabel = "ROC AUC" if metric == "auc" else "concordance (C-index)"
    fig = Figure(figsize=(10, 6), dpi=dpi)
    FigureCanvasAgg(fig)
    ax, ax2 = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [3, 1]})
    ax.plot(x, auc, color="tab:blue", lw=1.6, label=f"exact {ylabel} (window)")
    ref = np.array([r.reference_auc for r in history], dtype=float)
    if np.isfinite(ref).any():
        ref_auc = ref[np.isfinite(ref)][-1]
        ref_se = next((r.reference_se for r in reversed(history)
                       if r.reference_se == r.reference_se), math.nan)
        ax.axhline(ref_auc, color="tab:green", lw=1.2, ls="--",
                   label=f"reference {ref_auc:.4f}")
        if ref_se == ref_se:
            ax.axhspan(ref_auc - 1.96 * ref_se, ref_auc + 1.96 * ref_se, color="tab:green",
                       alpha=0.15, label="reference \u00b1 1.96 SE")
    est = np.array([r.estimated_auc for r in history], dtype=float)
    if np.isfinite(est).any():      # Monitor(estimate=True): the AUC before the labels
        ax.plot(x, est, color="tab:orange", lw=1.2, ls="--",
                label="estimated AUC (calibration, every prediction)")
        if paired:
            ax.plot(x, [r.challenger.estimated_auc for r in paired], color="tab:purple",
                    lw=1.0, ls="--", label="challenger's estimated AUC")
    extra_colors = ("tab:purple", "tab:brown", "tab:pink", "tab:olive", "tab:cyan")
    for k, (name, (ex, ey)) in enumerate((extra or {}).items()):
        ax.plot(as_x(ex), np.asarray(ey, dtype=float), lw=1.2,
                color=extra_colors[k % len(extra_colors)], label=name)
    if paired:
        b_auc = np.array([r.challenger.auc for r in paired], dtype=float)
        ax.plot(x, b_auc, color="tab:purple", lw=1.4,
                label=f"challenger {ylabel} (window)")
        pa = [i for i, r in enumerate(paired) if r.paired_alert]
        if pa:
            ax.plot(x[pa], b_auc[pa], "D", color="tab:purple", ms=5, ls="none",
                    label=f"challenger {_SIDE[paired[-1].alternative]} (paired "
                          f"test): {len(pa)}")
    al = [i for i, r in enumerate(history) if r.alert]
    if al:
        ax.plot(x[al], auc[al], "v", color="tab:red", ms=6, ls="none",
                label=f"alert (p < alpha): {len(al)}")
    dr = [i for i, r in enumerate(history) if r.drift]
    for j, i in enumerate(dr):
        ax.axvline(x[i], color="tab:orange", ls=":", lw=1.2,
                   label="detector drift" if j == 0 else None)
    for k, (name, pos) in enumerate((marks or {}).items()):
        ax.axvline(as_x([pos])[0], color=f"C{(k + 5) % 10}", ls="-.", lw=1.4, label=name)
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower left", fontsize=8, framealpha=0.9)
    ax.set_title(title or f"streamrank monitor: exact rolling {ylabel}")
    ax2.plot(x, [r.n for r in history], color="tab:blue", lw=1.2, label="labeled")
    ax2.plot(x, [r.pending for r in history], color="tab:gray", lw=1.2, label="pending")
    ax2.set_ylabel("in window")
    ax2.set_xlabel(("time (UTC)" if dates else "time") if use_time else "events")
    if use_time and dates:
        fig.autofmt_xdate()
    ax2.grid(True, alpha=0.3)
    ax2.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, format="png")
    return path


#: How a paired alert reads in the legend, by the paired test's alternative.
_SIDE = {"less": "worse", "greater": "better", "two-sided": "different"}


def _to_dates(seconds):
    """POSIX seconds as numpy UTC datetimes, which matplotlib draws on a calendar axis."""
    ms = np.round(np.asarray(seconds, dtype=float) * 1000).astype(np.int64)
    return ms.astype("datetime64[ms]")


def plot_segments(history: Iterable[Any], path: _Path, *, title: str | None = None,
                  dates: bool = False, max_lines: int = 8, dpi: int = 100) -> _Path:
    """Draw a `streamrank.monitor.SegmentedMonitor`'s history to a PNG: one line per
    segment (its window's AUC), the group AUC of the window in black, each segment's
    alerts (corrected p-value below alpha) as red triangles on its line.

    With more than ``max_lines`` segments, the ``max_lines`` whose lowest AUC over the
    history is lowest are drawn (the legend says how many are left out). The x axis is
    as `plot_history`'s (events, or the time when every report has one; ``dates``: POSIX
    seconds on a calendar axis). A lower panel shows each drawn segment's labeled
    predictions in the window. Returns the path.

    >>> import os, tempfile
    >>> from streamrank.monitor import SegmentedMonitor
    >>> m = SegmentedMonitor(window=4, min_window=2)
    >>> for i, (g, s, y) in enumerate([("a", .9, 1), ("b", .2, 0), ("a", .3, 0),
    ...                                ("b", .8, 1), ("a", .1, 1)]):
    ...     m.observe(i, segment=g, score=s, label=y)
    ...     _ = m.report()
    >>> path = os.path.join(tempfile.mkdtemp(), "segments.png")
    >>> plot_segments(m.history, path) == path
    True
    """
    _require("matplotlib", "plot", "streamrank.plot")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    history = list(history)
    use_time = bool(history) and all(r.time is not None for r in history)
    x = np.array([r.time if use_time else r.events for r in history], dtype=float)
    x = _to_dates(x) if use_time and dates else x
    names: list = []
    for r in history:                       # every segment, first come first
        names += [s for s in r.segments if s not in names]
    auc = {s: np.full(len(history), np.nan) for s in names}
    n = {s: np.full(len(history), np.nan) for s in names}
    alert = {s: np.zeros(len(history), dtype=bool) for s in names}
    for i, r in enumerate(history):
        for s, rep, a in zip(r.segments, r.reports, r.alerts):
            auc[s][i], n[s][i], alert[s][i] = rep.auc, rep.n, a
    low = {s: np.nanmin(v) if np.isfinite(v).any() else np.inf for s, v in auc.items()}
    shown = sorted(names, key=lambda s: low[s])[:max_lines]
    shown = [s for s in names if s in shown]
    fig = Figure(figsize=(10, 6), dpi=dpi)
    FigureCanvasAgg(fig)
    ax, ax2 = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [3, 1]})
    for k, s in enumerate(shown):
        color = f"C{k % 10}"
        ax.plot(x, auc[s], color=color, lw=1.3, label=f"{s}")
        hit = alert[s]
        if hit.any():
            ax.plot(x[hit], auc[s][hit], "v", color="tab:red", ms=5, ls="none")
        ax2.plot(x, n[s], color=color, lw=1.0)
    ax.plot(x, [r.gauc for r in history], color="black", lw=1.8, ls="--",
            label="group AUC (all segments)")
    if any(a.any() for a in alert.values()):
        ax.plot([], [], "v", color="tab:red", ls="none", label="alert (corrected p < alpha)")
    if len(names) > len(shown):
        ax.plot([], [], ls="none", label=f"({len(names) - len(shown)} segments not drawn)")
    ax.set_ylabel("ROC AUC (window)")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower left", fontsize=8, framealpha=0.9, ncol=2)
    ax.set_title(title or "streamrank monitor: exact rolling AUC per segment")
    ax2.set_ylabel("labeled")
    ax2.set_xlabel(("time (UTC)" if dates else "time") if use_time else "events")
    if use_time and dates:
        fig.autofmt_xdate()
    ax2.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, format="png")
    return path


# ============================================================ streamrank demo: a stream run
def plot_run(run: Any, path: _Path, *, title: str | None = None) -> _Path:
    """Draw the exact rolling AUC, River's ``ROCAUC`` and the alerts to a PNG at ``path``.

    `plot_history` of the run's reports, with River's binned ``ROCAUC``
    of the same window as an extra series (from the first full window on: before it River's
    few-sample, 10-bin estimate falls far below and would squash the drift out of view)
    and the drift point marked. ``run`` is the demo's `streamrank.cli.demo_run.StreamRun`
    (typed ``Any`` here: it belongs to a higher layer). Returns the path.
    """
    full = [c for c in run.checkpoints if c.events >= run.window]
    extra = {"River ROCAUC, same window (10 bins)": ([c.events for c in full],
                                                     [c.river_auc for c in full])}
    marks = {f"drift point ({run.drift_at:,})": run.drift_at} \
        if run.drift_at is not None else None
    return plot_history(run.reports, path, extra=extra, marks=marks, title=title)


# ============================================================ streamrank compare: GSD
def _layers(front: GSDFront) -> list[list[int]]:
    """Models by dominance depth: the GSD front, then the front of the rest, and so on.

    The empirical relation need not be transitive; a strict cycle left without an
    undominated model goes, whole, into the last layer.
    """
    left = list(range(len(front.models)))
    layers = []
    while left:
        top = [j for j in left if not any(front.strict[i, j] for i in left)]
        if not top:
            layers.append(left)
            break
        layers.append(top)
        left = [j for j in left if j not in top]
    return layers


def _draw_graph(ax, front: GSDFront) -> None:
    layers = _layers(front)
    pos = {}
    for depth, layer in enumerate(layers):
        for t, j in enumerate(layer):
            pos[j] = ((t + 1) / (len(layer) + 1), 1.0 - (depth + 0.5) / len(layers))
    for i, j in zip(*np.nonzero(front.strict)):
        ax.annotate("", xy=pos[j], xytext=pos[i],
                    arrowprops={"arrowstyle": "-|>", "color": "0.35", "lw": 1.2,
                                "shrinkA": 14, "shrinkB": 14})
    in_front = set(front.front)
    in_pareto = set(front.pareto_front)
    for j, (x, y) in pos.items():
        name = front.models[j]
        face = "#fdd49e" if name in in_front else "#f0f0f0"
        edge = "#d7301f" if name in in_pareto else "0.5"
        ax.text(x, y, str(name), ha="center", va="center", fontsize=9,
                fontweight="bold" if name in in_front else "normal",
                bbox={"boxstyle": "round,pad=0.4", "facecolor": face, "edgecolor": edge,
                      "linewidth": 1.5})
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_axis_off()
    ax.set_title(f"GSD dominance graph (epsilon={front.epsilon:g})\n"
                 "arrow: strict dominance; filled: GSD front; red border: Pareto front",
                 fontsize=9)


def _draw_null(ax, test: GSDTestResult, k: int) -> None:
    pt = test.tests[k]
    dist = pt.null_distribution
    bins = min(40, max(10, len(np.unique(np.round(dist, 12)))))
    ax.hist(dist, bins=bins, color="#9ecae1", edgecolor="white")
    ax.axvline(pt.statistic, color="#d7301f", lw=2, label=f"observed {pt.statistic:.3f}")
    crit = float(np.quantile(dist, test.level))
    ax.axvline(crit, color="0.2", ls="--", lw=1, label=f"{test.level:.3g}-quantile")
    ax.set_title(f"{test.model} vs {pt.competitor}: p = {pt.p_value:.3f}"
                 + (" (rejected)" if pt.rejected else ""), fontsize=9)
    ax.tick_params(labelsize=8)
    ax.legend(fontsize=7, loc="upper left")


def plot_comparison(front: GSDFront | None = None, test: GSDTestResult | None = None,
                    path: str | os.PathLike[str] | None = None) -> Figure:
    """Dominance graph of ``front`` and permutation distributions of ``test``.

    Parameters
    ----------
    front : GSDFront, optional
        Drawn as a layered graph: GSD front on top, arrows for strict dominances.
    test : GSDTestResult, optional
        One histogram per competitor: the re-split statistics, the observed statistic
        (red) and the critical value at the test's level (dashed).
    path : str or path-like, optional
        Where to save the figure (the format follows the extension, e.g. ``.png``).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from streamrank.compare import cardinal, performance_table, gsd_front
    >>> from streamrank.plot import plot_comparison
    >>> t = performance_table({"model": list("aabb"), "dataset": [1, 2] * 2,
    ...                        "acc": [.9, .8, .7, .6]}, metrics=[cardinal("acc")])
    >>> fig = plot_comparison(gsd_front(t))
    >>> len(fig.axes)
    1
    """
    _require("matplotlib", "plot", "streamrank.plot")
    from matplotlib.figure import Figure

    from .compare import GSDFront, GSDTestResult

    if front is None and test is None:
        raise param_error("front", "plot_comparison", "a GSDFront when test is None", "None")
    if front is not None and not isinstance(front, GSDFront):
        raise param_error("front", "plot_comparison", "a GSDFront from gsd_front or None",
                          describe(front), TypeError)
    if test is not None and not isinstance(test, GSDTestResult):
        raise param_error("test", "plot_comparison", "a GSDTestResult from gsd_test or None",
                          describe(test), TypeError)
    n_hist = len(test.tests) if test is not None else 0
    cols = min(3, n_hist) if n_hist else 0
    rows = math.ceil(n_hist / cols) if n_hist else 1
    width = (5.0 if front is not None else 0.0) + 3.6 * cols
    fig = Figure(figsize=(width, max(4.0, 2.8 * rows)), layout="constrained")
    grid = fig.add_gridspec(rows, (2 if front is not None else 0) + cols)
    if front is not None:
        _draw_graph(fig.add_subplot(grid[:, :2]), front)
    offset = 2 if front is not None else 0
    for k in range(n_hist):
        _draw_null(fig.add_subplot(grid[k // cols, offset + k % cols]), test, k)
    if path is not None:
        fig.savefig(path, dpi=110)
    return fig


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
