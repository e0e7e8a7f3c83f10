"""The compiled entry points of the windows (`streamrank.structures._cpairwindow`): every
kind of bad input raises, from the one C call, before anything changes -- checked on a
window whose changes have not reached its engine yet (no read before the bad call), so
that neither the ring, nor the changes waiting, nor the engine may move.

The oracle of the counts after the refused calls is `streamrank.pair_counts` of the
events a plain list says the window holds.
"""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

from streamrank import SlidingPairCounter, TimeSlidingPairCounter, pair_counts
from streamrank.metrics import RollingROCAUC

NAN, INF = math.nan, math.inf
INEXACT = 2 ** 53 + 1
EVENTS = [(1, 0.9, 1), (0, 0.2, 2), (1, 0.4, 1), (0, 0.7, 0.5), (1, 0.1, 1)]


def _frozen(win):
    """What a refused call must leave as it was: the rows, the changes waiting (nothing
    read, so they are there), and the engine's whole state."""
    return (repr(win._win.items()), win._win.waiting, pickle.dumps(win._engine))


def _filled(kind):
    size = 4
    if kind == "sliding":
        win = SlidingPairCounter(size, labels="binary")
        for y, s, w in EVENTS:
            win.push(y, s, w)
        held = EVENTS[-size:]
    elif kind == "time":
        win = TimeSlidingPairCounter(3.5, labels="binary")
        for t, (y, s, w) in enumerate(EVENTS):
            win.push(y, s, w, t=float(t))
        held = EVENTS[1:]                                   # t' > 4 - 3.5
    else:
        win = RollingROCAUC(window_size=size)
        for y, s, w in EVENTS:
            win.update(y, s, w)
        held = EVENTS[-size:]
    assert win._win.waiting                               # changes wait for a read
    return win, held


def _assert_refused(kind, call, exc, match):
    win, held = _filled(kind)
    before = _frozen(win)
    with pytest.raises(exc, match=match):
        call(win)
    assert _frozen(win) == before, "the state changed before the call raised"
    ref = pair_counts(*zip(*[(y, s) for y, s, _ in held]),
                      sample_weight=[w for *_, w in held])
    if kind == "rolling":
        assert win.get() == ref.auc and win.n_events == len(held)
    else:
        assert win.counts.concordant == ref.concordant and len(win) == len(held)
        win._check()


PUSH_CASES = [
    ("y str", ("a", 0.5, 1), TypeError, "'y'"),
    ("y None", (None, 0.5, 1), TypeError, "'y'"),
    ("y nan", (NAN, 0.5, 1), ValueError, "'y'"),
    ("y inf", (INF, 0.5, 1), ValueError, "'y'"),
    ("y int beyond float64", (INEXACT, 0.5, 1), ValueError, "'y'.*float64 holds exactly"),
    ("y numpy nan", (np.float64("nan"), 0.5, 1), ValueError, "'y'"),
    ("s str", (1, "0.5", 1), TypeError, "'s'"),
    ("s nan", (1, NAN, 1), ValueError, "'s'"),
    ("s -inf", (1, -INF, 1), ValueError, "'s'"),
    ("s int beyond float64", (1, -INEXACT, 1), ValueError, "'s'.*float64 holds exactly"),
    ("s list", (1, [0.5], 1), TypeError, "'s'"),
    ("w negative", (1, 0.5, -1), ValueError, "'w'.*non-negative"),
    ("w nan", (1, 0.5, NAN), ValueError, "'w'"),
    ("w inf", (1, 0.5, INF), ValueError, "'w'"),
    ("w bool", (1, 0.5, True), TypeError, "'w'"),
    ("w str", (1, 0.5, "1"), TypeError, "'w'"),
    ("w out of the domain", (1, 0.5, 2.0 ** 401), ValueError, "'w'"),
    ("a third label", (2, 0.5, 1), ValueError, r"'y'.*at most two labels.*\[2\.0\] with "
     r"\[0\.0, 1\.0\] held"),
]


@pytest.mark.parametrize(("args", "exc", "match"), [c[1:] for c in PUSH_CASES],
                         ids=[c[0] for c in PUSH_CASES])
def test_sliding_push_refuses_before_any_change(args, exc, match):
    _assert_refused("sliding", lambda win: win.push(*args), exc, match)


TIME_CASES = PUSH_CASES + [
    ("t before the latest", (1, 0.5, 1, 3.0), ValueError,
     r"'t'.*at least the latest time 4\.0"),
    ("t nan", (1, 0.5, 1, NAN), ValueError, "'t'"),
    ("t str", (1, 0.5, 1, "5"), TypeError, "'t'"),
    ("t None", (1, 0.5, 1, None), TypeError, "'t'"),
]


@pytest.mark.parametrize(("args", "exc", "match"), [c[1:] for c in TIME_CASES],
                         ids=[c[0] for c in TIME_CASES])
def test_time_push_refuses_before_any_change(args, exc, match):
    y, s, w, *t = args
    _assert_refused("time", lambda win: win.push(y, s, w, t=t[0] if t else 5.0), exc, match)


RIVER_CASES = [
    ("y_true None", (None, 0.5, 1), TypeError, "'y_true'"),
    ("y_true str", ("yes", 0.5, 1), TypeError, "'y_true'"),
    ("y_true nan", (NAN, 0.5, 1), ValueError, "'y_true'"),
    ("y_pred str", (True, "0.5", 1), TypeError, "'y_pred'"),
    ("y_pred nan", (True, NAN, 1), ValueError, "'y_pred'"),
    ("y_pred inf in a dict", (True, {True: INF}, 1), ValueError, "'y_pred'"),
    ("y_pred None", (True, None, 1), TypeError, "'y_pred'"),
    ("w negative", (True, 0.5, -2), ValueError, "'w'"),
    ("w nan", (True, 0.5, NAN), ValueError, "'w'"),
    ("w str", (True, 0.5, "1"), TypeError, "'w'"),
]


@pytest.mark.parametrize("method", ["update", "revert"])
@pytest.mark.parametrize(("args", "exc", "match"), [c[1:] for c in RIVER_CASES],
                         ids=[c[0] for c in RIVER_CASES])
def test_rolling_update_and_revert_refuse_before_any_change(method, args, exc, match):
    _assert_refused("rolling", lambda m: getattr(m, method)(*args), exc, match)


def test_a_third_label_is_taken_when_the_last_copy_of_one_leaves():
    """labels="binary" counts the labels after the slide: the push that evicts the last
    row of label 1 may bring label 2 (the pairs then match a recount)."""
    win = SlidingPairCounter(2, labels="binary")
    for y, s in [(1, 0.3), (0, 0.6)]:
        win.push(y, s)
    win.push(2, 0.5)                      # evicts (1, 0.3): labels 0 and 2 held
    assert list(win) == [(0.0, 0.6, 1), (2.0, 0.5, 1)]
    ref = pair_counts([0, 2], [0.6, 0.5])
    assert (win.counts.concordant, win.counts.discordant) == (ref.concordant,
                                                              ref.discordant) == (0, 1)
    win._check()
    win.push(1, 0.1)                      # evicts (0, 0.6), the last row of label 0
    assert list(win) == [(2.0, 0.5, 1), (1.0, 0.1, 1)] and win.counts.concordant == 1
    win._check()

