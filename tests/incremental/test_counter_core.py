"""`PairCounter`'s compiled owner (`CounterCore`): its key map, its one-walk update, and
the atomicity of every compiled entry point.

* `KeyRows`, the key -> row map, against a dict (the oracle of key semantics and of
  insertion order): int keys at and past the int64 limits, negative, bools, floats equal
  to an int and not, strings, tuples, mixed; a hypothesis state machine; int keys that
  collide in their low bits (strided, negative, high bits only, the limits) after each
  step, alone and through `PairCounter`.
* The update as one walk of the two-level tree against the O(n^2) oracle
  (`assert_counts`) after every change: scores moving within a leaf and across leaves,
  to the same score, to a score already held, labels changing, weights changing (zero
  included), at sizes with one leaf and with several levels of the tree.
* Every compiled entry point (`insert`, `remove`, `update`, `insert_many`,
  `remove_many`, `update_many`) refuses each kind of bad input before anything changes,
  in each structure (two levels, five, continuous, float weights): the whole state
  (pickle bytes, counts, keys in order, rows) is the same afterwards.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from _exact_checks import assert_counts
from streamrank import PairCounter
from streamrank.structures._ckeyrows import KeyRows

I64_MAX, I64_MIN = 2**63 - 1, -2**63

KEYS = st.one_of(
    st.integers(-5, 5),
    st.sampled_from([I64_MAX, I64_MIN, I64_MAX - 1, I64_MIN + 1, I64_MAX + 1, I64_MIN - 1,
                     2**64, -2**100, 2**53 + 1]),
    st.integers(),
    st.booleans(),
    st.sampled_from([0.0, 1.0, -3.0, 0.5, 2.0**70, float("inf")]),
    st.text(max_size=3),
    st.tuples(st.integers(0, 2), st.text(max_size=1)),
)


# ---------------------------------------------------------------------- the key map
class KeyRowsAgainstDict(RuleBasedStateMachine):
    """`KeyRows` holds what a dict holds, in its order, under every kind of key."""

    def __init__(self):
        super().__init__()
        self.rows = KeyRows()
        self.ref: dict = {}
        self.step = 0

    @rule(key=KEYS, s=st.floats(0, 1))
    def put(self, key, s):
        self.step += 1
        if key in self.ref:
            with pytest.raises(KeyError):
                self.rows.put(key, 1.0, s, 1.0)
            return
        w = 1.0 if self.step % 3 else 0.5 * self.step
        self.rows.put(key, float(self.step), s, w)
        self.ref[key] = (float(self.step), s, w)

    @rule(key=KEYS)
    def pop(self, key):
        if key not in self.ref:
            with pytest.raises(KeyError):
                self.rows.pop(key)
            return
        assert self.rows.pop(key) == self.ref.pop(key)

    @rule(data=st.data())
    def pop_held(self, data):
        if self.ref:
            key = data.draw(st.sampled_from(list(self.ref)))
            assert self.rows.pop(key) == self.ref.pop(key)

    @rule(key=KEYS)
    def lookup(self, key):
        assert (key in self.rows) == (key in self.ref)
        if key in self.ref:
            assert self.rows.get(key) == self.ref[key]

    @invariant()
    def same_as_the_dict(self):
        got = self.rows.keys()
        want = list(self.ref)
        assert len(self.rows) == len(want)
        assert got == want
        assert [type(k) for k in got] == [type(k) for k in want]   # the first key given
        self.rows._check()


TestKeyRowsAgainstDict = KeyRowsAgainstDict.TestCase
TestKeyRowsAgainstDict.settings = settings(max_examples=60, stateful_step_count=40)


def test_key_rows_pack_keeps_the_order_and_finds_every_key():
    """Many removals then inserts: the rows are packed (holes closed) and regrown; the
    order and every lookup stay a dict's."""
    rows, ref = KeyRows(), {}
    rng = np.random.default_rng(5)
    for step in range(3000):
        key = int(rng.integers(-2**63, 2**63 - 1)) if step % 5 else f"k{step}"
        if step % 7 == 3:
            key = int(rng.integers(0, 20))
        if key in ref:
            assert rows.pop(key) == ref.pop(key)
        else:
            rows.put(key, 0.0, step / 3000, 1.0)
            ref[key] = (0.0, step / 3000, 1.0)
        if step % 3 == 0 and ref:
            old = next(iter(ref))
            assert rows.pop(old) == ref.pop(old)
    assert rows.keys() == list(ref)
    rows._check()


