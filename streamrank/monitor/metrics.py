"""The numbers a metrics scrape exposes of a `streamrank.monitor.Monitor`, as a plain dict.

`metrics` reads the monitor's latest report and its cumulative statistics only: it
changes nothing (no report is made, the detector is not fed), so an exporter may call it
at scrape time from another thread while one thread feeds the monitor. The latest report
is immutable and the statistics are copied in one step, so nothing raises and no counter
goes back; the numbers of one call add up only when the feeding thread's events and the
call hold one lock (README, "Thread safety"; ``streamrank monitor --metrics-port`` does).
"""

from __future__ import annotations

import math

from .counters import MONITOR

__all__ = ["METRIC_KEYS", "metrics"]

_NAN = math.nan

#: The latest report's readings in `metrics`, in order.
REPORT_KEYS = ("window_auc", "window_auc_low", "window_auc_high", "reference_auc",
               "p_value", "window_labeled", "window_pending")
# metrics key -> the Monitor.stats entry it reads: every counter with a metric key
_COUNTERS = {c.metric: c.name for c in MONITOR if c.metric is not None}
#: The keys of `metrics`, in order: the latest report's readings, the counters
#: (`streamrank.monitor.counters`), and the labels waiting for their prediction now.
METRIC_KEYS = REPORT_KEYS + tuple(_COUNTERS) + ("waiting_labels",)


def metrics(mon) -> dict[str, float | int]:
    """The numbers of ``mon`` (a `Monitor`) a metrics endpoint exposes, for users who push
    them elsewhere; see `Monitor.metrics`. Runtime: O(1)."""
    stats = dict(mon.stats)     # one C-level copy: consistent even while another thread feeds
    history = mon.history
    last = history[-1] if history else None
    if last is None:
        out: dict[str, float | int] = dict.fromkeys(REPORT_KEYS[:5], _NAN)
        out["window_labeled"] = out["window_pending"] = 0
    else:
        out = {"window_auc": last.auc, "window_auc_low": last.low,
               "window_auc_high": last.high, "reference_auc": last.reference_auc,
               "p_value": last.p_value, "window_labeled": last.n,
               "window_pending": last.pending}
    for key, stat in _COUNTERS.items():
        out[key] = stats[stat]
    out["waiting_labels"] = mon.waiting
    return out
