"""The GSD linear program of one pair of models, on the reduced constraint set.

Variables ``v_z = u(z)`` for the distinct performance vectors ``z`` of the two models plus a
bottom and a top element (componentwise min and max; an observed point takes the role when
it coincides). Normalisation: ``v_bot = 0``, ``v_top = 1``, ``0 <= v <= 1``.

Constraints (docs/compare.md, "The statistic"; the authors' code emits all of R1 and all
nested R2 pairs, 0.9M-10M rows per pair, this module 10k-30k with the same feasible set for
every ``delta >= 0``)::

    R1   v_a - v_b >= delta                     (a, b) a cover of the componentwise order
    R2   (v_a - v_b) - (v_c - v_d) >= delta     key(a, b) covers key(c, d)
    EQ   (v_a - v_b) - (v_c - v_d) = 0          key(a, b) == key(c, d)

where the key of an R1 pair is ``(ord(a), -ord(b), card(a) - card(b))`` (cardinal
differences rounded to 10 decimals of the column's range, see ``_KEY_DECIMALS``): R2 of the papers is
exactly the componentwise order of keys over R1 pairs (ordinal exchanges must nest, cardinal
differences must not shrink). Each key class is tied to a representative by EQ rows, and one
R2 row is written per cover between representatives. An R2 cover row whose pairs satisfy
``card(a) >= card(c)`` and ``card(d) >= card(b)`` is dropped: then ``a >= c`` and ``d >= b``
componentwise, so the row is ``(v_a - v_c) + (v_d - v_b) >= delta``, a sum of R1 relations
one of which is strict (25-30 % fewer rows on the OpenML and PMLB pairs).

Solving: scipy's HiGHS (``linprog(method="highs")``) on a *working set* of rows, adding the
most violated of the others until none is violated (a cutting-plane loop that ends with the
exact optimum of the whole system, since the final point is feasible for all rows and
optimal for a relaxation). The working set persists between objectives, so across the
permutations of a test it settles on the few thousand rows that ever bind and most later
solves need one round: 3-10x faster than solving on all rows.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from ._order import hasse_covers, weak_dominance

__all__ = ["GSDProgram"]

#: Rows added per cutting-plane round (the most violated ones). Of {10, 30, 60, 100, 300,
#: 1000} tried on the OpenML and PMLB pairs (100 re-splits each), 30 was fastest or within
#: noise of it: smaller batches keep the working set (about 1-2k rows) lean, larger ones
#: need fewer rounds on the first few objectives only.
_BATCH = 30
#: A row is violated when ``A v - delta < -_VIOLATION`` (HiGHS' own feasibility tolerance
#: is 1e-7 on the rows it sees; the rows it does not see are checked here, tighter).
_VIOLATION = 1e-9
#: Decimals kept of a cardinal difference (relative to the column's range) in the R2 keys.
_KEY_DECIMALS = 10
_HIGHS = {"presolve": False}  # presolve costs more than it saves on these small dense-ish LPs


def _rows(pairs: list[tuple[np.ndarray, np.ndarray]], m: int) -> sp.csr_matrix:
    """A sparse matrix with one row per position: +1 at the first, -1 at the second array
    of each ``(plus, minus)`` couple; coinciding columns add up (3-variable R2 rows)."""
    n = len(pairs[0][0])
    r = np.arange(n)
    data, rows, cols = [], [], []
    for plus, minus in pairs:
        data += [np.ones(n), -np.ones(n)]
        rows += [r, r]
        cols += [plus, minus]
    return sp.coo_matrix((np.concatenate(data), (np.concatenate(rows), np.concatenate(cols))),
                         shape=(n, m)).tocsr()


class GSDProgram:
    """Reduced GSD constraint set over a fixed support set; built once, solved many times.

    Parameters
    ----------
    observations : ndarray of float64, shape (n, d)
        The pooled oriented performance vectors of both models (larger = better), ordinal
        codes first.
    n_ordinal : int
        How many leading columns are ordinal.

    Attributes
    ----------
    points : ndarray, shape (m, d)
        Distinct observed vectors, then the bottom and top elements when not observed.
    ids : ndarray of int, shape (n,)
        Observation -> row of ``points``.
    bottom, top : int
        Rows of ``points`` fixed to utility 0 and 1.
    n_r1, n_r2, n_eq : int
        Row counts of the three constraint families.

    Notes
    -----
    Building costs ``O(m^2 d)`` for R1, ``O(K^2 d / 64)`` for the key covers (``K <= m^2/2``
    distinct keys) and ``O(m^2 log m)`` for the key classes; 0.03-0.1 s on the OpenML pairs.
    """

    def __init__(self, observations: np.ndarray, n_ordinal: int):
        obs = np.asarray(observations, dtype=np.float64)
        points, ids = np.unique(obs, axis=0, return_inverse=True)
        ids = ids.ravel()
        extremes = []
        for ext in (points.min(axis=0), points.max(axis=0)):
            hit = np.flatnonzero((points == ext).all(axis=1))
            if hit.size:
                extremes.append(int(hit[0]))
            else:
                points = np.vstack([points, ext])
                extremes.append(len(points) - 1)
        self.points, self.ids = points, ids
        self.bottom, self.top = extremes
        self.n_ordinal = int(n_ordinal)
        m = self.m = len(points)
        self._xi = None
        self._work = None
        self._sub = None
        if m == 1:  # every observation identical: nothing to compare
            self.A = sp.csr_matrix((0, 1))
            self.E = sp.csr_matrix((0, 1))
            self.n_r1 = self.n_r2 = self.n_eq = 0
            return
        o = self.n_ordinal
        up1, lo1 = hasse_covers(points)
        hi, lo = np.nonzero(weak_dominance(points))  # every R1 pair, hi > lo
        # Cardinal differences, in units of each column's range, rounded to _KEY_DECIMALS
        # decimals: 0.8 - 0.7 and 0.7 - 0.6 differ by 1e-16 in binary floating point but
        # are the same exchange (the authors compared them exactly; on their data the
        # rounding changes none of the PMLB statistics, tests/compare/test_compare.py).
        span = points[:, o:].max(axis=0) - points[:, o:].min(axis=0)
        span[span == 0] = 1.0
        diff = np.round((points[hi, o:] - points[lo, o:]) / span, _KEY_DECIMALS)
        keys = np.concatenate([points[hi, :o], -points[lo, :o], diff], axis=1)
        ukeys, first, klass = np.unique(keys, axis=0, return_index=True, return_inverse=True)
        klass = klass.ravel()
        kup, klo = hasse_covers(ukeys)
        a, b = hi[first[kup]], lo[first[kup]]
        c, d = hi[first[klo]], lo[first[klo]]
        implied = (points[a, o:] >= points[c, o:]).all(axis=1) & \
                  (points[d, o:] >= points[b, o:]).all(axis=1)
        a, b, c, d = a[~implied], b[~implied], c[~implied], d[~implied]
        members = np.flatnonzero(first[klass] != np.arange(len(hi)))
        rep = first[klass[members]]
        self.n_r1, self.n_r2, self.n_eq = len(up1), len(a), len(members)
        r1 = _rows([(up1, lo1)], m)
        r2 = _rows([(a, b), (d, c)], m) if len(a) else sp.csr_matrix((0, m))
        self.A = sp.vstack([r1, r2]).tocsr()
        self.E = (_rows([(hi[members], lo[members]), (lo[rep], hi[rep])], m)
                  if len(members) else sp.csr_matrix((0, m)))
        self.bounds = np.zeros((m, 2))
        self.bounds[:, 1] = 1.0
        self.bounds[self.bottom] = (0.0, 0.0)
        self.bounds[self.top] = (1.0, 1.0)

    def __repr__(self) -> str:
        return (f"GSDProgram(m={self.m}, r1_rows={self.n_r1}, r2_rows={self.n_r2}, "
                f"eq_rows={self.n_eq})")

    def _check(self) -> None:
        """Assert every invariant of the program (tests call it; O(m^2 d + rows))."""
        p = self.points
        assert len(np.unique(p, axis=0)) == self.m, "points must be distinct"
        assert np.array_equal(p[self.bottom], p.min(axis=0)), "bottom is the componentwise min"
        assert np.array_equal(p[self.top], p.max(axis=0)), "top is the componentwise max"
        assert self.ids.max(initial=-1) < self.m
        assert self.A.shape == (self.n_r1 + self.n_r2, self.m)
        assert self.E.shape == (self.n_eq, self.m)
        if self.m == 1:
            return
        assert tuple(self.bounds[self.bottom]) == (0.0, 0.0)
        assert tuple(self.bounds[self.top]) == (1.0, 1.0)
        dense = self.A.toarray()
        assert np.allclose(dense.sum(axis=1), 0.0), "every row is a difference of differences"
        for row in dense[: self.n_r1]:
            hi, lo = np.flatnonzero(row == 1), np.flatnonzero(row == -1)
            assert len(hi) == len(lo) == 1
            assert (p[hi[0]] >= p[lo[0]]).all() and (p[hi[0]] != p[lo[0]]).any(), \
                f"R1 row {hi[0]} > {lo[0]} is not a strict dominance"
        if self.n_eq:
            assert np.allclose(self.E.toarray().sum(axis=1), 0.0)

    @property
    def n_rows(self) -> int:
        """Total number of constraint rows (R1 + R2 + equalities)."""
        return self.n_r1 + self.n_r2 + self.n_eq

    def _eq(self) -> dict:
        if self.E.shape[0] == 0:
            return {}
        return {"A_eq": self.E, "b_eq": np.zeros(self.E.shape[0])}

    def xi(self) -> float:
        """Largest margin ``delta`` for which the constraint set is feasible ([J23b]).

        ``max delta`` subject to every R1 and R2 row ``>= delta``, the equalities and the
        normalisation, ``0 <= delta <= 1``. Computed once and cached.
        """
        if self._xi is None:
            if self.m == 1 or self.A.shape[0] == 0:
                self._xi = 1.0 if self.m > 1 else 0.0
                return self._xi
            m, n = self.m, self.A.shape[0]
            a_ub = sp.hstack([-self.A, sp.csr_matrix(np.ones((n, 1)))]).tocsr()
            eq = self._eq()
            if eq:
                eq["A_eq"] = sp.hstack([self.E, sp.csr_matrix((self.E.shape[0], 1))]).tocsr()
            cost = np.zeros(m + 1)
            cost[m] = -1.0
            res = linprog(cost, A_ub=a_ub, b_ub=np.zeros(n),
                          bounds=np.vstack([self.bounds, [0.0, 1.0]]), method="highs-ipm",
                          options=_HIGHS, **eq)  # IPM + crossover: 3-4x faster than simplex here
            if res.status != 0:  # pragma: no cover - the system is always consistent
                raise RuntimeError(f"HiGHS failed on the xi LP: {res.message}")
            self._xi = float(-res.fun)
        return self._xi

    def minimize(self, cost: np.ndarray, delta: float = 0.0, *,
                 working_set: bool = True) -> float:
        """``min cost . v`` over the normalised ``delta``-regular utilities.

        Parameters
        ----------
        cost : ndarray, shape (m,)
            Objective coefficients per point.
        delta : float
            Margin of every strict row; must be in ``[0, xi()]``.
        working_set : bool
            Solve by the cutting-plane loop (default) or on all rows at once.
        """
        cost = np.asarray(cost, dtype=np.float64)
        if self.m == 1:
            return float(cost.sum())
        eq = self._eq()
        if not working_set:
            res = linprog(cost, A_ub=-self.A, b_ub=np.full(self.A.shape[0], -delta),
                          bounds=self.bounds, method="highs", options=_HIGHS, **eq)
            return self._value(res)
        if self._work is None:
            self._work = np.zeros(self.A.shape[0], dtype=bool)
            self._work[: self.n_r1] = True
        while True:
            if self._sub is None:
                self._sub = -self.A[self._work]
            res = linprog(cost, A_ub=self._sub, b_ub=np.full(self._sub.shape[0], -delta),
                          bounds=self.bounds, method="highs", options=_HIGHS, **eq)
            value = self._value(res)
            slack = self.A @ res.x - delta
            slack[self._work] = 0.0
            viol = np.flatnonzero(slack < -_VIOLATION)
            if viol.size == 0:
                return value
            if viol.size > _BATCH:
                viol = viol[np.argpartition(slack[viol], _BATCH)[:_BATCH]]
            self._work[viol] = True
            self._sub = None

    @staticmethod
    def _value(res) -> float:
        if res.status != 0:  # pragma: no cover - bounded and feasible by construction
            raise RuntimeError(f"HiGHS failed on the GSD LP: {res.message}")
        return float(res.fun)
