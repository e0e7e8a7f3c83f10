"""The figure of a comparison of models (`streamrank.plot`): the GSD dominance graph and
the permutation tests of `streamrank.compare` (`plot_comparison`)."""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING

import numpy as np

from .._extras import require as _require
from .._validation import describe, param_error

if TYPE_CHECKING:   # annotations only; plot_comparison imports them when it runs
    from matplotlib.figure import Figure

    from ..compare import GSDFront, GSDTestResult

__all__ = ["plot_comparison"]


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

    from ..compare import GSDFront, GSDTestResult

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
