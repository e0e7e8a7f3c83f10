"""The compiled `LevelDominanceCounter` through the engine's whole changes, against the
O(n^2) oracle.

`PairEngine` hands every single change of a few-level state to the counter's compiled
``engine_add`` / ``engine_remove`` (and batches to ``engine_change_arrays`` /
``engine_apply``), which validate, count and update in one call. The machine here drives
those directly, with labels from a pool of seven (four trees of two levels), levels that
open, empty and open again in freed slots, and integer (up to ``2**53``, and beyond,
which must be refused), huge float (``>= 2**53``) or fractional weights. After every step
``_check()`` passes and the running counts in ``sums`` equal the oracle of the samples
held: exactly, as ints, in integer mode; within ``1e-9 * W**2`` with floats. A call that
is refused returns False and changes nothing.
"""

from __future__ import annotations

import pickle
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from oracle import cross_counts, pair_counts_matrix
from streamrank.engine import PairEngine
from streamrank.structures import BinaryDominanceCounter, LevelDominanceCounter

POOL = (0.0, 1.0, -1.0, 2.5, 0.5, 7.0, -3.0)
SCORES = (-1.0, -0.0, 0.0, 0.25, 0.5, 1.0, 2.0)
WEIGHTS = {
    # int mode: exact up to 2**53; 2**53 + 2 and fractions are the engine's to move on
    "int": (0, 1, 1, 2, 3, 2**31 + 1, 2**53, 2**53 + 2, 0.5, 3.0),
    "huge": (1.0, 2.0**53, 3 * 2.0**53, 2.0**60, float(2**90), 0.0),
    "fractional": (0.0, 0.25, 0.5, 1.0, 2.75, 1e-3, 3.0),
}
INT_TOTAL_MAX = 2**62


def _close(got, want, scale):
    return abs(got - float(want)) <= 1e-9 * scale + 1e-300


