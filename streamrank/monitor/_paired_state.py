"""How a `streamrank.monitor.PairedMonitor` writes itself into a snapshot and is rebuilt
from one: `PairState`, a base of `PairedMonitor`, in the one format of every monitor
(`streamrank.monitor._format`).

A pair's node holds ``config`` (JSON: ``alert_on``, ``label_wait``,
``label_wait_period``), ``state`` (JSON: the pair's counters by name, whether both
windows hold the same ids in the same order, the paired fields of each report of its
history, and its alerts whole: both models' report rows and the paired fields), the
pair's join (`streamrank.monitor._join.Join.to_arrays`: one label wait for both models),
and the nodes ``champion/`` and ``challenger/``, each model's `Monitor` node. The
history's reports are rebuilt from the paired fields and the models' own histories,
which hold one report per paired report (the same ``max_history``).
"""

from __future__ import annotations

from collections import deque

from . import counters
from ._format import Out
from ._join import Join
from ._monitor import Monitor
from ._paired_report import PairedReport
from ._report import Report
from ._settings import same_settings

__all__ = ["PairState", "same_rows"]

_CONFIG = {"alert_on", "label_wait", "label_wait_period"}
_STATE = {"stats", "aligned", "history", "alerts"}


class PairState:
    """`PairedMonitor`'s node of a snapshot: `_write` and `_read`."""

    def _write(self, out: Out) -> None:
        """Write the pair's node into ``out``, in ``O(W + H + F)``."""
        out.json("config", {"alert_on": self.alert_on, "label_wait": self.label_wait,
                            "label_wait_period": self.label_wait_period})
        out.json("state", {
            "stats": self.stats, "aligned": self._aligned,
            "history": [r._to_row() for r in self.history],
            "alerts": [[r.champion._to_row(), r.challenger._to_row(), r._to_row()]
                       for r in self.alerts]})
        out.put(**self._join.to_arrays(out.func))
        self.champion._write(out.section("champion"))
        self.challenger._write(out.section("challenger"))

    @classmethod
    def _read(cls, snap):
        """A pair rebuilt from its node in ``snap``, or ``snap.corrupt``:
        ``O(W log W + H + F)``."""
        config, state = snap.json("config"), snap.json("state")
        if not (type(config) is dict and set(config) == _CONFIG
                and type(state) is dict and set(state) == _STATE
                and type(state["aligned"]) is bool
                and type(state["history"]) is list and type(state["alerts"]) is list):
            raise snap.corrupt("the settings or the state are not those to_bytes writes")
        stats = counters.from_snapshot(snap, state["stats"], counters.PAIRED)
        a = Monitor._read(snap.section("champion"))
        b = Monitor._read(snap.section("challenger"))
        m = cls(**config)
        _check_same(snap, a, b)
        m.champion, m.challenger = a, b
        m._share_counts()
        held = {k for k, *_ in a.items()} | {k for k, *_ in b.items()}
        m._join.load_arrays(snap, Join.read_arrays(snap), held)
        m.history = deque(maxlen=a.max_history)
        m.alerts = deque(maxlen=a.max_history)
        m.stats = stats
        m._aligned = state["aligned"]
        if m._aligned and not same_rows(list(a.items()), list(b.items()), a.period):
            raise snap.corrupt("the windows hold other ids, but are said to be aligned")
        m._read_reports(snap, state)
        return m

    def _read_reports(self, snap, state) -> None:
        """The history (the paired fields, with the models' reports) and the alerts."""
        a, b = self.champion, self.challenger
        rows = state["history"]
        if not len(rows) == len(a.history) == len(b.history):
            raise snap.corrupt("the history does not pair the models' reports")
        self.history.extend(PairedReport._from_row(r, ra, rb)
                            for r, ra, rb in zip(rows, a.history, b.history))
        for entry in state["alerts"]:
            if not (type(entry) is list and len(entry) == 3):
                raise snap.corrupt("an alert is not a pair of reports")
            self.alerts.append(PairedReport._from_row(entry[2], Report._from_row(entry[0]),
                                                      Report._from_row(entry[1])))


def _check_same(snap, a, b) -> None:
    if not same_settings(a, b):
        raise snap.corrupt("the champion's and the challenger's settings differ")
    if a.label_wait is not None or a.label_wait_period is not None:
        raise snap.corrupt("a model has a label wait of its own (the pair's is shared)")


def same_rows(ia, ib, period) -> bool:
    """Whether two windows' rows (`Monitor.items`: key, label, score, weight, time) hold
    the same ids in the same order, and with a ``period`` window at the same times too
    (then they evict alike: a count window evicts by position, a period window by
    time). O(W)."""
    if len(ia) != len(ib):
        return False
    if period is None:
        return [e[0] for e in ia] == [e[0] for e in ib]
    return [(e[0], e[4]) for e in ia] == [(e[0], e[4]) for e in ib]
