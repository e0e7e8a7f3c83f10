"""The reduced GSD linear program against the authors' full constraint set, and the order helpers.

``full_rows`` is a brute-force re-statement of the constraint set as the papers define it
([J23a], [J24]; docs/compare.md, "The statistic"): every R1 pair, every nested R2 pair
except shared endpoints, equality rows on exactly equal keys. Slow, obvious, and
independent of the reduction in streamrank/compare/_lp.py.
"""

import itertools

import numpy as np
import pytest
from scipy.optimize import linprog

from streamrank.compare._lp import GSDProgram
from streamrank.compare._order import hasse_covers, weak_dominance


def full_rows(points, n_ord):
    """(A_ge, strict, A_eq): rows ``A_ge v >= delta`` where ``strict``, ``= 0`` for A_eq."""
    m = len(points)
    o = n_ord
    r1 = [(a, b) for a in range(m) for b in range(m)
          if a != b and (points[a] >= points[b]).all()]
    ge, eq = [], []
    for a, b in r1:
        row = np.zeros(m)
        row[a] += 1
        row[b] -= 1
        ge.append(row)
    for (a, b), (c, d) in itertools.product(r1, r1):
        if (a, b) == (c, d) or a == c or b == d:
            continue
        if not ((points[a, :o] >= points[c, :o]).all() and (points[d, :o] >= points[b, :o]).all()):
            continue
        da, dc = points[a, o:] - points[b, o:], points[c, o:] - points[d, o:]
        if not (da >= dc).all():
            continue
        row = np.zeros(m)
        row[a] += 1
        row[b] -= 1
        row[c] -= 1
        row[d] += 1
        same = (np.array_equal(points[a, :o], points[c, :o])
                and np.array_equal(points[b, :o], points[d, :o]) and np.array_equal(da, dc))
        (eq if same else ge).append(row)
    return np.array(ge), (np.array(eq) if eq else np.zeros((0, m)))


def full_min(prog, ge, eq, cost, delta):
    extra = {"A_eq": eq, "b_eq": np.zeros(len(eq))} if len(eq) else {}
    res = linprog(cost, A_ub=-ge, b_ub=np.full(len(ge), -delta), bounds=prog.bounds,
                  method="highs", **extra)
    assert res.status == 0
    return res.fun


def full_xi(prog, ge, eq):
    m = prog.m
    a_ub = np.hstack([-ge, np.ones((len(ge), 1))])
    extra = {"A_eq": np.hstack([eq, np.zeros((len(eq), 1))]), "b_eq": np.zeros(len(eq))} \
        if len(eq) else {}
    cost = np.zeros(m + 1)
    cost[m] = -1
    res = linprog(cost, A_ub=a_ub, b_ub=np.zeros(len(ge)),
                  bounds=np.vstack([prog.bounds, [0, 1]]), method="highs", **extra)
    return -res.fun


def random_observations(rng, n, n_ord, n_card):
    # ordinal codes 1..3; cardinal values on a binary grid (k / 8) so that equal
    # differences are exactly equal in floating point and equality rows occur
    ords = rng.integers(1, 4, (n, n_ord)).astype(float)
    cards = rng.integers(0, 9, (n, n_card)) / 8.0
    return np.hstack([ords, cards])


@pytest.mark.parametrize("n_ord,n_card", [(2, 1), (1, 1), (1, 2), (0, 2), (2, 0)])
def test_reduced_lp_equals_full_lp(n_ord, n_card):
    rng = np.random.default_rng(100 * n_ord + n_card)
    for trial in range(4):
        obs = random_observations(rng, 14, n_ord, n_card)
        prog = GSDProgram(obs, n_ord)
        prog._check()
        ge, eq = full_rows(prog.points, n_ord)
        assert prog.n_rows <= len(ge) + len(eq)
        xi_full = full_xi(prog, ge, eq)
        assert prog.xi() == pytest.approx(xi_full, abs=1e-9)
        for _ in range(4):
            split = rng.permutation(len(obs))
            cost = np.bincount(prog.ids[split[:7]], minlength=prog.m) / 7 - \
                np.bincount(prog.ids[split[7:]], minlength=prog.m) / 7
            for eps in (0.0, 0.5, 1.0):
                delta = eps * xi_full
                want = full_min(prog, ge, eq, cost, delta)
                assert prog.minimize(cost, delta, working_set=False) == pytest.approx(want, abs=1e-7)
                assert prog.minimize(cost, delta) == pytest.approx(want, abs=1e-7)