class LevelCounterMachine(RuleBasedStateMachine):
    """The counter's engine calls next to the list of samples it holds."""

    @initialize(kind=st.sampled_from(sorted(WEIGHTS)), cap=st.sampled_from((0, 0, 4)))
    def setup(self, kind, cap):
        self.kind = kind
        self.dtype = int if kind == "int" else float
        self.dc = LevelDominanceCounter(dtype=self.dtype)
        self.dc.engine_max_levels = cap
        self.rows: list = []

    # -- the model
    def _accepts(self, y, w) -> bool:
        """Whether ``engine_add(y, s, w)`` may do the change in C."""
        if self.dtype is int:
            if Fraction(w).denominator != 1 or not 0 <= w <= 2**53:
                return False
            if sum(int(r[2]) for r in self.rows) + int(w) > INT_TOTAL_MAX:
                return False
        elif w != 0 and not 2.0**-400 <= w <= 2.0**400:
            return False
        held = {r[0] for r in self.rows}
        cap = self.dc.engine_max_levels
        return y in held or not cap or len(held) < cap

    def _weight(self, w):
        return int(w) if self.dtype is int else float(w)

    def _state(self):
        return list(self.dc.items()), len(self.dc), self.dc.sums.values(), self.dc.levels

    def _index(self, y, s, w):
        for i, r in enumerate(self.rows):
            if r[0] == y and r[1] == s and r[2] == w:
                return i
        return -1

    # -- rules
    @rule(y=st.sampled_from(POOL), s=st.sampled_from(SCORES), data=st.data())
    def add(self, y, s, data):
        w = data.draw(st.sampled_from(WEIGHTS[self.kind]))
        ok = self._accepts(y, w)
        before = None if ok else self._state()
        assert self.dc.engine_add(y, s, w) is ok
        if ok:
            self.rows.append((y, s, self._weight(w)))
        else:
            assert self._state() == before

    @precondition(lambda self: self.rows)
    @rule(data=st.data())
    def remove(self, data):
        y, s, w = self.rows.pop(data.draw(st.integers(0, len(self.rows) - 1)))
        assert self.dc.engine_remove(y, s, w)

    @rule(y=st.sampled_from(POOL + (9.0,)), s=st.sampled_from(SCORES + (0.75,)),
          w=st.sampled_from((0, 1, 2.0, 5)))
    def remove_absent(self, y, s, w):
        """A copy not held (no such label, score or weight-0 copy; an int weight past
        what is held): False, nothing changes."""
        at = [r[2] for r in self.rows if r[0] == y and r[1] == s]
        if self.dtype is float and any((wi > 0) == (w > 0) for wi in at):
            return                 # held: float removals trust the weight
        if self.dtype is int and any(wi == w for wi in at):
            return
        if self.dtype is int and w > 0 and len([a for a in at if a > 0]) > 1 \
                and w <= sum(at):
            return                 # int mode takes any part of several copies' weight
        before = self._state()
        assert not self.dc.engine_remove(y, s, w)
        assert self._state() == before

    @rule(data=st.data(), k=st.integers(1, 8))
    def change_arrays_add(self, data, k):
        rows = [(data.draw(st.sampled_from(POOL)), data.draw(st.sampled_from(SCORES)),
                 data.draw(st.sampled_from(WEIGHTS[self.kind]))) for _ in range(k)]
        y = np.array([r[0] for r in rows])
        s = np.array([r[1] for r in rows])
        w = np.array([float(r[2]) for r in rows])
        rest = self.dc.engine_change_arrays(y, s, w, 1)
        order = np.argsort(s, kind="stable")
        done = order[:order.size - rest.size]
        assert (order[done.size:] == rest).all()
        for i in done.tolist():
            assert self._accepts(rows[i][0], rows[i][2])
            self.rows.append((rows[i][0], rows[i][1], self._weight(rows[i][2])))
        if rest.size:          # the first one left is one the engine's checked path takes
            r = rows[int(rest[0])]
            assert not self._accepts(r[0], r[2])

    @precondition(lambda self: self.rows)
    @rule(data=st.data())
    def change_arrays_remove(self, data):
        idx = data.draw(st.lists(st.integers(0, len(self.rows) - 1), unique=True,
                                 max_size=8))
        rows = [self.rows[i] for i in idx]
        rest = self.dc.engine_change_arrays(np.array([r[0] for r in rows], dtype=float),
                                            np.array([r[1] for r in rows], dtype=float),
                                            np.array([float(r[2]) for r in rows]), -1)
        assert rest.size == 0
        for i in sorted(idx, reverse=True):
            del self.rows[i]

    @precondition(lambda self: self.rows)
    @rule(data=st.data(), y=st.sampled_from(POOL), s=st.sampled_from(SCORES))
    def apply(self, data, y, s):
        """The River metrics' buffered changes: removals, then a multiset of adds."""
        removes = [self.rows[i] for i in data.draw(st.lists(
            st.integers(0, len(self.rows) - 1), unique=True, max_size=4))]
        w = data.draw(st.sampled_from(WEIGHTS[self.kind]))
        copies = data.draw(st.integers(1, 3))
        done_r, done_a = self.dc.engine_apply(removes, {(y, s, w): copies})
        assert done_r == len(removes)
        for r in removes:
            del self.rows[self._index(*r)]
        assert done_a == (copies if self._accepts(y, w) else 0)
        self.rows += [(y, s, self._weight(w))] * done_a

    @precondition(lambda self: self.rows)
    @rule(data=st.data())
    def drop_level(self, data):
        """Every sample of one level leaves: its slot is freed for the next new label."""
        y = data.draw(st.sampled_from(sorted({r[0] for r in self.rows})))
        for r in [r for r in self.rows if r[0] == y]:
            assert self.dc.engine_remove(*r)
            self.rows.remove(r)
        assert y not in self.dc.levels

    @rule()
    def round_trip(self):
        copy = pickle.loads(pickle.dumps(self.dc))
        copy._check()
        assert self._state() == (list(copy.items()), len(copy), copy.sums.values(),
                                 copy.levels)
        assert copy.engine_max_levels == self.dc.engine_max_levels
        self.dc = copy

    @rule(y=st.sampled_from(POOL + (0.75,)), s=st.sampled_from(SCORES + (0.3,)))
    def pairs_with(self, y, s):
        got = self.dc.pairs_with(y, s)
        want = cross_counts((y, s, 1), [r[0] for r in self.rows], [r[1] for r in self.rows],
                            [r[2] for r in self.rows]).as_tuple()
        scale = float(sum(Fraction(r[2]) for r in self.rows))
        for a, b in zip(got, want):
            assert (a == b and type(a) is int) if self.dtype is int else _close(a, b, scale)

    # -- after every step
    @invariant()
    def matches_oracle(self):
        dc, rows = self.dc, self.rows
        dc._check()
        assert len(dc) == len(rows)
        assert dc.levels == tuple(sorted({r[0] for r in rows}))
        assert dc.level_copies() == {y: sum(1 for r in rows if r[0] == y)
                                     for y in {r[0] for r in rows}}
        values = dc.sums.values()
        if not rows:
            assert values == [dc.dtype(0)] * 6
            return
        ref = pair_counts_matrix([r[0] for r in rows], [r[1] for r in rows],
                                 [Fraction(r[2]) for r in rows])
        want = list(ref.as_tuple()) + [ref.W]
        # floats: the bound grows with the weight that passed through (engine docstring)
        scale = max(float(ref.W), dc.sums.hist) ** 2
        for got, exact in zip(values, want):
            if self.dtype is int:
                assert type(got) is int and got == exact, (values, want)
            else:
                assert _close(got, exact, scale), (values, want)
        n_pos = sum(1 for r in rows if r[2] > 0)
        assert dc.stats() == (ref.m_y, ref.m_s, n_pos)
        # engine_auc: PairCounts.auc of the sums with the structural zeros
        c, d, t = values[:3]
        if ref.m_s <= 1:
            c = d = 0
        if ref.m_s == n_pos:
            t = 0
        auc = dc.engine_auc()
        if ref.m_y < 2 or c + d + t == 0:
            assert auc is None
        else:
            if self.dtype is int:
                assert auc == float(Fraction(2 * c + t, 2 * (c + d + t))) == float(ref.auc)
            else:
                assert auc == min(1.0, max(0.0, (c + 0.5 * t) / (c + d + t)))


