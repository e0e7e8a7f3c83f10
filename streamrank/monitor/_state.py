"""The snapshot of a `streamrank.monitor.Monitor`: `Monitor.to_bytes` and `Monitor.from_bytes`.

One ``np.savez`` archive (`streamrank._snapshot`: no pickled objects), format
``"streamrank.Monitor"``: the settings and the state (clock, statistics, history) as JSON,
the window's predictions as columns (keys stored exactly), the frozen reference window or
the ``reference=N`` store, the memories of `streamrank.monitor._join` (the ids evicted
lately, the ids of the unmatched labels, and with a label wait the labels waiting for
their prediction), and the detector: whether it fired since
the last report, the event of its last detection, and its exact state (River's ADWIN and
Page-Hinkley, `streamrank.monitor.detectors.detector_state`) or, for other River
detectors, the series it was fed (replayed on load). Version 5 keeps the ids evicted
lately without a label wait too (late labels are told from unmatched ones) and adds the
ids of the unmatched labels (``orphan_keys``, ``orphan_mark``); version 4 adds the
detector's
signal (``detector_signal``); version 3 adds the label wait and the detector's state;
version 2 stores keys exactly. Only version 5 is read: the earlier ones were written by
development versions of streamrank, never released, and are refused with the version
error.
"""

from __future__ import annotations

import json
import math

import numpy as np

from .. import _snapshot
from .._validation import describe
from . import counters
from ._join import Join
from ._reference import _Reference
from ._report import Report
from ._settings import SETTINGS
from .detectors import _dump_detector, _load_detector, detector_state, restore_state

_FORMAT = "streamrank.Monitor"
_VERSION = 5    # 5: the unmatched ids; 4: detector_signal; 3: the label wait, the
#                 detector's state; 2: keys stored exactly; only 5 read
_NAN = math.nan


def dump(m) -> bytes:
    """`Monitor.to_bytes` of the monitor ``m`` (its docstring says what is stored), in
    ``O(W + H + F)``."""
    func = "Monitor.to_bytes"
    keys, times, ys, ss, ws = [], [], [], [], []
    for key, y, s, w, t in m.items():
        keys.append(key)
        times.append(_NAN if t is None else t)
        ys.append(_NAN if y is None else y)
        ss.append(s)
        ws.append(w)
    ref = m._ref
    if ref is None and (m._ref_store or m._ref_left):
        # the evicted entries first (no key), then the ones in the window
        rkeys = list(m._ref_store)
        ry, rs, rw = (list(col) for col in zip(*m._ref_left,
                                                 *m._ref_store.values()))
    else:
        rkeys, ry, rs, rw = [], [], [], []
    config = {name: getattr(m, name) for name in SETTINGS}
    config["detector"] = _dump_detector(m.detector)
    gone = m._gone.rows()
    state = {"clock": m._clock, "stats": m.stats,
             "history": [r._to_row() for r in m.history],
             "alerts": [r._to_row() for r in m.alerts],
             "detector": {"fired": m._drift_since_report, "last": m._last_detection,
                          "state": None if m._detector is None or m._replay
                          else detector_state(m._detector)}}
    f64 = np.float64
    return _snapshot.dump(
        _FORMAT, _VERSION, config=np.array(json.dumps(config)),
        state=np.array(json.dumps(state)), **_snapshot.key_arrays(keys, "keys", func),
        times=np.array(times, dtype=f64), y=np.array(ys, dtype=f64),
        s=np.array(ss, dtype=f64), w=np.array(ws, dtype=f64),
        ref_frozen=np.array(ref is not None),
        ref_y=ref.y if ref is not None else np.empty(0),
        ref_s=ref.s if ref is not None else np.empty(0),
        ref_w=ref.w if ref is not None else np.empty(0),
        **_snapshot.key_arrays(rkeys, "store_keys", func),
        store_y=np.array(ry, dtype=f64), store_s=np.array(rs, dtype=f64),
        store_w=np.array(rw, dtype=f64), series=np.array(m._series, dtype=f64),
        **_snapshot.key_arrays([k for k, _ in gone], "gone_keys", func),
        gone_mark=np.array([g for _, g in gone], dtype=f64), **m._join.to_arrays(func))