def test_reduced_lp_on_a_larger_instance():
    """A PMLB-like pair in miniature: 30 vectors, 2 ordinal (quartile codes) + 1 cardinal."""
    rng = np.random.default_rng(7)
    obs = np.hstack([rng.integers(1, 6, (30, 2)).astype(float), rng.uniform(0.5, 1, (30, 1))])
    prog = GSDProgram(obs, 2)
    prog._check()
    ge, eq = full_rows(prog.points, 2)
    assert len(ge) + len(eq) > 4 * prog.n_rows  # the reduction is real
    cost = np.bincount(prog.ids[:15], minlength=prog.m) / 15 - \
        np.bincount(prog.ids[15:], minlength=prog.m) / 15
    assert prog.minimize(cost) == pytest.approx(full_min(prog, ge, eq, cost, 0.0), abs=1e-9)


def test_ordinal_only_statistic_is_min_over_up_sets():
    """With ordinal metrics only, compatible utilities are the monotone ones: the LP optimum
    is attained at an indicator of an up-set (containing the top, not the bottom)."""
    rng = np.random.default_rng(11)
    for _ in range(6):
        obs = rng.integers(1, 4, (10, 2)).astype(float)
        prog = GSDProgram(obs, 2)
        prog._check()
        cost = rng.normal(size=prog.m)
        g = weak_dominance(prog.points)  # g[w, z]: w >= z
        best = np.inf
        for mask in range(1 << prog.m):
            up = np.array([(mask >> z) & 1 for z in range(prog.m)], dtype=bool)
            if not up[prog.top] or up[prog.bottom]:
                continue
            if (g[:, up] & ~up[:, None]).any():  # some w >= z in U is outside U
                continue
            best = min(best, cost[up].sum())
        assert prog.minimize(cost) == pytest.approx(best, abs=1e-9)


def test_hasse_covers_against_boolean_matrix_product():
    rng = np.random.default_rng(5)
    for trial in range(60):
        n, d = int(rng.integers(1, 120)), int(rng.integers(1, 5))
        keys = rng.integers(0, 4, (n, d)).astype(float)
        if trial % 2:
            keys[:, 0] = rng.random(n)  # one continuous column
        keys = np.unique(keys, axis=0)
        g = weak_dominance(keys)
        gi = g.astype(np.int64)
        expected = g & ~((gi @ gi) > 0)
        up, lo = hasse_covers(keys)
        got = np.zeros_like(g)
        got[up, lo] = True
        assert len(up) == expected.sum()
        assert np.array_equal(got, expected)


def test_hasse_covers_edge_cases():
    up, lo = hasse_covers(np.zeros((1, 3)))
    assert up.size == lo.size == 0
    up, lo = hasse_covers(np.array([[0, 1], [1, 0]]))  # incomparable
    assert up.size == 0
    chain = np.arange(130, dtype=float)[:, None]  # crosses 64-bit word boundaries
    up, lo = hasse_covers(chain)
    assert sorted(zip(up.tolist(), lo.tolist())) == [(i + 1, i) for i in range(129)]


def test_program_bottom_top_and_degenerate():
    prog = GSDProgram(np.array([[1.0, 0.2], [2.0, 0.1]]), 1)
    prog._check()
    assert prog.m == 4  # two incomparable points + artificial bottom and top
    assert prog.minimize(np.array([0.5, -0.5, 0.0, 0.0])) == pytest.approx(-0.5)
    same = GSDProgram(np.array([[1.0, 0.5], [1.0, 0.5]]), 1)
    same._check()
    assert same.m == 1 and same.minimize(np.zeros(1)) == 0.0 and same.xi() == 0.0
    assert "GSDProgram(m=" in repr(prog)
