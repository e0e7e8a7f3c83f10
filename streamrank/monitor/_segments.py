"""`SegmentedMonitor`: one exact window per segment value (country, device, ...), each with
its own reference, test and alerts, the tests corrected across segments, and the group
AUC of the window in total.

A model that degrades for one segment is averaged away by one window for the whole
stream; a `SegmentedMonitor` routes each event to its segment's *unit* (by default a
`streamrank.monitor.Monitor`, all built alike) and reads them together.

Semantics
---------
**Routing.** A prediction (an id not in any window, with a score) names its segment; a
later event for the same id (a late label, a re-score, a reweight) may omit it (log
lines of labels often lack it): it goes to the segment of the id's prediction while that
prediction is in its segment's window. A segment given on such an event must be that
prediction's (a `ValueError` otherwise). An event for an id in no window (a label whose
prediction has left, or never came) goes to its segment's unit when it names a segment
that has one (counted there, late or unmatched, as a `Monitor` counts it), and is
counted at the wrapper otherwise (`streamrank.monitor._join`): late, dropped
(``stats["dropped"]``) when the id's prediction left its segment's window lately,
unmatched (``stats["unmatched"]``) when no prediction of it was seen lately; a new
prediction without a segment is a `ValueError`.
Segments are made by predictions only, and stay once made. A keyword field (a second
model's score, ``challenger=``) makes an event a prediction as a score does.

**Label wait.** With the units' ``label_wait`` or ``label_wait_period``, an event for
an id in no window, without a segment that has a unit, waits at the wrapper, by the
units' bound and rules (`streamrank.monitor._join`): the prediction, when it
comes in time, takes the waiting label and weight to its unit (``stats["joined"]``); a
wait that runs out counts ``stats["unmatched"]``; an id evicted lately is a late drop.
`totals` and `waiting` add the units' own waits.

**Bounded.** The first ``max_segments`` segment values that come with a prediction get a
unit each; predictions of any other value are pooled into one more unit, the segment
`SegmentedMonitor.OTHER` (``"(other)"``; a segment of that name is refused), whose later
events are routed by id as above. ``stats["pooled_events"]`` counts the events applied to
the pooled unit and ``stats["pooled_predictions"]`` the predictions among them; the
distinct pooled values are not counted (that would take memory per value). Memory:
``max_segments + 1`` units, plus the id map: one entry per prediction in a window, and
at most as many stale entries (ids whose prediction has left), removed by a sweep
whenever the map doubles (``O(1)`` amortized per event).

**One clock.** The segments share the clock (the latest time seen in any event): with a
``period`` window every segment holds the predictions of the same last ``period``
("the last hour" everywhere), a new prediction must not be older than the shared clock,
and a segment that receives no event is brought up to the clock (its old predictions
evicted) when it is next routed to or read (`report`, `to_bytes`, `_check`), which is
what evicting it at every event would give.

**The tests** are each unit's (see `streamrank.monitor`); at a `report` the p-values of
the segments whose test ran are adjusted by ``correction`` (``"holm"``, the default, or
``"bonferroni"``; `streamrank.monitor._segment_report`), and a segment alerts when its
adjusted p-value is below ``alpha``. `SegmentedReport.alert` (any segment) and
`SegmentedReport.drift` (any segment's detector) make `alerts` and ``stats["alerts"]``;
each unit's own ``alerts`` keep its uncorrected test.

**Champion against challenger.** With ``factory=lambda: PairedMonitor(...)`` each
segment holds both models' windows and runs the paired test
(`streamrank.monitor.PairedMonitor`); the correction is applied across segments to the
champions' drop tests (``p_adjusted``, ``alerts``) and, as a family of its own, to the
paired tests (``SegmentedReport.paired_p_adjusted``, ``paired_alerts``); a segment
alerts when either corrected test does. A challenger's own drop test (against its own
reference) stays in its report, uncorrected, and makes no alert here. The total gives
both models' group AUC (``gauc``, ``challenger_gauc``). With split score rows (the
challenger's on a row of its own) and a ``period`` window, an id is routed by id until
the time of its first score row leaves the period.

**The total** is the group AUC of the window over the segments, exactly
`streamrank.group_auc_score` of the windows' labeled predictions grouped by segment
(``weighting``: ``"impressions"``, the default, ``"pairs"`` or ``"uniform"``; the
pooled segment is one group). Ties count one half, in each segment's AUC as in
``sklearn.metrics.roc_auc_score``.

Units
-----
``factory`` (default: ``Monitor(**options)``) makes each segment's unit. A unit is any
object with: ``observe(key, *, score, label, weight, time)`` (atomic: a refused event
changes nothing), ``advance(time)`` (move its clock), ``report()`` returning a `Report`,
``metrics()`` (a dict), ``stats`` (a dict), ``history``, ``to_bytes()`` and a classmethod
``from_bytes``, ``_check()``, ``key in unit`` (the id is in its window), the attributes
``period``, ``alpha`` and ``clock``, ``len(unit)``, and ``items()`` yielding ``(key,
label, score, weight, time)`` of its window; a `Report` or a `PairedReport` (then the
drop test is its ``champion``'s). `Monitor` and `PairedMonitor` are units (their
snapshots load without ``unit_type``). Keyword fields of `SegmentedMonitor.observe`
other than ``segment`` go to the unit's ``observe`` as they are (e.g. a second model's
score, for a unit that compares two). The snapshot keeps an empty unit as the template
of the next ones. (``streamrank monitor``'s summary also reads a `Monitor` unit's ``n``,
``pending`` and ``reference_counts``.)

Complexity: `observe` ``O(1)`` for the routing (two dict lookups; amortized for the id
map's sweeps) plus the unit's ``observe``; `report` ``O(S log S)`` for ``S`` segments (the
correction's sort) plus the units' reports.

Examples
--------
>>> from streamrank.monitor import SegmentedMonitor
>>> m = SegmentedMonitor(window=100, min_window=2, reference=4)
>>> rows = [("a", "fr", 0.9, 1), ("b", "fr", 0.2, 0), ("c", "de", 0.4, 1),
...         ("d", "de", 0.6, 0), ("e", "fr", 0.7, 0), ("f", "de", 0.8, 1)]
>>> for key, seg, s, y in rows:
...     m.observe(key, segment=seg, score=s)
>>> for key, _, _, y in rows:           # the labels come later, without the segment
...     m.observe(key, label=y)
>>> r = m.report()
>>> r.segments, r["fr"].auc, r["de"].auc
(('fr', 'de'), 1.0, 0.5)
>>> r.gauc                               # (3 * 1.0 + 3 * 0.5) / 6
0.75

Champion against challenger per segment:

>>> from streamrank.monitor import PairedMonitor
>>> p = SegmentedMonitor(factory=lambda: PairedMonitor(window=100, min_window=2))
>>> for key, seg, s, y in rows:         # the challenger ranks the scores backwards
...     p.observe(key, segment=seg, score=s, challenger=1 - s, label=y)
>>> r = p.report()
>>> r["fr"].champion.auc, r["fr"].challenger.auc, r.gauc, r.challenger_gauc
(1.0, 0.0, 0.75, 0.25)
"""

