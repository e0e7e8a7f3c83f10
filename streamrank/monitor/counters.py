"""The monitor's counters: one list of names, each with what it counts.

Every cumulative count a monitor keeps is declared here once, in order: `Monitor.stats`
(and `PairedMonitor.stats`, `SegmentedMonitor.stats`) hold exactly these keys, the
snapshots store them by name, `Monitor.metrics` exposes those with a ``metric`` key, and
``streamrank monitor --metrics-port`` serves each of those as a Prometheus counter
(`Counter.family`, then ``_total``) with ``help`` as its help text. Adding a counter is one
more `Counter` here and the code that counts it: a snapshot written before it existed
still loads, reading it as 0 (`restore`).

>>> from streamrank.monitor.counters import MONITOR, names, restore
>>> names(MONITOR)[:4]
('events', 'predictions', 'labeled', 'late')
>>> restore({"events": 7}, MONITOR)["events"], restore({"events": 7}, MONITOR)["late"]
(7, 0)
>>> restore({"evnets": 7}, MONITOR)
Traceback (most recent call last):
ValueError: unknown counter 'evnets' (known: events, predictions, labeled, late, ...)
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["COMMAND", "Counter", "MONITOR", "PAIRED", "SEGMENTED", "from_snapshot", "names",
           "restore", "zeros"]


class Counter(NamedTuple):
    """One cumulative count: its key in ``stats``, what it counts, its key in
    ``metrics()`` (None: not exported) and, where it is not ``streamrank_<metric>``, the
    name of its Prometheus family."""

    name: str
    help: str
    metric: str | None = None
    prometheus: str | None = None

    @property
    def family(self) -> str:
        """The Prometheus family of the counter (its samples add ``_total``)."""
        return self.prometheus or f"streamrank_{self.metric}"


#: The counters of one model's monitor (`Monitor.stats`), in order.
MONITOR = (
    Counter("events", "Events observed.", "events"),
    Counter("predictions", "New predictions observed.", "predictions"),
    Counter("labeled", "Labels counted (with the prediction or late).", "labels"),
    Counter("late", "Labels that came after their prediction, while it was in the window."),
    Counter("rescored", "Re-scores of predictions in the window.", "rescored"),
    Counter("relabeled", "New labels of predictions already labeled."),
    Counter("dropped", "Labels or weights whose prediction had left the window (late).",
            "late_dropped"),
    Counter("unmatched", "Labels or weights that met no prediction: early or never "
            "predicted (with --label-wait, once their wait ran out).", "unmatched_labels"),
    Counter("early", "Unmatched labels whose prediction came afterwards."),
    Counter("early_lead", "The most events from an early label to its prediction (a "
            "maximum, not a sum: the --label-wait that would have joined them)."),
    Counter("evicted", "Predictions that left the window."),
    Counter("evicted_pending", "Predictions that left the window without a label."),
    Counter("reports", "Reports made."),
    Counter("alerts", "Reports with an alert or a detector drift.", "alerts"),
    Counter("joined", "Labels or weights that waited for their prediction and joined it "
            "(--label-wait).", "joined_labels"),
    Counter("detections", "Times the drift detector fired (--detector).", "detections"),
)

#: A champion/challenger monitor's counters beyond `MONITOR` (`PairedMonitor.stats`).
PAIRED = MONITOR + (
    Counter("paired_alerts", "Reports whose paired test alerted (--alert-on).",
            "paired_alerts"),
)

#: A segmented monitor's own counters (`SegmentedMonitor.stats`: the events of the whole
#: stream, and the labels that reached no segment); its segments count theirs.
SEGMENTED = (
    Counter("events", "Events observed, all segments.", "events",
            "streamrank_stream_events"),
    Counter("dropped", "Labels or weights without a segment whose prediction had left its "
            "segment's window (late).", "late_dropped", "streamrank_stream_late_dropped"),
    Counter("unmatched", "Labels or weights without a segment that met no prediction "
            "(early or never predicted; with --label-wait, once their wait ran out).",
            "unmatched_labels", "streamrank_stream_unmatched_labels"),
    Counter("early", "Unmatched labels without a segment whose prediction came "
            "afterwards."),
    Counter("early_lead", "The most events from such an early label to its prediction "
            "(a maximum)."),
    Counter("pooled_events", "Events of the pooled segment.", "pooled_events"),
    Counter("pooled_predictions", "Predictions pooled (values beyond --max-segments).",
            "pooled_predictions"),
    Counter("reports", "Reports made."),
    Counter("alerts", "Reports at which a segment alerted (corrected) or drifted.",
            "alerts", "streamrank_stream_alerts"),
    Counter("joined", "Labels without a segment that waited for their prediction and "
            "joined it (--label-wait).", "joined_labels", "streamrank_stream_joined_labels"),
    Counter("paired_alerts", "Reports at which a segment's paired test alerted "
            "(corrected).", "paired_alerts",
            "streamrank_stream_paired_alerts"),
)

#: The command's own count (``streamrank monitor``), beside the monitor's.
COMMAND = (
    Counter("skipped_rows", "Input rows skipped (--on-error skip).", "skipped_rows"),
)


def names(counters) -> tuple[str, ...]:
    """The names of ``counters``, in order."""
    return tuple(c.name for c in counters)


def zeros(counters) -> dict[str, int]:
    """A new ``stats`` dict: every counter of ``counters`` at 0, in order."""
    return dict.fromkeys(names(counters), 0)


def restore(stored, counters) -> dict[str, int]:
    """The ``stats`` dict of ``counters`` from the counts a snapshot ``stored`` (a dict of
    name -> int): a counter it does not name reads 0 (it was added after the snapshot was
    written). Raises ValueError, naming it, for a name that is not a counter (a newer
    streamrank's snapshot, or a damaged one) or a count that is not an int >= 0.
    Runtime: O(len(counters))."""
    if type(stored) is not dict:
        raise ValueError(f"the counters are a {type(stored).__name__}, not a dict")
    known = names(counters)
    for name, value in stored.items():
        if name not in known:
            shown = ", ".join(known[:4]) + (", ..." if len(known) > 4 else "")
            raise ValueError(f"unknown counter {name!r} (known: {shown})")
        if type(value) is not int or value < 0:
            raise ValueError(f"counter {name!r} is {value!r}, not an int >= 0")
    return {name: stored.get(name, 0) for name in known}


def from_snapshot(snap, stored, counters):
    """`restore` for a snapshot reader ``snap`` (`streamrank._snapshot`): what it refuses
    raises ``snap.corrupt`` naming the counter."""
    try:
        return restore(stored, counters)
    except ValueError as exc:
        raise snap.corrupt(f"statistics: {exc}") from None
