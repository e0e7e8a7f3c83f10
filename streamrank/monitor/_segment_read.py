"""What a `streamrank.monitor.SegmentedMonitor` reads out: its report across the segments
(`SegmentReads.report`: each unit's report, the corrected p-values, the group AUC), the
plain dict a metrics scrape exposes (`metrics`) and the units' counters summed (`totals`).

A mixin of `SegmentedMonitor` (its methods read the wrapper's units, statistics and
history), apart so that the wrapper's module keeps the routing of events and the
snapshot.
"""

from __future__ import annotations

from typing import Any

from . import counters
from ._segment_report import SegmentedReport, adjust_p_values, paired_family, window_gauc

__all__ = ["SegmentReads"]


class SegmentReads:
    """`SegmentedMonitor`'s readings (module docstring)."""

    __slots__ = ()

    def report(self) -> SegmentedReport:
        """Read every segment (each unit's `report`, appended to its history), adjust
        their p-values, compute the group AUC; append to `history` (and `alerts` when a
        segment alerted or drifted). With units that alert on a score shift
        (``score_alert=True``), their score-shift p-values are adjusted across the
        segments too, and a segment whose adjusted one is below ``alpha`` alerts (the
        champion's, with paired units).

        Runtime complexity: ``O(S log S)`` plus the units' reports.
        """
        self._sync()
        names, reports = [], []
        for name, unit in self._all():
            names.append(name)
            reports.append(unit.report())
        # the drop tests: each unit's own, the champion's of a paired unit
        drops = [r.champion for r in reports] if self._paired else reports
        p_adj = adjust_p_values([r.p_value for r in drops], self.correction)
        alerts = tuple(bool(p < self.alpha) for p in p_adj.tolist())
        if self.score_alert:        # a segment's score shift, corrected the same way
            shift_adj = adjust_p_values([r.score_shift_p for r in drops], self.correction)
            alerts = tuple(a or bool(p < self.alpha)
                           for a, p in zip(alerts, shift_adj.tolist()))
        gauc, k = window_gauc(drops, self.weighting)
        paired = paired_family(reports, self.correction, self.alpha,
                               self.weighting) if self._paired else {}
        either = any(alerts) or any(paired.get("paired_alerts", ()))
        total = self.totals()
        r = SegmentedReport(self.stats["events"], self._clock, tuple(names),
                            tuple(reports), tuple(p_adj.tolist()), alerts, gauc, k,
                            self.correction, either, any(x.drift for x in reports),
                            **paired, dropped=total["dropped"],
                            unmatched=total["unmatched"])
        self.history.append(r)
        self.stats["reports"] += 1
        self.stats["paired_alerts"] += any(r.paired_alerts)
        for name, a, b in zip(names, alerts, r.paired_alerts or alerts):
            if a or b:
                self.segment_alerts[name] = self.segment_alerts.get(name, 0) + 1
        if r.alert or r.drift:
            self.stats["alerts"] += 1
            self.alerts.append(r)
        return r

    def metrics(self) -> dict[str, Any]:
        """The numbers a metrics scrape exposes, as a plain dict: ``segments``, segment
        (as ``str``) -> its unit's ``metrics()``, with ``p_adjusted`` and ``alert``
        (0/1) of the latest report; ``window_gauc`` (nan before the first report),
        ``segments_held``, the counters ``events``, ``pooled_events``,
        ``pooled_predictions``, ``alerts``; and of the labels without a segment for an
        id in no window (the wrapper's) ``late_dropped`` and ``unmatched_labels``
        (``stats["dropped"]``, ``stats["unmatched"]``), ``joined_labels`` (counters) and
        ``waiting_labels`` (now).

        Changes nothing; runtime ``O(S)``.

        >>> from streamrank.monitor import SegmentedMonitor
        >>> m = SegmentedMonitor(window=8, min_window=2)
        >>> for i, (g, s, y) in enumerate([("a", 0.9, 1), ("a", 0.2, 0), ("b", 0.6, 1)]):
        ...     m.observe(i, segment=g, score=s, label=y)
        >>> _ = m.report()
        >>> d = m.metrics()
        >>> d["segments"]["a"]["window_auc"], d["window_gauc"], d["events"]
        (1.0, 1.0, 3)
        """
        stats = dict(self.stats)
        last = self.history[-1] if self.history else None
        adjusted = {} if last is None else dict(zip(last.segments,
                                                    zip(last.p_adjusted, last.alerts)))
        padjusted = {} if last is None or not self._paired else dict(
            zip(last.segments, zip(last.paired_p_adjusted, last.paired_alerts)))
        segments = {}
        units = list(self.units.items())    # (one C-level copy: a feeding thread may add)
        if self._other is not None:
            units.append((self.OTHER, self._other))
        for name, unit in units:
            d = unit.metrics()
            p, a = adjusted.get(name, (float("nan"), False))
            d["p_adjusted"], d["alert"] = p, int(a)
            if self._paired:
                p, a = padjusted.get(name, (float("nan"), False))
                d["paired_p_adjusted"], d["paired_alert"] = p, int(a)
            segments[str(name)] = d
        out: dict[str, Any] = {"segments": segments,
                               "window_gauc": float("nan") if last is None else last.gauc,
                               "segments_held": len(segments)}
        for c in counters.SEGMENTED:
            if c.metric is not None and (c.name != "paired_alerts" or self._paired):
                out[c.metric] = stats[c.name]
        if self._paired:
            out["challenger_window_gauc"] = (float("nan") if last is None
                                             else last.challenger_gauc)
        out["waiting_labels"] = self.waiting_unrouted
        return out

    def totals(self) -> dict[str, int]:
        """The units' `stats` summed, plus the wrapper's ``dropped``, ``unmatched``,
        ``early`` and ``joined`` (of labels without a segment), ``early_lead`` the
        largest, and ``waiting`` (`waiting`). Runtime: ``O(S)``."""
        out: dict[str, int] = {}
        for _, unit in [*self._all(), (None, self)]:
            for k, v in unit.stats.items():
                out[k] = max(out.get(k, 0), v) if k == "early_lead" else out.get(k, 0) + v
        out["waiting"] = self.waiting
        out["events"] = self.stats["events"]
        out["reports"], out["alerts"] = self.stats["reports"], self.stats["alerts"]
        if self._paired:
            out["paired_alerts"] = self.stats["paired_alerts"]
        return out
