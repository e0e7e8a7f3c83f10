"""Sliding windows over a stream of (label, score, weight) events, with exact pair counts.

A window is an insert of each new event and a removal of each event that leaves (SPEC.md
section 4): ``O(log W)`` per event for binary labels, and reading the counts is ``O(1)``.
"""

from __future__ import annotations

import math
from collections import deque

import numpy as np

from ._validation import describe, param_error
from .counts import PairCounts
from .engine import PairEngine, check_scalar, check_weight

__all__ = ["SlidingPairCounter", "TimeSlidingPairCounter"]


class _Window:
    """What both windows share: an engine, a deque of the events held, and reads."""

    def __init__(self, labels):
        self._engine = PairEngine(labels)
        self._events: deque = deque()

    @property
    def counts(self) -> PairCounts:
        """Counts of the events in the window. Runtime complexity: O(1) (``O(W log W)``
        once when float rounding went stale: see `PairEngine.stale`)."""
        if self._engine.stale:
            self._engine.rebuild(*(np.array([e[i] for e in self._events], dtype=np.float64)
                                   for i in (-3, -2, -1)))
        return self._engine.counts

    def __len__(self) -> int:
        return len(self._events)

    def __iter__(self):
        """The events in the window, oldest first."""
        return iter(self._events)

    def clear(self) -> None:
        self._engine.clear()
        self._events.clear()

    def _slide(self, y, s, w, n_out, func) -> None:
        """Evict the ``n_out`` oldest events and add ``(y, s, w)``, validated first."""
        events = self._events
        leaving = [events[i] for i in range(n_out)]
        self._engine.check_labels_after([e[-3] for e in leaving], (y,), func)
        for _ in range(n_out):
            *_, ey, es, ew = events.popleft()
            self._engine.remove(ey, es, ew, caller=func)
        self._engine.add(y, s, w, caller=func)

    def _check(self) -> None:
        self.counts  # noqa: B018 - the read recounts a stale engine, as a user's would
        ys, ss, ws = ([e[i] for e in self._events] for i in (-3, -2, -1))
        self._engine._check(ys, ss, ws)


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

    def __init__(self, window_size: int, *, labels="auto"):
        if isinstance(window_size, bool) or not isinstance(window_size, int) or window_size < 1:
            raise param_error("window_size", "SlidingPairCounter", "a positive int",
                              describe(window_size))
        super().__init__(labels)
        self.window_size = window_size

    def push(self, y, s, w=1.0) -> None:
        """Add an event ``(y, s, w)``; the oldest leaves once the window is full. Validated
        first: a bad event changes nothing."""
        func = "SlidingPairCounter.push"
        y = check_scalar(y, "y", func)
        s = check_scalar(s, "s", func)
        w = check_weight(w, func)
        self._slide(y, s, w, int(len(self._events) >= self.window_size), func)
        self._events.append((y, s, w))

    def _check(self) -> None:
        super()._check()
        assert len(self._events) <= self.window_size


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

    def __init__(self, period: float, *, labels="auto"):
        if isinstance(period, bool) or not isinstance(period, (int, float)) \
                or not (period > 0 and math.isfinite(period)):
            raise param_error("period", "TimeSlidingPairCounter", "a positive finite number",
                              describe(period))
        super().__init__(labels)
        self.period = float(period)

    def push(self, y, s, w=1.0, *, t) -> None:
        """Add an event ``(y, s, w)`` at time ``t`` and evict the events with
        ``t' <= t - period``. Validated first: a bad event changes nothing."""
        func = "TimeSlidingPairCounter.push"
        y = check_scalar(y, "y", func)
        s = check_scalar(s, "s", func)
        w = check_weight(w, func)
        t = check_scalar(t, "t", func)
        events = self._events
        if events and t < events[-1][0]:
            raise param_error("t", func, f"at least the latest time {events[-1][0]!r} "
                              "(events arrive in time order)", repr(t))
        horizon = t - self.period
        n_out = 0
        for event in events:
            if event[0] > horizon:
                break
            n_out += 1
        self._slide(y, s, w, n_out, func)
        events.append((t, y, s, w))

    def _check(self) -> None:
        super()._check()
        ts = [e[0] for e in self._events]
        assert ts == sorted(ts)
        if ts:
            assert ts[0] > ts[-1] - self.period
