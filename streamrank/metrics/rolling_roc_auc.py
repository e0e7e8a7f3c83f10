"""Exact, weighted ROC AUC over a sliding window, as a River metric."""

from __future__ import annotations

from collections import deque
from itertools import islice
from operator import itemgetter

import numpy as np

from .._validation import describe, param_error
from ._base import MAX_PENDING, SCALAR_FLUSH
from ._binary_engine import BinaryPairEngine
from .roc_auc import _BinaryAUCMetric, _weights_or_none

__all__ = ["RollingROCAUC"]


class RollingROCAUC(_BinaryAUCMetric):
    """Exact ROC AUC of the last ``window_size`` events, weighted, ties counting 1/2.

    A drop-in replacement for ``river.metrics.RollingROCAUC`` (same parameters, same
    window), which differs in three ways:

    * ties are exact: River halves tied (positive, negative) counts with integer
      division, so one positive and one negative at the same score give it ``0.0``
      instead of ``0.5``;
    * events carry a weight ``w`` (River's has none);
    * `get` costs O(1): the counts are kept up to date as events enter and leave the
      window (SPEC.md section 4), where River sweeps the whole window on every read.

    Each event enters the `BinaryPairEngine` and leaves it when the window moves past it:
    ``O(log W)`` per event one at a time, and buffered events are merged ``O(W + k log
    k)`` per read of ``k`` of them when that is cheaper. ``y_pred`` is read as in `ROCAUC`.
    ``get()`` returns ``0.0`` while the window holds one class only.

    ``revert(y_true, y_pred, w)`` removes the oldest event of the window with these values,
    as River's does, so that `utils.Rolling` can wrap it; an event that has already left
    the window (or was never added) is not held, and reverting it changes nothing (River's
    behaviour), rather than raising as the other metrics do. Runtime complexity:
    ``O(log W)`` plus the position of the event from the old end of the window (O(1) for
    the oldest, as `utils.Rolling` reverts).

    Not thread-safe: give each thread its own metric, or guard every call on a shared one,
    reads (`get`) included, with one `threading.Lock`.

    Parameters
    ----------
    window_size : int
        Number of most recent events held.
    pos_val
        Value of ``y_true`` (and key of ``y_pred``) to treat as positive.

    Examples
    --------
    >>> from streamrank.metrics import RollingROCAUC
    >>> y_true = [ 0,  1,  0,  1,  0,  1,  0,  0,   1,  1]
    >>> y_pred = [.3, .5, .5, .7, .1, .3, .1, .4, .35, .8]
    >>> metric = RollingROCAUC(window_size=4)
    >>> for yt, yp in zip(y_true, y_pred):
    ...     metric.update(yt, yp)
    >>> metric
    RollingROCAUC: 75.00%

    One tied (positive, negative) pair, which River's version scores 0.0:

    >>> metric = RollingROCAUC(window_size=2)
    >>> for yt, yp in [(1, 0.9), (1, 0.5), (0, 0.5)]:
    ...     metric.update(yt, yp)
    >>> metric.get()
    0.5
    """

    def __init__(self, window_size=1000, pos_val=True):
        if isinstance(window_size, bool) or not isinstance(window_size, int) or window_size < 1:
            raise param_error("window_size", "RollingROCAUC", "a positive int",
                              describe(window_size))
        self.window_size = window_size
        self.pos_val = pos_val
        self._engine = BinaryPairEngine()
        self._incoming = []      # events not yet in _window (update only appends here)
        self._window = deque()   # (label, score, weight) of the window, oldest first
        self._n_new = 0          # the newest _n_new events of _window are not in the engine
        self._gone = []          # events in the engine that left the window, to remove
        self._weighted = False   # True once an event's weight was not 1

    def update(self, y_true, y_pred, w=1.0) -> None:
        """Add an event; the oldest leaves once the window is full. Runtime
        complexity: O(1) amortized (buffered)."""
        s = y_pred.get(self.pos_val, 0.0) if type(y_pred) is dict else y_pred
        if (type(s) is float and s - s == 0.0
                and (y_true.__class__ is bool or y_true.__class__ is int)
                and (self.pos_val.__class__ is bool or self.pos_val.__class__ is int)
                and (w == 1 and (w.__class__ is float or w.__class__ is int))):
            event = (1 if y_true == self.pos_val else 0, s, 1)   # the common case
        else:
            event = self._event(y_true, y_pred, w, "RollingROCAUC.update")
            if event[2] != 1:
                self._weighted = True
        incoming = self._incoming
        incoming.append(event)
        if len(incoming) >= MAX_PENDING:
            self._flush()

    def revert(self, y_true, y_pred, w=1.0) -> None:
        """Remove the oldest event of the window with these values (nothing happens
        if none is held)."""
        event = self._event(y_true, y_pred, w, "RollingROCAUC.revert")
        self._settle()
        window = self._window
        for i, held in enumerate(window):
            if held == event:
                break
        else:
            return
        applied = len(window) - self._n_new
        del window[i]
        if i >= applied:
            self._n_new -= 1
        else:
            self._gone.append(event)

    def _settle(self) -> None:
        """Move the incoming events into the window, and the overflow out of it."""
        incoming = self._incoming
        if not incoming:
            return
        window = self._window
        window.extend(incoming)
        self._n_new += len(incoming)
        self._incoming = []
        overflow = len(window) - self.window_size
        if overflow > 0:
            applied = len(window) - self._n_new
            popleft = window.popleft
            if overflow <= applied:
                self._gone.extend([popleft() for _ in range(overflow)])
            else:  # everything applied leaves, and some events that never arrived
                self._gone.extend([popleft() for _ in range(applied)])
                for _ in range(overflow - applied):
                    popleft()
                self._n_new -= overflow - applied

    def _flush(self) -> None:
        self._settle()
        n_new, gone = self._n_new, self._gone
        if not n_new and not gone:
            return
        engine = self._engine
        new = list(islice(reversed(self._window), n_new))
        if n_new + len(gone) < SCALAR_FLUSH:
            for event in gone:
                engine.remove(*event)
            for event in new:
                engine.add(*event)
        else:
            engine.swap_many(*_arrays(gone, self._weighted), *_arrays(new, self._weighted))
        self._n_new = 0
        self._gone = []

    def get(self) -> float:
        """The exact AUC of the window; ``0.0`` while it holds one class only.
        Runtime complexity: O(1) after applying the buffered events."""
        incoming = self._incoming
        if len(incoming) == 1 and not self._n_new and not self._gone:
            # Read after every event: one in, at most one out, no buffers involved.
            event = incoming.pop()
            window = self._window
            window.append(event)
            engine = self._engine
            if len(window) > self.window_size:
                engine.remove(*window.popleft())
            engine.add(*event)
        else:
            self._flush()
        if self._engine.stale:   # float rounding of a huge weight that left: recount
            self._engine.rebuild(*_arrays(list(self._window), True))
        auc = self._engine.auc
        return 0.0 if auc != auc else auc

    @property
    def n_events(self) -> int:
        """Events in the window (``window_size`` once full, less after reverts).

        Not ``__len__``, which would make an empty metric falsy."""
        self._settle()
        return len(self._window)


def _arrays(events, weighted):
    """``(labels, scores, weights or None)`` arrays of a list of event tuples
    (``np.fromiter`` over ``itemgetter``: about 1.5x faster than ``zip(*events)``)."""
    k = len(events)
    if not k:
        return np.zeros(0, np.int64), np.zeros(0, np.float64), None
    y = np.fromiter(map(_first, events), np.int64, k)
    s = np.fromiter(map(_second, events), np.float64, k)
    if not weighted:
        return y, s, None
    return y, s, _weights_or_none([e[2] for e in events])


_first, _second = itemgetter(0), itemgetter(1)
