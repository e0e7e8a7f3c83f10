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


def _defaults(columns) -> dict:
    """A row of a report not made yet: counts 0, flags False, readings nan."""
    ints = {"n", "pending", "dropped", "unmatched", "paired_n", "concordant", "discordant",
            "tied_score", "comparable", "tied_label", "tied_both"}
    flags = {"alert", "segment_alert", "drift", "challenger_alert",
             "segment_challenger_alert", "score_alert"}
    return {c.name: 0 if c.name in ints else False if c.name in flags else
            None if c.name == "metric" else _NAN for c in columns}


def live_table(mon) -> tuple:
    """``(table, stream)``: the `streamrank.monitor.table.ReportTable` of the latest report
    of ``mon`` (any shape) with a row for every cell the monitor holds now (a cell
    without a report yet reads 0 / nan), each cell row adding ``stats`` (its model's
    counters now) and ``waiting`` (its unit's: a pair has one wait); and ``stream``, the monitor's own counters now (a
    `PairedMonitor`'s or a `SegmentedMonitor`'s), with ``segments_held`` and
    ``waiting`` (`SegmentedMonitor.waiting_unrouted`) for a segmented one. What a
    scrape reads (as `Monitor.metrics`, it changes nothing). Runtime: ``O(S)``."""
    from .table import CELL, PAIR, ReportTable, shape_of, table_of

    segmented, models = shape_of(mon)
    last = table_of(mon.history[-1], models) if mon.history else None
    made = {} if last is None else {
        (row["total"], type(row["segment"]), row["segment"], row.get("model")): row
        for row in (*last.cells, *last.pairs, *last.totals)}
    paired = models == 2
    units = [(s, mon.unit(s)) for s in mon.segments] if segmented else [(None, mon)]
    cells, pairs = [], []
    for segment, unit in units:
        for model, m in enumerate((unit.champion, unit.challenger) if paired else (unit,)):
            row = dict(made.get((False, type(segment), segment, model)) or _defaults(CELL),
                       segment=segment, model=model, total=False)
            row["stats"], row["waiting"] = dict(m.stats), unit.waiting
            cells.append(row)
        if paired:
            pairs.append(dict(made.get((False, type(segment), segment, None))
                              or _defaults(PAIR), segment=segment, total=False))
    totals = []
    if segmented:
        for model in range(1 + paired):
            totals.append(made.get((True, type(None), None, model))
                          or dict(_defaults(CELL), segment=None, model=model, total=True))
    stream = dict(mon.stats)
    if segmented:
        stream["segments_held"], stream["waiting"] = len(units), mon.waiting_unrouted
    table = ReportTable(mon.stats["events"], mon.clock, 1 + paired, segmented,
                        tuple(cells), tuple(pairs), tuple(totals))
    return table, stream