def load(cls, data: bytes):
    """`Monitor.from_bytes`: a ``cls`` (`Monitor`) restored from ``data``, or a
    `streamrank.exceptions.SnapshotError`; ``O(W log W + H + F)``."""
    snap = _snapshot.load(data, _FORMAT, _VERSION, "Monitor.from_bytes", oldest=_VERSION)
    config, state = snap.json("config"), snap.json("state")
    keys = snap.keys("keys")
    n = len(keys)
    times = snap.floats("times", n, finite=False)
    ys = snap.floats("y", n, finite=False)
    ss, ws = snap.floats("s", n), snap.floats("w", n, nonnegative=True)
    frozen = snap.flag("ref_frozen")
    ref_y = snap.floats("ref_y")
    ref_s, ref_w = snap.floats("ref_s", ref_y.size), snap.floats("ref_w", ref_y.size)
    store_keys = snap.keys("store_keys")
    store_y = snap.floats("store_y")
    store_s = snap.floats("store_s", store_y.size)
    store_w = snap.floats("store_w", store_y.size, nonnegative=True)
    series = snap.floats("series")
    gone_keys = snap.keys("gone_keys")
    gone_mark = snap.floats("gone_mark", len(gone_keys))
    join = Join.read_arrays(snap)
    snap.finish()
    if not (type(config) is dict and set(config) == set(SETTINGS) and type(state) is dict
            and set(state) == {"clock", "stats", "history", "alerts", "detector"}):
        raise snap.corrupt("the settings or the state are not those to_bytes writes")
    clock = state["clock"]
    if not (clock is None or type(clock) in (int, float) and math.isfinite(clock)):
        raise snap.corrupt(f"bad clock {describe(clock)}")
    stats = counters.from_snapshot(snap, state["stats"], counters.MONITOR)
    if np.isinf(times).any() or np.isinf(ys).any():
        raise snap.corrupt("a time or a label is infinite")
    if len(set(keys)) != n or len(set(store_keys)) != len(store_keys) \
            or not set(store_keys) <= set(keys) or len(store_keys) > store_y.size:
        raise snap.corrupt("a key is stored twice, or the reference store does not "
                           "match the window")
    if ref_y.size and not frozen or store_y.size and (frozen or config["reference"]
                                                      is None):
        raise snap.corrupt("a reference store without reference=N, or next to a "
                           "frozen reference")
    with snap.rebuild():
        m = cls(detector=_load_detector(config["detector"], snap),
                **{k: v for k, v in config.items() if k != "detector"})
        period = m.period
        if period is None and n > m.window or period is not None and n and not (
                clock is not None and not np.isnan(times).any()
                and (np.diff(times) >= 0).all() and times[0] > clock - period):
            raise snap.corrupt("the window holds predictions it would have evicted")
        m._clock = clock
        m.stats.update(stats)       # (the dict the join counts into)
        # the join and the ids evicted lately (before the reference: the per-event
        # paths stay off while a label waits)
        m._join.load_arrays(snap, join, set(keys))
        if (np.diff(gone_mark) < 0).any():
            raise snap.corrupt("the evicted ids are not those to_bytes writes")
        for key, mark in zip(gone_keys, gone_mark.tolist()):
            m._gone.note(key, int(mark) if period is None else mark)
        win = m._win
        for key, t, y, s, w in zip(keys, times.tolist(), ys.tolist(), ss.tolist(),
                                   ws.tolist()):
            win.push(t, y, s, w, key)
        lab = ~np.isnan(ys)
        if lab.any():
            wl = ws[lab]
            m._engine.add_many(ys[lab], ss[lab], None if np.all(wl == 1) else wl,
                               "Monitor.from_bytes")
        win.mark_synced()               # the engine holds the labeled rows
        if frozen:
            m._set_reference(_Reference(ref_y, ref_s, ref_w))
        store = [[y, s, _num(w)] for y, s, w in zip(store_y.tolist(), store_s.tolist(),
                                                   store_w.tolist())]
        left = len(store) - len(store_keys)     # the evicted entries come first
        m._ref_left = store[:left]
        m._ref_store = dict(zip(store_keys, store[left:]))
        if not (type(state["history"]) is list and type(state["alerts"]) is list):
            raise snap.corrupt("the history is not a list of reports")
        m.history.extend(Report._from_row(r) for r in state["history"])
        m.alerts.extend(Report._from_row(r) for r in state["alerts"])
        _restore_detector(m, state["detector"], series, snap)
    return m


def _restore_detector(m, saved, series, snap) -> None:
    """The detector of a snapshot: its exact state, or a replay of its series (a River
    detector without a state streamrank can store); the flags of its last detection."""
    det = m._detector
    last = saved.get("last") if type(saved) is dict else None
    if not (type(saved) is dict and set(saved) == {"fired", "last", "state"}
            and type(saved["fired"]) is bool
            and (last is None or type(last) is int and last >= 0)):
        raise snap.corrupt("the detector's flags are damaged")
    m._drift_since_report, m._last_detection = saved["fired"], last
    if saved["state"] is not None:
        if det is None or m._replay or series.size:
            raise snap.corrupt("a detector state without a detector that has one")
        restore_state(det, saved["state"], snap)
        return
    if det is None:
        if series.size:
            raise snap.corrupt("a detector series without a detector")
        return
    for v in series.tolist():
        det.update(v)
    if m._replay:
        m._series = series.tolist()


def _num(w):
    w = float(w)
    return int(w) if w.is_integer() else w
