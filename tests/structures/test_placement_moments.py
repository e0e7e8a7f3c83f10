"""The placement moments of DeLong's variance (`PairEngine.placement_moments`), kept in the
two-level tree at O(log n) per change, against an O(n^2) count of placement values.

For every positive (the greater label) the oracle counts its doubled placement -- twice
the negative weight below its score plus the negative weight tied with it -- and for every
negative the mirror; the moments are the weights, the sum of the positives' placements
and each class's sum of squared placements, weighted by the items' (integer) weights.
"""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from streamrank import PairCounter, SlidingPairCounter, TimeSlidingPairCounter
from streamrank.engine import PairEngine
from streamrank.metrics import ROCAUC, RollingROCAUC
from streamrank.structures import BinaryDominanceCounter, LevelDominanceCounter
from streamrank.structures._cbinary import _moments_kept
from streamrank.structures._cbtree import MO_EXACT_MAX
from paths import DATA

RELEASE = DATA / "release"


def placements(rows):
    """``(W1, W0, U, Q1, Q0)`` of ``(label, score, weight)`` rows by the definition, one
    pair at a time: ``None`` unless exactly two labels are held, each with weight."""
    labels = {y for y, _, _ in rows}
    if len(labels) != 2:
        return None
    top = max(labels)
    pos = [(s, w) for y, s, w in rows if y == top]
    neg = [(s, w) for y, s, w in rows if y != top]
    w1, w0 = sum(w for _, w in pos), sum(w for _, w in neg)
    if not w1 or not w0:
        return None
    p = [sum(v * (2 * (t < s) + (t == s)) for t, v in neg) for s, _ in pos]
    n = [sum(v * (2 * (t > s) + (t == s)) for t, v in pos) for s, _ in neg]
    return (w1, w0, sum(w * x for (_, w), x in zip(pos, p)),
            sum(w * x * x for (_, w), x in zip(pos, p)),
            sum(w * x * x for (_, w), x in zip(neg, n)))


def pair_placements(rows):
    """`placements` with the pairs as a numpy matrix (all of them, O(n^2)): exact in int64
    for the small weights of the state machine (a total below 2**20)."""
    labels = {y for y, _, _ in rows}
    if len(labels) != 2:
        return None
    y, s, w = (np.array(c) for c in zip(*rows))
    w = w.astype(np.int64)
    assert w.sum() < 2 ** 20
    top = y == max(labels)
    w1, w0 = int(w[top].sum()), int(w[~top].sum())
    if not w1 or not w0:
        return None
    # doubled placement of row i against row j of the other class
    twice = 2 * (s[:, None] > s[None, :]) + (s[:, None] == s[None, :])
    p = (twice[top][:, ~top] * w[~top][None, :]).sum(axis=1)
    n = (twice.T[~top][:, top] * w[top][None, :]).sum(axis=1)
    return (w1, w0, int((w[top] * p).sum()), int((w[top] * p * p).sum()),
            int((w[~top] * n * n).sum()))


def assert_moments(got, rows, oracle=placements):
    want = oracle(rows)
    if want is None:
        assert got is None, got
        return
    assert got is not None and tuple(got) == want, (got, want)
    assert all(type(v) is int for v in got)


#: Heavy ties on a few scores, and enough distinct ones for inner nodes (32 to a node).
SCORES = st.one_of(st.sampled_from((0.0, 0.25, 0.25, 0.5, 0.5, 0.5, 0.75, 1.0, 1.0, -0.0)),
                   st.integers(-40, 80).map(lambda i: i / 8.0))
WEIGHTS = st.sampled_from((1, 1, 1, 2, 3, 0, 5))


