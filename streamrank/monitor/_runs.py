"""The compiled runs of `observe_many`: the events of a block that a steady count window
takes in C, for a `Monitor` and for the two windows of a `PairedMonitor`.

A window is *steady* once its reference is frozen, with no label waiting, no detector and
not ``labels="binary"`` (`Monitor.steady`): then a new prediction with a finite score and
a late label for a pending prediction take `Monitor.observe`'s per-event paths, and
`Monitor.observe_run` takes a run of such events from float columns in one C call
(`streamrank.structures._cwindow.RowWindow.push_run`), counted as `observe` counts them.
The first event a run declines goes to ``observe`` alone (`ManyEvents.observe_many`),
then the next run starts. A `PairedMonitor` whose windows hold the same ids in the same
order (every prediction so far had both scores) runs both windows over the same events:
the events with both scores or neither, until one needs the checked path.
"""

from __future__ import annotations

import numpy as np

from ._many import float_column

__all__ = ["PairRuns", "WindowRuns"]


class WindowRuns:
    """`Monitor.observe_run` (module docstring)."""

    __slots__ = ()

    @property
    def steady(self) -> bool:
        """Whether `observe_run` takes events now (module docstring). O(1)."""
        return self._fast and self._detector is None

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
        remembered unmatched labels, whose prediction `observe` counts early).

        Runtime complexity: ``O(1)`` amortized per event, in C; the engine's
        ``O(log W)`` per change when it syncs.

        >>> import numpy as np
        >>> from streamrank.monitor import Monitor
        >>> m = Monitor(window=2, min_window=2)
        >>> keys, nan = ["a", "b", "c", "b"], float("nan")
        >>> score, label = np.array([0.9, 0.2, 0.6, nan]), np.array([1, nan, 0, 1.0])
        >>> m.observe_run(keys, score, label)   # not steady: no reference yet
        0
        >>> m.observe_many(keys, score=score, label=label)
        >>> m.steady, m.observe_run(["d", "e"], np.array([0.4, nan]), np.array([0, 1.0]))
        (True, 1)
        """
        if not self.steady:
            return start
        st, evicted = self.stats, []
        end, preds, labels, late, pending = self._win.push_run(
            keys, score, label, start, self.window, evicted,
            self._join.orphans.mark if avoid is None else avoid,
            -1 if stop is None else stop, sync)
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
        return end


class PairRuns:
    """`observe_many`'s runs of a `PairedMonitor` (module docstring)."""

    __slots__ = ()

    def _runs(self, keys, columns):
        """Runs over float or bool ``score``, ``challenger`` and ``label`` columns (no
        weight or time) while both windows are steady and aligned; None when they never
        can be (a ``period`` window, a detector)."""
        a, b = self.champion, self.challenger
        if self.period is not None or a._detector is not None or b._detector is not None \
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
            if not (self._aligned and a.steady and b.steady and not len(self._join)):
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
