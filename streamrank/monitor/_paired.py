"""`PairedMonitor`: champion against challenger, two models scored on the same traffic (a
shadow deployment), each in its own exact window, compared live by DeLong's paired test.

Semantics
---------
**Two windows.** The monitor holds two `Monitor`\\ s with the same settings: the
*champion*'s (the ``score`` of each event) and the *challenger*'s (its ``challenger``
score). Each follows every rule of `Monitor` (window, late labels, re-scores, reference,
test, interval, detector) on the events it receives:

* an event with a ``score`` goes to the champion, one with a ``challenger`` score to
  the challenger: a row may carry both (a second score column on the same prediction
  rows) or one only (a second score per id arriving on its own row, before or after the
  first);
* **one label per id**: ``label`` and ``weight`` are the id's, not a model's. They go to
  each model that holds the id (a label row updates the id in both windows); a model's
  new prediction of an id the other model holds takes that model's label and weight
  (split score rows: the label may come between them);
* **one join for the pair**: a label or weight for an id that neither model holds is
  counted once, by the pair's join: late, dropped, if
  a model evicted the prediction lately; otherwise unmatched, or, with ``label_wait`` /
  ``label_wait_period``, it waits for the first prediction of the id (either model's)
  and joins it. Both models' ``stats`` show the join's counts (``dropped``,
  ``unmatched``, ``early``, ``early_lead``, ``joined``) and `waiting` is the pair's;
* a model that receives nothing of an event (a row with only the other model's score,
  or a label for an id only the other holds) does not see it: its count window does not
  slide, and its clock moves only with a label or weight (the id's ``time``).

With both scores on every prediction row the two windows hold the same ids.

**The paired test** at each `report`: the *paired rows* are the ids labeled in both
windows (their label and weight are the champion's; both models receive every label and
weight, so they agree unless a model was given an id's prediction again after it left
that model's window). On them, `streamrank.delong_test` (challenger as ``a``, champion as
``b``; ties one half) gives ``difference = AUC_challenger - AUC_champion``, its DeLong
standard error, ``z`` and the p-value against the alternative of ``alert_on``:

* ``"worse"``: one-sided, ``H1: AUC_challenger < AUC_champion``, ``p = Phi(z)``;
* ``"better"``: one-sided, ``H1: AUC_challenger > AUC_champion``, ``p = Phi(-z)``;
* ``"both"`` (default): two-sided, ``p = 2 Phi(-|z|)``.

``PairedReport.paired_alert`` is ``p < alpha``. The test runs once the paired rows are
at least ``min_window``, hold exactly two labels, both present, and whole-number weights
(DeLong's variance takes frequency weights); otherwise ``z``, ``p_value`` and the
difference are nan and no paired alert fires. Each model keeps its own test against its
own reference (``PairedReport.champion.alert``, ``.challenger.alert``);
``PairedReport.alert`` is any of the three.

Runtime complexity: `observe` is two `Monitor.observe` calls (``O(1)`` amortized each,
the engines' ``O(log W)`` per change at the next read). `report` is both models'
`Monitor.report` plus the paired test: ``O(W)`` to join the windows' labeled ids and
``O(W log W)`` for `delong_test` (one sort per model). The test needs, for every paired
row, the product of its two placements; a window change moves the placements of
``O(W)`` other rows, so no per-change update keeps their sum, and the engines' placement
moments (each model's alone) do not give it. The per-report cost is measured in
``benchmarks/bench_monitor.py`` (``benchmarks/RESULTS.md``).

Examples
--------
>>> from streamrank.monitor import PairedMonitor
>>> m = PairedMonitor(window=8, min_window=4, alert_on="worse")
>>> rows = [(0.9, 0.6, 1), (0.2, 0.4, 0), (0.8, 0.3, 1), (0.3, 0.7, 0),
...         (0.7, 0.5, 1), (0.1, 0.2, 0)]
>>> for i, (a, b, y) in enumerate(rows):
...     m.observe(i, score=a, challenger=b, label=y)
>>> m.observe(6, score=0.6)          # the champion's prediction ...
>>> m.observe(6, challenger=0.9)     # ... the challenger's score on its own row
>>> m.observe(6, label=1)            # ... the label: both windows
>>> r = m.report()
>>> r.champion.auc, round(r.challenger.auc, 4), r.n, round(r.difference, 4)
(1.0, 0.6667, 7, -0.3333)
>>> m.stats["events"], m.champion.stats["events"], m.challenger.stats["events"]
(9, 8, 8)
"""