def _colliding_keys():
    """Int keys that agree in their low bits: multiples of 2**k for table sizes and past
    them, negative ones, keys differing only in their top bits, the int64 limits, and
    runs of consecutive keys (which the table keeps in consecutive slots)."""
    keys = [m << k for k in (4, 5, 16, 21, 32, 40, 55) for m in range(-12, 13)]
    keys += [I64_MIN + (m << 59) for m in range(32)]
    keys += [I64_MAX - (m << 58) for m in range(8)]
    keys += [I64_MAX - m for m in range(20)] + [I64_MIN + m for m in range(20)]
    keys += [b + m for b in (0, 1 << 40, -(1 << 40), 15) for m in range(40)]
    return list(dict.fromkeys(keys))


def test_key_rows_keep_a_dicts_contents_under_colliding_int_keys():
    """Keys colliding in their low bits, put and popped in a shuffled order with re-puts:
    after each step the rows hold what a dict holds, in its order, and `_check()` (every
    key where a probe finds it, across backward-shift deletions and table growth)."""
    rng = np.random.default_rng(24)
    keys = _colliding_keys()
    rows, ref = KeyRows(), {}
    for step, j in enumerate(rng.integers(0, len(keys), 3 * len(keys))):
        key = keys[j]
        if key in ref and step % 3:
            assert rows.pop(key) == ref.pop(key)
        elif key not in ref:
            rows.put(key, float(step % 2), step / 10, 1.0 + step % 3)
            ref[key] = (float(step % 2), step / 10, 1.0 + step % 3)
        assert rows.keys() == list(ref) and len(rows) == len(ref)
        assert all(rows.get(k) == v for k, v in ref.items())
        assert all((k in rows) == (k in ref) for k in keys[:: 7])
        rows._check()


def test_counter_counts_under_colliding_int_keys():
    """Through `PairCounter`: inserts, updates and removals of colliding int keys keep
    the counts of the O(n^2) oracle, the keys in insertion order and `_check()`."""
    rng = np.random.default_rng(7)
    keys = _colliding_keys()[::3]
    pc, ref = PairCounter(), {}
    for step, j in enumerate(rng.integers(0, len(keys), 2 * len(keys))):
        key = keys[j]
        if key not in ref:
            ref[key] = (step % 2, round(float(rng.random()), 1))
            pc.insert(key, *ref[key])
        elif step % 2:
            ref[key] = (ref[key][0], round(float(rng.random()), 1))
            pc.update(key, score=ref[key][1])
        else:
            del ref[key]
            pc.remove(key)
        assert list(pc) == list(ref)
        assert all(pc.get(k) == (y, s, 1) for k, (y, s) in ref.items())
        assert_counts(pc.counts, [(y, s, 1) for y, s in ref.values()], exact=True)
        pc._check()


def test_counter_keys_behave_as_dict_keys():
    """Through `PairCounter`: 1, True and 1.0 are one key (given back as first given),
    ints past int64 and strings are keys of their own, and the order is insertion order
    after removals and re-inserts."""
    pc, ref = PairCounter(), {}
    for i, key in enumerate([True, 2.0, I64_MAX, I64_MIN, 2**64, -2**70, "a", (1, "b"),
                             np.int64(7), 0.5, 3]):
        pc.insert(key, i % 2, i / 10)
        ref[key] = i
    assert list(pc) == list(ref)
    for key in (1, 2, 1.0, np.int64(I64_MAX), 2**64, "a", 7):
        assert key in pc
    with pytest.raises(KeyError, match="held already"):
        pc.insert(1, 0, 0.5)                # True is held
    pc.remove(1.0)
    del ref[True]
    pc.insert(1, 1, 0.05)
    ref[1] = 0
    pc.update(2**64, score=0.9)
    assert list(pc) == list(ref)
    assert [type(k) for k in pc] == [type(k) for k in ref]
    assert pc.get(7) == (0.0, 0.8, 1)
    pc._check()


