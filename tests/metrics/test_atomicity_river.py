"""The River metrics of `streamrank.metrics` refuse a bad ``update`` or ``revert`` before
anything changes (see `test_atomicity`): a NaN, infinite, non-numeric or inexact
(``2**53 + 1``) ``y_pred`` or ``y_true``, a weight outside the domain, a ``y_true`` of
the wrong kind, a bad group (`GroupAUC`) or censoring pair (`ConcordanceIndex`), and a
``revert`` of values no update holds: each raises, naming the parameter, and the metric's
pickle bytes are the same, whether its updates were buffered or applied. It then reads as
a metric that never saw the call.
"""

from __future__ import annotations

import pickle

import pytest

from _atomic import INEXACT, INF, NAN, OUT_HI, OUT_LO, P, assert_refused
from streamrank import metrics as sm


RIVER = {
    "ROCAUC": lambda: sm.ROCAUC(),
    "RollingROCAUC": lambda: sm.RollingROCAUC(window_size=4),
    "GroupAUC": lambda: sm.GroupAUC(),
    "KendallTau": lambda: sm.KendallTau(),
    "GoodmanKruskalGamma": lambda: sm.GoodmanKruskalGamma(),
    "SomersD": lambda: sm.SomersD(),
    "PairwiseAccuracy": lambda: sm.PairwiseAccuracy(),
    "RightWrongRatio": lambda: sm.RightWrongRatio(),
    "ConcordanceIndex": lambda: sm.ConcordanceIndex(),
    "ConcordanceIndex-censored": lambda: sm.ConcordanceIndex(censoring=True),
}
BINARY_METRICS = ("ROCAUC", "RollingROCAUC", "GroupAUC")


def _events(name):
    """``(y_true, y_pred, w)`` updates of metric ``name``."""
    if name == "GroupAUC":
        return [(1, (0.8, "u1"), 1), (0, (0.2, "u1"), 2), (1, (0.4, "u2"), 1),
                (0, (0.6, "u2"), 1), (1, (0.5, "u1"), 0.5)]
    if name == "ConcordanceIndex-censored":
        return [((1.0, True), 0.2, 1), ((2.0, False), 0.5, 2), ((3.0, True), 0.4, 1),
                ((4.0, True), 0.9, 1)]
    if name in BINARY_METRICS:
        return [(1, 0.8, 1), (0, 0.2, 2), (1, 0.4, 1), (0, 0.6, 1), (True, 0.5, 0.5)]
    return [(1.0, 0.8, 1), (0.0, 0.2, 2), (2.0, 0.4, 1), (0.5, 0.6, 1), (1.0, 0.5, 0.5)]


def river(name, read):
    """A metric holding applied updates and, unless ``read``, buffered ones too."""
    m = RIVER[name]()
    events = _events(name)
    for e in events[:3]:
        m.update(*e)
    m.get()
    for e in events[3:]:
        m.update(*e)
    if read:
        m.get()
    return m


