"""`PairCounter`, `SlidingPairCounter` and `TimeSlidingPairCounter` under random sequences of
operations: after every step the counts equal `pair_counts` of the items held and the
O(n^2) oracle, and every structure's `_check()` passes."""

from __future__ import annotations

import pickle
from collections import deque

import numpy as np
import pytest
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from oracle import pair_counts_brute
from streamrank import PairCounter, SlidingPairCounter, TimeSlidingPairCounter, pair_counts
from streamrank.engine import MAX_LEVELS, PairEngine

SCORES = (-1.0, 0.0, 0.5, 1.0, 2.0)
FIELDS = ("concordant", "discordant", "tied_score", "tied_label", "tied_both")
LABELS = {"binary": (0.0, 1.0), "ordinal": (0.0, 1.0, 2.0, 3.0, 4.0),
          "continuous": tuple(np.round(np.linspace(-2, 2, 21), 1))}


def assert_matches(counts, y, s, w, weighted):
    """Counts equal the oracle: exactly (and ints) with integer weights, to 1e-9 else."""
    ref = pair_counts_brute(list(y), list(s), None if w is None else list(w))
    for f, r in zip(FIELDS, (ref.C, ref.D, ref.T, ref.Ty, ref.Tyy)):
        got = getattr(counts, f)
        if not weighted:
            assert isinstance(got, int) and got == r, (f, got, r)
        else:
            assert got == pytest.approx(float(r), rel=1e-9, abs=1e-9), (f, got, r)
    if len(y):
        batch = pair_counts(np.asarray(y, float), np.asarray(s, float),
                            sample_weight=None if w is None else np.asarray(w, float))
        assert counts.n_label_levels == batch.n_label_levels
        assert counts.n_score_levels == batch.n_score_levels


