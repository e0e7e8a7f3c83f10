"""The join: labels with no prediction in the window, the waiting room of
`Monitor(label_wait=...)`, and the memories that tell a late label from an early one.

A label (or a weight) for an id the window does not hold is one of two things:

* *late, dropped* (``stats["dropped"]``): its prediction was in the window and has been
  evicted. Each window remembers the ids of the predictions it evicted lately (a
  `Recent`: the last ``window`` evicted, or those evicted within the last ``period``;
  `Monitor.left_lately`), with or without a wait;
* *unmatched* (``stats["unmatched"]``): no prediction of that id was seen lately: the
  label came before its prediction, or the id was never predicted (or evicted so long
  ago that it is forgotten). Without a wait it is counted at once; with ``label_wait``
  (events) or ``label_wait_period`` (time units) it *waits* in the `Join` and joins its
  prediction if that arrives in time (``stats["joined"]``), and is counted unmatched when
  its wait runs out. One definition either way: a label or weight that met no prediction.

The ids of the last `ORPHANS` unmatched labels are remembered too (`Join.orphans`): a
prediction that comes for one of them shows that the label was
early (``stats["early"]``, and ``stats["early_lead"]``: the most events from such a
label to its prediction; the smallest ``label_wait`` that would have joined them all;
with a time wait, counted from the event at which its wait ran out).

Each structure is a dict (``key -> entry``) and the entries in the order they
expire (lazy deletion: an entry joined, replaced or marked again leaves its old
item behind, skipped when it reaches the front), so every step is ``O(1)`` amortized.
"""

from __future__ import annotations

import math
from collections import deque

import numpy as np

from .. import _snapshot
from ..structures._crecent import Recent

__all__ = ["ORPHANS", "Join", "Recent"]

#: The unmatched labels whose ids are remembered (`Join.orphans`), to find those that were
#: early when their prediction comes: the last this many.
ORPHANS = 10_000


