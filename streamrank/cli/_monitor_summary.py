"""The stderr summary of a ``streamrank monitor`` run, for every shape of monitor: how it
ended and what it counted, the label wait, the window (or each segment's: its window,
reference and corrected alerts, and with a challenger the paired test; with one window,
what its latest report says before the labels: the estimate, the score drift and the
detectable drop), the advice on
unmatched labels, the reports and alerts, the challenger and the paired test, the plot.

Its numbers are those of the latest report's table (`streamrank.monitor.table`) and the
monitor's counters; a final report is made before it, so they are the run's last."""

from __future__ import annotations

import warnings

import click

from ..exceptions import UndefinedMetricWarning
from ..monitor.table import shape_of, table_of
from ._monitor_output import _count, shown_value, stop_words, stream_counts
from ._monitor_wait import one_class_hint, unmatched_advice, wait_summary

__all__ = ["summary"]


def summary(mon, skipped, plot, stopped_by, iso_time) -> None:
    """Write the summary of a run of ``mon`` (``stopped_by``: the signal that stopped it,
    or None; ``iso_time``: the input's times are ISO 8601 timestamps)."""
    shape = shape_of(mon)
    last = table_of(mon.history[-1], shape.models) if mon.history else None
    st = mon.totals() if shape.segmented else mon.stats
    lines = [_head(mon, shape, st, skipped, stopped_by)]
    if wait_summary(mon):
        lines.append(wait_summary(mon))
    if shape.segmented:
        lines += _segment_lines(mon, shape, last, iso_time)
    else:
        lines.append(_window_line(mon, shape, st))
        lines += _before_labels_lines(mon, shape, last)
    advice = unmatched_advice(mon, st)
    if advice:
        lines.append(advice)
    lines.append(_reports_line(mon, shape, iso_time))
    if shape.models == 2 and not shape.segmented:
        lines += _paired_lines(mon, last, iso_time)
    if plot is not None:
        lines.append(f"  plot: {plot}")
    click.echo("\n".join(lines), err=True)


def _when(report, iso_time) -> str:
    """`` (time ...)`` of a report, '' without a time."""
    if report.time is None:
        return ""
    from ..io.events import format_time

    return f" ({format_time(report.time) if iso_time else f'time {report.time:g}'})"


def _kept(mon) -> str:
    """How the first alert kept is named: the first, or the first kept when
    ``--max-history`` trimmed the alerts."""
    return "first " if len(mon.alerts) == mon.stats["alerts"] else \
        "the first kept (--max-history) "


def _head(mon, shape, st, skipped, stopped_by) -> str:
    note = ""
    if shape.segmented:     # the stream's totals, and of them the labels without a segment
        own = mon.stats
        st = {k: st.get(k, 0) for k in ("predictions", "labeled", "late", "rescored")} | st
        note = f" ({own['dropped'] + own['unmatched']} of them without a segment)"
    return stop_words(stopped_by) + stream_counts(st, skipped, note)


def _reference(model, levels_of=None) -> str:
    """A model's frozen reference: its metric, value and size, or not frozen yet."""
    ref = model.reference_counts
    levels = (levels_of or model).reference_levels
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        if levels is None or ref is None:
            return "not frozen yet"
        return f"{'AUC' if levels <= 2 else 'concordance'} {ref.auc:.4f} (n={ref.n})"


def _window_line(mon, shape, st) -> str:
    """The one window's line: its predictions, evictions and reference."""
    ref_text = _reference(mon, mon.champion if shape.models == 2 else mon)
    levels = (mon.champion if shape.models == 2 else mon).reference_levels
    if levels is not None and levels < 2:
        ref_text += (" — fewer than two label values, so no test can run against it"
                     + one_class_hint(st))
    return (f"  window: {mon.n} labeled + {mon.pending} pending; {st['evicted']} evicted "
            f"({st['evicted_pending']} never labeled); reference {ref_text}")


def _before_labels_lines(mon, shape, last) -> list:
    """What the latest report says without labels (one window; a line per model): the
    estimated AUC (``--estimate``), the score shift and KS statistic (``--score-drift``),
    and the drop its test can detect now."""
    if last is None:
        return []
    out = []
    for cell in last.cells:
        parts = []
        if mon.estimate:
            parts.append(f"estimated AUC {cell['estimated_auc']:.4f} (of the labeled "
                         f"{cell['estimated_auc_labeled']:.4f})")
        if mon.score_drift:
            parts.append(f"score shift {cell['score_shift']:.4f} "
                         f"(p {cell['score_shift_p']:.3g}), KS {cell['ks']:.4f} "
                         f"(p {cell['ks_p']:.3g})")
        drop = cell["detectable_drop"]
        if drop == drop:
            parts.append(f"detectable drop {drop:.4f}")
        if parts:
            who = "" if shape.models == 1 else (
                " (champion)" if cell["model"] == 0 else " (challenger)")
            out.append(f"  latest report{who}: " + "; ".join(parts))
    return out


