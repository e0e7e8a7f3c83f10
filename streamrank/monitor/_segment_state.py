"""The snapshot of a `streamrank.monitor.SegmentedMonitor`: `SegmentedMonitor.to_bytes` and
`SegmentedMonitor.from_bytes`.

One ``np.savez`` archive (`streamrank._snapshot`: no pickled objects), format
``"streamrank.SegmentedMonitor"``, version 5 (the only one read: the earlier ones, of
development versions never released, are refused with the version error): the settings
and the state (clock, statistics, history) as JSON, the segment values (stored exactly,
as keys), the segment values given with the pooled unit's predictions (same order as its
window), and the units' own snapshots (an empty template first, then each segment's, the pooled one
last) concatenated in one byte array with their offsets. The id map is rebuilt from
the windows' contents, plus its entries of ids in no window (``stale``, with their
segments: the ids evicted lately that a late label must find). The wrapper's join (its
label wait and the ids of its unmatched labels) is the section every monitor writes
(`streamrank.monitor._join.Join.to_arrays`); version 5 has it in place of version 4's
JSON lists.
"""

from __future__ import annotations

import json
import math

import numpy as np

from .. import _snapshot
from .._validation import describe
from . import counters
from ._join import Join
from ._monitor import Monitor
from ._paired import PairedMonitor
from ._segment_report import CORRECTIONS, WEIGHTINGS, SegmentedReport

_FORMAT = "streamrank.SegmentedMonitor"
_VERSION = 5
_CONFIG = {"max_segments", "correction", "weighting", "unit"}


def dump(m) -> bytes:
    """`SegmentedMonitor.to_bytes` of ``m`` (brought up to its clock already)."""
    func = "SegmentedMonitor.to_bytes"
    names = list(m.units)
    index = {name: i for i, name in enumerate(names)}
    index[m.OTHER] = len(names)
    blobs = [m._template] + [u.to_bytes() for u in m.units.values()]
    pooled = []
    if m._other is not None:
        blobs.append(m._other.to_bytes())
        pooled = [m._where[key][0] for key, *_ in m._other.items()]
    offsets = np.zeros(len(blobs) + 1, dtype=np.int64)
    np.cumsum([len(b) for b in blobs], out=offsets[1:])
    config = {"max_segments": m.max_segments, "correction": m.correction,
              "weighting": m.weighting, "unit": m._unit_type.__qualname__}
    live = {key for _, u in m._all() for key, *_ in u.items()}
    stale = [(k, v[0]) for k, v in m._where.items() if k not in live]
    state = {"clock": m._clock, "stats": m.stats,
             "segment_alerts": [[index[k], v] for k, v in m.segment_alerts.items()],
             "history": [r._to_row(index) for r in m.history],
             "alerts": [r._to_row(index) for r in m.alerts]}
    return _snapshot.dump(
        _FORMAT, _VERSION, config=np.array(json.dumps(config)),
        state=np.array(json.dumps(state)), **_snapshot.key_arrays(names, "segments", func),
        **_snapshot.key_arrays(pooled, "pooled", func),
        **_snapshot.key_arrays([k for k, _ in stale], "stale", func),
        **_snapshot.key_arrays([g for _, g in stale], "stale_segments", func),
        **m._join.to_arrays(func),
        other=np.array(m._other is not None),
        units=np.frombuffer(b"".join(blobs), dtype=np.uint8), unit_offsets=offsets)