class _Waits:
    """Labels and weights waiting for their prediction, oldest first.

    ``held[key] = [label or None, weight or None, start]`` and ``order`` holds ``(start,
    key)``, ``start`` being the number of the event that started the wait (``events``
    waits) or the clock after it (time waits): it does not decrease along ``order``. An
    entry runs out at the first event whose bound (`Join.bound`) is ``>= start``. Several
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


class Join:
    """The label wait of a monitor, and the memory of its unmatched labels: what happens
    to a label or weight that meets no prediction (module docstring), counted into the
    ``stats`` dicts it is given (one per model: a `streamrank.monitor.PairedMonitor`'s
    two models share one join, and each shows its counts).

    The owner decides *whether* an event meets a prediction (its window, its ids evicted
    lately); the join holds what did not, hands a waiting label and weight to the
    prediction that comes for them, runs out the waits past each event's `bound`, and
    tells, when a prediction comes, whether a label of its id was counted unmatched
    (early). Every step is ``O(1)`` amortized.

    >>> stats = {"unmatched": 0, "early": 0, "early_lead": 0, "joined": 0, "dropped": 0}
    >>> j = Join(label_wait=2, stats=(stats,))
    >>> j.hold("a", 1.0, None, j.start(1, None, None))   # event 1: a label, no prediction
    >>> j.waiting_for("a", j.bound(1, None))            # event 2: its prediction
    [1.0, None, 1]
    >>> j.joined("a"); stats["joined"], len(j)
    (1, 0)
    >>> j.unmatched("b", 3); j.predicted("b", 7); stats["unmatched"], stats["early_lead"]
    (1, 4)
    """

    __slots__ = ("label_wait", "label_wait_period", "waits", "orphans", "_stats")

    def __init__(self, label_wait=None, label_wait_period=None, stats=()) -> None:
        self.label_wait, self.label_wait_period = label_wait, label_wait_period
        waits = label_wait is not None or label_wait_period is not None
        #: the labels and weights waiting (None without a wait)
        self.waits = _Waits() if waits else None
        #: the ids of the last `ORPHANS` unmatched labels, marked with their event
        self.orphans = Recent()
        self._stats = tuple(stats)

    def __len__(self) -> int:
        """Labels (or weights) waiting now."""
        return 0 if self.waits is None else len(self.waits)

    def count_into(self, stats) -> None:
        """Count into the dicts ``stats`` from now on."""
        self._stats = tuple(stats)

    def _add(self, name, k=1) -> None:
        for st in self._stats:
            st[name] += k

    # ------------------------------------------------------------------ the wait's rules
    def bound(self, events, clock):
        """The bound of an event (the waits with ``start <= bound`` run out at it), before
        the event is counted: ``events - label_wait`` (``events`` counted before it), or
        ``clock - label_wait_period`` (``clock`` after it; an event that waits moves no
        clock; -inf without a wait)."""
        if self.label_wait is not None:
            return events - self.label_wait
        if self.label_wait_period is None:
            return -math.inf
        return -math.inf if clock is None else clock - self.label_wait_period

    def start(self, events, clock, time):
        """The start of a wait begun by an event: its number ``events`` (counted), or its
        ``time`` or the ``clock``, the later, never before an earlier start (so the order
        of the waits stays sorted)."""
        if self.label_wait is not None:
            return events
        start = time if clock is None or time > clock else clock
        order = self.waits.order
        if order and order[-1][0] > start:
            start = order[-1][0]
        return start

    def waiting_for(self, key, bound):
        """The wait a new prediction of ``key`` joins: ``[label or None, weight or None,
        start]``, or None (none, or one run out at ``bound``). Changes nothing."""
        if self.waits is None:
            return None
        entry = self.waits.held.get(key)
        return entry if entry is not None and entry[2] > bound else None

    def hold(self, key, label, weight, start) -> None:
        """Hold (or update) the wait of ``key`` from ``start`` (`start`)."""
        self.waits.add(key, label, weight, start)

    def joined(self, key) -> None:
        """The wait of ``key`` met its prediction (`waiting_for`): it leaves, counted
        ``joined``."""
        del self.waits.held[key]
        self._add("joined")

    def run_out(self, events, clock) -> None:
        """After the event numbered ``events`` (counted) at ``clock``: count unmatched the
        waits it was the last chance of (``start <=`` `bound`), each remembered with its
        start (event waits: its event's number) or ``events`` (time waits: the event
        now)."""
        if not (self.waits and self.waits.held):
            return
        by_events = self.label_wait is not None
        for start, key in self.waits.expire(self.bound(events, clock)):
            self.unmatched(key, int(start) if by_events else events)

    # ------------------------------------------------------------------ outcomes
    def dropped(self) -> None:
        """A label or weight whose prediction left the window lately: late, dropped."""
        self._add("dropped")

    def unmatched(self, key, number) -> None:
        """A label or weight of ``key`` met no prediction: count it, and remember its id
        with ``number``, the event it came with (or, after a time wait, the event its
        wait ran out at); an id remembered already keeps its first number (as a wait keeps
        its first start)."""
        self._add("unmatched")
        if key not in self.orphans.mark:
            self.orphans.note(key, number)
            self.orphans.trim(ORPHANS)

    def predicted(self, key, events) -> None:
        """A new prediction of ``key`` in the event ``events`` (counted): if a label of
        that id was counted unmatched lately, it was early (``early``; ``early_lead``, the
        most events from such a label to its prediction)."""
        if not self.orphans.mark:
            return
        number = self.orphans.take(key)
        if number is not None:
            self._add("early")
            lead = events - number
            for st in self._stats:
                if lead > st["early_lead"]:
                    st["early_lead"] = lead

    # ------------------------------------------------------------------ snapshot
    def rows(self) -> tuple[list, list]:
        """``(waits, orphans)``: ``(key, label or None, weight or None, start)`` of each
        wait and ``(key, event)`` of each remembered unmatched id, oldest first."""
        return [] if self.waits is None else self.waits.rows(), self.orphans.rows()

    def to_arrays(self, func) -> dict:
        """The join's section of a snapshot: ``wait_keys`` (`streamrank._snapshot.key_arrays`),
        ``wait_y`` and ``wait_w`` (nan: none), ``wait_start``, ``orphan_keys``,
        ``orphan_mark``; `TypeError` naming ``func`` for keys neither all ints nor all
        strings."""
        waits, orphans = self.rows()
        f64, nan = np.float64, math.nan
        return {
            **_snapshot.key_arrays([r[0] for r in waits], "wait_keys", func),
            "wait_y": np.array([nan if r[1] is None else r[1] for r in waits], dtype=f64),
            "wait_w": np.array([nan if r[2] is None else r[2] for r in waits], dtype=f64),
            "wait_start": np.array([r[3] for r in waits], dtype=f64),
            **_snapshot.key_arrays([k for k, _ in orphans], "orphan_keys", func),
            "orphan_mark": np.array([g for _, g in orphans], dtype=np.int64)}

    @staticmethod
    def read_arrays(snap) -> tuple:
        """Read the section `to_arrays` wrote from the snapshot reader ``snap`` (for
        `load_arrays`, after the snapshot's other arrays are checked)."""
        keys = snap.keys("wait_keys")
        return (keys, snap.floats("wait_y", len(keys), finite=False),
                snap.floats("wait_w", len(keys), finite=False),
                snap.floats("wait_start", len(keys)), *Join._read_orphans(snap))

    @staticmethod
    def _read_orphans(snap) -> tuple:
        keys = snap.keys("orphan_keys")
        return keys, snap.array("orphan_mark", "i", size=len(keys))

    def load_arrays(self, snap, section, window_keys) -> None:
        """Restore the ``section`` `read_arrays` read into this empty join
        (``window_keys``: the ids the owner holds; a whole weight comes back an int);
        ``snap.corrupt`` for rows `to_arrays` cannot have written."""
        keys, y, w, start, orphan_keys, mark = section
        if keys and self.waits is None:
            raise snap.corrupt("waiting labels without a label wait")
        if len(set(keys)) != len(keys) or set(keys) & window_keys or np.isinf(y).any() \
                or (w < 0).any() or np.isinf(w).any() or (np.diff(start) < 0).any() \
                or len(set(orphan_keys)) != len(orphan_keys) \
                or set(orphan_keys) & window_keys or len(orphan_keys) > ORPHANS \
                or orphan_keys and ((np.diff(mark) < 0).any() or mark[0] < 0):
            raise snap.corrupt("the waiting labels or the ids of the unmatched labels are "
                               "not those to_bytes writes")
        by_events = self.label_wait is not None
        self.restore([(k, None if a != a else a, None if b != b else int(b) if b.is_integer() else b,
                       int(t) if by_events else t)
                      for k, a, b, t in zip(keys, y.tolist(), w.tolist(), start.tolist())],
                     zip(orphan_keys, mark.tolist()))

    def restore(self, waits, orphans) -> None:
        """Hold the rows of `rows` again (into an empty join; the caller checks them)."""
        if waits and self.waits is None:
            raise ValueError("waiting labels for a monitor without a label wait")
        for key, y, w, start in waits:
            self.waits.add(key, y, w, start)
        for key, mark in orphans:
            self.orphans.note(key, mark)

    def _check(self, window_keys, events, clock) -> None:
        """Invariants (``window_keys``: the ids the owner holds; ``events``: its events
        counted; ``clock``): no waiting or unmatched id held; the waits in order, none
        run out; the memory within `ORPHANS`."""
        orphans = self.orphans
        assert len(orphans) <= ORPHANS and not set(orphans.mark) & window_keys
        assert {k for k, _ in orphans.rows()} == set(orphans.mark)
        if self.waits is None:
            return
        held = set(self.waits.held)
        assert not held & window_keys
        rows = self.waits.rows()
        assert len(rows) == len(held)
        starts = [r[3] for r in rows]
        assert starts == sorted(starts)
        if self.label_wait is not None:
            assert len(self.waits.order) <= self.label_wait
            assert all(s > events - 1 - self.label_wait for s in starts)
        elif clock is not None:
            assert all(s > clock - self.label_wait_period for s in starts)
