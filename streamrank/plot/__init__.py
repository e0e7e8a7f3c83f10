"""Every figure streamrank draws: one function per figure, each writing a PNG.

* `plot_history`: a `streamrank.monitor.Monitor`'s history (``streamrank monitor --plot``);
* `plot_segments`: a `streamrank.monitor.SegmentedMonitor`'s (``--segment COL --plot``);
* `plot_run`: the drifting stream of ``streamrank demo``, with River's binned ``ROCAUC``;
* `plot_comparison`: the GSD dominance graph and permutation tests of
  `streamrank.compare` (``streamrank compare --plot``);
* `plot_epochs`: a `streamrank.epochs.summarize_epochs` report (``streamrank epochs --plot``);
* `plot_curve`: a ROC or precision-recall curve (``streamrank eval --curve --plot``).

The figures of a monitor over time are in ``_monitor``, the comparison of models in
``_compare``, the figures of one evaluation (epochs, curves) in ``_evaluation``.
matplotlib is imported inside each function, so importing this package (or the command
line) does not import it. Figures are built on ``matplotlib.figure.Figure`` directly and
rendered by the Agg canvas: no ``pyplot``, no display, no change to matplotlib's global
backend, so they work headless, in threads and inside other applications.
"""

from ._compare import plot_comparison
from ._evaluation import plot_curve, plot_epochs
from ._monitor import plot_history, plot_run, plot_segments

__all__ = ["plot_comparison", "plot_curve", "plot_epochs", "plot_history", "plot_run",
           "plot_segments"]
