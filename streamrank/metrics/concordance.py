"""Harrell's concordance index (C-index) as a River metric, optionally with censoring."""

from __future__ import annotations

from river import metrics

from .._validation import describe, param_error
from .._validation import check_scalar, check_weight
from .._typing import Number
from ._base import (MAX_PENDING, READ_PAIR, ClassLabel, ClassOrScoreMetric,
                    PairEngineMetric, Prediction, Target, class_or_score, not_held_error,
                    or_zero, quiet, score_of)
from ._censored_engine import CensoredPairEngine

__all__ = ["ConcordanceIndex"]


class ConcordanceIndex(ClassOrScoreMetric, PairEngineMetric, metrics.base.RegressionMetric):
    """Harrell's C-index: the share of comparable pairs whose predictions are ordered as
    their times, ties in prediction counting 1/2.

    ``y_pred`` is a predicted survival time or any score where *higher means longer
    survival* (lifelines' direction; pass ``-risk`` for a hazard or risk score).

    Without censoring (the default) ``y_true`` is the observed time (or any ordinal or real
    label): every pair with different ``y_true`` is comparable, and the C-index is ``(C +
    T / 2) / P``, equal to ``lifelines.utils.concordance_index(times, preds)`` and to the
    AUC for binary ``y_true``.

    With ``censoring=True``, ``y_true`` is a pair ``(time, event_observed)``
    (``event_observed`` a bool, or 0/1); a plain number counts as an observed event. A pair
    is comparable when the one that leaves first is an observed event; at equal times a
    censored case is taken to outlive an event, and two events (or two censored cases)
    are not comparable. These are ``lifelines.utils.concordance_index(times, preds,
    events)``'s rules, which the tests check on every prefix.

    ``get()`` returns ``0.0`` while no pair is comparable (lifelines raises
    ``ZeroDivisionError`` there), River's convention.

    With a binary classifier's output (a ``{class: probability}`` dict from
    ``predict_proba_one``, which River's evaluation hands it: ``requires_labels`` is
    False), the score is the probability of ``pos_val`` and, without censoring, ``y_true``
    the class (1 for ``pos_val``, 0 for another), as `KendallTau` says: the C-index is
    then the AUC. With censoring only the score is read so, ``y_true`` keeping its
    ``(time, event_observed)`` meaning. `works_with` regressors and classifiers, and
    ``ROCAUC() + ConcordanceIndex()`` forms a ``river.metrics.Metrics``.

    Runtime complexity: `update` / `revert` ``O(log n)`` for few distinct times, ``O(log^2
    n)`` amortized otherwise; `get` O(1) (after the buffered updates, without censoring).

    Not thread-safe: give each thread its own metric, or guard every call on a shared one,
    reads (`get`) included, with one `threading.Lock`.

    Parameters
    ----------
    censoring : bool
        Read ``y_true`` as ``(time, event_observed)``.
    pos_val
        The class whose probability is the score when ``y_pred`` is a classifier's
        ``{class: probability}`` dict; unused with numbers.

    Examples
    --------
    >>> from streamrank.metrics import ConcordanceIndex
    >>> metric = ConcordanceIndex()
    >>> for time, pred in [(1, 1.0), (2, 3.0), (3, 2.0), (4, 4.0)]:
    ...     metric.update(time, pred)
    >>> metric.get()
    0.833333...

    With censoring, the case censored at ``t = 2`` is not known to die before the one at
    ``t = 3``, so their discordant pair is not comparable:

    >>> metric = ConcordanceIndex(censoring=True)
    >>> for time, event, pred in [(1, True, 1.0), (2, False, 3.0), (3, True, 2.0),
    ...                           (4, True, 4.0)]:
    ...     metric.update((time, event), pred)
    >>> metric.get()
    1.0
    """

    _READ = READ_PAIR      # without censoring; with it, update and revert are below

    def __init__(self, censoring: bool = False, pos_val: ClassLabel = True) -> None:
        if not isinstance(censoring, bool):
            raise param_error("censoring", "ConcordanceIndex", "a bool", describe(censoring),
                              TypeError)
        self.censoring = censoring
        self.pos_val = pos_val
        if censoring:  # two dominance queries per sample: no batch path to buffer for
            self._bind(CensoredPairEngine(), self._READ, MAX_PENDING)
        else:
            self._init_engine()

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"censoring": True}
        yield {"pos_val": False}

    def _sample(self, y_true, y_pred, w, func):
        if not self.censoring:
            if isinstance(y_true, tuple):
                raise param_error("y_true", func, "a number (a time, or any ordinal or real "
                                  "label); pass censoring=True for (time, event_observed) "
                                  "pairs", describe(y_true), TypeError)
            y, s = class_or_score(y_true, y_pred, self.pos_val, func)
            return y, s, check_weight(w, func)
        s = (score_of(y_pred, self.pos_val, func) if isinstance(y_pred, dict)
             else check_scalar(y_pred, "y_pred", func))
        w = check_weight(w, func)
        if isinstance(y_true, tuple):
            if len(y_true) != 2:
                raise param_error("y_true", func, "a (time, event_observed) pair",
                                  describe(y_true))
            t, e = y_true
            if isinstance(e, str) or e not in (0, 1):
                raise param_error("y_true", func, "a (time, event_observed) pair whose "
                                  "event_observed is a bool or 0/1", describe(y_true))
            return check_scalar(t, "y_true", func), bool(e), s, w
        return check_scalar(y_true, "y_true", func), True, s, w

    def revert(self, y_true: Target, y_pred: Prediction, w: Number = 1.0) -> None:
        if not self.censoring:
            return super().revert(y_true, y_pred, w)
        func = "ConcordanceIndex.revert"
        sample = self._sample(y_true, y_pred, w, func)
        try:
            self._engine.remove(*sample)
        except ValueError:
            raise not_held_error(func, y_true, y_pred, w) from None

    def update(self, y_true: Target, y_pred: Prediction, w: Number = 1.0) -> None:
        if not self.censoring:
            return super().update(y_true, y_pred, w)
        self._engine.add(*self._sample(y_true, y_pred, w, "ConcordanceIndex.update"))

    @property
    def bigger_is_better(self) -> bool:
        return True

    def get(self) -> float:
        """The C-index of every event held; ``0.0`` while no pair is comparable."""
        if self.censoring:
            return or_zero(self._engine.c_index)
        return quiet(self._counts(), "c_index")
