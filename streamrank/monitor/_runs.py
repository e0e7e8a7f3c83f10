"""The compiled runs of `observe_many`: the events of a block that steady windows take in
C, for a `Monitor`, the two windows of a `PairedMonitor` and the units of a
`SegmentedMonitor`.

A `Monitor` is *steady* (`Monitor.steady`) with a count window, no label waiting, no
detector, and its references frozen (the labels' and, with ``score_drift``, the
scores'), or not frozen yet but the default ones (the first full window: a run stops
before the eviction that freezes them; a ``reference=N`` or ``score_reference=N`` not
frozen yet is not steady); with ``labels="binary"``
a run stops before a label that could be a third one.
Then a new prediction with a finite score and a late label for a pending prediction take
`Monitor.observe`'s per-event paths, and `Monitor.observe_run` takes a run of them from
float columns in one C call (`streamrank.monitor._cruns.window_run`), counted as
`observe` counts them. The first event a run declines goes to ``observe`` alone
(`ManyEvents.observe_many`), then the next run starts. A `PairedMonitor` whose windows
hold the same ids in the same order (every prediction so far had both scores) runs both
windows over the same events: those with both scores or neither. A `SegmentedMonitor`
routes the events of a block to its steady units' windows in one C call
(`streamrank.monitor._cruns.route_run`), keeping its id map as ``observe`` keeps it.
"""

from __future__ import annotations

import numpy as np

from .._validation import describe, param_error
from ._cruns import route_run, window_run
from ._many import float_column

__all__ = ["PairRuns", "SegmentRuns", "WindowRuns"]


class WindowRuns:
    """`Monitor.observe_run` (module docstring)."""

    __slots__ = ()

    @property
    def steady(self) -> bool:
        """Whether `observe_run` takes events now (module docstring). O(1)."""
        if self._detector is not None or self.period is not None or len(self._join):
            return False
        if self._frozen:
            return True         # (else a run stops before the eviction that freezes)
        return (self._ref is not None or self.reference is None) and (
            self._sref is not None or self.score_reference is None)

    def _runs(self, keys, columns):
        """`observe_many`'s runs over float or bool ``score`` and ``label`` columns (no
        weight or time); None for a ``period`` window or a detector (never steady)."""
        if self.period is not None or self._detector is not None or not set(columns) <= {
                "score", "label"}:
            return None
        n = len(keys)
        score, label = (float_column(columns.get(c), n) for c in ("score", "label"))
        if score is None or label is None:
            return None
        return lambda i: self.observe_run(keys, score, label, i)

    def observe_run(self, keys: list, score: np.ndarray, label: np.ndarray,
                    start: int = 0, stop: int | None = None, *, sync: bool = True,
                    avoid: dict | None = None) -> int:
        """Observe events ``start``, ``start + 1``, ... of a block (``keys``, and float64
        arrays ``score`` and ``label``, NaN: missing) while each takes `observe`'s
        per-event path, in C: a new prediction with a finite score (a label or NaN), or
        a finite label for a pending prediction, while the monitor is `steady`. Returns
        the index of the first event not taken (``start`` when none is). ``stop``: where
        the run ends at the latest (default: the block's end); ``sync=False``: the run
        does not end when the engine's changes are due (the engine takes them at its
        end); ``avoid``: ids whose new prediction is declined (default: this monitor's
        remembered unmatched labels, whose prediction `observe` counts early). A
        ``keys`` that is not a list, or a column that is not a one-dimensional contiguous
        float64 array as long as the run, raises `TypeError` before anything changes.

        Runtime complexity: ``O(1)`` amortized per event, in C; the engine's
        ``O(log W)`` per change when it syncs.

        >>> import numpy as np
        >>> from streamrank.monitor import Monitor
        >>> m = Monitor(window=2, min_window=2)
        >>> keys, nan = ["a", "b", "c", "b"], float("nan")
        >>> score, label = np.array([0.9, 0.2, 0.6, nan]), np.array([1, nan, 0, 1.0])
        >>> m.observe_run(keys, score, label)   # "c" evicts "a": it freezes the reference
        2
        >>> m.observe_many(keys[2:], score=score[2:], label=label[2:])
        >>> m.steady, m.observe_run(["d", "e"], np.array([0.4, nan]), np.array([0, 1.0]))
        (True, 1)
        """
        _check_block(keys, score, label, start, stop)
        if not self.steady:
            return start
        evicted: list = []
        end, *counts = window_run(
            self._win, keys, score, label, start, self.window, self._frozen,
            evicted,
            self._join.orphans.mark if avoid is None else avoid,
            -1 if stop is None else stop, sync)
        self._took(counts, evicted)
        return end

    def _run_parts(self):
        """``((window,), size, evict, avoid)`` for a wrapper's runs
        (`_cruns.route_run`), or None while not `steady`."""
        if not self.steady:
            return None
        return (self._win,), self.window, self._frozen, self._join.orphans.mark

    def _took(self, counts, evicted) -> None:
        """Count a run: ``counts`` its predictions, labels, late labels and pending rows
        evicted, ``evicted`` the keys it evicted (in order); the engine takes the
        window's changes if they are due."""
        preds, labels, late, pending = counts
        st = self.stats
        st["events"] += preds + late
        st["predictions"] += preds
        st["labeled"] += labels
        st["late"] += late
        if evicted:
            self._gone.note_many(evicted, st["evicted"] + 1)
            st["evicted"] += len(evicted)
            st["evicted_pending"] += pending
        if self._win.full:
            self._fresh_counts()


