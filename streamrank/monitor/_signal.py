"""The per-event signal a `streamrank.monitor.Monitor` feeds its drift detector.

Each time a prediction *becomes labeled* in the window (a new prediction that comes with
its label, or a late label joining a pending prediction), its **placement value** is
computed against the window as it is after the event:

    v = (C + T/2) / (C + D + T)

over the pairs the prediction forms with the window's other labeled predictions (``C``
ordered correctly, ``D`` wrongly, ``T`` tied scores; each pair weighted by the other
prediction's weight). With binary labels that is, for a positive, (weight of the negatives
with a lower score + half the weight of the tied ones) / weight of the negatives, and for
a negative the same with the positives above it: the share of the opposite class it orders
correctly, ties one half. The (class-weighted) mean of the placements is the AUC; with
non-binary labels the same formula is the prediction's share of Harrell's concordance.

The value is fed to the detector only when the window then holds at least ``min_window``
labeled predictions, the prediction has a positive weight, and it forms at least one
comparable pair (``C + D + T > 0``: the opposite class is held); otherwise nothing is fed.
A relabel, re-score or reweight of an already labeled prediction feeds nothing (the
series has one value per prediction that becomes labeled).

The prediction itself is held by the engine when its placement is read, but a sample
forms no comparable pair with itself (same label: a label tie), so it is never counted
against itself. Runtime complexity: ``O(log W)`` per value (the engine's
`PairEngine.pairs_with_many`, in C, after `Monitor._fresh_counts` hands it the window's
waiting changes) plus the detector's update.
"""

from __future__ import annotations

import numpy as np

from ..windows import sync

__all__ = ["feed", "placement"]


def placement(mon, y: float, s: float) -> float | None:
    """The placement value of a labeled prediction ``(y, s)`` held in ``mon``'s window
    (None when it forms no comparable pair). Syncs the engine first (`Monitor._fresh_counts`
    when a recount is due; else only the waiting changes, without building its counts).
    ``O(log W)``."""
    engine = sync(mon._win, mon._engine, "Monitor.observe", recount=False)
    if engine.stale:
        mon._fresh_counts()
    c, d, t, _, _ = engine.pairs_with_many(np.array([y], dtype=np.float64),
                                                np.array([s], dtype=np.float64))
    total = c + d + t
    if not total > 0:
        return None
    return float((c + t / 2) / total)


def feed(mon, y: float, s: float, w) -> None:
    """A prediction ``(y, s, w)`` of ``mon``'s window became labeled: feed its placement
    to the detector (under the module's conditions), note a detection."""
    if not w > 0 or mon._win.n_labeled < mon.min_window:
        return
    v = placement(mon, y, s)
    if v is None:
        return
    det = mon._detector
    det.update(v)
    if mon._replay:
        mon._series.append(v)
    if det.drift_detected:
        mon.stats["detections"] += 1
        mon._drift_since_report = True
        mon._last_detection = mon.stats["events"]
