"""The wrapper's part of the join in `streamrank.monitor.SegmentedMonitor`: a label or
weight for an id in no window, whose event names no segment with a unit, is counted (or
waits) at the wrapper, by the units' rules (`streamrank.monitor._join.Join`); a late one
finds its segment in the id map, whose sweep (`UnroutedSide._sweep`) keeps the ids the
units hold or evicted lately.

A mixin of `SegmentedMonitor` (its methods read the id map, the units and the shared
clock of the wrapper they belong to), apart so that the wrapper's module keeps the
routing, the reports and the snapshot.
"""

from __future__ import annotations

from .._validation import check_scalar, check_weight, param_error

__all__ = ["UnroutedSide"]


_SWEEP_MIN = 1024       # the id map is swept when it exceeds max(this, 2 x live ids)


class UnroutedSide:
    """`SegmentedMonitor`'s steps for labels without a unit (module docstring)."""

    __slots__ = ()

    def _gone_lately(self, key, where) -> bool:
        """Whether the prediction of ``key`` (``where``: its entry in the id map, None if
        none; the id is in no live window) left its segment's window lately, or leaves at
        this event (still held, but out of the period at its time). Brings that unit up
        to the shared clock (as evicting at every event would)."""
        if where is None:
            return False
        unit = self._unit_of(where[0])
        if unit is None:
            return False
        if key in unit:
            return True
        if self._clock is not None:
            unit.advance(self._clock)
        return unit.left_lately(key)

    def _bound(self, time) -> float:
        """This event's bound of the wait for the prediction it brings, before it is
        counted (its clock: the later of the clock and ``time``)."""
        clock = self._clock
        if time is not None and (clock is None or time > clock):
            clock = time
        return self._join.bound(self.stats["events"], clock)

    def _unrouted(self, key, label, weight, time, where) -> None:
        """An event for an id in no window, without a segment that has a unit (checked
        first as a `Monitor` checks one; ``where``: the id's entry in the id map, None if
        none): late, unmatched, or waiting (the wrapper's join, the units' rules)."""
        func = "SegmentedMonitor.observe"
        if key is None:
            raise param_error("key", func, "an id (a hashable value other than None)",
                              "None", TypeError)
        if label is None and weight is None:
            raise ValueError(f"{func}: an event needs a score, a label or a weight; got "
                             f"none for key {key!r}.")
        if label is not None:
            check_scalar(label, "label", func)
        if weight is not None:
            check_weight(weight, func, "weight")
        join, st = self._join, self.stats
        late = self._gone_lately(key, where)
        if join.waits is not None and not late:     # it waits (moving no clock)
            st["events"] += 1
            join.hold(key, label, weight, join.start(st["events"], self._clock, time))
            join.run_out(st["events"], self._clock)
            return
        if time is not None and (self._clock is None or time > self._clock):
            self._clock = time
        st["events"] += 1
        if late:
            join.dropped()
        else:
            join.unmatched(key, st["events"])
        join.run_out(st["events"], self._clock)

    def _sweep(self) -> None:
        """Drop the ids whose prediction has left its window and is not among its
        unit's ids evicted lately (which a late label must find):
        ``O(M)`` for ``M`` ids, once the map has doubled since the last sweep (amortized
        ``O(1)``; the ids evicted lately are at most a window's)."""
        self._sync()
        recent = {name: unit.recent_ids() for name, unit in self._all()}
        if any(ids is None for ids in recent.values()):     # (period windows)
            gone = self._gone_lately
            self._where = {k: v for k, v in self._where.items()
                           if k in self._unit_of(v[0]) or gone(k, v)}
        else:           # a segment's ids in its unit (or the pooled one), held or gone
            pooled = recent.pop(self.OTHER, set())
            self._where = {k: v for k, v in self._where.items()
                           if k in recent.get(v[0], pooled)}
        self._sweep_at = max(_SWEEP_MIN, 2 * len(self._where))
