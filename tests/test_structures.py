"""The order-statistic structures against naive Python oracles.

Each structure runs under a Hypothesis state machine next to a plain list of what it
holds: after every mutation ``_check()`` asserts its invariants, and every query is
compared with the oracle's brute-force answer. Values come mostly from a small set
(heavy ties, ``-0.0 == 0.0``), weights are unit, integer or float. The machines shrink the
node sizes (`small_nodes`) so that a few dozen steps split, merge, rotate and rebuild.
Seeded stress runs cover the default node sizes; bad input must raise the one
validation message and leave the structure exactly as it was.
"""

from __future__ import annotations

import contextlib
import math
import pickle
import random

import numpy as np
import pytest
from hypothesis import strategies as st
from hypothesis.stateful import (Bundle, RuleBasedStateMachine, consumes, invariant,
                                 multiple, precondition, rule)

from streamrank.structures import (BinaryDominanceCounter, DominanceCounter, FenwickTree,
                                   LevelDominanceCounter, WeightedSortedMultiset)
from streamrank.structures import _cdominance as cdominance_module
from streamrank.structures import multiset as multiset_module

TIES = (-2.5, -1.0, -0.0, 0.0, 0.5, 1.0, 3.25)
values = st.one_of(st.sampled_from(TIES), st.floats(-1e6, 1e6, allow_nan=False))
int_weights = st.integers(0, 5)
float_weights = st.one_of(st.sampled_from((0.0, 1e-3, 0.5, 1.0, 2.5)),
                          st.floats(0.0, 1e3, allow_nan=False))


@contextlib.contextmanager
def small_nodes(load=4, leaf=2, fan=4):
    """Multiset nodes of 2 .. 8 entries, dominance leaves of 1 .. 4 keys and dominance
    score nodes of 1 .. 4 entries: deep trees from a few dozen items. The Python
    multisets read ``_LOAD`` on every call; a `DominanceCounter` reads ``_LEAF`` and
    ``_FAN`` when it is created."""
    saved = multiset_module._LOAD, cdominance_module._LEAF, cdominance_module._FAN
    multiset_module._LOAD, cdominance_module._LEAF, cdominance_module._FAN = load, leaf, fan
    try:
        yield
    finally:
        multiset_module._LOAD, cdominance_module._LEAF, cdominance_module._FAN = saved


def close(got, exact, scale):
    """Float results within 1e-9 of the weight involved; ints exactly (and typed)."""
    if isinstance(exact, int):
        return got == exact and type(got) is int
    return abs(got - exact) <= 1e-9 * (scale + 1.0)


def snapshot(structure):
    """Everything observable, to check that a failed call changed nothing."""
    if isinstance(structure, FenwickTree):
        return structure.weights().tolist(), structure.total
    return list(structure.items()), len(structure), structure.total_weight


