"""Permutation test of "the competitor GSD-dominates the model", and GSD-front membership.

The scheme is the authors' two-sample observation-randomisation test ([J23a], [J24];
docs/compare.md, "The permutation test"): pool the ``n_a + n_b`` performance vectors of the
two models, re-split them uniformly at random into groups of the original sizes (*unpaired*,
not a per-data-set swap), and recompute the statistic. Under the least-favourable null
(equal distributions) the pooled vectors are exchangeable. The support set, hence the whole
constraint set, is the same for every re-split: it is built once per pair and only the LP
objective changes.
"""

from __future__ import annotations

import contextlib
import math
import os
import types
from collections.abc import Hashable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from .._extras import require
from .._validation import check_int, describe, param_error
from ._statistic import TOL, PairProblem, check_epsilon, check_table
from ._table import PerformanceTable

__all__ = ["GSDTestResult", "PairwiseTest", "gsd_test"]


@dataclass(frozen=True)
class PairwiseTest:
    """Permutation test of ``H0: competitor GSD-dominates the model``.

    Attributes
    ----------
    competitor
        The competitor's label.
    statistic : float
        Observed ``d = min_u (E[u(competitor)] - E[u(model)])`` (natural scale).
    p_value : float
        ``(1 + n_le) / (B + 1)``: small when few re-splits give a statistic as low as the
        observed one.
    n_le, n_below : int
        Re-splits with ``d_b <= d + TOL`` (ties count against rejection) and with
        ``d_b < d - TOL`` (the count the authors' code stores; their p-value is
        ``n_below / B``).
    rejected : bool
        ``p_value <= level`` of the enclosing `GSDTestResult`.
    robust_p_values : mapping int -> float
        For ``k`` contaminated data sets, ``(1 + #{d_b <= d + 2g/(1-g) + TOL}) / (B + 1)``
        with ``g = k / min(n_model, n_competitor)``; 1.0 once ``g >= 1``.
    null_distribution : ndarray of float, shape (B,)
        The re-split statistics, read-only.
    """

    competitor: object
    statistic: float
    p_value: float
    n_le: int
    n_below: int
    rejected: bool
    robust_p_values: MappingProxyType
    null_distribution: np.ndarray = field(repr=False)

    def __repr__(self) -> str:
        return (f"PairwiseTest(competitor={self.competitor!r}, statistic={self.statistic:.6g}, "
                f"p_value={self.p_value:.4g}, rejected={self.rejected})")


@dataclass(frozen=True)
class GSDTestResult:
    """Pairwise GSD permutation tests of one model and the front-membership decision.

    ``in_front`` rejects ``H0: model not in the GSD front`` iff every pairwise test rejects
    at ``level`` (an intersection-union test: ``H0`` is the union of the pairwise nulls,
    so no multiplicity correction is needed for level ``alpha``; ``bonferroni=True``
    reproduces the authors' stricter ``alpha / (k - 1)`` figures).

    Attributes
    ----------
    model : object
    tests : tuple of PairwiseTest
        One per competitor, in the order requested.
    in_front : bool
    alpha, level : float
        Nominal level and the per-test level actually used.
    bonferroni : bool
    epsilon : float
    permutations : int
        ``B``.
    seed : int
        Entropy of the random generator (pass it back as ``seed`` to reproduce a run made
        with ``seed=None``).
    contamination : tuple of int
        The ``k`` of ``robust_p_values``.
    """

    model: object
    tests: tuple
    in_front: bool
    alpha: float
    level: float
    bonferroni: bool
    epsilon: float
    permutations: int
    seed: int
    contamination: tuple

    def __getitem__(self, competitor) -> PairwiseTest:
        for t in self.tests:
            if t.competitor == competitor:
                return t
        raise KeyError(competitor)

    def robust_in_front(self, k: int) -> bool:
        """Front membership when up to ``k`` data sets may be contaminated."""
        return all(t.robust_p_values[k] <= self.level for t in self.tests)

    def __repr__(self) -> str:
        width = max([10] + [len(str(t.competitor)) for t in self.tests])
        lines = [f"GSDTestResult(model={self.model!r}, epsilon={self.epsilon:g}, "
                 f"B={self.permutations}, level={self.level:.4g}, in_front={self.in_front})",
                 f"  {'competitor':<{width}}  statistic  p_value  rejected"]
        for t in self.tests:
            lines.append(f"  {str(t.competitor):<{width}}  {t.statistic:9.5f}  {t.p_value:7.4f}"
                         f"  {t.rejected}")
        return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Work units: the objectives of a chunk of re-splits of one pair, solved on its program.
# Worker processes receive every pair's program once (initializer) and keep their own
# working sets.

_PROGRAMS: dict = {}


def _init_worker(programs: dict) -> None:
    _PROGRAMS.clear()
    _PROGRAMS.update(programs)


def _solve_chunk(key, costs: np.ndarray, delta: float) -> np.ndarray:
    program = _PROGRAMS[key]
    return np.array([program.minimize(c, delta) for c in costs])