class MomentsMachine(RuleBasedStateMachine):
    """A `PairCounter` (keyed inserts, removals, updates, batches) and a
    `SlidingPairCounter`, both with heavy score ties and small integer weights, their
    moments read and checked after every step."""

    @initialize(size=st.sampled_from((5, 9, 40, 300)), flip=st.booleans(),
                early=st.booleans(), preload=st.sampled_from((0, 0, 1500)))
    def setup(self, size, flip, early, preload):
        self.labels = (5, -2) if flip else (0, 1)     # the first label held takes class 0
        self.pc = PairCounter()
        self.items = {}
        self.next_key = 0
        self.win = SlidingPairCounter(size)
        self.events = []
        self.size = size
        if early:       # on from the empty state (else from the first invariant read)
            assert self.pc.placement_moments() is None
            assert self.win.placement_moments() is None
        if preload:     # three levels of nodes under the changes
            rng = np.random.default_rng(preload)
            y = rng.choice(self.labels, preload)
            s = rng.integers(-1500, 1500, preload) / 16.0
            keys = [self._key() for _ in range(preload)]
            self.pc.insert_many(keys, y, s)
            self.items.update((k, (int(a), float(b), 1)) for k, a, b in zip(keys, y, s))
            for a, b in zip(y[:size].tolist(), s[:size].tolist()):
                self.win.push(a, b)
                self.events.append((a, b, 1))

    def _key(self):
        self.next_key += 1
        return self.next_key

    @rule(first=st.booleans(), s=SCORES, w=WEIGHTS)
    def insert(self, first, s, w):
        key = self._key()
        y = self.labels[first]
        self.pc.insert(key, y, s, w)
        self.items[key] = (y, s, w)

    @precondition(lambda self: self.items)
    @rule(data=st.data())
    def remove(self, data):
        key = data.draw(st.sampled_from(sorted(self.items)))
        self.pc.remove(key)
        del self.items[key]

    @precondition(lambda self: self.items)
    @rule(data=st.data(), s=SCORES, w=WEIGHTS, what=st.sampled_from(("score", "label",
                                                                       "weight")))
    def update(self, data, s, w, what):
        key = data.draw(st.sampled_from(sorted(self.items)))
        y0, s0, w0 = self.items[key]
        if what == "score":
            self.pc.update(key, score=s)
            self.items[key] = (y0, s, w0)
        elif what == "label":
            y = self.labels[0] if y0 == self.labels[1] else self.labels[1]
            self.pc.update(key, label=y)
            self.items[key] = (y, s0, w0)
        else:
            self.pc.update(key, weight=w)
            self.items[key] = (y0, s0, w)

    @rule(k=st.sampled_from((1, 2, 7, 30, 80, 300)), seed=st.integers(0, 50),
          unit=st.booleans())
    def insert_many(self, k, seed, unit):
        """Small batches run as single changes; one as large as what is held reloads the
        tree (the moments are counted again after the load)."""
        rng = np.random.default_rng(seed)
        y = rng.choice(self.labels, k)
        s = rng.integers(0, 5 if seed % 2 else 400, k) / 4.0
        w = None if unit else rng.integers(0, 4, k)
        keys = [self._key() for _ in range(k)]
        self.pc.insert_many(keys, y, s, w)
        for i, key in enumerate(keys):
            self.items[key] = (int(y[i]), float(s[i]), 1 if unit else int(w[i]))

    @precondition(lambda self: len(self.items) > 3)
    @rule(data=st.data())
    def remove_many(self, data):
        keys = data.draw(st.lists(st.sampled_from(sorted(self.items)), min_size=1,
                                  max_size=len(self.items), unique=True))
        self.pc.remove_many(keys)
        for key in keys:
            del self.items[key]

    @rule(first=st.booleans(), s=SCORES, w=WEIGHTS, reps=st.sampled_from((1, 1, 3, 20)))
    def push(self, first, s, w, reps):
        """Several pushes between two reads reach the engine as one batch."""
        for r in range(reps):
            y = self.labels[first ^ (r % 2)]
            self.win.push(y, s + r / 8.0 if reps > 3 else s, w)
            self.events.append((y, s + r / 8.0 if reps > 3 else s, w))

    @rule()
    def round_trip(self):
        self.pc = pickle.loads(pickle.dumps(self.pc))
        self.win = pickle.loads(pickle.dumps(self.win))

    @invariant()
    def moments_match(self):
        assert_moments(self.pc.placement_moments(), list(self.items.values()),
                       pair_placements)
        assert_moments(self.win.placement_moments(), self.events[-self.size:],
                       pair_placements)
        for engine in (self.pc._engine, self.win._engine):
            assert _moments_kept(engine._dom)      # kept from here on, not recounted
            engine._dom._check()                   # the per-child aggregates included