from __future__ import annotations

import copy
import math
from collections import deque
from collections.abc import Hashable

import numpy as np

from .._typing import LabelKind, Number
from .._validation import check_option
from ..batch.paired import delong_test
from . import _format, _paired_state, _settings, counters
from ._join import Join
from ._many import ManyEvents
from ._paired_events import PairEvents
from ._paired_state import PairState
from ._runs import PairRuns
from ._monitor import SETTINGS, Monitor, _Detector
from ._settings import same_settings
from ._paired_report import PairedReport

__all__ = ["ALERT_ON", "PairedMonitor"]

#: The choices of ``alert_on``, and the alternative of `delong_test` each one tests.
ALERT_ON = ("worse", "better", "both")
_ALTERNATIVE = {"worse": "less", "better": "greater", "both": "two-sided"}
_NAN = math.nan
#: `stats` entries read from the champion (the pair counts its own events and reports).
_CHAMPION_STATS = tuple(k for k in counters.names(counters.MONITOR)
                        if k not in ("events", "reports", "alerts"))
#: The counters of the pair's join, the same in both models' `stats`.
_JOIN_STATS = ("dropped", "unmatched", "early", "early_lead", "joined")
#: The keys `PairedMonitor.metrics` adds after the champion's and the challenger's.
PAIRED_METRIC_KEYS = ("paired_labeled", "auc_difference", "auc_difference_low",
                      "auc_difference_high", "paired_z", "paired_p_value", "paired_alerts")