class CounterMachine(RuleBasedStateMachine):
    """A PairCounter next to a plain dict of what it holds."""

    @initialize(kind=st.sampled_from(["binary", "ordinal", "continuous"]),
                mode=st.sampled_from(["auto", "declared"]),
                weights=st.sampled_from(["unit", "int", "float"]))
    def setup(self, kind, mode, weights):
        self.labels = LABELS[kind]
        self.counter = PairCounter(labels="auto" if mode == "auto" else kind)
        self.weights = weights
        self.model: dict = {}
        self.next_key = 0

    def _weight(self, data):
        if self.weights == "unit":
            return 1.0
        if self.weights == "int":
            return float(data.draw(st.integers(0, 3)))
        return data.draw(st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.75]))

    @property
    def weighted(self):
        return self.weights == "float" and any(
            not float(w).is_integer() for _, _, w in self.model.values()) or \
            self.counter._engine.weighted

    @rule(data=st.data())
    def insert(self, data):
        y = data.draw(st.sampled_from(self.labels))
        s = data.draw(st.sampled_from(SCORES))
        w = self._weight(data)
        key = self.next_key
        self.next_key += 1
        self.counter.insert(key, y, s, w)
        self.model[key] = (y, s, w)

    @precondition(lambda self: self.model)
    @rule(data=st.data())
    def remove(self, data):
        key = data.draw(st.sampled_from(sorted(self.model)))
        self.counter.remove(key)
        del self.model[key]

    @precondition(lambda self: self.model)
    @rule(data=st.data(), what=st.sampled_from(["score", "label", "weight", "all"]))
    def update(self, data, what):
        key = data.draw(st.sampled_from(sorted(self.model)))
        y, s, w = self.model[key]
        kw = {}
        if what in ("score", "all"):
            kw["score"] = s = data.draw(st.sampled_from(SCORES))
        if what in ("label", "all"):
            kw["label"] = y = data.draw(st.sampled_from(self.labels))
        if what in ("weight", "all"):
            kw["weight"] = w = self._weight(data)
        self.counter.update(key, **kw)
        self.model[key] = (y, s, w)

    @rule(data=st.data(), k=st.integers(0, 12))
    def insert_many(self, data, k):
        ys = [data.draw(st.sampled_from(self.labels)) for _ in range(k)]
        ss = [data.draw(st.sampled_from(SCORES)) for _ in range(k)]
        ws = [self._weight(data) for _ in range(k)]
        keys = list(range(self.next_key, self.next_key + k))
        self.next_key += k
        self.counter.insert_many(keys, ys, ss, None if self.weights == "unit" else ws)
        self.model.update(zip(keys, zip(ys, ss, ws)))

    @precondition(lambda self: self.model)
    @rule(data=st.data())
    def remove_many(self, data):
        keys = data.draw(st.lists(st.sampled_from(sorted(self.model)), unique=True))
        self.counter.remove_many(keys)
        for key in keys:
            del self.model[key]

    @precondition(lambda self: self.model)
    @rule(data=st.data(), relabel=st.booleans())
    def update_many(self, data, relabel):
        keys = data.draw(st.lists(st.sampled_from(sorted(self.model)), unique=True))
        scores = [data.draw(st.sampled_from(SCORES)) for _ in keys]
        labels = [data.draw(st.sampled_from(self.labels)) for _ in keys] if relabel else None
        self.counter.update_many(keys, scores=scores, labels=labels)
        for i, key in enumerate(keys):
            y, _, w = self.model[key]
            self.model[key] = (labels[i] if relabel else y, scores[i], w)

    @rule(how=st.sampled_from(["pickle", "bytes"]))
    def snapshot_restore(self, how):
        before = self.counter.counts
        if how == "pickle":
            self.counter = pickle.loads(pickle.dumps(self.counter))
        else:
            self.counter = PairCounter.from_bytes(self.counter.to_bytes())
        after = self.counter.counts
        for f in FIELDS:
            assert getattr(after, f) == pytest.approx(getattr(before, f), rel=1e-12)

    @invariant()
    def matches_oracle(self):
        assert len(self.counter) == len(self.model)
        assert set(self.counter) == set(self.model)
        rows = list(self.model.values())
        y = [r[0] for r in rows]
        s = [r[1] for r in rows]
        w = None if self.weights == "unit" else [r[2] for r in rows]
        assert_matches(self.counter.counts, y, s, w, self.weighted)
        self.counter._check()


TestCounterMachine = CounterMachine.TestCase


class WindowMachine(RuleBasedStateMachine):
    """Both windows next to a deque of what they should hold."""

    @initialize(size=st.integers(1, 8), period=st.sampled_from([0.5, 2.0, 5.0]),
                kind=st.sampled_from(["binary", "ordinal", "continuous"]))
    def setup(self, size, period, kind):
        self.labels = LABELS[kind]
        self.win = SlidingPairCounter(window_size=size)
        self.twin = TimeSlidingPairCounter(period=period)
        self.size, self.period = size, period
        self.events = deque()
        self.timed = deque()
        self.t = 0.0

    @rule(data=st.data(), dt=st.sampled_from([0.0, 0.5, 1.0, 3.0]))
    def push(self, data, dt):
        y = data.draw(st.sampled_from(self.labels))
        s = data.draw(st.sampled_from(SCORES))
        w = data.draw(st.sampled_from([1.0, 2.0, 0.5]))
        self.t += dt
        self.win.push(y, s, w)
        self.twin.push(y, s, w, t=self.t)
        self.events.append((y, s, w))
        if len(self.events) > self.size:
            self.events.popleft()
        self.timed.append((self.t, y, s, w))
        while self.timed and self.timed[0][0] <= self.t - self.period:
            self.timed.popleft()

    @invariant()
    def matches_oracle(self):
        for counter, events in ((self.win, list(self.events)),
                                (self.twin, [e[1:] for e in self.timed])):
            assert len(counter) == len(events)
            y, s, w = ([e[i] for e in events] for i in range(3))
            weighted = any(not float(x).is_integer() for x in w) or counter._engine.weighted
            assert_matches(counter.counts, y, s, w, weighted)
            counter._check()


