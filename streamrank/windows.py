"""Sliding windows over a stream of (label, score, weight) events, with exact pair counts.

A window is an insert of each new event and a removal of each event that leaves:
``O(log W)`` per event for binary labels (``O(L log W)`` for ``L`` levels, ``O(log² W)``
amortized for continuous labels), and reading the counts is ``O(1)``.

The window mechanism of the package is `streamrank.structures._cwindow.RowWindow`: a FIFO
ring of rows of a `SlotStore` (compiled), evicted by count or by time, which hands its
changes to a `PairEngine` in sorted batches at a read (`sync`, compiled: straight from
the ring into the engine's tree, and the one place where a stale float engine is
recounted): an event that came and left between two reads never reaches the engine.
`SlidingPairCounter`, `TimeSlidingPairCounter` and `streamrank.metrics.RollingROCAUC` are
compiled owners of their ring and engine (`streamrank.structures._cpairwindow`: every
push one C call, validation included); `streamrank.monitor.Monitor` (keyed rows, late
labels) holds a `RowWindow` and calls `sync`.
"""

from __future__ import annotations

from collections.abc import Iterator

from . import _engine_ci
from ._typing import Count, LabelKind
from ._validation import check_int, check_period
from .counts import PairCounts
from .engine import PairEngine
from .intervals import AUCInterval
from .structures._cpairwindow import SlidingCore, TimeCore, WindowCore, sync  # noqa: F401
from .structures._cwindow import RowWindow

__all__ = ["SlidingPairCounter", "TimeSlidingPairCounter"]


class _Window(WindowCore):
    """What both windows share: a compiled `WindowCore` (the `RowWindow` of the events
    held and their engine, every push one C call), and the reads."""

    _caller = "SlidingPairCounter.push"

    def __init__(self, labels: LabelKind) -> None:
        # labels="binary": the window's per-label tallies let a push check its label in C
        super().__init__(PairEngine(labels), RowWindow(tally=labels == "binary"))

    @property
    def counts(self) -> PairCounts:
        """Counts of the events in the window. Runtime complexity: O(1) after handing the
        engine the changes since the last read, ``O(log W)`` each (``O(W log W)`` once
        when float rounding went stale: see `PairEngine.stale`)."""
        return self.sync(self._caller).counts

    def placement_moments(self):
        """What DeLong's variance of the window's AUC needs, exact ints: a
        `PlacementMoments` (`PairEngine.placement_moments`); ``None`` with more than two
        labels, a class without weight, or fractional weights. Runtime complexity: the
        engine takes the changes since the last read (``O(log W)`` each), then ``O(1)``
        (``O(W)`` at the first call, which turns them on).

        >>> win = SlidingPairCounter(3)
        >>> for y, s in [(1, 0.9), (0, 0.1), (1, 0.4), (0, 0.4)]:
        ...     win.push(y, s)
        >>> win.placement_moments()      # the last three events
        PlacementMoments(w1=1, w0=2, u=3, q1=9, q0=5)
        """
        return self.sync(self._caller).placement_moments()

    def auc_ci(self, level: float = 0.95, method: str = "delong") -> AUCInterval:
        """The ROC AUC of the window with its standard error and interval: the same
        `AUCInterval` as `streamrank.roc_auc_ci` of the events held
        (`streamrank.PairCounter.auc_ci` says what it raises and returns).

        Runtime complexity: the engine takes the changes since the last read
        (``O(log W)`` each), then ``O(1)`` (``O(W)`` at the first call, which turns the
        placement moments on).

        >>> win = SlidingPairCounter(6)
        >>> for y, s in [(1, 0.9), (0, 0.1), (0, 0.4), (1, 0.35), (1, 0.8), (0, 0.2),
        ...              (1, 0.7)]:
        ...     win.push(y, s)
        >>> win.auc_ci()                 # the last six events
        AUCInterval(auc=0.888889, low=0.261373, high=0.994501, se=0.157135, method='delong', level=0.95)
        >>> round(win.auc_ci(0.9, "hanley-mcneil").low, 4)
        0.3838
        """
        name = self._caller.replace("push", "auc_ci")
        return _engine_ci.auc_ci(self.sync(name), level, method, name)

    def __len__(self) -> int:
        return len(self._win)

    def __iter__(self) -> Iterator[tuple[float, float, Count]]:
        """The events ``(y, s, w)`` in the window, oldest first."""
        return iter([e[2:] for e in self._win.items()])

    def clear(self) -> None:
        self._engine.clear()
        self._win.clear()

    def _check(self) -> None:
        self.counts  # noqa: B018 - the read recounts a stale engine, as a user's would
        self._win._check()
        self._engine._check(*self._win.columns())


