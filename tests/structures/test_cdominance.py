"""The compiled `DominanceCounter` against an O(n^2) oracle: a state machine per weight
kind (small ints, huge ints past 2**53, fractions), with heavy ties in labels and scores,
removals down to empty, the fused `add_pairs` / `remove_pairs` and the engine's whole
changes into `sums`, the level counts, and `_check` after every change. Tiny nodes (1 - 2
keys per leaf, 4 scores per node) make a few dozen points split, merge and rebuild.
"""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from strategies import dominance_node_sizes
from streamrank.structures import DominanceCounter
from streamrank.structures import _cdominance

LABELS = st.one_of(st.sampled_from((-1.0, 0.0, 0.5, 2.0)), st.floats(-10, 10, width=16))
SCORES = st.one_of(st.sampled_from((0.0, 0.25, 1.0)), st.floats(-10, 10, width=16))
WEIGHTS = {
    "int": st.integers(0, 4),
    "huge": st.one_of(st.integers(0, 3), st.integers(2**53, 2**58)),
    "float": st.one_of(st.sampled_from((0.0, 0.5, 1e-3, 3.0)), st.floats(0, 1e3)),
}


def oracle(points, y, s, zero):
    """`pairs_with` by definition: O(n)."""
    g = [[zero] * 3 for _ in range(3)]
    for a, b, w in points:
        g[0 if a < y else 1 if a == y else 2][0 if b < s else 1 if b == s else 2] += w
    return g[0][0] + g[2][2], g[0][2] + g[2][0], g[0][1] + g[2][1], sum(g[1]), g[1][1]


class CompiledDominance(RuleBasedStateMachine):
    """The counter next to the list of (label, score, weight) points it holds."""

    kind = "int"
    leaf, fan = 1, 4

    def __init__(self):
        super().__init__()
        self.dtype = float if self.kind == "float" else int
        with dominance_node_sizes(self.leaf, self.fan):
            self.dc = DominanceCounter(dtype=self.dtype)
        self.points = []
        self.terms = [self.dtype(0)] * 5      # what `sums` must hold: the engine's counts

    def scale(self):
        return math.fsum(w for *_, w in self.points) + 1.0

    def close(self, got, want, scale):
        if self.dtype is int:
            return got == want and type(got) is int
        return abs(got - want) <= 1e-9 * scale * scale

    def check_terms(self, got, y, s):
        want = oracle(self.points, y, s, self.dtype(0))
        assert all(self.close(a, b, self.scale()) for a, b in zip(got, want)), (got, want)
        return want

    def fits(self, w):
        return self.dtype is float or sum(p[2] for p in self.points) + w < 2**62

    @rule(y=LABELS, s=SCORES, data=st.data(), how=st.sampled_from(("add", "pairs", "engine")))
    def add(self, y, s, data, how):
        w = data.draw(WEIGHTS[self.kind])
        if self.dtype is float:
            w = float(w)
        if not self.fits(w):
            return
        if how == "add":
            self.dc.add(y, s, w)
        elif how == "pairs":
            self.check_terms(self.dc.add_pairs(y, s, w), y, s)
        elif self.dc.engine_add(y, s, w):
            for j, t in enumerate(oracle(self.points, y, s, self.dtype(0))):
                self.terms[j] += w * t
        else:   # the engine's checked path: past 2**53 in int mode, or below 2**-400
            assert w > 2**53 if self.dtype is int else 0 < w < 2.0**-400
            self.dc.add(y, s, w)
        self.points.append((y, s, w))

    @rule(y=st.sampled_from((-1.0, 0.0, 2.0)), n=st.integers(2, 12),
          s=st.sampled_from((0.0, 1.0)))
    def add_ties(self, y, n, s):
        """A run of equal labels and scores: one key of many copies."""
        for _ in range(n):
            self.dc.add(y, s, self.dtype(1))
            self.points.append((y, s, self.dtype(1)))

    @precondition(lambda self: self.points)
    @rule(data=st.data(), how=st.sampled_from(("remove", "pairs", "engine")))
    def remove(self, data, how):
        y, s, w = self.points.pop(data.draw(st.integers(0, len(self.points) - 1)))
        if how == "remove":
            self.dc.remove(y, s, w)
        elif how == "pairs":
            self.check_terms(self.dc.remove_pairs(y, s, w), y, s)
        elif self.dc.engine_remove(y, s, w):
            for j, t in enumerate(oracle(self.points, y, s, self.dtype(0))):
                self.terms[j] -= w * t
            if not self.points:
                self.terms = [self.dtype(0)] * 5
        else:
            assert w > 2**53 if self.dtype is int else 0 < w < 2.0**-400
            self.dc.remove(y, s, w)

    @precondition(lambda self: self.points)
    @rule(fraction=st.sampled_from((0.5, 1.0)))
    def remove_many(self, fraction):
        """Mass removal, to empty with 1.0: leaves and score nodes go, the tree compacts."""
        cut = int(len(self.points) * fraction)
        for y, s, w in self.points[:cut]:
            self.dc.remove(y, s, w)
        del self.points[:cut]
        if not self.points:
            self.terms = [self.dtype(0)] * 5
            self.dc.sums.reset(self.dtype is float)
            assert len(self.dc) == 0 and self.dc.total_weight == 0

    @precondition(lambda self: self.points and self.dtype is int)
    @rule(data=st.data())
    def remove_wrong_weight(self, data):
        """More weight than a key holds: refused, and nothing changes."""
        y, s, _ = data.draw(st.sampled_from(self.points))
        held = sum(w for a, b, w in self.points if a == y and b == s)
        before = list(self.dc.items())
        with pytest.raises(ValueError, match="'weight' parameter of DominanceCounter.remove"):
            self.dc.remove(y, s, held + 1)
        assert not self.dc.engine_remove(y, s, held + 1)
        assert list(self.dc.items()) == before

    @rule(y=LABELS, s=SCORES)
    def query(self, y, s):
        self.check_terms(self.dc.pairs_with(y, s), y, s)
        grid = self.dc.query(y, s)
        for r, row in enumerate(grid):
            for c, got in enumerate(row):
                cell = [w for a, b, w in self.points
                        if (a > y) - (a < y) == r - 1 and (b > s) - (b < s) == c - 1]
                want = math.fsum(cell) if self.dtype is float else sum(cell)
                assert self.close(got, want, self.scale()), (grid, r, c)
        assert self.dc.count(y, s) == sum(1 for a, b, _ in self.points if a == y and b == s)

    @rule()
    def round_trip(self):
        copy = pickle.loads(pickle.dumps(self.dc))
        copy._check()
        assert list(copy.items()) == list(self.dc.items())
        assert copy.stats() == self.dc.stats()
        if self.points:
            y, s, _ = self.points[-1]
            assert copy.query(y, s) == self.dc.query(y, s)

    @rule()
    def reload(self):
        y, s, c, w, p = self.dc.columns()
        other = DominanceCounter(dtype=self.dtype)
        other.load(y, s, c, w, p)
        other._check()
        assert list(other.items())[:3] == list(self.dc.items())[:3]
        assert other.stats() == self.dc.stats()

    @invariant()
    def consistent(self):
        self.dc._check()
        assert len(self.dc) == len(self.points)
        positive = [p for p in self.points if p[2] > 0]
        assert self.dc.stats() == (len({p[0] for p in positive}),
                                   len({p[1] for p in positive}), len(positive))
        got = self.dc.sums.values()[:5]      # (float sums read clipped at 0)
        want = self.terms if self.dtype is int else [max(0.0, t) for t in self.terms]
        assert all(self.close(a, b, self.scale()) for a, b in zip(got, want)), (got, want)
        assert sorted({(a, b) for a, b, _ in self.points}) == [
            (a, b) for a, b, _, _ in self.dc.items()]


