"""The join side of `streamrank.monitor.Monitor`: which predictions its window holds
and has evicted lately, and its part of the label wait (`streamrank.monitor._join.Join`).

A mixin of `Monitor` (its methods read the window, the clock and the join of the
monitor they belong to), apart so that `Monitor`'s module keeps the events, the
reference and the reports; `streamrank.monitor.PairedMonitor` and
`streamrank.monitor.SegmentedMonitor` ask a model these questions before they route an
event (`holds`, `prediction`, `check_label`, `left_lately`).
"""

from __future__ import annotations

from collections.abc import Hashable

from .._typing import Count, Number
from .._validation import param_error

__all__ = ["HELD", "JoinSide"]

#: What `JoinSide._wait_step` returns for an event that waits (`Monitor.observe` returns
#: at once).
HELD = object()


class JoinSide:
    """`Monitor`'s questions and steps of the join (module docstring)."""

    __slots__ = ()

    @property
    def waiting(self) -> int:
        """Labels (or weights) waiting for their prediction now (0 without a label
        wait)."""
        return len(self._join)

    def _check_binary(self, label, row, evict, func="Monitor.observe") -> None:
        """Raise if ``label`` would be a third label value after this event's evictions
        (``row``: the event's prediction, -1 for none)."""
        after = {y: c[0] for y, c in self._win.classes.items()}
        for y in self._win.oldest_labels(evict):   # O(evict)
            if y == y:
                after[y] -= 1
        if row >= 0:
            y = self._win.store.value(row)[1]
            if y == y:
                after[y] -= 1
        held = {y for y, c in after.items() if c > 0}
        if len(held | {label}) > 2:
            raise param_error("label", func, "one of at most two labels in all "
                              "(labels='binary')", f"{label!r} with {sorted(held)} held")

    def holds(self, key: Hashable, time: Number | None = None) -> bool:
        """Whether the prediction of ``key`` is in the window, and still is once the
        clock moves to ``time`` (a ``period`` window evicts it otherwise, before the
        event applies). Changes nothing; runtime: O(1)."""
        row = self._win.store.row_of(key)
        if row < 0:
            return False
        if self.period is None or time is None or (self._clock is not None
                                                   and time <= self._clock):
            return True
        return self._win.store.value(row)[0] > time - self.period

    def prediction(self, key: Hashable) -> tuple[float | None, float, Count] | None:
        """``(label or None, score, weight)`` of the prediction of ``key`` in the window,
        None if it holds none. Runtime: O(1)."""
        row = self._win.store.row_of(key)
        if row < 0:
            return None
        _, y, s, w = self._win.store.value(row)
        return None if y != y else y, s, w

    def check_label(self, label: float, time: Number | None = None,
                    func: str = "Monitor.observe") -> None:
        """Raise as `observe` would if ``label``, given at ``time`` for an id outside the
        window, is a third label value with ``labels="binary"`` (after the evictions the
        clock's move to ``time`` causes). Changes nothing; runtime: ``O(1 + evicted)``."""
        if self.labels != "binary":
            return
        evict = 0
        if self.period is not None and time is not None and (self._clock is None
                                                             or time > self._clock):
            evict = self._win.count_through(time - self.period)
        self._check_binary(label, -1, evict, func)

    def recent_ids(self) -> set | None:
        """The ids held, or whose prediction left the window lately (`left_lately`), as a
        set: what a wrapper's id map must keep (`streamrank.monitor.SegmentedMonitor`);
        None for a ``period`` window (there "lately" moves with the clock: ask
        `left_lately`). Runtime: ``O(W)``, in C (a count window's memory of its
        evictions holds exactly the last ``window``)."""
        if self.period is not None:
            return None
        return set(self._win.store).union(self._gone.mark)

    def left_lately(self, key: Hashable) -> bool:
        """Whether the prediction of ``key`` left the window lately (changes nothing):
        among the last ``window`` predictions evicted (count windows), or evicted when the
        clock was above ``clock - period`` (``period`` windows). A label for such an id is
        late, dropped; for an id neither held nor evicted lately, unmatched (or it waits,
        with a label wait). Runtime: O(1)."""
        mark = self._gone.mark.get(key)
        if mark is None:
            return False
        if self.period is None:
            return mark > self.stats["evicted"] - self.window
        return self._clock is None or mark > self._clock - self.period

    def _joining(self, key, row, score, label, evict, time, early):
        """Before anything changes (``early``: this event waits): the wait this new
        prediction joins (None: none, or one run out at this event's bound). With
        ``labels="binary"``, a waiting label is checked here, when it would join (its
        own event was checked too)."""
        clock = self._clock
        if not early and time is not None and (clock is None or time > clock):
            clock = time
        if row >= 0 or score is None:
            return None
        join = self._join
        joined = join.waiting_for(key, join.bound(self.stats["events"], clock))
        if joined is not None and label is None and joined[0] is not None \
                and self.labels == "binary":
            self._check_binary(joined[0], row, evict)
        return joined

    def _wait_step(self, key, label, weight, joined, early, time):
        """This event's part of the label wait (after the evictions and the clock, the
        event counted): hold an ``early`` label or weight (`HELD`: `observe` returns),
        or hand a new prediction its waiting label and weight (``joined``; its own win);
        then run out the waits this event was the last chance of. Returns the ``(label,
        weight)`` the event goes on with. O(1) amortized."""
        join = self._join
        if early:
            join.hold(key, label, weight, join.start(self.stats["events"], self._clock,
                                                     time))
            self._run_out()
            self._fast = False
            return HELD, None
        if joined is not None:
            join.joined(key)
            label = joined[0] if label is None else label
            weight = joined[1] if weight is None else weight
        self._run_out()
        self._fast = self._ref is not None and self._steady()
        return label, weight

    def _run_out(self) -> None:
        """The waits that can no longer join, after each event and after the clock
        moved without one (`advance`): unmatched; and the ids evicted longer than a
        ``period`` ago forgotten. O(1) amortized."""
        clock = self._clock
        self._join.run_out(self.stats["events"], clock)
        if self.period is not None and clock is not None and len(self._gone):
            self._gone.prune(clock - self.period)

    def _check_join(self, window_keys) -> None:
        """The invariants of the memories and the label wait (``window_keys``: the
        ids in the window)."""
        gone, st = self._gone, self.stats
        if self.period is None:
            assert len(gone.order) <= self.window
        gone._check()
        assert st["early"] <= st["unmatched"]
        self._join._check(window_keys, st["events"], self._clock)
        if self._join.waits is None:    # (joined: counted by its own join, or the
            return                      # one of the pair it is a model of)
        held = set(self._join.waits.held)
        assert not held & set(gone.mark)
        assert not held or not self._fast