def _resplit_costs(pair: PairProblem, permutations: int, rng: np.random.Generator) -> np.ndarray:
    """Objective of every re-split, shape (B, m), vectorised: one permuted copy of the
    pooled point ids per row, first ``n_a`` to the model, the rest to the competitor."""
    m, na = pair.program.m, pair.n_a
    perm = rng.permuted(np.tile(pair.ids, (permutations, 1)), axis=1)
    offset = (np.arange(permutations) * m)[:, None]
    count_a = np.bincount((perm[:, :na] + offset).ravel(), minlength=permutations * m)
    count_b = np.bincount((perm[:, na:] + offset).ravel(), minlength=permutations * m)
    return (count_b.reshape(permutations, m) / pair.n_b
            - count_a.reshape(permutations, m) / na)


def _check_contamination(contamination, func) -> tuple:
    if isinstance(contamination, Iterable) and not isinstance(contamination, (str, bytes)):
        ks = list(contamination)
    else:
        ks = [contamination]
    if not ks:
        raise param_error("contamination", func, "an int >= 0 or a non-empty list of them",
                          describe(contamination))
    for k in ks:
        check_int(k, "contamination", func, minimum=0,
                  expected="an int >= 0 or a list of ints >= 0")
    return tuple(sorted({int(k) for k in ks}))