# ---------------------------------------------------------------------- River metrics
def _river_calls(name):
    binary = name in BINARY_METRICS
    grouped = name == "GroupAUC"
    censored = name == "ConcordanceIndex-censored"
    good_y = 1 if binary else ((2.0, True) if censored else 1.0)

    def pred(p):
        return (p, "u1") if grouped else p

    calls = [
        ("nan-y_pred", lambda m, f: getattr(m, f)(good_y, pred(NAN)), ValueError,
         P("y_pred")),
        ("inf-y_pred", lambda m, f: getattr(m, f)(good_y, pred(INF)), ValueError,
         P("y_pred")),
        ("str-y_pred", lambda m, f: getattr(m, f)(good_y, pred("0.5")), TypeError,
         P("y_pred")),
        ("inexact-y_pred", lambda m, f: getattr(m, f)(good_y, pred(INEXACT)), ValueError,
         P("y_pred")),
        ("neg-w", lambda m, f: getattr(m, f)(good_y, pred(0.5), -1), ValueError, P("w")),
        ("nan-w", lambda m, f: getattr(m, f)(good_y, pred(0.5), NAN), ValueError, P("w")),
        ("high-w", lambda m, f: getattr(m, f)(good_y, pred(0.5), OUT_HI), ValueError, P("w")),
        ("low-w", lambda m, f: getattr(m, f)(good_y, pred(0.5), OUT_LO), ValueError, P("w")),
        ("inexact-w", lambda m, f: getattr(m, f)(good_y, pred(0.5), INEXACT), ValueError,
         P("w")),
        ("str-w", lambda m, f: getattr(m, f)(good_y, pred(0.5), "1"), TypeError, P("w")),
        ("str-y_true", lambda m, f: getattr(m, f)("pos", pred(0.5)), TypeError,
         P("y_true")),
        ("nan-y_true", lambda m, f: getattr(m, f)(NAN, pred(0.5)), ValueError, P("y_true")),
        ("none-y_true", lambda m, f: getattr(m, f)(None, pred(0.5)), TypeError,
         P("y_true")),
    ]
    if binary:
        calls.append(("nan-in-proba-dict", lambda m, f: getattr(m, f)(
            1, pred({True: NAN, False: 0.5})), ValueError, P("y_pred")))
    else:
        calls.append(("inexact-y_true", lambda m, f: getattr(m, f)(
            (INEXACT, True) if censored else INEXACT, 0.5), ValueError, P("y_true")))
    if grouped:
        calls += [
            ("no-group", lambda m, f: getattr(m, f)(1, 0.5), TypeError, P("y_pred")),
            ("nan-group", lambda m, f: getattr(m, f)(1, (0.5, NAN)), ValueError,
             P("y_pred")),
            ("unhashable-group", lambda m, f: getattr(m, f)(1, (0.5, ["u1"])), TypeError,
             P("y_pred")),
        ]
    if censored:
        calls += [
            ("bad-event", lambda m, f: getattr(m, f)((2.0, 2), 0.5), ValueError,
             P("y_true")),
            ("short-tuple", lambda m, f: getattr(m, f)((2.0,), 0.5), ValueError,
             P("y_true")),
            ("nan-time", lambda m, f: getattr(m, f)((NAN, True), 0.5), ValueError,
             P("y_true")),
        ]
    if name == "ConcordanceIndex":
        calls.append(("tuple-without-censoring", lambda m, f: getattr(m, f)(
            (2.0, True), 0.5), TypeError, P("y_true")))
    # revert of values no update holds (RollingROCAUC: a no-op, as River's; below)
    if name != "RollingROCAUC":
        calls.append(("not-held", lambda m, f: None if f == "update" else m.revert(
            *_events(name)[0][:1], pred(0.123)), ValueError, "y_true, y_pred, w"))
    return calls


RIVER_CASES = [(name, read, method, cid, call, exc, match)
               for name in RIVER for read in (False, True) for method in ("update", "revert")
               for cid, call, exc, match in _river_calls(name)
               if not (cid == "not-held" and method == "update")]


@pytest.mark.parametrize(
    "name, read, method, call, exc, match", [c[:3] + c[4:] for c in RIVER_CASES],
    ids=[f"{c[0]}-{'read' if c[1] else 'buffered'}-{c[2]}-{c[3]}" for c in RIVER_CASES])
def test_river_metrics_refuse_bad_input_and_change_nothing(name, read, method, call, exc,
                                                           match):
    m = river(name, read)
    assert_refused(m, lambda m: call(m, method), exc, match)
    value = m.get()
    fresh = river(name, True)
    assert value == fresh.get()          # and it reads as if the call never happened


@pytest.mark.parametrize("read", [False, True])
def test_rolling_roc_auc_revert_of_values_not_held_changes_nothing(read):
    m = river("RollingROCAUC", read)
    before = (m.get(), m.n_events, pickle.dumps(m, protocol=4))
    m.revert(1, 0.123)
    assert (m.get(), m.n_events, pickle.dumps(m, protocol=4)) == before
