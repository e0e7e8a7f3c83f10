"""``streamrank monitor --challenger-score``: what a champion-against-challenger run adds
to the output (the report columns, the table's columns, the summary's lines) and to the
Prometheus endpoint (the challenger's samples under its own ``model`` label, the paired
gauges). The monitor is a `streamrank.monitor.PairedMonitor`."""

from __future__ import annotations

from ..monitor._paired_report import PAIRED_KEYS
from ..monitor.counters import PAIRED

__all__ = ["PAIRED_COLUMNS", "PAIRED_TABLE", "PairedCollector", "paired_summary"]

#: What ``--format json|csv`` adds after the single-model columns
#: (`streamrank.monitor.PairedReport.as_dict` keys).
PAIRED_COLUMNS = PAIRED_KEYS

#: What the table adds after the single-model columns.
PAIRED_TABLE = (("challenger_auc", 14), ("diff", 8), ("paired_z", 8),
                ("paired_p_value", 14), ("challenger_alert", 16))

# (name, key of PairedMonitor.metrics, help): the paired gauges
_PAIRED_GAUGES = (
    ("streamrank_paired_labeled", "paired_labeled",
     "Ids labeled in both models' windows (the rows of the paired test)."),
    ("streamrank_paired_auc_difference", "auc_difference",
     "Challenger AUC minus champion AUC on the paired rows at the latest report."),
    ("streamrank_paired_auc_difference_low", "auc_difference_low",
     "Lower bound of the AUC difference's interval at the latest report."),
    ("streamrank_paired_auc_difference_high", "auc_difference_high",
     "Upper bound of the AUC difference's interval at the latest report."),
    ("streamrank_paired_z", "paired_z",
     "DeLong's paired z of the AUC difference at the latest report."),
    ("streamrank_paired_p_value", "paired_p_value",
     "P-value of DeLong's paired test (--alert-on) at the latest report."),
)


class PairedCollector:
    """A `prometheus_client` collector of a `PairedMonitor`: every gauge and counter of
    ``streamrank monitor --metrics-port`` once per model (``model`` = ``--name`` for the
    champion, ``--challenger-name`` for the challenger), the skipped rows under the
    champion's name, and the paired gauges and the ``streamrank_paired_alerts_total``
    counter labeled ``model`` (the challenger) and ``champion``."""

    def __init__(self, mon, skipped, model, challenger, gauges, counters):
        self._mon, self._skipped = mon, skipped
        self._model, self._challenger = model, challenger
        self._gauges, self._counters = gauges, counters

    def collect(self):
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

        values = self._mon.metrics()
        values["skipped_rows"] = self._skipped()
        models = ((self._model, ""), (self._challenger, "challenger_"))
        for name, key, text in self._gauges:
            family = GaugeMetricFamily(name, text, labels=["model"])
            for model, prefix in models:
                family.add_metric([model], float(values[prefix + key]))
            yield family
        for name, key, text in self._counters:
            family = CounterMetricFamily(name, text, labels=["model"])
            for model, prefix in models[:1] if key == "skipped_rows" else models:
                family.add_metric([model], float(values[prefix + key]))
            yield family
        pair = [self._challenger, self._model]
        for name, key, text in _PAIRED_GAUGES:
            family = GaugeMetricFamily(name, text, labels=["model", "champion"])
            family.add_metric(pair, float(values[key]))
            yield family
        paired_alerts = next(c for c in PAIRED if c.name == "paired_alerts")
        family = CounterMetricFamily(paired_alerts.family, paired_alerts.help,
                                     labels=["model", "champion"])
        family.add_metric(pair, float(values["paired_alerts"]))
        yield family


def paired_summary(mon, iso_time) -> list:
    """The summary's lines about the challenger and the paired test of ``mon`` (a
    `PairedMonitor`)."""
    from ..io.events import format_time
    from ._monitor_output import _count

    b = mon.challenger
    st = b.stats
    last = mon.history[-1] if mon.history else None
    alerts = _count(mon.stats["paired_alerts"], "paired alert")
    lines = [f"  challenger: {_count(st['predictions'], 'prediction')}, {st['labeled']} "
             f"labeled, {st['rescored']} re-scored, {st['dropped']} late dropped, "
             f"{st['unmatched']} unmatched; window {b.n} labeled + {b.pending} pending"]
    if last is not None and last.difference == last.difference:
        lines.append(f"  paired ({mon.alert_on}): challenger AUC - champion AUC "
                     f"{last.difference:+.4f} on {_count(last.n, 'row')} (z {last.z:.2f}, "
                     f"p {last.p_value:.3g}); {alerts}")
    elif last is not None and last.champion.metric == "concordance":
        lines.append(f"  paired ({mon.alert_on}): no paired test: DeLong's paired test "
                     "compares AUCs of two label values, and the labels are non-binary")
    else:
        n = 0 if last is None else last.n
        lines.append(f"  paired ({mon.alert_on}): no test yet ({_count(n, 'row')} labeled "
                     f"in both windows); {alerts}")
    fired = [r for r in mon.alerts if r.paired_alert]
    if fired:
        r = fired[0]
        when = "" if r.time is None else \
            f" ({format_time(r.time) if iso_time else f'time {r.time:g}'})"
        kept = "first" if len(mon.alerts) == mon.stats["alerts"] else \
            "the first kept (--max-history)"
        lines[-1] += f", {kept} at event {r.events}{when}"
    return lines
