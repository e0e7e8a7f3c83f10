"""Sliding windows over a stream of (label, score, weight) events, with exact pair counts.

A window is an insert of each new event and a removal of each event that leaves:
``O(log W)`` per event for binary labels (``O(L log W)`` for ``L`` levels, ``O(log² W)``
amortized for continuous labels), and reading the counts is ``O(1)``.

The window mechanism of the package is `streamrank.structures._cwindow.RowWindow`: a FIFO
ring of rows of a `SlotStore` (compiled), evicted by count (`RowWindow.push_keep`,
`RowWindow.evict`) or by time (`RowWindow.count_through`), which hands its changes to a
`PairEngine` in batches at a read (`sync`): an event that came and left between two
reads never reaches the engine. `SlidingPairCounter`, `TimeSlidingPairCounter`,
`streamrank.metrics.RollingROCAUC` and `streamrank.monitor.Monitor` (keyed rows, late
labels) all hold one.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from . import _engine_ci
from ._typing import Count, LabelKind, Number
from ._validation import check_int, check_period, check_scalar, check_weight, param_error
from .counts import PairCounts
from .engine import PairEngine
from .intervals import AUCInterval
from .structures._cwindow import RowWindow

__all__ = ["SlidingPairCounter", "TimeSlidingPairCounter"]

_NAN = math.nan
#: Fewer waiting changes than this reach the engine as tuples (`PairEngine.apply`), more
#: as numpy arrays (building the arrays costs more than a few tuples).
_SCALAR_FLUSH = 16


def sync(window: RowWindow, engine: PairEngine, caller: str, *,
         recount: bool = True) -> PairEngine:
    """``engine`` after receiving the changes ``window`` holds back, and (with
    ``recount``) recounted from the window's labeled rows when float rounding of weight
    that came and went may be large (`PairEngine.stale`), with the window's per-label
    tallies when it keeps them (`RowWindow.classes`).

    A few changes go as tuples (`RowWindow.take`, applied by `PairEngine.apply`: one C
    loop); more
    than `_SCALAR_FLUSH` go as numpy arrays (`RowWindow.take_arrays`,
    `PairEngine.remove_many` then `PairEngine.add_many`: no Python object per change).
    ``caller`` names the owner's method in the engine's errors. Runtime complexity:
    ``O(k log W)`` for ``k`` waiting changes (``O(W log W)`` for a recount)."""
    waiting = window.waiting
    if waiting:
        if waiting < _SCALAR_FLUSH:
            removes, adds, _ = window.take()
            engine.apply(removes, adds, caller)
        else:                       # numpy arrays into the engine's compiled loop
            (ry, rs, rw), (ay, as_, aw) = window.take_arrays()
            engine.remove_many(ry, rs, None if (rw == 1.0).all() else rw)
            engine.add_many(ay, as_, None if (aw == 1.0).all() else aw, caller)
    if recount and engine.stale:
        y, s, w = window.columns()
        engine.rebuild(y, s, w)
        if window.classes is not None:      # a window's per-label tallies (the monitor's)
            labels, code, rows = np.unique(y, return_inverse=True, return_counts=True)
            sums = np.bincount(code, weights=w, minlength=labels.size)
            window.classes = {yv: [int(c), float(ws)] for yv, c, ws in
                              zip(labels.tolist(), rows.tolist(), sums.tolist())}
    return engine


class _Window:
    """What both windows share: an engine, a `RowWindow` of the events held, reads."""

    _caller = "SlidingPairCounter.push"

    def __init__(self, labels: LabelKind) -> None:
        self._engine = PairEngine(labels)
        self._win = RowWindow()

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Unpickle: this version's state as it is; one of streamrank 0.1.0 (its events
        in a deque) rebuilt into a `RowWindow` (the engine converts itself)."""
        if "_events" in state:
            events = state.pop("_events")
            win = state["_win"] = RowWindow()
            for e in events:
                t = e[0] if len(e) == 4 else _NAN
                win.push(t, *e[-3:])
            win.mark_synced()                 # the 0.1.0 engine held them all
        self.__dict__.update(state)

    @property
    def counts(self) -> PairCounts:
        """Counts of the events in the window. Runtime complexity: O(1) after handing the
        engine the changes since the last read, ``O(log W)`` each (``O(W log W)`` once
        when float rounding went stale: see `PairEngine.stale`)."""
        return sync(self._win, self._engine, self._caller).counts

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
        return sync(self._win, self._engine, self._caller).placement_moments()

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
        return _engine_ci.auc_ci(sync(self._win, self._engine, name), level, method, name)

    def __len__(self) -> int:
        return len(self._win)

    def __iter__(self) -> Iterator[tuple[float, float, Count]]:
        """The events ``(y, s, w)`` in the window, oldest first."""
        return iter([e[2:] for e in self._win.items()])

    def clear(self) -> None:
        self._engine.clear()
        self._win.clear()

    def _check_slide(self, y: float, n_out: int, func: str) -> None:
        """Raise, changing nothing, if evicting the ``n_out`` oldest events and adding
        label ``y`` would break ``labels="binary"``."""
        if self._engine.labels == "binary":
            sync(self._win, self._engine, func)
            self._engine.check_labels_after(self._win.oldest_labels(n_out), (y,), func)

    def _check(self) -> None:
        self.counts  # noqa: B018 - the read recounts a stale engine, as a user's would
        self._win._check()
        self._engine._check(*self._win.columns())


class SlidingPairCounter(_Window):
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

    def push(self, y: Number, s: Number, w: Number = 1.0) -> None:
        """Add an event ``(y, s, w)``; the oldest leaves once the window is full. Validated
        first: a bad event changes nothing."""
        func = "SlidingPairCounter.push"
        y = check_scalar(y, "y", func)
        s = check_scalar(s, "s", func)
        w = check_weight(w, func)
        win = self._win
        self._check_slide(y, int(len(win) >= self.window_size), func)
        if win.push_keep(y, s, w, self.window_size):
            sync(win, self._engine, func)

    def _check(self) -> None:
        super()._check()
        assert len(self._win) <= self.window_size


class TimeSlidingPairCounter(_Window):
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

    def push(self, y: Number, s: Number, w: Number = 1.0, *, t: Number) -> None:
        """Add an event ``(y, s, w)`` at time ``t`` and evict the events with
        ``t' <= t - period``. Validated first: a bad event changes nothing."""
        func = "TimeSlidingPairCounter.push"
        y = check_scalar(y, "y", func)
        s = check_scalar(s, "s", func)
        w = check_weight(w, func)
        t = check_scalar(t, "t", func)
        win = self._win
        latest = win.newest_time()
        if latest is not None and t < latest:
            raise param_error("t", func, f"at least the latest time {latest!r} "
                              "(events arrive in time order)", repr(t))
        n_out = win.count_through(t - self.period)
        self._check_slide(y, n_out, func)
        win.evict(n_out)
        if win.push(t, y, s, w):
            sync(win, self._engine, func)

    def __iter__(self) -> Iterator[tuple[float, float, float, Count]]:  # type: ignore[override]
        """The events ``(t, y, s, w)`` in the window, oldest first."""
        return iter([e[1:] for e in self._win.items()])

    def _check(self) -> None:
        super()._check()
        ts = [e[1] for e in self._win.items()]
        assert ts == sorted(ts)
        if ts:
            assert ts[0] > ts[-1] - self.period
