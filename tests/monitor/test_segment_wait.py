"""`SegmentedMonitor` with a label wait: a label without a segment that arrives before its
prediction waits at the wrapper (keyed by id) and reaches the prediction's segment.

The central property (as `Monitor`'s, `test_label_wait`): a stream whose labels (without
a segment) are shuffled within blocks, before their predictions, gives with a wait at
least as long as a block exactly the per-segment reports, windows and group AUC of the
ordered stream read without a wait, at every block end; ``_check`` holds after every
event and after a `to_bytes` round trip.
"""

import io
import warnings
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamrank.exceptions import SnapshotError
from streamrank.monitor import SegmentedMonitor

from test_label_wait import _ordered, _shuffled


def _reading(m):
    """What a report and the windows say, per segment (nan-safe), and the group AUC."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = m.report()
    per = [(seg, x.counts, x.auc, x.low, x.high, x.n, x.pending, x.reference_auc, x.z,
            x.p_value, x.alert, p, a, list(m.unit(seg).items()))
           for seg, x, p, a in zip(r.segments, r.reports, r.p_adjusted, r.alerts)]
    return repr((per, r.gauc, r.gauc_segments, r.alert))


def _feed(m, events, block, keep, times, roundtrip=()):
    out = []
    for j, (key, kw) in enumerate(events, 1):
        m.observe(key, time=times(j), **kw)
        m._check()
        if j in roundtrip:
            m = SegmentedMonitor.from_bytes(m.to_bytes())
            m._check()
        if j >= keep and (j - keep) % block == 0 or j == len(events):
            out.append(_reading(m))
    return m, out


_STREAM = st.integers(4, 40).flatmap(lambda n: st.tuples(
    st.just(n),
    st.lists(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]), min_size=n, max_size=n),
    st.lists(st.sampled_from([0, 1, None]), min_size=n, max_size=n),
    st.lists(st.integers(0, 1), min_size=n, max_size=n),
    st.lists(st.sampled_from(["fr", "de"]), min_size=n, max_size=n)))


@settings(derandomize=True, max_examples=150, deadline=None)
@given(_STREAM, st.integers(2, 4), st.integers(5, 7), st.randoms(use_true_random=False),
       st.sampled_from(["events", "time"]), st.integers(1, 2))
def _shuffled_stream_equals_the_ordered_one(checked, stream, block, window, rnd, wait,
                                            max_segments):
    """(``checked``, left to the caller, counts what was compared)"""
    n, scores, labels, delays, segs = stream
    events = [(key, {**kw, "segment": segs[key]} if "score" in kw else kw)
              for key, kw in _ordered(n, scores, labels, delays)]
    # each segment's reference freezes at its first eviction: the events up to the
    # last of them stay in order (the pooled values are one unit)
    held, seen, keep = {}, [], 0
    for j, (key, kw) in enumerate(events, 1):
        if "score" in kw:
            seg = kw["segment"]
            if seg not in seen and len(seen) < max_segments:
                seen.append(seg)
            unit = seg if seg in seen else None
            held[unit] = held.get(unit, 0) + 1
            if held[unit] == window + 1:
                keep = j
    keep = keep + (-keep % block) if keep < len(events) else keep
    keep = min(keep, len(events))
    mixed = _shuffled(events, block, rnd, keep)
    assert sorted(map(repr, mixed)) == sorted(map(repr, events))
    times = (lambda j: None) if wait == "events" else (
        lambda j: float(0 if j <= keep else 1 + (j - keep - 1) // block))
    opts = dict(window=window, min_window=2, max_segments=max_segments)
    plain = SegmentedMonitor(**opts)
    _, want = _feed(plain, events, block, keep, times)
    assert plain.totals()["dropped"] == 0
    kw = {"label_wait": block} if wait == "events" else {"label_wait_period": 1.0}
    m = SegmentedMonitor(**opts, **kw)
    m, got = _feed(m, mixed, block, keep, times, roundtrip=(len(mixed) // 2,))
    assert got == want
    early = sum(1 for j, (key, kw_) in enumerate(mixed)
                if "score" not in kw_ and all(k != key for k, _ in mixed[:j]))
    tot = m.totals()
    assert (tot["dropped"], tot["unmatched"], tot["waiting"], m.waiting) == (0, 0, 0, 0)
    assert m.stats["joined"] == tot["joined"] == early
    assert tot["labeled"] == plain.totals()["labeled"]
    checked["joined"] += early
    checked["shuffled"] += keep < len(events)
    if early:       # without a wait, the same stream loses those labels: unmatched
        lossy = SegmentedMonitor(**opts)
        _feed(lossy, mixed, block, keep, times)
        assert (lossy.stats["dropped"], lossy.stats["unmatched"], lossy.stats["early"]) \
            == (0, early, early)


@settings(derandomize=True, max_examples=40, deadline=None)
@given(_STREAM, st.integers(2, 5), st.randoms(use_true_random=False), st.integers(1, 2))
def _period_window_with_a_time_wait_loses_nothing(checked, stream, block, rnd,
                                                  max_segments):
    n, scores, labels, delays, segs = stream
    events = [(key, {**kw, "segment": segs[key]} if "score" in kw else kw)
              for key, kw in _ordered(n, scores, labels, delays)]
    keep = min(len(events), 5 * block)  # the first eviction is at time 4: kept in order
    mixed = _shuffled(events, block, rnd, keep)

    def times(j):
        return float((j - 1) // block)

    opts = dict(period=4.0, min_window=2, max_segments=max_segments)
    plain = SegmentedMonitor(**opts)
    _, want = _feed(plain, events, block, keep, times)
    assert plain.totals()["dropped"] == 0
    m = SegmentedMonitor(**opts, label_wait_period=1.0)
    m, got = _feed(m, mixed, block, keep, times, roundtrip=(len(mixed) // 3,))
    assert got == want
    tot = m.totals()
    assert (tot["dropped"], tot["unmatched"], m.waiting) == (0, 0, 0)
    checked["joined"] += tot["joined"]


def test_a_locally_shuffled_segmented_stream_equals_the_ordered_one():
    """The property over 150 streams; then that they joined early labels and shuffled
    past the reference's freeze often enough to mean something."""
    checked = Counter()
    _shuffled_stream_equals_the_ordered_one(checked)
    assert checked["joined"] > 100 and checked["shuffled"] > 100, checked