TestWindowMachine = WindowMachine.TestCase


# ---------------------------------------------------------------------- paths agree
@pytest.mark.parametrize("labels", ["binary", "ordinal", "continuous"])
def test_batch_single_and_rebuild_paths_give_identical_counts(labels):
    """Per-item inserts, one vectorized batch on top of a held set, and a rebuild-sized
    batch end in the same exact counts."""
    rng = np.random.default_rng(3)
    n = 3000
    levels = {"binary": 2, "ordinal": 5, "continuous": 1000}[labels]
    y = rng.integers(0, levels, n).astype(float)
    s = rng.integers(0, 50, n) / 10
    one = PairCounter()
    for i in range(n):
        one.insert(i, y[i], s[i])
    small = PairCounter()
    small.insert_many(range(2500), y[:2500], s[:2500])
    small.insert_many(range(2500, n), y[2500:], s[2500:])   # vectorized delta path
    big = PairCounter()
    big.insert_many(range(n), y, s)                          # rebuild path
    expected = pair_counts(y, s)
    for counter in (one, small, big):
        assert counter.counts == expected
        counter._check()
    idx = rng.choice(n, 400, replace=False)
    new = rng.integers(0, 50, 400) / 10
    one_by_one = PairCounter()
    one_by_one.insert_many(range(n), y, s)
    for i, v in zip(idx.tolist(), new.tolist()):
        one_by_one.update(i, score=v)
    big.update_many(idx.tolist(), scores=new)
    s2 = s.copy()
    s2[idx] = new
    assert big.counts == one_by_one.counts == pair_counts(y, s2)


def test_float_weights_do_not_drift():
    """10^5 random weighted inserts and removes: the maintained counts agree with a fresh
    recount to 1e-9 relative."""
    rng = np.random.default_rng(11)
    counter = PairCounter()
    held = {}
    for step in range(100_000):
        if held and rng.random() < 0.45:
            key = next(iter(held)) if step % 2 else list(held)[-1]
            counter.remove(key)
            del held[key]
        else:
            y = float(rng.integers(0, 3))
            s = float(rng.integers(0, 200)) / 7
            w = float(rng.exponential())
            counter.insert(step, y, s, w)
            held[step] = (y, s, w)
    y, s, w = (np.array([v[i] for v in held.values()]) for i in range(3))
    fresh = pair_counts(y, s, sample_weight=w)
    for f in FIELDS:
        assert getattr(counter.counts, f) == pytest.approx(getattr(fresh, f), rel=1e-9)


def test_auto_moves_to_the_dominance_counter_past_max_levels():
    counter = PairCounter()
    for i in range(MAX_LEVELS + 5):
        counter.insert(i, float(i), float(i % 3))
    assert counter._engine.continuous
    counter._check()
    assert counter.counts == pair_counts(np.arange(MAX_LEVELS + 5.0),
                                         np.arange(MAX_LEVELS + 5) % 3.0)


def test_exact_counts_stay_python_ints_past_2_63():
    """Integer weights keep every count an exact Python int beyond int64."""
    counter = PairCounter()
    counter.insert("a", 0, 0.0, 2**40)
    counter.insert("b", 1, 1.0, 2**40)
    counter.insert("c", 1, -1.0, 3)
    assert counter.counts.concordant == 2**80 and isinstance(counter.counts.concordant, int)
    assert counter.counts.discordant == 3 * 2**40


# ---------------------------------------------------------------------- atomicity
def _state(counter):
    return counter.counts, sorted(counter.items())