def _segment_lines(mon, shape, last, iso_time) -> list:
    """The segments' line (how many, the pooled one, the correction, the group AUCs),
    then a line per segment (and with a challenger a line of its paired test)."""
    own = mon.stats
    totals = {} if last is None else {r["model"]: r for r in last.totals if "model" in r}
    gauc = totals.get(0, {}).get("auc")
    head = (f"  {_count(len(mon.units), 'segment')} (max {mon.max_segments})"
            + (f" + {mon.OTHER}: {_count(own['pooled_predictions'], 'prediction')} of "
               f"other values pooled ({_count(own['pooled_events'], 'event')})"
               if mon.OTHER in mon.segments else "")
            + f"; {mon.correction} correction")
    if gauc is not None and gauc == gauc:
        head += (f"; group AUC {gauc:.4f} over "
                 f"{_count(mon.history[-1].gauc_segments, 'segment')}")
    challenger_gauc = totals.get(1, {}).get("auc")
    if challenger_gauc is not None and challenger_gauc == challenger_gauc:
        head += f"; challenger group AUC {challenger_gauc:.4f}"
    lines = [head]
    rows = {} if last is None else {(type(r["segment"]), r["segment"], r.get("model")): r
                                     for r in (*last.cells, *last.pairs)}
    for name in mon.segments:
        lines.append(_segment_line(mon, shape, name, iso_time))
        if shape.models == 2:
            pair = rows.get((type(name), name, None))
            if pair is not None and pair["diff"] == pair["diff"]:
                challenger = rows[type(name), name, 1]
                lines.append(f"    challenger AUC {challenger['auc']:.4f}, "
                             f"difference {pair['diff']:+.4f} on "
                             f"{_count(pair['paired_n'], 'row')} (p "
                             f"{pair['paired_p_value']:.3g}, {mon.correction} "
                             f"{pair['paired_p_adjusted']:.3g})")
            else:
                lines.append("    challenger: no paired test yet")
    return lines


def _segment_line(mon, shape, name, iso_time) -> str:
    """One segment's window, reference and alerts (the first kept)."""
    unit = mon.unit(name)
    model = unit.champion if shape.models == 2 else unit
    ref = _reference(unit, model)
    ref_text = "reference not frozen yet" if ref == "not frozen yet" or \
        not unit.reference_counts.n else f"reference {ref}"
    count = mon.segment_alerts.get(name, 0)
    first = next((r for r in mon.alerts if name in r.segments
                  and (r.alerts[r.segments.index(name)] or r.paired_alerts
                       and r.paired_alerts[r.segments.index(name)])), None)
    first_text = "" if first is None else \
        f", {_kept(mon)}at event {first.events}{_when(first, iso_time)}"
    return (f"  segment {shown_value(name)}: {unit.n} labeled + {unit.pending} pending; "
            f"{ref_text}; {_count(count, 'alert')}{first_text}")


def _reports_line(mon, shape, iso_time) -> str:
    """The reports, the alerts (the first kept), and each detector's detections."""
    st = mon.stats
    first = mon.alerts[0] if mon.alerts else None
    if shape.models == 2 or shape.segmented:
        alerts = f"{st['alerts']} with an alert" + (
            f" ({st['paired_alerts']} with a paired alert)" if shape.models == 2 else "")
    else:
        alerts = _count(st["alerts"], "alert")
    text = f"  {_count(st['reports'], 'report')}, {alerts}"
    if first is not None:
        text += f", {_kept(mon)}at event {first.events}{_when(first, iso_time)}"
    if shape.segmented:
        return text
    models = (("champion ", mon.champion), ("challenger ", mon.challenger)) \
        if shape.models == 2 else (("", mon),)
    for who, model in models:
        if model.detector is not None:
            last, fired = model.last_detection, model.stats["detections"]
            text += (f"; the {who}detector fired {fired} time{'' if fired == 1 else 's'}"
                     + ("" if last is None else f", last at event {last}"))
    return text


def _paired_lines(mon, last, iso_time) -> list:
    """The challenger's counts and window, and the paired test of the latest report."""
    b = mon.challenger
    st = b.stats
    alerts = _count(mon.stats["paired_alerts"], "paired alert")
    lines = [f"  challenger: {_count(st['predictions'], 'prediction')}, {st['labeled']} "
             f"labeled, {st['rescored']} re-scored, {st['dropped']} late dropped, "
             f"{st['unmatched']} unmatched; window {b.n} labeled + {b.pending} pending"]
    pair = None if last is None else last.pairs[0]
    if pair is not None and pair["diff"] == pair["diff"]:
        lines.append(f"  paired ({mon.alert_on}): challenger AUC - champion AUC "
                     f"{pair['diff']:+.4f} on {_count(pair['paired_n'], 'row')} (z "
                     f"{pair['paired_z']:.2f}, p {pair['paired_p_value']:.3g}); {alerts}")
    elif last is not None and last.cells[0]["metric"] == "concordance":
        lines.append(f"  paired ({mon.alert_on}): no paired test: DeLong's paired test "
                     "compares AUCs of two label values, and the labels are non-binary")
    else:
        n = 0 if pair is None else pair["paired_n"]
        lines.append(f"  paired ({mon.alert_on}): no test yet ({_count(n, 'row')} labeled "
                     f"in both windows); {alerts}")
    fired = [r for r in mon.alerts if r.paired_alert]
    if fired:
        lines[-1] += f", {_kept(mon).strip()} at event {fired[0].events}" \
            f"{_when(fired[0], iso_time)}"
    return lines
