"""The order-statistic structures against naive Python oracles.

Each structure runs under a Hypothesis state machine next to a plain list of what it
holds: after every mutation ``_check()`` asserts its invariants, and every query is
compared with the oracle's brute-force answer. Values come mostly from a small set
(heavy ties, ``-0.0 == 0.0``), weights are unit, integer or float. The machines shrink the
node sizes (`dominance_node_sizes`) so that a few dozen steps split, merge, rotate and rebuild.
Seeded stress runs cover the default node sizes; bad input must raise the one
validation message and leave the structure exactly as it was.
"""

from __future__ import annotations

import math
import pickle
import random

import numpy as np
import pytest
from hypothesis import strategies as st
from hypothesis.stateful import (Bundle, RuleBasedStateMachine, consumes, invariant,
                                 multiple, precondition, rule)

from strategies import dominance_node_sizes
from streamrank.structures import BinaryDominanceCounter, DominanceCounter, LevelDominanceCounter

TIES = (-2.5, -1.0, -0.0, 0.0, 0.5, 1.0, 3.25)
values = st.one_of(st.sampled_from(TIES), st.floats(-1e6, 1e6, allow_nan=False))
int_weights = st.integers(0, 5)
float_weights = st.one_of(st.sampled_from((0.0, 1e-3, 0.5, 1.0, 2.5)),
                          st.floats(0.0, 1e3, allow_nan=False))


def close(got, exact, scale):
    """Float results within 1e-9 of the weight involved; ints exactly (and typed)."""
    if isinstance(exact, int):
        return got == exact and type(got) is int
    return abs(got - exact) <= 1e-9 * (scale + 1.0)


def snapshot(structure):
    """Everything observable, to check that a failed call changed nothing."""
    return list(structure.items()), len(structure), structure.total_weight


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
        self._nodes = dominance_node_sizes()
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


@pytest.mark.parametrize("name", ["_csums", "_ckeyrows", "_cbtree", "_cwindow", "_crecent",
                                  "_cscorebins"])
def test_compiled_parts_doctests_pass(name):
    """The examples of the compiled parts the structure modules cimport: `Sums`, the
    running counts of every engine, `KeyRows`, the keyed rows of `PairCounter`,
    `_BTree`, the few-level counter's tree, `RowWindow`, the one window, `Recent`,
    the monitor's memory of the ids it evicted lately, and `ScoreBins`, a window's scores
    against a score reference."""
    import doctest
    import importlib

    module = importlib.import_module(f"streamrank.structures.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 2 and result.failed == 0, result


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
