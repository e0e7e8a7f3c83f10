"""The AUC interval read from the running state (`PairCounter.auc_ci`, the windows'
`auc_ci`, the River metrics' ``get_ci``, the monitor's reports) against
`streamrank.roc_auc_ci` of the items held, after every change.

Heavy ties (scores from a few values) and small integer weights (0 included): the
placement moments go through every tie and weight case, and the interval must be the
batch one to 1e-12 in every field.
"""

from __future__ import annotations

import math
import pickle
import warnings

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

import streamrank as sr
from streamrank import PairCounter, SlidingPairCounter, TimeSlidingPairCounter
from streamrank.exceptions import UndefinedMetricWarning
from streamrank.intervals import AUCInterval
from streamrank.metrics import ROCAUC, RollingROCAUC
from streamrank.monitor import Monitor

METHODS = ("delong", "hanley-mcneil")
LEVELS = (0.95, 0.8)
SCORES = st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0])
WEIGHTS = st.sampled_from([1, 1, 1, 2, 3, 0])
WINDOW = 7


def batch_ci(rows, level, method):
    """`streamrank.roc_auc_ci` of ``(label, score, weight)`` rows (nan when a class has
    no weight), its warning silenced."""
    if not rows:
        return AUCInterval(math.nan, math.nan, math.nan, math.nan, method, level)
    y, s, w = zip(*rows)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return sr.roc_auc_ci(list(y), list(s), sample_weight=list(w), level=level,
                             method=method)