def test_a_period_window_with_a_time_wait_loses_nothing():
    checked = Counter()
    _period_window_with_a_time_wait_loses_nothing(checked)
    assert checked["joined"] > 20, checked      # (measured 48)


def test_waits_by_hand_events_and_time():
    m = SegmentedMonitor(window=3, min_window=2, label_wait=2)
    m.observe("x", label=1)                     # event 1: waits during events 2, 3
    assert (m.waiting, m.stats["dropped"], m.stats["unmatched"]) == (1, 0, 0)
    m.observe("a", segment="fr", score=0.2, label=0)
    m.observe("x", segment="fr", score=0.9)     # event 3: joins in "fr"
    assert (m.waiting, m.stats["joined"], m.unit("fr").n) == (0, 1, 2)
    assert m.unit("fr").stats["late"] == 0 and m.report()["fr"].auc == 1.0
    m.observe("y", weight=2)                    # event 4: waits during 5, 6
    m.observe("b", segment="de", score=0.1)
    m.observe("c", segment="de", score=0.2)
    m.observe("y", segment="de", score=0.3)     # event 7: too late, a new prediction
    assert (m.stats["unmatched"], m.waiting) == (1, 0)
    assert ("y", None, 0.3, 1, None) in list(m.unit("de").items())
    for k in "defg":                            # "x" and "a" leave "fr"'s window
        m.observe(k, segment="fr", score=0.5)
    m.observe("x", label=0)                     # evicted lately: a late drop, no wait
    assert (m.stats["dropped"], m.waiting, m.totals()["dropped"]) == (1, 0, 1)
    m._check()
    t = SegmentedMonitor(window=10, min_window=2, label_wait_period=5)
    t.observe("x", label=1, time=10.0)
    t.observe("x", segment="fr", score=0.8, time=14.5)
    t.observe("y", label=0, time=3.0)           # an old time: starts at the clock 14.5
    t.observe("z", segment="fr", score=0.4, time=19.5)   # 19.5 - 5 >= 14.5: runs out
    assert (t.stats["joined"], t.stats["unmatched"], t.waiting) == (1, 1, 0)
    with pytest.raises(ValueError, match="'time' parameter of SegmentedMonitor.observe "
                                         "must be a finite number \\(the monitor has a "
                                         "period label wait\\)"):
        t.observe("w", label=1)
    t._check()


def test_the_wait_is_in_the_snapshot_and_metrics_and_old_snapshots_are_refused():
    m = SegmentedMonitor(window=4, min_window=2, label_wait=10)
    m.observe("a", segment="fr", score=0.3, label=0)
    m.observe("q", label=1)
    m.observe("r", weight=3)
    for k in "bcde":                            # "a" leaves "fr"'s window
        m.observe(k, segment="fr", score=0.5)
    back = SegmentedMonitor.from_bytes(m.to_bytes())
    back._check()
    assert back._join.rows()[0] == m._join.rows()[0] == [("q", 1, None, 2), ("r", None, 3, 3)]
    assert back.stats == m.stats and back.waiting == 2
    for mon in (m, back):
        mon.observe("a", label=1)               # lately evicted, also after the restore
        assert (mon.stats["dropped"], mon.stats["unmatched"]) == (1, 0)
        mon.observe("q", segment="de", score=0.9)
        assert mon.stats["joined"] == 1 and mon.unit("de").n == 1
    d = back.metrics()
    assert (d["joined_labels"], d["unmatched_labels"], d["waiting_labels"]) == (1, 0, 1)
    assert back.totals()["waiting"] == 1
    # the layouts before (versions 1 to 7: development formats) are refused
    raw = dict(np.load(io.BytesIO(SegmentedMonitor(window=4).to_bytes())))
    for version in (1, 2, 3, 4, 5, 6, 7, 9):
        raw["version"] = np.array(version)
        buf = io.BytesIO()
        np.savez(buf, **raw)
        with pytest.raises(SnapshotError, match=f"snapshot version {version} not "
                           r"supported \(this streamrank reads version 8\)"):
            SegmentedMonitor.from_bytes(buf.getvalue())


def test_monitor_advance_remembers_what_it_evicts():
    """`Monitor.advance` (the wrapper's shared clock) marks the ids it evicts with its
    time, as an event would: a late label for one is a late drop, not a wait."""
    from streamrank.monitor import Monitor

    m = Monitor(period=4.0, min_window=2, label_wait_period=1.0)
    m.observe("a", score=0.5, time=0.0)
    m.advance(5.0)                              # "a" leaves at time 5
    m._check()
    m.observe("a", label=1, time=5.5)
    assert (m.stats["dropped"], m.waiting) == (1, 0)
    m._check()
