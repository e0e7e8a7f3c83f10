"""The GSD test statistic of one ordered pair of models."""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np

from .._validation import describe, param_error
from ._lp import GSDProgram
from ._table import PerformanceTable

__all__ = ["GSDStatistic", "gsd_statistic"]

#: Tie tolerance for "statistic >= 0" and for counting permuted statistics <= the observed
#: one. The statistic at epsilon = 0 is a multiple of 1/s up to LP round-off (~1e-15), so any
#: value far below 1/s and far above the round-off works; an exact comparison with 0 would
#: let round-off decide ties (a statistic of 0 computed as -1e-16 would count as below).
TOL = 1e-9


@dataclass(frozen=True)
class GSDStatistic:
    """The GSD statistic ``d = min_u (E[u(competitor)] - E[u(model)])`` of one pair.

    The minimum runs over every normalised utility compatible with the metrics (monotone,
    cardinal differences respected, ``delta``-regular). ``d >= 0`` (up to ``TOL``) means
    the competitor GSD-dominates the model at this sample; in the permutation test small
    values are evidence *against* "the competitor dominates the model".

    Attributes
    ----------
    model, competitor
        The two model labels.
    statistic : float
        ``d`` on the natural scale: twice the values stored by the authors' R code, which
        divides by the pooled count ``n_model + n_competitor``.
    epsilon, delta, xi : float
        ``delta = epsilon * xi`` is the margin of the strict rows; ``xi`` (the largest
        feasible margin) is only computed when ``epsilon > 0`` and is ``nan`` otherwise.
    n_points, n_rows : int
        LP size: variables and constraint rows (reduced set).
    """

    model: object
    competitor: object
    statistic: float
    epsilon: float
    delta: float
    xi: float
    n_points: int
    n_rows: int

    @property
    def competitor_dominates(self) -> bool:
        """Whether ``statistic >= -TOL``: the competitor GSD-dominates the model here."""
        return self.statistic >= -TOL

    def __float__(self) -> float:
        return self.statistic

    def __repr__(self) -> str:
        return (f"GSDStatistic(model={self.model!r}, competitor={self.competitor!r}, "
                f"statistic={self.statistic:.6g}, epsilon={self.epsilon:g})")


def check_table(table, func: str) -> PerformanceTable:
    if not isinstance(table, PerformanceTable):
        raise param_error("table", func, "a PerformanceTable (build it with performance_table)",
                          describe(table), TypeError)
    return table


def check_epsilon(epsilon, func: str) -> float:
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float, np.floating, np.integer)) \
            or not (0.0 <= float(epsilon) <= 1.0):
        raise param_error("epsilon", func, "a number in [0, 1]", describe(epsilon))
    return float(epsilon)


class PairProblem:
    """The LP of one pair plus the pooled observations, ready for permutations.

    ``ids`` lists the point of every pooled observation, the model's ``n_a`` first, then the
    competitor's ``n_b``.
    """

    def __init__(self, table: PerformanceTable, i: int, j: int):
        xa = table.values[table.model_index == i]
        xb = table.values[table.model_index == j]
        self.n_a, self.n_b = len(xa), len(xb)
        self.program = GSDProgram(np.vstack([xa, xb]), table.n_ordinal)
        self.ids = self.program.ids

    def cost(self, ids_a: np.ndarray, ids_b: np.ndarray) -> np.ndarray:
        """``E_b[v] - E_a[v]`` as a linear objective over the points."""
        m = self.program.m
        return np.bincount(ids_b, minlength=m) / len(ids_b) - \
            np.bincount(ids_a, minlength=m) / len(ids_a)

    def observed_cost(self) -> np.ndarray:
        return self.cost(self.ids[: self.n_a], self.ids[self.n_a:])

    def delta(self, epsilon: float) -> tuple[float, float]:
        if epsilon == 0.0:
            return 0.0, math.nan
        xi = self.program.xi()
        return epsilon * xi, xi


def gsd_statistic(table: PerformanceTable, model: Hashable, competitor: Hashable, *,
                  epsilon: float = 0.0) -> GSDStatistic:
    """GSD statistic ``min_u (E[u(competitor)] - E[u(model)])`` on the reduced LP.

    Parameters
    ----------
    table : PerformanceTable
        From `performance_table`.
    model, competitor
        Two distinct model labels of the table.
    epsilon : float in [0, 1]
        Regularisation: the strict rows get margin ``delta = epsilon * xi``, ``xi`` the
        largest feasible margin. 0 (the default, the authors' headline statistic) allows
        every weakly compatible utility, step functions included.

    Returns
    -------
    GSDStatistic

    Notes
    -----
    The support set is the set of distinct vectors of the two models only (as in the
    authors' code, [J24]), plus the componentwise min and max as utility 0 and 1. The LP
    has one variable per point and the reduced rows of ``GSDProgram`` (Hasse covers of R1,
    covers of the key order for R2, equalities inside key classes): 10k-30k rows where the
    authors' code emits 0.9M-10M.

    Runtime complexity: building is ``O(m^2 d + K^2 d / 64)`` for ``m`` points and
    ``K <= m^2 / 2`` distinct keys; the LP is solved by HiGHS (simplex, no polynomial bound
    stated). Measured on the OpenML pairs (m = 160, 11k-28k rows, one core): build
    0.02-0.3 s, solve 0.003-2.5 s (the first solve of a pair grows its working set), plus
    0.8-2.5 s for ``xi`` when ``epsilon > 0``.

    Examples
    --------
    One cardinal metric observed on equally spaced values: the equal gaps force the utility
    to be affine, so the statistic is the difference of means over the observed range,
    here ``(0.6875 - 0.4375) / (0.875 - 0.25)``. (With unequal gaps the utility is only
    required to grow at least as much over a larger gap.)

    >>> from streamrank.compare import cardinal, performance_table
    >>> t = performance_table(
    ...     {"model": ["a"] * 4 + ["b"] * 4, "dataset": list(range(4)) * 2,
    ...      "acc": [0.25, 0.375, 0.5, 0.625, 0.5, 0.625, 0.75, 0.875]},
    ...     metrics=[cardinal("acc")])
    >>> s = gsd_statistic(t, "a", "b")
    >>> s
    GSDStatistic(model='a', competitor='b', statistic=0.4, epsilon=0)
    >>> s.competitor_dominates
    True
    >>> round(gsd_statistic(t, "b", "a").statistic, 12)
    -0.4
    """
    func = "gsd_statistic"
    table = check_table(table, func)
    epsilon = check_epsilon(epsilon, func)
    i = table.index_of(model, func, "model")
    j = table.index_of(competitor, func, "competitor")
    if i == j:
        raise param_error("competitor", func, "a model other than 'model'", describe(competitor))
    pair = PairProblem(table, i, j)
    delta, xi = pair.delta(epsilon)
    value = pair.program.minimize(pair.observed_cost(), delta)
    return GSDStatistic(table.models[i], table.models[j], value, epsilon, delta, xi,
                        pair.program.m, pair.program.n_rows)
