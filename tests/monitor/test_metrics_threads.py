"""`Monitor.metrics` (and `PairedMonitor`'s, `SegmentedMonitor`'s) read from another
thread while one thread feeds the monitor: what README's "Thread safety" promises.

* Without a lock: the reads never raise and change nothing, and every counter only
  grows from one read to the next (a read may straddle the event in progress).
* With one lock around every `observe` / `report` and every `metrics` (as ``streamrank
  monitor --metrics-port`` holds it, `streamrank.cli._monitor_metrics.locked`): every
  read equals the monitor's numbers after some whole number of calls, those of a serial
  replay of the same stream.

The threads switch every microsecond (the ``eager_switching`` fixture) so that a read
lands inside events as often as it can. The streams are seeded.
"""

from __future__ import annotations

import json
import random
import threading

import pytest

from streamrank.cli._monitor_metrics import locked
from streamrank.monitor import Monitor, PairedMonitor, SegmentedMonitor

pytestmark = pytest.mark.filterwarnings(
    "ignore::streamrank.exceptions.UndefinedMetricWarning")

COUNTERS = ("events", "predictions", "labels", "rescored", "late_dropped", "alerts",
            "joined_labels", "unmatched_labels", "detections")


def stream(n=3000, seed=0, paired=False, segmented=False):
    """``(method, kwargs)`` calls: new predictions (some labeled), late labels, labels
    for ids long gone or never seen, re-scores, and a report every 20 calls."""
    rng = random.Random(seed)
    calls, pending, nxt = [], [], 0
    for i in range(n):
        kind = rng.random()
        if kind < 0.5 or not pending:
            kw = dict(score=rng.randrange(10) / 10)
            if paired:
                kw["challenger"] = rng.randrange(10) / 10
            if segmented:
                kw["segment"] = rng.choice("ab")
            if rng.random() < 0.3:
                kw["label"] = float(rng.random() < 0.4)
            else:
                pending.append(nxt)
            calls.append(("observe", nxt, kw))
            nxt += 1
        elif kind < 0.75:
            calls.append(("observe", pending.pop(rng.randrange(len(pending))),
                          dict(label=float(rng.random() < 0.4))))
        elif kind < 0.87:
            calls.append(("observe", -1 - i, dict(label=1.0)))    # never predicted
        else:
            calls.append(("observe", pending[-1], dict(score=rng.randrange(10) / 10)))
        if i % 20 == 19:
            calls.append(("report", None, None))
    return calls


def feed(mon, calls, wrap=lambda fn: fn):
    observe, report = wrap(mon.observe), wrap(mon.report)
    for method, key, kw in calls:
        if method == "observe":
            observe(key, **kw)
        else:
            report()


def flat(d, prefix=""):
    """A metrics dict as flat ``{key: value}`` (segments nested), nan as a string."""
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(flat(v, f"{prefix}{k}/"))
        else:
            out[prefix + k] = "nan" if v != v else v
    return out


def counters(d):
    return {k: v for k, v in flat(d).items() if k.rsplit("/", 1)[-1].removeprefix(
        "challenger_") in COUNTERS + ("paired_alerts", "unrouted", "pooled_events",
                                      "pooled_predictions")}


MONITORS = {
    "count window": lambda: Monitor(window=40, min_window=5),
    "label wait": lambda: Monitor(window=40, min_window=5, label_wait=3,
                                  detector="adwin"),
    "paired": lambda: PairedMonitor(window=40, min_window=5),
    "segmented": lambda: SegmentedMonitor(window=30, min_window=5, label_wait=2),
}
KINDS = {"count window": {}, "label wait": {}, "paired": {"paired": True},
         "segmented": {"segmented": True}}


def _read_while_feeding(mon, calls, read, wrap=lambda fn: fn, pace=40):
    """Feed ``mon`` in this thread while another thread calls ``read`` until the feed
    ends; the reads, and any exception the reader met.

    After every ``pace`` calls the feeder waits (up to 10 s) for the reader to finish one
    more read, so that reads land all along the feed however the threads are scheduled
    (on a loaded machine the reader could otherwise starve and read only a few times)."""
    reads, errors, done, one_more = [], [], threading.Event(), threading.Event()

    def reader():
        try:
            while not done.is_set():
                reads.append(read())
                one_more.set()
        except BaseException as exc:     # reported below, in the test's thread
            errors.append(exc)
            one_more.set()

    t = threading.Thread(target=reader)
    t.start()
    try:
        for start in range(0, len(calls), pace):
            one_more.clear()
            feed(mon, calls[start:start + pace], wrap)
            one_more.wait(10.0)
    finally:
        done.set()
        t.join()
    return reads, errors


@pytest.mark.parametrize("name", MONITORS)
def test_unlocked_reads_never_raise_and_counters_only_grow(name, eager_switching):
    calls = stream(**KINDS[name])
    mon = MONITORS[name]()
    reads, errors = _read_while_feeding(mon, calls, mon.metrics)
    assert not errors, errors
    assert len(reads) > 50, len(reads)      # the reader ran during the feed
    final = counters(mon.metrics())
    serial = MONITORS[name]()
    feed(serial, calls)
    assert flat(mon.metrics()) == flat(serial.metrics())   # the reads changed nothing
    previous = {}
    for d in reads:
        for k, v in counters(d).items():
            assert previous.get(k, 0) <= v <= final[k], (k, previous.get(k), v)
            previous[k] = v


def _states(name, calls):
    """The metrics of a serial replay after every call, as comparable strings."""
    mon = MONITORS[name]()
    out = {json.dumps(flat(mon.metrics()), sort_keys=True)}
    observe, report = mon.observe, mon.report
    for method, key, kw in calls:
        observe(key, **kw) if method == "observe" else report()
        out.add(json.dumps(flat(mon.metrics()), sort_keys=True))
    return out


@pytest.mark.parametrize("name", MONITORS)
def test_locked_reads_are_states_between_two_calls(name, eager_switching):
    calls = stream(seed=1, **KINDS[name])
    states = _states(name, calls)
    mon, lock = MONITORS[name](), threading.Lock()
    reads, errors = _read_while_feeding(mon, calls, locked(lock, mon.metrics),
                                        lambda fn: locked(lock, fn))
    assert not errors, errors
    assert len(reads) > 50, len(reads)
    events = -1
    for d in reads:
        assert json.dumps(flat(d), sort_keys=True) in states, flat(d)
        assert d["events"] >= events
        events = d["events"]
    assert len({d["events"] for d in reads}) > 3     # reads of several moments
