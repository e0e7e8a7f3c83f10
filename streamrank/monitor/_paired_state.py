"""The snapshot of a `streamrank.monitor.PairedMonitor`: `PairedMonitor.to_bytes` and
`PairedMonitor.from_bytes`.

One ``np.savez`` archive (`streamrank._snapshot`: no pickled objects), format
``"streamrank.PairedMonitor"`` version 2: ``config`` (JSON: ``alert_on``, ``label_wait``,
``label_wait_period``), the pair's join (`streamrank.monitor._join.Join.to_arrays`: the
labels waiting, the ids of the unmatched ones), ``state``
(JSON: the pair's statistics, whether both windows hold the same ids in the same
order, the paired fields of each report of its history, and its
alerts whole: both models' report rows and the paired fields), and ``champion`` /
``challenger``, each model's `Monitor.to_bytes` as bytes. The history's reports are
rebuilt from the paired fields and the models' own histories, which hold one report per
paired report (the same ``max_history``). Version 1 (a label wait in each model) is
refused.
"""

from __future__ import annotations

import json
from collections import deque

import numpy as np

from .. import _snapshot
from ..exceptions import SnapshotError
from . import counters
from ._join import Join
from ._monitor import Monitor
from ._paired_report import PairedReport
from ._report import Report
from ._settings import same_settings

__all__ = ["FORMAT", "dump", "load", "same_rows"]

FORMAT = "streamrank.PairedMonitor"
_VERSION = 2


def dump(m) -> bytes:
    """`PairedMonitor.to_bytes` of ``m``, in ``O(W + H + F)``."""
    state = {"stats": m.stats, "aligned": m._aligned, "history": [r._to_row() for r in m.history],
             "alerts": [[r.champion._to_row(), r.challenger._to_row(), r._to_row()]
                        for r in m.alerts]}
    u8 = np.uint8
    config = {"alert_on": m.alert_on, "label_wait": m.label_wait,
              "label_wait_period": m.label_wait_period}
    return _snapshot.dump(
        FORMAT, _VERSION, config=np.array(json.dumps(config)),
        state=np.array(json.dumps(state)), **m._join.to_arrays("PairedMonitor.to_bytes"),
        champion=np.frombuffer(m.champion.to_bytes(), dtype=u8),
        challenger=np.frombuffer(m.challenger.to_bytes(), dtype=u8))


def load(cls, data: bytes):
    """`PairedMonitor.from_bytes`: a ``cls`` restored from ``data``, or a
    `SnapshotError`; ``O(W log W + H + F)``."""
    func = "PairedMonitor.from_bytes"
    snap = _snapshot.load(data, FORMAT, _VERSION, func, oldest=_VERSION)
    config, state = snap.json("config"), snap.json("state")
    join = Join.read_arrays(snap)
    a_bytes = snap.array("champion", "u", itemsize=1).tobytes()
    b_bytes = snap.array("challenger", "u", itemsize=1).tobytes()
    snap.finish()
    if not (type(config) is dict
            and set(config) == {"alert_on", "label_wait", "label_wait_period"}
            and type(state) is dict
            and set(state) == {"stats", "aligned", "history", "alerts"}
            and type(state["aligned"]) is bool
            and type(state["history"]) is list and type(state["alerts"]) is list):
        raise snap.corrupt("the settings or the state are not those to_bytes writes")
    stats = counters.from_snapshot(snap, state["stats"], counters.PAIRED)
    try:
        a, b = Monitor.from_bytes(a_bytes), Monitor.from_bytes(b_bytes)
    except SnapshotError as exc:
        raise snap.corrupt(f"a model's monitor: {exc}") from None
    with snap.rebuild():
        m = cls(**config)
        _check_same(snap, a, b)
        m.champion, m.challenger = a, b
        m._share_counts()
        held = {k for k, *_ in a.items()} | {k for k, *_ in b.items()}
        m._join.load_arrays(snap, join, held)
        m.history = deque(maxlen=a.max_history)
        m.alerts = deque(maxlen=a.max_history)
        m.stats = stats
        m._aligned = state["aligned"]
        if m._aligned and not same_rows(a._win.items(), b._win.items(), a.period):
            raise snap.corrupt("the windows hold other ids, but are said to be aligned")
        rows = state["history"]
        if not len(rows) == len(a.history) == len(b.history):
            raise snap.corrupt("the history does not pair the models' reports")
        m.history.extend(PairedReport._from_row(r, ra, rb)
                         for r, ra, rb in zip(rows, a.history, b.history))
        for entry in state["alerts"]:
            if not (type(entry) is list and len(entry) == 3):
                raise snap.corrupt("an alert is not a pair of reports")
            m.alerts.append(PairedReport._from_row(entry[2], Report._from_row(entry[0]),
                                                   Report._from_row(entry[1])))
    return m


def _check_same(snap, a, b) -> None:
    if not same_settings(a, b):
        raise snap.corrupt("the champion's and the challenger's settings differ")
    if a.label_wait is not None or a.label_wait_period is not None:
        raise snap.corrupt("a model has a label wait of its own (the pair's is shared)")


def same_rows(ia, ib, period) -> bool:
    """Whether two windows' rows (``RowWindow.items()``: key, time, ...) hold the same ids
    in the same order, and with a ``period`` window at the same times too (then they
    evict alike: a count window evicts by position, a period window by time). O(W)."""
    if len(ia) != len(ib):
        return False
    if period is None:
        return [e[0] for e in ia] == [e[0] for e in ib]
    return [e[:2] for e in ia] == [e[:2] for e in ib]