class SlidingPairCounter(_Window, SlidingCore):
    """Exact pair counts of the last ``window_size`` events of a stream.

    Runtime complexity: `push` ``O(log W)`` for binary labels (``O(L log W)`` ordinal,
    ``O(log^2 W)`` amortized continuous); `counts` ``O(1)``. Memory ``O(W)``.

    Not thread-safe: guard every call on a shared window, reads included, with one
    `threading.Lock` (the window follows the order of the pushes).

    Parameters
    ----------
    window_size : int
        Number of most recent events held.
    labels : {"auto", "binary", "ordinal", "continuous"}
        See `PairEngine`.

    Examples
    --------
    >>> from streamrank import SlidingPairCounter
    >>> win = SlidingPairCounter(window_size=3)
    >>> for y, s in [(1, 0.9), (0, 0.1), (1, 0.2), (0, 0.8)]:
    ...     win.push(y, s)
    >>> len(win), win.counts.auc       # (1, 0.9) has left the window
    (3, 0.5)
    """

    def __init__(self, window_size: int, *, labels: LabelKind = "auto") -> None:
        window_size = check_int(window_size, "window_size", "SlidingPairCounter")
        super().__init__(labels)
        self.window_size = window_size

    def _check(self) -> None:
        super()._check()
        assert len(self._win) <= self.window_size


class TimeSlidingPairCounter(_Window, TimeCore):
    """Exact pair counts of the events of the last ``period`` (time units of ``t``).

    An event at time ``t`` holds the events with ``t' > t - period``. Timestamps must not
    decrease: an event older than the latest one is rejected with a `ValueError` (nothing
    changes), since the window has already moved past it. Equal timestamps are fine.

    Runtime complexity: `push` ``O((1 + e) log W)`` for ``e`` evicted events; `counts`
    ``O(1)``.

    Not thread-safe: guard every call on a shared window, reads included, with one
    `threading.Lock` (the window follows the order of the pushes).

    Examples
    --------
    >>> from streamrank import TimeSlidingPairCounter
    >>> win = TimeSlidingPairCounter(period=10.0)
    >>> for t, y, s in [(0.0, 1, 0.9), (4.0, 0, 0.1), (12.0, 1, 0.95), (13.0, 0, 0.5)]:
    ...     win.push(y, s, t=t)
    >>> len(win), win.counts.auc       # the event at t=0 has left (0 <= 13 - 10)
    (3, 1.0)
    """

    def __init__(self, period: float, *, labels: LabelKind = "auto") -> None:
        period = check_period(period, "period", "TimeSlidingPairCounter")
        super().__init__(labels)
        self.period = period

    _caller = "TimeSlidingPairCounter.push"

    def __iter__(self) -> Iterator[tuple[float, float, float, Count]]:  # type: ignore[override]
        """The events ``(t, y, s, w)`` in the window, oldest first."""
        return iter([e[1:] for e in self._win.items()])

    def _check(self) -> None:
        super()._check()
        ts = [e[1] for e in self._win.items()]
        assert ts == sorted(ts)
        if ts:
            assert ts[0] > ts[-1] - self.period
