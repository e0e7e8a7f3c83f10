"""The per-event signal a `streamrank.monitor.Monitor` feeds its drift detector.

Each time a prediction *becomes labeled* in the window (a new prediction that comes with
its label, or a late label joining a pending prediction), its **placement value**

    v = (C + T/2) / (C + D + T)

is computed over the pairs it forms with a set of labeled predictions (``C`` ordered
correctly, ``D`` wrongly, ``T`` tied scores; each pair weighted by the other
prediction's weight; pairs of equal labels are no pairs). With binary labels that is, for
a positive, (weight of the negatives with a lower score + half the weight of the tied
ones) / weight of the negatives, and for a negative the same with the positives above
it: the share of the opposite class it orders correctly, ties one half. Its mean is an
AUC; with non-binary labels the same formula is the prediction's share of Harrell's
concordance. Against what (``Monitor(detector_signal=...)``, `SIGNALS`):

* ``"reference"`` (the default): the **frozen reference window**. Its predictions never
  change once it is frozen, so given the reference the placements of new predictions
  are independent of each other (for exchangeable predictions), which is what the
  detectors' bounds assume; on a stationary stream their mean is the AUC. Nothing is fed
  before the reference is frozen. `_Placer` sorts each class of the reference once
  (``O(R log R)`` at the first value, ``R`` reference predictions); a value is then two
  binary searches per class (``O(log R)``, Python's compiled `bisect`), or, with a
  reference of three label values or more, `PairEngine.pairs_with_many` on an engine
  holding the reference (the dominance counter: ``O(log^2 R)``).
* ``"window"``: the window as it is after the event (the prediction itself is held but
  forms no pair with itself: a label tie). The window's predictions change all the
  time, so consecutive placements share the window's sampling error for about ``W``
  events (a window that happens to hold high-scoring negatives lowers every positive's
  placement until they leave) and the detectors raise more false alarms than their
  nominal rate (benchmarks/RESULTS.md). Fed only while the window holds at least
  ``min_window`` labeled predictions. ``O(log W)`` per value (the engine's
  `PairEngine.pairs_with_many`, in C, after `Monitor._fresh_counts` hands it the
  window's waiting changes). This was the only signal before the choice existed: a
  snapshot that does not name the signal restores it.

Either way a value is fed only for a prediction of positive weight that forms at least
one comparable pair (``C + D + T > 0``: the opposite class is held); otherwise nothing is
fed. A relabel, re-score or reweight of an already labeled prediction feeds nothing (the
series has one value per prediction that becomes labeled).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

import numpy as np

from ..engine import PairEngine
from ..windows import sync

__all__ = ["SIGNALS", "SignalFeed"]

#: The values of ``Monitor(detector_signal=...)``: what a placement is taken against.
SIGNALS = ("reference", "window")


class _Placer:
    """Placement values against a frozen reference window ``ref``
    (`streamrank.monitor._reference._Reference`), built once (``O(R log R)``).

    With at most two label values in the reference, each class's scores sorted with
    their cumulative weights (Python lists: a value is two `bisect` calls per class,
    ``O(log R)``); with more, a `PairEngine` holding the reference (``O(log^2 R)`` per
    value).

    >>> from streamrank.monitor._reference import _Reference
    >>> p = _Placer(_Reference([0, 0, 1, 1], [0.2, 0.5, 0.5, 0.9], [1, 3, 1, 1]))
    >>> p(1.0, 0.5)          # above the negative of weight 1, tied with the one of 3
    0.625
    >>> p(0.0, 0.5)          # below one positive (correct), tied with the other
    0.75
    """

    __slots__ = ("ref", "classes", "engine")

    def __init__(self, ref) -> None:
        self.ref = ref
        self.classes = []   # (label, sorted scores, cumulative weights from 0, total)
        self.engine = None
        if len(ref.labels) > 2:
            self.engine = PairEngine("continuous")
            unit = bool(np.all(ref.w == 1))
            self.engine.add_many(ref.y, ref.s, None if unit else ref.w,
                                 "Monitor.observe")
            return
        for label in ref.labels:
            of = ref.y == label
            order = np.argsort(ref.s[of], kind="stable")
            cum = np.concatenate(([0.0], np.cumsum(ref.w[of][order])))
            self.classes.append((label, ref.s[of][order].tolist(), cum.tolist(),
                                 float(cum[-1])))

    def __call__(self, y: float, s: float) -> float | None:
        """The placement of a labeled prediction ``(y, s)`` against the reference (None
        when it forms no comparable pair)."""
        if self.engine is not None:
            c, d, t, _, _ = self.engine.pairs_with_many(np.array([y], dtype=np.float64),
                                                        np.array([s], dtype=np.float64))
        else:
            c = d = t = 0.0
            for label, scores, cum, total in self.classes:
                if label == y:
                    continue
                below = cum[bisect_left(scores, s)]
                upto = cum[bisect_right(scores, s)]
                if label < y:
                    c, d = c + below, d + (total - upto)
                else:
                    c, d = c + (total - upto), d + below
                t += upto - below
        total = c + d + t
        if not total > 0:
            return None
        return float((c + t / 2) / total)


class SignalFeed:
    """`Monitor`'s feed of its drift detector: a placement value per prediction that
    becomes labeled."""

    def _placement(self, y: float, s: float) -> float | None:
        """The placement value of a labeled prediction ``(y, s)`` held in the window
        (None when it forms no comparable pair). Syncs the engine first
        (`Monitor._fresh_counts` when a recount is due; else only the waiting changes,
        without building its counts). ``O(log W)``."""
        engine = sync(self._win, self._engine, "Monitor.observe", False, self._est)
        if engine.stale or self._est is not None:   # (an estimate may be due a recount)
            self._fresh_counts()
        c, d, t, _, _ = engine.pairs_with_many(np.array([y], dtype=np.float64),
                                               np.array([s], dtype=np.float64))
        total = c + d + t
        if not total > 0:
            return None
        return float((c + t / 2) / total)

    def _feed_key(self, key, y: float) -> None:
        """`_feed` for the prediction of ``key`` in the window, labeled ``y`` just now
        (its score and weight read from the window)."""
        _, _, s, w = self._win.store.value(self._win.store.row_of(key))
        self._feed(y, s, w)

    def _feed(self, y: float, s: float, w) -> None:
        """A prediction ``(y, s, w)`` of the window became labeled: feed its placement
        (against the reference or the window, ``detector_signal``) to the detector under
        the module's conditions, note a detection."""
        if not w > 0:
            return
        if self.detector_signal == "reference":
            ref = self._ref
            if ref is None:
                return
            placer = self._placer
            if placer is None or placer.ref is not ref:
                placer = self._placer = _Placer(ref)
            v = placer(y, s)
        elif self._win.n_labeled < self.min_window:
            return
        else:
            v = self._placement(y, s)
        if v is None:
            return
        det = self._detector
        det.update(v)
        if self._replay:
            self._series.append(v)
        if det.drift_detected:
            self.stats["detections"] += 1
            self._drift_since_report = True
            self._last_detection = self.stats["events"]
