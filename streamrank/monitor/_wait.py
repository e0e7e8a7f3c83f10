"""Labels with no prediction in the window: the waiting room of `Monitor(label_wait=...)`,
and the two memories that tell a late label from an early one.

A label (or a weight) for an id the window does not hold is one of two things:

* *late, dropped* (``stats["dropped"]``): its prediction was in the window and has been
  evicted. The monitor remembers the ids of the predictions evicted lately (`_Recent`,
  ``Monitor._gone``: the last ``window`` evicted, or those evicted within the last
  ``period``), with or without a wait;
* *unmatched* (``stats["unmatched"]``): no prediction of that id was seen lately: the
  label came before its prediction, or the id was never predicted (or evicted so long
  ago that it is forgotten). Without a wait it is counted at once; with ``label_wait``
  (events) or ``label_wait_period`` (time units) it *waits* in `_Waits` and joins its
  prediction if that arrives in time (``stats["joined"]``), and is counted unmatched when
  its wait runs out. One definition either way: a label or weight that met no prediction.

The ids of the last `ORPHANS` unmatched labels are remembered too (`_Recent`,
``Monitor._orphans``): a prediction that comes for one of them shows that the label was
early (``stats["early"]``, and ``stats["early_lead"]``: the most events from such a
label to its prediction; the smallest ``label_wait`` that would have joined them all;
with a time wait, counted from the event at which its wait ran out).

Each structure is a dict (``key -> entry``) and a deque of the entries in the order they
expire (lazy deletion: an entry joined, replaced or marked again leaves its old deque
item behind, skipped when it reaches the front), so every step is ``O(1)`` amortized.
"""

from __future__ import annotations

import math
from collections import deque

__all__ = ["HELD", "ORPHANS", "bound_of", "check", "expired", "joining", "note_gone",
           "outside", "predicted", "ran_out", "recent", "start_of", "step", "unmatched"]

#: The unmatched labels whose ids are remembered (`_Recent`), to find those that were
#: early when their prediction comes: the last this many.
ORPHANS = 10_000

#: What `step` returns for an event that waits (the monitor returns at once).
HELD = object()


class _Waits:
    """Labels and weights waiting for their prediction, oldest first.

    ``held[key] = [label or None, weight or None, start]`` and ``order`` holds ``(start,
    key)``, ``start`` being the number of the event that started the wait (``events``
    waits) or the clock after it (time waits): it does not decrease along ``order``. An
    entry runs out at the first event whose bound (`joining`) is ``>= start``. Several
    events for one waiting id: each replaces the fields it carries (the last wins), and
    the wait keeps the start of the first one, so an id cannot wait longer than one wait.
    """

    __slots__ = ("held", "order")

    def __init__(self) -> None:
        self.held: dict = {}
        self.order: deque = deque()

    def __len__(self) -> int:
        return len(self.held)

    def add(self, key, label, weight, start) -> None:
        """Hold (or update) the wait of ``key``. O(1)."""
        entry = self.held.get(key)
        if entry is None:
            self.held[key] = [label, weight, start]
            self.order.append((start, key))
            return
        if label is not None:
            entry[0] = label
        if weight is not None:
            entry[1] = weight

    def expire(self, bound) -> list:
        """Drop the waits with ``start <= bound``: their ``(start, key)``, oldest first.
        O(1 + dropped) amortized (an entry that joined left its ``order`` item behind:
        skipped here)."""
        order, held = self.order, self.held
        out = []
        while order and order[0][0] <= bound:
            start, key = order.popleft()
            entry = held.get(key)
            if entry is not None and entry[2] == start:
                del held[key]
                out.append((start, key))
        if not held:
            order.clear()
        return out

    def rows(self) -> list:
        """``(key, label or None, weight or None, start)`` of each wait, oldest first
        (the snapshot). O(len(order))."""
        held, out, seen = self.held, [], set()
        for start, key in self.order:
            entry = held.get(key)
            if entry is not None and entry[2] == start and key not in seen:
                seen.add(key)
                out.append((key, entry[0], entry[1], start))
        return out


