"""``streamrank monitor --segment COL``: the pieces of a segmented run (one window per
segment value, `streamrank.monitor.SegmentedMonitor`): its monitor, its checks against a
checkpoint, its report lines' columns and its stderr summary. Printing only; the rules
are the library's.

With ``--challenger-score`` too, each segment's unit is a
`streamrank.monitor.PairedMonitor`: a line per segment carries both models' columns
and the paired test (``paired_p_adjusted``: corrected across segments, apart from the
champions' drop tests' ``p_adjusted``; ``challenger_alert`` by it), the total line both
models' group AUC; the plot draws the champions' lines per segment; ``/metrics`` gives
every per-segment sample once per model (``model`` = ``--name`` / ``--challenger-name``)
and the paired gauges per segment."""

from __future__ import annotations

import click

from ..monitor.counters import COMMAND, SEGMENTED

__all__ = ["SEGMENT_COLUMNS", "SEGMENT_PAIRED_EXTRA", "SEGMENT_PAIRED_TABLE",
           "champion_history", "collect_segments", "is_paired", "make_monitor",
           "segment_differences", "summary"]

#: The columns of a segmented run's report lines: a line per segment (``segment`` its
#: value, ``alert`` by its corrected p-value ``p_adjusted``, ``segment_alert`` by its
#: own), then a total line (``segment`` empty, ``metric`` ``gauc``, ``auc`` the group AUC
#: of the window; ``n``, ``pending`` summed; ``dropped``, ``unmatched`` the stream's;
#: ``alert``, ``drift`` any segment's).
SEGMENT_COLUMNS = ("events", "time", "segment", "n", "pending", "dropped", "unmatched",
                   "metric", "auc", "auc_low", "auc_high", "reference_auc", "se", "z",
                   "p_value", "p_adjusted",
                   "alert", "segment_alert", "drift", "concordant", "discordant",
                   "tied_score", "comparable", "tied_label", "tied_both")
SEGMENT_TABLE = (("events", 10), ("time", 20), ("segment", 12), ("n", 8), ("pending", 8),
                 ("auc", 9), ("reference_auc", 13), ("z", 8), ("p_value", 10),
                 ("p_adjusted", 10), ("alert", 5), ("drift", 5))
#: What a segmented run with a challenger adds after the paired columns
#: (`streamrank.cli._monitor_paired.PAIRED_COLUMNS`; `streamrank.monitor.SegmentedReport.rows`).
SEGMENT_PAIRED_EXTRA = ("paired_p_adjusted", "segment_challenger_alert")
SEGMENT_PAIRED_TABLE = (("challenger_auc", 14), ("diff", 8), ("paired_p_value", 14),
                        ("paired_p_adjusted", 17), ("challenger_alert", 16))


def make_monitor(max_segments, correction, alert_on=None, **options):
    """The `SegmentedMonitor` of a fresh run, of `PairedMonitor` units with ``alert_on``
    (``--challenger-score``); a bad option is a usage error."""
    from ..monitor import PairedMonitor, SegmentedMonitor

    try:
        if alert_on is None:
            return SegmentedMonitor(max_segments=max_segments, correction=correction,
                                    **options)
        return SegmentedMonitor(max_segments=max_segments, correction=correction,
                                factory=lambda: PairedMonitor(**options,
                                                              alert_on=alert_on))
    except (ValueError, TypeError) as exc:
        raise click.UsageError(str(exc)) from None


def is_paired(mon) -> bool:
    """Whether a monitor compares a challenger (a `PairedMonitor`, or a segmented one of
    `PairedMonitor` units)."""
    base = mon.template() if hasattr(mon, "segments") else mon
    return hasattr(base, "challenger")


def champion_history(mon) -> list:
    """The segmented history of ``mon`` with each segment's report its champion's (what
    the plot draws); the history itself without a challenger."""
    from dataclasses import replace

    if not is_paired(mon):
        return list(mon.history)
    return [replace(r, reports=tuple(x.champion for x in r.reports)) for r in mon.history]