def _check_block(keys, score, label, start, stop) -> None:
    """`Monitor.observe_run`'s arguments, or `TypeError` naming the one that is wrong."""
    func = "Monitor.observe_run"
    if type(keys) is not list:
        raise param_error("keys", func, "a list", describe(keys), TypeError)
    n = len(keys) if stop is None else stop
    for name, col in (("score", score), ("label", label)):
        if not (isinstance(col, np.ndarray) and col.dtype == np.float64 and col.ndim == 1
                and col.flags.c_contiguous and len(col) >= n):
            raise param_error(name, func, f"a contiguous float64 array of at least {n} "
                              "values (NaN: missing)", describe(col), TypeError)
    if not 0 <= start <= n:
        raise param_error("start", func, f"an index from 0 to {n}", repr(start), TypeError)


class PairRuns:
    """`observe_many`'s runs of a `PairedMonitor` (module docstring)."""

    __slots__ = ()

    def _runs(self, keys, columns):
        """Runs over float or bool ``score``, ``challenger`` and ``label`` columns (no
        weight or time) while both windows are steady and aligned; None when they never
        can be (a ``period`` window, a detector)."""
        a, b = self.champion, self.challenger
        if self.period is not None or a.detector is not None or b.detector is not None \
                or not set(columns) <= {"score", "challenger", "label"}:
            return None
        n = len(keys)
        score, chal, label = (float_column(columns.get(c), n)
                              for c in ("score", "challenger", "label"))
        if score is None or chal is None or label is None:
            return None
        # the events only one model would take in a run (one score, or a challenger score
        # that is not finite): each ends a run, and `observe` takes it
        split = np.flatnonzero((np.isnan(score) != np.isnan(chal)) | np.isinf(chal))
        orphans = self._join.orphans.mark

        def take(i):
            if self._run_parts() is None:
                return i
            j = int(np.searchsorted(split, i))
            end = int(split[j]) if j < split.size else n
            stop = a.observe_run(keys, score, label, i, end, sync=False, avoid=orphans)
            if stop > i:
                taken = b.observe_run(keys, chal, label, i, stop, sync=False,
                                      avoid=orphans)
                assert taken == stop, "the aligned windows took different runs"
                self.stats["events"] += stop - i
                self._copy_stats()
            return stop
        return take

    def _run_parts(self):
        """``((champion's window, challenger's), size, evict, avoid)`` for a wrapper's
        runs while both windows are steady and aligned and nothing waits; else None."""
        if not self._aligned or len(self._join):
            return None
        pa, pb = self.champion._run_parts(), self.challenger._run_parts()
        if pa is None or pb is None or pa[2] != pb[2]:     # (evict: a frozen reference)
            return None
        return pa[0] + pb[0], pa[1], pa[2], self._join.orphans.mark

    def _took(self, counts, evicted) -> None:
        """Count a run of both windows (`WindowRuns._took`, ``evicted``: a list each)."""
        self.champion._took(counts, evicted[0])
        self.challenger._took(counts, evicted[1])
        self.stats["events"] += counts[0] + counts[2]
        self._copy_stats()


