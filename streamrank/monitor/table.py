"""`ReportTable`: one report of any monitor as one table, and the one list of its columns.

A monitor has a shape, segments x models: a `Monitor` is one window of one model, a
`PairedMonitor` one window of two (the champion, model 0, and the challenger, model 1),
a `SegmentedMonitor` a window per segment of one model or of two. Whatever the shape, a
report is the same table (`table_of`):

* a **cell** row per (segment, model): that model's window, its metric and interval, its
  test against its own reference (the columns of `CELL`);
* a **pair** row per segment with two models: the paired test of the challenger against
  the champion (`PAIR`);
* with segments, the **total** rows: a cell row per model (the group AUC of the window
  over the segments, the counts summed) and a pair row, with ``total`` True.

A segment's test belongs to a family, the segments' tests, corrected for multiple testing
(`streamrank.monitor.SegmentedMonitor`): with segments, the champion's cell row holds
``p_adjusted``, ``alert`` by it and ``segment_alert`` by its own p-value, and the pair row
``paired_p_adjusted``, ``challenger_alert`` by it and ``segment_challenger_alert``.

What ``streamrank monitor`` prints, serves and sums reads this table: a line of its output
is one segment's rows side by side (`ReportTable.lines`: the champion's columns as they
are, the challenger's under `Column.challenger`, then the pair's), a Prometheus sample is
one row's column, labeled by the row's model and segment. Adding a column is one more
`Column` here and the code that computes it.

``--format json`` and ``csv`` write every column of a line; ``--format table`` shows a
few of them, at most `TABLE_WIDTH` characters wide (`table_layout`): with a challenger,
a line of the champion's then one of the challenger's under it.

>>> from streamrank.monitor import Monitor
>>> from streamrank.monitor.table import line_columns, table_of
>>> m = Monitor(window=8, min_window=2)
>>> for i, (s, y) in enumerate([(0.9, 1), (0.2, 0), (0.6, 1), (0.4, 0)]):
...     m.observe(i, score=s, label=y)
>>> t = table_of(m.report())
>>> [(r["model"], r["n"], r["auc"]) for r in t.cells]
[(0, 4, 1.0)]
>>> line_columns(models=1, segmented=False)[:5]
('events', 'time', 'n', 'pending', 'dropped')
>>> t.lines()[0]["auc"]
1.0
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

__all__ = ["CELL", "Column", "PAIR", "ReportTable", "Shape", "Slot", "TABLE_WIDTH",
           "line_columns", "shape_of", "table_columns", "table_layout", "table_of"]


class Shape(NamedTuple):
    """A monitor's shape: whether it has segments, and its models (1, or 2: a champion
    and a challenger)."""

    segmented: bool
    models: int


def shape_of(mon) -> Shape:
    """The `Shape` of a `Monitor`, a `PairedMonitor` or a `SegmentedMonitor`.

    >>> from streamrank.monitor import PairedMonitor, SegmentedMonitor
    >>> shape_of(SegmentedMonitor(factory=PairedMonitor))
    Shape(segmented=True, models=2)
    """
    from ._paired import PairedMonitor
    from ._segments import SegmentedMonitor

    if isinstance(mon, SegmentedMonitor):
        return Shape(True, mon.models)
    return Shape(False, 2 if isinstance(mon, PairedMonitor) else 1)


class Column(NamedTuple):
    """One column of a report's rows.

    ``name`` is its key in the row (and in a line of the output); ``width`` its width in
    ``--format table`` where `table_layout` shows it (0: JSON and CSV only);
    ``challenger`` the name of the challenger's
    value in a line (None: the line shows the champion's only); ``segments`` True for a
    column only a segmented monitor has (its tests' family)."""

    name: str
    help: str
    width: int = 0
    challenger: str | None = None
    segments: bool = False


def _both(name, help, width=0):
    return Column(name, help, width, "challenger_" + name)


#: The columns of a cell row, (segment, model), in the order a line shows them.
CELL = (
    _both("n", "Labeled predictions in the window (the ones counted).", 7),
    _both("pending", "Predictions in the window still waiting for their label.", 7),
    _both("dropped", "Labels (or weights) so far whose prediction had left the window."),
    _both("unmatched", "Labels (or weights) so far that met no prediction."),
    Column("metric", "auc (binary labels), concordance, or gauc (the total row)."),
    _both("auc", "The window's AUC (or concordance; the total row: the group AUC).", 6),
    _both("auc_low", "Lower bound of the window AUC's interval."),
    _both("auc_high", "Upper bound of the window AUC's interval."),
    _both("reference_auc", "The AUC (or concordance) of the frozen reference window.", 7),
    Column("se", "Standard error of the window's AUC minus the reference's."),
    _both("z", "The test's z of a drop from the reference.", 6),
    _both("p_value", "The test's one-sided p-value of a drop from the reference.", 8),
    Column("p_adjusted", "The p-value corrected across the segments.", 8, segments=True),
    Column("alert", "p < alpha (with segments: the corrected p-value).", 5,
           "challenger_drop_alert"),
    Column("segment_alert", "The segment's own p-value < alpha (uncorrected).",
           segments=True),
    _both("drift", "The drift detector fired at this report.", 5),
    Column("concordant", "Concordant pairs of the window."),
    Column("discordant", "Discordant pairs of the window."),
    Column("tied_score", "Pairs of the window tied in score only."),
    Column("comparable", "Pairs of the window with different labels."),
    Column("tied_label", "Pairs of the window tied in label only."),
    Column("tied_both", "Pairs of the window tied in label and score."),
    _both("estimated_auc", "The calibration estimate of the window's AUC from every "
          "prediction, labeled or not (estimate=True; nan otherwise)."),
    _both("estimated_auc_labeled", "The same estimate from the labeled predictions "
          "only (its distance from auc: how far calibration holds)."),
    _both("detectable_drop", "The smallest drop below the reference's AUC the test "
          "detects at alpha with power 0.8 now (nan: no test ran)."),
    _both("labels_to_detect", "More labeled predictions the window needs to detect a "
          "drop of --detect-drop with power 0.8 (nan: not asked, or no test ran)."),
    _both("score_shift", "P(a window score > a reference score), ties 1/2, over every "
          "prediction labeled or not (--score-drift; 0.5: no shift)."),
    _both("score_shift_se", "DeLong's standard error of score_shift."),
    _both("score_shift_p", "The two-sided p-value of no score shift."),
    _both("ks", "The Kolmogorov-Smirnov statistic of the window's scores against the "
          "reference's (--score-drift)."),
    _both("ks_p", "The Kolmogorov-Smirnov test's asymptotic two-sided p-value."),
    _both("score_alert", "score_shift_p < alpha (part of alert with --alert-on "
          "score-shift)."),
    Column("score_shift_p_adjusted", "The score-shift p-value corrected across the "
           "segments (with --alert-on score-shift: alert when below alpha).",
           segments=True),
)

#: The columns of a pair row (a segment's champion against its challenger).
PAIR = (
    Column("paired_n", "Ids labeled in both models' windows (the paired test's rows)."),
    Column("diff", "Challenger AUC minus champion AUC on the paired rows.", 7),
    Column("diff_low", "Lower bound of the difference's interval."),
    Column("diff_high", "Upper bound of the difference's interval."),
    Column("paired_se", "DeLong's standard error of the difference."),
    Column("paired_z", "DeLong's paired z of the difference.", 6),
    Column("paired_p_value", "The paired test's p-value (alert_on).", 8),
    Column("paired_p_adjusted", "The paired p-value corrected across the segments.", 8,
           segments=True),
    Column("challenger_alert", "The paired p-value < alpha (with segments: corrected).",
           5),
    Column("segment_challenger_alert", "The segment's own paired p-value < alpha.",
           segments=True),
)

_HEAD = (Column("events", "Events observed so far.", 10),
         Column("time", "The monitor's clock (latest time seen).", 20))
_SEGMENT = Column("segment", "The segment's value (the total line: empty).", 8)

def _line(models, segmented):
    """The columns of a line, in order, as (name, row, column): row "cell0", "cell1",
    "pair" or "head" (the report's own)."""
    out = [(c.name, "head", c.name) for c in _HEAD]
    if segmented:
        out.append((_SEGMENT.name, "head", _SEGMENT.name))
    cells = [c for c in CELL if segmented or not c.segments]
    out += [(c.name, "cell0", c.name) for c in cells]
    if models == 2:
        out += [(c.challenger, "cell1", c.name) for c in cells if c.challenger]
        out += [(c.name, "pair", c.name) for c in PAIR if segmented or not c.segments]
    return out


def line_columns(models: int, segmented: bool) -> tuple[str, ...]:
    """The names of a line's columns (``--format json`` keys, the CSV header), in order,
    for a monitor of ``models`` models (1 or 2), with segments or not."""
    return tuple(name for name, _, _ in _line(models, segmented))


#: The widest line of ``--format table``, in characters.
TABLE_WIDTH = 100


class Slot(NamedTuple):
    """One column of ``--format table``.

    ``header`` is its title, ``width`` its width; ``champion`` the line column (of
    `line_columns`) it shows on a report's line, ``challenger`` the one it shows on the
    challenger's line under it (with two models); None: empty on that line."""

    header: str
    width: int
    champion: str | None
    challenger: str | None = None


def table_layout(models: int, segmented: bool, show_time: bool = True, drift: bool = True,
                 width: int = TABLE_WIDTH, estimate: bool = False,
                 score_drift: bool = False) -> tuple[Slot, ...]:
    """The columns of ``--format table`` for a monitor of ``models`` models (1 or 2), with
    segments or not; ``time`` only when ``show_time``, ``drift`` only when ``drift`` (a
    detector runs); ``est_auc`` (the estimated AUC) with ``estimate``, ``shift`` (the
    score shift) and ``ks`` with ``score_drift``. A line is at most ``width``
    characters: the segment's column takes what the others leave (8 to 20 characters);
    each of those (``shift`` and ``ks`` together) is added while it fits, in place of
    ``z`` if need be (``p_value`` says the same); JSON and CSV keep every column.

    A report's line holds the champion's window and its test against its reference
    (with segments, the corrected p-value ``p_adj``). With a challenger, a second line
    under it holds the challenger's window and, in the same columns, the paired test
    against the champion: ``ref/diff`` is the champion's reference AUC on its line and
    ``diff`` (challenger minus champion, signed) on the challenger's, then the paired
    test's ``z``, p-value (corrected with segments) and ``challenger_alert`` under
    ``alert``. The other columns of a line are in JSON and CSV only.

    >>> [s.header for s in table_layout(1, False)]
    ['events', 'time', 'n', 'pending', 'auc', 'ref_auc', 'z', 'p_value', 'alert', 'drift']
    >>> for s in table_layout(2, True)[2:]:
    ...     print(f"{s.header:8} {s.width:3} {s.champion!s:14} {s.challenger}")
    segment   16 segment        segment
    n          6 n              challenger_n
    auc        6 auc            challenger_auc
    ref/diff   8 reference_auc  diff
    p_adj      8 p_adjusted     paired_p_adjusted
    alert      5 alert          challenger_alert
    drift      5 drift          challenger_drift
    """
    w = {c.name: c.width for c in (*_HEAD, _SEGMENT, *CELL, *PAIR)}
    paired = models == 2
    out = [Slot("events", w["events"], "events")]
    if show_time:
        out.append(Slot("time", w["time"], "time"))
    if segmented:
        out.append(Slot("segment", w["segment"], "segment", "segment"))
    out.append(Slot("n", w["n"] - segmented, "n", "challenger_n"))
    if not segmented:
        out.append(Slot("pending", w["pending"], "pending", "challenger_pending"))
    out.append(Slot("auc", w["auc"], "auc", "challenger_auc"))
    if paired:
        out.append(Slot("ref/diff", max(8, w["reference_auc"], w["diff"]), "reference_auc",
                        "diff"))
    else:
        out.append(Slot("ref_auc", w["reference_auc"], "reference_auc"))
    if segmented:
        out.append(Slot("p_adj", w["p_adjusted"], "p_adjusted", "paired_p_adjusted"))
    else:
        out += [Slot("z", w["z"], "z", "paired_z"),
                Slot("p_value", w["p_value"], "p_value", "paired_p_value")]
    out.append(Slot("alert", w["alert"], "alert", "challenger_alert"))
    if drift:
        out.append(Slot("drift", w["drift"], "drift", "challenger_drift"))
    extras = [[Slot("est_auc", 7, "estimated_auc", "challenger_estimated_auc")]] * estimate
    if score_drift:
        extras.append([Slot("shift", 6, "score_shift", "challenger_score_shift"),
                       Slot("ks", 5, "ks", "challenger_ks")])
    for group in extras:            # each while it fits, in place of z if need be
        without_z = [s for s in out if s.header != "z"]
        for line in (out + group, without_z + group):
            if _line_width(line, w["segment"]) <= width:
                out = line
                break
    if segmented:
        rest = _line_width(out, 0)
        at = next(i for i, s in enumerate(out) if s.header == "segment")
        seg = out[at]
        out[at] = Slot(seg.header, max(w["segment"], min(20, width - rest)), seg.champion,
                       seg.challenger)
    return tuple(out)


def _line_width(slots, segment: int) -> int:
    """The width of a line of ``slots`` (the segment's column ``segment`` wide)."""
    return sum(segment if s.header == "segment" else s.width for s in slots) \
        + 2 * (len(slots) - 1)


def table_columns(models: int, segmented: bool, show_time: bool = True, drift: bool = True,
                  estimate: bool = False, score_drift: bool = False
                  ) -> tuple[tuple[str, int], ...]:
    """``(name, width)`` of the line columns a report's line of ``--format table`` shows
    (`table_layout`: the champion's), in the line's order."""
    return tuple((s.champion, s.width) for s in table_layout(
        models, segmented, show_time, drift, estimate=estimate, score_drift=score_drift)
        if s.champion)


@dataclass(frozen=True)
class ReportTable:
    """One report as rows: see the module docstring.

    Attributes
    ----------
    events : int
        Events the monitor observed so far.
    time : float or None
        Its clock (None if no event had a time).
    models : int
        1, or 2 (champion and challenger).
    segmented : bool
        Whether the monitor has segments (then the total rows follow the segments').
    cells : tuple of dict
        A row per (segment, model), segments in the report's order, model 0 first: the
        keys of `CELL` and ``segment`` (None without segments), ``model`` (0 or 1),
        ``total`` (False).
    pairs : tuple of dict
        With two models, a row per segment: the keys of `PAIR` and ``segment``,
        ``total``.
    totals : tuple of dict
        With segments: the total's cell rows (one per model; the columns that do not
        sum or pool are None) then its pair row (with two models); ``total`` True.
    """

    events: int
    time: float | None
    models: int
    segmented: bool
    cells: tuple
    pairs: tuple = ()
    totals: tuple = ()

    def lines(self) -> list[dict[str, object]]:
        """One dict per line of the output (a segment, then the total), keyed by
        `line_columns`: the champion's cell columns, the challenger's under their
        `Column.challenger` names, the pair's. Runtime: ``O(S)``."""
        spec = _line(self.models, self.segmented)
        groups: dict = {}
        for row in (*self.cells, *self.pairs, *self.totals):
            where = groups.setdefault((row["total"], _key(row["segment"])), {})
            where["pair" if "model" not in row else f"cell{row['model']}"] = row
        head = {"events": self.events, "time": self.time}
        out = []
        for (total, _), rows in groups.items():
            rows["head"] = dict(head, segment=None if total else
                                rows["cell0"]["segment"])
            out.append({name: rows[row].get(col) if row in rows else None
                        for name, row, col in spec})
        return out


def _key(segment):
    """A segment as a dict key (its type too: ``1`` and ``"1"`` are two segments)."""
    return (type(segment), segment)


def _cell(report, segment, model) -> dict:
    """The cell row of one model's `Report`."""
    d = report.as_dict()
    del d["events"], d["time"]
    d.update(segment=segment, model=model, total=False)
    return d


def _pair(report, segment) -> dict:
    """The pair row of a `PairedReport`."""
    return {"paired_n": report.n, "diff": report.difference, "diff_low": report.low,
            "diff_high": report.high, "paired_se": report.se, "paired_z": report.z,
            "paired_p_value": report.p_value, "challenger_alert": report.paired_alert,
            "segment": segment, "total": False}


def table_of(report, models: int | None = None) -> ReportTable:
    """The table of a `Report`, a `PairedReport` or a `SegmentedReport`; ``models``: a
    segmented monitor's (`SegmentedMonitor.models`), which a report of no segment yet
    cannot tell (default: read from its reports). Runtime: ``O(S)``."""
    from ._paired_report import PairedReport
    from ._segment_report import SegmentedReport

    if isinstance(report, SegmentedReport):
        if models is None:
            models = 2 if report.paired_alerts or any(
                isinstance(r, PairedReport) for r in report.reports) else 1
        return _segmented(report, models == 2)
    if isinstance(report, PairedReport):
        return ReportTable(report.events, report.time, 2, False,
                           (_cell(report.champion, None, 0),
                            _cell(report.challenger, None, 1)), (_pair(report, None),))
    return ReportTable(report.events, report.time, 1, False, (_cell(report, None, 0),))


def _segmented(report, paired) -> ReportTable:
    from ._segment_report import adjust_p_values

    cells, pairs = [], []
    drops = [r.champion if paired else r for r in report.reports]
    shift_adj = adjust_p_values([r.score_shift_p for r in drops], report.correction)
    for i, (seg, r) in enumerate(zip(report.segments, report.reports)):
        champion = _cell(drops[i], seg, 0)
        champion.update(p_adjusted=report.p_adjusted[i], segment_alert=champion["alert"],
                        alert=report.alerts[i], score_shift_p_adjusted=shift_adj[i])
        cells.append(champion)
        if paired:
            cells.append(_cell(r.challenger, seg, 1))
            pair = _pair(r, seg)
            pair.update(paired_p_adjusted=report.paired_p_adjusted[i],
                        segment_challenger_alert=pair["challenger_alert"],
                        challenger_alert=report.paired_alerts[i])
            pairs.append(pair)
    drops = [c for c in cells if c["model"] == 0]
    blank = dict.fromkeys(c.name for c in CELL)
    totals = [dict(blank, segment=None, model=0, total=True, metric="gauc",
                   auc=report.gauc, n=sum(c["n"] for c in drops),
                   pending=sum(c["pending"] for c in drops), dropped=report.dropped,
                   unmatched=report.unmatched, alert=any(report.alerts),
                   drift=report.drift)]
    if paired:
        challengers = [c for c in cells if c["model"] == 1]
        totals.append(dict(blank, segment=None, model=1, total=True, metric="gauc",
                           auc=report.challenger_gauc,
                           n=sum(c["n"] for c in challengers),
                           pending=sum(c["pending"] for c in challengers),
                           drift=any(c["drift"] for c in challengers)))
        totals.append(dict(dict.fromkeys(c.name for c in PAIR), segment=None, total=True,
                           paired_n=sum(p["paired_n"] for p in pairs),
                           challenger_alert=any(report.paired_alerts)))
    return ReportTable(report.events, report.time, 2 if paired else 1, True,
                       tuple(cells), tuple(pairs), tuple(totals))