class _Recent:
    """Ids marked lately: ``mark[key]`` and ``order`` of ``(mark, key)`` in the order they
    were marked. `note` forgets the ids whose mark is ``span`` behind the latest (the ids
    evicted lately: the mark is the eviction's number in a count window, the clock in a
    ``period`` window, ``span`` the window's size or period; `recent` reads it); `trim`
    keeps the last ``n`` (the unmatched labels: the mark is the label's event number)."""

    __slots__ = ("mark", "order", "span")

    def __init__(self, span=math.inf) -> None:
        self.mark: dict = {}
        self.order: deque = deque()
        self.span = span

    def __len__(self) -> int:
        return len(self.mark)

    def note(self, key, mark) -> None:
        """``key`` was marked at ``mark``; forget what is ``span`` behind it. O(1)
        amortized, one call (the per-event path of a count window calls it at each
        eviction)."""
        self.mark[key] = mark
        order = self.order
        order.append((mark, key))
        bound = mark - self.span
        while order[0][0] <= bound:
            m, k = order.popleft()
            if self.mark.get(k) == m:
                del self.mark[k]

    def prune(self, bound) -> None:
        """Forget the ids whose mark is at most ``bound``. O(1 + forgotten) amortized."""
        order = self.order
        while order and order[0][0] <= bound:
            m, k = order.popleft()
            if self.mark.get(k) == m:
                del self.mark[k]

    def trim(self, n) -> None:
        """Keep the last ``n`` ids marked (and ``order`` within twice the ids kept, the
        items of ids taken out by `take` included). O(1) amortized."""
        mark, order = self.mark, self.order
        while len(mark) > n:
            m, k = order.popleft()
            if mark.get(k) == m:
                del mark[k]
        if len(order) > 2 * len(mark) + 16:
            self.order = deque((m, k) for m, k in order if mark.get(k) == m)

    def take(self, key):
        """Forget ``key``: its mark (None if it has none). O(1)."""
        return self.mark.pop(key, None)

    def rows(self) -> list:
        """``(key, mark)`` of each remembered id, oldest first (the snapshot)."""
        mark = self.mark
        return [(key, m) for m, key in self.order if mark.get(key) == m]


# ---------------------------------------------------------------- the rules of a wait
def bound_of(label_wait, label_wait_period, events, clock):
    """The bound of an event (the waits with ``start <= bound`` run out at it), before
    the event is counted: ``events - label_wait`` (``events`` counted before it), or
    ``clock - label_wait_period`` (``clock`` after it; an event that waits moves no
    clock). Shared by `Monitor` and `streamrank.monitor.SegmentedMonitor`'s wait."""
    if label_wait is not None:
        return events - label_wait
    return -math.inf if clock is None else clock - label_wait_period


def start_of(waits, label_wait, events, clock, time):
    """The start of a wait begun by an event: its number ``events`` (counted), or its
    ``time`` or the ``clock``, the later, never before an earlier start (so ``order``
    stays sorted)."""
    if label_wait is not None:
        return events
    start = time if clock is None or time > clock else clock
    if waits.order and waits.order[-1][0] > start:
        start = waits.order[-1][0]
    return start


# ------------------------------------------------- unmatched labels (with a wait or not)
def unmatched(m, key, number) -> None:
    """A label or weight of ``key`` met no prediction (``m``: a `Monitor`, or a
    `streamrank.monitor.SegmentedMonitor` for its labels without a segment): count it and
    remember its id with ``number``, the event it came with (or, after a time wait, the
    event its wait ran out at); an id remembered already keeps its first number (as a
    wait keeps its first start). O(1) amortized."""
    m.stats["unmatched"] += 1
    if key not in m._orphans.mark:
        m._orphans.note(key, number)
        m._orphans.trim(ORPHANS)


def outside(m, key, orphan) -> None:
    """A label or weight of ``key`` for a prediction outside the window of the `Monitor`
    ``m`` (the event counted): unmatched (``orphan``: the id was not evicted lately,
    `recent`) or late, dropped."""
    if orphan:
        unmatched(m, key, m.stats["events"])
    else:
        m.stats["dropped"] += 1


def predicted(m, key) -> None:
    """A new prediction of ``key`` (in the event ``m.stats["events"]``, counted): if a label
    of that id was counted unmatched lately, it was early (``early``, ``early_lead``).
    O(1)."""
    if not m._orphans.mark:
        return
    number = m._orphans.take(key)
    if number is not None:
        st = m.stats
        st["early"] += 1
        lead = st["events"] - number
        if lead > st["early_lead"]:
            st["early_lead"] = lead


def expired(m, runs, by_events) -> None:
    """The waits ``runs`` (``(start, key)`` from `_Waits.expire`) ran out: unmatched, each
    remembered with its start (``by_events``: an event wait, whose start is its event's
    number) or the event now (a time wait)."""
    now = m.stats["events"]
    for start, key in runs:
        unmatched(m, key, int(start) if by_events else now)


