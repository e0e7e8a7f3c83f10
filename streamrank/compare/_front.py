"""The empirical GSD relation over all ordered pairs, the empirical GSD front and the Pareto front."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field

import numpy as np

from .._validation import param_error
from ._statistic import TOL, PairProblem, check_epsilon, check_table
from ._table import PerformanceTable

__all__ = ["GSDFront", "gsd_front", "pareto_front"]


@dataclass(frozen=True)
class GSDFront:
    """The empirical GSD relation of every pair of models and the fronts it induces.

    Attributes
    ----------
    models : tuple
    d : ndarray of float, shape (k, k)
        ``d[i, j] = min_u (E[u(models[i])] - E[u(models[j])])`` (natural scale), ``nan`` on
        the diagonal. ``d[i, j]`` is ``gsd_statistic(table, models[j], models[i])``.
    relation : ndarray of bool, shape (k, k)
        ``relation[i, j]``: ``models[i]`` GSD-dominates ``models[j]`` at this sample,
        ``d[i, j] >= -tol``.
    strict : ndarray of bool, shape (k, k)
        ``relation & ~relation.T``.
    front : tuple
        The empirical GSD front: models no other model strictly dominates (at
        ``epsilon = 0``, the authors' "0-empirical GSD front").
    pareto : ndarray of bool, shape (k, k)
        ``pareto[i, j]``: ``models[i]`` is at least as good as ``models[j]`` on every metric
        of every data set both were evaluated on (at least one), and better somewhere.
    pareto_front : tuple
        Models nothing Pareto-dominates.
    epsilon, tol : float
    """

    models: tuple
    d: np.ndarray = field(repr=False)
    relation: np.ndarray = field(repr=False)
    strict: np.ndarray = field(repr=False)
    front: tuple = ()
    pareto: np.ndarray = field(repr=False, default=None)
    pareto_front: tuple = ()
    epsilon: float = 0.0
    tol: float = TOL

    def _index(self, model: Hashable) -> int:
        for i, m in enumerate(self.models):
            if m == model:
                return i
        raise param_error("model", "GSDFront.dominates", f"one of {list(self.models)!r}",
                          repr(model))

    def dominates(self, a: Hashable, b: Hashable) -> bool:
        """Whether model ``a`` GSD-dominates model ``b`` (weakly) at this sample."""
        return bool(self.relation[self._index(a), self._index(b)])

    @property
    def edges(self) -> list:
        """Strict dominances ``(winner, loser)``: the arrows of the dominance graph."""
        return [(self.models[i], self.models[j]) for i, j in zip(*np.nonzero(self.strict))]

    def __repr__(self) -> str:
        edges = ", ".join(f"{a!r} > {b!r}" for a, b in self.edges) or "none"
        return (f"GSDFront(epsilon={self.epsilon:g}, front={list(self.front)!r}, "
                f"pareto_front={list(self.pareto_front)!r}, strict dominances: {edges})")


def pareto_front(table: PerformanceTable) -> tuple[tuple, np.ndarray]:
    """Models not Pareto-dominated on the per-data-set metric vectors, and the relation.

    ``C'`` Pareto-dominates ``C`` when, on every data set both were evaluated on (at least
    one), ``C'`` is at least as good on every metric, and strictly better on one metric of
    one data set. Ordinal metrics compare by their order only, like the GSD relation.

    Runtime complexity: ``O(k^2 s r)`` for ``k`` models, ``s`` data sets, ``r`` metrics.

    >>> from streamrank.compare import cardinal, performance_table
    >>> t = performance_table({"model": list("aabbcc"), "dataset": [1, 2] * 3,
    ...                        "acc": [.8, .9, .7, .9, .9, .6]}, metrics=[cardinal("acc")])
    >>> pareto_front(t)[0]
    ('a', 'c')
    """
    table = check_table(table, "pareto_front")
    k, s, r = len(table.models), len(table.datasets), table.values.shape[1]
    grid = np.full((k, s, r), np.nan)
    grid[table.model_index, table.dataset_index] = table.values
    seen = ~np.isnan(grid[:, :, 0])
    dom = np.zeros((k, k), dtype=bool)
    for i in range(k):
        for j in range(k):
            both = seen[i] & seen[j]
            if i == j or not both.any():
                continue
            gi, gj = grid[i, both], grid[j, both]
            dom[i, j] = bool((gi >= gj).all() and (gi > gj).any())
    front = tuple(m for j, m in enumerate(table.models) if not dom[:, j].any())
    dom.setflags(write=False)
    return front, dom


def gsd_front(table: PerformanceTable, *, epsilon: float = 0.0, tol: float = TOL) -> GSDFront:
    """Empirical GSD relation over all ordered pairs, the empirical GSD front, the Pareto front.

    ``C`` dominates ``C'`` at the sample when ``min_u (E[u(C)] - E[u(C')]) >= -tol``; ``C'``
    leaves the front when some ``C`` dominates it and is not dominated back. This is how
    the authors computed the 0-empirical GSD front ([J24]; docs/compare.md, "The fronts").
    Each empirical
    preference system uses the two compared models' vectors only, so the relation need not
    be transitive.

    Parameters
    ----------
    table : PerformanceTable
    epsilon : float in [0, 1]
        Regularisation of every pairwise LP (``xi`` is computed per pair).
    tol : float
        Tolerance of ``>= 0``: some statistics are 0 up to LP round-off.

    Returns
    -------
    GSDFront

    Notes
    -----
    Runtime complexity: ``k (k - 1) / 2`` LP builds and ``k (k - 1)`` LP solves: the two
    orientations of a pair share their support set and constraints, only the sign of the
    objective differs. PMLB (6 models, 63 data sets): about 5 s on one core.

    Examples
    --------
    >>> from streamrank.compare import cardinal, ordinal, performance_table
    >>> t = performance_table(
    ...     {"model": list("aaabbbccc"), "dataset": [1, 2, 3] * 3,
    ...      "acc": [.9, .8, .7, .8, .7, .6, .95, .5, .6],
    ...      "speed": [2, 2, 2, 1, 1, 1, 3, 1, 1]},
    ...     metrics=[cardinal("acc"), ordinal("speed")])
    >>> f = gsd_front(t)
    >>> f.front, f.pareto_front
    (('a', 'c'), ('a', 'c'))
    >>> f.edges
    [('a', 'b')]
    """
    func = "gsd_front"
    table = check_table(table, func)
    epsilon = check_epsilon(epsilon, func)
    k = len(table.models)
    if k < 2:
        raise param_error("table", func, "a table with at least two models",
                          f"only {list(table.models)!r}")
    d = np.full((k, k), np.nan)
    for i in range(k):
        for j in range(i + 1, k):
            pair = PairProblem(table, i, j)
            delta = pair.delta(epsilon)[0]
            cost = pair.observed_cost()  # E_j - E_i
            d[j, i] = pair.program.minimize(cost, delta)
            d[i, j] = pair.program.minimize(-cost, delta)
    relation = d >= -tol
    np.fill_diagonal(relation, False)
    strict = relation & ~relation.T
    front = tuple(m for j, m in enumerate(table.models) if not strict[:, j].any())
    pfront, pdom = pareto_front(table)
    for arr in (d, relation, strict):
        arr.setflags(write=False)
    return GSDFront(table.models, d, relation, strict, front, pdom, pfront, epsilon, tol)