def test_snapshot_keeps_int_keys_at_the_int64_limits():
    pc = PairCounter()
    keys = [I64_MAX, I64_MIN, I64_MAX + 1, I64_MIN - 1, -1, 0]
    pc.insert_many(keys, [0, 1, 0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    back = PairCounter.from_bytes(pc.to_bytes())
    assert list(back) == keys and list(back.items()) == list(pc.items())
    assert list(pickle.loads(pickle.dumps(pc)).items()) == list(pc.items())


# ---------------------------------------------------------------------- one-walk update
@pytest.mark.parametrize("n", [20, 3000])       # one leaf; a tree of several levels
@pytest.mark.parametrize("spread", ["near", "far", "tied"])
def test_updates_as_one_walk_match_the_oracle(n, spread):
    """Updates moving a score a little (the same leaf), anywhere (another leaf), onto a
    score held (ties), with label and weight changes mixed in: after every change the
    counts equal the O(n^2) oracle's (exact ints)."""
    rng = np.random.default_rng(n + len(spread))
    grid = 40 if spread == "tied" else 10**6
    pc = PairCounter()
    rows = {}
    for k in range(n):
        y, s, w = int(rng.integers(0, 2)), int(rng.integers(0, grid)) / grid, \
            int(rng.integers(0, 3))
        pc.insert(k, y, s, w)
        rows[k] = (y, s, w)
    checks = 60 if n > 100 else 200
    for step in range(checks):
        k = int(rng.integers(0, n))
        y, s, w = rows[k]
        kind = step % 5
        if spread == "near":
            s = min(max(s + float(rng.normal(0, 1e-4)), 0.0), 1.0)
        else:
            s = int(rng.integers(0, grid)) / grid
        if kind == 1:
            s = rows[int(rng.integers(0, n))][1]        # onto a score held
        if kind == 2:
            s = rows[k][1]                              # the same score: label / weight
        args = {"score": s}
        if kind in (2, 3):
            y = 1 - y
            args["label"] = y
        if kind in (2, 4):
            w = int(rng.integers(0, 4))
            args["weight"] = w
        pc.update(k, **args)
        rows[k] = (y, s, w)
        if step % (10 if n > 100 else 1) == 0:
            assert_counts(pc.counts, list(rows.values()), exact=True)
            pc._check()
    assert_counts(pc.counts, list(rows.values()), exact=True)
    pc._check()


@given(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 1), st.integers(0, 6),
                          st.integers(0, 2)), min_size=1, max_size=60))
@settings(max_examples=80)
def test_update_sequences_match_the_oracle(moves):
    """Any sequence of updates of a small tree (scores on a grid of 7: ties everywhere)
    gives the oracle's counts."""
    pc = PairCounter()
    rows = {k: (k % 2, k / 10, 1) for k in range(10)}
    for k, (y, s, w) in rows.items():
        pc.insert(k, y, s, w)
    for k, y, s, w in moves:
        pc.update(k, label=y, score=s / 7, weight=w)
        rows[k] = (y, s / 7, w)
        assert_counts(pc.counts, list(rows.values()), exact=True)
    pc._check()


def test_update_many_matches_the_oracle_in_every_structure():
    rng = np.random.default_rng(3)
    for labels, draw in (("auto", lambda k: rng.integers(0, 2, k)),
                         ("auto", lambda k: rng.integers(0, 5, k)),
                         ("continuous", lambda k: rng.random(k))):
        n = 400
        pc = PairCounter(labels=labels)
        y, s = draw(n).astype(float), rng.integers(0, 50, n) / 50
        pc.insert_many(range(n), y, s)
        keys = rng.choice(n, 120, replace=False).tolist()
        new_s = rng.integers(0, 50, 120) / 50
        pc.update_many(keys, scores=new_s)
        s[keys] = new_s
        assert_counts(pc.counts, list(zip(y.tolist(), s.tolist(), [1] * n)), exact=True)
        pc._check()


# ---------------------------------------------------------------------- atomicity
def _binary():
    pc = PairCounter(labels="binary")
    pc.insert_many(range(40), [i % 2 for i in range(40)], [i / 40 for i in range(40)])
    pc.insert("z", 0, 0.5, 0)
    return pc


def _levels():
    pc = PairCounter()
    pc.insert_many(range(40), [i % 5 for i in range(40)], [i / 40 for i in range(40)])
    return pc


def _continuous():
    pc = PairCounter(labels="continuous")
    pc.insert_many(range(40), [i / 7 for i in range(40)], [i / 40 for i in range(40)])
    return pc


def _floats():
    pc = PairCounter()
    pc.insert_many(range(40), [i % 2 for i in range(40)], [i / 40 for i in range(40)],
                   [0.5 + i for i in range(40)])
    return pc


def _state(pc):
    counts = pc.counts
    return pickle.dumps(pc, protocol=4), counts, len(pc), list(pc.items()), \
        pc._engine.kind, pc._engine.weighted