BAD_CALLS = [
    (lambda c: c.insert("a", 0, 0.5), KeyError, "held already"),
    (lambda c: c.insert("z", 0, float("nan")), ValueError, "'s' parameter of PairCounter.insert"),
    (lambda c: c.insert("z", float("inf"), 0.5), ValueError, "'y' parameter"),
    (lambda c: c.insert("z", 0, 0.5, -1.0), ValueError, "'w' parameter .* non-negative"),
    (lambda c: c.insert("z", "pos", 0.5), TypeError, "'y' parameter"),
    (lambda c: c.insert("z", 7, 0.5), ValueError, "at most two labels"),
    (lambda c: c.remove("nope"), KeyError, "not held"),
    (lambda c: c.update("nope", score=1.0), KeyError, "not held"),
    (lambda c: c.update("a", score=float("nan")), ValueError, "'score' parameter"),
    (lambda c: c.update("b", label=7), ValueError, "at most two labels"),
    (lambda c: c.update("a", weight=-2), ValueError, "'weight' parameter"),
    (lambda c: c.insert_many(["x", "y"], [0, 1], [0.1, np.nan]), ValueError, "'s' parameter"),
    (lambda c: c.insert_many(["x", "a"], [0, 1], [0.1, 0.2]), KeyError, "held already"),
    (lambda c: c.insert_many(["x", "x"], [0, 1], [0.1, 0.2]), ValueError, "distinct keys"),
    (lambda c: c.insert_many(["x", "y"], [0, 7], [0.1, 0.2]), ValueError, "two labels"),
    (lambda c: c.insert_many(["x"], [0, 1], [0.1, 0.2]), ValueError, "same length"),
    (lambda c: c.insert_many(["x"], [0], [0.1], [-1.0]), ValueError, "non-negative"),
    (lambda c: c.remove_many(["a", "nope"]), KeyError, "not held"),
    (lambda c: c.update_many(["a", "b"], scores=[0.1]), ValueError, "'scores' .* length 2"),
    (lambda c: c.update_many(["a", "nope"], scores=[0.1, 0.2]), KeyError, "not held"),
    (lambda c: c.update_many(["b"], labels=[9]), ValueError, "two labels"),
]


@pytest.mark.parametrize("call, exc, match", BAD_CALLS)
def test_bad_input_changes_nothing(call, exc, match):
    counter = PairCounter(labels="binary")
    counter.insert_many(["a", "b", "c"], [0, 1, 1], [0.5, 0.2, 0.9])
    before = _state(counter)
    with pytest.raises(exc, match=match):
        call(counter)
    assert _state(counter) == before
    counter._check()


def test_binary_relabel_of_the_last_item_of_a_label_is_allowed():
    counter = PairCounter(labels="binary")
    counter.insert_many(["a", "b"], [0, 1], [0.5, 0.2])
    counter.update("a", label=2)          # label 0 leaves with the item: {1, 2} held
    assert counter.counts == pair_counts([2, 1], [0.5, 0.2])


def test_window_bad_input_changes_nothing():
    win = SlidingPairCounter(window_size=3, labels="binary")
    win.push(0, 0.1)
    win.push(1, 0.2)
    before = (win.counts, list(win))
    with pytest.raises(ValueError, match="'s' parameter of SlidingPairCounter.push"):
        win.push(0, float("nan"))
    with pytest.raises(ValueError, match="two labels"):
        win.push(5, 0.3)   # nothing leaves yet: 0, 1 and 5 would be held
    assert (win.counts, list(win)) == before
    win.push(1, 0.3)
    win.push(5, 0.4)       # (0, 0.1) leaves as 5 comes: {1, 5}
    assert win.counts == pair_counts([1, 1, 5], [0.2, 0.3, 0.4])
    twin = TimeSlidingPairCounter(period=1.0)
    twin.push(0, 0.1, t=5.0)
    with pytest.raises(ValueError, match="'t' parameter .* at least the latest time 5.0"):
        twin.push(1, 0.3, t=4.0)
    assert len(twin) == 1
    with pytest.raises(ValueError, match="'window_size' parameter"):
        SlidingPairCounter(window_size=0)
    with pytest.raises(ValueError, match="'period' parameter"):
        TimeSlidingPairCounter(period=-1)


