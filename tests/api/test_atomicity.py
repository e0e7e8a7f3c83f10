"""Every public mutating call refuses bad input before it changes anything.

For each call of `PairCounter`, `SlidingPairCounter`, `TimeSlidingPairCounter`,
`PairEngine`, `EpochTracker`, `Monitor` and `RankingState` (the River metrics:
`test_atomicity_river`), a bad input -- NaN or infinity, an unknown or duplicate key, a
negative weight or one outside ``{0} U [2**-400, 2**400]``, a label of the wrong kind or a third
label with ``labels="binary"``, mismatched lengths, an int that float64 cannot hold
exactly (``2**53 + 1``) -- raises `ValueError` or `TypeError` (`KeyError` for a key, as
documented) whose message names the parameter, and the object's whole state is the same
afterwards: its pickle bytes (``to_bytes`` for `Monitor`), read after its counts, and its
counts and length. The object then still takes a good change (its ``_check()`` passes).

Each object starts in a state where the bad call has something to break: windows are full
(a push would evict), ``labels="binary"`` objects hold two labels (one of them with a
zero weight somewhere), trackers and monitors have seen several epochs or reports.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from _atomic import INEXACT, INF, NAN, OUT_HI, OUT_LO, P, assert_refused, cases
from _exact_checks import assert_counts
from streamrank import EpochTracker, PairCounter, SlidingPairCounter, TimeSlidingPairCounter
from streamrank.engine import PairEngine
from streamrank.monitor import Monitor
from streamrank.ranking import RankingState


# ---------------------------------------------------------------------- objects
def counter():
    pc = PairCounter(labels="binary")
    pc.insert_many(["a", "b", "c"], [0, 1, 1], [0.2, 0.5, 0.9], [1, 2, 0])
    pc.update("a", score=0.3)
    return pc


def counter_float():
    pc = PairCounter()
    pc.insert_many([1, 2, 3, 4], [0.0, 1.0, 2.0, 1.0], [0.5, 0.5, 0.1, 0.7],
                   [0.25, 1.5, 2.0, 1.0])
    return pc


def window():
    win = SlidingPairCounter(3, labels="binary")
    for y, s, w in [(0, 0.1, 1), (1, 0.4, 2), (0, 0.8, 0.5)]:   # full: a push evicts
        win.push(y, s, w)
    return win


def time_window():
    win = TimeSlidingPairCounter(2.0, labels="binary")
    for t, y, s in [(0.0, 0, 0.1), (1.0, 1, 0.4), (1.5, 0, 0.8)]:
        win.push(y, s, t=t)
    return win


def engine(labels="binary"):
    e = PairEngine(labels)
    for y, s, w in [(0, 0.1, 1), (1, 0.4, 2), (1, 0.4, 1), (0, 0.9, 3)]:
        e.add(y, s, w)
    return e


def engine_float():
    e = engine("auto")
    e.add(2, 0.5, 0.75)
    return e


def tracker():
    t = EpochTracker([0, 1, 1, 0, 2], sample_weight=[1, 2, 1, 1, 0.5])
    t.step([0.1, 0.4, 0.4, 0.8, 0.2])
    return t


def tracker_huge():
    t = EpochTracker([0, 1, 1, 0, 2])
    t.step([1e308, 0.4, 0.4, 0.8, 0.2])
    return t


def tracker_int():
    t = EpochTracker([0, 1, 1, 0])
    t.step([2**62, -(2**62), 3, 2**53 + 1])
    return t


def monitor():
    m = Monitor(window=4, labels="binary", min_window=2, detector="adwin")
    for i, (y, s) in enumerate([(0, 0.1), (1, 0.7), (0, 0.4), (1, 0.9)]):  # full
        m.observe(f"k{i}", score=s, label=y, weight=1 + i % 2)
        m.report()
    m.observe("k3", score=0.95)                   # a re-score
    return m


def monitor_pending():
    m = Monitor(window=3, min_window=2)
    m.observe("p0", score=0.3)
    m.observe("p1", score=0.6, label=1)
    m.observe("p2", score=0.1, label=0)
    return m


def monitor_period():
    m = Monitor(period=10.0, min_window=2)
    for i in range(4):
        m.observe(i, score=i / 4, label=i % 2, time=float(i))
    return m


def ranking():
    st = RankingState(k=3)
    st.set("q1", "a", 1, 0.2)
    st.set("q1", "b", 0, 0.9)
    st.set("q2", "c", 2, 0.5)
    return st


# ---------------------------------------------------------------------- counters
COUNTER_CALLS = [
    ("insert-dup-key", counter, lambda c: c.insert("a", 0, 0.5), KeyError, "'a' is held"),
    ("insert-nan-y", counter, lambda c: c.insert("z", NAN, 0.5), ValueError, P("y")),
    ("insert-inf-s", counter, lambda c: c.insert("z", 0, INF), ValueError, P("s")),
    ("insert-str-y", counter, lambda c: c.insert("z", "pos", 0.5), TypeError, P("y")),
    ("insert-none-s", counter, lambda c: c.insert("z", 0, None), TypeError, P("s")),
    ("insert-inexact-y", counter, lambda c: c.insert("z", INEXACT, 0.5), ValueError, P("y")),
    ("insert-inexact-s", counter, lambda c: c.insert("z", 0, -INEXACT), ValueError, P("s")),
    ("insert-neg-w", counter, lambda c: c.insert("z", 0, 0.5, -1), ValueError, P("w")),
    ("insert-nan-w", counter, lambda c: c.insert("z", 0, 0.5, NAN), ValueError, P("w")),
    ("insert-high-w", counter, lambda c: c.insert("z", 0, 0.5, OUT_HI), ValueError, P("w")),
    ("insert-low-w", counter, lambda c: c.insert("z", 0, 0.5, OUT_LO), ValueError, P("w")),
    ("insert-inexact-w", counter, lambda c: c.insert("z", 0, 0.5, INEXACT), ValueError,
     P("w")),
    ("insert-str-w", counter, lambda c: c.insert("z", 0, 0.5, "1"), TypeError, P("w")),
    ("insert-bool-w", counter, lambda c: c.insert("z", 0, 0.5, True), TypeError, P("w")),
    ("insert-third-label", counter, lambda c: c.insert("z", 2, 0.5), ValueError,
     P("y") + ".*at most two labels"),
    ("remove-unknown", counter, lambda c: c.remove("zz"), KeyError, "'zz' is not held"),
    ("update-unknown", counter, lambda c: c.update("zz", score=0.1), KeyError, "'zz'"),
    ("update-nan-score", counter, lambda c: c.update("a", score=NAN), ValueError,
     P("score")),
    ("update-inexact-label", counter, lambda c: c.update("a", label=INEXACT), ValueError,
     P("label")),
    ("update-str-label", counter, lambda c: c.update("a", label="x"), TypeError,
     P("label")),
    ("update-third-label", counter, lambda c: c.update("b", label=2), ValueError,
     P("label") + ".*at most two labels"),
    ("update-neg-weight", counter, lambda c: c.update("a", weight=-0.5), ValueError,
     P("weight")),
    ("update-high-weight", counter, lambda c: c.update("a", weight=OUT_HI), ValueError,
     P("weight")),
    ("update-inexact-weight", counter, lambda c: c.update("a", weight=INEXACT), ValueError,
     P("weight")),
    ("insert_many-lengths", counter, lambda c: c.insert_many(["x", "y"], [0, 1], [0.1]),
     ValueError, P("s") + ".*same length"),
    ("insert_many-w-length", counter,
     lambda c: c.insert_many(["x", "y"], [0, 1], [0.1, 0.2], [1.0]), ValueError, P("w")),
    ("insert_many-dup-keys", counter,
     lambda c: c.insert_many(["x", "x"], [0, 1], [0.1, 0.2]), ValueError, P("keys")),
    ("insert_many-held-key", counter,
     lambda c: c.insert_many(["x", "b"], [0, 1], [0.1, 0.2]), KeyError, "'b' is held"),
    ("insert_many-nan-s", counter,
     lambda c: c.insert_many(["x", "y"], [0, 1], [0.1, NAN]), ValueError, P("s")),
    ("insert_many-inf-y", counter,
     lambda c: c.insert_many(["x", "y"], [0, -INF], [0.1, 0.2]), ValueError, P("y")),
    ("insert_many-str-y", counter,
     lambda c: c.insert_many(["x", "y"], ["a", "b"], [0.1, 0.2]), TypeError, P("y")),
    ("insert_many-inexact-y", counter,
     lambda c: c.insert_many(["x", "y"], [0, INEXACT], [0.1, 0.2]), ValueError, P("y")),
    ("insert_many-inexact-s-mixed", counter,
     lambda c: c.insert_many(["x", "y"], [0, 1], [0.5, INEXACT]), ValueError, P("s")),
    ("insert_many-neg-w", counter,
     lambda c: c.insert_many(["x", "y"], [0, 1], [0.1, 0.2], [1, -1]), ValueError, P("w")),
    ("insert_many-high-w", counter,
     lambda c: c.insert_many(["x", "y"], [0, 1], [0.1, 0.2], [1, OUT_HI]), ValueError,
     P("w")),
    ("insert_many-inexact-w", counter,
     lambda c: c.insert_many(["x", "y"], [0, 1], [0.1, 0.2], [1, INEXACT]), ValueError,
     P("w")),
    ("insert_many-third-label", counter,
     lambda c: c.insert_many(["x", "y"], [0, 2], [0.1, 0.2]), ValueError,
     "at most two labels"),
    ("insert_many-2d", counter,
     lambda c: c.insert_many(["x", "y"], [[0, 1]], [0.1, 0.2]), ValueError, P("y")),
    ("remove_many-unknown", counter, lambda c: c.remove_many(["a", "zz"]), KeyError, "'zz'"),
    ("remove_many-dup", counter, lambda c: c.remove_many(["a", "a"]), ValueError, P("keys")),
    ("update_many-unknown", counter,
     lambda c: c.update_many(["a", "zz"], scores=[0.1, 0.2]), KeyError, "'zz'"),
    ("update_many-dup", counter,
     lambda c: c.update_many(["a", "a"], scores=[0.1, 0.2]), ValueError, P("keys")),
    ("update_many-lengths", counter, lambda c: c.update_many(["a", "b"], scores=[0.1]),
     ValueError, P("scores")),
    ("update_many-nan-scores", counter,
     lambda c: c.update_many(["a", "b"], scores=[0.1, NAN]), ValueError, P("scores")),
    ("update_many-third-label", counter,
     lambda c: c.update_many(["a", "b"], labels=[0, 2]), ValueError,
     P("labels") + ".*at most two labels"),
    ("update_many-inexact-labels", counter,
     lambda c: c.update_many(["a"], labels=[INEXACT]), ValueError, P("labels")),
    ("update_many-neg-weights", counter,
     lambda c: c.update_many(["a", "b"], weights=[1, -2]), ValueError, P("weights")),
    ("update_many-low-weights", counter,
     lambda c: c.update_many(["a", "b"], weights=[1, OUT_LO]), ValueError, P("weights")),
    ("update_many-weights-length", counter,
     lambda c: c.update_many(["a", "b"], weights=[1]), ValueError, P("weights")),
    # a counter with float counts and four label levels
    ("float-insert-nan-w", counter_float, lambda c: c.insert(9, 0, 0.5, NAN), ValueError,
     P("w")),
    ("float-update-inf-score", counter_float, lambda c: c.update(1, score=INF), ValueError,
     P("score")),
    ("float-update_many-nan-labels", counter_float,
     lambda c: c.update_many([1, 2], labels=[NAN, 0]), ValueError, P("labels")),
    ("float-insert_many-high-w", counter_float,
     lambda c: c.insert_many([8, 9], [0, 5], [0.1, 0.2], [0.5, OUT_HI]), ValueError, P("w")),
]

WINDOW_CALLS = [
    ("push-nan-y", window, lambda w: w.push(NAN, 0.5), ValueError, P("y")),
    ("push-inf-s", window, lambda w: w.push(0, INF), ValueError, P("s")),
    ("push-str-y", window, lambda w: w.push("a", 0.5), TypeError, P("y")),
    ("push-inexact-s", window, lambda w: w.push(0, INEXACT), ValueError, P("s")),
    ("push-neg-w", window, lambda w: w.push(0, 0.5, -1.0), ValueError, P("w")),
    ("push-high-w", window, lambda w: w.push(0, 0.5, OUT_HI), ValueError, P("w")),
    ("push-inexact-w", window, lambda w: w.push(0, 0.5, INEXACT), ValueError, P("w")),
    # the oldest (label 0) would leave, but 0 is still held by the third event
    ("push-third-label", window, lambda w: w.push(7, 0.5), ValueError, "at most two labels"),
    ("timed-push-older-t", time_window, lambda w: w.push(0, 0.5, t=1.0), ValueError, P("t")),
    ("timed-push-nan-t", time_window, lambda w: w.push(0, 0.5, t=NAN), ValueError, P("t")),
    ("timed-push-str-t", time_window, lambda w: w.push(0, 0.5, t="3"), TypeError, P("t")),
    ("timed-push-nan-s", time_window, lambda w: w.push(0, NAN, t=9.0), ValueError, P("s")),
    ("timed-push-low-w", time_window, lambda w: w.push(0, 0.5, OUT_LO, t=9.0), ValueError,
     P("w")),
    # t=2.5 evicts the event at t=0 (label 0); the one at t=1.5 still holds label 0
    ("timed-push-third-label", time_window, lambda w: w.push(5, 0.5, t=2.5), ValueError,
     "at most two labels"),
]

ENGINE_CALLS = [
    ("add-nan-y", engine, lambda e: e.add(NAN, 0.5), ValueError, P("y")),
    ("add-inf-s", engine, lambda e: e.add(0, -INF), ValueError, P("s")),
    ("add-str-s", engine, lambda e: e.add(0, "0.5"), TypeError, P("s")),
    ("add-inexact-y", engine, lambda e: e.add(INEXACT, 0.5), ValueError, P("y")),
    ("add-neg-w", engine, lambda e: e.add(0, 0.5, -2), ValueError, P("w")),
    ("add-high-w", engine, lambda e: e.add(0, 0.5, OUT_HI), ValueError, P("w")),
    ("add-low-w", engine, lambda e: e.add(0, 0.5, OUT_LO), ValueError, P("w")),
    ("add-inexact-w", engine, lambda e: e.add(0, 0.5, INEXACT), ValueError, P("w")),
    ("add-third-label", engine, lambda e: e.add(2, 0.5), ValueError, "at most two labels"),
    ("add_many-third-label", engine,
     lambda e: e.add_many(np.array([0.0, 2.0]), np.array([0.1, 0.2]), None), ValueError,
     "at most two labels"),
    ("remove-not-held", engine, lambda e: e.remove(1, 0.9), ValueError, "held"),
    ("remove-more-weight", engine, lambda e: e.remove(1, 0.4, 4), ValueError, "held"),
    ("remove-not-held-names-s", engine, lambda e: e.remove(1, 0.9), ValueError,
     P("s") + " of PairEngine.remove"),
    ("remove-nan-s", engine, lambda e: e.remove(1, NAN), ValueError, P("s")),
    ("remove-neg-w", engine, lambda e: e.remove(1, 0.4, -1), ValueError, P("w")),
    ("float-add-nan-w", engine_float, lambda e: e.add(0, 0.5, NAN), ValueError, P("w")),
    ("float-remove-not-held", engine_float, lambda e: e.remove(3, 0.5, 0.75), ValueError,
     "held"),
]


@pytest.mark.parametrize("make, call, exc, match",
                         cases(COUNTER_CALLS + WINDOW_CALLS + ENGINE_CALLS))
def test_counters_and_engine_refuse_bad_input_and_change_nothing(make, call, exc, match):
    obj = make()
    assert_refused(obj, call, exc, match)


def test_a_refused_change_leaves_the_object_working():
    """After each refusal, the same kind of change with good values counts once."""
    pc = counter()
    for _, make, call, _, _ in COUNTER_CALLS[:12]:
        with pytest.raises((ValueError, TypeError, KeyError)):
            call(pc)
    pc.insert("z", 0, 0.5, 3)
    assert_counts(pc.counts, [v for _, v in pc.items()], exact=True)
    win = window()
    for _, _, call, _, _ in WINDOW_CALLS[:8]:
        with pytest.raises((ValueError, TypeError)):
            call(win)
    win.push(1, 0.5, 2)
    assert_counts(win.counts, list(win), exact=False)
    assert len(win) == 3


# ---------------------------------------------------------------------- EpochTracker
TRACKER_CALLS = [
    ("step-nan", tracker, lambda t: t.step([0.1, NAN, 0.2, 0.3, 0.4]), ValueError,
     P("y_score")),
    ("step-length", tracker, lambda t: t.step([0.1, 0.2]), ValueError, P("y_score")),
    ("step-str", tracker, lambda t: t.step(["a"] * 5), TypeError, P("y_score")),
    ("step-2d", tracker, lambda t: t.step([[0.1] * 5]), ValueError, P("y_score")),
    ("additive-nan-delta", tracker, lambda t: t.step_additive([0.1, NAN], [0, 1, 0, 1, 0]),
     ValueError, P("delta")),
    ("additive-float-groups", tracker,
     lambda t: t.step_additive([0.1, 0.2], [0.0, 1.0, 0.0, 1.0, 0.0]), TypeError,
     P("groups")),
    ("additive-groups-length", tracker, lambda t: t.step_additive([0.1, 0.2], [0, 1]),
     ValueError, P("groups")),
    ("additive-groups-range", tracker,
     lambda t: t.step_additive([0.1, 0.2], [0, 1, 2, 0, 0]), ValueError, P("groups")),
    ("additive-negative-group", tracker,
     lambda t: t.step_additive([0.1, 0.2], [0, -1, 0, 0, 0]), ValueError, P("groups")),
    ("additive-overflow", tracker_huge, lambda t: t.step_additive([1e308, 0.0],
                                                                  [0, 1, 1, 1, 1]),
     ValueError, P("delta")),
    ("partial-range", tracker, lambda t: t.step_partial([5], [0.1]), ValueError,
     P("indices")),
    ("partial-negative", tracker, lambda t: t.step_partial([-1], [0.1]), ValueError,
     P("indices")),
    ("partial-dup", tracker, lambda t: t.step_partial([1, 1], [0.1, 0.2]), ValueError,
     P("indices")),
    ("partial-float-indices", tracker, lambda t: t.step_partial([1.0], [0.1]), TypeError,
     P("indices")),
    ("partial-lengths", tracker, lambda t: t.step_partial([1, 2], [0.1]), ValueError,
     P("new_scores")),
    ("partial-nan", tracker, lambda t: t.step_partial([1, 2], [0.1, NAN]), ValueError,
     P("new_scores")),
    ("int-partial-float-next-to-huge", tracker_int, lambda t: t.step_partial([2], [0.5]),
     ValueError, P("new_scores")),
    ("int-additive-overflow", tracker_int, lambda t: t.step_additive([2**62, 0],
                                                                     [0, 1, 1, 1]),
     ValueError, P("delta")),
    ("int-additive-float-next-to-huge", tracker_int,
     lambda t: t.step_additive([0.5, 0.0], [0, 1, 1, 1]), ValueError, P("delta")),
    ("additive-before-step", lambda: EpochTracker([0, 1]),
     lambda t: t.step_additive([0.1], [0, 0]), RuntimeError, "call step"),
    ("partial-before-step", lambda: EpochTracker([0, 1]),
     lambda t: t.step_partial([0], [0.1]), RuntimeError, "call step"),
]


@pytest.mark.parametrize("make, call, exc, match", cases(TRACKER_CALLS))
def test_epoch_tracker_refuses_bad_input_and_changes_nothing(make, call, exc, match):
    t = make()
    assert_refused(t, call, exc, match)
    if t.counts is not None:              # and still takes a good epoch
        t.step_partial([0], [t.scores[1]])
        t._check()


# ---------------------------------------------------------------------- Monitor
MONITOR_CALLS = [
    ("nan-score", monitor, lambda m: m.observe("new", score=NAN, label=0), ValueError,
     P("score")),
    ("inf-label", monitor, lambda m: m.observe("new", score=0.5, label=INF), ValueError,
     P("label")),
    ("str-label", monitor, lambda m: m.observe("new", score=0.5, label="1"), TypeError,
     P("label")),
    ("inexact-score", monitor, lambda m: m.observe("new", score=INEXACT), ValueError,
     P("score")),
    ("neg-weight", monitor, lambda m: m.observe("new", score=0.5, label=0, weight=-1),
     ValueError, P("weight")),
    ("high-weight", monitor, lambda m: m.observe("new", score=0.5, label=0, weight=OUT_HI),
     ValueError, P("weight")),
    ("inexact-weight", monitor, lambda m: m.observe("k1", weight=INEXACT), ValueError,
     P("weight")),
    ("nan-time", monitor, lambda m: m.observe("new", score=0.5, time=NAN), ValueError,
     P("time")),
    ("empty-event", monitor, lambda m: m.observe("new"), ValueError, "needs a score"),
    # a new prediction evicts k0 (label 0); k2 still holds label 0
    ("third-label-new", monitor, lambda m: m.observe("new", score=0.5, label=2), ValueError,
     P("label") + ".*at most two labels"),
    ("third-label-relabel", monitor, lambda m: m.observe("k1", label=2), ValueError,
     P("label") + ".*at most two labels"),
    ("pending-nan-score", monitor_pending, lambda m: m.observe("p0", score=NAN),
     ValueError, P("score")),
    ("pending-low-weight", monitor_pending, lambda m: m.observe("p0", label=1,
                                                                weight=OUT_LO),
     ValueError, P("weight")),
    ("period-no-time", monitor_period, lambda m: m.observe(9, score=0.5), ValueError,
     P("time")),
    ("period-older-prediction", monitor_period, lambda m: m.observe(9, score=0.5,
                                                                    time=1.0),
     ValueError, P("time")),
    ("period-str-time", monitor_period, lambda m: m.observe(9, score=0.5, time="5"),
     TypeError, P("time")),
]


@pytest.mark.parametrize("make, call, exc, match", cases(MONITOR_CALLS))
def test_monitor_refuses_bad_input_and_changes_nothing(make, call, exc, match):
    m = make()
    assert_refused(m, call, exc, match)
    # the refused event is not counted: the next report is that of an untouched monitor
    assert repr(m.report().as_dict()) == repr(make().report().as_dict())


# ---------------------------------------------------------------------- RankingState
def _ranking_state(st):
    return pickle.dumps(st, protocol=4), st.pair_errors(), {m: st.mean(m) for m in st.metrics}


RANKING_CALLS = [
    ("set-neg-rel", lambda s: s.set("q1", "a", -1, 0.5), ValueError, P("rel")),
    ("set-nan-rel", lambda s: s.set("q1", "z", NAN, 0.5), ValueError, P("rel")),
    ("set-inf-score", lambda s: s.set("q1", "a", 1, INF), ValueError, P("score")),
    ("set-str-rel", lambda s: s.set("q1", "a", "1", 0.5), ValueError, P("rel")),
    ("set-bool-score", lambda s: s.set("q3", "a", 1, True), ValueError, P("score")),
    ("remove-unknown-doc", lambda s: s.remove("q1", "zz"), KeyError, "zz"),
    ("remove-unknown-query", lambda s: s.remove("q9", "a"), KeyError, "q9"),
    # a document id that cannot be hashed, in a held query and in a new one
    ("set-unhashable-doc", lambda s: s.set("q1", ["a"], 1, 0.5), TypeError, P("doc")),
    ("set-unhashable-doc-new-query", lambda s: s.set("q9", ["a"], 1, 0.5), TypeError,
     P("doc")),
    # a relevance whose exponential gain 2**rel overflows float64
    ("set-rel-too-large", lambda s: s.set("q1", "a", 2000, 0.5), ValueError, P("rel")),
    # an int that float64 cannot hold is refused, not rounded
    ("set-inexact-rel", lambda s: s.set("q1", "a", INEXACT, 0.5), ValueError, P("rel")),
    ("set-inexact-score", lambda s: s.set("q1", "a", 1, -INEXACT), ValueError, P("score")),
    # the errors name the method called
    ("set-error-names-ranking-state", lambda s: s.set("q1", "a", -1, 0.5), ValueError,
     "'rel' parameter of RankingState.set"),
]


@pytest.mark.parametrize("call, exc, match", [c[1:] for c in RANKING_CALLS],
                         ids=[c[0] for c in RANKING_CALLS])
def test_ranking_state_refuses_bad_input_and_changes_nothing(call, exc, match):
    st = ranking()
    before = _ranking_state(st)
    with pytest.raises(exc, match=match):
        call(st)
    assert _ranking_state(st) == before