BAD = [
    ("insert", lambda pc: pc.insert(3, 0, 0.5), KeyError, "held already"),
    ("insert", lambda pc: pc.insert("new", float("nan"), 0.5), ValueError, "'y'"),
    ("insert", lambda pc: pc.insert("new", 0, float("inf")), ValueError, "'s'"),
    ("insert", lambda pc: pc.insert("new", 2**53 + 1, 0.5), ValueError, "'y'"),
    ("insert", lambda pc: pc.insert("new", 0, 0.5, -1), ValueError, "'w'"),
    ("insert", lambda pc: pc.insert("new", 0, 0.5, 2.0**401), ValueError, "'w'"),
    ("insert", lambda pc: pc.insert("new", 0, 0.5, True), TypeError, "'w'"),
    ("insert", lambda pc: pc.insert("new", "x", 0.5), (TypeError, ValueError), "'y'"),
    ("insert", lambda pc: pc.insert([1], 0, 0.5), TypeError, "unhashable"),
    ("remove", lambda pc: pc.remove("missing"), KeyError, "not held"),
    ("remove", lambda pc: pc.remove(2**70), KeyError, "not held"),
    ("update", lambda pc: pc.update("missing", score=0.1), KeyError, "not held"),
    ("update", lambda pc: pc.update(3, score=float("nan")), ValueError, "'score'"),
    ("update", lambda pc: pc.update(3, label=float("inf")), ValueError, "'label'"),
    ("update", lambda pc: pc.update(3, score=0.2, weight=-2), ValueError, "'weight'"),
    ("update", lambda pc: pc.update(3, weight=2.0**-401), ValueError, "'weight'"),
    ("update", lambda pc: pc.update(3, score="x"), (TypeError, ValueError), "'score'"),
    ("insert_many", lambda pc: pc.insert_many(["n1", 3], [0, 1], [0.1, 0.2]), KeyError,
     "held already"),
    ("insert_many", lambda pc: pc.insert_many(["n1", "n1"], [0, 1], [0.1, 0.2]),
     ValueError, "'keys'"),
    ("insert_many", lambda pc: pc.insert_many(["n1", "n2"], [0, 1], [0.1]), ValueError,
     "length"),
    ("insert_many", lambda pc: pc.insert_many(["n1"], [0], [np.nan]), ValueError, "'s'"),
    ("insert_many", lambda pc: pc.insert_many(["n1"], [0], [0.1], [-1]), ValueError, "'w'"),
    ("remove_many", lambda pc: pc.remove_many([1, "missing"]), KeyError, "not held"),
    ("remove_many", lambda pc: pc.remove_many([1, 1]), ValueError, "'keys'"),
    ("update_many", lambda pc: pc.update_many([1, "missing"], scores=[0.1, 0.2]), KeyError,
     "not held"),
    ("update_many", lambda pc: pc.update_many([1, 1.0], scores=[0.1, 0.2]), ValueError,
     "'keys'"),
    ("update_many", lambda pc: pc.update_many([1, 2], scores=[0.1]), ValueError, "length"),
    ("update_many", lambda pc: pc.update_many([1, 2], scores=[0.1, np.inf]), ValueError,
     "'scores'"),
    ("update_many", lambda pc: pc.update_many([1, 2], labels=[0, np.nan]), ValueError,
     "'labels'"),
    ("update_many", lambda pc: pc.update_many([1, 2], scores=[0.1, 0.2], weights=[1, -1]),
     ValueError, "'weights'"),
]


@pytest.mark.parametrize("make", [_binary, _levels, _continuous, _floats],
                         ids=["binary", "levels", "continuous", "floats"])
@pytest.mark.parametrize("name, call, exc, match", BAD, ids=[f"{b[0]}-{i}"
                                                             for i, b in enumerate(BAD)])
def test_compiled_entry_points_refuse_bad_input_and_change_nothing(make, name, call, exc,
                                                                   match):
    pc = make()
    before = _state(pc)
    with pytest.raises(exc, match=match):
        call(pc)
    assert _state(pc) == before
    pc._check()
    pc.update(3, score=0.33)                # and it still takes a good change
    pc._check()


def test_binary_counter_refuses_a_third_label_in_every_entry_point():
    for call in (lambda pc: pc.insert("new", 2, 0.5),
                 lambda pc: pc.update(3, label=2),
                 lambda pc: pc.insert_many(["n1"], [2], [0.5]),
                 lambda pc: pc.update_many([1, 2], labels=[2, 0])):
        pc = _binary()
        before = _state(pc)
        with pytest.raises(ValueError, match="labels='binary'|two labels"):
            call(pc)
        assert _state(pc) == before
        pc._check()