def test_to_bytes_is_versioned_numpy_and_rejects_odd_keys():
    counter = PairCounter()
    counter.insert_many([1, 2, 3], [0, 1, 1], [0.1, 0.2, 0.2], [1.0, 2.5, 1.0])
    data = counter.to_bytes()
    assert b"pickle" not in data[:200]
    restored = PairCounter.from_bytes(data)
    assert sorted(restored.items()) == sorted(counter.items())
    assert restored.counts == counter.counts
    odd = PairCounter()
    odd.insert((1, 2), 0, 0.5)
    with pytest.raises(TypeError, match="keys that are all ints or all strings"):
        odd.to_bytes()
    with pytest.raises(ValueError, match="not a streamrank snapshot"):
        PairCounter.from_bytes(_npz(other=np.arange(3)))


def _npz(**arrays):
    import io
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def test_engine_remove_of_unheld_sample_changes_nothing():
    e = PairEngine()
    e.add(0, 0.5)
    before = e.counts
    with pytest.raises(ValueError):
        e.remove(1, 0.5)
    assert e.counts == before and len(e) == 1


# ---------------------------------------------------------------------- two-level tree
class EngineMachine(RuleBasedStateMachine):
    """A `PairEngine` in its two-level tree (`BinaryDominanceCounter`): two
    labels with heavy ties, integer then fractional weights, and now and then a third
    label, which moves it to the per-level multisets (or is refused with "binary"), mid-
    stream. Removing a sample that is not held raises and changes nothing."""

    @initialize(labels=st.sampled_from(["auto", "binary", "ordinal"]),
                pair=st.sampled_from([(0.0, 1.0), (-1.0, 2.5), (3.0, -0.0)]))
    def setup(self, labels, pair):
        self.engine = PairEngine(labels)
        self.labels, self.pair = labels, pair
        self.model: list = []

    @rule(data=st.data(), third=st.integers(0, 24),
          w=st.sampled_from([1, 1, 0, 2, 3, 0.5, 2.25]))
    def add(self, data, third, w):
        y = 7.0 if third == 0 else data.draw(st.sampled_from(self.pair))
        s = data.draw(st.sampled_from((-1.0, 0.0, 0.5, 1.0)))
        held = {yi for yi, _, _ in self.model}      # zero weights take a level too
        if self.labels == "binary" and len(held | {y}) > 2:
            before = (self.engine.counts, list(self.engine._dom.items()))
            with pytest.raises(ValueError, match="at most two labels"):
                self.engine.add(y, s, w)
            assert (self.engine.counts, list(self.engine._dom.items())) == before
            return
        self.engine.add(y, s, w)
        self.model.append((y, s, w))

    @precondition(lambda self: self.model)
    @rule(data=st.data())
    def remove(self, data):
        i = data.draw(st.integers(0, len(self.model) - 1))
        self.engine.remove(*self.model.pop(i))

    @rule(data=st.data(), w=st.sampled_from([1, 4, 0.75]))
    def remove_absent(self, data, w):
        """A label, score or integer weight not held: ValueError, nothing changes."""
        y = data.draw(st.sampled_from(self.pair + (7.0, 9.0)))
        s = data.draw(st.sampled_from((-1.0, 0.0, 0.5, 1.0, 0.25)))
        at = sum(wi for yi, si, wi in self.model if yi == y and si == s)
        if any(yi == y and si == s for yi, si, _ in self.model):
            if self.engine.weighted or w <= at:
                return  # held: float removals trust the weight
        before = (self.engine.counts, list(self.engine._dom.items()), len(self.engine))
        with pytest.raises(ValueError):
            self.engine.remove(y, s, w)
        assert (self.engine.counts, list(self.engine._dom.items()), len(self.engine)) == before

    @rule(k=st.integers(1, 6), data=st.data())
    def add_many(self, k, data):
        y = np.array([data.draw(st.sampled_from(self.pair)) for _ in range(k)])
        s = np.array([data.draw(st.sampled_from((-1.0, 0.5, 1.0))) for _ in range(k)])
        held = {yi for yi, _, _ in self.model}      # zero weights take a level too
        if self.labels == "binary" and len(held | set(y.tolist())) > 2:
            before = (self.engine.counts, list(self.engine._dom.items()))
            with pytest.raises(ValueError, match="at most two labels"):
                self.engine.add_many(y, s, None)
            assert (self.engine.counts, list(self.engine._dom.items())) == before
            return
        self.engine.add_many(y, s, None)
        self.model += [(yi, si, 1) for yi, si in zip(y.tolist(), s.tolist())]

    @invariant()
    def matches_oracle(self):
        y = [r[0] for r in self.model]
        s = [r[1] for r in self.model]
        w = [r[2] for r in self.model]
        assert_matches(self.engine.counts, y, s, w, self.engine.weighted)
        self.engine._check(y, s, w)
        if len(set(y)) > 2:  # a third label held: the engine left the two-level tree
            assert self.engine.kind == "levels"


