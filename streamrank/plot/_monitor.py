"""The figures of a monitor over time (`streamrank.plot`): a `Monitor`'s or a
`PairedMonitor`'s history (`plot_history`), a `SegmentedMonitor`'s (`plot_segments`), and
the demo's run (`plot_run`)."""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
from numpy.typing import ArrayLike

from .._extras import require as _require

if TYPE_CHECKING:   # annotations only
    from ..monitor import Report

__all__ = ["plot_history", "plot_run", "plot_segments"]

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