def assert_same(got, want):
    assert isinstance(got, AUCInterval)
    assert (got.method, got.level) == (want.method, want.level)
    for f in ("auc", "low", "high", "se"):
        a, b = getattr(got, f), getattr(want, f)
        assert (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-12, (f, got, want)


def held_ci(obj, level, method):
    """``obj.auc_ci`` with the one-class warning silenced (checked separately)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return obj.auc_ci(level, method)


# --------------------------------------------------------------------------- machines
class CounterMachine(RuleBasedStateMachine):
    """A `PairCounter` and a `SlidingPairCounter` (and the River metrics beside them)
    under inserts, removals, updates and pushes, read after every step."""

    def __init__(self):
        super().__init__()
        self.pc = PairCounter()
        self.items = {}
        self.next_key = 0
        self.win = SlidingPairCounter(WINDOW)
        self.rolling = RollingROCAUC(WINDOW, pos_val=1)
        self.metric = ROCAUC(pos_val=1)
        self.events = []            # every push, oldest first
        self.seen = []              # every metric update still held (reverts drop one)

    @rule(y=st.integers(0, 1), s=SCORES, w=WEIGHTS)
    def insert(self, y, s, w):
        key = self.next_key
        self.next_key += 1
        self.pc.insert(key, y, s, w)
        self.items[key] = (y, s, w)

    @rule(data=st.data())
    def remove(self, data):
        if self.items:
            key = data.draw(st.sampled_from(sorted(self.items)))
            self.pc.remove(key)
            del self.items[key]

    @rule(data=st.data(), s=SCORES, w=WEIGHTS)
    def update(self, data, s, w):
        if self.items:
            key = data.draw(st.sampled_from(sorted(self.items)))
            y = 1 - self.items[key][0] if data.draw(st.booleans()) else self.items[key][0]
            self.pc.update(key, score=s, label=y, weight=w)
            self.items[key] = (y, s, w)

    @rule(y=st.integers(0, 1), s=SCORES, w=WEIGHTS)
    def push(self, y, s, w):
        self.win.push(y, s, w)
        self.rolling.update(y, s, w)
        self.metric.update(y, s, w)
        self.events.append((y, s, w))
        self.seen.append((y, s, w))

    @rule(data=st.data())
    def revert(self, data):
        if self.seen:
            i = data.draw(st.integers(0, len(self.seen) - 1))
            y, s, w = self.seen.pop(i)
            self.metric.revert(y, s, w)

    @invariant()
    def intervals_are_the_batch_ones(self):
        held = list(self.items.values())
        window = self.events[-WINDOW:]
        for method in METHODS:
            for level in LEVELS:
                assert_same(held_ci(self.pc, level, method), batch_ci(held, level, method))
                assert_same(held_ci(self.win, level, method),
                            batch_ci(window, level, method))
                assert_same(self.rolling.get_ci(level, method),
                            batch_ci(window, level, method))
                assert_same(self.metric.get_ci(level, method),
                            batch_ci(self.seen, level, method))


TestCounterMachine = CounterMachine.TestCase
TestCounterMachine.settings = settings(max_examples=40, stateful_step_count=30,
                                       derandomize=True, deadline=None)


class MonitorMachine(RuleBasedStateMachine):
    """A count-window `Monitor` under predictions, late labels and re-scores: each
    report's ``low`` and ``high`` are those of `roc_auc_ci` of the window's labeled
    predictions, by the monitor's test method and level."""

    def __init__(self):
        super().__init__()
        self.monitors = {(t, lv): Monitor(window=WINDOW, test=t, level=lv, min_window=2)
                         for t in METHODS for lv in LEVELS}
        self.rows = {}              # key -> [label or None, score, weight], in order
        self.next_key = 0

    def _observe(self, key, **kw):
        for m in self.monitors.values():
            m.observe(key, **kw)

    @rule(s=SCORES, w=WEIGHTS, labeled=st.booleans(), y=st.integers(0, 1))
    def predict(self, s, w, labeled, y):
        key = self.next_key
        self.next_key += 1
        if labeled:
            self._observe(key, score=s, label=y, weight=w)
        else:
            self._observe(key, score=s, weight=w)
        self.rows[key] = [y if labeled else None, s, w]
        while len(self.rows) > WINDOW:
            del self.rows[next(iter(self.rows))]

    @rule(data=st.data(), y=st.integers(0, 1))
    def late_label(self, data, y):
        pending = [k for k, r in self.rows.items() if r[0] is None]
        if pending:
            key = data.draw(st.sampled_from(pending))
            self._observe(key, label=y)
            self.rows[key][0] = y

    @rule(data=st.data(), s=SCORES)
    def rescore(self, data, s):
        if self.rows:
            key = data.draw(st.sampled_from(sorted(self.rows)))
            self._observe(key, score=s)
            self.rows[key][1] = s

    @invariant()
    def reports_carry_the_batch_interval(self):
        held = [tuple(r) for r in self.rows.values() if r[0] is not None]
        for (test, level), m in self.monitors.items():
            r = m.report()
            want = batch_ci(held, level, test)
            got = AUCInterval(r.auc if want.auc == want.auc else math.nan, r.low, r.high,
                              want.se, test, level)
            assert_same(got, want)
            d = r.as_dict()
            assert (d["auc_low"], d["auc_high"]) == (r.low, r.high) or r.low != r.low


TestMonitorMachine = MonitorMachine.TestCase
TestMonitorMachine.settings = settings(max_examples=25, stateful_step_count=25,
                                       derandomize=True, deadline=None)


# --------------------------------------------------------------------------- examples
ROWS = [(0, 0.1, 1), (0, 0.4, 2), (1, 0.35, 1), (1, 0.8, 3), (0, 0.2, 1), (1, 0.4, 1),
        (0, 0.4, 1)]


@pytest.mark.parametrize("method", METHODS)
def test_time_window_interval_is_the_batch_one(method):
    win = TimeSlidingPairCounter(period=3.0)
    for t, (y, s, w) in enumerate(ROWS):
        win.push(y, s, w, t=float(t))
        held = [(y, s, w) for _, y, s, w in win]
        assert_same(held_ci(win, 0.9, method), batch_ci(held, 0.9, method))


def test_interval_reads_o1_after_the_first_and_survive_pickles():
    pc = PairCounter()
    pc.insert_many(range(len(ROWS)), *zip(*ROWS))
    first = pc.auc_ci()
    assert pc.placement_moments() is not None        # the moments are on
    assert_same(pickle.loads(pickle.dumps(pc)).auc_ci(), first)
    assert_same(PairCounter.from_bytes(pc.to_bytes()).auc_ci(), first)
    assert_same(first, batch_ci(ROWS, 0.95, "delong"))


def test_one_class_is_nan_with_the_batch_warning():
    pc = PairCounter()
    pc.insert("a", 1, 0.5)
    pc.insert("b", 0, 0.2, 0)           # weight 0: absent, as in roc_auc_ci
    with pytest.warns(UndefinedMetricWarning, match="PairCounter.auc_ci"):
        ci = pc.auc_ci(method="hanley-mcneil")
    assert_same(ci, batch_ci([(1, 0.5, 1), (0, 0.2, 0)], 0.95, "hanley-mcneil"))
    assert math.isnan(ci.low) and ci.method == "hanley-mcneil"
    win = SlidingPairCounter(3)
    with pytest.warns(UndefinedMetricWarning):
        assert math.isnan(win.auc_ci().auc)             # empty
    # a class of a single sample: the AUC is defined, DeLong's variance is not
    win.push(1, 0.9)
    win.push(0, 0.1)
    ci = win.auc_ci()
    assert ci.auc == 1.0 and math.isnan(ci.se) and math.isnan(ci.low)
    assert_same(ci, batch_ci([(1, 0.9, 1), (0, 0.1, 1)], 0.95, "delong"))


@pytest.mark.parametrize("obj, name", [(PairCounter(), "PairCounter.auc_ci"),
                                       (SlidingPairCounter(5), "SlidingPairCounter.auc_ci"),
                                       (TimeSlidingPairCounter(5.0),
                                        "TimeSlidingPairCounter.auc_ci")])
def test_bad_level_and_method_are_named(obj, name):
    for level in (0, 1, 1.5, -0.1, True, "0.95", math.nan):
        with pytest.raises((ValueError, TypeError), match=f"'level' parameter of {name}"):
            obj.auc_ci(level)
    with pytest.raises(ValueError, match=f"'method' parameter of {name} must be one of "
                       r"\('delong', 'hanley-mcneil'\) \(the bootstrap"):
        obj.auc_ci(method="bootstrap")
    with pytest.raises(ValueError, match=f"'method' parameter of {name}"):
        obj.auc_ci(method="wald")


def test_fractional_weights_and_three_labels_raise_naming_the_method():
    pc = PairCounter()
    pc.insert_many([1, 2, 3, 4], [0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4], [1, 0.5, 1, 1])
    with pytest.raises(ValueError, match=r"PairCounter.auc_ci: no method='delong' "
                       r"interval .*fractional weight"):
        pc.auc_ci()
    with pytest.raises(ValueError, match="roc_auc_ci"):     # so does the batch function
        sr.roc_auc_ci([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4], sample_weight=[1, 0.5, 1, 1])
    pc = PairCounter()
    pc.insert_many([1, 2, 3], [0, 1, 2], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match=r"method='hanley-mcneil' .*3 label levels"):
        pc.auc_ci(method="hanley-mcneil")
    pc.remove(3)                                            # two labels again
    assert_same(pc.auc_ci(), batch_ci([(0, 0.1, 1), (1, 0.2, 1)], 0.95, "delong"))
    cont = PairCounter(labels="continuous")
    cont.insert_many([1, 2, 3, 4], [0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4])
    with pytest.raises(ValueError, match="labels='continuous'"):
        cont.auc_ci()
    # the River metrics never raise on the data: nan
    metric = RollingROCAUC(4)
    for y, s, w in [(0, 0.1, 1), (1, 0.2, 0.5), (0, 0.3, 1), (1, 0.4, 1)]:
        metric.update(y, s, w)
    ci = metric.get_ci(0.9, "hanley-mcneil")
    assert math.isnan(ci.auc) and math.isnan(ci.low) and ci.level == 0.9
    assert metric.get() == pytest.approx(2.5 / 3)            # the AUC itself is kept
    assert math.isnan(ROCAUC().get_ci().low)
    with pytest.raises(ValueError, match="'level' parameter of ROCAUC.get_ci"):
        ROCAUC().get_ci(2)
    with pytest.raises(ValueError, match="'method' parameter of RollingROCAUC.get_ci"):
        metric.get_ci(method="bootstrap")


def test_monitor_level_is_validated_and_snapshotted():
    with pytest.raises(ValueError, match="'level' parameter of Monitor"):
        Monitor(window=10, level=1.0)
    m = Monitor(window=10, level=0.8, test="delong", min_window=2)
    for i, (y, s, w) in enumerate(ROWS):
        m.observe(i, score=s, label=y, weight=w)
    r = m.report()
    want = batch_ci(ROWS, 0.8, "delong")
    assert_same(AUCInterval(r.auc, r.low, r.high, want.se, "delong", 0.8), want)
    again = Monitor.from_bytes(m.to_bytes())
    assert again.level == 0.8 and repr(again.history[-1]) == repr(r)   # (nan fields)
    assert again.report().low == r.low


def test_monitor_fractional_weights_read_the_window_placements():
    """Fractional weights: no frequency-weight interval for roc_auc_ci, but the
    monitor's test has its variance (from the window's placements); the interval is
    that variance's."""
    rows = [(0, 0.1, 0.5), (1, 0.4, 1.5), (0, 0.3, 1.0), (1, 0.2, 2.0), (1, 0.9, 1.0),
            (0, 0.6, 0.25)]
    m = Monitor(window=10, test="delong", min_window=2)
    for i, (y, s, w) in enumerate(rows):
        m.observe(i, score=s, label=y, weight=w)
    r = m.report()
    y, s, w = (np.array(c) for c in zip(*rows))
    _, var = sr.monitor.drift.delong_variance(y, s, sample_weight=w)
    low, high = sr.intervals.logit_interval(r.auc, math.sqrt(var), 0.95)
    assert (r.low, r.high) == pytest.approx((low, high), abs=1e-12)
    assert r.low < r.auc < r.high