class SegmentRuns:
    """`observe_many`'s runs of a `SegmentedMonitor` (`_cruns.route_run`): the events of
    a block that go to steady units of a count window, while the shared clock is unset
    (no times) and no label waits at the wrapper."""

    __slots__ = ()

    def _runs(self, keys, columns):
        """Runs over a segment column (a list or array of values) and float or bool
        ``score``, ``label`` (and with paired units ``challenger``) columns; None when
        there can be none (a ``period`` window, other columns)."""
        allowed = {"segment", "score", "label"} | (
            {"challenger"} if self._paired else set())
        if self.period is not None or not set(columns) <= allowed:
            return None
        n = len(keys)
        score, label = (float_column(columns.get(c), n) for c in ("score", "label"))
        chal = float_column(columns.get("challenger"), n) if self._paired else None
        if score is None or label is None or self._paired and chal is None:
            return None
        segs = columns.get("segment")
        segs = [None] * n if segs is None else (
            segs.tolist() if hasattr(segs, "tolist") else list(segs))
        routes = _Routes(self, self._where)
        last = [-1]                         # where the previous run stopped

        def take(i):
            if i == last[0] + 1:            # ``observe`` took event i - 1: its unit
                routes.refresh_for(keys[i - 1], segs[i - 1])
            last[0] = i
            if self._clock is not None or len(self._join) or not routes.unit_of:
                return i
            counts, touched = routes.counts(), []
            stop = route_run(keys, segs, score, chal, label, i, self._where,
                             routes.unit_of, routes.wins, routes.sizes, routes.evict,
                             routes.evicted, routes.avoid, self._join.orphans.mark,
                             self._sweep_at, counts, touched)
            last[0] = stop
            if stop > i:
                for j in touched:
                    ev = routes.evicted[j]
                    routes.units[j]._took(counts[j].tolist(), ev if self._paired else ev[0])
                    counts[j] = 0
                    for keys_out in ev:
                        keys_out.clear()
                self.stats["events"] += stop - i
                if len(self._where) > self._sweep_at:
                    self._sweep()
            return stop
        return take


class _Routes:
    """The units of a `SegmentedMonitor` that a run may feed (``unit_of``: segment ->
    index) and, by index, their windows, sizes, ids to avoid and lists of evicted keys.
    Built once a block; after an event the checked path took, only that event's unit is
    looked at again (no other unit changed), all of them when a unit appeared."""

    __slots__ = ("mon", "where", "n_units", "unit_of", "units", "wins", "sizes", "evict",
                 "avoid", "evicted", "_counts")

    def __init__(self, mon, where) -> None:
        self.mon = mon
        self.where = where          # the monitor's id -> (segment, time) map
        self.unit_of: dict = {}
        self.units: list = []
        self.wins: list = []
        self.sizes: list = []
        self.evict: list = []
        self.avoid: list = []
        self.evicted: list = []
        self._counts = np.zeros((0, 4), dtype=np.int64)
        for seg, unit in mon.units.items():
            self._refresh(seg, unit)
        self.n_units = len(mon.units)

    def counts(self):
        """A zero count row per unit (rows a run touched are zeroed after it)."""
        if len(self._counts) < len(self.units):
            self._counts = np.zeros((2 * len(self.units), 4), dtype=np.int64)
        return self._counts

    def refresh_for(self, key, segment) -> None:
        """After ``observe`` took an event of ``key`` (and ``segment``, or None)."""
        mon = self.mon
        if len(mon.units) != self.n_units:
            self.__init__(mon, self.where)
            return
        if segment is None:
            where = self.where.get(key)
            segment = None if where is None else where[0]
        unit = None if segment is None else mon.units.get(segment)
        if unit is not None:
            self._refresh(segment, unit)

    def _refresh(self, seg, unit) -> None:
        parts = unit._run_parts()
        j = self.unit_of.get(seg)
        if parts is None:
            if j is not None:
                del self.unit_of[seg]
            return
        if j is None:
            self.unit_of[seg] = len(self.units)
            self.units.append(unit)
            for lst, v in zip((self.wins, self.sizes, self.evict, self.avoid), parts):
                lst.append(v)
            self.evicted.append(tuple([] for _ in parts[0]))
        else:
            self.wins[j], self.sizes[j], self.evict[j], self.avoid[j] = parts
