"""How a `streamrank.monitor.Monitor` writes itself into a snapshot and is rebuilt from
one: `MonitorState`, a base of `Monitor`, in the one format of every monitor
(`streamrank.monitor._format`, whose docstring lists the arrays).

A `Monitor` node holds ``config`` (the settings, the detector as `_dump_detector` stores
it), ``state`` (clock, counters by name, history, alerts, and the detector's flags and
exact state: River's ADWIN and Page-Hinkley, `streamrank.monitor.detectors.detector_state`),
its window's predictions as columns (keys stored exactly), the frozen reference window or
the ``reference=N`` store, the scores' reference (``score_drift``), the ids evicted
lately, its join (the labels waiting for their prediction, the ids of the unmatched
labels), and for another River detector the series it was fed (replayed on load).
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import describe
from . import counters
from ..structures._cpairwindow import estimate_rows
from ._format import Out
from ._join import Join
from ._reference import _Reference
from ._report import Report
from ._scores import ScoreReference
from ._settings import SETTINGS
from .detectors import _dump_detector, _load_detector, detector_state, restore_state

__all__ = ["MonitorState"]

_NAN = math.nan
_STATE = {"clock", "stats", "history", "alerts", "detector"}


class MonitorState:
    """`Monitor`'s node of a snapshot: `_write` and `_read` (the format is
    `streamrank.monitor._format`'s)."""

    def _write(self, out: Out) -> None:
        """Write this monitor's node into ``out``: ``O(W + H + log F)`` (``O(F)`` for a
        replayed detector's series)."""
        keys, times, ys, ss, ws = [], [], [], [], []
        for key, y, s, w, t in self.items():
            keys.append(key)
            times.append(_NAN if t is None else t)
            ys.append(_NAN if y is None else y)
            ss.append(s)
            ws.append(w)
        f64 = np.float64
        config = {name: getattr(self, name) for name in SETTINGS}
        config["detector"] = _dump_detector(self.detector)
        out.json("config", config)
        out.json("state", {
            "clock": self._clock, "stats": self.stats,
            "history": [r._to_row() for r in self.history],
            "alerts": [r._to_row() for r in self.alerts],
            "detector": {"fired": self._drift_since_report, "last": self._last_detection,
                         "state": None if self._detector is None or self._replay
                         else detector_state(self._detector)}})
        out.keys("keys", keys)
        out.put(times=np.array(times, dtype=f64), y=np.array(ys, dtype=f64),
                s=np.array(ss, dtype=f64), w=np.array(ws, dtype=f64))
        self._write_reference(out)
        self._write_scores(out)
        gone = self._gone.rows()
        out.keys("gone_keys", [k for k, _ in gone])
        out.put(gone_mark=np.array([g for _, g in gone], dtype=f64),
                series=np.array(self._series, dtype=f64))
        out.put(**self._join.to_arrays(out.func))

    def _write_reference(self, out: Out) -> None:
        """The frozen reference (``ref_*``), or the ``reference=N`` store (``store_*``:
        the evicted entries first, without a key, then those still in the window)."""
        ref = self._ref
        if ref is None and (self._ref_store or self._ref_left):
            rkeys = list(self._ref_store)
            ry, rs, rw = (list(col) for col in zip(*self._ref_left,
                                                     *self._ref_store.values()))
        else:
            rkeys, ry, rs, rw = [], [], [], []
        f64, empty = np.float64, np.empty(0)
        out.put(ref_frozen=np.array(ref is not None),
                ref_y=empty if ref is None else ref.y,
                ref_s=empty if ref is None else ref.s,
                ref_w=empty if ref is None else ref.w)
        out.keys("store_keys", rkeys)
        out.put(store_y=np.array(ry, dtype=f64), store_s=np.array(rs, dtype=f64),
                store_w=np.array(rw, dtype=f64))

    def _write_scores(self, out: Out) -> None:
        """The scores' reference (``score_ref_*``): frozen, or the scores evicted so far
        towards ``score_reference=N``."""
        ref = self._sref
        if ref is not None:
            s, w = ref.s, ref.w
        elif self._sref_left:
            s, w = (np.array(col, dtype=np.float64) for col in zip(*self._sref_left))
        else:
            s = w = np.empty(0)
        out.put(score_ref_frozen=np.array(ref is not None), score_ref_s=s, score_ref_w=w)

    def _read_scores(self, snap) -> None:
        """The scores' reference, checked (before the reference: the per-event paths
        wait for both)."""
        frozen = snap.flag("score_ref_frozen")
        s = snap.floats("score_ref_s")
        w = snap.floats("score_ref_w", s.size, nonnegative=True)
        n = self.score_reference
        if frozen:      # the first full window (one prediction or more), or the first n
            ok = self.score_drift and s.size >= 1 and (n is None or s.size == n)
        else:           # nothing, or the first evicted of the first n
            ok = not s.size or (self.score_drift and n is not None and s.size < n
                                and s.size <= self.stats["evicted"])
        if not ok:
            raise snap.corrupt("a scores' reference the settings do not keep")
        if frozen:
            self._set_score_reference(ScoreReference(s, w))
        else:
            self._sref_left = list(zip(s.tolist(), (_num(v) for v in w.tolist())))

    @classmethod
    def _read(cls, snap):
        """A monitor rebuilt from its node in ``snap`` (a `streamrank._snapshot.Snapshot`
        or a section of one), or ``snap.corrupt``: ``O(W log W + H)`` (plus the replay of
        a series, ``O(F)``)."""
        config, state = snap.json("config"), snap.json("state")
        if not (type(config) is dict and set(config) == set(SETTINGS)
                and type(state) is dict and set(state) == _STATE):
            raise snap.corrupt("the settings or the state are not those to_bytes writes")
        clock = state["clock"]
        if not (clock is None or type(clock) in (int, float) and math.isfinite(clock)):
            raise snap.corrupt(f"bad clock {describe(clock)}")
        stats = counters.from_snapshot(snap, state["stats"], counters.MONITOR)
        m = cls(detector=_load_detector(config["detector"], snap),
                **{k: v for k, v in config.items() if k != "detector"})
        keys, times, ys, ss, ws = m._read_window(snap, clock)
        m._clock = clock
        m.stats.update(stats)       # (the dict the join counts into)
        # the join and the ids evicted lately (before the reference: the per-event
        # paths stay off while a label waits)
        m._join.load_arrays(snap, Join.read_arrays(snap), set(keys))
        m._read_gone(snap)
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
        if m.estimate:                  # and the estimates' engines theirs
            for est, labeled in zip(m._est, (False, True)):
                est.add_many(*estimate_rows(*win.columns(labeled)), "Monitor.from_bytes")
        m._read_scores(snap)
        m._read_reference(snap, keys)
        if not (type(state["history"]) is list and type(state["alerts"]) is list):
            raise snap.corrupt("the history is not a list of reports")
        m.history.extend(Report._from_row(r) for r in state["history"])
        m.alerts.extend(Report._from_row(r) for r in state["alerts"])
        m._read_detector(snap, state["detector"])
        return m

    def _read_window(self, snap, clock) -> tuple:
        """The window's columns, checked: distinct keys, finite scores (probabilities with
        ``estimate``), weights >= 0, no prediction the window would have evicted by its
        clock."""
        keys = snap.keys("keys")
        n = len(keys)
        times = snap.floats("times", n, finite=False)
        ys = snap.floats("y", n, finite=False)
        ss, ws = snap.floats("s", n), snap.floats("w", n, nonnegative=True)
        if np.isinf(times).any() or np.isinf(ys).any():
            raise snap.corrupt("a time or a label is infinite")
        if len(set(keys)) != n:
            raise snap.corrupt("a key is stored twice")
        if self.estimate and ((ss < 0) | (ss > 1)).any():
            raise snap.corrupt("a score is not a probability (the monitor keeps an "
                               "estimate)")
        period = self.period
        if period is None and n > self.window or period is not None and n and not (
                clock is not None and not np.isnan(times).any()
                and (np.diff(times) >= 0).all() and times[0] > clock - period):
            raise snap.corrupt("the window holds predictions it would have evicted")
        return keys, times, ys, ss, ws

    def _read_gone(self, snap) -> None:
        """The ids evicted lately, with their marks (events, or times with a period)."""
        gone_keys = snap.keys("gone_keys")
        gone_mark = snap.floats("gone_mark", len(gone_keys))
        if (np.diff(gone_mark) < 0).any():
            raise snap.corrupt("the evicted ids are not those to_bytes writes")
        for key, mark in zip(gone_keys, gone_mark.tolist()):
            self._gone.note(key, int(mark) if self.period is None else mark)

    def _read_reference(self, snap, keys) -> None:
        """The frozen reference, or the ``reference=N`` store (``keys``: the window's)."""
        frozen = snap.flag("ref_frozen")
        ref_y = snap.floats("ref_y")
        ref_s, ref_w = snap.floats("ref_s", ref_y.size), snap.floats("ref_w", ref_y.size)
        store_keys = snap.keys("store_keys")
        store_y = snap.floats("store_y")
        store_s = snap.floats("store_s", store_y.size)
        store_w = snap.floats("store_w", store_y.size, nonnegative=True)
        if len(set(store_keys)) != len(store_keys) or not set(store_keys) <= set(keys) \
                or len(store_keys) > store_y.size:
            raise snap.corrupt("the reference store does not match the window")
        if ref_y.size and not frozen or store_y.size and (frozen or self.reference is None):
            raise snap.corrupt("a reference store without reference=N, or next to a "
                               "frozen reference")
        if frozen:
            self._set_reference(_Reference(ref_y, ref_s, ref_w))
        store = [[y, s, _num(w)] for y, s, w in zip(store_y.tolist(), store_s.tolist(),
                                                   store_w.tolist())]
        left = len(store) - len(store_keys)     # the evicted entries come first
        self._ref_left = store[:left]
        self._ref_store = dict(zip(store_keys, store[left:]))

    def _read_detector(self, snap, saved) -> None:
        """The detector: its exact state, or a replay of its series (a River detector
        without a state streamrank can store); the flags of its last detection."""
        series = snap.floats("series")
        det = self._detector
        last = saved.get("last") if type(saved) is dict else None
        if not (type(saved) is dict and set(saved) == {"fired", "last", "state"}
                and type(saved["fired"]) is bool
                and (last is None or type(last) is int and last >= 0)):
            raise snap.corrupt("the detector's flags are damaged")
        self._drift_since_report, self._last_detection = saved["fired"], last
        if saved["state"] is not None:
            if det is None or self._replay or series.size:
                raise snap.corrupt("a detector state without a detector that has one")
            restore_state(det, saved["state"], snap)
            return
        if det is None:
            if series.size:
                raise snap.corrupt("a detector series without a detector")
            return
        for v in series.tolist():
            det.update(v)
        if self._replay:
            self._series = series.tolist()


def _num(w):
    w = float(w)
    return int(w) if w.is_integer() else w
