"""``streamrank monitor --metrics-port``: a Prometheus ``/metrics`` endpoint of the run.

`serve_metrics` starts `prometheus_client.start_http_server` (a daemon thread) on a
private `prometheus_client.CollectorRegistry` holding one collector, `Collector`, which
reads the monitor's numbers at scrape time (`streamrank.monitor.metrics.live_table`: the
latest report's table and the counters now, for every shape of monitor), so a scrape
never sees a stale value and nothing is updated per event. The command feeds the monitor holding a
lock for each event and report (`locked`), and a scrape reads holding it too, so every
scrape is of the state between two events: its counters add up (README, "Thread
safety"). Every sample has the label ``model`` (``--name``), and with ``--segment`` the
label ``segment``. ``prometheus_client`` is imported here only,
when the option is given.
"""

from __future__ import annotations

import functools

import click

from ..monitor import counters
from ._common import InputError

__all__ = ["Collector", "locked", "serve_metrics"]

# (family, table column, help, champion only): the gauges of a cell (segment, model); the
# last two a segmented monitor's only
_CELL_GAUGES = (
    ("streamrank_window_auc", "auc",
     "AUC (or concordance) of the window at the latest report.", False),
    ("streamrank_window_auc_low", "auc_low",
     "Lower bound of the window AUC's interval at the latest report.", False),
    ("streamrank_window_auc_high", "auc_high",
     "Upper bound of the window AUC's interval at the latest report.", False),
    ("streamrank_reference_auc", "reference_auc",
     "AUC (or concordance) of the frozen reference window (nan until frozen).", False),
    ("streamrank_p_value", "p_value",
     "One-sided p-value of a drop from the reference at the latest report.", False),
    ("streamrank_window_labeled", "n",
     "Labeled predictions in the window at the latest report.", False),
    ("streamrank_window_pending", "pending",
     "Predictions in the window waiting for their label at the latest report.", False),
    ("streamrank_waiting_labels", "waiting",
     "Labels or weights waiting for their prediction now (--label-wait).", False),
    ("streamrank_detectable_drop", "detectable_drop",
     "The smallest drop below the reference's AUC the test detects at alpha with power "
     "0.8, at the latest report.", False),
)
# the gauges of a cell of a monitor with --estimate
_ESTIMATE_GAUGES = (
    ("streamrank_estimated_auc", "estimated_auc",
     "Calibration estimate of the window's AUC from every prediction, labeled or not, "
     "at the latest report (--estimate).", False),
    ("streamrank_estimated_auc_labeled", "estimated_auc_labeled",
     "Calibration estimate of the window's AUC from its labeled predictions at the "
     "latest report (--estimate).", False),
)
# the gauges of a cell of a monitor with --score-drift
_SCORE_GAUGES = (
    ("streamrank_score_shift", "score_shift",
     "P(a window score > a reference score), ties 1/2, over every prediction at the "
     "latest report (--score-drift; 0.5: no shift).", False),
    ("streamrank_score_shift_p_value", "score_shift_p",
     "Two-sided p-value of no score shift at the latest report (--score-drift).", False),
    ("streamrank_score_ks", "ks",
     "Kolmogorov-Smirnov statistic of the window's scores against the reference's at "
     "the latest report (--score-drift).", False),
    ("streamrank_score_ks_p_value", "ks_p",
     "Asymptotic p-value of the Kolmogorov-Smirnov statistic at the latest report "
     "(--score-drift).", False),
)
_SEGMENT_GAUGES = (
    ("streamrank_p_value_adjusted", "p_adjusted",
     "The p-value corrected across segments at the latest report.", True),
    ("streamrank_segment_alert", "alert",
     "1 if the segment alerted (corrected p < alpha) at the latest report.", True),
)
# (family, table column, help): the gauges of a pair (the challenger against the
# champion); the last two a segmented monitor's only
_PAIR_GAUGES = (
    ("streamrank_paired_labeled", "paired_n",
     "Ids labeled in both models' windows (the rows of the paired test)."),
    ("streamrank_paired_auc_difference", "diff",
     "Challenger AUC minus champion AUC on the paired rows at the latest report."),
    ("streamrank_paired_auc_difference_low", "diff_low",
     "Lower bound of the AUC difference's interval at the latest report."),
    ("streamrank_paired_auc_difference_high", "diff_high",
     "Upper bound of the AUC difference's interval at the latest report."),
    ("streamrank_paired_z", "paired_z",
     "DeLong's paired z of the AUC difference at the latest report."),
    ("streamrank_paired_p_value", "paired_p_value",
     "P-value of DeLong's paired test (--alert-on) at the latest report."),
)
_SEGMENT_PAIR_GAUGES = (
    ("streamrank_paired_p_value_adjusted", "paired_p_adjusted",
     "The paired p-value corrected across segments at the latest report."),
    ("streamrank_segment_paired_alert", "challenger_alert",
     "1 if the segment's paired test alerted (corrected p < alpha) at the latest "
     "report."),
)
# the counters of a cell: every one of a model's monitor with a metrics key
_CELL_COUNTERS = tuple(c for c in counters.MONITOR if c.metric is not None)


def locked(lock, fn):
    """``fn`` called holding ``lock`` (a feeding thread's `observe` and `report`)."""
    @functools.wraps(fn)
    def call(*args, **kwargs):
        with lock:
            return fn(*args, **kwargs)
    return call


