"""Rank correlations between ``y_true`` and ``y_pred`` as River metrics: Kendall's tau,
Goodman-Kruskal gamma, Somers' D."""

from __future__ import annotations

from typing import Literal

from river import metrics

from .._validation import describe, param_error
from .._validation import check_weight
from ._base import (READ_PAIR, ClassLabel, ClassOrScoreMetric, PairEngineMetric,
                    class_or_score, quiet)

__all__ = ["GoodmanKruskalGamma", "KendallTau", "SomersD"]

_VARIANTS = ("a", "b", "c")
_INTS = (bool, int)


class _PairCountMetric(ClassOrScoreMetric, PairEngineMetric, metrics.base.RegressionMetric):
    """A `RegressionMetric` read off the running pair counts of (y_true, y_pred), which
    also takes a binary classifier's output (`ClassOrScoreMetric`, `class_or_score`)."""

    _prop = ""  # the `PairCounts` property that is the metric
    _READ = READ_PAIR

    def __init__(self, pos_val: ClassLabel = True) -> None:
        self.pos_val = pos_val
        self._init_engine()

    def _sample(self, y_true, y_pred, w, func):
        # plain numbers are read in C (READ_PAIR); a classifier's output comes here
        pos = self.pos_val
        if type(y_pred) is dict:   # the common one, as `class_or_score` reads it
            s = y_pred.get(pos, 0.0)
            if (type(s) is float and s - s == 0.0 and y_true.__class__ in _INTS
                    and pos.__class__ in _INTS):
                return (1 if y_true == pos else 0), s, check_weight(w, func)
        y, s = class_or_score(y_true, y_pred, pos, func)
        return y, s, check_weight(w, func)

    @property
    def bigger_is_better(self) -> bool:
        return True

    def get(self) -> float:
        """The metric of every event held; ``0.0`` when undefined. Runtime complexity:
        O(1) after a single update, ``O(k log k + L n)`` for ``k`` buffered ones."""
        return quiet(self._counts(), self._prop)


class KendallTau(_PairCountMetric):
    """Kendall's rank correlation between ``y_true`` and ``y_pred``, exact, with ties.

    With the pair counts of `PairCounts` (``C`` concordant, ``D`` discordant, ``N0`` all pairs,
    ``Ty`` / ``Ts`` pairs tied in ``y_true`` / in ``y_pred``, a pair weighing ``w_i w_j``):

    * ``"a"``: ``(C - D) / N0``;
    * ``"b"`` (default): ``(C - D) / sqrt((N0 - Ty) (N0 - Ts))``, which corrects for ties
      in either variable, as ``scipy.stats.kendalltau(y_true, y_pred)``;
    * ``"c"`` (Stuart): ``2 m (C - D) / (n^2 (m - 1))``, ``m`` the smaller number of
      distinct values, ``n`` the weight sum, as ``scipy.stats.kendalltau(...,
      variant="c")``.

    ``get()`` returns ``0.0`` while tau is undefined (fewer than two events, or every
    ``y_true`` or every ``y_pred`` equal), River's convention.

    It takes a regressor's output (``y_true`` and ``y_pred`` numbers) or a binary
    classifier's: `works_with` both, and ``requires_labels`` is False, so that River's
    evaluation hands it ``predict_proba_one``'s dict (``{False: p0, True: p1}``). The
    score is then the probability of ``pos_val`` (``0.0`` if absent), as `ROCAUC` reads
    it, and ``y_true`` is read as the class, 1 for ``pos_val`` and 0 for another, so that
    the metric is tau between the labels and the positive-class probabilities
    (``streamrank.kendall_tau(labels, probabilities)``). A predicted class is read as a
    number (a bool is 0 / 1), or, for classes that are not numbers (strings), as 1 for
    ``pos_val`` and 0 for another. ``ROCAUC() + KendallTau()`` forms a
    ``river.metrics.Metrics``; see `ClassOrScoreMetric`.

    Runtime complexity: `update` and `revert` ``O(log n)`` for few distinct ``y_true``
    values (up to 16; ``O(L log n)`` for ``L`` of them), ``O(log^2 n)`` amortized for
    continuous ones; `get` O(1), after applying the buffered updates (``O(k log k + k
    log n)`` for ``k`` of them). Recomputing tau from scratch costs ``O(n log n)`` per
    read, ``O(n^2)`` naively.

    Not thread-safe: give each thread its own metric, or guard every call on a shared one,
    reads (`get`) included, with one `threading.Lock`.

    Parameters
    ----------
    variant : {"a", "b", "c"}
        Which tau.
    pos_val
        The class whose probability is the score when ``y_pred`` is a classifier's
        ``{class: probability}`` dict (and ``y_true`` a class); unused with numbers.

    Examples
    --------
    >>> from streamrank.metrics import KendallTau
    >>> metric = KendallTau()
    >>> for y_true, y_pred in [(1, 1.0), (2, 3.0), (3, 2.0), (4, 4.0)]:
    ...     metric.update(y_true, y_pred)
    >>> metric
    KendallTau: 0.666667
    >>> metric.revert(3, 2.0)          # undo any earlier update
    >>> metric.get()
    1.0

    A classifier's probabilities: tau-b between the labels and ``p(True)``:

    >>> import streamrank
    >>> labels, probas = [True, False, True, False], [0.8, 0.3, 0.6, 0.7]
    >>> metric = KendallTau()
    >>> for y_true, p in zip(labels, probas):
    ...     metric.update(y_true, {False: 1 - p, True: p})
    >>> metric.get() == streamrank.kendall_tau(labels, probas)
    True
    """

    def __init__(self, variant: Literal["a", "b", "c"] = "b",
                 pos_val: ClassLabel = True) -> None:
        if variant not in _VARIANTS:
            raise param_error("variant", "KendallTau", f"one of {_VARIANTS}", describe(variant))
        super().__init__(pos_val)
        self.variant = variant
        self._prop = "tau_" + variant

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"variant": "c"}
        yield {"variant": "a", "pos_val": False}


