"""The compiled trees' arrays made once needed, appearing mid-stream in deep trees.

A tree of `BinaryDominanceCounter` / `LevelDominanceCounter` (``_btree.pxi``) keeps in
its nodes only what every walk reads; the Neumaier compensations exist once the tree is
in float mode, the copies of weight > 0 once a copy of weight 0 came (until then they
equal the copies). Here they appear in trees of 3+ levels (at least 10**4 distinct
scores: two levels of 32-entry nodes hold at most 1024), in the middle of streams of
single changes, batches and pickles, and every step is checked: the trees' invariants
(`_check`), and the running counts against a batch recount of the samples held
(`PairEngine._check`, exact with integer weights).

Which arrays a tree holds is read from its bit-for-bit copy (`__reduce__`: the header of
each tree ends with the bytes of its compensations and of its copies of weight > 0, or
``None``).
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (RuleBasedStateMachine, initialize, invariant, precondition,
                                 rule)

from oracle import cross_counts
from streamrank.engine import PairEngine
from streamrank.structures import BinaryDominanceCounter, LevelDominanceCounter

DEEP = 12_000          # distinct scores: more than 32 * 32, so 3+ levels


def _arrays(counter):
    """Per tree: ``(has compensations, has copies of weight > 0)``."""
    trees = counter.__reduce__()[1][4][0]
    return [(header[12] is not None, header[13] is not None) for _, _, header in trees]


def _deep_rows(rng, n, levels):
    y = rng.integers(0, levels, n).astype(float)
    s = rng.permutation(n) / 16.0          # n distinct scores
    return y, s


def _assert_bitwise_round_trip(obj):
    data = pickle.dumps(obj, protocol=4)
    copy = pickle.loads(data)
    assert pickle.dumps(copy, protocol=4) == data
    return copy


# --------------------------------------------------------------------------- counters
@pytest.mark.parametrize("cls, levels", [(BinaryDominanceCounter, 2),
                                         (LevelDominanceCounter, 5)])
def test_first_weight_zero_copy_mid_stream_in_a_deep_tree(cls, levels):
    """Unit weights one change at a time (no copies of weight > 0 kept apart), then the
    first copies of weight 0 at held and new scores: the array appears in that tree only,
    equal to the copies where nothing has weight 0; removals of both kinds follow."""
    rng = np.random.default_rng(11)
    y, s = _deep_rows(rng, DEEP, levels)
    dc = cls()
    for a, b in zip(y.tolist(), s.tolist()):
        assert dc.engine_add(a, b, 1)
    dc._check()
    assert _arrays(dc) == [(False, False)] * len(_arrays(dc))
    held = [(a, b, 1) for a, b in zip(y.tolist(), s.tolist())]
    extra = [(0.0, s[7], 0), (0.0, 1e6, 0), (1.0, s[3], 0), (0.0, 1e6, 0)]
    for k, row in enumerate(extra):
        assert dc.engine_add(*row)
        held.append(row)
        dc._check()
        if k == 0:
            assert _arrays(dc)[0] == (False, True)
            assert all(a == (False, False) for a in _arrays(dc)[1:])
    assert dc.stats() == (len({r[0] for r in held if r[2]}), DEEP, DEEP)
    assert dc.count(0.0, s[7]) == 1 + (y[7] == 0.0) and dc.count(0.0, 1e6) == 2
    for q in (s[7], 1e6, s[100], -1.0):
        for label in (0.0, 1.0, 2.5):
            want = cross_counts((label, q, 1), *zip(*held)).as_tuple()
            assert dc.pairs_with(label, q) == want
    # weight-0 copies go, then positive ones around them: merges and splits with pc
    assert dc.engine_remove(0.0, 1e6, 0) and dc.engine_remove(0.0, 1e6, 0)
    assert not dc.engine_remove(0.0, 1e6, 0)
    assert dc.count(0.0, 1e6) == 0
    order = rng.permutation(DEEP)[:DEEP // 2]
    for i in order.tolist():
        assert dc.engine_remove(y[i], s[i], 1)
    dc._check()
    keep = np.setdiff1d(np.arange(DEEP), order)
    copy = _assert_bitwise_round_trip(dc)
    copy._check()
    assert list(copy.items()) == list(dc.items())
    assert _arrays(copy) == _arrays(dc)
    rows = list(dc.items())
    assert sum(c for _, _, c, _ in rows) == keep.size + 2
    for a, b, w in [(0.0, s[7], 0), (1.0, s[3], 0)]:
        assert dc.engine_remove(a, b, w)
    dc._check()                         # the array stays; every copy left has weight > 0
    assert _arrays(dc)[0] == (False, True)
    assert sum(c for _, _, c, _ in dc.items()) == keep.size


def test_zero_weight_copies_first_in_a_later_tree():
    """Five levels: the first weight-0 copy goes to the third tree (levels 4), whose walk
    (all trees at once, each next node prefetched) reads its own array from then on."""
    rng = np.random.default_rng(3)
    y, s = _deep_rows(rng, DEEP, 5)
    dc = LevelDominanceCounter()
    dc.load(y, s)
    assert len(_arrays(dc)) == 3 and not any(p for _, p in _arrays(dc))
    assert dc.engine_add(4.0, s[0], 0) and dc.engine_add(4.0, -2.0, 0)
    assert _arrays(dc) == [(False, False), (False, False), (False, True)]
    dc._check()
    held = list(zip(y.tolist(), s.tolist(), [1] * DEEP)) + [(4.0, s[0], 0), (4.0, -2.0, 0)]
    assert dc.stats()[1:] == (DEEP, DEEP)
    for q in (s[0], -2.0, s[5]):
        want = cross_counts((2.0, q, 1), *zip(*held)).as_tuple()
        assert dc.pairs_with(2.0, q) == want
    assert dc.engine_remove(4.0, -2.0, 0)
    assert dc.stats()[1] == DEEP        # the score -2.0 held no weight: levels unchanged
    dc._check()


@pytest.mark.parametrize("cls", [BinaryDominanceCounter, LevelDominanceCounter])
def test_float_trees_have_compensations_from_the_start(cls):
    """A float counter's trees hold their compensations from the first tree on, every
    later tree too; loads with weight-0 copies make the other array on their way."""
    rng = np.random.default_rng(8)
    levels = 2 if cls is BinaryDominanceCounter else 5
    y, s = _deep_rows(rng, DEEP, levels)
    w = rng.integers(0, 4, DEEP) * 0.25
    dc = cls(dtype=float)
    assert _arrays(dc) == [(True, False)]
    dc.load(y, s, None, w)
    dc._check()
    assert all(a == (True, True) for a in _arrays(dc))
    dc.load(y, s, None, w + 0.5)        # all positive: no array of positive copies
    assert all(a == (True, False) for a in _arrays(dc))
    assert dc.engine_add(1.0, 5.0, 0.0)
    assert _arrays(dc)[0] == (True, True)
    dc._check()
    copy = _assert_bitwise_round_trip(dc)
    copy._check()
    assert copy.sums.values() == dc.sums.values()


# --------------------------------------------------------------------------- engines
@pytest.mark.parametrize("labels, levels", [("auto", 2), ("ordinal", 5)])
def test_engine_moves_to_floats_mid_stream_over_a_deep_tree(labels, levels):
    """Integer weights one at a time, the first weight-0 copy, then a fractional weight:
    the engine rebuilds into float trees (compensations, and the weight-0 copies kept
    apart), and goes on with single changes and batches; the counts stay those of a
    recount at every step."""
    rng = np.random.default_rng(21)
    y, s = _deep_rows(rng, DEEP, levels)
    w = rng.integers(1, 4, DEEP).astype(float)
    e = PairEngine(labels)
    for a, b, c in zip(y.tolist(), s.tolist(), w.tolist()):
        e.add(a, b, int(c))
    ys, ss, ws = y.tolist(), s.tolist(), w.tolist()
    e._check(ys, ss, ws)
    assert not any(p for _, p in _arrays(e._dom))
    for row in [(0.0, ss[10], 0), (1.0, 99.0, 0)]:
        e.add(*row)
        ys.append(row[0]), ss.append(row[1]), ws.append(row[2])
    e._check(ys, ss, ws)
    assert e._dtype is int and _arrays(e._dom)[0] == (False, True)
    e.add(1.0, ss[20], 0.5)                 # floats from now on
    ys.append(1.0), ss.append(ss[20]), ws.append(0.5)
    assert e._dtype is float
    assert all(fe for fe, _ in _arrays(e._dom)) and _arrays(e._dom)[0] == (True, True)
    e._check(ys, ss, ws)
    for i in range(0, 400, 7):
        e.remove(ys[i], ss[i], ws[i])
        e.add(ys[i], ss[i] + 1000.0, 0.0 if i % 2 else 1.25)
        ss[i] += 1000.0
        ws[i] = 0.0 if i % 2 else 1.25
    e._check(ys, ss, ws)
    k = 300
    e.add_many(np.full(k, 0.0), np.arange(k) / 3.0 + 0.01, np.full(k, 0.75))
    ys += [0.0] * k
    ss += (np.arange(k) / 3.0 + 0.01).tolist()
    ws += [0.75] * k
    e._check(ys, ss, ws)
    copy = _assert_bitwise_round_trip(e)
    copy._check(ys, ss, ws)


# --------------------------------------------------------------------------- machine
POOL = (0.0, 1.0, 2.0, 3.0, 4.0)
FAN = 32                # entries per node (_btree.pxi): more than FAN**2 scores, 3+ levels
STEPS = 25
# Each label of the machine's rows holds more than FAN**2 + STEPS distinct scores (checked
# in `setup`), so every tree stays 3+ levels deep whichever levels share it and whatever
# the steps remove; half of DEEP rows are enough and halve the cost of a step's recount.
MACHINE_ROWS = DEEP // 2


class DeepEngineMachine(RuleBasedStateMachine):
    """A `PairEngine` over a deep tree (or three deep trees) taking unit, integer, zero
    and fractional weights in any order, next to the lists of what it holds."""

    @initialize(levels=st.sampled_from((2, 5)), seed=st.integers(0, 3))
    def setup(self, levels, seed):
        rng = np.random.default_rng(seed)
        y, s = _deep_rows(rng, MACHINE_ROWS, levels)
        assert np.bincount(y.astype(int)).min() > FAN * FAN + STEPS
        self.e = PairEngine("ordinal")
        self.e.add_many(y, s, None)
        self.ys, self.ss, self.ws = y.tolist(), s.tolist(), [1] * MACHINE_ROWS
        self.zeros = 0          # rows of weight 0 held
        self.labels = POOL[:levels]

    def _append(self, y, s, w):
        self.ys.append(y)
        self.ss.append(s)
        self.ws.append(w)
        self.zeros += w == 0

    def _pop(self, i):
        row = self.ys.pop(i), self.ss.pop(i), self.ws.pop(i)
        self.zeros -= row[2] == 0
        return row

    @rule(data=st.data(), w=st.sampled_from((1, 2, 0, 0, 0.5)), fresh=st.booleans())
    def add(self, data, w, fresh):
        y = data.draw(st.sampled_from(self.labels))
        s = data.draw(st.integers(0, 4 * DEEP)) / 64.0 if fresh else \
            self.ss[data.draw(st.integers(0, len(self.ss) - 1))]
        if self.e._dtype is float:
            w = float(w)
        self.e.add(y, s, w)
        self._append(y, s, w)

    @rule(data=st.data())
    def remove(self, data):
        self.e.remove(*self._pop(data.draw(st.integers(0, len(self.ys) - 1))))

    @precondition(lambda self: self.zeros)
    @rule(data=st.data())
    def remove_zero(self, data):
        zeros = [i for i, w in enumerate(self.ws) if w == 0]
        self.e.remove(*self._pop(zeros[data.draw(st.integers(0, len(zeros) - 1))]))

    @rule(k=st.integers(1, 40), w=st.sampled_from((0, 1, 0.25)), seed=st.integers(0, 9))
    def add_batch(self, k, w, seed):
        rng = np.random.default_rng(seed)
        y = rng.choice(self.labels, k)
        s = rng.integers(0, 4 * DEEP, k) / 64.0
        if self.e._dtype is float:
            w = float(w)
        self.e.add_many(y, s, np.full(k, float(w)))
        for a, b in zip(y.tolist(), s.tolist()):
            self._append(a, b, w)

    @rule()
    def round_trip(self):
        self.e = _assert_bitwise_round_trip(self.e)

    @invariant()
    def matches_recount(self):
        self.e._check(self.ys, self.ss, self.ws)
        arrays = _arrays(self.e._dom)
        assert all(fe == (self.e._dtype is float) for fe, _ in arrays)
        if self.zeros:
            assert any(pc for _, pc in arrays)


TestDeepEngineMachine = DeepEngineMachine.TestCase
TestDeepEngineMachine.settings = settings(
    max_examples=50, stateful_step_count=STEPS, derandomize=True, deadline=None,
    database=None)
