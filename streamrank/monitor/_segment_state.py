"""How a `streamrank.monitor.SegmentedMonitor` writes itself into a snapshot and is
rebuilt from one: `SegmentState`, a base of `SegmentedMonitor`, in the one format of every
monitor (`streamrank.monitor._format`).

A segmented monitor's node holds ``config`` (JSON: ``max_segments``, ``correction``,
``weighting``, and ``unit``, the units' class), ``state`` (JSON: the shared clock, the
counters by name, the alert count of each segment, the history and alerts), its join
(the label wait of labels without a segment, the ids of its unmatched labels), its
routes (the segment values, stored exactly as keys; the segment given with each pooled
prediction, in the pooled window's order; the ids in no window that the id map still
holds, evicted lately, with their segments) and its units' nodes: ``template/`` (an empty
unit, as every new segment starts), ``segment/0/``, ``segment/1/``, ... in the order of
`SegmentedMonitor.segments`, and ``pooled/``. The id map is rebuilt from the windows and
the stale ids.
"""

from __future__ import annotations

import math

from .._validation import describe
from . import counters
from ._format import Out
from ._join import Join
from ._monitor import Monitor
from ._paired import PairedMonitor
from ._segment_report import CORRECTIONS, WEIGHTINGS, SegmentedReport

__all__ = ["SegmentState"]

_CONFIG = {"max_segments", "correction", "weighting", "unit"}
_STATE = {"clock", "stats", "segment_alerts", "history", "alerts"}
#: The units' classes, by the name a snapshot stores.
_UNITS = {"Monitor": Monitor, "PairedMonitor": PairedMonitor}


class SegmentState:
    """`SegmentedMonitor`'s node of a snapshot: `_write` and `_read`."""

    def _write(self, out: Out) -> None:
        """Write the node into ``out`` (the monitor brought up to its clock already):
        ``O(W + H + F)`` over all units."""
        names = list(self.units)
        index = {name: i for i, name in enumerate(names)}
        index[self.OTHER] = len(names)
        out.json("config", {"max_segments": self.max_segments,
                            "correction": self.correction, "weighting": self.weighting,
                            "unit": self._unit_type.__qualname__})
        out.json("state", {
            "clock": self._clock, "stats": self.stats,
            "segment_alerts": [[index[k], v] for k, v in self.segment_alerts.items()],
            "history": [r._to_row(index) for r in self.history],
            "alerts": [r._to_row(index) for r in self.alerts]})
        out.put(**self._join.to_arrays(out.func))
        out.keys("segments", names)
        other = self._other
        out.keys("pooled", [] if other is None else
                 [self._where[key][0] for key, *_ in other.items()])
        live = {key for _, u in self._all() for key, *_ in u.items()}
        stale = [(k, v[0]) for k, v in self._where.items() if k not in live]
        out.keys("stale", [k for k, _ in stale])
        out.keys("stale_segments", [g for _, g in stale])
        self.template()._write(out.section("template"))
        for i, unit in enumerate(self.units.values()):
            unit._write(out.section(f"segment/{i}"))
        if other is not None:
            other._write(out.section("pooled"))

    @classmethod
    def _read(cls, snap, unit_type=None):
        """A segmented monitor rebuilt from its node in ``snap``, with units of
        ``unit_type`` (None: as stored), or ``snap.corrupt``."""
        config, state = snap.json("config"), snap.json("state")
        if not (type(config) is dict and set(config) == _CONFIG and type(state) is dict
                and set(state) == _STATE and config["correction"] in CORRECTIONS
                and config["weighting"] in WEIGHTINGS):
            raise snap.corrupt("the settings or the state are not those to_bytes writes")
        if unit_type is None:
            unit_type = _UNITS.get(config["unit"], Monitor)
        if config["unit"] != unit_type.__qualname__:
            raise snap.corrupt(f"its units are {describe(config['unit'])}, not "
                               f"{unit_type.__qualname__} (pass unit_type=)")
        clock = state["clock"]
        if not (clock is None or type(clock) in (int, float) and math.isfinite(clock)):
            raise snap.corrupt(f"bad clock {describe(clock)}")
        stats = counters.from_snapshot(snap, state["stats"], counters.SEGMENTED)
        names = snap.keys("segments")
        if len(set(names)) != len(names) or cls.OTHER in names:
            raise snap.corrupt("a segment is stored twice, or under the pooled name")
        template = unit_type._read(snap.section("template")).to_bytes()
        m = cls(max_segments=config["max_segments"], correction=config["correction"],
                weighting=config["weighting"],
                factory=lambda: unit_type.from_bytes(template))
        if len(names) > m.max_segments:
            raise snap.corrupt("more segments than max_segments")
        m.units = {name: unit_type._read(snap.section(f"segment/{i}"))
                   for i, name in enumerate(names)}
        pooled = snap.keys("pooled")
        m._other = unit_type._read(snap.section("pooled")) if snap.has("pooled/config") \
            else None
        m._clock = clock
        m.stats.update(stats)       # (the dict the join counts into)
        m._read_routes(snap, pooled)
        m._read_reports(snap, state, list(names) + [m.OTHER])
        return m

    def _read_routes(self, snap, pooled) -> None:
        """The id map: each window's ids, with the segment given (``pooled``: those of the
        pooled window's predictions), then the stale ids; the join."""
        clock = self._clock
        for name, unit in self._all():
            if unit.clock != clock and not (clock is not None and unit.clock is not None
                                            and unit.clock <= clock):
                raise snap.corrupt(f"segment {name!r} has a clock beyond the monitor's")
            keys = [(key, t) for key, *_, t in unit.items()]
            if name == self.OTHER:
                if len(pooled) != len(keys):
                    raise snap.corrupt("the pooled segments do not match the window")
                segs = pooled
            else:
                segs = [name] * len(keys)
            for (key, t), seg in zip(keys, segs):
                if key in self._where:
                    raise snap.corrupt(f"id {key!r} is in two segments' windows")
                self._where[key] = (seg, t)
        if self._other is None and pooled:
            raise snap.corrupt("the pooled segments do not match the window")
        self._join.load_arrays(snap, Join.read_arrays(snap), set(self._where))  # (live)
        stale, stale_segs = snap.keys("stale"), snap.keys("stale_segments")
        if len(stale) != len(stale_segs) or len(set(stale)) != len(stale) \
                or set(stale) & set(self._where):
            raise snap.corrupt("the ids in no window are not those to_bytes writes")
        for key, seg in zip(stale, stale_segs):
            self._where[key] = (seg, None)
        self._sweep_at = max(self._sweep_at, 2 * len(self._where))

    def _read_reports(self, snap, state, order) -> None:
        """The segments' alert counts, the history and the alerts (segments by their
        index in ``order``)."""
        counts = state["segment_alerts"]
        if not (type(counts) is list and all(
                type(c) is list and len(c) == 2 and type(c[0]) is int
                and 0 <= c[0] < len(order) and type(c[1]) is int and c[1] > 0
                for c in counts)):
            raise snap.corrupt("the segments' alert counts are not those to_bytes writes")
        self.segment_alerts = {order[i]: c for i, c in counts}
        for dest, rows in ((self.history, state["history"]),
                           (self.alerts, state["alerts"])):
            if type(rows) is not list:
                raise snap.corrupt("the history is not a list of reports")
            dest.extend(SegmentedReport._from_row(r, order) for r in rows)