# ---------------------------------------------------------------- the Monitor's steps
def recent(m, key) -> bool:
    """Whether ``key`` left the window of ``m`` lately (changes nothing): among the last
    ``window`` predictions evicted (count windows), or evicted when the clock was above
    ``clock - period`` (``period`` windows)."""
    mark = m._gone.mark.get(key)
    if mark is None:
        return False
    if m.period is None:
        return mark > m.stats["evicted"] - m.window
    return m._clock is None or mark > m._clock - m.period


def joining(m, key, row, score, label, evict, time, early):
    """Before anything changes (`Monitor.observe` of ``m`` with a label wait; ``early``:
    this event waits): the wait this new prediction joins (None: none, or one whose
    ``start`` is at most this event's bound, `bound_of`: it ran out). With
    ``labels="binary"``, a waiting label is checked here, when it would join (its own
    event was checked too)."""
    clock = m._clock
    if not early and time is not None and (clock is None or time > clock):
        clock = time
    bound = bound_of(m.label_wait, m.label_wait_period, m.stats["events"], clock)
    joined = None
    if row < 0 and score is not None:
        entry = m._waits.held.get(key)
        if entry is not None and entry[2] > bound:
            joined = entry
            if label is None and entry[0] is not None and m.labels == "binary":
                m._check_binary(entry[0], row, evict)
    return joined


def ran_out(m) -> None:
    """The waits of ``m`` that can no longer join, after its clock moved without an event
    (`Monitor.advance`) and after each event: time waits past ``clock -
    label_wait_period``, event waits whose last event has come (`expired`). O(1)
    amortized."""
    clock = m._clock
    if m._waits.held and (m.label_wait is not None or clock is not None):
        expired(m, m._waits.expire(bound_of(m.label_wait, m.label_wait_period,
                                            m.stats["events"], clock)),
                m.label_wait is not None)
    if m.period is not None and clock is not None and m._gone.order:
        m._gone.prune(clock - m.period)


def step(m, key, label, weight, joined, early, time):
    """Apply this event's part of the label wait (after the evictions and the clock,
    the event counted): hold an ``early`` label or weight (`HELD`: the monitor
    returns), or hand a new prediction its waiting label and weight (``joined``; its own
    win); then run out the waits this event was the last chance of (`ran_out`: each
    event's bound is passed once, after it). Returns the ``(label, weight)`` the event
    goes on with. O(1) amortized."""
    waits, st = m._waits, m.stats
    if early:
        waits.add(key, label, weight, start_of(waits, m.label_wait, st["events"],
                                               m._clock, time))
        ran_out(m)
        m._fast = False
        return HELD, None
    if joined is not None:
        del waits.held[key]
        st["joined"] += 1
        label = joined[0] if label is None else label
        weight = joined[1] if weight is None else weight
    ran_out(m)      # this event was the last chance of some waits
    m._fast = m._ref is not None and m._steady()
    return label, weight


def note_gone(m, key, number, time=None) -> None:
    """``key`` left the window of ``m``: the eviction's ``number`` (count windows) or the
    clock ``time`` evicting it (``period`` windows) is its mark. O(1) amortized."""
    m._gone.note(key, number if m.period is None else time)


def check(m, window_keys) -> None:
    """The invariants of the memories and the label wait of ``m`` (`Monitor._check`;
    ``window_keys``: the ids in the window)."""
    waits, gone, orphans = m._waits, m._gone, m._orphans
    if m.period is None:
        assert len(gone.order) <= m.window
    assert {k for k, _ in gone.rows()} == set(gone.mark)
    assert len(orphans) <= ORPHANS and not set(orphans.mark) & window_keys
    assert m.stats["early"] <= m.stats["unmatched"]
    if waits is None:
        assert not m.stats["joined"]
        return
    held = set(waits.held)
    assert not held & window_keys and not held & set(gone.mark)
    assert not held or not m._fast
    rows = waits.rows()
    assert len(rows) == len(held)
    starts = [r[3] for r in rows]
    assert starts == sorted(starts)
    if m.label_wait is not None:
        assert len(waits.order) <= m.label_wait
        assert all(s > m.stats["events"] - 1 - m.label_wait for s in starts)
    elif m._clock is not None:
        assert all(s > m._clock - m.label_wait_period for s in starts)
