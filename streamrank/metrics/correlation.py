"""Rank correlations between ``y_true`` and ``y_pred`` as River metrics: Kendall's tau,
Goodman-Kruskal gamma, Somers' D."""

from __future__ import annotations

from typing import Literal

from river import metrics

from .._validation import describe, param_error
from .._validation import check_scalar, check_weight
from ._base import READ_PAIR, PairEngineMetric, quiet

__all__ = ["GoodmanKruskalGamma", "KendallTau", "SomersD"]

_VARIANTS = ("a", "b", "c")


class _PairCountMetric(PairEngineMetric, metrics.base.RegressionMetric):
    """A `RegressionMetric` read off the running pair counts of (y_true, y_pred)."""

    _prop = ""  # the `PairCounts` property that is the metric
    _READ = READ_PAIR

    def __init__(self) -> None:
        self._init_engine()

    def _sample(self, y_true, y_pred, w, func):
        return (check_scalar(y_true, "y_true", func), check_scalar(y_pred, "y_pred", func),
                check_weight(w, func))

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
    """

    def __init__(self, variant: Literal["a", "b", "c"] = "b") -> None:
        if variant not in _VARIANTS:
            raise param_error("variant", "KendallTau", f"one of {_VARIANTS}", describe(variant))
        super().__init__()
        self.variant = variant
        self._prop = "tau_" + variant

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"variant": "c"}


class GoodmanKruskalGamma(_PairCountMetric):
    """Goodman and Kruskal's gamma between ``y_true`` and ``y_pred``: ``(C - D) / (C +
    D)``, exact; pairs tied in either variable are left out.

    ``get()`` returns ``0.0`` while no pair is untied in both (River's convention).

    Runtime complexity: as `KendallTau`.

    Not thread-safe: give each thread its own metric, or guard every call on a shared one,
    reads (`get`) included, with one `threading.Lock`.

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

    Runtime complexity: as `KendallTau`.

    Not thread-safe: give each thread its own metric, or guard every call on a shared one,
    reads (`get`) included, with one `threading.Lock`.

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
