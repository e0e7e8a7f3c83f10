"""Exact, weighted ROC AUC over a sliding window, as a River metric."""

from __future__ import annotations

from typing import Any

from .._validation import check_int
from ..engine import PairEngine
from ..structures._cwindow import RowWindow
from ..windows import sync
from . import _base
from .._typing import Number
from ._base import ClassLabel, Prediction, UpdateBuffer
from ..intervals import AUCInterval
from .roc_auc import _BinaryAUCMetric, _get_ci

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
      window, where River sweeps the whole window on every read.

    The window is the package's window mechanism (`streamrank.windows`: a compiled
    `RowWindow`, one C call per event); its events enter a `PairEngine`
    (``labels="binary"``) in one compiled loop at the next read (``O(log W)`` per event),
    and an event that came and left between two reads never reaches the engine. The
    window itself is what the engine is recounted from when float rounding of a huge
    weight that left may be large (`PairEngine.stale`). ``y_pred`` is read as in `ROCAUC`. ``get()``
    returns ``0.0`` while the window holds one class only.

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

    def __init__(self, window_size: int = 1000, pos_val: ClassLabel = True) -> None:
        self.window_size = check_int(window_size, "window_size", "RollingROCAUC")
        self.pos_val = pos_val
        self._engine = PairEngine("binary")
        # the window, oldest first, and its changes the engine has not received yet
        self._win = RowWindow(_base.MAX_PENDING)

    def update(self, y_true: ClassLabel, y_pred: Prediction, w: Number = 1.0) -> None:
        """Add an event; the oldest leaves once the window is full. Runtime
        complexity: O(1) amortized (one C call; counted at the next read)."""
        s = y_pred.get(self.pos_val, 0.0) if type(y_pred) is dict else y_pred
        if (type(s) is float and s - s == 0.0
                and (y_true.__class__ is bool or y_true.__class__ is int)
                and (self.pos_val.__class__ is bool or self.pos_val.__class__ is int)
                and ((w.__class__ is float or w.__class__ is int) and w == 1)):
            full = self._win.push_keep(1.0 if y_true == self.pos_val else 0.0, s, 1.0,
                                       self.window_size)     # the common case
        else:
            y, s, w = self._event(y_true, y_pred, w, "RollingROCAUC.update")
            full = self._win.push_keep(y, s, w, self.window_size)
        if full:
            self._flush()

    def revert(self, y_true: ClassLabel, y_pred: Prediction, w: Number = 1.0) -> None:
        """Remove the oldest event of the window with these values (nothing happens
        if none is held)."""
        y, s, w = self._event(y_true, y_pred, w, "RollingROCAUC.revert")
        self._win.revert(y, s, w)

    def _flush(self) -> PairEngine:
        return sync(self._win, self._engine, "RollingROCAUC.update")

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Unpickle: this version's state as it is; one whose window was a deque and an
        `UpdateBuffer` (earlier development versions) moved into a `RowWindow`; one of
        streamrank 0.1.0 rebuilt from its window (`streamrank.metrics._legacy`;
        `SnapshotError` for a state it cannot read)."""
        if type(state) is dict and type(state.get("_win")) is RowWindow:
            self.__dict__.update(state)
        elif type(state) is dict and type(state.get("_pending")) is UpdateBuffer:
            pending = state.pop("_pending")
            window = state.pop("_window")
            self.__dict__.update(state)
            pending.flush(self._engine, "RollingROCAUC.update")
            self._win = RowWindow()
            for y, s, w in window:
                self._win.push(float("nan"), y, s, w)
            self._win.mark_synced()
        else:
            from . import _legacy
            _legacy.rolling_state(self, state)

    def get(self) -> float:
        """The exact AUC of the window; ``0.0`` while it holds one class only.
        Runtime complexity: O(1) after applying the events since the last read."""
        return sync(self._win, self._engine, "RollingROCAUC.update").auc_or(0.0)

    def _placement_moments(self):
        """The engine's `PairEngine.placement_moments` of the window (its changes applied
        first): ``O(1)`` per read after the first, ``O(log W)`` per event."""
        return self._flush().placement_moments()

    def get_ci(self, level: float = 0.95, method: str = "delong") -> AUCInterval:
        """The AUC of the window with its standard error and interval: the
        `AUCInterval` of `streamrank.roc_auc_ci` on the events held (`ROCAUC.get_ci`
        says what it returns; it never fails on the data). Runtime complexity:
        ``O(1)`` after the events since the last read are applied (``O(W)`` at the first
        call, which turns the placement moments on).

        >>> metric = RollingROCAUC(window_size=6)
        >>> for yt, yp in [(1, .9), (0, .1), (0, .4), (1, .35), (1, .8), (0, .2), (1, .7)]:
        ...     metric.update(yt, yp)
        >>> round(metric.get_ci(method="hanley-mcneil").se, 4)
        0.1533
        """
        return _get_ci(self._flush(), level, method, "RollingROCAUC.get_ci")

    @property
    def n_events(self) -> int:
        """Events in the window (``window_size`` once full, less after reverts).

        Not ``__len__``, which would make an empty metric falsy."""
        return len(self._win)
