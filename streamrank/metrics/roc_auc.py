"""Exact ROC AUC as a River metric: ties count one half, weights, exact ``revert``."""

from __future__ import annotations

from river import base, metrics

from .. import _engine_ci
from .._validation import check_level, check_weight
from ..intervals import AUCInterval
from ._base import (READ_BINARY, ClassLabel, ClassOrScoreMetric, PairEngineMetric,
                    binary_label, check_count, score_of)

__all__ = ["ROCAUC"]


class _BinaryAUCMetric(metrics.base.BinaryMetric):
    """Shared by the AUC metrics: River's binary-metric traits and reading an event."""

    def works_with(self, model: base.Estimator) -> bool:
        return (isinstance(model, (base.Classifier, base.AnomalyDetector, base.AnomalyFilter)))

    @property
    def requires_labels(self) -> bool:
        return False

    @property
    def works_with_weights(self) -> bool:
        return True

    def __add__(self, other):
        """River's ``+`` (a ``river.metrics.Metrics`` with another classification
        metric), which also takes a tau-style metric (`KendallTau`, ...): those read a
        classifier's probabilities too (`ClassOrScoreMetric`)."""
        if isinstance(other, ClassOrScoreMetric):
            return metrics.base.Metrics([self, other])
        return super().__add__(other)

    def _event(self, y_true, y_pred, w, func):
        """``(label, score, weight)``: label 1 for ``pos_val``, else 0; the score of
        ``pos_val`` in a dict of probabilities, or the number itself; a weight >= 0."""
        s = y_pred.get(self.pos_val, 0.0) if type(y_pred) is dict else y_pred
        if type(s) is not float or s - s != 0.0:  # not a finite float: the slow path
            s = score_of(y_pred, self.pos_val, func)
        if w.__class__ is not int or w != 1:
            w = 1 if w.__class__ is float and w == 1.0 else check_weight(w, func)
        return binary_label(y_true, self.pos_val, func), s, w