TestLevelCounterMachine = LevelCounterMachine.TestCase
TestLevelCounterMachine.settings = settings(
    max_examples=200, stateful_step_count=50, derandomize=True, deadline=None, database=None)


# ---------------------------------------------------------------------- the engine's moves
def test_engine_levels_mode_is_compiled_and_pickles():
    """A third label moves the engine to the level counter, whose single changes and
    batches stay in C; a pickled engine in levels mode round-trips and goes on."""
    e, rows = PairEngine("ordinal"), []
    for i in range(40):
        row = (float(i % 5), (i % 7) / 6, 1 + i % 3)
        e.add(*row)
        rows.append(row)
    assert e.kind == "levels" and type(e._dom) is LevelDominanceCounter
    assert e._dom.engine_add(9.0, 0.5, 1)          # the fast path takes a new level
    rows.append((9.0, 0.5, 1))
    e._cached = None
    copy = pickle.loads(pickle.dumps(e))
    for engine in (e, copy):
        engine.remove(*rows[3])
        engine.add_many(np.array([0.0, 11.0]), np.array([0.2, 0.9]), None)
    rows = rows[:3] + rows[4:] + [(0.0, 0.2, 1), (11.0, 0.9, 1)]
    y, s, w = zip(*rows)
    for engine in (e, copy):
        engine._check(y, s, w)
        assert engine.kind == "levels" and engine._dom.sums is engine._sums
    assert copy.counts == e.counts


def test_engine_auto_leaves_the_level_counter_past_max_levels():
    """With labels="auto" the compiled add refuses a level past MAX_LEVELS, so that the
    engine's checked path moves to the dominance counter."""
    from streamrank.engine import MAX_LEVELS
    e = PairEngine("auto")
    for k in range(MAX_LEVELS):
        e.add(float(k), k / 10)
    assert e.kind == "levels" and e._dom.engine_max_levels == MAX_LEVELS
    assert not e._dom.engine_add(99.0, 0.5, 1)
    e.add(99.0, 0.5)
    assert e.kind == "continuous"
    e._check(list(range(MAX_LEVELS)) + [99], [k / 10 for k in range(MAX_LEVELS)] + [0.5])