TestMomentsMachine = MomentsMachine.TestCase
TestMomentsMachine.settings = settings(max_examples=50, stateful_step_count=40,
                                       derandomize=True, deadline=None, database=None)


# --------------------------------------------------------------------------- structures
@pytest.mark.parametrize("labels", [(0.0, 1.0), (1.0, 0.0), (-3.5, 7.0)])
def test_deep_tree_single_changes_keep_the_moments(labels):
    """Thousands of distinct scores (three levels of nodes: splits, merges and evens on
    the path) with ties, inserted and removed one at a time, either label in either
    class of the tree."""
    rng = np.random.default_rng(5)
    dc = BinaryDominanceCounter()
    dc.placement_moments()
    rows = []
    for i in range(6000):
        if rows and rng.random() < 0.45:
            row = rows.pop(int(rng.integers(len(rows))))
            dc.remove(*row)
        else:
            row = (labels[int(rng.random() < 0.4)], float(rng.integers(0, 3000)) / 8,
                   int(rng.integers(0, 4)))
            dc.add(*row)
            rows.append(row)
        if i % 1500 == 0:
            dc._check()
    dc._check()
    assert _moments_kept(dc)
    got = dc.placement_moments()
    assert got == _fast_placements(rows)


def _fast_placements(rows):
    """`placements` in O(n log n) for the larger tests (checked against it below)."""
    labels = sorted({y for y, _, _ in rows})
    pos, neg = {}, {}
    for y, s, w in rows:
        side = pos if y == labels[-1] else neg
        side[s + 0.0] = side.get(s + 0.0, 0) + w
    w1, w0 = sum(pos.values()), sum(neg.values())
    below_b = below_a = u = q1 = q0 = 0
    for key in sorted(set(pos) | set(neg)):
        a, b = pos.get(key, 0), neg.get(key, 0)
        p, n = 2 * below_b + b, 2 * (w1 - below_a - a) + a
        u, q1, q0 = u + a * p, q1 + a * p * p, q0 + b * n * n
        below_a, below_b = below_a + a, below_b + b
    return w1, w0, u, q1, q0


def test_the_oracles_agree():
    rng = np.random.default_rng(2)
    rows = [(int(rng.integers(2)), float(rng.integers(0, 6)), int(rng.integers(0, 4)))
            for _ in range(150)]
    assert _fast_placements(rows) == placements(rows) == pair_placements(rows)
    assert pair_placements([(1, 0.5, 1), (0, 0.5, 2)]) == (1, 2, 2, 4, 2)


def test_load_turns_them_on_in_one_count():
    rng = np.random.default_rng(8)
    y, s = rng.integers(0, 2, 5000).astype(float), rng.integers(0, 900, 5000) / 4.0
    w = rng.integers(0, 5, 5000)
    dc = BinaryDominanceCounter()
    dc.enable_moments()
    dc.load(y, s, None, w)
    assert _moments_kept(dc)
    dc._check()
    assert dc.placement_moments() == _fast_placements(list(zip(y, s, w.tolist())))


