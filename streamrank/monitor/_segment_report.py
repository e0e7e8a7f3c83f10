"""`SegmentedReport`: one reading of a `streamrank.monitor.SegmentedMonitor`; the
correction of the segments' p-values for multiple testing (`adjust_p_values`) and the
group AUC of the window (`window_gauc`).

The correction (``m`` the number of segments whose test ran, i.e. whose p-value is not
nan; the others keep nan):

* ``"bonferroni"``: ``p_adj = min(1, m p)``;
* ``"holm"`` (Holm's step-down, uniformly more powerful than Bonferroni with the same
  family-wise error guarantee under any dependence): with the ``m`` p-values in
  increasing order ``p_(1) <= ... <= p_(m)``,
  ``p_adj_(i) = min(1, max_{j <= i} (m - j + 1) p_(j))``.

A segment alerts when its adjusted p-value is below the monitor's ``alpha``: the
probability that any segment without a drop alerts at a report is at most ``alpha``
(the family-wise error rate of one report; repeated reports are not corrected for).

The group AUC (GAUC) is `streamrank.group_auc_score`'s definition over the segments:
``sum_g v_g AUC_g / sum_g v_g`` over the segments whose window holds both classes,
``v_g`` by ``weighting`` from the window's exact counts: ``"impressions"`` the weight of
its labeled predictions, ``"pairs"`` its positive-negative pairs, ``"uniform"`` 1.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from ._paired_report import PairedReport
from ._report import Report

__all__ = ["CORRECTIONS", "WEIGHTINGS", "SegmentedReport", "adjust_p_values",
           "paired_family", "window_gauc"]

CORRECTIONS = ("holm", "bonferroni")
WEIGHTINGS = ("impressions", "pairs", "uniform")
_NAN = math.nan


def adjust_p_values(p_values: Sequence[float], method: str = "holm") -> np.ndarray:
    """The p-values adjusted for multiple testing by ``method`` (see the module
    docstring); nan entries are not tests and stay nan.

    Runtime complexity: ``O(m log m)`` (one sort) for ``m`` p-values.

    >>> adjust_p_values([0.01, float("nan"), 0.04, 0.03]).tolist()
    [0.03, nan, 0.06, 0.06]
    >>> adjust_p_values([0.01, 0.04, 0.03], "bonferroni").tolist()
    [0.03, 0.12, 0.09]
    """
    p = np.asarray(p_values, dtype=np.float64)
    out = np.full(p.shape, _NAN)
    ok = ~np.isnan(p)
    m = int(ok.sum())
    if not m:
        return out
    q = p[ok]
    if method == "bonferroni":
        adj = np.minimum(1.0, m * q)
    else:
        order = np.argsort(q, kind="stable")
        steps = np.maximum.accumulate((m - np.arange(m)) * q[order])
        adj = np.empty(m)
        adj[order] = np.minimum(1.0, steps)
    out[ok] = adj
    return out


def window_gauc(reports: Sequence[Report], weighting: str = "impressions"
                ) -> tuple[float, int]:
    """``(gauc, k)``: the group AUC of the segments' windows and the number ``k`` of
    segments it averages (those holding both classes); nan and 0 when none does, nan
    too when a segment holds more than two label values (no AUC). Equals
    `streamrank.group_auc_score` of the windows' labeled predictions grouped by segment
    (same ``weighting``, ``sample_weight`` their weights) when the stream has two label
    values. Runtime: ``O(S)``."""
    total = weight = 0.0
    k = 0
    for r in reports:
        c = r.counts
        if r.metric != "auc":
            return _NAN, 0
        if not (r.n and c.comparable > 0):
            continue
        v = (c.weight_sum if weighting == "impressions" else
             c.comparable if weighting == "pairs" else 1.0)
        total += v * r.auc
        weight += v
        k += 1
    if not k or weight == 0:
        return _NAN, 0
    return min(1.0, max(0.0, total / weight)), k


def paired_family(reports: Sequence, correction: str, alpha: float,
                  weighting: str) -> dict:
    """The fields of a `SegmentedReport` of `PairedReport` rows that the paired tests
    make, a family of their own: their p-values adjusted across the segments, the
    alerts (adjusted ``p < alpha``), and the challengers' group AUC. Runtime:
    ``O(S log S)``."""
    q = adjust_p_values([r.p_value for r in reports], correction).tolist()
    gauc, k = window_gauc([r.challenger for r in reports], weighting)
    return dict(paired_p_adjusted=tuple(q), paired_alerts=tuple(bool(p < alpha) for p in q),
                challenger_gauc=gauc, challenger_gauc_segments=k)


@dataclass(frozen=True)
class SegmentedReport:
    """One reading of a `SegmentedMonitor`: per segment its `Report` and corrected test,
    and the group AUC of the window.

    Attributes
    ----------
    events : int
        Events observed so far (all segments).
    time : float or None
        The shared clock (latest time seen), None if no event had a time.
    segments : tuple
        The segment values, in the order their first prediction came; the pooled
        segment (`SegmentedMonitor.OTHER`) last when there is one.
    reports : tuple of Report
        Each segment's report (its ``alert`` is its own uncorrected test's).
    p_adjusted : tuple of float
        Each segment's p-value adjusted across the segments whose test ran (nan when its
        test did not run).
    alerts : tuple of bool
        ``p_adjusted < alpha`` per segment.
    gauc : float
        Group AUC of the window over the segments (`window_gauc`; nan when undefined).
    gauc_segments : int
        Segments with both classes, the ones the group AUC averages.
    correction : str
        ``"holm"`` or ``"bonferroni"``.
    alert : bool
        Any segment alerted (with `PairedMonitor` units: its drop test or its paired
        test, each corrected).
    drift : bool
        Any segment's drift detector fired at this report (either model's).
    paired_p_adjusted, paired_alerts : tuple
        With `PairedMonitor` units (champion against challenger): each segment's paired
        p-value (``reports[i].p_value``) adjusted across the segments whose paired test
        ran, a family apart from the drop tests', and ``paired_p_adjusted < alpha``;
        empty otherwise. (The drop tests are then the champions' own:
        ``reports[i].champion``; a challenger's own drop test stays uncorrected, in its
        report, and alerts nothing here.)
    challenger_gauc, challenger_gauc_segments : float, int
        With `PairedMonitor` units: the group AUC of the challengers' windows (as
        `gauc` of the champions'); nan and 0 otherwise.
    dropped, unmatched : int
        The whole stream's late and unmatched labels so far (`SegmentedMonitor.totals`:
        every segment's and those without a segment).
    """

    events: int
    time: float | None
    segments: tuple
    reports: tuple
    p_adjusted: tuple
    alerts: tuple
    gauc: float
    gauc_segments: int
    correction: str
    alert: bool
    drift: bool
    paired_p_adjusted: tuple = ()
    paired_alerts: tuple = ()
    challenger_gauc: float = _NAN
    challenger_gauc_segments: int = 0
    dropped: int = 0
    unmatched: int = 0

    def __getitem__(self, segment: Hashable) -> Report:
        """The `Report` of ``segment`` (`KeyError` if the monitor holds no such
        segment)."""
        try:
            return self.reports[self.segments.index(segment)]
        except ValueError:
            raise KeyError(segment) from None

    def rows(self) -> list[dict[str, object]]:
        """One flat ``dict`` per segment (`Report.as_dict`, with ``events`` and ``time``
        the monitor's, plus ``segment``, ``p_adjusted`` and ``alert`` by the corrected
        p-value; ``segment_alert`` the segment's own uncorrected one), then one total row
        (``segment`` None, ``auc`` the group AUC, ``n`` and ``pending`` summed,
        ``dropped`` and ``unmatched`` the stream's, ``alert`` and ``drift`` any
        segment's; the other fields None). With `PairedMonitor` units
        a segment's row is its `PairedReport.as_dict` (the champion's columns and the
        challenger's), with ``paired_p_adjusted``, ``challenger_alert`` by it and
        ``segment_challenger_alert`` by the uncorrected paired p-value; the total adds
        ``challenger_auc`` (the challengers' group AUC), ``challenger_n``,
        ``challenger_pending`` and ``paired_n`` summed, ``challenger_alert`` (any
        segment's corrected paired alert) and ``challenger_drift``: the lines of its
        `streamrank.monitor.table.ReportTable`. Runtime: ``O(S)``."""
        from .table import table_of

        return table_of(self).lines()

    def _to_row(self, index: dict) -> list:
        """A JSON-able list: the segments as indexes into the monitor's segment list
        (``index``: segment -> position), each report as `Report._to_row`."""
        row = [self.events, self.time, [index[s] for s in self.segments],
               [_report_row(r) for r in self.reports], list(self.p_adjusted),
               list(self.alerts), self.gauc, self.gauc_segments, self.correction,
               self.alert, self.drift]
        if self.paired_alerts or self.paired_p_adjusted:
            row += [list(self.paired_p_adjusted), list(self.paired_alerts),
                    self.challenger_gauc, self.challenger_gauc_segments]
        return row + [self.dropped, self.unmatched]

    @classmethod
    def _from_row(cls, row, names: list) -> "SegmentedReport":
        """The inverse of `_to_row`; `ValueError` for a row it cannot have written."""
        if not (type(row) is list and len(row) in (13, 17)):
            raise ValueError("a segmented report that to_bytes does not write")
        *row, dropped, unmatched = row
        if not all(type(v) is int and v >= 0 for v in (dropped, unmatched)):
            raise ValueError("a segmented report that to_bytes does not write")
        counts = dict(dropped=dropped, unmatched=unmatched)
        if not (len(row) in (11, 15) and type(row[0]) is int
                and type(row[2]) is list and type(row[3]) is list
                and len(row[2]) == len(row[3]) == len(row[4]) == len(row[5])
                and all(type(i) is int and 0 <= i < len(names) for i in row[2])
                and all(type(a) is bool for a in row[5])
                and row[8] in CORRECTIONS and type(row[9]) is bool
                and type(row[10]) is bool and type(row[7]) is int):
            raise ValueError("a segmented report that to_bytes does not write")
        paired = {}
        if len(row) == 15:
            q, a, cg, ck = row[11:]
            if not (type(q) is list and type(a) is list and len(q) == len(a)
                    == len(row[2]) and all(type(x) is bool for x in a)
                    and type(ck) is int):
                raise ValueError("a segmented report that to_bytes does not write")
            paired = dict(paired_p_adjusted=tuple(_NAN if p is None else float(p)
                                                  for p in q),
                          paired_alerts=tuple(a),
                          challenger_gauc=_NAN if cg is None else float(cg),
                          challenger_gauc_segments=ck)
        return cls(row[0], row[1], tuple(names[i] for i in row[2]),
                   tuple(_report_from(r, bool(paired)) for r in row[3]),
                   tuple(_NAN if p is None else float(p) for p in row[4]),
                   tuple(row[5]), _NAN if row[6] is None else float(row[6]), row[7],
                   row[8], row[9], row[10], **paired, **counts)


def _report_row(r) -> list:
    """A segment's report as JSON: `Report._to_row`, or for a `PairedReport` the
    champion's, the challenger's and the paired fields."""
    if hasattr(r, "champion"):
        return [r.champion._to_row(), r.challenger._to_row(), r._to_row()]
    return r._to_row()


def _report_from(row, paired: bool):
    """The inverse of `_report_row`."""
    if not paired:
        return Report._from_row(row)
    if not (type(row) is list and len(row) == 3):
        raise ValueError("a paired segment report that to_bytes does not write")
    return PairedReport._from_row(row[2], Report._from_row(row[0]),
                                  Report._from_row(row[1]))