from __future__ import annotations

import inspect
from collections import deque
from collections.abc import Callable, Hashable, Iterator
from typing import Any

from .._typing import Number
from .._validation import check_int, check_scalar, describe, param_error
from ..batch._groups import check_group_id
from . import _format, counters
from ._join import Join
from ._segment_join import _SWEEP_MIN, UnroutedSide
from ._many import ManyEvents
from ._runs import SegmentRuns
from ._segment_read import SegmentReads
from ._segment_state import SegmentState
from ._monitor import Monitor
from ._segment_report import CORRECTIONS, WEIGHTINGS, SegmentedReport

__all__ = ["SegmentedMonitor"]



class SegmentedMonitor(UnroutedSide, SegmentRuns, SegmentReads, SegmentState, ManyEvents):
    """One exact rolling window per segment value, tested per segment with a correction
    across segments, and the group AUC in total; see the module docstring for every
    rule.

    Not thread-safe (as `Monitor`).

    Parameters
    ----------
    max_segments : int
        Segment values that get their own unit; the others are pooled into
        `OTHER` (default 64).
    correction : {"holm", "bonferroni"}
        Adjustment of the segments' p-values at each report.
    weighting : {"impressions", "pairs", "uniform"}
        Segment weights of the group AUC (as `streamrank.group_auc_score`).
    factory : callable, optional
        Makes a unit (see Units); then no ``options``.
    **options
        `Monitor` parameters of every segment's unit (``window``, ``period``, ``test``,
        ``alpha``, ``min_window``, ...).

    Attributes
    ----------
    history : collections.deque of SegmentedReport
        The reports (the last ``max_history`` of the units, when they have one).
    alerts : collections.deque of SegmentedReport
        The reports at which a segment alerted (corrected) or drifted.
    stats : dict
        The counters of `streamrank.monitor.counters.SEGMENTED`: ``events`` (all
        segments); of the events for an id in no window without a
        segment that has a unit, ``dropped`` (late) and ``unmatched``, ``early`` and
        ``early_lead`` (as `Monitor.stats`'), and with a label wait ``joined``;
        ``pooled_events``, ``pooled_predictions``, ``reports``, ``alerts``. Each unit's
        own are in ``units[segment].stats``; `totals` adds them up.
    segment_alerts : dict
        Segment -> the reports at which it alerted (corrected p-value below ``alpha``).
    """

    #: The name of the pooled segment.
    OTHER = "(other)"

    _COLUMNS = ("segment", "score", "challenger", "label", "weight",   # (`observe_many`)
                "time")

    def __init__(self, *, max_segments: int = 64, correction: str = "holm",
                 weighting: str = "impressions",
                 factory: Callable[[], Any] | None = None, **options: Any) -> None:
        func = "SegmentedMonitor"
        max_segments = check_int(max_segments, "max_segments", func)
        if correction not in CORRECTIONS:
            raise param_error("correction", func, f"one of {CORRECTIONS}",
                              describe(correction))
        if weighting not in WEIGHTINGS:
            raise param_error("weighting", func, f"one of {WEIGHTINGS}",
                              describe(weighting))
        if factory is None:
            known = inspect.signature(Monitor).parameters
            unknown = sorted(set(options) - set(known))
            if unknown:
                raise param_error("options", func, f"Monitor parameters "
                                  f"({', '.join(known)})", ", ".join(unknown), TypeError)
            probe = Monitor(**options)      # its errors name the option

            def factory(options=options):
                return Monitor(**options)
        elif options:
            raise param_error("factory", func, "None when Monitor options are given "
                              "(the factory makes the units)", "a factory and "
                              f"{sorted(options)}")
        else:
            probe = factory()
        self.max_segments = max_segments
        self.correction = correction
        self.weighting = weighting
        self.period = probe.period
        self.alpha = float(probe.alpha)
        # what the units keep beside their AUC: an estimate, score drift
        self.estimate = getattr(probe, "estimate", False)
        self.score_drift = getattr(probe, "score_drift", False)
        self.score_alert = getattr(probe, "score_alert", False)
        self._factory = factory
        self._template = probe.to_bytes()       # an empty unit, for the snapshot
        self._unit_type = type(probe)
        self._paired = hasattr(probe, "challenger")     # PairedMonitor units
        max_history = getattr(probe, "max_history", None)
        self.units: dict[Hashable, Any] = {}    # segment -> unit, first come first
        self._other: Any = None                 # the pooled unit
        self._where: dict = {}                  # id -> (segment given, prediction time)
        self._sweep_at = _SWEEP_MIN
        self._clock: float | None = None
        self.stats: dict[str, int] = counters.zeros(counters.SEGMENTED)
        self.segment_alerts: dict[Hashable, int] = {}   # segment -> reports it alerted
        self.history: deque[SegmentedReport] = deque(maxlen=max_history)
        self.alerts: deque[SegmentedReport] = deque(maxlen=max_history)
        # the units' label wait, for labels without a segment (`_unrouted`)
        self._join = Join(getattr(probe, "label_wait", None),
                          getattr(probe, "label_wait_period", None), (self.stats,))

    # ------------------------------------------------------------------ reads
    @property
    def clock(self) -> float | None:
        """The shared clock (the latest time seen)."""
        return self._clock

    @property
    def segments(self) -> tuple:
        """The segment values held, first come first, `OTHER` last if any predictions
        were pooled."""
        return tuple(self.units) + ((self.OTHER,) if self._other is not None else ())

    def unit(self, segment: Hashable) -> Any:
        """The unit of ``segment`` (`OTHER`: the pooled one); `KeyError` if none."""
        if segment == self.OTHER and self._other is not None:
            return self._other
        return self.units[segment]

    def _all(self) -> Iterator[tuple[Hashable, Any]]:
        yield from self.units.items()
        if self._other is not None:
            yield self.OTHER, self._other

    @property
    def waiting(self) -> int:
        """Labels (or weights) waiting now, at the wrapper and in the units' waits."""
        return self.waiting_unrouted + sum(getattr(u, "waiting", 0) for _, u in self._all())

    @property
    def models(self) -> int:
        """The models each unit compares: 1, or 2 with `PairedMonitor` units."""
        return 2 if self._paired else 1

    @property
    def waiting_unrouted(self) -> int:
        """Labels (or weights) without a segment waiting now, at the wrapper (for an id
        in no window yet)."""
        return len(self._join)

    def __len__(self) -> int:
        """Predictions in all the windows (brought up to the shared clock)."""
        self._sync()
        return sum(len(u) for _, u in self._all())

    def __contains__(self, key: object) -> bool:
        return self._alive(key, None)

    def __repr__(self) -> str:
        return (f"SegmentedMonitor({len(self.units)} segments"
                f"{' + pooled' if self._other is not None else ''}, "
                f"max_segments={self.max_segments}, correction={self.correction!r})")

    def template(self) -> Any:
        """A new empty unit, as every segment's starts (its settings)."""
        return self._unit_type.from_bytes(self._template)

    # ------------------------------------------------------------------ events
    def _unit_of(self, segment):
        unit = self.units.get(segment)
        return self._other if unit is None else unit

    def _alive(self, key, time, where=None) -> bool:
        """The id's prediction is in its segment's window (after an event at ``time``);
        ``where``: its entry in the id map, if looked up already."""
        if where is None:
            where = self._where.get(key)
        if where is None:
            return False
        unit = self._unit_of(where[0])
        if unit is None:
            return False
        if key not in unit:
            return False
        if self.period is None:
            return True
        clock = self._clock     # (a unit may lag behind it: the time decides)
        now = clock if time is None or time < clock else time
        return where[1] > now - self.period

    def observe(self, key: Hashable, *, segment: Hashable | None = None,
                score: Number | None = None, label: Number | None = None,
                weight: Number | None = None, time: Number | None = None,
                **fields: Any) -> None:
        """Observe one event of ``segment`` (optional on events for an id in a window).

        See the module docstring for the routing; the event itself follows
        `Monitor.observe`'s rules in its unit (other keyword ``fields`` go to the unit's
        ``observe``; a `Monitor` unit takes none). An event counted here (for an id in no
        window) is checked as a `Monitor` checks one (its id, label and weight).

        Validated before anything changes (a refused event is not counted and makes no
        segment): an unhashable id, a segment that is nan / unhashable / `OTHER`, a new
        prediction without a segment or older than the shared clock, a segment that
        contradicts the id's prediction's, and what the unit refuses raise
        `ValueError` / `TypeError`.

        Runtime complexity: ``O(1)`` amortized plus the unit's ``observe``.
        """
        func = "SegmentedMonitor.observe"
        try:
            where = self._where.get(key)
        except TypeError:
            raise param_error("key", func, "an id (a hashable value other than None)",
                              describe(key), TypeError) from None
        if segment is not None:
            if type(segment) is not str:        # (a str is a valid id: no check)
                check_group_id(segment, "segment", func)
            if segment == self.OTHER:
                raise param_error("segment", func, "a segment value other than "
                                  f"{self.OTHER!r} (the pooled segment's name)",
                                  repr(segment))
        if time is not None:
            time = check_scalar(time, "time", func)
        elif self.period is not None or self._join.label_wait_period is not None:
            raise param_error("time", func, "a finite number (the monitor has a period "
                              + ("window)" if self.period is not None else
                                 "label wait)"), "None")
        clock = self._clock
        alive = where is not None and self._alive(key, time, where)
        st = self.stats
        join = self._join
        # a second model's score (a keyword field) makes a prediction, as a score does
        scored = score is not None or any(v is not None for v in fields.values())
        if alive:
            if segment is not None and segment != where[0]:
                raise param_error("segment", func, f"{where[0]!r}, the segment of the "
                                  f"prediction of id {key!r} in the window (or omitted)",
                                  repr(segment))
            segment = where[0]
        elif not scored:           # a label or weight for an id in no window
            unit = self.units.get(segment) if segment is not None else None
            if unit is None and segment is not None and self._other is not None \
                    and len(self.units) >= self.max_segments:
                unit = self._other
            if unit is None:       # counted (or held) here: late, unmatched or waiting
                self._unrouted(key, label, weight, time, where)
                return
        elif segment is None:
            raise param_error("segment", func, "a segment value on a new prediction "
                              f"(id {key!r} is in no segment's window)", "None")
        elif self.period is not None and clock is not None and time < clock:
            raise param_error("time", func, f"at least the clock {clock!r} for a new "
                              "prediction (predictions arrive in time order)", repr(time))
        # -- the unit (made here for a new segment, kept only if the event is accepted)
        unit = self.units.get(segment)
        pooled = unit is None and len(self.units) >= self.max_segments
        made = None
        if unit is None:
            unit = self._other if pooled else None
            if unit is None:
                unit = made = self._factory()
        if clock is not None:
            unit.advance(clock)
        joined = None
        if join.waits is not None:  # a new prediction takes its waiting label and weight
            b = self._bound(time)
            if not alive and scored:
                joined = join.waiting_for(key, b)
            if joined is not None:
                label = joined[0] if label is None else label
                weight = joined[1] if weight is None else weight
        unit.observe(key, score=score, label=label, weight=weight, time=time, **fields)
        # -- accepted: the bookkeeping
        if made is not None:
            if pooled:
                self._other = made
            else:
                self.units[segment] = made
        if time is not None and (clock is None or time > clock):
            self._clock = time
        st["events"] += 1
        if joined is not None:
            join.joined(key)
        join.run_out(st["events"], self._clock)
        new = not alive and scored
        if new:         # a label of it came first, without a segment?
            join.predicted(key, st["events"])
        if pooled:
            st["pooled_events"] += 1
            st["pooled_predictions"] += new
        if new:
            self._where[key] = (segment, time)
            if len(self._where) > self._sweep_at:
                self._sweep()

    def _sync(self) -> None:
        """Bring every unit up to the shared clock (``O(S)`` plus the evictions)."""
        if self._clock is not None:
            for _, unit in self._all():
                unit.advance(self._clock)

    # ------------------------------------------------------------------ persistence
    def to_bytes(self) -> bytes:
        """The full state as bytes (``np.savez``, no pickled objects; the one format of
        every monitor, `streamrank.monitor._format`): the settings, the segment values
        (all ints or all strings, as `Monitor` keys), the shared clock, the statistics,
        the history, and each unit's node as the unit writes it (plus an empty unit, the
        template of new segments). The id map is rebuilt from the windows.

        Runtime complexity: ``O(S + H S)`` plus the units' ``to_bytes``.
        """
        self._sync()
        out = _format.Out("SegmentedMonitor.to_bytes")
        self._write(out)
        return out.to_bytes("SegmentedMonitor")

    @classmethod
    def from_bytes(cls, data: bytes, *, unit_type: type | None = None
                   ) -> "SegmentedMonitor":
        """Restore a monitor written by `to_bytes`; units of a subclass of `Monitor` or
        `PairedMonitor` need their class as ``unit_type`` (its ``from_bytes`` reads them).

        Raises `streamrank.exceptions.SnapshotError` for anything it cannot load.
        Runtime: the units' ``from_bytes`` plus ``O(S H + W)``.
        """
        func = "SegmentedMonitor.from_bytes"
        with _format.reading(data, "SegmentedMonitor", func) as snap:
            return cls._read(snap, unit_type)

    def __reduce__(self):
        """Pickle through `to_bytes` (segment values must be all ints or all strings)."""
        return (_from_bytes, (type(self), self.to_bytes(), self._unit_type))

    # ------------------------------------------------------------------ checks
    def _check(self) -> None:
        """Invariants: each unit's; at most ``max_segments`` segments plus the pooled
        one; an id in at most one window, and every id in a window mapped to its
        segment; one clock."""
        self._sync()
        assert len(self.units) <= self.max_segments
        assert self.OTHER not in self.units
        seen: set = set()
        for name, unit in self._all():
            unit._check()
            assert unit.clock == self._clock, (name, unit.clock, self._clock)
            for key, _, _, _, t in unit.items():
                assert key not in seen, key
                seen.add(key)
                seg, t0 = self._where[key]
                assert self._unit_of(seg) is unit, (key, seg, name)
                assert t0 == t or (t0 is None and t is None), (key, t0, t)
        assert len(self._where) <= max(self._sweep_at, _SWEEP_MIN)
        st = self.stats
        assert st["early"] <= st["unmatched"]
        assert self._join.waits is not None or not st["joined"]
        self._join._check(seen, st["events"], self._clock)


def _from_bytes(cls, data, unit_type):
    """Unpickle a `SegmentedMonitor` (`SegmentedMonitor.__reduce__`)."""
    return cls.from_bytes(data, unit_type=unit_type)