def segment_differences(given, params, mon, meta) -> list:
    """How ``--segment``, ``--max-segments`` and ``--correction`` given on the command
    line differ from the checkpoint's run (``mon`` its monitor)."""
    segmented = hasattr(mon, "segments")   # (--segment left out: the checkpoint's)
    out = []
    if params["segment_col"] is not None and not segmented:
        out.append(f"--segment {params['segment_col']!r}: the checkpoint's monitor has "
                   "one window (no segments)")
    for name in ("max_segments", "correction"):
        if name in given and not segmented:
            out.append(f"--{name.replace('_', '-')} {params[name]}: the checkpoint's "
                       "monitor has one window (no segments)")
    if segmented:
        from ._monitor_input import as_typed

        for name in ("max_segments", "correction"):
            if name in given and params[name] != getattr(mon, name):
                out.append(f"{as_typed(name, params[name])}: the checkpoint's run has "
                           f"{as_typed(name, getattr(mon, name))} (which a resumed run "
                           "keeps)")
    return out


def summary(mon, skipped, plot, stopped_by, iso_time) -> None:
    """The stderr summary of a segmented run: the totals, then one line per segment (its
    window, reference and corrected alerts), then the reports (``stopped_by``: the signal
    that stopped the run, or None)."""
    import warnings

    from ..exceptions import UndefinedMetricWarning
    from ..io.events import format_time
    from ._monitor_output import _count, shown_value, stop_words, stream_counts
    from ._monitor_wait import unmatched_advice, wait_summary

    st = mon.totals()
    own = mon.stats
    # the reports kept (--max-history) may have lost the first alerts
    kept = "first " if len(mon.alerts) == own["alerts"] else "the first kept (--max-history) "

    def when(r):
        return "" if r.time is None else \
            f" ({format_time(r.time) if iso_time else f'time {r.time:g}'})"

    last = mon.history[-1] if mon.history else None
    gauc = "" if last is None or last.gauc != last.gauc else \
        f"; group AUC {last.gauc:.4f} over {_count(last.gauc_segments, 'segment')}"
    st = {k: st.get(k, 0) for k in ("predictions", "labeled", "late", "rescored")} | st
    lines = [
        stop_words(stopped_by) + stream_counts(
            st, skipped, f" ({own['dropped'] + own['unmatched']} of them without a "
                         "segment)"),
        f"  {_count(len(mon.units), 'segment')} (max {mon.max_segments})"
        + (f" + {mon.OTHER}: {_count(own['pooled_predictions'], 'prediction')} of other "
           f"values pooled ({_count(own['pooled_events'], 'event')})"
           if mon.OTHER in mon.segments else "")
        + f"; {mon.correction} correction{gauc}",
    ]
    if wait_summary(mon):
        lines.insert(1, wait_summary(mon))
    advice = unmatched_advice(mon, st)
    paired = is_paired(mon)
    if paired and last is not None and last.challenger_gauc == last.challenger_gauc:
        lines[-1] += f"; challenger group AUC {last.challenger_gauc:.4f}"
    for name in mon.segments:
        unit = mon.unit(name)
        base = unit.champion if paired else unit
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            ref = unit.reference_counts
            ref_text = (f"reference AUC {ref.auc:.4f} (n={ref.n})" if ref is not None
                        and ref.n and base.reference_levels <= 2 else
                        f"reference concordance {ref.auc:.4f} (n={ref.n})" if ref is not None
                        and ref.n else "reference not frozen yet")
        count = mon.segment_alerts.get(name, 0)
        first = next((r for r in mon.alerts if name in r.segments
                      and (r.alerts[r.segments.index(name)] or r.paired_alerts
                           and r.paired_alerts[r.segments.index(name)])), None)
        first_text = "" if first is None else \
            f", {kept}at event {first.events}{when(first)}"
        lines.append(f"  segment {shown_value(name)}: {unit.n} labeled + {unit.pending} "
                     f"pending; {ref_text}; {_count(count, 'alert')}{first_text}")
        i = None if last is None or name not in last.segments else \
            last.segments.index(name)
        if paired and i is not None and last.reports[i].difference == \
                last.reports[i].difference:
            x = last.reports[i]
            lines.append(f"    challenger AUC {x.challenger.auc:.4f}, difference "
                         f"{x.difference:+.4f} on {_count(x.n, 'row')} (p {x.p_value:.3g}, "
                         f"{mon.correction} {last.paired_p_adjusted[i]:.3g})")
        elif paired:
            lines.append("    challenger: no paired test yet")
    first = mon.alerts[0] if mon.alerts else None
    if advice:
        lines.append(advice)
    lines.append(f"  {_count(own['reports'], 'report')}, {own['alerts']} with an alert"
                 + (f" ({own['paired_alerts']} with a paired alert)" if paired else "")
                 + ("" if first is None else
                    f", {kept}at event {first.events}{when(first)}"))
    if plot is not None:
        lines.append(f"  plot: {plot}")
    click.echo("\n".join(lines), err=True)