@pytest.mark.parametrize("dtype", [int, float])
def test_level_counter_many_levels_deep_trees(dtype):
    """Nine levels (five trees) over thousands of distinct scores: splits and merges in
    every tree, levels emptied and reopened, each step's terms equal to the oracle's."""
    rng = np.random.default_rng(5)
    dc, held = LevelDominanceCounter(dtype=dtype), []
    n = 3000
    ys = rng.integers(0, 9, n).astype(float)
    ss = rng.integers(0, 800, n) / 8.0
    ws = rng.integers(0, 4, n) if dtype is int else rng.integers(0, 4, n) * 0.25
    for i in range(n):
        w = dtype(ws[i])
        assert dc.engine_add(ys[i], ss[i], w)
        held.append((ys[i], ss[i], w))
    dc._check()
    for gone in (3.0, 4.0):              # two levels empty: their slots are free again
        for r in [r for r in held if r[0] == gone]:
            assert dc.engine_remove(*r)
            held.remove(r)
    assert dc.levels == tuple(sorted({r[0] for r in held}))
    assert dc.engine_add(-5.0, 1.0, dtype(2)) and dc.engine_add(20.0, 1.0, dtype(1))
    held += [(-5.0, 1.0, dtype(2)), (20.0, 1.0, dtype(1))]
    dc._check()
    for y, s in ((0.0, 50.0), (8.0, 0.0), (4.0, 12.5), (-5.0, 1.0), (20.0, 99.875)):
        want = cross_counts((y, s, 1), [r[0] for r in held], [r[1] for r in held],
                            [r[2] for r in held]).as_tuple()
        got = dc.pairs_with(y, s)
        assert all(abs(a - float(b)) <= 1e-9 * n for a, b in zip(got, want)), (got, want)
    total = sum(r[2] for r in held)
    assert dc.total_weight == total if dtype is int else abs(dc.total_weight - total) < 1e-9


def test_binary_counter_is_the_one_tree_level_counter():
    """`BinaryDominanceCounter` is the level counter held to two levels: a third label is
    refused by the checked call (ValueError) and the compiled one (False), unchanged."""
    dc = BinaryDominanceCounter()
    assert isinstance(dc, LevelDominanceCounter)
    dc.add(0, 0.5)
    dc.add(1, 0.25)
    before = list(dc.items())
    with pytest.raises(ValueError, match="BinaryDominanceCounter.add must be one of "
                                         r"the two labels held \(0.0, 1.0\)"):
        dc.add(2, 0.5)
    with pytest.raises(ValueError, match="BinaryDominanceCounter.add_pairs must be one"):
        dc.add_pairs(2.0, 0.5, 1)
    assert not dc.engine_add(2, 0.5, 1)
    assert list(dc.items()) == before
    with pytest.raises(ValueError, match="at most two distinct labels"):
        dc.load([0, 1, 2], [0.1, 0.2, 0.3])
    assert list(dc.items()) == before
    dc._check()


def test_float_sums_keep_their_compensation_through_pickle():
    """A pickled float `Sums` keeps each accumulator's compensation: 2**53 + 1 held as
    2**53 and 1, so that taking 2**53 away again leaves 1 (not 0)."""
    from streamrank.structures._csums import Sums
    sums = Sums(True)
    sums.add((2.0**53, 0.0, 0.0, 0.0, 0.0), 1.0, 2.0**53)
    sums.add((1.0, 0.0, 0.0, 0.0, 0.0), 1.0, 1.0)
    copy = pickle.loads(pickle.dumps(sums))
    copy.add((2.0**53, 0.0, 0.0, 0.0, 0.0), -1.0, -2.0**53)
    assert copy.values() == [1.0, 0.0, 0.0, 0.0, 0.0, 1.0] and copy.hist == sums.hist * 2
