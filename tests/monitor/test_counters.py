"""One list of counters (`streamrank.monitor.counters`) behind every monitor's `stats`,
its `metrics()`, the Prometheus families and the snapshots: a snapshot written before a
counter was added still loads (the counter reads 0), and one naming a counter that does
not exist is refused, for every shape of monitor."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from streamrank import SnapshotError, _snapshot
from streamrank.cli import _monitor_metrics
from streamrank.monitor import Monitor, PairedMonitor, SegmentedMonitor, counters


def _feed(m, n=60):
    """Predictions with labels, late labels, re-scores, a label before its prediction
    (unmatched, then early) and, with segments, a pooled segment; reports every 20."""
    rng = np.random.default_rng(3)
    segmented = isinstance(m, SegmentedMonitor)
    paired = isinstance(m, PairedMonitor) or segmented and m._paired

    def seg(i):
        return {"segment": "abc"[i % 3]} if segmented else {}
    for i in range(n):
        kw = seg(i)
        score = float(rng.random())
        if paired:
            kw["challenger"] = float(rng.random())
        label = int(rng.random() < score) if i % 3 else None
        m.observe(i, score=score, label=label, **kw)
        if i % 3 == 0 and i >= 3:
            m.observe(i - 3, label=1, **seg(i - 3))
        if i % 7 == 6:
            m.observe(i - 1, score=float(rng.random()), **seg(i - 1))
        if i == 10:
            m.observe(10_000, label=1)
        if i == 15:
            m.observe(10_000, score=0.5, **seg(0))
        if i % 20 == 19:
            m.report()
    return m


SHAPES = {
    "plain": (lambda: Monitor(window=30, min_window=4), counters.MONITOR),
    "paired": (lambda: PairedMonitor(window=30, min_window=4), counters.PAIRED),
    "segments": (lambda: SegmentedMonitor(window=30, min_window=4, max_segments=2),
                 counters.SEGMENTED),
    "segments x paired": (
        lambda: SegmentedMonitor(factory=lambda: PairedMonitor(window=30, min_window=4),
                                 max_segments=2),
        counters.SEGMENTED),
}


def _rewrite_stats(data: bytes, change) -> bytes:
    """``data`` with ``change(stats)`` applied to the counters of every node of the
    snapshot (the monitor's ``state``, and a pair's models', a segmented monitor's units'
    ``.../state``)."""
    arrays = _snapshot.read_archive(data, ValueError)
    fmt, version = str(arrays.pop("format")), int(arrays.pop("version"))
    nodes = [name for name in arrays if name == "state" or name.endswith("/state")]
    assert len(nodes) > 1 or "champion/state" not in arrays
    for name in nodes:
        state = json.loads(str(arrays[name]))
        change(state["stats"])
        arrays[name] = np.array(json.dumps(state))
    out = io.BytesIO()
    np.savez(out, format=np.array(fmt), version=np.array(version, dtype=np.int64), **arrays)
    return out.getvalue()


@pytest.mark.parametrize("shape", list(SHAPES))
def test_stats_are_the_declared_counters(shape):
    make, declared = SHAPES[shape]
    m = _feed(make())
    assert tuple(m.stats) == counters.names(declared)
    m._check()


@pytest.mark.parametrize("shape, missing", [
    ("plain", "rescored"), ("plain", "early_lead"), ("paired", "rescored"),
    ("paired", "early_lead"), ("segments", "pooled_predictions"), ("segments", "early_lead"),
    ("segments x paired", "pooled_events"), ("segments x paired", "early_lead")])
def test_a_snapshot_written_before_a_counter_was_added_still_loads(shape, missing):
    make, declared = SHAPES[shape]
    m = _feed(make())
    assert m.stats[missing] > 0     # (a count the snapshot loses, not a zero anyway)
    old = _rewrite_stats(m.to_bytes(), lambda stats: stats.pop(missing, None))
    back = type(m).from_bytes(old)
    assert back.stats[missing] == 0
    assert {k: v for k, v in back.stats.items() if k != missing} == \
        {k: v for k, v in m.stats.items() if k != missing}
    assert tuple(back.stats) == counters.names(declared)
    back._check()
    assert repr(back.report()) == repr(m.report())     # the same windows, the same reading


@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_snapshot_with_an_unknown_or_bad_counter_is_refused(shape):
    make, _ = SHAPES[shape]
    m = _feed(make())
    cls = type(m)
    unknown = _rewrite_stats(m.to_bytes(), lambda stats: stats.update(evnets=3))
    with pytest.raises(SnapshotError, match="unknown counter 'evnets'"):
        cls.from_bytes(unknown)
    negative = _rewrite_stats(m.to_bytes(), lambda stats: stats.update(events=-1))
    with pytest.raises(SnapshotError, match="counter 'events' is -1"):
        cls.from_bytes(negative)


def test_restore_fills_missing_counters_and_names_what_it_refuses():
    assert counters.restore({}, counters.PAIRED) == counters.zeros(counters.PAIRED)
    assert list(counters.restore({"alerts": 2, "events": 5}, counters.MONITOR)) == \
        list(counters.names(counters.MONITOR))          # declared order, not stored order
    for bad in ([("events", 1)], {"events": 1.0}, {"events": True}):
        with pytest.raises(ValueError, match="counter|not a dict"):
            counters.restore(bad, counters.MONITOR)


def test_metrics_and_prometheus_derive_from_the_counters():
    m = _feed(Monitor(window=30, min_window=4))
    d = m.metrics()
    exported = [c for c in counters.MONITOR if c.metric is not None]
    assert all(d[c.metric] == m.stats[c.name] for c in exported)
    collected = {f.name: f for f in _monitor_metrics.Collector(m, lambda: 5, "x").collect()
                 if f.type == "counter"}
    for c in exported + list(counters.COMMAND):
        family = collected.pop(c.family)
        assert family.documentation == c.help
        assert family.samples[0].value == (5 if c in counters.COMMAND else m.stats[c.name])
    assert not collected


def test_segmented_metrics_carry_the_stream_counters():
    m = _feed(SegmentedMonitor(factory=lambda: PairedMonitor(window=30, min_window=4)))
    d = m.metrics()
    for c in counters.SEGMENTED:
        if c.metric is not None:
            assert d[c.metric] == m.stats[c.name]
    plain = _feed(SegmentedMonitor(window=30, min_window=4)).metrics()
    assert "paired_alerts" not in plain
