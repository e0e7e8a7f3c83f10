"""``streamrank monitor --metrics-port``: a Prometheus ``/metrics`` endpoint of the run.

`serve_metrics` starts `prometheus_client.start_http_server` (a daemon thread) on a
private `prometheus_client.CollectorRegistry` holding one collector, `_MonitorCollector`,
which reads the monitor's numbers at scrape time (`streamrank.monitor.Monitor.metrics`:
the latest report's readings and the cumulative statistics), so a scrape never sees a
stale value and nothing is updated per event. The command feeds the monitor holding a
lock for each event and report (`locked`), and a scrape reads holding it too, so every
scrape is of the state between two events: its counters add up (README, "Thread
safety"). Every sample has the label ``model`` (``--name``), and with ``--segment`` the
label ``segment`` (`_monitor_segments`). ``prometheus_client`` is imported here only,
when the option is given.
"""

from __future__ import annotations

import functools

import click

from ..monitor import counters
from ._common import InputError

__all__ = ["locked", "serve_metrics"]

# (name, key of Monitor.metrics, help): gauges of the latest report
_GAUGES = (
    ("streamrank_window_auc", "window_auc",
     "AUC (or concordance) of the window at the latest report."),
    ("streamrank_window_auc_low", "window_auc_low",
     "Lower bound of the window AUC's interval at the latest report."),
    ("streamrank_window_auc_high", "window_auc_high",
     "Upper bound of the window AUC's interval at the latest report."),
    ("streamrank_reference_auc", "reference_auc",
     "AUC (or concordance) of the frozen reference window (nan until frozen)."),
    ("streamrank_p_value", "p_value",
     "One-sided p-value of a drop from the reference at the latest report."),
    ("streamrank_window_labeled", "window_labeled",
     "Labeled predictions in the window at the latest report."),
    ("streamrank_window_pending", "window_pending",
     "Predictions in the window waiting for their label at the latest report."),
    ("streamrank_waiting_labels", "waiting_labels",
     "Labels or weights waiting for their prediction now (--label-wait)."),
)
# (name without _total, key, help): cumulative counters, every one of a model's monitor
# with a metrics key (`streamrank.monitor.counters`) and the rows the command skipped
_COUNTERS = tuple((c.family, c.metric, c.help) for c in counters.MONITOR + counters.COMMAND
                  if c.metric is not None)


def locked(lock, fn):
    """``fn`` called holding ``lock`` (a feeding thread's `observe` and `report`)."""
    @functools.wraps(fn)
    def call(*args, **kwargs):
        with lock:
            return fn(*args, **kwargs)
    return call


class _Locked:
    """The monitor as a scrape reads it: `metrics` holding the feeding thread's lock."""

    def __init__(self, mon, lock):
        self.metrics = locked(lock, mon.metrics)


class _MonitorCollector:
    """A `prometheus_client` collector reading ``mon.metrics()`` (and ``skipped()``, the
    rows the command skipped) at each scrape."""

    def __init__(self, mon, skipped, model, challenger=None):
        self._mon, self._skipped, self._model = mon, skipped, model
        self._challenger = challenger   # a segmented run's challenger name

    def collect(self):
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

        values = self._mon.metrics()
        if "segments" in values:        # a SegmentedMonitor (--segment)
            from ._monitor_segments import collect_segments

            yield from collect_segments(values, self._skipped(), self._model, _GAUGES,
                                        _COUNTERS, self._challenger)
            return
        values["skipped_rows"] = self._skipped()
        for name, key, text in _GAUGES:
            family = GaugeMetricFamily(name, text, labels=["model"])
            family.add_metric([self._model], float(values[key]))
            yield family
        for name, key, text in _COUNTERS:
            family = CounterMetricFamily(name, text, labels=["model"])
            family.add_metric([self._model], float(values[key]))
            yield family


def serve_metrics(mon, skipped, host, port, model, challenger=None, lock=None):
    """Serve ``/metrics`` of ``mon`` on ``host:port`` (0: a free port) and print the
    address to stderr; return the server (``shutdown()`` it at the end).

    ``skipped`` is a callable returning the rows skipped so far; ``lock``, held by a
    scrape while it reads ``mon.metrics()``, is the one the feeding thread holds for
    each event (`locked`). A port that cannot be bound (in use, no permission) or an
    unknown host exits 2. With ``challenger`` (the ``--challenger-name`` of a
    `PairedMonitor`), `streamrank.cli._monitor_paired.PairedCollector`: every sample per
    model, and the paired gauges.
    """
    from prometheus_client import CollectorRegistry, start_http_server

    registry = CollectorRegistry(auto_describe=False)
    segmented = hasattr(mon, "segments")
    if lock is not None:
        mon = _Locked(mon, lock)
    if challenger is None or segmented:
        registry.register(_MonitorCollector(mon, skipped, model, challenger))
    else:
        from ._monitor_paired import PairedCollector

        registry.register(PairedCollector(mon, skipped, model, challenger, _GAUGES,
                                          _COUNTERS))
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