# =========================================================================== FenwickTree
class FenwickMachine(RuleBasedStateMachine):
    """A Fenwick tree of ``SIZE`` positions against a list of point weights."""

    SIZE = 13
    dtype = int
    weights = int_weights

    def __init__(self):
        super().__init__()
        self.tree = FenwickTree(self.SIZE, dtype=self.dtype)
        self.model = [self.dtype(0)] * self.SIZE

    def scale(self):
        return math.fsum(self.model)

    def exact(self, weights):
        return sum(weights) if self.dtype is int else math.fsum(weights)

    @rule(i=st.integers(0, SIZE - 1), data=st.data())
    def add(self, i, data):
        w = data.draw(self.weights)
        self.tree.add(i, w)
        self.model[i] += w

    @rule(i=st.integers(0, SIZE - 1), fraction=st.sampled_from((0.25, 0.5, 1.0)))
    def take_away(self, i, fraction):
        held = self.model[i]
        if self.dtype is int:
            w = -(held if fraction == 1.0 else held // 2)
        else:
            w = -held * fraction
        self.tree.add(i, w)
        self.model[i] = held + w

    @precondition(lambda self: self.dtype is int)
    @rule(i=st.integers(0, SIZE - 1))
    def take_too_much(self, i):
        before = snapshot(self.tree)
        with pytest.raises(ValueError, match="The 'w' parameter of FenwickTree.add must be "
                                             "at least"):
            self.tree.add(i, -(self.model[i] + 1))
        assert snapshot(self.tree) == before

    @rule(idx=st.lists(st.integers(0, SIZE - 1), max_size=20), data=st.data())
    def add_many(self, idx, data):
        w = [data.draw(self.weights) for _ in idx]
        self.tree.add_many(np.asarray(idx, dtype=np.int64), np.asarray(w))
        for i, x in zip(idx, w):
            self.model[i] += x

    @rule(i=st.integers(0, SIZE), j=st.integers(0, SIZE))
    def sums(self, i, j):
        assert close(self.tree.prefix_sum(i), self.exact(self.model[:i]), self.scale())
        lo, hi = min(i, j), max(i, j)
        assert close(self.tree.range_sum(lo, hi), self.exact(self.model[lo:hi]), self.scale())
        assert self.tree.range_sum(hi, lo) == (0 if lo == hi else self.dtype(0))
        many = self.tree.prefix_sum_many(np.arange(self.SIZE + 1))
        assert many.tolist() == [self.tree.prefix_sum(k) for k in range(self.SIZE + 1)]

    @rule(prefix_weight=st.floats(-1.0, 40.0))
    def search(self, prefix_weight):
        found = self.tree.search(prefix_weight)
        prefix = [self.exact(self.model[:k + 1]) for k in range(self.SIZE)]
        if self.dtype is int:
            expected = next((k for k, p in enumerate(prefix) if p >= prefix_weight),
                            self.SIZE)
            assert found == expected
        else:  # the definition, up to the rounding of the tree's sums
            tol = 1e-9 * (self.scale() + 1.0)
            assert found == self.SIZE or prefix[found] >= prefix_weight - tol
            assert found == 0 or prefix[found - 1] < prefix_weight + tol

    @invariant()
    def consistent(self):
        self.tree._check()
        assert close(self.tree.total, self.exact(self.model), self.scale())
        assert len(self.tree) == self.SIZE


class FloatFenwickMachine(FenwickMachine):
    dtype = float
    weights = float_weights


TestFenwickInt = FenwickMachine.TestCase
TestFenwickFloat = FloatFenwickMachine.TestCase


def test_fenwick_from_weights_equals_adds():
    rng = np.random.default_rng(1)
    for dtype, w in ((int, rng.integers(0, 9, 1000)), (float, rng.random(1000))):
        built = FenwickTree.from_weights(w)
        grown = FenwickTree(1000, dtype=dtype)
        for i, x in enumerate(w.tolist()):
            grown.add(i, x)
        built._check()
        assert built.dtype is dtype
        idx = np.arange(1001)
        np.testing.assert_allclose(built.prefix_sum_many(idx), grown.prefix_sum_many(idx),
                                   rtol=1e-12)


def test_fenwick_batches_take_the_numpy_path_and_agree():
    rng = np.random.default_rng(2)
    ft = FenwickTree.from_weights(rng.integers(0, 5, 4096))
    idx = rng.integers(0, 4097, 2000)  # above size / 32: the vectorized gather
    assert ft.prefix_sum_many(idx).tolist() == [ft.prefix_sum(i) for i in idx.tolist()]
    before = ft.weights()
    pos = rng.integers(0, 4096, 3000)
    ft.add_many(pos, 2)                # many distinct positions: one O(m) rebuild
    ft._check()
    assert (ft.weights() - before).sum() == 6000


def test_fenwick_int_total_stays_below_2_63():
    big = 2**62 - 1
    ft = FenwickTree.from_weights([big, big, 1])
    assert ft.total == 2**63 - 1 and ft.prefix_sum(2) == 2**63 - 2
    assert ft.prefix_sum_many(np.arange(4).repeat(20)).tolist()[-1] == 2**63 - 1
    before = snapshot(ft)
    with pytest.raises(ValueError, match="keep the total weight below 2"):
        ft.add(2, 1)
    with pytest.raises(ValueError, match="keep the total weight below 2"):
        ft.add_many([0, 2], [-1, 2])
    assert snapshot(ft) == before
    with pytest.raises(ValueError, match="of total below 2"):
        FenwickTree.from_weights([big, big, 2])
    ft._check()


def test_fenwick_pickles():
    ft = FenwickTree.from_weights([0.5, 1.5, 0.0])
    copy = pickle.loads(pickle.dumps(ft))
    copy._check()
    assert snapshot(copy) == snapshot(ft) and copy.search(1.0) == 1


def test_fenwick_float_drift_is_bounded():
    """10**5 weighted adds and removals: prefix sums within 1e-9 of a fresh fsum."""
    rng = random.Random(3)
    m = 500
    ft, model = FenwickTree(m, dtype=float), [[] for _ in range(m)]
    for _ in range(10**5):
        i = rng.randrange(m)
        if model[i] and rng.random() < 0.45:
            ft.add(i, -model[i].pop(rng.randrange(len(model[i]))))
        else:
            w = rng.choice((1e-3, 0.1, 0.7, 1e3)) * rng.random()
            ft.add(i, w)
            model[i].append(w)
    exact = [math.fsum(ws) for ws in model]
    for k in range(0, m + 1, 37):
        want = math.fsum(exact[:k])
        assert abs(ft.prefix_sum(k) - want) <= 1e-9 * max(want, 1.0)
    ft._check()


@pytest.mark.parametrize("call, message", [
    (lambda ft: ft.add(5, 1), r"The 'i' parameter of FenwickTree.add must be an integer in "
                              r"\[0, 4\]. Got 5 instead."),
    (lambda ft: ft.add(-1, 1), r"must be an integer in \[0, 4\]. Got -1"),
    (lambda ft: ft.add(1.0, 1), r"'i' parameter .* Got 1.0 instead"),
    (lambda ft: ft.add(0, 0.5), "The 'w' parameter of FenwickTree.add must be an integer "
                                r"\(the tree has dtype int\). Got 0.5 instead."),
    (lambda ft: ft.add(0, -2), r"must be at least -1 \(the weight at position 0\)"),
    (lambda ft: ft.prefix_sum(6), r"'i' parameter of FenwickTree.prefix_sum .* \[0, 5\]"),
    (lambda ft: ft.search(float("nan")), "'prefix_weight' parameter of FenwickTree.search"),
    (lambda ft: ft.add_many([0, 9], [1, 1]), r"'idx' parameter .* integers in \[0, 4\]"),
    (lambda ft: ft.add_many([0, 1], [1, -5]), "'w' parameter of FenwickTree.add_many must "
                                              "be such that no weight becomes negative"),
    (lambda ft: ft.add_many([0, 1], [1]), "'w' parameter of FenwickTree.add_many must be "
                                          "a scalar or of length 2"),
])
def test_fenwick_bad_input_changes_nothing(call, message):
    ft = FenwickTree.from_weights([1, 2, 0, 4, 1])
    before = snapshot(ft)
    with pytest.raises(ValueError, match=message):
        call(ft)
    assert snapshot(ft) == before
    ft._check()


def test_fenwick_bad_construction():
    with pytest.raises(ValueError, match="'size' parameter of FenwickTree"):
        FenwickTree(-1)
    with pytest.raises(ValueError, match="'dtype' parameter of FenwickTree must be int or "
                                         "float"):
        FenwickTree(3, dtype="int")
    with pytest.raises(ValueError, match="'weights' parameter .* must be non-negative"):
        FenwickTree.from_weights([1, -1])
    with pytest.raises(ValueError, match="must be finite"):
        FenwickTree.from_weights([1.0, float("inf")])
    with pytest.raises(ValueError, match="must be a finite real number"):
        FenwickTree(3, dtype=float).add(0, float("nan"))


def test_fenwick_float_residue_is_clamped_to_zero():
    ft = FenwickTree(2, dtype=float)
    for w in (0.1, 0.2):
        ft.add(0, w)
    ft.add(0, -0.1)
    ft.add(0, -0.2)  # 0.1 + 0.2 - 0.1 - 0.2 is not 0.0 in floats
    assert ft[0] >= 0.0
    ft._check()


# =========================================================================== multiset
class MultisetMachine(RuleBasedStateMachine):
    """A multiset against a list of the (value, weight) copies it holds."""

    dtype = int
    weights = int_weights
    held = Bundle("held")

    def __init__(self):
        super().__init__()
        self.ms = WeightedSortedMultiset(dtype=self.dtype)
        self.model = []  # (value, weight) per copy
        self._nodes = small_nodes()
        self._nodes.__enter__()

    def teardown(self):
        self._nodes.__exit__(None, None, None)

    def scale(self):
        return math.fsum(w for _, w in self.model)

    def expected(self, value):
        def total(keep):
            ws = [w for v, w in self.model if keep(v)]
            return sum(ws) if self.dtype is int else math.fsum(ws)
        return (total(lambda v: v < value), total(lambda v: v == value),
                total(lambda v: v > value))

    @rule(target=held, value=values, data=st.data())
    def add(self, value, data):
        w = data.draw(self.weights)
        self.ms.add(value, w)
        self.model.append((value, w))
        return value, w

    @rule(target=held, value=values, copies=st.integers(1, 12))
    def add_run(self, value, copies):
        for _ in range(copies):
            self.ms.add(value, 1 if self.dtype is int else 1.0)
            self.model.append((value, self.dtype(1)))
        return value, self.dtype(1)

    @rule(copy=consumes(held))
    def remove(self, copy):
        value, w = copy
        if copy not in self.model:  # already taken out by `clear` or `reload`
            return
        self.ms.remove(value, w)
        self.model.remove(copy)

    @rule(value=values)
    def remove_absent(self, value):
        if any(v == value for v, _ in self.model):
            return
        before = snapshot(self.ms)
        with pytest.raises(ValueError, match="The 'value' parameter of "
                                             "WeightedSortedMultiset.remove must be a value "
                                             "held"):
            self.ms.remove(value, 0)
        assert snapshot(self.ms) == before

    @precondition(lambda self: self.dtype is int and self.model)
    @rule(data=st.data())
    def remove_too_much(self, data):
        value, _ = data.draw(st.sampled_from(self.model))
        held = self.expected(value)[1]
        before = snapshot(self.ms)
        with pytest.raises(ValueError, match="The 'weight' parameter of "
                                             "WeightedSortedMultiset.remove must be"):
            self.ms.remove(value, held + 1)
        assert snapshot(self.ms) == before

    @rule(value=values)
    def query(self, value):
        below, equal, above = self.expected(value)
        got = self.ms.partition(value)
        scale = self.scale()
        assert close(got[0], below, scale) and close(got[1], equal, scale)
        assert close(got[2], above, scale)
        assert close(self.ms.below(value), below, scale)
        assert close(self.ms.equal(value), equal, scale)
        assert close(self.ms.above(value), above, scale)
        count = sum(1 for v, _ in self.model if v == value)
        assert self.ms.count(value) == count and (value in self.ms) == (count > 0)

    @rule(queries=st.lists(values, max_size=12), vectorized=st.booleans())
    def query_many(self, queries, vectorized):
        if vectorized:  # force the numpy path, from a stale snapshot
            self.ms._snapshot = None
            saved, multiset_module._VECTOR_MIN_FRACTION = \
                multiset_module._VECTOR_MIN_FRACTION, 0.0
        try:
            below, equal, above = self.ms.partition_many(queries)
        finally:
            if vectorized:
                multiset_module._VECTOR_MIN_FRACTION = saved
        assert self.ms.below_many(queries).tolist() == below.tolist()
        assert self.ms.equal_many(queries).tolist() == equal.tolist()
        assert self.ms.above_many(queries).tolist() == above.tolist()
        scale = self.scale()
        for q, b, e, a in zip(queries, below.tolist(), equal.tolist(), above.tolist()):
            exp = self.expected(q)
            assert all(abs(g - x) <= 1e-9 * (scale + 1) for g, x in zip((b, e, a), exp))

    @rule()
    def reload(self):
        """`from_arrays` of the oracle's copies gives the same multiset."""
        vals = np.asarray([v for v, _ in self.model], dtype=float)
        w = np.asarray([w for _, w in self.model], dtype=self.dtype)
        other = WeightedSortedMultiset.from_arrays(vals, w, dtype=self.dtype)
        other._check()
        assert [(v, c) for v, c, _ in other.items()] == [(v, c) for v, c, _ in self.ms.items()]
        scale = self.scale()
        for (_, _, a), (_, _, b) in zip(other.items(), self.ms.items()):
            assert close(a, b, scale)

    @rule()
    def round_trip(self):
        copy = pickle.loads(pickle.dumps(self.ms))
        copy._check()
        assert snapshot(copy) == snapshot(self.ms)

    @invariant()
    def consistent(self):
        self.ms._check()
        assert len(self.ms) == len(self.model)
        assert self.ms.distinct == len({v for v, _ in self.model})
        assert close(self.ms.total_weight, self.expected(math.inf)[0], self.scale())
        items = list(self.ms.items())
        assert [v for v, _, _ in items] == sorted({v for v, _ in self.model})


class FloatMultisetMachine(MultisetMachine):
    dtype = float
    weights = float_weights


TestMultisetInt = MultisetMachine.TestCase
TestMultisetFloat = FloatMultisetMachine.TestCase


@pytest.mark.parametrize("dtype", [int, float])
def test_multiset_stress_default_nodes(dtype):
    """Seeded: 6000 operations at the default node size (splits, merges, three levels)."""
    rng = random.Random(4)
    ms, model = WeightedSortedMultiset(dtype=dtype), []
    for step in range(6000):
        if model and rng.random() < 0.4:
            ms.remove(*model.pop(rng.randrange(len(model))))
        else:
            v = rng.choice((rng.random(), rng.randrange(40) / 40))
            w = rng.randrange(4) if dtype is int else rng.random() * 3
            ms.add(v, w)
            model.append((v, w))
        if step % 500 == 0:
            ms._check()
    ms._check()
    values = sorted(v for v, _ in model)
    for q in (-1.0, 0.25, 0.5, values[len(values) // 2], 2.0):
        exact = math.fsum(w for v, w in model if v < q)
        assert close(ms.below(q), exact if dtype is float else int(exact), exact)
    rng.shuffle(model)
    for copy in model:
        ms.remove(*copy)
    ms._check()
    assert len(ms) == 0 and ms.total_weight == 0 and type(ms.total_weight) is dtype


def test_multiset_float_drift_is_bounded():
    """10**5 random weighted adds and removes: every weight sum within 1e-9 (relative) of
    a fresh `math.fsum` of the copies held."""
    rng = random.Random(5)
    ms, model = WeightedSortedMultiset(dtype=float), []
    for _ in range(10**5):
        if model and rng.random() < 0.48:
            ms.remove(*model.pop(rng.randrange(len(model))))
        else:
            v = rng.randrange(5000) / 5000
            w = rng.choice((1e-3, 1.0, 1e3)) * rng.random()
            ms.add(v, w)
            model.append((v, w))
    ms._check()
    for q in [rng.random() for _ in range(50)] + [-1.0, 2.0]:
        below, equal, above = ms.partition(q)
        for got, keep in ((below, lambda v: v < q), (equal, lambda v: v == q),
                          (above, lambda v: v > q)):
            exact = math.fsum(w for v, w in model if keep(v))
            assert abs(got - exact) <= 1e-9 * max(exact, 1.0), (q, got, exact)


def test_multiset_large_batch_and_snapshot_reuse():
    rng = np.random.default_rng(6)
    values_held = rng.integers(0, 500, 20000) / 500
    ms = WeightedSortedMultiset.from_arrays(values_held)
    queries = rng.integers(-10, 510, 3000) / 500  # above distinct / 64: the numpy path
    below, equal, above = ms.partition_many(queries)
    assert ms._snapshot is not None
    sorted_held = np.sort(values_held)
    assert below.tolist() == np.searchsorted(sorted_held, queries, "left").tolist()
    assert (below + equal).tolist() == np.searchsorted(sorted_held, queries, "right").tolist()
    assert (below + equal + above == 20000).all()
    ms.add(0.5)
    assert ms._snapshot is None  # a change makes the arrays stale


def test_multiset_exact_weights_beyond_int64_in_total():
    ms = WeightedSortedMultiset()
    for v in range(4):
        ms.add(float(v), 2**62)
    assert ms.total_weight == 2**64 and ms.below(3.5) == 2**64
    below, _, _ = ms.partition_many([0.5, 3.5])
    assert below.tolist() == [2**62, 2**64]
    with pytest.raises(ValueError, match="below 2\\*\\*63"):
        ms.add(0.0, 2**62)  # one value's weight may not reach 2**63
    ms._check()


@pytest.mark.parametrize("dtype, call, message", [
    (int, lambda ms: ms.add(float("nan")), "The 'value' parameter of WeightedSortedMultiset"
                                           ".add must be a real number, not NaN. Got nan"),
    (int, lambda ms: ms.add("0.5"), "'value' parameter .* Got '0.5' instead"),
    (int, lambda ms: ms.add(0.5, -1), "'weight' parameter of WeightedSortedMultiset.add "
                                      "must be a non-negative integer"),
    (int, lambda ms: ms.add(0.5, 1.5), r"non-negative integer below 2\*\*63 \(the dtype is "
                                       r"int\). Got 1.5 instead"),
    (float, lambda ms: ms.add(0.5, float("inf")), "must be a finite non-negative number. "
                                                  "Got inf instead"),
    (float, lambda ms: ms.add(0.5, -0.5), "finite non-negative number. Got -0.5"),
    (int, lambda ms: ms.remove(0.25), "must be a value held. Got 0.25 instead"),
    (int, lambda ms: ms.remove(9.0), "must be a value held. Got 9.0 instead"),
    (int, lambda ms: ms.remove(0.5, 3), r"'weight' .* must be at most 2, the weight held "
                                        "at 0.5. Got 3"),
    (int, lambda ms: ms.remove(1.0, 2), "must be 1, the weight of the last copy of 1.0"),
    (int, lambda ms: ms.partition(float("nan")), "WeightedSortedMultiset.partition"),
    (int, lambda ms: ms.partition_many([0.1, float("nan")]), "'values' parameter .* NaN"),
    (int, lambda ms: ms.partition_many([[0.1]]), "must be a 1-D array"),
])
def test_multiset_bad_input_changes_nothing(dtype, call, message):
    ms = WeightedSortedMultiset(dtype=dtype)
    for v, w in ((0.5, 1), (0.5, 1), (1.0, 1)):
        ms.add(v, dtype(w))
    before = snapshot(ms)
    with pytest.raises(ValueError, match=message):
        call(ms)
    assert snapshot(ms) == before
    ms._check()


def test_multiset_bad_construction():
    with pytest.raises(ValueError, match="'dtype' parameter of WeightedSortedMultiset must "
                                         "be int or float"):
        WeightedSortedMultiset(dtype=np.float64)
    with pytest.raises(ValueError, match="'values' parameter .* free of NaN"):
        WeightedSortedMultiset.from_arrays([1.0, float("nan")])
    with pytest.raises(ValueError, match="'weights' parameter .* integers"):
        WeightedSortedMultiset.from_arrays([1.0], [0.5], dtype=int)
    with pytest.raises(ValueError, match="'weights' parameter .* 2 real numbers"):
        WeightedSortedMultiset.from_arrays([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="finite and non-negative"):
        WeightedSortedMultiset.from_arrays([1.0], [-1.0])


def test_multiset_float_remove_trusts_the_weight():
    ms = WeightedSortedMultiset(dtype=float)
    ms.add(1.0, 0.1)
    ms.add(1.0, 0.2)
    ms.remove(1.0, 0.25)  # more than the remaining copy's weight would leave: clamp
    ms.remove(1.0, 0.05)  # the last copy takes whatever is left
    assert len(ms) == 0 and ms.total_weight == 0.0
    ms._check()


# =========================================================================== dominance
def grid_oracle(points, label, score, zero=0):
    grid = [[zero, zero, zero], [zero, zero, zero], [zero, zero, zero]]
    for y, s, w in points:
        grid[0 if y < label else (1 if y == label else 2)][
            0 if s < score else (1 if s == score else 2)] += w
    return grid


def pairs_oracle(points, label, score, zero=0):
    g = grid_oracle(points, label, score, zero)
    return (g[0][0] + g[2][2], g[0][2] + g[2][0], g[0][1] + g[2][1], sum(g[1]), g[1][1])


labels_few = st.sampled_from((0, 1, 2, 3, 4))
labels_many = st.one_of(st.sampled_from(TIES), st.floats(-1e3, 1e3, allow_nan=False))
scores = st.one_of(st.sampled_from((-1.0, 0.0, 0.5, 1.0)), st.floats(-1e3, 1e3,
                                                                      allow_nan=False))


class DominanceMachine(RuleBasedStateMachine):
    """A 2-D dominance counter against a list of (label, score, weight) points."""

    cls = DominanceCounter
    dtype = int
    weights = int_weights
    labels = labels_many
    held = Bundle("held")

    def __init__(self):
        super().__init__()
        self._nodes = small_nodes()
        self._nodes.__enter__()
        self.dc = self.cls(dtype=self.dtype)
        self.model = []

    def teardown(self):
        self._nodes.__exit__(None, None, None)

    def scale(self):
        return math.fsum(w for *_, w in self.model)

    @rule(target=held, label=labels_few, score=scores, data=st.data())
    def add(self, label, score, data):
        # labels_few here too, so that label ties are common
        label = data.draw(st.one_of(st.just(label), self.labels))
        w = data.draw(self.weights)
        self.dc.add(label, score, w)
        self.model.append((label, score, w))
        return label, score, w

    @rule(target=held, start=st.integers(-50, 50), step=st.sampled_from((1, -1)),
          length=st.integers(5, 30))
    def add_monotone(self, start, step, length):
        """Labels in increasing or decreasing runs: the rotations' favourite food."""
        point = None
        for k in range(length):
            point = (float(start + step * k) / 7, float(k % 3), self.dtype(1))
            self.dc.add(*point)
            self.model.append(point)
        return point

    @rule(point=consumes(held))
    def remove(self, point):
        if point not in self.model:
            return
        self.dc.remove(*point)
        self.model.remove(point)

    @rule(fraction=st.sampled_from((0.5, 0.9, 1.0)), seed=st.integers(0, 3))
    def remove_many(self, fraction, seed):
        """Mass deletion: empties leaves one after another (the compacting rebuild needs
        default-sized leaves: `test_dominance_shapes_at_default_leaf_size`)."""
        rng = random.Random(seed)
        rng.shuffle(self.model)
        cut = int(len(self.model) * fraction)
        for point in self.model[:cut]:
            self.dc.remove(*point)
        del self.model[:cut]

    @rule(label=labels_many, score=scores)
    def remove_absent(self, label, score):
        if any(y == label and s == score for y, s, _ in self.model):
            return
        before = snapshot(self.dc)
        with pytest.raises(ValueError, match=f"parameter of {self.cls.__name__}.remove must "
                                             "be the"):
            self.dc.remove(label, score, 0)
        assert snapshot(self.dc) == before

    @rule(label=labels_few, score=scores, data=st.data())
    def query(self, label, score, data):
        label = data.draw(st.one_of(st.just(label), self.labels,
                                    st.sampled_from([y for y, _, _ in self.model] or [0])))
        scale = self.scale()
        grid = self.dc.query(label, score)
        zero = self.dtype(0)
        for got_row, exp_row in zip(grid, grid_oracle(self.model, label, score, zero)):
            for got, exp in zip(got_row, exp_row):
                assert close(got, exp, scale), (grid, label, score)
        for got, exp in zip(self.dc.pairs_with(label, score),
                            pairs_oracle(self.model, label, score, zero)):
            assert close(got, exp, scale)
        assert self.dc.count(label, score) == sum(
            1 for y, s, _ in self.model if y == label and s == score)

    @rule()
    def round_trip(self):
        copy = pickle.loads(pickle.dumps(self.dc))
        copy._check()
        assert snapshot(copy) == snapshot(self.dc)
        label, score = (self.model[0][:2] if self.model else (0.0, 0.0))
        assert copy.query(label, score) == self.dc.query(label, score)

    @rule()
    def reload(self):
        """`from_arrays` of the oracle's points, and `load` of `items`, rebuild the same
        counter."""
        y, s, w = (np.asarray([p[k] for p in self.model], dtype=float) for k in range(3))
        built = self.cls.from_arrays(y, s, w.astype(self.dtype), dtype=self.dtype)
        reloaded = self.cls(dtype=self.dtype)
        rows = list(self.dc.items())
        reloaded.load(*(np.asarray(col) for col in zip(*rows))) if rows else reloaded.load(
            [], [])
        scale = self.scale()
        for other in (built, reloaded):
            other._check()
            assert [r[:3] for r in other.items()] == [r[:3] for r in rows]
            for got, want in zip(other.items(), rows):
                assert close(got[3], want[3], scale)

    @rule(batch=st.lists(st.tuples(labels_few, scores), max_size=8), data=st.data())
    def batch_pairs(self, batch, data):
        weights = [data.draw(self.weights) for _ in batch]
        got = self.dc.pairs_with_many([b[0] for b in batch], [b[1] for b in batch],
                                      np.asarray(weights, dtype=self.dtype))
        zero = self.dtype(0)
        want = [zero] * 5
        for (label, score), w in zip(batch, weights):
            for j, term in enumerate(pairs_oracle(self.model, label, score, zero)):
                want[j] += w * term
        scale = self.scale() * (sum(weights) + 1)
        assert all(close(a, b, scale) for a, b in zip(got, want)), (got, want)

    @invariant()
    def consistent(self):
        self.dc._check()
        assert len(self.dc) == len(self.model)
        assert close(self.dc.total_weight, sum(w for *_, w in self.model)
                     if self.dtype is int else math.fsum(w for *_, w in self.model),
                     self.scale())
        keys = sorted({(y, s) for y, s, _ in self.model})
        assert [(y, s) for y, s, _, _ in self.dc.items()] == keys


class FloatDominanceMachine(DominanceMachine):
    dtype = float
    weights = float_weights


class LevelMachine(DominanceMachine):
    cls = LevelDominanceCounter
    labels = labels_few


class FloatLevelMachine(LevelMachine):
    dtype = float
    weights = float_weights


class BinaryMachine(DominanceMachine):
    """`BinaryDominanceCounter`: at most two labels (a third is refused and changes
    nothing), heavy ties, and the fused `add_pairs` / `remove_pairs` against the oracle."""

    cls = BinaryDominanceCounter
    labels = labels_few

    def held_labels(self):
        return {y for y, _, _ in self.model}

    def draw_label(self, data):
        """Mostly a held label (ties, and room), now and then any small label."""
        held = sorted(self.held_labels())
        return data.draw(st.sampled_from(held) if held and data.draw(st.booleans())
                         else labels_few)

    def refused(self, label, call):
        """A third label: `ValueError`, nothing changes; True if so."""
        if len(self.held_labels() | {label}) <= 2:
            return False
        before = snapshot(self.dc)
        with pytest.raises(ValueError, match="must be one of the two labels held"):
            call()
        assert snapshot(self.dc) == before
        return True

    @rule(target=DominanceMachine.held, score=scores, data=st.data())
    def add(self, score, data):
        label, w = self.draw_label(data), data.draw(self.weights)
        if self.refused(label, lambda: self.dc.add(label, score, w)):
            return multiple()
        self.dc.add(label, score, w)
        self.model.append((label, score, w))
        return label, score, w

    @rule(target=DominanceMachine.held, start=st.integers(-50, 50),
          length=st.integers(5, 30))
    def add_monotone(self, start, length):
        """Scores in a run on one held label (or label 0): leaf splits at one end."""
        label = min(self.held_labels() or {0})
        point = None
        for k in range(length):
            point = (label, float(start + k) / 7, self.dtype(1))
            self.dc.add(*point)
            self.model.append(point)
        return point

    @rule(target=DominanceMachine.held, score=st.sampled_from((-1.0, 0.0, 0.5, 1.0)),
          data=st.data())
    def add_pairs(self, score, data):
        label, w = float(self.draw_label(data)), data.draw(self.weights)
        if self.refused(label, lambda: self.dc.add_pairs(label, score, w)):
            return multiple()
        want = pairs_oracle(self.model, label, score, self.dtype(0))
        got = self.dc.add_pairs(label, score, w)
        scale = self.scale()
        assert all(close(a, b, scale) for a, b in zip(got, want)), (got, want)
        self.model.append((label, score, w))
        return label, score, w

    @rule(point=consumes(DominanceMachine.held))
    def remove_pairs(self, point):
        if point not in self.model:
            return
        scale = self.scale()
        self.model.remove(point)
        y, s, w = point
        got = self.dc.remove_pairs(float(y), s, w)
        want = pairs_oracle(self.model, y, s, self.dtype(0))
        assert all(close(a, b, scale) for a, b in zip(got, want)), (got, want)

    @precondition(lambda self: self.model and self.dtype is int)
    @rule(data=st.data())
    def remove_wrong_weight(self, data):
        """A held (label, score) with more weight than it holds: refused, nothing
        changes (int weights; float removals trust the weight, as the multiset's)."""
        y, s, _ = data.draw(st.sampled_from(self.model))
        held = sum(wi for yi, si, wi in self.model if yi == y and si == s)
        before = snapshot(self.dc)
        with pytest.raises(ValueError, match="'weight' parameter of BinaryDominanceCounter"):
            self.dc.remove_pairs(float(y), s, held + 1)
        assert snapshot(self.dc) == before

    @invariant()
    def levels_held(self):
        assert self.dc.levels == tuple(sorted(float(y) for y in self.held_labels()))


class FloatBinaryMachine(BinaryMachine):
    dtype = float
    weights = float_weights


TestDominanceInt = DominanceMachine.TestCase
TestDominanceFloat = FloatDominanceMachine.TestCase
TestLevelInt = LevelMachine.TestCase
TestLevelFloat = FloatLevelMachine.TestCase
TestBinaryInt = BinaryMachine.TestCase
TestBinaryFloat = FloatBinaryMachine.TestCase


@pytest.mark.parametrize("pattern", ["increasing", "decreasing", "zigzag", "random"])
def test_dominance_shapes_at_default_leaf_size(pattern):
    """Seeded label orders that force single and double rotations, leaf splits, leaf
    deletions and (removing 92%) the compacting rebuild at the default sizes; a query
    check every 97 operations."""
    rng = random.Random(7)
    n = 2500
    order = {"increasing": range(n), "decreasing": range(n, 0, -1),
             "zigzag": [k if k % 2 else n - k for k in range(n)],
             "random": rng.sample(range(n), n)}[pattern]
    dc, model = DominanceCounter(), []
    for k, label in enumerate(order):
        point = (label / 10, rng.randrange(50) / 50, 1)
        dc.add(*point)
        model.append(point)
        if k % 97 == 0:
            y, s = rng.choice(model)[:2]
            assert dc.pairs_with(y, s) == pairs_oracle(model, y, s)
    dc._check()
    rng.shuffle(model)
    for k, point in enumerate(model[:2300]):
        dc.remove(*point)
        if k % 97 == 0:
            y, s = rng.random() * n / 10, rng.random()
            assert dc.pairs_with(y, s) == pairs_oracle(model[k + 1:], y, s)
    dc._check()


def test_dominance_from_arrays_matches_adds():
    rng = np.random.default_rng(8)
    y = rng.integers(0, 30, 3000) / 3
    s = rng.integers(0, 30, 3000) / 30
    w = rng.random(3000)
    built = DominanceCounter.from_arrays(y, s, w)
    grown = DominanceCounter(dtype=float)
    for point in zip(y.tolist(), s.tolist(), w.tolist()):
        grown.add(*point)
    built._check()
    grown._check()
    points = list(zip(y.tolist(), s.tolist(), w.tolist()))
    for label, score in ((5.0, 0.5), (0.0, 0.0), (3.3, 0.31), (10.0, 1.0)):
        want = pairs_oracle(points, label, score)
        for dc in (built, grown):
            got = dc.pairs_with(label, score)
            assert all(abs(a - b) <= 1e-9 * sum(w) for a, b in zip(got, want))


@pytest.mark.parametrize("cls", [LevelDominanceCounter, DominanceCounter])
def test_integer_weight_equals_repeated_points(cls):
    """Metamorphic: a point of weight k pairs like k unit points."""
    rng = random.Random(9)
    weighted, repeated = cls(), cls()
    for _ in range(300):
        y, s, k = rng.randrange(4), rng.randrange(6) / 6, rng.randrange(4)
        weighted.add(y, s, k)
        for _ in range(k):
            repeated.add(y, s)
    for y in range(-1, 5):
        for s in (0.0, 0.5, 1.0, 0.3):
            assert weighted.pairs_with(y, s) == repeated.pairs_with(y, s)


@pytest.mark.parametrize("cls", [LevelDominanceCounter, DominanceCounter])
@pytest.mark.parametrize("call, message", [
    (lambda dc: dc.add(float("nan"), 0.5), "The 'label' parameter of {}.add must be a real "
                                           "number, not NaN. Got nan instead."),
    (lambda dc: dc.add(1, None), "The 'score' parameter of {}.add must be a real number"),
    (lambda dc: dc.add(1, 0.5, -1), "The 'weight' parameter of {}.add must be a "
                                    "non-negative integer"),
    (lambda dc: dc.add(1, 0.5, 0.5), r"Got 0.5 instead"),
    (lambda dc: dc.remove(7, 0.5), "parameter of {}.remove must be the label of a point "
                                   "held|parameter of {}.remove must be the score of a "
                                   "point held"),
    (lambda dc: dc.remove(1, 0.7), "The 'score' parameter of {}.remove must be"),
    (lambda dc: dc.remove(1, 0.5, 5), "The 'weight' parameter of {}.remove must be"),
    (lambda dc: dc.query(1, float("nan")), "'score' parameter of {}.query"),
    (lambda dc: dc.pairs_with(float("nan"), 1), "'label' parameter of {}.pairs_with"),
])
def test_dominance_bad_input_changes_nothing(cls, call, message):
    dc = cls()
    for point in ((1, 0.5, 2), (1, 0.5, 1), (2, 0.25, 1)):
        dc.add(*point)
    before = snapshot(dc)
    with pytest.raises(ValueError, match=message.format(cls.__name__, cls.__name__)):
        call(dc)
    assert snapshot(dc) == before
    dc._check()


@pytest.mark.parametrize("cls", [LevelDominanceCounter, DominanceCounter])
@pytest.mark.parametrize("args, message", [
    (([1, float("nan")], [0.5, 0.5]), "'labels' parameter of {}.load must be free of NaN"),
    (([1, 2], [0.5]), r"'scores' parameter of {}.load must be of the length of labels \(2\)"),
    (([1, 2], [0.5, 0.5], [1, 0]), r"'copies' parameter of {}.load must be 2 integers >= 1"),
    (([1, 2], [0.5, 0.5], None, [1.5, 1]), "'weights' parameter of {}.load must be "
                                           r"integers \(dtype is int\)"),
])
def test_load_bad_input_changes_nothing(cls, args, message):
    dc = cls.from_arrays([0, 1], [0.5, 0.25])
    before = snapshot(dc)
    with pytest.raises(ValueError, match=message.format(cls.__name__)):
        dc.load(*args)
    assert snapshot(dc) == before


@pytest.mark.parametrize("cls", [LevelDominanceCounter, BinaryDominanceCounter])
def test_pairs_with_many_is_exact_beyond_int64(cls):
    """Counts whose weighted sum passes 2**63 (the compiled counters hold a total below
    2**62): Python ints from 128-bit sums, no int64 wrap-around; a total of 2**62 is
    refused, with floats suggested."""
    dc = cls.from_arrays([0, 0], [0.0, 0.0], [2**61, 2**61 - 1])
    got = dc.pairs_with_many([1, 1, 1], [1.0, 1.0, 1.0], [2**61, 2**61, 3])
    assert got[0] == (2**62 - 1) * (2**62 + 3) and got[1:] == (0, 0, 0, 0)
    with pytest.raises(ValueError, match="total stays below 2[*][*]62 [(]use dtype=float"):
        cls.from_arrays([0, 0], [0.0, 0.0], [2**62, 2**62 - 1])


def test_dominance_int_total_stays_below_2_63():
    dc = DominanceCounter()
    dc.add(0.0, 0.0, 2**62)
    dc.add(1.0, 0.0, 2**62 - 1)
    before = snapshot(dc)
    with pytest.raises(ValueError, match="keep the total weight below 2"):
        dc.add(2.0, 0.0, 1)
    assert snapshot(dc) == before
    assert dc.pairs_with(0.5, 0.0) == (0, 0, 2**63 - 1, 0, 0)


def test_level_counter_levels_open_and_close():
    dc = LevelDominanceCounter(dtype=float)
    for y in (3, 1, 2, 1):
        dc.add(y, 0.5, 1.5)
    assert dc.levels == (1.0, 2.0, 3.0)
    dc.remove(2, 0.5, 1.5)
    assert dc.levels == (1.0, 3.0) and dc.total_weight == 4.5
    assert dc.pairs_with(2, 0.25) == (1.5, 3.0, 0.0, 0.0, 0.0)


def test_compiled_counter_is_built_and_its_doctests_pass():
    """The two-level counter is the compiled extension (no Python fallback), and the
    examples in its docstrings run (pytest's doctest collection reads .py files only)."""
    import doctest

    from streamrank.structures import _cbinary
    assert _cbinary.__file__.endswith((".so", ".pyd"))
    assert BinaryDominanceCounter is _cbinary.BinaryDominanceCounter
    result = doctest.testmod(_cbinary, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 8 and result.failed == 0, result


@pytest.mark.parametrize("dtype", [int, float])
def test_binary_tree_deep_grow_and_shrink(dtype):
    """Thousands of distinct scores (a B+ tree three levels deep: splits, merges and
    even-outs of inner nodes), grown in random and ascending order and emptied again in
    random order: every invariant after each phase step, and every query equal to a
    brute-force count of the points held."""
    rng = np.random.default_rng(11)
    dc = BinaryDominanceCounter(dtype=dtype)
    held = []
    scores = np.concatenate((rng.integers(0, 3000, 6000) / 7.0, np.arange(4000.0) + 1e4))
    labels = rng.integers(0, 2, scores.size).astype(float)
    weights = (rng.integers(0, 4, scores.size) if dtype is int
               else rng.integers(0, 4, scores.size) * 0.25)
    for i in range(scores.size):
        w = int(weights[i]) if dtype is int else float(weights[i])
        dc.add(labels[i], scores[i], w)
        held.append((labels[i], scores[i], w))
        if i % 997 == 0:
            dc._check()
    dc._check()
    order = rng.permutation(len(held))
    for step, i in enumerate(order):
        y, s, w = held[i]
        if step % 1500 == 0:
            dc._check()
            rest = [held[j] for j in order[step:]]
            for qy, qs in ((0.0, 200.0), (1.0, 10050.0), (1.0, scores[0])):
                want = [0, 0, 0, 0, 0]
                for hy, hs, hw in rest:
                    if hy == qy:
                        want[3] += hw
                        want[4] += hw if hs == qs else 0
                    elif hs == qs:
                        want[2] += hw
                    elif (hy < qy) == (hs < qs):
                        want[0] += hw
                    else:
                        want[1] += hw
                got = dc.pairs_with(qy, qs)
                assert all(math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-9)
                           for a, b in zip(got, want)), (got, want)
        dc.remove(y, s, w)
    dc._check()
    assert len(dc) == 0 and dc.levels == ()