class PairedMonitor(PairEvents, PairRuns, PairState, ManyEvents):
    """Champion against challenger: two exact windows and DeLong's paired test of their
    AUCs on the ids labeled in both; see the module docstring for every rule.

    Not thread-safe (as `Monitor`): feed it from one thread, or guard every call.

    Parameters
    ----------
    window, period, reference, test, alpha, detector, labels, min_window, max_history, level
        The settings of both models' `Monitor` (see there). ``alpha`` is also the level of
        the paired test, ``min_window`` the paired rows it needs, ``level`` that of the
        interval of the difference.
    label_wait, label_wait_period : optional
        As `Monitor`'s: a label that comes before its prediction waits, in both windows.
    detector_signal : {"reference", "window"}
        As `Monitor`'s: what each model's detector is fed.
    alert_on : {"worse", "better", "both"}
        Alert when the challenger is significantly worse than the champion (one-sided),
        better (one-sided), or either (two-sided).
    estimate : bool
        As `Monitor`'s: both models keep the calibration estimate of their window's AUC.
    detect_drop : float, optional
        As `Monitor`'s: each model's reports say the labels it needs to detect it.
    score_drift, score_reference, score_alert : optional
        As `Monitor`'s: each model's scores against its own frozen reference of them.

    Attributes
    ----------
    champion, challenger : Monitor
        The two models' monitors (read them; feed and report through the pair, whose
        `history` pairs their reports).
    history, alerts : collections.deque of PairedReport
        Every report (the last ``max_history``), and those where `PairedReport.alert` or
        `PairedReport.drift` was true.
    stats : dict
        The counters of `streamrank.monitor.counters.PAIRED`: those of `Monitor.stats`,
        where ``events``, ``reports`` and ``alerts`` (reports with any alert or drift)
        are the pair's and the others (``predictions``, ``labeled``, ``late``,
        ``rescored``, ``relabeled``, ``dropped``, ``unmatched``, ``early``,
        ``early_lead``, ``evicted``, ...) the champion's (the challenger's are
        ``challenger.stats``); plus ``paired_alerts`` (reports whose paired test
        alerted).
    """

    _COLUMNS = ("score", "challenger", "label", "weight", "time")   # (`observe_many`)

    def __init__(self, window: int | None = None, period: float | None = None,
                 reference: int | None = None, test: str = "hanley-mcneil",
                 alpha: float = 0.01, detector: _Detector = None,
                 labels: LabelKind = "auto", min_window: int = 30,
                 max_history: int | None = None, level: float = 0.95,
                 label_wait: int | None = None, label_wait_period: float | None = None,
                 detector_signal: str = "reference", alert_on: str = "both",
                 estimate: bool = False, detect_drop: float | None = None,
                 score_drift: bool = False, score_reference: int | None = None,
                 score_alert: bool = False) -> None:
        alert_on = check_option(alert_on, "alert_on", "PairedMonitor", ALERT_ON)
        v = _settings.checked(window, period, reference, test, alpha, labels, min_window,
                              max_history, level, label_wait, label_wait_period,
                              detector_signal, estimate, detect_drop, score_drift,
                              score_reference, score_alert)
        # the models' windows; the label wait is the pair's (`_join`), one for both
        self.label_wait, self.label_wait_period = v["label_wait"], v["label_wait_period"]
        settings = dict(v, detector=detector, label_wait=None, label_wait_period=None)
        self.champion = Monitor(**settings)
        self.challenger = Monitor(**settings)
        self._join = Join(self.label_wait, self.label_wait_period)
        self._share_counts()
        self.alert_on = alert_on
        self.alternative = _ALTERNATIVE[alert_on]
        self.stats = counters.zeros(counters.PAIRED)
        self.history: deque[PairedReport] = deque(maxlen=self.champion.max_history)
        self.alerts: deque[PairedReport] = deque(maxlen=self.champion.max_history)
        # both windows hold the same ids in the same order: true while every event gave
        # both scores or neither (both models then see the same events), and again once
        # a report finds them so
        self._aligned = True

    # ------------------------------------------------------------------ settings
    def __getattr__(self, name):
        """The shared settings (``window``, ``period``, ``reference``, ``test``,
        ``alpha``, ``labels``, ``min_window``, ``max_history``, ``level``, ``detector``,
        ...) are the champion's."""
        champion = self.__dict__.get("champion")
        if name in SETTINGS and champion is not None:
            return getattr(champion, name)
        raise AttributeError(f"'PairedMonitor' object has no attribute {name!r}")

    def __len__(self) -> int:
        """Predictions in the champion's window."""
        return len(self.champion)

    def __contains__(self, key: object) -> bool:
        return key in self.champion or key in self.challenger

    def __repr__(self) -> str:
        return (f"PairedMonitor(alert_on={self.alert_on!r}) of champion {self.champion!r} "
                f"and challenger {self.challenger!r}")

    @property
    def n(self) -> int:
        """Labeled predictions in the champion's window."""
        return self.champion.n

    @property
    def pending(self) -> int:
        """Predictions in the champion's window without a label yet."""
        return self.champion.pending

    @property
    def waiting(self) -> int:
        """Labels (or weights) waiting now for the prediction of their id (in either
        model: one wait for both)."""
        return len(self._join)

    def holds(self, key: Hashable, time: Number | None = None) -> bool:
        """Whether either model's window holds the prediction of ``key`` (after the
        clock's move to ``time``; `Monitor.holds`)."""
        return self.champion.holds(key, time) or self.challenger.holds(key, time)

    def left_lately(self, key: Hashable) -> bool:
        """Whether the prediction of ``key`` left either model's window lately
        (`Monitor.left_lately`)."""
        return self.champion.left_lately(key) or self.challenger.left_lately(key)

    def recent_ids(self) -> set | None:
        """The ids held or evicted lately by either model (`Monitor.recent_ids`)."""
        a, b = self.champion.recent_ids(), self.challenger.recent_ids()
        return None if a is None or b is None else a | b

    def _share_counts(self) -> None:
        """The join counts into both models' ``stats`` (each model's report shows the
        labels of the pair's join)."""
        self._join.count_into((self.champion.stats, self.challenger.stats))

    @property
    def clock(self) -> float | None:
        """The latest time either model saw."""
        a, b = self.champion.clock, self.challenger.clock
        return a if b is None else b if a is None else max(a, b)

    @property
    def reference_counts(self):
        """The champion's frozen reference counts (None until frozen)."""
        return self.champion.reference_counts

    @property
    def reference_levels(self):
        """The label values of the champion's frozen reference (None until frozen)."""
        return self.champion.reference_levels

    def items(self):
        """``(key, label or None, score, weight, time)`` of each id in either window: the
        champion's window, oldest first, then the ids only the challenger holds (with its
        score). An id in both gets the earlier of its two times (the time of its first
        prediction row). For `streamrank.monitor.SegmentedMonitor` (its units); runtime
        ``O(W)``."""
        times = {k: t for k, _, _, _, t in self.challenger.items()}
        for key, y, s, w, t in self.champion.items():
            t2 = times.pop(key, None)
            yield key, y, s, w, t if t2 is None or t is not None and t <= t2 else t2
        if times:
            for row in self.challenger.items():
                if row[0] in times:
                    yield row

    def advance(self, time: Number) -> None:
        """Move both models' clocks to ``time`` (`Monitor.advance`; time waits run out),
        for a wrapper that shares one clock (`streamrank.monitor.SegmentedMonitor`).
        Runtime ``O(1 + evicted)``."""
        self.champion.advance(time)
        self.challenger.advance(time)
        self._run_out()
        self._copy_stats()

    # ------------------------------------------------------------------ events
    def observe(self, key: Hashable, *, score: Number | None = None,
                challenger: Number | None = None, label: Number | None = None,
                weight: Number | None = None, time: Number | None = None) -> None:
        """Observe one event: ``score`` is the champion's, ``challenger`` the
        challenger's; ``label``, ``weight`` and ``time`` are the id's (module docstring:
        "One label per id").

        Validated before anything changes (in either window): a non-finite score,
        challenger score, label, weight or time, an event with none of the four, and
        what either `Monitor.observe` refuses (a new prediction older than that model's
        clock, a third label with ``labels="binary"``) raise `ValueError` / `TypeError`.

        Runtime complexity: ``O(1)`` amortized plus at most two `Monitor.observe` calls.
        (When both models might refuse a third label, the first is copied before and
        restored if the second refuses: ``O(W log W)``, only then.)
        """
        score, challenger, label, weight, time = self._checked(key, score, challenger,
                                                               label, weight, time)
        a, b = self.champion, self.challenger
        held = (a.holds(key, time), b.holds(key, time))
        if score is None and challenger is None and not any(held):
            self._outside(key, label, weight, time)
            return
        join, st = self._join, self.stats
        clock = self.clock
        bound = join.bound(st["events"], clock if time is None or clock is not None
                           and time <= clock else time)
        joined = None if any(held) else join.waiting_for(key, bound)
        calls = self._calls(key, (score, challenger), held, label, weight, joined)
        self._apply(key, calls, time)
        st["events"] += 1
        if time is not None and (label is not None or weight is not None):
            for mon in (a, b):      # the id's label or weight, for a model without the
                if all(mon is not c[0] for c in calls):     # id: its clock moves
                    mon.advance(time)
        if joined is not None:
            join.joined(key)
        if not any(held):           # a new prediction: a label of it came first?
            join.predicted(key, st["events"])
        self._run_out()
        if (score is None) != (challenger is None):
            self._aligned = False
        self._copy_stats()

    def _run_out(self) -> None:
        """The pair's waits that can no longer join (after each event, and after the
        clocks moved): unmatched."""
        self._join.run_out(self.stats["events"], self.clock)

    def _copy_stats(self) -> None:
        st, a = self.stats, self.champion.stats
        for k in _CHAMPION_STATS:
            st[k] = a[k]

    # ------------------------------------------------------------------ reports
    def paired_rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(y, champion_score, challenger_score, weight)``: the ids labeled in both
        windows, in the challenger's window order (label and weight the champion's).
        Runtime: ``O(W)``: when both windows hold the same ids in the same order (both
        scores on every prediction row), the windows' columns, in C; otherwise a join
        by id (a dict, in Python)."""
        a, b = self.champion, self.challenger
        aligned = self._aligned
        if not aligned:
            ia, ib = list(a.items()), list(b.items())
            aligned = self._aligned = _paired_state.same_rows(ia, ib, self.period)
        if aligned:
            ya, sa, w = a.columns(labeled=False)
            yb, sb, _ = b.columns(labeled=False)
            keep = (ya == ya) & (yb == yb)      # labeled in both
            return ya[keep], sa[keep], sb[keep], w[keep]
        rows = {k: (y, s, w) for k, y, s, w, _ in ia if y is not None}
        ys, sa, sb, ws = [], [], [], []
        for k, y, s, _, _ in ib:
            if y is not None and k in rows:
                ya, s_a, w = rows[k]
                ys.append(ya)
                sa.append(s_a)
                sb.append(s)
                ws.append(w)
        f64 = np.float64
        return (np.array(ys, dtype=f64), np.array(sa, dtype=f64), np.array(sb, dtype=f64),
                np.array(ws, dtype=f64))

    def report(self) -> PairedReport:
        """Read both windows (`Monitor.report` of each) and run the paired test; append
        to `history` (and to `alerts` when something fired).

        Runtime complexity: both `Monitor.report` calls, plus ``O(W log W)`` for the
        paired test (the join and `delong_test`; see the module docstring).
        """
        ra, rb = self.champion.report(), self.challenger.report()
        y, sa, sb, w = self.paired_rows()
        n = int(y.size)
        diff = se = z = p = low = high = _NAN
        levels = np.unique(y)
        if (n >= self.champion.min_window and levels.size == 2
                and (w == np.floor(w)).all() and (w[y == levels[1]] > 0).any()
                and (w[y == levels[0]] > 0).any()):
            t = delong_test(y, sb, sa, sample_weight=None if (w == 1).all() else w,
                            alternative=self.alternative, level=self.champion.level)
            diff, se, z, p, low, high = t.difference, t.se, t.z, t.p_value, t.low, t.high
        paired_alert = bool(p < self.champion.alpha)
        r = PairedReport(self.stats["events"], self.clock, ra, rb, n, diff, se, z, p, low,
                         high, paired_alert, self.alternative)
        self.history.append(r)
        st = self.stats
        st["reports"] += 1
        if paired_alert:
            st["paired_alerts"] += 1
        if r.alert or r.drift:
            st["alerts"] += 1
            self.alerts.append(r)
        return r

    def metrics(self) -> dict[str, float | int]:
        """The numbers a metrics scrape exposes, as one flat dict: the champion's
        `Monitor.metrics` (`streamrank.monitor.metrics.METRIC_KEYS`), the challenger's
        with the prefix ``challenger_``, then of the latest report ``paired_labeled``
        (paired rows), ``auc_difference`` (challenger minus champion), its interval
        ``auc_difference_low`` and ``auc_difference_high``, ``paired_z``,
        ``paired_p_value`` (nan / 0 before the first report), and the counter
        ``paired_alerts``. Each model's counters (``events``, ``labels`` ...) are of the
        events it received.

        Changes nothing; a scraping thread may call it (as `Monitor.metrics`). Runtime:
        O(1).
        """
        out = self.champion.metrics()
        out.update({f"challenger_{k}": v for k, v in self.challenger.metrics().items()})
        last = self.history[-1] if self.history else None
        if last is None:
            out.update(paired_labeled=0, auc_difference=_NAN, auc_difference_low=_NAN,
                       auc_difference_high=_NAN, paired_z=_NAN, paired_p_value=_NAN)
        else:
            out.update(paired_labeled=last.n, auc_difference=last.difference,
                       auc_difference_low=last.low, auc_difference_high=last.high,
                       paired_z=last.z, paired_p_value=last.p_value)
        out["paired_alerts"] = self.stats["paired_alerts"]
        out["waiting_labels"] = out["challenger_waiting_labels"] = self.waiting
        return out

    # ------------------------------------------------------------------ persistence
    def to_bytes(self) -> bytes:
        """The full state as bytes (``np.savez``, no pickled objects; the one format of
        every monitor, `streamrank.monitor._format`): ``alert_on``, the pair's label wait
        and statistics, the paired fields of its history and its alerts, and each model's
        node as a `Monitor` writes it (its window, reference, history, detector).

        Runtime complexity: ``O(W + H + F)`` (both models' snapshots)."""
        out = _format.Out("PairedMonitor.to_bytes")
        self._write(out)
        return out.to_bytes("PairedMonitor")

    @classmethod
    def from_bytes(cls, data: bytes) -> "PairedMonitor":
        """Restore a paired monitor written by `to_bytes`, in ``O(W log W + H + F)``;
        `streamrank.exceptions.SnapshotError` for anything it cannot load."""
        with _format.reading(data, "PairedMonitor", "PairedMonitor.from_bytes") as snap:
            return cls._read(snap)

    def __reduce__(self):
        """Pickle (and copy) through `to_bytes`, or a deep copy of the attributes for keys
        it cannot store."""
        try:
            return (PairedMonitor.from_bytes, (self.to_bytes(),))
        except TypeError:
            import copyreg

            return (copyreg.__newobj__, (PairedMonitor,), copy.deepcopy(self.__dict__))

    # ------------------------------------------------------------------ checks
    def _check(self) -> None:
        """Invariants: each model's `Monitor._check`; the same settings; the history
        pairs the models' reports one to one; the statistics add up; an id labeled in
        both windows has one label."""
        a, b = self.champion, self.challenger
        a._check()
        b._check()
        assert same_settings(a, b)
        assert self.alternative == _ALTERNATIVE[self.alert_on]
        st = self.stats
        assert tuple(st) == counters.names(counters.PAIRED)
        assert all(st[k] == a.stats[k] for k in _CHAMPION_STATS)
        assert max(a.stats["events"], b.stats["events"]) <= st["events"]
        assert st["reports"] == a.stats["reports"] == b.stats["reports"]
        assert st["paired_alerts"] <= st["alerts"] <= st["reports"]
        assert len(self.history) == len(a.history) == len(b.history)
        if self._aligned:
            assert _paired_state.same_rows(list(a.items()), list(b.items()), self.period)
        for r, ra, rb in zip(self.history, a.history, b.history):
            assert r.champion is ra and r.challenger is rb
        held = {k for k, *_ in a.items()} | {k for k, *_ in b.items()}
        self._join._check(held, st["events"], self.clock)
        assert self._join.waits is not None or not st["joined"]
        assert all(a.stats[k] == b.stats[k] for k in _JOIN_STATS)
        labels = {k: y for k, y, *_ in a.items() if y is not None}
        for k, y, *_ in b.items():
            if y is not None and k in labels:
                assert labels[k] == y, (k, labels[k], y)