def load(cls, data: bytes, unit_type):
    """`SegmentedMonitor.from_bytes`: a ``cls`` restored from ``data`` with units of
    ``unit_type`` (None: `Monitor` or `PairedMonitor`, as stored), or a
    `streamrank.exceptions.SnapshotError`."""
    snap = _snapshot.load(data, _FORMAT, _VERSION, "SegmentedMonitor.from_bytes",
                          oldest=_VERSION)
    config, state = snap.json("config"), snap.json("state")
    names = snap.keys("segments")
    pooled = snap.keys("pooled")
    stale, stale_segs = snap.keys("stale"), snap.keys("stale_segments")
    join = Join.read_arrays(snap)
    other = snap.flag("other")
    buf = snap.array("units", "u", itemsize=1).tobytes()
    off = snap.array("unit_offsets", "i", itemsize=8)
    snap.finish()
    if not (type(config) is dict and set(config) == _CONFIG and type(state) is dict
            and set(state) == {"clock", "stats", "segment_alerts", "history", "alerts"}
            and config["correction"] in CORRECTIONS
            and config["weighting"] in WEIGHTINGS):
        raise snap.corrupt("the settings or the state are not those to_bytes writes")
    if unit_type is None:       # the units' class, by its name (one of the package's)
        unit_type = {"Monitor": Monitor, "PairedMonitor": PairedMonitor}.get(
            config["unit"], Monitor)
    if config["unit"] != unit_type.__qualname__:
        raise snap.corrupt(f"its units are {describe(config['unit'])}, not "
                           f"{unit_type.__qualname__} (pass unit_type=)")
    count = 1 + len(names) + bool(other)
    if not (off.size == count + 1 and off[0] == 0 and off[-1] == len(buf)
            and (np.diff(off) >= 0).all()):
        raise snap.corrupt("array 'unit_offsets' does not split the units' bytes")
    if len(set(names)) != len(names) or cls.OTHER in names:
        raise snap.corrupt("a segment is stored twice, or under the pooled name")
    bounds = off.tolist()
    blobs = [buf[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
    clock, stats = state["clock"], state["stats"]
    if not (clock is None or type(clock) in (int, float) and math.isfinite(clock)):
        raise snap.corrupt(f"bad clock {describe(clock)}")
    stats = counters.from_snapshot(snap, stats, counters.SEGMENTED)
    template = blobs[0]
    units = [unit_type.from_bytes(b) for b in blobs[1:]]
    with snap.rebuild():
        m = cls(max_segments=config["max_segments"], correction=config["correction"],
                weighting=config["weighting"],
                factory=lambda: unit_type.from_bytes(template))
        if len(names) > m.max_segments:
            raise snap.corrupt("more segments than max_segments")
        m.units = dict(zip(names, units[:len(names)]))
        m._other = units[-1] if other else None
        m._clock = clock
        m.stats.update(stats)       # (the dict the join counts into)
        for name, unit in m._all():
            if unit.clock != clock and not (clock is not None and unit.clock is not None
                                            and unit.clock <= clock):
                raise snap.corrupt(f"segment {name!r} has a clock beyond the monitor's")
            keys = [(key, t) for key, *_, t in unit.items()]
            if name == m.OTHER:
                if len(pooled) != len(keys):
                    raise snap.corrupt("the pooled segments do not match the window")
                segs = pooled
            else:
                segs = [name] * len(keys)
            for (key, t), seg in zip(keys, segs):
                if key in m._where:
                    raise snap.corrupt(f"id {key!r} is in two segments' windows")
                m._where[key] = (seg, t)
        m._join.load_arrays(snap, join, set(m._where))     # (the map: live)
        _load_stale(m, snap, stale, stale_segs)
        m._sweep_at = max(m._sweep_at, 2 * len(m._where))
        order = list(names) + [m.OTHER]
        counts = state["segment_alerts"]
        if not (type(counts) is list and all(
                type(c) is list and len(c) == 2 and type(c[0]) is int
                and 0 <= c[0] < len(order) and type(c[1]) is int and c[1] > 0
                for c in counts)):
            raise snap.corrupt("the segments' alert counts are not those to_bytes writes")
        m.segment_alerts = {order[i]: c for i, c in counts}
        for dest, rows in ((m.history, state["history"]), (m.alerts, state["alerts"])):
            if type(rows) is not list:
                raise snap.corrupt("the history is not a list of reports")
            dest.extend(SegmentedReport._from_row(r, order) for r in rows)
    return m


def _load_stale(m, snap, stale, stale_segs) -> None:
    """The id map's entries of ids in no window (evicted lately), with their segments."""
    if len(stale) != len(stale_segs) or len(set(stale)) != len(stale) \
            or set(stale) & set(m._where):
        raise snap.corrupt("the ids in no window are not those to_bytes writes")
    for key, seg in zip(stale, stale_segs):
        m._where[key] = (seg, None)