class Collector:
    """A `prometheus_client` collector of a monitor of any shape: at each scrape it reads
    `streamrank.monitor.metrics.live_table` (the latest report's table, every cell's
    counters now) and ``skipped()`` (the rows the command skipped).

    Every sample of a cell is labeled ``model`` (``model``, the champion's name, or
    ``challenger``'s) and, with segments, ``segment``; a pair's samples ``model`` (the
    challenger), ``champion`` and ``segment``. A segmented monitor adds, labeled
    ``model`` only, the group AUC (``streamrank_window_gauc``), the segments held, the
    labels without a segment waiting, and the counters of the whole stream
    (`streamrank.monitor.counters.SEGMENTED`); the skipped rows are the champion's.
    With ``lock``, a scrape reads holding it (the feeding thread's: `locked`)."""

    def __init__(self, mon, skipped, model, challenger=None, lock=None):
        from ..monitor.metrics import live_table

        read = functools.partial(live_table, mon)
        self._read = read if lock is None else locked(lock, read)
        self._skipped = skipped
        self._names = (model, challenger)
        self._cell_gauges = (_CELL_GAUGES + _ESTIMATE_GAUGES * mon.estimate
                             + _SCORE_GAUGES * mon.score_drift)

    def collect(self):
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

        table, stream = self._read()
        seg = table.segmented
        names = self._names
        where = (lambda row, model: [names[model], str(row["segment"])]) if seg else \
            (lambda row, model: [names[model]])
        labels = ["model", "segment"] if seg else ["model"]
        for family, column, text, champion in self._cell_gauges + _SEGMENT_GAUGES * seg:
            metric = GaugeMetricFamily(family, text, labels=labels)
            for row in table.cells:
                if not (champion and row["model"]):
                    metric.add_metric(where(row, row["model"]), float(row[column]))
            yield metric
        for c in _CELL_COUNTERS:
            metric = CounterMetricFamily(c.family, c.help, labels=labels)
            for row in table.cells:
                metric.add_metric(where(row, row["model"]), float(row["stats"][c.name]))
            yield metric
        if not seg:
            yield self._skipped_rows()
        if table.models == 2:
            pair = ["model", "champion"] + labels[1:]
            for family, column, text in _PAIR_GAUGES + _SEGMENT_PAIR_GAUGES * seg:
                metric = GaugeMetricFamily(family, text, labels=pair)
                for row in table.pairs:
                    metric.add_metric([names[1], *where(row, 0)], float(row[column]))
                yield metric
            if not seg:
                yield self._paired_alerts(counters.PAIRED, stream)
        if seg:
            yield from self._stream(table, stream)

    def _skipped_rows(self):
        from prometheus_client.core import CounterMetricFamily

        c, = counters.COMMAND
        metric = CounterMetricFamily(c.family, c.help, labels=["model"])
        metric.add_metric([self._names[0]], float(self._skipped()))
        return metric

    def _paired_alerts(self, declared, stream):
        from prometheus_client.core import CounterMetricFamily

        c = next(c for c in declared if c.name == "paired_alerts")
        metric = CounterMetricFamily(c.family, c.help, labels=["model", "champion"])
        metric.add_metric(list(self._names[::-1]), float(stream["paired_alerts"]))
        return metric

    def _stream(self, table, stream):
        """A segmented monitor's own families: the group AUC per model, its segments,
        its waiting labels, the whole stream's counters."""
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

        metric = GaugeMetricFamily("streamrank_window_gauc", "Group AUC of the window over "
                                   "the segments at the latest report.", labels=["model"])
        for row in table.totals:
            if "model" in row:
                metric.add_metric([self._names[row["model"]]], float(row["auc"]))
        yield metric
        if table.models == 2:
            yield self._paired_alerts(counters.SEGMENTED, stream)
        for family, key, text in (
                ("streamrank_segments", "segments_held", "Segments held (with the pooled "
                 "one)."),
                ("streamrank_stream_waiting_labels", "waiting", "Labels without a segment "
                 "waiting for their prediction now (--label-wait).")):
            metric = GaugeMetricFamily(family, text, labels=["model"])
            metric.add_metric([self._names[0]], float(stream[key]))
            yield metric
        for c in counters.SEGMENTED:
            if c.metric is not None and c.name != "paired_alerts":
                metric = CounterMetricFamily(c.family, c.help, labels=["model"])
                metric.add_metric([self._names[0]], float(stream[c.name]))
                yield metric
        yield self._skipped_rows()


def serve_metrics(mon, skipped, host, port, model, challenger=None, lock=None):
    """Serve ``/metrics`` of ``mon`` on ``host:port`` (0: a free port) and print the
    address to stderr; return the server (``shutdown()`` it at the end).

    ``skipped`` is a callable returning the rows skipped so far; ``lock``, held by a
    scrape while it reads the monitor, is the one the feeding thread holds for each
    event (`locked`). A port that cannot be bound (in use, no permission) or an unknown
    host exits 2. ``challenger``: the ``--challenger-name`` of a monitor with a
    challenger (`Collector`).
    """
    from prometheus_client import CollectorRegistry, start_http_server

    registry = CollectorRegistry(auto_describe=False)
    registry.register(Collector(mon, skipped, model, challenger, lock))
    try:
        server, _ = start_http_server(port, addr=host, registry=registry)
    except OSError as exc:   # in use, no permission, an unknown host (socket.gaierror)
        raise InputError(f"--metrics-host {host} --metrics-port {port}: cannot serve the "
                         f"metrics there ({exc.strerror or exc})") from None
    bound_host, bound_port = server.server_address[:2]
    shown = f"[{bound_host}]" if ":" in str(bound_host) else bound_host
    click.echo(f"streamrank monitor: metrics on http://{shown}:{bound_port}/metrics",
               err=True)
    return server
