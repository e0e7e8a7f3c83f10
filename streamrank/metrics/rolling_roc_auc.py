"""Exact, weighted ROC AUC over a sliding window, as a River metric."""

from __future__ import annotations

from ..engine import PairEngine
from ..structures._cpairwindow import RollingCore
from ..structures._cwindow import RowWindow
from . import _base
from ._base import ClassLabel, check_count
from ..intervals import AUCInterval
from .roc_auc import _BinaryAUCMetric, _get_ci

__all__ = ["RollingROCAUC"]


class RollingROCAUC(RollingCore, _BinaryAUCMetric):
    """Exact ROC AUC of the last ``window_size`` events, weighted, ties counting 1/2.

    A drop-in replacement for ``river.metrics.RollingROCAUC`` (same parameters, same
    window), which differs in three ways:

    * ties are exact: River halves tied (positive, negative) counts with integer
      division, so one positive and one negative at the same score give it ``0.0``
      instead of ``0.5``;
    * events carry a weight ``w`` (River's has none);
    * `get` costs O(1): the counts are kept up to date as events enter and leave the
      window, where River sweeps the whole window on every read.

    The metric is a compiled owner of its window and engine
    (`streamrank.structures._cpairwindow.RollingCore`: `update`, `revert` and `get` are
    one C call each); its events enter a `PairEngine` (``labels="binary"``) as one
    sorted batch at the next read (``O(log W)`` per event), and an event that came and
    left between two reads never reaches the engine. The
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
    window_size : int, default 1000
        Number of most recent events held: an int ``>= 1`` (or numpy integer). A float,
        string or None raises `TypeError`, as River's does; so does a bool, which River
        takes as 1 or 0; an int below 1 raises `ValueError` (River takes 0 and panics at
        the first update; it refuses a negative one with ``OverflowError``).
    pos_val
        Value of ``y_true`` (and key of ``y_pred``) to treat as positive: any class
        (River's converts it with ``int``, so it refuses a string).

    Both arguments take River's names and positions
    (``river.metrics.RollingROCAUC(window_size=1000, pos_val=True)``), and `clone`
    keeps them.

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
        self.window_size = check_count(window_size, "window_size", "RollingROCAUC")
        self.pos_val = pos_val
        # the window, oldest first, and its changes the engine has not received yet
        RollingCore.__init__(self, PairEngine("binary"), RowWindow(_base.MAX_PENDING))

    def _flush(self) -> PairEngine:
        return self.sync("RollingROCAUC.update")

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