def gsd_test(
    table: PerformanceTable,
    model: Hashable,
    *,
    competitors: Sequence[Hashable] | None = None,
    permutations: int = 1000,
    seed: int | None = None,
    alpha: float = 0.05,
    bonferroni: bool = False,
    contamination: int | Iterable[int] = 0,
    epsilon: float = 0.0,
    n_jobs: int = 1,
    progress: bool = False,
    tol: float = TOL,
) -> GSDTestResult:
    """Test whether ``model`` is in the GSD front: one permutation test per competitor.

    For every competitor ``C'``: ``H0: C' GSD-dominates the model`` against "it does not",
    statistic ``d = min_u (E[u(C')] - E[u(model)])`` (see `gsd_statistic`), rejection for
    small ``d``, p-value ``(1 + #{d_b <= d + tol}) / (B + 1)`` over ``B`` pooled re-splits.
    The model is declared in the front iff every pairwise test rejects.

    Parameters
    ----------
    table : PerformanceTable
    model
        The model of interest.
    competitors : sequence, optional
        Default: every other model of the table.
    permutations : int
        ``B``, at least 1. The authors used 1000 (OpenML) and 200 (PMLB).
    seed : int, optional
        Seeds everything; each competitor gets its own stream (derived from the seed and
        the competitor's position in the table), so a competitor's result does not depend
        on which others are tested. ``None``: fresh entropy, recorded in the result.
    alpha : float in (0, 1)
    bonferroni : bool
        Test each pair at ``alpha / len(competitors)`` instead of ``alpha``.
    contamination : int or sequence of int
        Numbers ``k`` of possibly contaminated data sets for the robustified p-values
        ([J24]; docs/compare.md, "Contaminated data sets"; the shift ``2g/(1-g)`` is
        applied on the natural scale, where it is the exact bound; the authors' code added
        it to half the statistic).
    epsilon : float in [0, 1]
        Regularisation, as in `gsd_statistic`; ``xi`` is computed once per pair.
    n_jobs : int
        Worker processes for the re-splits (-1: all cores). Results do not depend on it.
    progress : bool
        Show a tqdm progress bar over all re-splits.
    tol : float
        Tie tolerance of the p-value counts.

    Returns
    -------
    GSDTestResult

    Notes
    -----
    Runtime complexity: one LP build per competitor, then ``B + 1`` LP solves per
    competitor on that constraint set (only the objective changes); the objectives of
    all re-splits are formed at once in ``O(B (n + m))``. Measured on the OpenML suite
    (6 competitors, m ~ 160 points, 11k-28k rows, B = 1000): 9.7 min with ``n_jobs=2`` on a
    shared 2-core machine, against about 63 h for the authors' code with Gurobi
    (benchmarks/RESULTS.md, section GSD).

    With ``n_jobs > 1`` the workers are processes: on platforms that start them by
    spawning, call ``gsd_test`` under ``if __name__ == "__main__":`` in scripts.

    Examples
    --------
    Two models on eight data sets, one cardinal and one ordinal metric; ``b`` is better
    on accuracy, ``a`` is faster:

    >>> from streamrank.compare import cardinal, ordinal, performance_table
    >>> t = performance_table(
    ...     {"model": ["a"] * 8 + ["b"] * 8, "dataset": list(range(8)) * 2,
    ...      "acc": [.60, .62, .65, .70, .71, .75, .80, .82,
    ...              .70, .74, .75, .80, .83, .85, .90, .91],
    ...      "speed": [3, 3, 2, 3, 2, 3, 3, 2,  1, 2, 1, 1, 2, 1, 1, 1]},
    ...     metrics=[cardinal("acc"), ordinal("speed")])
    >>> gsd_test(t, "a", permutations=99, seed=1)
    GSDTestResult(model='a', epsilon=0, B=99, level=0.05, in_front=True)
      competitor  statistic  p_value  rejected
      b            -0.75000   0.0100  True
    >>> r = gsd_test(t, "b", permutations=99, seed=1)
    >>> round(r["a"].statistic, 4), r["a"].p_value, r.in_front
    (-0.3347, 0.18, False)

    ``a`` is in the front (no evidence that ``b`` dominates it, p = 0.01); ``b`` is not
    shown to be: eight data sets cannot rule out that the faster ``a`` dominates it.
    """
    func = "gsd_test"
    table = check_table(table, func)
    epsilon = check_epsilon(epsilon, func)
    i = table.index_of(model, func, "model")
    if competitors is None:
        js = [j for j in range(len(table.models)) if j != i]
    else:
        if isinstance(competitors, (str, bytes)) or not isinstance(competitors, Sequence):
            raise param_error("competitors", func, "a sequence of model labels or None",
                              describe(competitors), TypeError)
        js = [table.index_of(c, func, "competitors") for c in competitors]
        if i in js or len(set(js)) != len(js):
            raise param_error("competitors", func,
                              "distinct models other than 'model'", describe(competitors))
    if not js:
        raise param_error("table", func, "a table with at least two models",
                          f"only {list(table.models)!r}")
    permutations = check_int(permutations, "permutations", func, expected="an int >= 1")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.floating)) \
            or not 0.0 < float(alpha) < 1.0:
        raise param_error("alpha", func, "a number in (0, 1)", describe(alpha))
    alpha = float(alpha)
    ks = _check_contamination(contamination, func)
    if n_jobs == -1:
        n_jobs = os.cpu_count() or 1
    n_jobs = check_int(n_jobs, "n_jobs", func, expected="an int >= 1 or -1 (all cores)")
    if seed is not None:
        check_int(seed, "seed", func, minimum=0, expected="an int >= 0 or None")
    entropy = np.random.SeedSequence(seed).entropy

    pairs = {j: PairProblem(table, i, j) for j in js}
    deltas = {j: pairs[j].delta(epsilon)[0] for j in js}
    observed = {j: pairs[j].program.minimize(pairs[j].observed_cost(), deltas[j]) for j in js}
    costs = {}
    for j in js:
        rng = np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(j,)))
        costs[j] = _resplit_costs(pairs[j], permutations, rng)

    null = {j: np.empty(permutations) for j in js}
    chunk = max(1, min(50, math.ceil(permutations / (4 * n_jobs))))
    tasks = [(j, s) for j in js for s in range(0, permutations, chunk)]
    with _bar(permutations * len(js), progress, f"GSD test of {table.models[i]!r}") as bar:
        if n_jobs == 1:
            _init_worker({j: pairs[j].program for j in js})
            try:
                for j, s in tasks:
                    null[j][s:s + chunk] = _solve_chunk(j, costs[j][s:s + chunk], deltas[j])
                    bar.update(len(null[j][s:s + chunk]))
            finally:
                _PROGRAMS.clear()
        else:
            with ProcessPoolExecutor(max_workers=n_jobs, initializer=_init_worker,
                                     initargs=({j: pairs[j].program for j in js},)) as pool:
                futures = {pool.submit(_solve_chunk, j, costs[j][s:s + chunk], deltas[j]): (j, s)
                           for j, s in tasks}
                for fut in as_completed(futures):
                    j, s = futures[fut]
                    values = fut.result()
                    null[j][s:s + len(values)] = values
                    bar.update(len(values))

    level = alpha / len(js) if bonferroni else alpha
    tests = []
    for j in js:
        d, dist = observed[j], null[j]
        dist.setflags(write=False)
        n_le = int(np.count_nonzero(dist <= d + tol))
        n_below = int(np.count_nonzero(dist < d - tol))
        s = min(pairs[j].n_a, pairs[j].n_b)
        robust = {}
        for k in ks:
            g = k / s
            if g >= 1.0:
                robust[k] = 1.0
            else:
                shift = 2.0 * g / (1.0 - g)
                robust[k] = (1 + int(np.count_nonzero(dist <= d + shift + tol))) / (permutations + 1)
        p = (1 + n_le) / (permutations + 1)
        tests.append(PairwiseTest(table.models[j], d, p, n_le, n_below, p <= level,
                                  MappingProxyType(robust), dist))
    return GSDTestResult(table.models[i], tuple(tests), all(t.rejected for t in tests), alpha,
                         level, bool(bonferroni), epsilon, permutations, int(entropy), ks)


def _bar(total: int, progress: bool, desc: str):
    """A tqdm progress bar (the ``cli`` extra) when ``progress``, else one that shows
    nothing."""
    if not progress:
        return contextlib.nullcontext(types.SimpleNamespace(update=lambda n: None))
    tqdm = require("tqdm.auto", "cli", "gsd_test(progress=True)").tqdm
    return tqdm(total=total, unit="LP", desc=desc)