class GoodmanKruskalGamma(_PairCountMetric):
    """Goodman and Kruskal's gamma between ``y_true`` and ``y_pred``: ``(C - D) / (C +
    D)``, exact; pairs tied in either variable are left out.

    ``get()`` returns ``0.0`` while no pair is untied in both (River's convention).

    With a binary classifier's output (a ``{class: probability}`` dict from
    ``predict_proba_one``, which River's evaluation hands it: ``requires_labels`` is
    False), gamma is computed between the class (1 for ``pos_val``, 0 for another) and the
    probability of ``pos_val``, as `KendallTau` says; `works_with` regressors and
    classifiers, and ``ROCAUC() + GoodmanKruskalGamma()`` forms a
    ``river.metrics.Metrics``.

    Runtime complexity: as `KendallTau`.

    Not thread-safe: give each thread its own metric, or guard every call on a shared one,
    reads (`get`) included, with one `threading.Lock`.

    Parameters
    ----------
    pos_val
        The class whose probability is the score when ``y_pred`` is a classifier's
        ``{class: probability}`` dict (and ``y_true`` a class); unused with numbers.

    Examples
    --------
    >>> from streamrank.metrics import GoodmanKruskalGamma
    >>> metric = GoodmanKruskalGamma()
    >>> for y_true, y_pred in [(1, 0.1), (1, 0.3), (2, 0.3), (2, 0.2)]:
    ...     metric.update(y_true, y_pred)
    >>> metric.get()                   # C = 2, D = 1, one pair tied in y_pred
    0.333333...
    """

    _prop = "gamma"


class SomersD(_PairCountMetric):
    """Somers' D of ``y_pred`` given ``y_true``: ``(C - D) / P``, ``P`` the pairs whose
    ``y_true`` differ (pairs tied in ``y_pred`` only count in ``P``).

    Equal to ``scipy.stats.somersd(y_true, y_pred).statistic`` (``y_true`` first); with
    binary ``y_true`` it is ``2 AUC - 1`` (the Gini coefficient). ``get()`` returns ``0.0``
    while every ``y_true`` is equal (River's convention).

    With a binary classifier's output (a ``{class: probability}`` dict from
    ``predict_proba_one``, which River's evaluation hands it: ``requires_labels`` is
    False), Somers' D (``2 AUC - 1``) is computed between the class (1 for ``pos_val``, 0
    for another) and the probability of ``pos_val``, as `KendallTau` says; `works_with`
    regressors and classifiers, and ``ROCAUC() + SomersD()`` forms a
    ``river.metrics.Metrics``.

    Runtime complexity: as `KendallTau`.

    Not thread-safe: give each thread its own metric, or guard every call on a shared one,
    reads (`get`) included, with one `threading.Lock`.

    Parameters
    ----------
    pos_val
        The class whose probability is the score when ``y_pred`` is a classifier's
        ``{class: probability}`` dict (and ``y_true`` a class); unused with numbers.

    Examples
    --------
    >>> from streamrank.metrics import SomersD
    >>> metric = SomersD()
    >>> for y_true, y_pred in [(0, 0.1), (0, 0.4), (1, 0.35), (1, 0.8)]:
    ...     metric.update(y_true, y_pred)
    >>> metric.get()                   # 2 * 0.75 - 1
    0.5
    """

    _prop = "somers_d"