def collect_segments(values, skipped, model, gauges, counters, challenger=None):
    """The metric families of a segmented run (``SegmentedMonitor.metrics()`` as
    ``values``): every gauge and counter of one window once per segment, labeled
    ``model`` and ``segment``, plus ``streamrank_p_value_adjusted`` and
    ``streamrank_segment_alerts`` per segment; and, labeled ``model`` only, the group AUC
    ``streamrank_window_gauc``, ``streamrank_segments``,
    ``streamrank_stream_waiting_labels``, and the counters of the whole stream
    (``streamrank_stream_events_total``, ``streamrank_pooled_events_total``,
    ``streamrank_pooled_predictions_total``, ``streamrank_skipped_rows_total``,
    ``streamrank_stream_alerts_total``; and of the labels without a segment, counted at
    the stream level, ``streamrank_stream_late_dropped_total``,
    ``streamrank_stream_unmatched_labels_total``,
    ``streamrank_stream_joined_labels_total``).

    With ``challenger`` (``--challenger-name``; `PairedMonitor` units): each per-segment
    sample once per model (the challenger's under its name), the paired gauges of
    `streamrank.cli._monitor_paired` per segment (labels ``model`` (the challenger),
    ``champion``, ``segment``) with ``streamrank_paired_p_value_adjusted`` and
    ``streamrank_segment_paired_alert``; the group AUC per model, and
    ``streamrank_stream_paired_alerts_total``."""
    from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

    segments = values["segments"]
    per = [(GaugeMetricFamily, name, key, text) for name, key, text in gauges]
    per.append((GaugeMetricFamily, "streamrank_p_value_adjusted", "p_adjusted",
                "The p-value corrected across segments at the latest report."))
    per.append((GaugeMetricFamily, "streamrank_segment_alert", "alert",
                "1 if the segment alerted (corrected p < alpha) at the latest report."))
    per += [(CounterMetricFamily, name, key, text) for name, key, text in counters
            if key != "skipped_rows"]
    own = {"p_adjusted", "alert"}       # the segmented monitor's, not a model's
    for kind, name, key, text in per:
        family = kind(name, text, labels=["model", "segment"])
        for seg, d in segments.items():
            family.add_metric([model, seg], float(d[key]))
            if challenger is not None and key not in own:
                family.add_metric([challenger, seg], float(d["challenger_" + key]))
        yield family
    if challenger is not None:
        from ._monitor_paired import _PAIRED_GAUGES

        for name, key, text in _PAIRED_GAUGES + (
                ("streamrank_paired_p_value_adjusted", "paired_p_adjusted",
                 "The paired p-value corrected across segments at the latest report."),
                ("streamrank_segment_paired_alert", "paired_alert",
                 "1 if the segment's paired test alerted (corrected p < alpha) at the "
                 "latest report.")):
            family = GaugeMetricFamily(name, text, labels=["model", "champion", "segment"])
            for seg, d in segments.items():
                family.add_metric([challenger, model, seg], float(d[key]))
            yield family
    family = GaugeMetricFamily("streamrank_window_gauc", "Group AUC of the window over "
                               "the segments at the latest report.", labels=["model"])
    family.add_metric([model], float(values["window_gauc"]))
    if challenger is not None:
        family.add_metric([challenger], float(values["challenger_window_gauc"]))
    yield family
    stream = {c.name: c for c in SEGMENTED if c.metric is not None}
    paired_alerts = stream.pop("paired_alerts")
    if challenger is not None:
        family = CounterMetricFamily(paired_alerts.family, paired_alerts.help,
                                     labels=["model", "champion"])
        family.add_metric([challenger, model], float(values["paired_alerts"]))
        yield family
    family = GaugeMetricFamily("streamrank_segments", "Segments held (with the pooled "
                               "one).", labels=["model"])
    family.add_metric([model], float(values["segments_held"]))
    yield family
    family = GaugeMetricFamily("streamrank_stream_waiting_labels", "Labels without a "
                               "segment waiting for their prediction now (--label-wait).",
                               labels=["model"])
    family.add_metric([model], float(values["waiting_labels"]))
    yield family
    for c in (*stream.values(), *COMMAND):
        family = CounterMetricFamily(c.family, c.help, labels=["model"])
        family.add_metric([model], float(skipped if c in COMMAND else values[c.metric]))
        yield family