class CompiledDominanceHuge(CompiledDominance):
    kind = "huge"


class CompiledDominanceFloat(CompiledDominance):
    kind = "float"


class CompiledDominanceDefault(CompiledDominance):
    """Default node sizes: long leaves, one score node per multiset."""
    leaf, fan = 64, 32


class CompiledDominanceFloatMid(CompiledDominance):
    kind = "float"
    leaf, fan = 2, 5


SETTINGS = settings(derandomize=True, max_examples=60, stateful_step_count=60,
                    deadline=None)
TestInt = CompiledDominance.TestCase
TestHuge = CompiledDominanceHuge.TestCase
TestFloat = CompiledDominanceFloat.TestCase
TestDefault = CompiledDominanceDefault.TestCase
TestFloatMid = CompiledDominanceFloatMid.TestCase
for _case in (TestInt, TestHuge, TestFloat, TestDefault, TestFloatMid):
    _case.settings = SETTINGS


@pytest.mark.parametrize("dtype", [int, float])
def test_compiled_counter_grows_and_shrinks_at_default_sizes(dtype):
    """Thousands of points with few labels and scores (heavy ties) and then distinct
    ones, added in increasing label order and removed at random: splits, partial
    rebuilds and compaction at the default sizes, checked against numpy."""
    rng = np.random.default_rng(3)
    n = 6000
    y = np.concatenate([rng.integers(0, 5, n // 2), np.arange(n // 2) + 10.0]).astype(float)
    s = np.concatenate([rng.integers(0, 4, n // 2) / 4, rng.random(n // 2)])
    w = rng.integers(0, 3, n).astype(dtype)
    dc = DominanceCounter(dtype=dtype)
    for point in zip(y.tolist(), s.tolist(), w.tolist()):
        dc.add(*point)
    dc._check()
    keep = np.ones(n, bool)
    for i in rng.permutation(n)[: n - 7]:
        dc.remove(float(y[i]), float(s[i]), w[i].item())
        keep[i] = False
    dc._check()
    for q in (0.0, 2.0, 11.0):
        want = oracle(list(zip(y[keep], s[keep], w[keep])), q, 0.5, dtype(0))
        assert all(abs(a - b) <= 1e-9 for a, b in zip(dc.pairs_with(q, 0.5), want))


def test_compiled_counter_is_built_and_its_doctests_pass():
    """`DominanceCounter` is the compiled extension (the Python tree is gone; its node
    classes stay for old pickles), and the examples in its docstrings run."""
    import doctest

    from streamrank.structures import dominance
    assert _cdominance.__file__.endswith((".so", ".pyd"))
    assert DominanceCounter is _cdominance.DominanceCounter is dominance.DominanceCounter
    result = doctest.testmod(_cdominance, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 20 and result.failed == 0, result
