"""The labels without a segment of a `streamrank.monitor.SegmentedMonitor`: a label (or
weight) that names no segment with a unit, for an id in no window, is counted at the
wrapper, late or unmatched, or waits there for its prediction, keyed by id.

A segmented stream's label rows often lack the segment; a label that comes before its
prediction then names no unit, so no unit can count it or hold it in its own wait
(`Monitor(label_wait=...)`). The wrapper does, by the same rules as a `Monitor`
(`streamrank.monitor._wait`: `_wait._Waits`, `_wait.bound_of`, `_wait.start_of`, the
memory of the unmatched ids, `_wait.unmatched`), with the units' bound (``label_wait``
events of the whole stream, or ``label_wait_period`` of the shared clock):

* the id's prediction left its segment's window lately (`_wait.recent` of that unit, or
  it leaves at this event): a late drop (``stats["dropped"]``);
* otherwise, without a wait: unmatched at once (``stats["unmatched"]``); with a wait it
  waits (a waiting event moves no clock), and a new prediction of a waiting id takes the
  waiting label and weight (its own win) to its segment's unit, in the prediction's own
  event (``stats["joined"]``); a wait that runs out is counted ``stats["unmatched"]``;
* a new prediction of an id whose label was counted unmatched shows that label was early
  (``stats["early"]``, ``stats["early_lead"]``).

A label row that names a segment with a unit goes to that unit (and its own wait), as
without a wait. A segment named on a label that waits here is not kept (the prediction's
decides). Every step is ``O(1)`` amortized (the structures' own costs).
"""

from __future__ import annotations

from .._validation import check_scalar, check_weight, param_error
from . import _wait

__all__ = ["bound", "check", "gone_lately", "hold", "joining", "settle", "unrouted",
           "wait_of"]


def wait_of(unit) -> tuple:
    """``(label_wait, label_wait_period)`` of a unit (None, None without a wait)."""
    return getattr(unit, "label_wait", None), getattr(unit, "label_wait_period", None)


def _models(unit) -> tuple:
    """The `Monitor`\\ s of a unit (both models of a `PairedMonitor`)."""
    champion = getattr(unit, "champion", None)
    return (unit,) if champion is None else (champion, unit.challenger)


def gone_lately(m, key, where) -> bool:
    """Whether the prediction of ``key`` (``where``: its entry in the id map, None if
    none; the id is in no live window) left its segment's window lately, or leaves at
    this event (still held, but out of the period at its time). Brings that unit up to
    the shared clock (as evicting at every event would)."""
    if where is None:
        return False
    unit = m._unit_of(where[0])
    if unit is None:
        return False
    if key in unit:
        return True
    if m._clock is not None:
        unit.advance(m._clock)
    return any(_wait.recent(mon, key) for mon in _models(unit))


def bound(m, time, early) -> float:
    """This event's bound, before it is counted (``early``: it waits, the clock stays)."""
    clock = m._clock
    if not early and time is not None and (clock is None or time > clock):
        clock = time
    return _wait.bound_of(m._label_wait, m._label_wait_period, m.stats["events"], clock)


def hold(m, key, label, weight, time) -> None:
    """Count the event and hold its label and weight (the wait's rules)."""
    b = bound(m, time, True)
    m.stats["events"] += 1
    settle(m, b)
    waits = m._waits
    waits.add(key, label, weight, _wait.start_of(waits, m._label_wait, m.stats["events"],
                                                 m._clock, time))


def joining(m, key, b):
    """The wait a new prediction of ``key`` joins (None): its entry if not run out at
    the bound ``b``. Changes nothing."""
    entry = m._waits.held.get(key)
    return entry if entry is not None and entry[2] > b else None


def unrouted(m, key, label, weight, time, where) -> None:
    """An accepted event for an id in no window, without a segment that has a unit
    (checked first as a `Monitor` checks one, `SegmentedMonitor.observe`: ``where`` is the
    id's entry in the id map, None if none): late, unmatched, or waiting."""
    func = "SegmentedMonitor.observe"
    if key is None:
        raise param_error("key", func, "an id (a hashable value other than None)", "None",
                          TypeError)
    if label is None and weight is None:
        raise ValueError(f"{func}: an event needs a score, a label or a weight; got none "
                         f"for key {key!r}.")
    if label is not None:
        check_scalar(label, "label", func)
    if weight is not None:
        check_weight(weight, func, "weight")
    late = gone_lately(m, key, where)
    if m._waits is not None and not late:
        hold(m, key, label, weight, time)
        return
    b = None if m._waits is None else bound(m, time, False)
    if time is not None and (m._clock is None or time > m._clock):
        m._clock = time
    st = m.stats
    st["events"] += 1
    if late:
        st["dropped"] += 1
    else:
        _wait.unmatched(m, key, st["events"])
    if m._waits is not None:
        settle(m, b)


def settle(m, b, key=None, joined=None) -> None:
    """After an accepted event: run out the waits past ``b`` (``unmatched``); the wait of
    ``key`` that its prediction ``joined`` leaves (``joined``)."""
    waits, st = m._waits, m.stats
    if waits.held:
        _wait.expired(m, waits.expire(b), m._label_wait is not None)
    if joined is not None:
        del waits.held[key]
        st["joined"] += 1


def check(m, window_keys) -> None:
    """The invariants of the wrapper's wait (`SegmentedMonitor._check`; ``window_keys``:
    the ids in the windows): no waiting id in a window, the starts in order, none run
    out; no wait, none joined; no unmatched id in a window."""
    waits = m._waits
    assert not set(m._orphans.mark) & window_keys
    assert m.stats["early"] <= m.stats["unmatched"]
    if waits is None:
        assert not m.stats["joined"]
        return
    assert not set(waits.held) & window_keys
    rows = waits.rows()
    assert len(rows) == len(waits.held)
    starts = [r[3] for r in rows]
    assert starts == sorted(starts)
    if m._label_wait is not None:
        assert all(t > m.stats["events"] - 1 - m._label_wait for t in starts)
    elif m._clock is not None:
        assert all(t > m._clock - m._label_wait_period for t in starts)