# --------------------------------------------------------------------------- levels
def test_across_the_third_label_and_back():
    """A third label: ``None``; when it leaves again the two left are read again, from
    one tree (kept) or, when the level counter put them on two trees, recounted."""
    pc = PairCounter()
    rows = {}
    rng = np.random.default_rng(3)
    for k in range(60):
        rows[k] = (int(rng.integers(2)), float(rng.integers(0, 7)), int(rng.integers(1, 3)))
    pc.insert_many(list(rows), *map(np.array, zip(*rows.values())))
    assert_moments(pc.placement_moments(), list(rows.values()))
    pc.insert("third", 2, 0.5, 2)
    assert pc._engine.kind == "levels" and pc.placement_moments() is None
    pc.remove("third")
    assert_moments(pc.placement_moments(), list(rows.values()))
    assert _moments_kept(pc._engine._dom)          # the two levels share tree 0
    pc.insert("x", 1, 3.0, 1)
    rows["x"] = (1, 3.0, 1)
    assert_moments(pc.placement_moments(), list(rows.values()))
    pc._check()
    # now label 2 on the second tree, label 1 leaves: labels 0 and 2 on two trees
    pc.insert("third", 2, 0.5, 2)
    for key in [k for k, v in rows.items() if v[0] == 1]:
        pc.remove(key)
        del rows[key]
    rows["third"] = (2, 0.5, 2)
    assert_moments(pc.placement_moments(), list(rows.values()))
    pc.update("third", score=4.0)
    rows["third"] = (2, 4.0, 2)
    assert_moments(pc.placement_moments(), list(rows.values()))
    pc._check()


def test_level_counter_reads_two_levels_on_either_tree():
    dc = LevelDominanceCounter()
    rows = [(5.0, 0.5, 1), (1.0, 0.5, 2), (3.0, 0.1, 1), (3.0, 0.9, 4), (1.0, 0.2, 1)]
    for row in rows:
        dc.add(*row)
    assert dc.placement_moments() is None
    dc.remove(5.0, 0.5, 1)                  # levels 1 and 3 on tree 0
    assert dc.placement_moments() == placements(rows[1:])
    dc.add(7.0, 0.3, 2)
    dc.remove(1.0, 0.5, 2)
    dc.remove(1.0, 0.2, 1)                  # levels 3 (tree 0) and 7 (tree 1)
    assert dc.placement_moments() == placements([rows[2], rows[3], (7.0, 0.3, 2)])
    dc._check()


def test_undefined_states_read_none():
    pc = PairCounter()
    assert pc.placement_moments() is None                       # empty
    pc.insert("a", 1, 0.5)
    assert pc.placement_moments() is None                       # one class
    pc.insert("b", 0, 0.5, 0)
    assert pc.placement_moments() is None                       # a class without weight
    pc.update("b", weight=2)
    assert tuple(pc.placement_moments()) == (1, 2, 2, 4, 2)
    pc.insert("c", 0, 0.1, 0.5)                                 # fractional: floats
    assert pc._engine.weighted and pc.placement_moments() is None
    cont = PairCounter(labels="continuous")
    cont.insert_many(["a", "b"], [0, 1], [0.2, 0.4])
    assert cont.placement_moments() is None


# --------------------------------------------------------------------------- copies
def test_pickles_drop_them_and_read_them_again():
    pc = PairCounter()
    rows = {k: (k % 2, (k * 7 % 5) / 2.0, k % 3) for k in range(40)}
    for k, row in rows.items():
        pc.insert(k, *row)
    first = pc.placement_moments()
    data = pickle.dumps(pc)
    again = pickle.loads(data)
    assert not _moments_kept(again._engine._dom)   # not in the pickle
    assert again.placement_moments() == first
    assert _moments_kept(again._engine._dom)
    again.insert(1000, 1, 0.75, 3)
    rows[1000] = (1, 0.75, 3)
    assert_moments(again.placement_moments(), list(rows.values()))
    snap = PairCounter.from_bytes(again.to_bytes())
    assert snap.placement_moments() == again.placement_moments()
    engine = pickle.loads(pickle.dumps(again._engine))
    engine.rebuild(*again._slot.columns())         # a fresh tree: on again (the flag)
    assert _moments_kept(engine._dom)
    assert engine.placement_moments() == again.placement_moments()


