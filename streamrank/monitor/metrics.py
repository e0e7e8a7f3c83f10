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

__all__ = ["METRIC_KEYS", "metrics"]

_NAN = math.nan

#: The keys of `metrics`, in order: the latest report's readings, the counters, and the
#: labels waiting for their prediction now (a label wait); then the detector's detections
#: (a counter, added after the first release of the dict).
METRIC_KEYS = ("window_auc", "window_auc_low", "window_auc_high", "reference_auc",
               "p_value", "window_labeled", "window_pending", "events", "predictions",
               "labels", "rescored", "late_dropped", "alerts", "joined_labels",
               "unmatched_labels", "waiting_labels", "detections")

# counter key -> the Monitor.stats entry it reads
_COUNTERS = {"events": "events", "predictions": "predictions", "labels": "labeled",
             "rescored": "rescored", "late_dropped": "dropped", "alerts": "alerts",
             "joined_labels": "joined", "unmatched_labels": "unmatched"}


def metrics(mon) -> dict[str, float | int]:
    """The numbers of ``mon`` (a `Monitor`) a metrics endpoint exposes, for users who push
    them elsewhere; see `Monitor.metrics`. Runtime: O(1)."""
    stats = dict(mon.stats)     # one C-level copy: consistent even while another thread feeds
    history = mon.history
    last = history[-1] if history else None
    if last is None:
        out: dict[str, float | int] = dict.fromkeys(METRIC_KEYS[:5], _NAN)
        out["window_labeled"] = out["window_pending"] = 0
    else:
        out = {"window_auc": last.auc, "window_auc_low": last.low,
               "window_auc_high": last.high, "reference_auc": last.reference_auc,
               "p_value": last.p_value, "window_labeled": last.n,
               "window_pending": last.pending}
    for key, stat in _COUNTERS.items():
        out[key] = stats[stat]
    out["waiting_labels"] = mon.waiting
    out["detections"] = stats["detections"]
    return out