class ROCAUC(PairEngineMetric, _BinaryAUCMetric):
    """Exact area under the ROC curve of every event so far: ties count one half.

    ``AUC = (C + T / 2) / P``: the weighted share of (positive, negative) pairs whose
    positive scores higher, a tie in score counting 1/2 (the Mann-Whitney statistic over
    ``P = W+ W-``). It equals ``sklearn.metrics.roc_auc_score(y_true, scores,
    sample_weight=w)`` on the events seen, for any score scale: a drop-in replacement for
    ``river.metrics.ROCAUC``, which approximates the curve with ``n_thresholds`` cut
    points in ``[0, 1]`` (its default 10 thresholds give 0.875 on the example below,
    whose exact AUC is 0.75, and ``-0.0`` for scores outside ``[0, 1]``).

    ``y_pred`` is a dict of class probabilities (the probability of ``pos_val`` is used,
    ``0.0`` if absent, as River), or a score (float, int or bool) on any scale, such as an
    anomaly detector's ``score_one``. ``get()`` returns ``0.0`` while one class has no
    weight (River's convention for an undefined AUC).

    Runtime complexity: `update` O(1) amortized (buffered); `get` O(1) after applying the
    buffered updates to the `PairEngine` (two label levels: ``O(log n)`` each, or a batch
    of ``k`` counted with numpy in ``O(k log k + n)``); `revert` O(1) for an update still
    buffered, else ``O(log n)``. Recomputing the AUC from scratch costs ``O(n log n)``
    per read. Memory: the engine's, plus one dict entry per distinct ``(y_true, score,
    w)`` held (what makes `revert` exact; see `PairEngineMetric`).

    Not thread-safe: give each thread its own metric, or guard every call on a shared one,
    reads (`get`) included, with one `threading.Lock`.

    Parameters
    ----------
    n_thresholds : int, default 10
        Accepted for River compatibility, with no effect. ``river.metrics.ROCAUC``
        (``n_thresholds=10, pos_val=True``) bins the scores at ``n_thresholds`` cut points
        in ``[0, 1]`` to approximate the curve; this metric is exact: it keeps every
        distinct score, so there is nothing to bin, and the AUC is the same for any
        value. Validated as River takes it: an int ``>= 2`` (or numpy integer); a float,
        string, None or bool raises `TypeError` (River's ``range`` raises it too), an int
        below 2 `ValueError` (River fails with ``ZeroDivisionError`` or ``IndexError``).
        Kept as ``self.n_thresholds``, so that `clone` keeps it.
    pos_val
        Value of ``y_true`` (and key of ``y_pred``) to treat as positive. Both arguments
        take River's names and positions: ``ROCAUC(20, False)`` is
        ``ROCAUC(n_thresholds=20, pos_val=False)``.

    Examples
    --------
    >>> from streamrank.metrics import ROCAUC
    >>> metric = ROCAUC()
    >>> for y_true, y_pred in zip([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]):
    ...     metric.update(y_true, y_pred)
    >>> metric
    ROCAUC: 75.00%

    Ties count one half, and any score scale works:

    >>> metric = ROCAUC()
    >>> for y_true, y_pred in [(True, -3.0), (False, -3.0), (True, 250.0)]:
    ...     metric.update(y_true, y_pred)
    >>> metric.get()
    0.75
    >>> metric.revert(True, 250.0)     # undo any earlier update
    >>> metric.get()
    0.5

    River's arguments are accepted; ``n_thresholds`` changes nothing (exact AUC):

    >>> metric = ROCAUC(n_thresholds=20)
    >>> for y_true, y_pred in zip([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]):
    ...     metric.update(y_true, y_pred)
    >>> metric, metric.clone()._get_params()
    (ROCAUC: 75.00%, {'n_thresholds': 20, 'pos_val': True})

    A tau-style metric composes with it (`ClassOrScoreMetric`): both read the
    probability of ``pos_val`` from a classifier's ``predict_proba_one``:

    >>> from streamrank.metrics import KendallTau
    >>> both = ROCAUC() + KendallTau()
    >>> for y_true, p in [(True, 0.8), (False, 0.3), (True, 0.6), (False, 0.7)]:
    ...     both.update(y_true, {False: 1 - p, True: p})
    >>> both
    ROCAUC: 75.00%
    KendallTau: 0.408248
    """

    #: River's default (it changes no number, so a pickle need not carry it).
    n_thresholds = 10

    def __init__(self, n_thresholds: int = 10, pos_val: ClassLabel = True) -> None:
        self.n_thresholds = check_count(n_thresholds, "n_thresholds", "ROCAUC", minimum=2)
        self.pos_val = pos_val
        self._init_engine("binary")

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"n_thresholds": 2, "pos_val": False}

    _sample = _BinaryAUCMetric._event
    _READ = READ_BINARY

    get = PairEngineMetric._get_auc    # one compiled call

    def _placement_moments(self):
        """The engine's `PairEngine.placement_moments` of the events held (the buffered
        updates applied first): ``O(1)`` per read after the first, ``O(log n)`` per event."""
        return self._counted().placement_moments()

    def get_ci(self, level: float = 0.95, method: str = "delong") -> AUCInterval:
        """The AUC of the events held with its standard error and interval: the
        `AUCInterval` of `streamrank.roc_auc_ci` on them (``pos_val`` the positive class).

        River's convention: a read never fails on the data. While one class has no
        weight, or after a fractional weight (DeLong's and Hanley-McNeil's variances take
        frequency weights), every field is ``nan``. A ``level`` outside ``(0, 1)`` or a
        ``method`` other than ``"delong"`` and ``"hanley-mcneil"`` is a `ValueError`.
        Runtime complexity: ``O(1)`` after the buffered updates are applied (``O(n)`` at
        the first call, which turns the placement moments on; ``O(log n)`` per event
        from then on).

        >>> metric = ROCAUC()
        >>> for y_true, y_pred in zip([0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.2, 0.7]):
        ...     metric.update(y_true, y_pred)
        >>> ci = metric.get_ci()
        >>> round(ci.auc, 4), round(ci.low, 4), round(ci.high, 4)
        (0.8889, 0.2614, 0.9945)
        >>> ROCAUC().get_ci().high
        nan
        """
        return _get_ci(self._counted(), level, method, "ROCAUC.get_ci")


def _get_ci(engine, level, method, func) -> AUCInterval:
    """`ROCAUC.get_ci` and `RollingROCAUC.get_ci` of their (synced) engine."""
    method = _engine_ci.check_method(method, func)
    return _engine_ci.interval_or_nan(engine, check_level(level, func), method)