def test_release_snapshot_reads_moments():
    samples = json.loads((RELEASE / "samples.json").read_text())
    pc = PairCounter.from_bytes((RELEASE / "pair_counter_int.npz").read_bytes())
    rows = [tuple(r[1:]) for r in samples["pair_counter_int.npz"]["items"]]
    assert_moments(pc.placement_moments(), rows)


# --------------------------------------------------------------------------- bounds
def test_large_integer_weights_near_the_bound():
    """Up to a total of 2**40 the 128-bit moments are read in O(1); past it each read
    recounts in Python ints; both exact, as are the sums kept meanwhile (mod 2**128)."""
    big = MO_EXACT_MAX // 3             # 3 big + 1 = 2**40
    assert MO_EXACT_MAX == 2 ** 40
    pc = PairCounter()
    rows = {"a": (1, 0.5, big), "b": (0, 0.5, big - 3), "c": (0, 0.1, big), "d": (1, 0.9, 4)}
    for k, row in rows.items():
        pc.insert(k, *row)
    assert pc._engine.weight == MO_EXACT_MAX
    assert_moments(pc.placement_moments(), list(rows.values()))
    assert pc.placement_moments().q0 > 2 ** 115
    pc.insert("e", 1, 0.3, 2 ** 53)                 # past the bound: recounted
    rows["e"] = (1, 0.3, 2 ** 53)
    assert_moments(pc.placement_moments(), list(rows.values()))
    pc.insert("f", 0, 0.3, 2 ** 53)
    rows["f"] = (0, 0.3, 2 ** 53)
    assert_moments(pc.placement_moments(), list(rows.values()))
    assert pc.placement_moments().q1 > 2 ** 128      # beyond 128 bits
    pc._check()
    for k in ("e", "f"):                            # back under it: the kept sums again
        pc.remove(k)
        del rows[k]
    assert_moments(pc.placement_moments(), list(rows.values()))
    pc._engine._dom._check()


# --------------------------------------------------------------------------- owners
def test_time_window_and_river_metrics():
    tw = TimeSlidingPairCounter(3.0)
    roc, rolling = ROCAUC(), RollingROCAUC(window_size=4)
    events = [(1, 0.9), (0, 0.1), (1, 0.4), (0, 0.4), (0, 0.9), (1, 0.1), (1, 0.4)]
    for t, (y, s) in enumerate(events):
        tw.push(y, s, 2, t=float(t))
        roc.update(bool(y), s)
        rolling.update(bool(y), s)
        assert_moments(tw.placement_moments(), [(a, b, 2) for a, b in events[max(0, t - 2):t + 1]])
        assert_moments(roc._placement_moments(), [(a, b, 1) for a, b in events[:t + 1]])
        assert_moments(rolling._placement_moments(),
                       [(a, b, 1) for a, b in events[max(0, t - 3):t + 1]])
    roc.revert(True, 0.9)
    assert_moments(roc._placement_moments(), [(a, b, 1) for a, b in events[1:]])


def test_engine_batch_paths_keep_them():
    rng = np.random.default_rng(4)
    e = PairEngine()
    e.placement_moments()
    y, s = rng.integers(0, 2, 3000).astype(float), rng.integers(0, 50, 3000) / 5.0
    e.add_many(y, s, None)                       # as large as held: one reload
    assert _moments_kept(e._dom)
    e.remove_many(y[:1000], s[:1000], None)      # single changes in C
    e.apply([(y[1000], s[1000], 1)], {(1.0, 0.3, 2): 2})
    rows = list(zip(y[1001:].tolist(), s[1001:].tolist(), [1] * 1999)) + [(1.0, 0.3, 2)] * 2
    assert e.placement_moments() == _fast_placements(rows)
    e._check()