TestEngineMachine = EngineMachine.TestCase


def test_engine_moves_from_two_levels_to_levels_then_dominance():
    """auto: the two-level tree, then a third label (per-level multisets), then past
    MAX_LEVELS (the dominance counter); ordinal stays per level; every step exact."""
    from streamrank.structures import (BinaryDominanceCounter, DominanceCounter,
                                       LevelDominanceCounter)
    for labels, last in (("auto", DominanceCounter), ("ordinal", LevelDominanceCounter)):
        e, held = PairEngine(labels), []
        for i in range(60):
            e.add(i % 2, (i % 5) / 4, 1 + i % 3)
            held.append((i % 2, (i % 5) / 4, 1 + i % 3))
        assert isinstance(e._dom, BinaryDominanceCounter)
        e.add(0.5, 0.25, 2)
        held.append((0.5, 0.25, 2))
        assert type(e._dom) is LevelDominanceCounter
        for k in range(MAX_LEVELS + 2):
            e.add(10.0 + k, 0.5)
            held.append((10.0 + k, 0.5, 1))
        assert isinstance(e._dom, last)
        y, s, w = zip(*held)
        e._check(y, s, w)


def test_engine_binary_counts_zero_weight_labels_as_held():
    """labels="binary" counts every label held, zero weights included: a zero-weight
    sample of a label still takes a level of the tree, so a third label is refused (and
    the engine is unchanged), rather than accepted and later refused half-way through a
    change of that sample."""
    e = PairEngine("binary")
    e.add(0, 0.5, 0)
    e.add(1, 0.25)
    before = e.counts
    with pytest.raises(ValueError, match="at most two labels"):
        e.add(2, 0.75)
    assert e.counts == before
    e._check([0, 1], [0.5, 0.25], [0, 1])
    e.remove(0, 0.5, 0)
    e.add(2, 0.75)                      # label 0 left: 2 takes its level
    e._check([1, 2], [0.25, 0.75], [1, 1])


def test_engine_two_level_tree_fractional_weight_switch():
    """The first fractional weight turns the tree to floats mid-stream."""
    e, held = PairEngine("binary"), []
    for i in range(200):
        p = (i % 2, (i % 7) / 6, 1 + i % 2)
        e.add(*p)
        held.append(p)
    assert not e.weighted
    e.add(1, 0.5, 0.3)
    held.append((1, 0.5, 0.3))
    assert e.weighted and e._dom.dtype is float
    for p in held[:150]:
        e.remove(*p)
    y, s, w = zip(*held[150:])
    e._check(y, s, w)


def test_to_bytes_refuses_mixed_int_and_str_keys():
    # numpy would store [1, "a"] as two strings, and "1" would come back for the key 1.
    counter = PairCounter()
    counter.insert(1, 0, 0.5)
    counter.insert("a", 1, 0.7)
    with pytest.raises(TypeError, match="all ints or all strings"):
        counter.to_bytes()
    restored = pickle.loads(pickle.dumps(counter))   # pickle keeps any keys
    assert restored.get(1) == (0.0, 0.5, 1) and "1" not in restored
